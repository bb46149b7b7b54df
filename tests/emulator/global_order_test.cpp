// global_order_test.cpp: the emulator's release and acquire between blocks (global_order.hpp):
// block 0 stores data and then counts itself in at a flag with an atom; block 1 reads the flag
// with an atom and then the data. With .release on the writer's atom and .acquire on the
// reader's, the data arrives; with either missing the read is the fault "unordered global read"
// (on a GPU the reader may see the old data). Also: a block reading back its own stores needs no
// ordering, and the split-K GEMM's fix-up, which relies on exactly this pattern, passes it
// (tests/emulator/split_k_test.cpp).
#include <doctest/doctest.h>

#include "support.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

// `atom{.release,.acquire,.acq_rel}.global.add.u32 d, [addr], v`
Value atom_add(KernelBuilder& b, Value addr, uint32_t v, uint32_t semantics) {
  Value got = b.reg(Type::U32);
  Instr i;
  i.op = Op::Atom;
  i.space = Space::Global;
  i.atom = AtomOp::Add;
  i.type = Type::U32;
  i.flags = semantics;
  i.ops = {got.op(), Operand::addr(addr.op()), b.constant(v, Type::U32).op()};
  b.emit(i);
  return got;
}

// Block 0, thread t: data[t] = t + 1, then the flag += 1 with `release`. Block 1, thread t: the
// flag + 0 with `acquire`, then out[t] = data[t] (or, `own`, its own stores: data[32 + t]).
Kernel handoff(uint32_t release, uint32_t acquire, bool own = false) {
  KernelBuilder b("tessel_test_handoff");
  Value data = b.global_pointer_param("data"), flag = b.global_pointer_param("flag");
  Value out = b.global_pointer_param("out");
  Value t = b.special(Special::TidX), block = b.special(Special::CtaidX);
  b.if_(
      block == 0,
      [&] {
        b.store(Space::Global, Type::U32, test::element(b, data, t, 4), {t + 1});
        atom_add(b, flag, 1, release);
      },
      [&] {
        Value seen = atom_add(b, flag, 0, acquire);
        if (own) b.store(Space::Global, Type::U32, test::element(b, data, t + 32, 4), {t});
        Value v = b.load(Space::Global, Type::U32, test::element(b, data, own ? t + 32 : t, 4))[0];
        b.store(Space::Global, Type::U32, test::element(b, out, t, 4), {v + seen - seen});
      });
  return b.finish();
}

codegen::LaunchPlan plan(Kernel k, emu::Memory& mem, uint64_t& out) {
  const uint64_t data = mem.upload(std::vector<uint32_t>(64, 0)), flag = mem.upload(std::vector<uint32_t>(1, 0));
  out = mem.upload(std::vector<uint32_t>(32, 0));
  codegen::LaunchPlan p = test::plan_of(std::move(k), 2, 32);
  p.arg(data).arg(flag).arg(out);
  return p;
}

}  // namespace

TEST_CASE("emulator: a release and an acquire order one block's stores before another's loads") {
  emu::Memory mem;
  uint64_t out = 0;
  emu::run(plan(handoff(kRelease, kAcquire), mem, out), mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) CHECK(got[t] == t + 1);
  // .acq_rel on both sides, as the split-K fix-up's compare-and-swap.
  emu::Memory mem2;
  emu::run(plan(handoff(kRelease | kAcquire, kRelease | kAcquire), mem2, out), mem2);
  CHECK(mem2.read<uint32_t>(out, 32)[31] == 32);
  // Its own stores a block reads back without either.
  emu::Memory mem3;
  emu::run(plan(handoff(0, 0, true), mem3, out), mem3);
  CHECK(mem3.read<uint32_t>(out, 32)[5] == 5);
}

TEST_CASE("emulator: a missing release or acquire between blocks is an unordered global read") {
  for (auto [release, acquire, what] : {std::tuple{0u, static_cast<uint32_t>(kAcquire), "no release"},
                                        std::tuple{static_cast<uint32_t>(kRelease), 0u, "no acquire"},
                                        std::tuple{0u, 0u, "relaxed atomics"}}) {
    INFO(what);
    emu::Memory mem;
    uint64_t out = 0;
    const std::string e = test::emulation_error(plan(handoff(release, acquire), mem, out), mem);
    test::check_contains(e, {"unordered global read", "which block 0 stored in this launch", "block (1,0,0)"});
  }
}
