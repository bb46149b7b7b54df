// sm90/epilogue.cpp: the consumer warpgroup's epilogue through swizzled shared memory and TMA stores.
#include "sm90/epilogue.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen/wgmma.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

namespace {

// A b32 register of two 16-bit values, `lo` in the low half (stmatrix's and mma's element order).
Value pack_halves(Value lo, Value hi) {
  KernelBuilder& b = lo.builder();
  Value w = b.reg(Type::B32);
  Instr m;
  m.op = Op::Mov;
  m.type = Type::B32;
  m.set_ops(w.op(), Operand::vec({lo.op(), hi.op()}));
  b.emit(std::move(m));
  return w;
}

// Proves, for every thread, that stmatrix.x4 q puts the accumulator fragment's values where the
// fragment says: register j of lane t is element (row t/4, columns 2(t%4), +1) of matrix j, whose
// rows lanes 8j.. address; it holds fragment values 8q + 2j and 8q + 2j + 1.
void check_stmatrix_matches_fragment(const Layout& stm, const Layout& frag, int subn) {
  // A layout's offset at (x, y) is its mode 0's offset at x plus its mode 1's at y: each mode is
  // evaluated once per coordinate here, and the sums checked at every (thread, value). Evaluating
  // whole layouts at every pair through the algebra took over half of a 16-bit-out GEMM's
  // generation time (callgrind), for the same check.
  const std::vector<int64_t> stm_t = static_indices(stm[0]), stm_q = static_indices(stm[1]);
  const std::vector<int64_t> frag_t = static_indices(frag[0]), frag_v = static_indices(frag[1]);
  for (int64_t t = 0; t < 128; ++t) {
    const int64_t lane = t % 32, warp = t / 32;
    for (int64_t q = 0; q < subn / 16; ++q) {
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t row_base = stm_t.at(static_cast<size_t>(warp * 32 + 8 * j + lane / 4)) + stm_q.at(static_cast<size_t>(q));
        for (int64_t e = 0; e < 2; ++e) {
          const int64_t at = row_base + 64 * (2 * (lane % 4) + e);
          const int64_t want = frag_t.at(static_cast<size_t>(t)) + frag_v.at(static_cast<size_t>(8 * q + 2 * j + e));
          if (at != want)
            fail("hopper_gemm: stmatrix of thread " + std::to_string(t) + " puts fragment value " +
                 std::to_string(8 * q + 2 * j + e) + " at " + std::to_string(at) + ", the fragment says " +
                 std::to_string(want));
        }
      }
    }
  }
}

}  // namespace

// The symbols of one tile's epilogue: the thread's index in the warpgroup and out's leading
// dimension (supports() asks 16-byte multiples of it: pairs of columns move as vectors); and this
// thread's views of a box, composed once per tile (every box has the same views at another base,
// and composing them per box was a tenth of a GEMM's generation time):
struct TmaStoreEpilogue::Tile {
  const WorkTile& at;
  Int t, ld;
  Tensor box_frag;       // a staging box, row-major (box_layout_), at the fragment's values
  Tensor c_column_frag;  // a staging box of a column-major C (c_column_layout_), at the fragment's values
  Tensor box_stm;        // a staging box at stmatrix's rows (16-bit out)
  Tensor out_frag;       // out's (64, SUBN) box in global memory at the fragment's values
  // A box stored element by element from its staging box (box_layout_, or c_column_layout_ for an
  // M-contiguous out) at rows_: a view per chunk of the thread's values (staged_elementwise only).
  std::vector<Tensor> staged_rows;
};


// One 64-row slab of the tile in out's memory, and where this thread's part of it ends.
struct TmaStoreEpilogue::Slab {
  Value row0;
  Value m_t, n_t;  // the thread's first fragment value in a box: row m_t, column n_t (u32)
  Value out_base;
  Value rows_left, cols_left;  // from the thread's first fragment value (fragment-order boxes only)
  Value use_c;       // beta != 0
  Value rows_whole;  // out's rows end on 16-byte granules: every box may go through the TMA
  Value by_tma;      // out's address and pitch are on the granules: a box may go through the TMA
  Value boxes;       // the warpgroup's staging boxes
};

