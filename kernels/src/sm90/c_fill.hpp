// sm90/c_fill.hpp: the producer warpgroup's copier warps (1 to 3, idle otherwise), which bring a C
// that the TMA cannot read (an address or a stride that is not a multiple of 16 bytes: an odd
// leading dimension) into the epilogue's staging boxes, where the TMA would have loaded it, in a
// cooperative kernel. Per box index b: wait until the consumer warpgroups free their box b (an
// arrival on its C-empty mbarrier, where they would issue the TMA load), copy every warpgroup's box
// b (64 rows of 128 bytes each) with cp.async (16, 8 or 4 bytes at once, as each row's alignment
// allows; 16-bit C whose rows start at odd elements, and the chunks at C's ragged edge, element by
// element; zeros outside C), wait for the copies, and arrive on each box's C mbarrier, which the
// consumers wait on as for the TMA's load. The boxes keep the TMA's layout, so the consumers read
// them as they read the TMA's. Boxes 0 and 1 fill under the mainloop, as the TMA's loads do; the
// rest as the boxes free up, from the L2, where the copier prefetched them after box 1.
#pragma once

#include "sm90/epilogue.hpp"
#include "sm90/shared_storage.hpp"
#include "sm90/tile_scheduler.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

class CStagingFill {
 public:
  static constexpr int kThreads = 96;      // warps 1 to 3 of the producer warpgroup
  static constexpr int kNamedBarrier = 5;  // theirs (the epilogue's are 1 and 2, A's registers' 3 and 4)

  // C (u64 global) and its strides along the kernel's M and N and the batch (s64, elements), the
  // problem's M and N (s32), beta (f32) and the kernel's flags (u32: kHopperGemmColumnMajorC,
  // kHopperGemmCopiedC).
  struct Tensors {
    codegen::Value c, stride_m, stride_n, batch_stride, M, N, beta, flags;
  };

  // `staging` and `c_full` as the epilogue's; `c_empty`: one mbarrier per staging box (init()); `u`
  // the thread's index among the copier threads (u32, 0 to 95).
  CStagingFill(codegen::KernelBuilder& b, const TmaStoreEpilogue::Params& p, const Tensors& t,
               const SharedStorage& smem, SmemRegion staging, SmemRegion c_full, SmemRegion c_empty, codegen::Value u);

  // One thread, with the kernel's other barriers: one arrival (a consumer's) per phase.
  static void init(const SharedStorage& smem, SmemRegion c_empty);

  // The CTA's tiles in the scheduler's order; for each (where beta != 0 and the launch set
  // kHopperGemmCopiedC) its C into the L2, then its boxes in the order the consumers take them.
  void run(const PersistentTileScheduler& scheduler) const;

 private:
  void prefetch_rest(const WorkTile& at) const;
  codegen::Value address(const WorkTile& at, codegen::Value m, codegen::Value n) const;
  void fill_boxes(const WorkTile& at, codegen::Value box, codegen::Value phase) const;
  void copy_chunk(codegen::Value dst, codegen::Value src, codegen::Value row_inside, codegen::Value left) const;
  void copy_elements(codegen::Value dst, codegen::Value src, codegen::Value left) const;

  codegen::KernelBuilder& b_;
  TmaStoreEpilogue::Params p_;
  Tensors t_;
  const SharedStorage& smem_;
  SmemRegion staging_, c_full_, c_empty_;
  codegen::Value u_;
  codegen::Value column_;  // C M-contiguous (pred)
  int ob_ = 0, subn_ = 0;  // C's bytes; a box's columns (128 bytes of them)
};

}  // namespace tessel::kernels::sm90
