// sm90/epilogue.hpp: the epilogue of an sm_90 GEMM's consumer warpgroup (the CuTe DSL
// dense_gemm's, with CUTLASS's source tensor C): alpha * acc (+ beta * C, C loaded by the TMA into
// the staging box, in its own major) -> out's type -> a 128-byte-swizzled shared-memory box
// (stmatrix.x4 for 16-bit out) -> a TMA store, box by box, two to four staging boxes per warpgroup
// so that one fills while the TMA reads the others, and the tile's first C boxes load under the
// mainloop.
#pragma once

#include <vector>

#include "sm90/shared_storage.hpp"
#include "sm90/stage_layout.hpp"
#include "sm90/tile_scheduler.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

class TmaStoreEpilogue {
 public:
  // A box: 64 rows (one slab) x 128 bytes of out, or the tile's columns where fewer (a swapped
  // kernel's 8 to 32); each staging box has the room of a whole one.
  static constexpr int kBoxRows = 64;
  static constexpr int kBoxBytes = kBoxRows * kSwizzleRow;
  // A C whose rows (columns, M-contiguous) no tensor map can describe (an address or pitch off the
  // 16-byte granules) comes in lines: a box's lines (128 bytes of C each, contiguous) are rows j,
  // j + G, j + 2G, ... of G views (G = 16 / gcd(16, pitch bytes): every G-th line is a tensor whose
  // pitch is a multiple of 16), each based at the granule holding its first line's start; a view's
  // box is 16 bytes wider than a line and starts on a granule (the hardware's rule), and a line's
  // first element sits in it at that line's offset in its granule. Lines land kLineStride bytes
  // apart, view after view (line slot (j, k) = j lines/G + k).
  static constexpr int kLineStride = kSwizzleRow + 16;
  static constexpr int kLineBoxBytes = kBoxRows * kLineStride;  // 9216: a multiple of 1024 too
  static constexpr int kRowsChunk = 2;  // values a thread loads and stores at once, element by element
  static constexpr int kNamedBarrier = 1;  // warpgroup w's bar.sync id: kNamedBarrier + w (0: the CTA)

  struct Params {
    codegen::Type out = codegen::Type::BF16;  // out's type (C's too: supports() asks it)
    int tile_m = 0, tile_n = 0;               // rows and columns of a tile
    // Ping-pong: each warpgroup stores whole tiles (all their slabs); otherwise warpgroup w stores
    // slab w. Either way with its own named barrier (kNamedBarrier + w).
    bool pingpong = false;
    int consumers = 1;
    int tile_slabs = 1;  // 64-row slabs of a tile (ping-pong: each warpgroup stores them all)
    // out M-contiguous (column-major): a box is then 128-byte rows of M, one per column (the
    // layout of a column-major C's box), written element by element and stored by the TMA in
    // loads of 128 bytes of M; otherwise rows of N, written by stmatrix for 16-bit out.
    bool column_out = false;
    // The staging boxes have kLineStride-byte lines (kLineBoxBytes each): the kernel
    // reads a C off the 16-byte granules (kHopperGemmLinesC) through G views. Only where a box is
    // 128 bytes of out wide (SUBN lines of a run of an M-contiguous C: 64 either way).
    bool c_lines = false;
    // Staging boxes per warpgroup (2 to 4): box b of a tile goes through staging box b % staging.
    int staging = 2;
    // A box stored element by element (ragged, or out off the granules) goes through its staging
    // box, consecutive threads on consecutive elements; else straight from the fragments (8 bytes
    // in each of 8 sectors a warp store, several times slower), for a kernel with no registers
    // to spare (hopper_gemm's 128 x 256 tiles with split-K, or tf32 with A through registers).
    bool staged_elementwise = true;
  };
  // The boxes of one warpgroup's tile: each of its `slabs` 64-row slabs (ping-pong: the tile's; else
  // the warpgroup's one) in boxes 128 bytes of out wide (the tile's columns where fewer).
  static int tile_boxes(int tile_n, codegen::Type out, int slabs);

  // The kernel's parameters the epilogue reads: the TMA descriptors of out and of C, out itself
  // (u64, for the element-wise boxes), its sizes (s32) and strides in elements (s64), alpha and
  // beta (f32), the flags (u32: kHopperGemmBroadcastC, kHopperGemmColumnMajorC,
  // kHopperGemmLinesC and G's log2); for C in lines, the descriptors of views 1 .. (16 / bytes of
  // out) - 1 (tmap_c is view 0) and the offsets in their granules of lines 0 .. G - 1 (u32, 4 bits each).
  struct Tensors {
    codegen::Value tmap_out, tmap_c, out, M, N, ld_out, batch_stride_out, alpha, beta, flags;
    std::vector<codegen::Value> tmap_c_views;
    codegen::Value c_offsets;
  };

  // `staging`: a region of p.staging boxes (kBoxBytes or kLineBoxBytes each) per consumer
  // warpgroup; `c_full`: p.staging mbarriers per consumer warpgroup, one per staging box
  // (initialized by init()); `w` the warpgroup's index among the consumers and `t128` the thread's
  // index in it (u32). Emits the named barrier's id and C's phase registers.
  TmaStoreEpilogue(codegen::KernelBuilder& b, const Params& p, const Tensors& t, const SharedStorage& smem,
                   SmemRegion staging, SmemRegion c_full, codegen::Value w, codegen::Value t128);