TmaStoreEpilogue::TmaStoreEpilogue(KernelBuilder& b, const Params& p, const Tensors& t, const SharedStorage& smem,
                                   SmemRegion staging, SmemRegion c_full, Value w, Value t128)
    : b_(b), p_(p), t_(t), smem_(smem), staging_(staging), c_full_(c_full), w_(w), t128_(t128) {
  // Each warpgroup has its own named barrier (1 and 2): it stores its own slabs from its own
  // staging boxes, so nothing it syncs on is the other's. A cooperative tile's two warpgroups once
  // shared one, and waited on each other at every box: a store-bound tile (4096 x 14336 x 128)
  // stalled 2.0 cycles per instruction on it (ncu; cuBLAS 0.5).
  barrier_ = b.cvt(w, Type::U32) + kNamedBarrier;
  for (int i = 0; i < p.staging; ++i) c_phase_.push_back(b.constant(0, Type::U32));
  c_column_ = (t.flags & kHopperGemmColumnMajorC) != 0;
  box_stride_ = p.c_lines ? kLineBoxBytes : kBoxBytes;
  if (p.c_lines) {
    c_lines_ = (t.flags & kHopperGemmLinesC) != 0;
    c_log_g_ = (t.flags >> kHopperGemmLogViewsShift) & 7u;
  }
  ob_ = bytes(p.out);
  subn_ = std::min(kSwizzleRow / ob_, p.tile_n);
  slab_boxes_ = p.tile_n / subn_;
  box_bytes_ = kBoxRows * subn_ * ob_;
  // The fragment of one box, (T128, V) -> (M64, SUBN) at m + 64 n; the accumulators of box s are
  // values [s nv, (s+1) nv) of the whole slab's fragment (it repeats every 8 columns).
  frag_ = wgmma_accumulator_layout(subn_);
  frag_v_ = static_indices(frag_[1]);
  // A box stored element by element from its staging box: (T128, V) -> (M64, SUBN) at m + 64 n,
  // consecutive threads along out's contiguous mode (a warp's store covers 64 to 128 contiguous
  // bytes, where the fragment's covers 8 rows of 8 or 16 bytes).
  // The thread's subn_ / 2 values (4 to 32) in chunks of rows_per_, each chunk loaded from shared
  // memory and stored before the next, so that few values are live at once.
  const int vs = p.column_out ? 128 : 128 / subn_;
  rows_per_ = std::min(kRowsChunk, subn_ / 2);
  const IntTuple values{rows_per_, subn_ / 2 / rows_per_}, steps{vs, vs * rows_per_};
  rows_ = p.column_out ? make_layout(IntTuple{IntTuple{64, 2}, values}, IntTuple{IntTuple{1, 64}, steps})
                       : make_layout(IntTuple{IntTuple{subn_, 128 / subn_}, values}, IntTuple{IntTuple{64, 1}, steps});
  rows_v_ = static_indices(rows_[1]);
  // 16-bit out leaves through stmatrix.x4: lane 8j + i gives the address of row i of matrix j,
  // matrices j = (rows +0/+8 of the warp's 16) x (columns +0/+8 of a 16-column block q):
  // (T128 = (i, j0, j1, warp), q) -> (M64, SUBN) at m + 64 n.
  if (ob_ == 2 && !p.column_out) {
    stm_ = make_layout(IntTuple{IntTuple{8, 2, 2, 4}, subn_ / 16}, IntTuple{IntTuple{1, 8, 8 * 64, 16}, 16 * 64});
    check_stmatrix_matches_fragment(stm_, frag_, subn_);
  }
  // 128-byte swizzle, so that the threads' 4- or 8-byte writes hit distinct banks.
  box_layout_ = composition(element_swizzle(SmemSwizzle::B128, p.out),
                            make_layout(IntTuple{kBoxRows, subn_}, IntTuple{subn_, 1}));
  // A column-major C's box (and a column-major out's): the TMA's 128-byte rows run along M (R = 128
  // bytes of M, 64 for 16-bit C, 32 for f32), one load of (R, SUBN) per R rows, each load's rows one
  // after the other:
  // (m, n) -> m % R + R n + R SUBN (m / R), in the same 128-byte swizzle (each load 1024-aligned).
  c_column_rows_ = kSwizzleRow / ob_;
  const int R = c_column_rows_;
  c_column_layout_ = composition(element_swizzle(SmemSwizzle::B128, p.out),
                                 make_layout(IntTuple{IntTuple{R, kBoxRows / R}, subn_}, IntTuple{IntTuple{1, R * subn_}, R}));
}

void TmaStoreEpilogue::init(const SharedStorage& smem, SmemRegion c_full) {
  for (int i = 0; i < c_full.count; ++i) mbarrier_init(smem.base().builder(), smem.element(c_full, i), 1);
}

