// sm90/c_fill.cpp: the copier warps that fill the epilogue's staging boxes with a C the TMA cannot read.
#include "sm90/c_fill.hpp"

#include <string>
#include <vector>

#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

namespace {

constexpr int kChunk = 16;                                              // bytes: one cp.async, one swizzle unit
constexpr int kChunksPerRow = kSwizzleRow / kChunk;                     // 8 per 128-byte box row
constexpr int kBoxChunks = TmaStoreEpilogue::kBoxRows * kChunksPerRow;  // 512

}  // namespace

CStagingFill::CStagingFill(KernelBuilder& b, const TmaStoreEpilogue::Params& p, const Tensors& t,
                           const SharedStorage& smem, SmemRegion staging, SmemRegion c_full, SmemRegion c_empty,
                           Value u)
    : b_(b), p_(p), t_(t), smem_(smem), staging_(staging), c_full_(c_full), c_empty_(c_empty), u_(u) {
  ob_ = bytes(p.out);
  subn_ = TmaStoreEpilogue::box_columns(p);
  if (subn_ * ob_ != kSwizzleRow)
    fail("CStagingFill: a box of " + std::to_string(subn_) + " columns of " + std::to_string(ob_) +
         "-byte C is not 128 bytes wide (hopper_gemm_has_c_fill excludes such tiles)");
  if (p.pingpong) fail("CStagingFill: ping-pong kernels have no copier (hopper_gemm_has_c_fill)");
  column_ = (t.flags & kHopperGemmColumnMajorC) != 0;
}

void CStagingFill::init(const SharedStorage& smem, SmemRegion c_empty) {
  for (int i = 0; i < c_empty.count; ++i) mbarrier_init(smem.base().builder(), smem.element(c_empty, i), 1);
}

void CStagingFill::run(const PersistentTileScheduler& scheduler) const {
  KernelBuilder& b = b_;
  b.note("copier warps: where the TMA cannot read C, each tile's C into the staging boxes as they free up");
  const Value on = ((t_.flags & kHopperGemmCopiedC) != 0) & (t_.beta != b.constant_f32(0.0f));
  const Value phase = b.constant(0, Type::U32);  // of the C-empty mbarriers (all boxes alike)
  const int boxes = TmaStoreEpilogue::box_count(p_);
  b.if_(on, [&] {
    scheduler.for_each_tile([&](const WorkTile& at) {
      // The warpgroups take their slabs' boxes side by side and free them together (they share the
      // epilogue's named barrier): box b of every warpgroup in one pass, so that one wait for the
      // copies serves them all.
      b.for_range(b.constant(0, Type::U32), b.constant(boxes, Type::U32), 1, [&](Value box) {
        fill_boxes(at, box, phase);
        // Boxes 0 and 1 fill under the mainloop; the rest wait for the epilogue to free them, and
        // by then find C in the L2.
        if (boxes > 2) b.if_(box == 1, [&] { prefetch_rest(at); });
      });
    });
  });
}

// The columns of the tile after the first two boxes' into the L2 (a hint: the part of each line
// of C they cover, rounded out to 16 bytes).
void CStagingFill::prefetch_rest(const WorkTile& at) const {
  KernelBuilder& b = b_;
  b.note("C's lines of the tile's later boxes into the L2 (bulk prefetches), a line per copier thread at a time");
  const int first = 2 * subn_;  // the tile's first column after boxes 0 and 1
  // Lines run along C's contiguous mode: rows of N (row-major C) or columns of M (column-major).
  const Value lines = b.select(column_, b.constant(p_.tile_n - first, Type::S32), b.constant(p_.tile_m, Type::S32));
  const Value along = b.select(column_, b.constant(p_.tile_m, Type::S32), b.constant(p_.tile_n - first, Type::S32));
  b.for_range(b.cvt(u_, Type::S32), lines, kThreads, [&](Value i) {
    const Value m = b.select(column_, at.m0, at.m0 + i), n = b.select(column_, at.n0 + first + i, at.n0 + first);
    const Value e0 = b.select(column_, m, n), extent = b.select(column_, t_.M, t_.N);
    b.if_((m < t_.M) & (n < t_.N), [&] {
      const Value count = b.min(along, extent - e0);  // elements of the line inside C
      const Value start = address(at, m, n) & int64_t{~int64_t{15}};
      const Value end = (address(at, m, n) + b.cvt(count * ob_, Type::S64) + int64_t{15}) & int64_t{~int64_t{15}};
      bulk_prefetch_l2(b, start, b.cvt(end - start, Type::U32));
    });
  });
}

