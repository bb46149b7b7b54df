// sm90/tile_scheduler.hpp: the persistent tile scheduler of an sm_90 GEMM (CuTe DSL's
// StaticPersistentTileScheduler): a grid of at most one CTA (cluster) per SM walks the output
// tiles by a grid-stride loop over a linear work index, each index mapped to (tile m, tile n,
// batch) in a rasterized order, so that the CTAs running at once share A and B tiles in L2.
#pragma once

#include <functional>
#include <optional>

#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

// This CTA's place in its cluster along M and along N (s32). Clusters have at most 2 CTAs here,
// ranked along M first, so the rank along the cluster's one long side is %cluster_ctarank.
struct ClusterRank {
  codegen::Value m, n;
};
ClusterRank cluster_rank(codegen::KernelBuilder& b, int cluster_m, int cluster_n);

// The output tile a CTA works on: its first row, first column and batch (s32). Split-K and
// stream-K also name the unit's k-tiles [k_begin, k_begin + k_count), and for the fix-up its tile
// (the index of the tile's counter and partials), its part of the tile (`split`: 0, 1, ... in k
// order) and the tile's parts (1: the unit is the whole tile, nothing to fix up) (s32); empty
// Values otherwise.
struct WorkTile {
  codegen::Value m0, n0, l;
  codegen::Value tile, split, k_begin, k_count, parts;
};

class PersistentTileScheduler {
 public:
  struct Params {
    int tile_m = 0, tile_n = 0, tile_k = 0;  // a CTA's tile
    int cluster_m = 1, cluster_n = 1;        // CTAs per cluster along M and N
    int group_rows = 8;                      // tile-rows per rasterization group
  };
  // The problem (M, N, K, L: s32). Emits the tile counts and the CTA's (cluster's) first work
  // index and stride, so construct it where every warpgroup sees them. With `splits` (s32, >= 1,
  // at most the k-tiles; 1x1 clusters): split-K, whose work units are (tile, split) in split-major
  // order (every tile's split 0, then every tile's split 1, ...), split s taking k-tiles
  // [s kt / splits, (s + 1) kt / splits) (kt = ceil(K / tile_k)): none empty, sizes differing by 1 at most.
  // With `dp_tiles` instead (s32, hopper_gemm_stream_k_plan's; 1x1 clusters): stream-K, whose
  // CTA c of G (the grid) takes the tiles c, c + G, ... below dp_tiles whole, then its range
  // [c W / G, (c + 1) W / G) of the W k-tiles of the tiles after them, laid end to end: a unit per
  // tile the range meets.
  PersistentTileScheduler(codegen::KernelBuilder& b, const Params& p, ClusterRank rank, codegen::Value M,
                          codegen::Value N, codegen::Value K, codegen::Value L,
                          std::optional<codegen::Value> splits = {}, std::optional<codegen::Value> dp_tiles = {});

  // k-tiles of every work tile (s32): the whole K, ceil(K / tile_k); a data-parallel schedule.
  codegen::Value k_tiles() const { return k_tiles_; }
  // Split-K: the output tiles over the batch; stream-K: the tiles of its region (s32). The tiles
  // that have counters and partials in the workspace.
  codegen::Value tiles() const { return tiles_; }

  // body(tile) for the CTA's tiles: work index first, first + stride, ... below the total. With
  // `turn` (s32, 0 or 1: the ping-pong consumer warpgroups), every other one of those: the
  // (first + turn)-th, then every 2 strides.
  void for_each_tile(const std::function<void(const WorkTile&)>& body, std::optional<codegen::Value> turn = {}) const;

 private:
  WorkTile work_tile(codegen::Value index) const;
  void for_each_stream_k_unit(const std::function<void(const WorkTile&)>& body) const;

  codegen::KernelBuilder& b_;
  Params p_;
  ClusterRank rank_;
  codegen::Value tiles_m_, tiles_n_, per_batch_, total_, k_tiles_, first_, stride_;
  std::optional<codegen::Value> splits_, dp_tiles_;
  codegen::Value tiles_;
  codegen::Value sk_k_tiles_, sk_begin_, sk_end_;  // stream-K (s64): W, and this CTA's range of it
};

}  // namespace tessel::kernels::sm90