void TmaStoreEpilogue::prefetch_c(KernelBuilder& b, const Params& p, const Tensors& t, const WorkTile& at) {
  const int chunk = kSwizzleRow / bytes(p.out);  // C's elements per 128-byte box row
  const int subn = std::min(chunk, p.tile_n), tile_m = p.tile_m;  // a box's columns
  // C in lines is not prefetched: through its G views (G requests a box) the prefetches slowed
  // issue 18's row 28 kernel from 20.5 to 22.3 us (H200, G = 2), the producer's TMA requests
  // competing with the mainloop's.
  b.if_((t.beta != b.constant_f32(0.0f)) & ((t.flags & kHopperGemmLinesC) == 0), [&] {
    b.note("C's tile into the L2 (TMA prefetches of the epilogue's boxes): its loads then wait on the L2, not DRAM");
    const Value batch = b.select((t.flags & kHopperGemmBroadcastC) != 0, b.constant(0, Type::S32), at.l);
    b.if_(
        (t.flags & kHopperGemmColumnMajorC) != 0,
        [&] {  // (M, N, L), boxes of 128 bytes of M x `chunk` columns
          for (int j = 0; j < tile_m / chunk; ++j)
            for (int i = 0; i < p.tile_n / subn; ++i) tma_prefetch(b, t.tmap_c, {at.m0 + j * chunk, at.n0 + i * subn, batch});
        },
        [&] {  // (N, M, L), boxes of 128 bytes of N x 64 rows
          for (int j = 0; j < tile_m / kBoxRows; ++j)
            for (int i = 0; i < p.tile_n / subn; ++i)
              tma_prefetch(b, t.tmap_c, {at.n0 + i * subn, at.m0 + j * kBoxRows, batch});
        });
  });
}

void TmaStoreEpilogue::store(const WorkTile& at, const std::vector<std::vector<Value>>& accs) const {
  b_.note(
      "epilogue: per 128-byte-wide box of the slab, alpha * acc (+ beta * C, C loaded by the TMA into the box) -> "
      "out's type -> swizzled shared memory -> TMA store");
  const Int t = b_.symbol("t128", t128_, 1, 0), ld = b_.symbol("ld_out", t_.ld_out, 16 / ob_, 0);
  const Value none;  // the views' base, replaced per box (Tensor::at_base)
  auto view = [&](Space space, const ComposedLayout& box, Type index, int64_t align, const Layout& threads) {
    return Tensor(none, space, p_.out, box, index, align).compose(threads)(SliceCoord{t, _}).memoized();
  };
  // out's box in global memory: (M64, SUBN) at its strides, N- or M-contiguous.
  const Layout out_box = p_.column_out ? make_layout(IntTuple{64, subn_}, IntTuple{1, ld})
                                       : make_layout(IntTuple{64, subn_}, IntTuple{ld, 1});
  Tile tile{at,
                  t,
                  ld,
                  view(Space::Shared, box_layout_, Type::U32, 1024, frag_),
                  view(Space::Shared, c_column_layout_, Type::U32, 1024, frag_),
                  ob_ == 2 && !p_.column_out ? view(Space::Shared, box_layout_, Type::U32, 1024, stm_) : Tensor(),
                  view(Space::Global, composition(Swizzle(), out_box), Type::S64, 16, frag_),
                  {}};
  const int chunks = p_.staged_elementwise ? static_cast<int>(rows_v_.size()) / rows_per_ : 0;
  for (int c = 0; c < chunks; ++c)
    tile.staged_rows.push_back(Tensor(none, Space::Shared, p_.out, p_.column_out ? c_column_layout_ : box_layout_,
                                      Type::U32, 1024)
                                   .compose(rows_)(SliceCoord{t, SliceCoord{_, Int(c)}})
                                   .memoized());
  for (int j = 0; j < static_cast<int>(accs.size()); ++j) {
    const Slab slab = make_slab(tile, j);
    for (int s = 0; s < p_.tile_n / subn_; ++s) store_box(tile, slab, accs[static_cast<size_t>(j)], j, s);
  }
}

void TmaStoreEpilogue::finish() const {
  b_.note("the last TMA stores complete before the CTA (and its shared memory) goes away");
  b_.if_(t128_ == 0, [&] { cp_async_bulk_wait_group(b_, 0); });
}

