// sm90/split_k.hpp: split-K's (and stream-K's) fix-up for an sm_90 GEMM's consumer warpgroups:
// after a unit's mainloop (one part of a tile's k-tiles), its f32 partial tile goes to the
// workspace, the CTA counts itself in at the tile's counter, and the unit that arrives last sums
// every part's partial in the order s = 0, 1, ..., parts - 1 (k order) into its accumulators,
// which the epilogue then stores. The order of the sum never depends on which unit arrives last, so the result has the
// same bits every run. No unit waits for another (the last one finds the others done), so the
// schedule needs no co-resident grid.
#pragma once

#include <vector>

#include "sm90/shared_storage.hpp"
#include "sm90/tile_scheduler.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

class SplitKFixup {
 public:
  // The consumers' bar.sync id around the count at the tile's counter: not an epilogue's (1, 2),
  // which each warpgroup uses with 128 threads while the other may already be here, nor the
  // register path's (3, 4).
  static constexpr int kBarrier = 5;
  struct Params {
    int tile_m = 0, tile_n = 0;  // a tile: tile_m / 64 consumer warpgroups, one 64-row slab each
    int consumers = 1;           // the consumer warpgroups (cooperative: one per slab)
  };
  // The kernel's parameters the fix-up reads: the partial tiles per tile in the workspace (s32:
  // split-K's split count, stream-K's slots), the workspace (u64: see workspace layout below), the
  // launch's id (u64, below 2^48), the tiles with counters (s32: split-K's L x tiles along M x
  // tiles along N, stream-K's region). A unit's tile, part and the tile's parts: its WorkTile.
  struct Tensors {
    codegen::Value slots, workspace, launch, tiles;
  };
  // The workspace: per tile a u64 counter, (launch id << 16) | units arrived, rounded up to 256
  // bytes; then per (tile, slot) a partial tile of tile_m x tile_n f32, slab by slab, each slab
  // in fragment order: 4 consecutive values of thread t at ((v / 4) * 128 + t) * 4 (16-byte
  // stores, a warp's 512 bytes contiguous).
  static int64_t counter_bytes(int64_t tiles) { return (tiles * 8 + 255) / 256 * 256; }

  // `last`: one 8-byte word of shared memory; `w` the warpgroup's slab, `t128` the thread's index
  // in it (u32).
  SplitKFixup(codegen::KernelBuilder& b, const Params& p, const Tensors& t, const SharedStorage& smem, SmemRegion last,
              codegen::Value w, codegen::Value t128);

  // After the unit's mainloop, with its accumulators (the warpgroup's slab: wgmma fragments, f32,
  // every MMA finished). Returns a predicate, uniform over the consumers: whether this unit stores
  // the tile (one part, or the last arrival; the accumulators then hold the sum of all parts).
  codegen::Value reduce(const WorkTile& at, std::vector<codegen::Value>& acc) const;

 private:
  codegen::Value slot(const WorkTile& at, codegen::Value split) const;  // this thread's first float of a partial
  codegen::Value arrive(const WorkTile& at) const;                      // thread 0: whether it arrived last

  codegen::KernelBuilder& b_;
  Params p_;
  Tensors t_;
  const SharedStorage& smem_;
  SmemRegion last_;
  codegen::Value w_, t128_;
};

}  // namespace tessel::kernels::sm90
