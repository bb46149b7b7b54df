// global_order.hpp: the order of global memory between the blocks of one launch, after the PTX
// memory model's release and acquire patterns (PTX ISA, "Memory Consistency Model"), at block
// granularity. A block's plain stores become visible to another block only through a release by
// one of the writer's threads after them (an atom or red with .release or .acq_rel) whose value a
// thread of the reader acquires (an atom with .acquire or .acq_rel reading that location, then or
// later). A plain load of a global word that another block stored in this launch without such a
// pair in between is a fault: the missing .release or .acquire (or fence) that the GPU would not
// forgive every time. Within a block the threads count as ordered (their barriers are checked
// elsewhere), so a release by any of its threads publishes every store the block made before it.
//
// Only kernels with a global atomic (atom or red) are checked: without one, blocks cannot hand
// each other data at all, and words are 4 bytes here, so two blocks writing different bytes of one
// word (adjacent 16-bit elements of two tiles, where a leading dimension is odd) count as one
// writer, the last; the SIMT GEMM's tiles do that. Not modelled: fences (tessel emits none for
// global memory: a kernel that ordered its stores with fence.acq_rel and a relaxed atomic would be
// reported).
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>

namespace tessel::emu::detail {

class GlobalOrder {
 public:
  // `enabled`: the kernel has a global atomic; otherwise every call does nothing.
  explicit GlobalOrder(bool enabled = false) : enabled_(enabled) {}
  // A plain store of n bytes at addr by `block` (its linear index in the grid).
  void store(uint32_t block, uint64_t addr, uint32_t n);
  // An atomic read-modify-write at addr by `block`, with its semantics: the acquire happens
  // before the release (an .acq_rel atom reads, then writes).
  void atomic(uint32_t block, uint64_t addr, uint32_t n, bool acquire, bool release);
  // A plain load: faults ("unordered global read") where a word of it was stored by another
  // block in this launch and no release of that block after the store has been acquired by `block`.
  void load(uint32_t block, uint64_t addr, uint32_t n) const;

 private:
  using Clock = std::map<uint32_t, uint64_t>;  // block -> its releases known
  bool enabled_ = false;
  struct Write {
    uint32_t block = 0;
    uint64_t releases = 0;  // the writer's releases before the store: the next one publishes it
  };
  std::unordered_map<uint64_t, Write> words_;    // by address / 4
  std::unordered_map<uint32_t, uint64_t> releases_;  // by block
  std::unordered_map<uint32_t, Clock> seen_;         // by block: what it has acquired
  std::unordered_map<uint64_t, Clock> published_;    // by atomic word: what releases into it carry
};

}  // namespace tessel::emu::detail
