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

// The output tile a CTA works on: its first row, first column and batch (s32). Split-K also
// names the unit's tile (its linear index over L x tiles), its split, and its k-tiles
// [k_begin, k_begin + k_count) (s32); empty Values otherwise.
struct WorkTile {
  codegen::Value m0, n0, l;
  codegen::Value tile, split, k_begin, k_count;
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
  // at most the k-tiles; 1x1 clusters): split-K, whose work units are (tile, split), the splits
  // of a tile next to each other in the work order, split s taking k-tiles
  // [s kt / splits, (s + 1) kt / splits) (kt = ceil(K / tile_k)): none empty, sizes differing by 1 at most.
  PersistentTileScheduler(codegen::KernelBuilder& b, const Params& p, ClusterRank rank, codegen::Value M,
                          codegen::Value N, codegen::Value K, codegen::Value L,
                          std::optional<codegen::Value> splits = {});

  // k-tiles of every work tile (s32): the whole K, ceil(K / tile_k); a data-parallel schedule.
  codegen::Value k_tiles() const { return k_tiles_; }
  // Split-K: the output tiles over the batch (s32).
  codegen::Value tiles() const { return tiles_; }

  // body(tile) for the CTA's tiles: work index first, first + stride, ... below the total. With
  // `turn` (s32, 0 or 1: the ping-pong consumer warpgroups), every other one of those: the
  // (first + turn)-th, then every 2 strides.
  void for_each_tile(const std::function<void(const WorkTile&)>& body, std::optional<codegen::Value> turn = {}) const;

 private:
  WorkTile work_tile(codegen::Value index) const;

  codegen::KernelBuilder& b_;
  Params p_;
  ClusterRank rank_;
  codegen::Value tiles_m_, tiles_n_, per_batch_, total_, k_tiles_, first_, stride_;
  std::optional<codegen::Value> splits_;
  codegen::Value tiles_;
};

}  // namespace tessel::kernels::sm90
