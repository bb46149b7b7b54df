// op_table_test.cpp: the instruction table (op_table.hpp): one row per Op, each mnemonic spelled
// from its row's root, the floors and their modifiers as refusals name them, and legalize's
// refusal of operands that do not match a row's signature (exact text).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "tessel/codegen.hpp"

using namespace tessel;
using namespace tessel::codegen;

TEST_CASE("op table: every Op has exactly one row, row j being Op j") {
  REQUIRE(op_table().size() == kOpCount);
  std::set<std::string> names;
  for (size_t j = 0; j < kOpCount; ++j) {
    const Op op = static_cast<Op>(j);
    const OpInfo& row = op_info(op);
    INFO("row " << j << " (" << row.name << ")");
    CHECK(row.op == op);
    CHECK(&row == &op_table()[j]);
    CHECK(names.insert(row.name).second);
    CHECK(row.signature.required <= row.signature.count);
    CHECK((row.floor.sm >= 80 && row.floor.ptx >= 70));
    // A floor above what every kernel needs says which feature it is, for refusals.
    if (row.floor.ptx > 70 || row.floor.sm > 80 || row.floor.arch_specific) CHECK(std::string(row.floor.what) != "");
  }
  CHECK_THROWS_WITH_AS(op_info(static_cast<Op>(kOpCount)), doctest::Contains("no instruction-table row for Op"), Error);
}

TEST_CASE("op table: every mnemonic starts with its row's root") {
  for (const OpInfo& row : op_table()) {
    Instr i;
    i.op = row.op;
    i.type = Type::B32;
    INFO(row.name);
    const std::string m = mnemonic(i);  // a Custom row without a case in mnemonic.cpp throws
    CHECK(m.rfind(row.root, 0) == 0);
    if (row.spelling == Spelling::Root) CHECK(m == row.root);
    if (row.spelling == Spelling::RootType) CHECK(m == std::string(row.root) + ".b32");
  }
}

TEST_CASE("op table: requirements come from the row's floor, raised by modifier floors") {
  struct Case {
    Op op;
    Type type, type2;
    uint32_t flags;
    Space space;
    const char* target;
    int ptx;
    const char* what;
  };
  const Case cases[] = {
      {Op::Add, Type::F32, Type::None, 0, Space::None, "sm_80", 70, ""},
      {Op::Add, Type::BF16, Type::None, 0, Space::None, "sm_90", 78, "bf16 add/sub/mul"},
      {Op::Fma, Type::BF16x2, Type::None, 0, Space::None, "sm_80", 70, "bf16 arithmetic"},
      {Op::Cvt, Type::F32, Type::BF16, 0, Space::None, "sm_80", 71, "cvt.f32.bf16"},
      {Op::Cvt, Type::F32, Type::BF16, kFtz, Space::None, "sm_90", 78, "cvt from bf16"},
      {Op::Cvt, Type::E4M3, Type::F32, 0, Space::None, "sm_89", 78, "cvt with fp8"},
      {Op::Cvta, Type::U64, Type::None, 0, Space::Param, "sm_80", 77, "cvta.param"},
      {Op::Ld, Type::F32, Type::None, kNoAllocL1 | kL2Prefetch, Space::Global, "sm_80", 74, "ld/st .L1::no_allocate"},
      {Op::Red, Type::BF16, Type::None, 0, Space::Global, "sm_90", 78, "bf16 atomics"},
      {Op::BarrierClusterArrive, Type::None, Type::None, 0, Space::None, "sm_90", 78, "barrier.cluster"},
      {Op::BarrierClusterWait, Type::None, Type::None, kAcquire, Space::None, "sm_90", 80,
       "barrier.cluster with .release/.acquire"},
      {Op::TmaLoad, Type::None, Type::None, 0, Space::None, "sm_90", 80, "cp.async.bulk.tensor"},
      {Op::TmaLoad, Type::None, Type::None, kMulticast, Space::None, "sm_90a", 80,
       "cp.async.bulk.tensor .multicast::cluster"},
      {Op::MbarArrive, Type::B64, Type::None, 0, Space::Shared, "sm_80", 78, "mbarrier on shared::cta"},
      {Op::MbarArrive, Type::B64, Type::None, kRelease | kCluster, Space::SharedCluster, "sm_90", 80,
       "mbarrier.arrive on shared::cluster"},
      {Op::MbarArrive, Type::B64, Type::None, 0, Space::SharedCluster, "sm_90", 80, "mbarrier.arrive on shared::cluster"},
      {Op::MbarTryWait, Type::B64, Type::None, 0, Space::Shared, "sm_90", 78, "mbarrier.try_wait"},
      {Op::Wgmma, Type::F32, Type::BF16, 0, Space::None, "sm_90a", 80, "wgmma"},
      {Op::Setmaxnreg, Type::U32, Type::None, kInc, Space::None, "sm_90a", 80, "setmaxnreg"},
      {Op::Ldmatrix, Type::B16, Type::None, 0, Space::Shared, "sm_80", 70, ""},
      {Op::Stmatrix, Type::B16, Type::None, 0, Space::Shared, "sm_90", 78, "stmatrix"},
      {Op::MmaSync, Type::F32, Type::E4M3, 0, Space::None, "sm_89", 84, "mma.sync with fp8"},
  };
  for (const Case& c : cases) {
    Instr i;
    i.op = c.op;
    i.type = c.type;
    i.type2 = c.type2;
    i.flags = c.flags;
    i.space = c.space;
    INFO(mnemonic(i));
    const Requirement r = requirement(i);
    CHECK(target_name(r) == c.target);
    CHECK(r.ptx == c.ptx);
    CHECK(std::string(r.what) == c.what);
  }
}

TEST_CASE("op table: legalize refuses operands that do not match the row's signature") {
  auto refusal = [](const Instr& i) {
    KernelBuilder b("tessel_test_signature");
    b.emit(i);
    Module m;
    m.kernels.push_back(b.finish());
    try {
      print_ptx(m);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Instr add;
  add.op = Op::Add;
  add.type = Type::S32;
  add.ops = {Operand::r(0), Operand::r(1)};
  CHECK(refusal(add) == "codegen: tessel_test_signature: add takes 3 operands (d s s), has 2");

  Instr ld;
  ld.op = Op::Ld;
  ld.space = Space::Global;
  ld.type = Type::F32;
  ld.ops = {Operand::r(0), Operand::r(1)};
  CHECK(refusal(ld) ==
        "codegen: tessel_test_signature: ld operand 2 is a register, where its signature (d a) has a: an address "
        "[base] or [base+offset]");

  Instr atom;  // d a s [s]: 3 or 4 operands
  atom.op = Op::Atom;
  atom.ops = {Operand::r(0)};
  CHECK(refusal(atom) == "codegen: tessel_test_signature: atom takes 3 to 4 operands (d a s [s]), has 1");

  Instr wait;  // the pending-group count is an immediate
  wait.op = Op::WgmmaWait;
  wait.ops = {Operand::r(0)};
  CHECK(refusal(wait) ==
        "codegen: tessel_test_signature: wgmma.wait_group.sync.aligned operand 1 is a register, where its signature "
        "(i) has i: an integer immediate");
}