TmaStoreEpilogue::Slab TmaStoreEpilogue::make_slab(const Tile& tile, int j) const {
  KernelBuilder& b = b_;
  const WorkTile& at = tile.at;
  const Tensors& t = t_;
  Slab sl;
  sl.row0 = p_.pingpong ? at.m0 + j * 64 : at.m0 + w_ * 64;
  Value elem_off = p_.column_out ? b.cvt(at.l, Type::S64) * t.batch_stride_out + b.cvt(at.n0, Type::S64) * t.ld_out +
                                       b.cvt(sl.row0, Type::S64)
                                 : b.cvt(at.l, Type::S64) * t.batch_stride_out + b.cvt(sl.row0, Type::S64) * t.ld_out +
                                       b.cvt(at.n0, Type::S64);
  sl.out_base = t.out + elem_off * int64_t{ob_};
  if (!p_.staged_elementwise) {
    const Value idx_t = b.lower(frag_(Coord{tile.t, Int(0)}).leaf(), Type::S32);
    sl.rows_left = t.M - sl.row0 - (idx_t & 63);
    sl.cols_left = t.N - at.n0 - (idx_t >> 6);
  }
  if (p_.c_lines) {
    const Value idx_t = b.lower(frag_(Coord{tile.t, Int(0)}).leaf(), Type::S32);
    sl.m_t = b.cvt(idx_t & 63, Type::U32);
    sl.n_t = b.cvt(idx_t >> 6, Type::U32);
  }
  sl.use_c = t.beta != b.constant_f32(0.0f);
  // The TMA store writes whole 16-byte granules of a row (of a column, M-contiguous): exact when
  // rows end on one. An out off the granules goes element by element (kHopperGemmElementwiseOut).
  sl.rows_whole = (((p_.column_out ? t.M : t.N) * ob_) & 15) == 0;
  sl.by_tma = (t.flags & kHopperGemmElementwiseOut) == 0;
  sl.boxes = smem_.element(staging_, w_);
  return sl;
}

// Box s of slab j: 64 rows x SUBN columns, the warpgroup's box j * (tile_n / SUBN) + s of the tile.
void TmaStoreEpilogue::store_box(const Tile& tile, const Slab& slab, const std::vector<Value>& acc, int j,
                                 int s) const {
  KernelBuilder& b = b_;
  const int nv = subn_ / 2;
  std::vector<Value> v;
  for (int i = 0; i < nv; ++i) v.push_back(acc[static_cast<size_t>(s * nv + i)] * t_.alpha);
  // Whether the box may go through the TMA: it ends before out's rows (columns) do, or they end on
  // a granule. The same for the whole CTA (both warpgroups' slabs share n0; a column-major out
  // asks of the whole tile's rows), so the barriers inside agree.
  Value by_tma = ((p_.column_out ? (tile.at.m0 + p_.tile_m) <= t_.M : (tile.at.n0 + (s + 1) * subn_) <= t_.N) |
                  slab.rows_whole) &
                 slab.by_tma;
  const int box = j * slab_boxes_ + s;
  load_c(tile, slab, box, staging_box(slab.boxes, box), v);
  std::vector<Value> o;
  for (Value& x : v) o.push_back(p_.out == Type::F32 ? x : b.cvt(x, p_.out, Round::Rn));
  store_box_staged(tile, slab, box, s, o, by_tma);
}

// C's boxes (only where beta != 0): box b of the warpgroup's tile (b = slab * boxes per slab + s)
// goes into staging box b % S and completes on the warpgroup's C mbarrier b % S (S = p.staging).
// Boxes 0 .. S - 1 are loaded at the tile's start (preload_c), under the mainloop; box b + S - 1 at
// the start of box b, once the store of box b - 1 has read that staging box. The TMA zero-fills C
// outside the problem (those values are never stored), so every box is whole and its loads
// complete the box's bytes.
int TmaStoreEpilogue::tile_boxes(int tile_n, Type out, int slabs) {
  return slabs * (tile_n / std::min(kSwizzleRow / codegen::bytes(out), tile_n));
}

int TmaStoreEpilogue::boxes() const { return tile_boxes(p_.tile_n, p_.out, p_.pingpong ? p_.tile_slabs : 1); }

Value TmaStoreEpilogue::staging_box(Value first, int box) const {
  return first + int64_t{(box % p_.staging) * box_stride_};
}

Value TmaStoreEpilogue::c_barrier(int box) const {
  return smem_.mbarrier(c_full_, w_ * p_.staging + (box % p_.staging));
}

