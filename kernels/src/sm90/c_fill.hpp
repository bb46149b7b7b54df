// sm90/c_fill.hpp: the producer warpgroup's copier warps (1 to 3, idle otherwise), which bring a C
// that the TMA cannot read (an address or a stride that is not a multiple of 16 bytes: an odd
// leading dimension) into the epilogue's staging boxes, box by box, where the TMA would have loaded
// it. Per box: wait until the consumers free it (an arrival on its C-empty mbarrier, where they
// would issue the TMA load), copy its 64 rows of 128 bytes with cp.async (16, 8 or 4 bytes at once,
// as each row's alignment allows; 16-bit C whose rows start at odd elements, and the chunks at C's
// ragged edge, element by element), wait for the copies, and arrive on the box's C mbarrier, which
// the consumers wait on as for the TMA's load. The boxes stay in the TMA's layout, so the
// consumers' code reads them as it does the TMA's. The copies run under the mainloop for a tile's
// first two boxes, as the TMA's loads do; the rest as the boxes free up.
#pragma once

#include "sm90/epilogue.hpp"
#include "sm90/shared_storage.hpp"
#include "sm90/tile_scheduler.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

class CStagingFill {
 public:
  static constexpr int kThreads = 96;        // warps 1 to 3 of the producer warpgroup
  static constexpr int kNamedBarrier = 5;    // theirs (the epilogue's are 1 and 2, A's registers' 3 and 4)

  // C (u64 global) and its strides along the kernel's M and N and the batch (s64, elements), the
  // problem's M and N (s32), beta (f32) and the kernel's flags (u32: kHopperGemmColumnMajorC,
  // kHopperGemmCopiedC).
  struct Tensors {
    codegen::Value c, stride_m, stride_n, batch_stride, M, N, beta, flags;
  };

  // `staging` and `c_full` as the epilogue's; `c_empty`: one mbarrier per staging box (init()); `u`
  // the thread's index among the copier threads (u32, 0 to 95).
  CStagingFill(codegen::KernelBuilder& b, const TmaStoreEpilogue::Params& p, const Tensors& t, const SharedStorage& smem,
               SmemRegion staging, SmemRegion c_full, SmemRegion c_empty, codegen::Value u);

  // One thread, with the kernel's other barriers: one arrival (a consumer's) per phase.
  static void init(const SharedStorage& smem, SmemRegion c_empty);

  // The CTA's tiles in the scheduler's order; for each (where beta != 0 and the launch set
  // kHopperGemmCopiedC) its C into the L2, then its boxes in the order the consumers take them.
  void run(const PersistentTileScheduler& scheduler) const;

 private:
  void prefetch_tile(const WorkTile& at) const;
  void fill_box(const WorkTile& at, codegen::Value w, codegen::Value box, codegen::Value phases) const;
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
