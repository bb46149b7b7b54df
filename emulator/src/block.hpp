// block.hpp: runs the blocks of a launch, one at a time: every thread of the block with its own
// register file, scheduled deterministically. A thread runs until it reaches a bar.sync, a warp
// collective (shfl.sync, elect.sync, ldmatrix, stmatrix), a warpgroup collective (wgmma), an
// mbarrier.try_wait whose phase has not completed, or its end; a collective completes when every
// lane of its membermask that has not exited waits at it (the .aligned ones: every thread of the
// warp or warpgroup), a barrier when the threads it counts have arrived, a try_wait when its
// mbarrier's phase completes (the thread is parked until then, then runs the try_wait again);
// when nothing can run and some thread still waits, the block is deadlocked (an error).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "global_order.hpp"
#include "mbarrier.hpp"
#include "program.hpp"
#include "shared_memory.hpp"
#include "tensor_map.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/emulator/run.hpp"

namespace tessel::emu::detail {

// What all blocks of a launch share.
struct Launch {
  const Program& program;
  const codegen::LaunchPlan& plan;
  Memory& memory;
  const RunOptions& options;
  std::vector<std::byte> params;  // the parameter space, laid out as Program::params
  RunStats stats;
  uint64_t steps_left = 0;
  GlobalOrder order{false};  // release and acquire of global memory between the blocks
};

class BlockRunner;

// The CTAs of one cluster, run together (run.cpp): the CTA of cluster rank r is ctas[r]. They
// share the cluster barrier (barrier.cluster), and reach each other's shared memory through
// shared::cluster addresses (mapa), remote mbarrier arrives and multicast TMA loads.
struct Cluster {
  std::vector<BlockRunner*> ctas;
  std::vector<std::pair<uint32_t, uint32_t>> arrived;  // (rank, thread) at barrier.cluster.wait
};

class BlockRunner {
 public:
  explicit BlockRunner(Launch& launch);
  // Starts block `ctaid` as rank `rank` of `cluster` (its state reset, every thread ready).
  void start(std::array<unsigned, 3> ctaid, Cluster& cluster, uint32_t rank);
  // One pass over the block's ready threads; `ran`: some thread ran. Returns false once every
  // thread has exited.
  bool pass(bool& ran);
  bool waiting() const;  // some thread has not exited
  // Throws the EmulationError that says why nothing can run (no thread of the cluster ran).
  [[noreturn]] void deadlock();

 private:
  enum class State : uint8_t { Ready, AtBarrier, AtCollective, AtMbarrier, Exited };
  struct Thread {
    uint32_t pc = 0;
    State state = State::Ready;
    uint32_t wait_addr = 0, wait_parity = 0;  // AtMbarrier: the mbarrier and the parity of the phase awaited
  };
  struct Barrier {
    uint32_t expected = 0;
    std::vector<uint32_t> arrived;
  };

  void run_thread(uint32_t t);
  void execute(uint32_t t, uint32_t& pc);  // runs t from pc until it blocks or exits
  void arrive(uint32_t t);
  void try_collectives(uint32_t warp);
  void perform(const Decoded& d, const std::vector<uint32_t>& lanes, uint32_t warp);
  // The .aligned collectives of thread t's warp (ldmatrix, stmatrix) or warpgroup (wgmma).
  void try_aligned(uint32_t t);
  [[noreturn]] void mbarrier_deadlock();
  void cluster_arrive(uint32_t t);  // barrier.cluster.wait in a cluster of more than one CTA

  // mbarrier operations of thread t (mbarrier.cpp holds the state machine).
  // The CTA (a peer's for a shared::cluster address) and shared address of an mbarrier operand,
  // checked: in 4 GiB, 8-byte aligned, inside that CTA's shared memory.
  std::pair<BlockRunner*, uint32_t> mbarrier_address(const Decoded& d, const uint64_t* R);
  void mbarrier(uint32_t t, const Decoded& d, uint64_t* R);  // init, arrive, arrive.expect_tx
  bool try_wait(uint32_t t, const Decoded& d, uint64_t* R);  // false: the thread is parked
  void completed(Mbarrier& b);                               // wakes the threads parked on b
  uint64_t mapa(const Decoded& d, const uint64_t* R);
  unsigned cluster_size() const;
  // A shared::cluster address: the CTA it names and the shared::cta address there. mapa encodes
  // rank r as bits 24.. = r + 1 (shared::cta addresses stay below 2^24: 227 KiB per block);
  // without them the address is this CTA's.
  std::pair<BlockRunner*, uint32_t> cluster_address(uint64_t a, const char* what);