void TmaStoreEpilogue::issue_c(const WorkTile& at, int box) const {
  KernelBuilder& b = b_;
  const int j = box / slab_boxes_, s = box % slab_boxes_;
  const Value row0 = p_.pingpong ? at.m0 + j * 64 : at.m0 + w_ * 64;
  const Value n0 = at.n0 + s * subn_;
  const Value batch = b.select((t_.flags & kHopperGemmBroadcastC) != 0, b.constant(0, Type::S32), at.l);
  const Value buf = staging_box(smem_.element(staging_, w_), box);
  const Value bar = c_barrier(box);
  if (p_.c_lines) {
    b.if_(c_lines_, [&] { issue_c_lines(row0, n0, batch, buf, bar); }, [&] { issue_c_box(row0, n0, batch, buf, bar); });
  } else {
    issue_c_box(row0, n0, batch, buf, bar);
  }
}

void TmaStoreEpilogue::issue_c_box(Value row0, Value n0, Value batch, Value buf, Value bar) const {
  KernelBuilder& b = b_;
  mbarrier_arrive_expect_tx(b, bar, box_bytes_);
  b.if_(
      c_column_,
      [&] {
        const int R = c_column_rows_;
        for (int i = 0; i < kBoxRows / R; ++i)
          tma_load(b, buf + int64_t{i} * R * subn_ * ob_, t_.tmap_c, {row0 + i * R, n0, batch}, bar);
      },
      [&] { tma_load(b, buf, t_.tmap_c, {n0, row0, batch}, bar); });
}

// C in lines: view j (< G) holds lines j, j + G, ...: a row-major C's rows (the box's 64 / G of
// them from row0 + j, at view row row0 / G), or an M-contiguous C's columns (SUBN / G from n0 + j,
// at view row n0 / G, per run of R rows). Each load's lines land together, at line slot j lines / G;
// the TMA zero-fills past C's edges, so every line of the box arrives whole.
void TmaStoreEpilogue::issue_c_lines(Value row0, Value n0, Value batch, Value buf, Value bar) const {
  KernelBuilder& b = b_;
  b.note("C in lines: one TMA load per view of C (every G-th line), each 16 bytes wider than a line");
  const int R = c_column_rows_;
  // 64 lines either way: 64 rows, or SUBN (128 bytes of out: c_lines kernels) per run of R rows.
  const int lines = kBoxRows;
  mbarrier_arrive_expect_tx(b, bar, int64_t{lines} * kLineStride);
  const Value lg = c_log_g_;
  const Value g = b.constant(1, Type::U32) << lg;
  for (int j = 0; j < static_cast<int>(t_.tmap_c_views.size()) + 1; ++j) {
    const Value map = j == 0 ? t_.tmap_c : t_.tmap_c_views[static_cast<size_t>(j - 1)];
    b.if_(g > static_cast<uint32_t>(j), [&] {
      b.if_(
          c_column_,
          [&] {
            const Value per = b.constant(subn_, Type::U32) >> lg;  // columns of a run in this view
            const Value y = b.cvt(b.cvt(n0, Type::U32) >> lg, Type::S32);
            for (int p = 0; p < kBoxRows / R; ++p)
              tma_load(b, buf + (b.constant(p * subn_, Type::U32) + per * static_cast<uint32_t>(j)) * static_cast<uint32_t>(kLineStride),
                       map, {row0 + p * R, y, batch}, bar);
          },
          [&] {
            const Value per = b.constant(lines, Type::U32) >> lg;  // rows of the box in this view
            const Value y = b.cvt(b.cvt(row0, Type::U32) >> lg, Type::S32);
            tma_load(b, buf + per * static_cast<uint32_t>(j * kLineStride), map, {n0, y, batch}, bar);
          });
    });
  }
}

void TmaStoreEpilogue::preload_c(const WorkTile& at) const {
  KernelBuilder& b = b_;
  b.if_(t_.beta != b.constant_f32(0.0f), [&] {
    b.note("C: once the staging boxes are free, one thread loads the tile's first C boxes (under the mainloop)");
    // The last tile's stores have read the boxes, and every thread has read its C from them (a box
    // stored element by element has no barrier after its reads).
    b.if_(t128_ == 0, [&] { cp_async_bulk_wait_group(b, 0, true); });
    sync();
    b.if_(t128_ == 0, [&] {
      for (int box = 0; box < std::min(p_.staging, boxes()); ++box) issue_c(at, box);
    });
  });
}