  // One thread, with the kernel's other barriers: C's mbarriers, one arrival (the loading thread's
  // expect_tx) per phase.
  static void init(const SharedStorage& smem, SmemRegion c_full);

  // The producer's part (one thread, at the start of each of its tiles, before the tile's k-tiles):
  // where beta != 0, starts bringing the tile's C (tile_m x tile_n, in C's major) into the L2 by
  // TMA prefetches of the boxes the epilogue will load, so that those loads, which wait, find C
  // there instead of in DRAM (the mainloop hides the prefetch).
  static void prefetch_c(codegen::KernelBuilder& b, const Params& p, const Tensors& t, const WorkTile& at);

  // At the start of the warpgroup's tile, before its mainloop (beta != 0): the tile's first C boxes
  // (one per staging box) into the staging boxes, so that the mainloop hides their loads.
  void preload_c(const WorkTile& at) const;
  // Stores the tile from the accumulators of the warpgroup's slabs (wgmma fragments, f32).
  void store(const WorkTile& at, const std::vector<std::vector<codegen::Value>>& accs) const;
  // Before the CTA exits: its last TMA stores have read their shared memory.
  void finish() const;

 private:
  struct Tile;
  struct Slab;
  Slab make_slab(const Tile& tile, int j) const;
  void store_box(const Tile& tile, const Slab& slab, const std::vector<codegen::Value>& acc, int j, int s) const;
  int boxes() const;  // C boxes of the warpgroup's tile
  // Box `box`'s staging box (b % S from `first`, the warpgroup's first) and the C mbarrier that its
  // load completes on.
  codegen::Value staging_box(codegen::Value first, int box) const;
  codegen::Value c_barrier(int box) const;
  void issue_c(const WorkTile& at, int box) const;  // the loading thread: C's box `box` into its staging box
  void issue_c_lines(codegen::Value row0, codegen::Value n0, codegen::Value batch, codegen::Value buf,
                     codegen::Value bar) const;
  void add_c_lines(const Slab& slab, codegen::Value buf, std::vector<codegen::Value>& v) const;
  void issue_c_box(codegen::Value row0, codegen::Value n0, codegen::Value batch, codegen::Value buf,
                   codegen::Value bar) const;
  void load_c(const Tile& tile, const Slab& slab, int box, codegen::Value buf, std::vector<codegen::Value>& v) const;
  void add_c(const codegen::Tensor& cs, std::vector<codegen::Value>& v) const;
  // Box s of the slab through its staging box `box`: by the TMA where `by_tma`, else element by element.
  void store_box_staged(const Tile& tile, const Slab& slab, int box, int s, const std::vector<codegen::Value>& o,
                        codegen::Value by_tma) const;
  void store_box_tma(const Tile& tile, const Slab& slab, int s, codegen::Value buf) const;
  void write_box(const Tile& tile, codegen::Value buf, const std::vector<codegen::Value>& o) const;
  void store_box_elementwise(const Tile& tile, const Slab& slab, int s, codegen::Value buf) const;
  void sync() const;

  codegen::KernelBuilder& b_;
  Params p_;
  Tensors t_;
  const SharedStorage& smem_;
  SmemRegion staging_, c_full_;
  codegen::Value w_, t128_;
  codegen::Value barrier_;     // the warpgroup's own named barrier
  std::vector<codegen::Value> c_phase_;  // the parities of the warpgroup's C mbarriers' phases (u32)
  codegen::Value c_column_;    // C is M-contiguous (pred)
  codegen::Value c_lines_;     // C comes in lines (pred; c_lines kernels only)
  codegen::Value c_log_g_;     // log2 of G, the views of C in lines (u32)
  int box_stride_ = 0;         // bytes from one staging box to the next (kBoxBytes or kLineBoxBytes)
  int ob_ = 0, subn_ = 0;      // out's bytes; columns of a box (128 bytes of out, or tile_n if fewer)
  int slab_boxes_ = 0;         // boxes of a slab: tile_n / SUBN
  int box_bytes_ = 0;          // bytes of a box (64 x subn_), of C's box loads too
  Layout frag_;                // the accumulator fragment of one box
  std::vector<int64_t> frag_v_;  // its offset of value i at thread 0 (m + 64 n)
  Layout rows_;                 // a box stored element by element: consecutive threads along out's contiguous mode
  std::vector<int64_t> rows_v_;  // its offset of value i at thread 0
  int rows_per_ = 0;             // values a chunk of rows_ (kRowsChunk, or all where fewer)
  Layout stm_;                 // stmatrix.x4's row addresses in a box (16-bit out)
  ComposedLayout box_layout_;  // a staging box in shared memory, as the TMA store reads it
  // A box of a column-major C as its TMA loads leave it: 128-byte swizzle rows of M, (M64, SUBN).
  ComposedLayout c_column_layout_;
  int c_column_rows_ = 0;  // M per 128-byte row of the column-major C box (one TMA load each)
};

}  // namespace tessel::kernels::sm90