// C's element (m, n) of the tile's batch (u64, global).
Value CStagingFill::address(const WorkTile& at, Value m, Value n) const {
  KernelBuilder& b = b_;
  return t_.c + (b.cvt(at.l, Type::S64) * t_.batch_stride + b.cvt(m, Type::S64) * t_.stride_m +
                 b.cvt(n, Type::S64) * t_.stride_n) *
                    int64_t{ob_};
}

// Box `box` (u32) of every warpgroup's slab: wait until the consumers free it, copy it, arrive on
// each warpgroup's C mbarrier of its staging box.
//
// A box is 64 rows of 128 bytes (kChunksPerRow 16-byte chunks each); thread u copies chunk
// q = u mod 8 of rows u / 8, + 12, + 24, ... of every warpgroup's box, so that per row only its
// address moves: row r of a row-major C is row row0 + r of C; of a column-major C (the TMA's
// layout, epilogue.hpp) column n0 + r mod SUBN, from row row0 + R (r / SUBN) (R = 128 / ob rows of
// M to a box row; r / SUBN is 0 for 16-bit C, 0 or 1 for f32).
void CStagingFill::fill_boxes(const WorkTile& at, Value box, Value phase) const {
  KernelBuilder& b = b_;
  const Value slot = box & 1;
  b.note("copier: wait until the consumers have freed the staging boxes (their store of the box before read them)");
  for (int w = 0; w < p_.consumers; ++w) mbarrier_wait(b, smem_.mbarrier(c_empty_, slot + 2 * w), (phase >> slot) & 1);
  b.assign(phase, phase ^ (b.constant(1, Type::U32) << slot));
  const int R = kSwizzleRow / ob_, epc = kChunk / ob_;         // rows of M per column-major box row; elements per chunk
  const int groups = kThreads / kChunksPerRow;                 // 12 rows at a time
  const bool split_rows = subn_ < TmaStoreEpilogue::kBoxRows;  // f32: a column-major box row r / SUBN = 1 exists
  const Value q = b.cvt(u_ & (kChunksPerRow - 1), Type::S32), g = b.cvt(u_ >> 3, Type::S32);
  const Value step = b.select(column_, t_.stride_n, t_.stride_m) * int64_t{ob_};  // between box rows r, r + 1
  // Per warpgroup (a run-time loop: the copies are asynchronous, so its boxes' loads overlap all
  // the same, and one box's values at a time fit the producer's 40 registers).
  b.for_range(b.constant(0, Type::U32), b.constant(p_.consumers, Type::U32), 1, [&](Value w) {
    b.note("copier: where warpgroup w's box starts in C, and how far C goes from there");
    const auto [row0, n0] = TmaStoreEpilogue::box_origin(p_, at, w, box);
    const Value src0 = address(at, row0, n0) + b.cvt(q * kChunk, Type::S64);  // chunk q of row 0
    const Value dst0 = smem_.element(staging_, w) + b.cvt(slot, Type::U32) * TmaStoreEpilogue::kBoxBytes;
    const Value rows = b.select(column_, t_.N - n0, t_.M - row0);  // box rows inside C (of the first R x SUBN)
    const Value cols = b.select(column_, t_.M - row0, t_.N - n0) - q * epc;  // elements of chunk q inside C
    b.note("copier: the box's 16-byte chunks, each by the widest cp.async its address allows");
    b.for_range(g, b.constant(TmaStoreEpilogue::kBoxRows, Type::S32), groups, [&](Value r) {
      // Column-major f32: rows r >= SUBN hold rows R.. of M, at the next SUBN columns' place.
      const Value hi = split_rows ? b.select(column_, r / subn_, b.constant(0, Type::S32)) : Value();
      const Value lo = split_rows ? r - hi * subn_ : r;
      Value src = src0 + b.cvt(lo, Type::S64) * step;
      Value left = cols;
      if (split_rows) {
        src = src + b.cvt(hi * R, Type::S64) * t_.stride_m * int64_t{ob_};
        left = left - hi * R;
      }
      // 128-byte swizzle: chunk q of row r lands at chunk q ^ (r mod 8) of the row.
      const Value dst = dst0 + b.cvt(r * kSwizzleRow + ((q ^ (r & 7)) << 4), Type::U32);
      copy_chunk(dst, src, lo < rows, left);
    });
  });
  b.note("copier: every copy of the boxes has landed; one thread per box tells its warpgroup");
  cp_async_wait_all(b);
  bar_sync(b, kNamedBarrier, kThreads);
  b.if_(u_ < static_cast<int64_t>(p_.consumers), [&] { mbarrier_arrive(b, smem_.mbarrier(c_full_, slot + u_ * 2)); });
}