// v += beta * C where beta != 0 (C is never read otherwise), box `box` of the tile.
void TmaStoreEpilogue::load_c(const Tile& tile, const Slab& slab, int box, Value buf, std::vector<Value>& v) const {
  KernelBuilder& b = b_;
  b.if_(slab.use_c, [&] {
    const int ahead = p_.staging - 1;  // box b + ahead goes where box b - 1 was
    if (box >= 1 && box + ahead < boxes()) {
      b.note("C: a later box into the staging box of the box before, once that box's store has read it");
      b.if_(t128_ == 0, [&] { cp_async_bulk_wait_group(b, 0, true); });
      sync();  // every thread has read its C from that box (an element-wise box has no barrier after)
      b.if_(t128_ == 0, [&] { issue_c(tile.at, box + ahead); });
    }
    b.note("C: wait for this box's C, loaded boxes (or, the first ones, the mainloop) ago");
    const Value& phase = c_phase_[static_cast<size_t>(box % p_.staging)];
    mbarrier_wait(b, c_barrier(box), phase);
    b.assign(phase, phase ^ b.constant(1, Type::U32));
    auto by_tma = [&] {
      b.if_(
          c_column_, [&] { add_c(tile.c_column_frag.at_base(buf), v); }, [&] { add_c(tile.box_frag.at_base(buf), v); });
    };
    if (p_.c_lines)
      b.if_(c_lines_, [&] { add_c_lines(slab, buf, v); }, by_tma);
    else
      by_tma();
  });
}

// v += beta * C, `cs` this thread's values of C in a staging box.
void TmaStoreEpilogue::add_c(const Tensor& cs, std::vector<Value>& v) const {
  KernelBuilder& b = b_;
  const std::vector<Value> cv = b.load_tensor(cs);
  for (size_t i = 0; i < v.size(); ++i) {
    const Value c = p_.out == Type::F32 ? cv[i] : b.cvt(cv[i], Type::F32);
    b.mad_to(v[i], t_.beta, c, v[i]);
  }
}

// v += beta * C from a box loaded in lines (issue_c_lines): value i of the thread, at (m, n) of the
// box, is in line m at n (row-major C) or in line (m / R) SUBN + n at m % R (M-contiguous); line l
// sits in view l % G as its (l / G)-th, so at slot (l % G) lines / G + l / G, after its first
// element's offset in its granule (c_offsets' 4 bits l % G: the box starts at a multiple of G).
void TmaStoreEpilogue::add_c_lines(const Slab& slab, Value buf, std::vector<Value>& v) const {
  KernelBuilder& b = b_;
  const int R = c_column_rows_;
  const Value e = b.constant(ob_, Type::U32), lg = c_log_g_;
  const Value gmask = (b.constant(1, Type::U32) << lg) - 1u;
  const uint32_t LS = kLineStride;
  // Line l's slot and offset: (l % G) (lines >> lg) + (l >> lg) lines in, then the offset.
  auto line_at = [&](Value l, int lines) {
    const Value j = l & gmask;
    const Value slot = j * (b.constant(lines, Type::U32) >> lg) + (l >> lg);
    return buf + slot * LS + ((t_.c_offsets >> (j << 2u)) & 15u);
  };
  auto add = [&](size_t i, Value at, int64_t offset) {
    const Value c = b.load(Space::Shared, p_.out, at, offset)[0];
    b.mad_to(v[i], t_.beta, p_.out == Type::F32 ? c : b.cvt(c, Type::F32), v[i]);
  };
  b.note("C in lines: each value from its line, after the line's offset in its granule");
  b.if_(
      c_column_,
      [&] {  // a line per column n (per run of R rows where R < 64), at m % R
        // Line n + 8k lies 8k / G slots after line n, at the same offset in its granule (G divides
        // 8: out is 16-bit or wider), so of a thread's columns n_t + 8k + d only the first of each d
        // is placed in full; the others are a step of 8 / G lines on (16 of a 64-column box's
        // lines in 2 placements; the kernel's PTX 14% shorter, its time within the spread).
        const Value step = b.constant(8 * LS, Type::U32) >> lg;
        std::map<std::pair<int64_t, int64_t>, Value> lines;  // (dn, m's key) -> the line's address
        std::map<std::pair<int64_t, int64_t>, int64_t> last;  // (dn % 8, m's key) -> the latest dn placed
        for (size_t i = 0; i < v.size(); ++i) {
          const int64_t off = frag_v_.at(i), dm = off % 64, dn = off / 64;
          const auto key = std::make_pair(dn, R < 64 ? dm : 0);
          auto it = lines.find(key);
          if (it == lines.end()) {
            const auto near = last.find({dn % 8, key.second});
            if (near != last.end() && near->second < dn) {
              const Value& from = lines.at({near->second, key.second});
              const uint32_t k = static_cast<uint32_t>((dn - near->second) / 8);
              it = lines.emplace(key, k == 1 ? from + step : from + step * k).first;
            } else {
              const Value m = slab.m_t + static_cast<uint32_t>(key.second), n = slab.n_t + static_cast<uint32_t>(dn);
              if (R < 64) {
                const Value run = m / static_cast<uint32_t>(R);
                it = lines
                         .emplace(key, line_at(n, subn_) + run * (static_cast<uint32_t>(subn_) * LS) +
                                           (m - run * static_cast<uint32_t>(R)) * e)
                         .first;
              } else {
                it = lines.emplace(key, line_at(n, subn_) + m * e).first;
              }
            }
            last[{dn % 8, key.second}] = dn;
          }
          add(i, it->second, R < 64 ? 0 : dm * ob_);
        }
      },
      [&] {  // a line per row m, at n
        std::map<int64_t, Value> rows;
        for (size_t i = 0; i < v.size(); ++i) {
          const int64_t off = frag_v_.at(i), dm = off % 64, dn = off / 64;
          auto it = rows.find(dm);
          if (it == rows.end())
            it = rows.emplace(dm, line_at(slab.m_t + static_cast<uint32_t>(dm), kBoxRows) + slab.n_t * e).first;
          add(i, it->second, dn * ob_);
        }
      });
}

