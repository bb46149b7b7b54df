// hopper_gemm/shared_storage.hpp: the Hopper GEMM's dynamic shared memory, region by region.
#pragma once

#include <cstdint>

#include "sm90/shared_storage.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::kernels {

// In this order (each region at the next multiple of its alignment, which the sizes already are):
//   [A stage 0 .. S-1][B stage 0 .. S-1][epilogue boxes][full mbarrier x S][empty mbarrier x S][turns]
//   [C's full mbarrier x consumers][split-K's last-arrival word]
// The operand stages and the epilogue's boxes are 128-byte swizzled, so 1024-byte aligned (the
// swizzle's period of 8 rows); the mbarriers are 8 bytes each, 8-byte aligned.
struct HopperGemmSharedStorage {
  sm90::SmemRegion a, b;         // `stages` tiles of A (tile_m x tile_k) and of B (tile_n x tile_k)
  sm90::SmemRegion epilogue;     // per consumer warpgroup, its staging_boxes boxes of 64 rows x 128 bytes
  sm90::SmemRegion full, empty;  // the pipeline's mbarriers, one each per stage
  sm90::SmemRegion turns;        // ping-pong: the two mainloops' turn mbarriers (none otherwise)
  // Per consumer warpgroup, the mbarrier its epilogue's TMA loads of C complete on (C is loaded
  // into the staging box that then takes out's values: no shared memory of its own).
  sm90::SmemRegion c_full;
  // Split-K and stream-K: where the consumers' thread 0 tells the others whether their unit arrived last
  // (none otherwise).
  sm90::SmemRegion split_k_last;
  // The staging boxes have room for C by lines (TmaStoreEpilogue::kLineBoxBytes each): in every
  // configuration whose shared memory then stays within kMaxSharedBytes.
  bool c_lines = false;
  // Staging boxes per consumer warpgroup: 2, or up to the boxes of its tile (at most 4) where they fit.
  int staging_boxes = 2;
  static constexpr int64_t kMaxSharedBytes = 227 * 1024;
  int64_t bytes = 0;             // the end of the last region
  int64_t align = 0;             // what the base must be aligned to (the launch adds it as slack)

  explicit HopperGemmSharedStorage(const HopperGemmConfig& c);
};

}  // namespace tessel::kernels
