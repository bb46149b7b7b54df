// sm90/split_k.cpp: split-K's (and stream-K's) fix-up: partial tiles to the workspace, a counter per tile, the
// last arrival's ordered sum.
#include "sm90/split_k.hpp"

#include <utility>

#include "sm90/epilogue.hpp"
#include "tessel/codegen/sync.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

namespace {

constexpr int64_t kGroupBytes = 128 * 16;  // a warpgroup's 16-byte stores of one group of 4 values
// Partials move through L2 only (.cg): other SMs wrote them, one CTA reads each once.
const LoadOptions kPartialLoad{Cache::Cg};

// `atom.acq_rel.global.cas.b64 got, [addr], compare, value` (.gpu scope, the default): `got` is the
// old value; `value` is stored where it equalled `compare`. Release: this thread's earlier writes,
// and those the consumers' barrier ordered before it, are visible to whoever acquires the value;
// acquire: the writes released by the arrivals before are visible to this thread, and through the
// barrier after it to the others.
Value atom_cas_acq_rel(KernelBuilder& b, Value addr, Value compare, Value value) {
  Value got = b.reg(Type::U64);
  Instr i;
  i.op = Op::Atom;
  i.space = Space::Global;
  i.atom = AtomOp::Cas;
  i.type = Type::B64;
  i.flags = kAcquire | kRelease;
  i.set_ops(got.op(), Operand::addr(addr.op()), compare.op(), value.op());
  b.emit(std::move(i));
  return got;
}

}  // namespace

SplitKFixup::SplitKFixup(KernelBuilder& b, const Params& p, const Tensors& t, const SharedStorage& smem,
                         SmemRegion last, Value w, Value t128)
    : b_(b), p_(p), t_(t), smem_(smem), last_(last), w_(w), t128_(t128) {}

Value SplitKFixup::slot(const WorkTile& at, Value split) const {
  KernelBuilder& b = b_;
  const int64_t tile_bytes = int64_t{p_.tile_m} * p_.tile_n * 4, slab_bytes = int64_t{64} * p_.tile_n * 4;
  Value counters = ((b.cvt(t_.tiles, Type::U64) * 8 + 255) >> 8) << 8;  // counter_bytes(tiles)
  Value unit = b.cvt(at.tile, Type::U64) * b.cvt(t_.slots, Type::U64) + b.cvt(split, Type::U64);
  return t_.workspace + counters + unit * tile_bytes + b.cvt(w_, Type::U64) * slab_bytes +
         b.cvt(t128_, Type::U64) * 16;
}

// Thread 0 of the consumers counts the CTA in at the tile's counter: (launch << 16) | arrivals.
// A counter holding another launch's id (an earlier launch, or whatever the workspace held) counts
// from zero, so the workspace needs no clearing; the last arrival leaves it 0. A compare-and-swap loop: each try reads what the
// counter holds and swaps in its successor.
Value SplitKFixup::arrive(const WorkTile& at) const {
  KernelBuilder& b = b_;
  Value counter = t_.workspace + b.cvt(at.tile, Type::U64) * 8;
  Value first = (t_.launch << 16) + 1;
  Value cur = b.mov(b.constant(0, Type::U64)), next = b.mov(b.constant(0, Type::U64));
  Value done = b.mov(b.constant(0, Type::U32));
  b.while_([&] { return done == 0; },
           [&] {
             b.assign(next, b.select((cur >> 16) == t_.launch, cur + 1, first));
             Value got = atom_cas_acq_rel(b, counter, cur, next);
             b.assign(done, b.select(got == cur, b.constant(1, Type::U32), b.constant(0, Type::U32)));
             b.assign(cur, got);
           });
  Value last = (next & 0xffff) == b.cvt(at.parts, Type::U64);
  // The last arrival clears the counter (no unit of the tile touches it again in this launch), so
  // that a replay of the very same launch (a CUDA graph: the same launch id) counts from zero too.
  b.if_(last, [&] { b.atom(Space::Global, AtomOp::Exch, Type::U64, counter, b.constant(0, Type::U64)); });
  return last;
}

Value SplitKFixup::reduce(const WorkTile& at, std::vector<Value>& acc) const {
  KernelBuilder& b = b_;
  const int groups = static_cast<int>(acc.size()) / 4;
  const int threads = 128 * p_.consumers;
  Value stores = b.mov(b.constant(1, Type::U32));
  b.if_(at.parts > 1, [&] {
    b.note("split-K: the unit's partial tile to the workspace (16-byte stores in fragment order)");
    Value mine = slot(at, at.split);
    for (int g = 0; g < groups; ++g) {
      const size_t i = static_cast<size_t>(4 * g);
      b.store(Space::Global, Type::F32, mine, {acc[i], acc[i + 1], acc[i + 2], acc[i + 3]}, g * kGroupBytes,
              Cache::Cg);
    }
    b.note("every consumer's partial is written; thread 0 counts the CTA in at the tile's counter (acq_rel)");
    bar_sync(b, kBarrier, threads);
    Value word = smem_.element(last_, 0);
    b.if_((w_ == 0) & (t128_ == 0), [&] {
      Value last = arrive(at);
      b.store(Space::Shared, Type::U32, word, {b.select(last, b.constant(1, Type::U32), b.constant(0, Type::U32))});
    });
    bar_sync(b, kBarrier, threads);
    b.assign(stores, b.load(Space::Shared, Type::U32, word)[0]);
    b.if_(stores != 0, [&] {
      b.note("the last arrival: the sum of every split's partial in the order s = 0, 1, ... (its own included)");
      Value p0 = slot(at, b.constant(0, Type::S32));
      for (int g = 0; g < groups; ++g) {
        const auto first = acc.begin() + 4 * g;
        b.load_to({first, first + 4}, Space::Global, Type::F32, p0, g * kGroupBytes, kPartialLoad);
      }
      b.for_range(b.constant(1, Type::S32), at.parts, 1, [&](Value s) {
        Value ps = slot(at, s);
        for (int g = 0; g < groups; ++g) {
          const std::vector<Value> v = b.load(Space::Global, Type::F32, ps, g * kGroupBytes, 4, kPartialLoad);
          for (int e = 0; e < 4; ++e) {
            Value& a = acc[static_cast<size_t>(4 * g + e)];
            b.assign(a, a + v[static_cast<size_t>(e)]);
          }
        }
      });
    });
  });
  return stores != 0;
}

}  // namespace tessel::kernels::sm90