void TmaStoreEpilogue::store_box_staged(const Tile& tile, const Slab& slab, int box, int s,
                                        const std::vector<Value>& o, Value by_tma) const {
  KernelBuilder& b = b_;
  Value buf = staging_box(slab.boxes, box);
  // This buffer's last store was box - S's. Within a slab either every box goes element-wise (an
  // out off the granules: no TMA store at all) or at most the last (by_tma then only turns false
  // along s), so the slab's s boxes before this one each committed a group after that store's:
  // min(s, S - 1) groups may stay pending. A slab's first box waits for all (ping-pong's second slab
  // would otherwise count a box that committed no group and write over a buffer still being read).
  // A staged box element by element writes its staging box but commits no group: it waits for all
  // (the box after a ragged one, past out's end, goes element by element too).
  const int pending = std::min(s, p_.staging - 1);
  b.note("the box written S stores ago has been read by its TMA store: the buffer is free");
  if (p_.staged_elementwise) {
    b.if_(t128_ == 0, [&] {
      b.if_(by_tma, [&] { cp_async_bulk_wait_group(b, pending, true); }, [&] { cp_async_bulk_wait_group(b, 0, true); });
    });
    sync();
    write_box(tile, buf, o);
    b.if_(by_tma, [&] { store_box_tma(tile, slab, s, buf); }, [&] { store_box_elementwise(tile, slab, s, buf); });
    return;
  }
  b.if_(
      by_tma,
      [&] {
        b.if_(t128_ == 0, [&] { cp_async_bulk_wait_group(b, pending, true); });
        sync();
        write_box(tile, buf, o);
        store_box_tma(tile, slab, s, buf);
      },
      [&] {
        b.note("element by element from the fragments (Params::staged_elementwise: no registers to stage)");
        const Tensor cs = tile.out_frag.at_base(p_.column_out ? slab.out_base + t_.ld_out * int64_t{s * subn_ * ob_}
                                                              : slab.out_base + int64_t{s} * subn_ * ob_);
        std::map<int64_t, Value> rows, cols;
        std::vector<Value> in;
        for (int i = 0; i < subn_ / 2; ++i) {
          const int64_t off = frag_v_.at(static_cast<size_t>(i)), m = off % 64, n = off / 64 + s * subn_;
          auto r = rows.try_emplace(m);
          if (r.second) r.first->second = slab.rows_left > m;
          auto c = cols.try_emplace(n);
          if (c.second) c.first->second = slab.cols_left > n;
          in.push_back(r.first->second & c.first->second);
        }
        b.store_tensor(cs, o, in);
      });
}