  // Asynchronous copies and matrix instructions (tma.cpp, wgmma.cpp, matrix.cpp).
  void tma_load(uint32_t t, const Decoded& d, const uint64_t* R);
  void tma_store(uint32_t t, const Decoded& d, const uint64_t* R);  // checks it, then queues it
  // A TMA store reads its box in shared memory (and writes global memory) at the latest moment
  // the PTX allows: when a cp.async.bulk.wait_group of its thread needs its bulk async-group, or
  // when the thread exits. A buffer written again before that wait is then caught (the store
  // writes the newer data), as on the GPU, where the read really is asynchronous.
  struct PendingStore {
    TmaMap map;
    std::array<int32_t, 5> start{};
    uint32_t src = 0;
  };
  struct BulkGroups {
    std::vector<PendingStore> open;                     // issued, not yet committed
    std::deque<std::vector<PendingStore>> committed;  // oldest first
  };
  void bulk_commit(uint32_t t);
  void bulk_wait(uint32_t t, size_t pending);  // performs the oldest groups until `pending` remain
  void perform_store(uint32_t t, const PendingStore& s);
  // cp.async (cp_async.cpp): queued per thread at issue (checked then), performed when a wait of
  // the thread needs its group, at its cp.async.mbarrier.arrive, or at its exit.
  struct PendingCopy {
    uint32_t dst = 0, bytes = 0, src_bytes = 0;
    uint64_t src = 0;
  };
  struct CopyGroups {
    std::vector<PendingCopy> open;                     // issued, not yet committed
    std::deque<std::vector<PendingCopy>> committed;  // oldest first
  };
  void cp_async(uint32_t t, const Decoded& d, const uint64_t* R);
  void cp_async_commit(uint32_t t);
  // Performs the oldest groups until `pending` remain (< 0: wait_all); `all_open`: the uncommitted
  // copies too (the thread's exit, cp.async.mbarrier.arrive).
  void cp_async_wait(uint32_t t, int64_t pending, bool all_open = false);
  void perform_copy(uint32_t t, const PendingCopy& c);
  void cp_async_mbarrier_arrive(uint32_t t, const Decoded& d, const uint64_t* R);
  void wgmma(const Decoded& d, uint32_t first);  // the warpgroup of threads first..first+127: checks, queues
  // A wgmma reads its shared-memory operands and updates the accumulators at the latest moment the
  // PTX allows: when a wgmma.wait_group of its warpgroup needs its group (or a thread exits). A
  // stage released (and reloaded) before that wait then shows as a race or a wrong product.
  struct PendingWgmma {
    const Decoded* d = nullptr;
    uint32_t first = 0;
    uint64_t desc_a = 0, desc_b = 0, trans_a = 0, trans_b = 0;  // the operands' values at issue
    int64_t scale_a = 1, scale_b = 1;
    bool scale_d = false;
    std::vector<double> a;  // A from registers, read at issue (64 x K); empty: A in shared memory
  };
  struct WgmmaGroups {
    std::vector<PendingWgmma> open;                     // issued, not yet committed
    std::deque<std::vector<PendingWgmma>> committed;  // oldest first
    uint64_t created = 0, done = 0;                    // groups committed / performed so far
  };
  void wgmma_commit(uint32_t t);
  void wgmma_wait(uint32_t t, uint64_t pending);
  void perform_wgmma(const PendingWgmma& p);
  void matrix(const Decoded& d, uint32_t first);          // ldmatrix / stmatrix of the warp at first
  std::array<uint64_t, 16> read_tensor_map(uint32_t t, const Decoded& d, uint64_t addr);

  // Memory accesses of thread t (registers R); throw Fault.
  void load(uint32_t t, const Decoded& d, uint64_t* R);
  void store(uint32_t t, const Decoded& d, const uint64_t* R);
  void atomic(uint32_t t, const Decoded& d, uint64_t* R);
  void access(uint32_t t, const Decoded& d, uint64_t addr, void* data, uint32_t n, bool write, bool is_atomic);
  uint32_t linear_block() const;  // the block's index in the grid, x fastest

  uint64_t* regs(uint32_t t) { return regs_.data() + size_t{t} * L_.program.nslots; }
  std::string thread_name(uint32_t t) const;
  std::string where(uint32_t t, uint32_t pc) const;  // "kernel K, block (x,y,z), thread (x,y,z), instruction `...`"

  Launch& L_;
  Cluster* cluster_ = nullptr;
  uint32_t rank_ = 0;
  std::array<unsigned, 3> block_{}, ctaid_{};
  uint32_t nthreads_ = 0;
  std::vector<Thread> threads_;
  std::vector<uint64_t> regs_;
  static constexpr uint32_t kClusterBarrier = 16;  // barrier.cluster in a cluster of one CTA
  std::array<Barrier, 17> barriers_;
  SharedMemory shared_;
  Mbarriers mbarriers_;
  std::vector<BulkGroups> bulk_;  // per thread
  std::vector<CopyGroups> copies_;  // per thread: cp.async
  std::vector<WgmmaGroups> wgmma_;         // per warpgroup
  std::vector<uint64_t> wgmma_commits_;   // per thread: wgmma.commit_group executed
};

}  // namespace tessel::emu::detail
