// shared_memory.hpp: one block's shared memory with a shadow of every byte (who wrote it last, and
// when in barrier terms) that finds reads of bytes nobody wrote and reads of bytes another thread
// wrote with no barrier between the write and the read that both threads passed.
//
// Happens-before through barriers only: each thread counts the barriers it has passed (its
// epoch). A write records the writer, its epoch and the block's count of whole-block barriers.
// A read by another thread is ordered after the write if a whole-block barrier completed since
// the write, or if a partial barrier (bar.sync id, count) that both passed completed after the
// write: for those the block keeps, per pair of threads, the writer's epoch at the last barrier
// the pair passed together (allocated only when a partial barrier is used).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "program.hpp"

namespace tessel::emu::detail {

class SharedMemory {
 public:
  // Sizes the memory for p's arrays (contents: Memory::kPoison) and forgets every write.
  void reset(const Program& p, std::array<unsigned, 3> block, bool check_uninitialized, bool check_races);

  // Kernel accesses of n bytes at shared address addr by thread t (linear index). Throw Fault for
  // an address outside every array, an uninitialised or racing read. Atomics do not race with
  // atomics.
  void load(uint32_t addr, void* dst, uint32_t n, uint32_t t, bool atomic);
  void store(uint32_t addr, const void* src, uint32_t n, uint32_t t, bool atomic);

  // A barrier completed for these threads (all: every thread of the block). It also passes on
  // what each of them has observed of mbarrier phases (observe) to all of them.
  void barrier(const std::vector<uint32_t>& threads, bool all);

  // A write by the async proxy (a TMA load) that completes on the mbarrier at `mbar` in its phase
  // `phase`: a thread may read these bytes once it has observed that phase complete (observe),
  // itself or through a barrier with a thread that did; before, the read is a race. `issuer`: the
  // thread of this block that issued the load (-1: a peer CTA's multicast), which must be ordered
  // after the last read of each byte it overwrites (write-after-read: the reader released the
  // bytes by an mbarrier arrive the issuer waited on, or a barrier both passed).
  void async_store(uint32_t addr, const void* src, uint32_t n, uint32_t mbar, uint32_t phase, int32_t issuer);
  // Thread t saw the mbarrier at `mbar` with `completed` phases complete (a successful try_wait).
  void observe(uint32_t t, uint32_t mbar, uint32_t completed);

  // mbarrier arrive (release) and a successful wait (acquire): arrive_epoch makes t's later writes
  // a new epoch and returns it; acquire orders reader r after the writes each (writer, epoch) of
  // `arrivals` made before its arrival.
  uint32_t arrive_epoch(uint32_t t) { return ++epoch_[t]; }
  void acquire(uint32_t r, const std::vector<std::pair<uint32_t, uint32_t>>& arrivals);
  // An arrive's release is cumulative (PTX memory model): what a partial barrier ordered before
  // thread t is ordered before t's arrival too. Appends (w, w's epoch at its last partial barrier
  // with t) for every other thread w that passed one with t (a warpgroup's lanes that read a stage
  // before a named barrier, then lane 0 of each warp releasing the stage for all).
  void append_ordered_before(uint32_t t, std::vector<std::pair<uint32_t, uint32_t>>& arrivals) const;

  // fence.proxy.async by thread t (shared memory included): t's earlier generic writes become
  // visible to the async proxy (TMA stores, wgmma operands).
  void proxy_fence(uint32_t t) {
    if (!fences_.empty()) ++fences_[t];
  }
  // An async-proxy read of [addr, addr + n) (`who`: "the TMA store", "wgmma"): throws Fault for a
  // byte a thread wrote (st.shared, stmatrix) without a fence.proxy.async after the write (with
  // race checks on). The barrier between the writer and the issuing thread is load()'s check.
  void check_async_read(uint32_t addr, uint32_t n, const char* who) const;

  // Throws Fault unless [addr, addr + n) lies in one shared array (`what`: "reads", "writes").
  void check(uint32_t addr, uint32_t n, const char* what) const { check_range(addr, n, what); }

  // "0x41c (offset 28 of smem)"
  std::string describe(uint32_t addr) const;

 private:
  const SharedArray* array_of(uint32_t addr, uint32_t n) const;
  void check_range(uint32_t addr, uint32_t n, const char* what) const;
  std::string thread_name(uint32_t t) const;

  static constexpr int32_t kAsync = -2;  // Shadow::writer of a TMA write
  struct Shadow {
    int32_t writer = -1;  // thread; -1: never written; kAsync: a TMA load
    uint32_t epoch = 0;   // the writer's barrier count at the write (kAsync: the mbarrier's address)
    uint32_t full = 0;    // the block's whole-block barrier count at the write (kAsync: the phase)
    uint32_t atomic = 0;  // written by an atomic
    uint32_t fence = 0;   // the writer's fence.proxy.async count at the write
    int32_t reader = -1;  // the last thread that read the byte since it was written (-1: none)
    uint32_t repoch = 0;  // the reader's barrier count at the read
    uint32_t rfull = 0;   // the block's whole-block barrier count at the read
  };
  const Program* p_ = nullptr;
  std::array<unsigned, 3> block_{};
  uint32_t nthreads_ = 0;
  bool uninit_ = true, races_ = true;
  std::vector<std::byte> bytes_;  // indexed by address (the first kSharedBase bytes unused)
  std::vector<Shadow> shadow_;    // same indexing, when a check is on
  std::vector<uint32_t> epoch_;   // per thread: barriers passed
  std::vector<uint32_t> fences_;  // per thread: fence.proxy.async executed (empty: races unchecked)
  uint32_t full_ = 0;             // whole-block barriers completed
  std::vector<uint32_t> pair_;    // [reader * n + writer]: writer's epoch at their last common barrier
  // Per thread: (mbarrier address, phases it has seen completed), for TMA writes.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> seen_;
  uint32_t seen_phases(uint32_t t, uint32_t mbar) const;
};

}  // namespace tessel::emu::detail