// One 16-byte chunk: `left` of its elements inside C (none where the row is outside it).
void CStagingFill::copy_chunk(Value dst, Value src, Value row_inside, Value left) const {
  KernelBuilder& b = b_;
  const int epc = kChunk / ob_;
  b.if_(
      row_inside & (left > 0),
      [&] {
        // Whole chunks by the widest cp.async their address allows (C's rows need not start on 16
        // bytes: an odd leading dimension); a 2-byte-aligned or ragged chunk element by element.
        const Value align = b.cvt(src, Type::U32) & 15, whole = left >= epc;
        b.if_(
            whole & (align == 0), [&] { cp_async(b, dst, src, 16); },
            [&] {
              b.if_(
                  whole & ((align & 7) == 0),
                  [&] {
                    for (int k = 0; k < 2; ++k) cp_async(b, dst + int64_t{8 * k}, src + int64_t{8 * k}, 8);
                  },
                  [&] {
                    b.if_(
                        whole & ((align & 3) == 0),
                        [&] {
                          for (int k = 0; k < 4; ++k) cp_async(b, dst + int64_t{4 * k}, src + int64_t{4 * k}, 4);
                        },
                        [&] { copy_elements(dst, src, left); });
                  });
            });
      },
      [&] {  // outside C: zeros, as the TMA fills there (the consumers read whole boxes)
        const Value zero = b.reg(Type::B32);
        b.assign(zero, 0);
        b.store(Space::Shared, Type::B32, dst, {zero, zero, zero, zero});
      });
}

// A chunk element by element (an address only 2-byte aligned, or C's ragged edge: `left` elements
// of it inside C, at most the chunk's): the loads first, so that they overlap, then one 16-byte
// store of the chunk (zeros past C's edge).
void CStagingFill::copy_elements(Value dst, Value src, Value left) const {
  KernelBuilder& b = b_;
  const int epc = kChunk / ob_;
  std::vector<Value> v;
  for (int e = 0; e < epc; ++e) {
    const Type t = ob_ == 2 ? Type::B16 : Type::B32;
    v.push_back(b.reg(t));
    b.assign(v.back(), 0);
    b.if_(left > e, [&] { b.assign(v.back(), b.load(Space::Global, t, src, int64_t{e * ob_})[0]); });
  }
  std::vector<Value> words;  // 4 b32 words, 16-bit elements in pairs (the lower address low)
  for (int k = 0; k < 4; ++k)
    words.push_back(ob_ == 2 ? pack_halves(v[static_cast<size_t>(2 * k)], v[static_cast<size_t>(2 * k + 1)])
                             : v[static_cast<size_t>(k)]);
  b.store(Space::Shared, Type::B32, dst, words);
}

}  // namespace tessel::kernels::sm90
