// sm90/tile_scheduler.cpp: the persistent tile scheduler: grid-stride work indices, raster order.
#include "sm90/tile_scheduler.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

ClusterRank cluster_rank(KernelBuilder& b, int cluster_m, int cluster_n) {
  Value rank =
      cluster_m * cluster_n > 1 ? b.cvt(b.special(Special::ClusterCtaRank), Type::S32) : b.constant(0, Type::S32);
  Value rank_m = cluster_m > 1 ? rank : b.constant(0, Type::S32),
        rank_n = cluster_n > 1 ? rank : b.constant(0, Type::S32);
  return ClusterRank{rank_m, rank_n};
}

PersistentTileScheduler::PersistentTileScheduler(KernelBuilder& b, const Params& p, ClusterRank rank, Value M, Value N,
                                                 Value K, Value L, std::optional<Value> splits,
                                                 std::optional<Value> dp_tiles)
    : b_(b), p_(p), rank_(rank), splits_(splits), dp_tiles_(dp_tiles) {
  const int BM = p.tile_m, BN = p.tile_n, BK = p.tile_k, CM = p.cluster_m, CN = p.cluster_n;
  b.note(
      "the persistent tile loop: cluster tiles clusterid.x, + nclusterid.x, ... of ceil(M/(CM BM)) x ceil(N/(CN BN)) "
      "x L");
  // The unit of scheduling is the cluster's tile: CM x CN tiles, the CTA of rank r taking the r-th.
  tiles_m_ = (M + (BM * CM - 1)) / (BM * CM);
  tiles_n_ = (N + (BN * CN - 1)) / (BN * CN);
  per_batch_ = tiles_m_ * tiles_n_;
  if (splits) {
    tiles_ = per_batch_ * L;
    total_ = tiles_ * *splits;
  } else {
    total_ = per_batch_ * L;
  }
  k_tiles_ = (K + (BK - 1)) / BK;
  const bool cluster = CM * CN > 1;
  first_ = b.cvt(b.special(cluster ? Special::ClusterIdX : Special::CtaidX), Type::S32);
  stride_ = b.cvt(b.special(cluster ? Special::NclusterIdX : Special::NctaidX), Type::S32);
  if (dp_tiles) {
    b.note("stream-K: this CTA's range [c W / G, (c + 1) W / G) of the W k-tiles after the data-parallel tiles");
    tiles_ = total_ - *dp_tiles;
    sk_k_tiles_ = b.cvt(tiles_, Type::S64) * b.cvt(k_tiles_, Type::S64);
    Value c = b.cvt(first_, Type::S64), g = b.cvt(stride_, Type::S64);
    sk_begin_ = c * sk_k_tiles_ / g;
    sk_end_ = (c + 1) * sk_k_tiles_ / g;
  }
}

// Work index t -> (m block, n block, batch): groups of group_rows tile-rows, walked down M first,
// so that the CTAs running at once cover a few rows and columns of tiles (their A and B stay in L2).
WorkTile PersistentTileScheduler::work_tile(Value t) const {
  const int BM = p_.tile_m, BN = p_.tile_n, CM = p_.cluster_m, CN = p_.cluster_n, G = p_.group_rows;
  std::optional<Value> tile, split;
  if (splits_) {
    // split-K: unit t is split t / tiles of tile t % tiles. Split-major, so that the CTAs running
    // at once take the same k-range of neighbouring tiles and share their A and B tiles in L2, as
    // the data-parallel schedule does (tile-major, each CTA at another k-range of its own tile,
    // read nearly every operand byte from DRAM: split-K measured 0.58x to 0.81x of data-parallel).
    split = t / tiles_;
    tile = t - *split * tiles_;
    t = *tile;
  }
  Value l = t / per_batch_, r = t % per_batch_;
  Value group = r / (tiles_n_ * G), in_group = r % (tiles_n_ * G);
  Value first_m = group * G;
  Value rows = b_.min(tiles_m_ - first_m, b_.constant(G, Type::S32));
  Value mi = first_m + in_group % rows, ni = in_group / rows;
  WorkTile w{mi * (BM * CM) + rank_.m * BM, ni * (BN * CN) + rank_.n * BN, l, {}, {}, {}, {}, {}};
  if (splits_) {
    w.tile = *tile;
    w.split = *split;
    w.k_begin = (*split * k_tiles_) / *splits_;
    w.k_count = ((*split + 1) * k_tiles_) / *splits_ - w.k_begin;
    w.parts = *splits_;
  }
  return w;
}

// One loop for both parts, so that the body (the mainloop and the epilogue) is emitted once: a
// data-parallel tile while t < dp_tiles, then the units of the range. A unit in region tile s
// (k-tiles [s kt, (s + 1) kt) of W) is the tile's part j = c - first(s), of last(s) - first(s) + 1,
// where first(s) = ceil((s kt + 1) G / W) - 1 is the CTA whose range holds the tile's first
// k-tile and last(s) = ceil((s + 1) kt G / W) - 1 the one holding its last.
void PersistentTileScheduler::for_each_stream_k_unit(const std::function<void(const WorkTile&)>& body) const {
  KernelBuilder& b = b_;
  const Value dp = *dp_tiles_;
  Value t = b.mov(first_);
  Value it = b.mov(sk_begin_);
  Value kt = b.cvt(k_tiles_, Type::S64), g = b.cvt(stride_, Type::S64), c = b.cvt(first_, Type::S64);
  Value w_safe = b.max(sk_k_tiles_, b.constant(1, Type::S64));  // W = 0: no region, the divisions unused
  b.while_([&] { return (t < dp) | (it < sk_end_); },
           [&] {
             Value whole = t < dp;
             Value s = it / kt;
             Value kb = b.cvt(it - s * kt, Type::S32);
             Value left = b.cvt(b.min(sk_end_ - it, kt), Type::S32);
             Value kc = b.min(k_tiles_ - kb, left);
             Value s32 = b.cvt(s, Type::S32);
             Value first = ((s * kt + 1) * g + w_safe - 1) / w_safe - 1;
             Value last = ((s + 1) * kt * g + w_safe - 1) / w_safe - 1;
             WorkTile w = work_tile(b.select(whole, t, dp + s32));
             w.tile = s32;
             w.split = b.select(whole, b.constant(0, Type::S32), b.cvt(c - first, Type::S32));
             w.parts = b.select(whole, b.constant(1, Type::S32), b.cvt(last - first + 1, Type::S32));
             w.k_begin = b.select(whole, b.constant(0, Type::S32), kb);
             w.k_count = b.select(whole, k_tiles_, kc);
             body(w);
             b.assign(t, b.select(whole, t + stride_, t));
             b.assign(it, b.select(whole, it, it + b.cvt(kc, Type::S64)));
           });
}

void PersistentTileScheduler::for_each_tile(const std::function<void(const WorkTile&)>& body,
                                            std::optional<Value> turn) const {
  if (dp_tiles_) {
    for_each_stream_k_unit(body);
    return;
  }
  Value t = turn ? b_.mov(first_ + *turn * stride_) : b_.mov(first_);
  Value step = turn ? stride_ * 2 : stride_;
  b_.while_([&] { return t < total_; },
            [&] {
              body(work_tile(t));
              b_.assign(t, t + step);
            });
}

}  // namespace tessel::kernels::sm90
