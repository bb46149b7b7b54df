// spaces_test.cpp: loads and stores in every state space on the emulator: ld.global.nc.v2 and
// st.global.v2, st.shared.v2 and ld.shared.v4 on u64 shared addresses, generic loads of shared
// memory through cvta.shared, the way back with cvta.to.shared, and a scalar parameter.
#include <doctest/doctest.h>

#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

Value cvta_shared(KernelBuilder& b, Value addr, bool to_generic) {
  Value r = b.reg(Type::U64);
  Instr i;
  i.op = Op::Cvta;
  i.space = Space::Shared;
  i.type = Type::U64;
  if (to_generic) i.flags = kToGeneric;
  i.ops = {r.op(), addr.op()};
  b.emit(i);
  return r;
}

// Thread t: pair p = in[t] (two u32, read-only path) into tile[t]; after a barrier, read the
// pairs of threads t^1 (generic address) and t^2 (shared address made from the generic one) and
// write out[t] = {p0 + scale, q1, r0, r1} as two v2 stores.
Kernel spaces_kernel() {
  KernelBuilder b("tessel_test_spaces");
  Value in = b.global_pointer_param("in"), out = b.global_pointer_param("out");
  Value scale = b.param("scale", Type::U32);
  Value tile = b.shared_array("tile", 128 * 8);
  Value tid = b.special(Special::TidX);
  LoadOptions nc;
  nc.nc = true;
  std::vector<Value> p = b.load(Space::Global, Type::U32, test::element(b, in, tid, 8), 0, 2, nc);
  b.store(Space::Shared, Type::U32, tile + (tid << 3), p);
  bar_sync(b);
  Value generic = cvta_shared(b, b.cvt(tile + ((tid ^ b.constant(1, Type::U32)) << 3), Type::U64), true);
  std::vector<Value> q = b.load(Space::Generic, Type::U32, generic, 0, 2);
  Value other =
      cvta_shared(b, cvta_shared(b, b.cvt(tile + ((tid ^ b.constant(2, Type::U32)) << 3), Type::U64), true), false);
  // A v4 load of the 16 aligned bytes holding the pairs of threads 2k and 2k+1, t^2 among them:
  // its pair is the high half when t (and so t^2) is odd.
  Value base = other & int64_t{-16};
  std::vector<Value> r = b.load(Space::Shared, Type::U32, base, 0, 4);
  Value odd = (tid & 1) != b.constant(0, Type::U32);
  Value r0 = b.select(odd, r[2], r[0]), r1 = b.select(odd, r[3], r[1]);
  Value at = test::element(b, out, tid, 16);
  b.store(Space::Global, Type::U32, at, {p[0] + scale, q[1]});
  b.store(Space::Global, Type::U32, at, {r0, r1}, 8);
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: loads and stores in the global, shared, generic and param spaces") {
  TESSEL_RNG(rng);
  const unsigned n = 128;
  std::vector<uint32_t> in(2 * n);
  for (uint32_t& x : in) x = static_cast<uint32_t>(rng());
  const uint32_t scale = static_cast<uint32_t>(rng());
  emu::Memory mem;
  const uint64_t pin = mem.upload(in, 16), pout = mem.alloc(16 * n, 16);
  LaunchPlan plan = test::plan_of(spaces_kernel(), 1, n);
  plan.arg(pin).arg(pout).arg(scale);
  emu::run(plan, mem);
  const std::vector<uint32_t> out = mem.read<uint32_t>(pout, 4 * n);
  for (unsigned t = 0; t < n; ++t) {
    INFO("thread " << t);
    CHECK(out[4 * t + 0] == in[2 * t] + scale);
    CHECK(out[4 * t + 1] == in[2 * (t ^ 1) + 1]);
    CHECK(out[4 * t + 2] == in[2 * (t ^ 2)]);
    CHECK(out[4 * t + 3] == in[2 * (t ^ 2) + 1]);
  }
}