void TmaStoreEpilogue::store_box_tma(const Tile& tile, const Slab& slab, int s, Value buf) const {
  KernelBuilder& b = b_;
  b.note("the writes become visible to the TMA (async proxy), then one thread stores the box");
  fence_proxy_async(b, Space::Shared);
  sync();
  b.if_(t128_ == 0, [&] {
    if (p_.column_out) {  // 128 bytes of M per box row: one store per R rows, as C's loads
      const int R = c_column_rows_;
      for (int i = 0; i < kBoxRows / R; ++i)
        tma_store(b, t_.tmap_out, {slab.row0 + i * R, tile.at.n0 + s * subn_, tile.at.l},
                  buf + int64_t{i} * R * subn_ * ob_);
    } else {
      tma_store(b, t_.tmap_out, {tile.at.n0 + s * subn_, slab.row0, tile.at.l}, buf);
    }
    cp_async_bulk_commit_group(b);
  });
}

// The thread's values into the staging box at `buf`.
void TmaStoreEpilogue::write_box(const Tile& tile, Value buf, const std::vector<Value>& o) const {
  KernelBuilder& b = b_;
  if (p_.column_out) {
    b.note("an M-contiguous box: element by element, into 128-byte rows of M");
    b.store_tensor(tile.c_column_frag.at_base(buf), o);
    return;
  }
  if (ob_ == 2) {
    b.note("stmatrix.x4: four 8x8 matrices (16 rows x 16 columns of the warp's rows) per instruction");
    const Tensor st = tile.box_stm.at_base(buf);
    for (int q = 0; q < subn_ / 16; ++q) {
      std::vector<Value> regs;
      for (int j = 0; j < 4; ++j) regs.push_back(pack_halves(o[8 * q + 2 * j], o[8 * q + 2 * j + 1]));
      stmatrix(b, b.address(st, Coord(Int(q))), regs);
    }
    return;
  }
  b.store_tensor(tile.box_frag.at_base(buf), o);
}

// A box across N where out's rows end inside a 16-byte granule (the TMA store would write the rest
// of the granule, the padding after each row), or any box of an out off the granules: from the
// staging box, each thread on its column (row of an M-contiguous out) of every 128 / SUBN-th row,
// so that a warp's stores fill whole L2 sectors. From the fragments, a warp's store put 8 bytes in
// each of 8 sectors: 8192 x 8191 x 128 bf16 (H200, session 46) ran at 52 TFLOP/s against 119 for
// out computed in the workspace by the TMA and copied back.
void TmaStoreEpilogue::store_box_elementwise(const Tile& tile, const Slab& slab, int s, Value buf) const {
  KernelBuilder& b = b_;
  b.note(
      "a box across N where out's rows end inside a 16-byte granule, or any box of an out off the granules: "
      "from the staging box, element by element, consecutive threads on consecutive elements");
  sync();
  // The thread's first element (m, n) of the box; value i lies i steps on (vs rows, or 2 columns of
  // an M-contiguous out): one running address, not an offset kept per value (registers).
  const Value idx = b.lower(rows_(Coord{tile.t, Int(0)}).leaf(), Type::S32);
  const Value m = b.cvt(idx & 63, Type::S64), n = b.cvt(idx >> 6, Type::S64);
  const Value base = p_.column_out ? slab.out_base + t_.ld_out * int64_t{s * subn_ * ob_}
                                   : slab.out_base + int64_t{s} * subn_ * ob_;
  Value at = base + (p_.column_out ? n * t_.ld_out + m : m * t_.ld_out + n) * int64_t{ob_};
  const int64_t d = rows_v_.size() > 1 ? rows_v_[1] - rows_v_[0] : 0;  // m + 64 n of one step
  const Value rows_left = t_.M - slab.row0 - (idx & 63);
  const Value cols_left = t_.N - (tile.at.n0 + s * subn_) - (idx >> 6);
  const std::vector<Tensor>& from = tile.staged_rows;
  const size_t per = static_cast<size_t>(rows_per_);
  const Layout one = make_layout(IntTuple{1}, IntTuple{1});
  for (size_t c = 0; c < from.size(); ++c) {
    const std::vector<Value> v = b.load_tensor(from[c].at_base(buf));
    for (size_t i = 0; i < per; ++i) {
      const int64_t off = rows_v_[c * per + i];
      if (c + i > 0) at = at + t_.ld_out * ((p_.column_out ? d / 64 : d) * ob_);
      const Value in = (rows_left > off % 64) & (cols_left > off / 64);
      b.store_tensor(Tensor(at, Space::Global, p_.out, one, Type::S64, ob_), {v[i]}, in);
    }
  }
}

void TmaStoreEpilogue::sync() const { bar_sync(b_, barrier_, 128); }

}  // namespace tessel::kernels::sm90
