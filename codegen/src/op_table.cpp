// op_table.cpp: the rows of op_table.hpp read into OpInfo, the modifier floors that raise a row's
// requirement for some of its forms, and the operand-signature check that legalize applies.
#include "tessel/codegen/op_table.hpp"

#include <algorithm>
#include <array>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

namespace {

constexpr OpInfo kRows[] = {
#define TESSEL_CODEGEN_OP_ROW(op, root, spelling, operands, emulator, ptx, sm, arch, what) \
  {Op::op, #op, root, Spelling::spelling, operands, parse_signature(operands), EmulatorClass::emulator, {ptx, sm, arch, what}},
    TESSEL_CODEGEN_OP_TABLE(TESSEL_CODEGEN_OP_ROW)
#undef TESSEL_CODEGEN_OP_ROW
};

// Row j is Op j: the enum is made from the rows, so this holds by construction; the checks make
// it explicit, and keep op_info() an index.
static_assert(std::size(kRows) == kOpCount, "one row per Op");
consteval bool rows_in_op_order() {
  for (size_t j = 0; j < std::size(kRows); ++j) {
    if (static_cast<size_t>(kRows[j].op) != j) return false;
  }
  return true;
}
static_assert(rows_in_op_order(), "row j of the instruction table is Op j");
static_assert(kOpCount <= 256, "Op is a uint8_t");

// --- Modifier floors ----------------------------------------------------------------------------
// Forms of an instruction that need more than its row's floor, as LLVM's NVPTX declares each
// form with its own Requires<[hasPTX<N>, hasSM<M>]>. For an instruction, the first floor below
// that applies to it replaces its row's (order matters where two apply: cvt.f32.bf16 before
// other conversions from bf16); each is at least its row's floor (checked below).

bool bf16(const Instr& i) { return i.type == Type::BF16 || i.type == Type::BF16x2; }
bool fp8(Type t) { return t == Type::E4M3 || t == Type::E5M2; }

bool cvt_f32_from_bf16(const Instr& i) { return i.type2 == Type::BF16 && i.type == Type::F32 && !i.has(kFtz); }
bool from_bf16(const Instr& i) { return i.type2 == Type::BF16 || i.type2 == Type::BF16x2; }
bool with_fp8(const Instr& i) { return fp8(i.type) || fp8(i.type2); }
bool fp8_inputs(const Instr& i) { return fp8(i.type2); }
bool param_space(const Instr& i) { return i.space == Space::Param; }
bool no_allocate_l1(const Instr& i) { return i.has(kNoAllocL1); }
bool prefetch_l2(const Instr& i) { return i.has(kL2Prefetch); }
bool release_or_acquire(const Instr& i) { return i.has(kRelease) || i.has(kAcquire) || i.has(kRelaxed); }
bool acquire_or_cluster(const Instr& i) { return i.has(kAcquire) || i.has(kCluster); }
bool cluster_scope(const Instr& i) { return i.has(kCluster) || i.space == Space::SharedCluster; }
// ptxas accepts multicast on sm_90 with an advisory to target sm_90a, the arch it is for.
bool multicast(const Instr& i) { return i.has(kMulticast); }

struct ModifierFloor {
  Op op;
  bool (*applies)(const Instr&);
  Requirement floor;
};

constexpr ModifierFloor kModifierFloors[] = {
    {Op::Add, bf16, {78, 90, false, "bf16 add/sub/mul"}},
    {Op::Sub, bf16, {78, 90, false, "bf16 add/sub/mul"}},
    {Op::Mul, bf16, {78, 90, false, "bf16 add/sub/mul"}},
    {Op::Fma, bf16, {70, 80, false, "bf16 arithmetic"}},
    {Op::Min, bf16, {70, 80, false, "bf16 arithmetic"}},
    {Op::Max, bf16, {70, 80, false, "bf16 arithmetic"}},
    {Op::Neg, bf16, {70, 80, false, "bf16 arithmetic"}},
    {Op::Abs, bf16, {70, 80, false, "bf16 arithmetic"}},
    // cvt.f32.bf16 came with sm_80 (PTX 7.1); bf16 to other types, and .ftz, with sm_90 (PTX 7.8).
    {Op::Cvt, cvt_f32_from_bf16, {71, 80, false, "cvt.f32.bf16"}},
    {Op::Cvt, from_bf16, {78, 90, false, "cvt from bf16"}},
    {Op::Cvt, with_fp8, {78, 89, false, "cvt with fp8"}},
    {Op::Cvta, param_space, {77, 80, false, "cvta.param"}},
    {Op::Ld, no_allocate_l1, {74, 80, false, "ld/st .L1::no_allocate"}},
    {Op::Ld, prefetch_l2, {74, 80, false, "ld .L2::128B"}},
    {Op::St, no_allocate_l1, {74, 80, false, "ld/st .L1::no_allocate"}},
    {Op::St, prefetch_l2, {74, 80, false, "ld .L2::128B"}},
    {Op::Atom, bf16, {78, 90, false, "bf16 atomics"}},
    {Op::Red, bf16, {78, 90, false, "bf16 atomics"}},
    {Op::BarrierClusterArrive, release_or_acquire, {80, 90, false, "barrier.cluster with .release/.acquire/.relaxed"}},
    {Op::BarrierClusterWait, release_or_acquire, {80, 90, false, "barrier.cluster with .release/.acquire"}},
    {Op::TmaLoad, multicast, {80, 90, true, "cp.async.bulk.tensor .multicast::cluster"}},
    {Op::MbarInit, cluster_scope, {80, 90, false, "mbarrier.arrive.release.cluster"}},
    {Op::MbarArrive, cluster_scope, {80, 90, false, "mbarrier.arrive on shared::cluster"}},
    {Op::MbarTryWait, acquire_or_cluster, {80, 90, false, "mbarrier.try_wait.acquire.cluster"}},
    {Op::MmaSync, fp8_inputs, {84, 89, false, "mma.sync with fp8"}},
};

consteval bool modifier_floors_raise() {
  for (const ModifierFloor& m : kModifierFloors) {
    const Requirement& row = kRows[static_cast<size_t>(m.op)].floor;
    if (m.floor.ptx < row.ptx || m.floor.sm < row.sm || (row.arch_specific && !m.floor.arch_specific)) return false;
  }
  return true;
}
static_assert(modifier_floors_raise(), "a modifier floor is below its row's floor");

// Where each Op's modifier floors start in kModifierFloors (-1: none), so that op_requirement
// reads only that Op's rows: most instructions have none, and scanning the whole list for each
// instruction of a large kernel showed in profiles. An Op's rows must be adjacent.
consteval std::array<int, kOpCount> first_modifier_floors() {
  std::array<int, kOpCount> first{};
  first.fill(-1);
  for (int j = 0; j < static_cast<int>(std::size(kModifierFloors)); ++j) {
    int& f = first[static_cast<size_t>(kModifierFloors[j].op)];
    if (f < 0) f = j;
  }
  return first;
}
constexpr std::array<int, kOpCount> kFirstModifierFloor = first_modifier_floors();

consteval bool modifier_floors_adjacent() {
  for (size_t j = 0; j < std::size(kModifierFloors); ++j) {
    const int first = kFirstModifierFloor[static_cast<size_t>(kModifierFloors[j].op)];
    for (size_t k = static_cast<size_t>(first); k < j; ++k)
      if (kModifierFloors[k].op != kModifierFloors[j].op) return false;
  }
  return true;
}
static_assert(modifier_floors_adjacent(), "the modifier floors of one Op must be adjacent rows");

// --- Operand signatures -------------------------------------------------------------------------

bool is_value(const Operand& o) {
  using K = Operand::Kind;
  return o.kind == K::Reg || o.kind == K::Imm || o.kind == K::FImm || o.kind == K::Special || o.kind == K::Symbol;
}

bool fits(OperandKind k, const Operand& o) {
  using K = Operand::Kind;
  switch (k) {
    case OperandKind::Dst:
      if (o.kind == K::Reg || o.kind == K::Sink) return true;
      if (o.kind == K::Vec || o.kind == K::Pair) {
        return !o.elems.empty() && std::all_of(o.elems.begin(), o.elems.end(), [](const Operand& e) {
          return e.kind == K::Reg || e.kind == K::Sink;
        });
      }
      return false;
    case OperandKind::Src:
      if (is_value(o)) return true;
      return o.kind == K::Vec && !o.elems.empty() && std::all_of(o.elems.begin(), o.elems.end(), is_value);
    case OperandKind::Addr:
      return o.kind == K::Addr && o.elems.size() == 1 && is_value(o.elems[0]);
    case OperandKind::Tensor:
      return o.kind == K::Addr && o.elems.size() == 2 && is_value(o.elems[0]) && fits(OperandKind::Src, o.elems[1]) &&
             o.elems[1].kind == K::Vec;
    case OperandKind::Imm:
      return o.kind == K::Imm;
    case OperandKind::Label:
      return o.kind == K::Label;
  }
  return false;
}

const char* kind_of(const Operand& o) {
  using K = Operand::Kind;
  switch (o.kind) {
    case K::None:
      return "an empty operand";
    case K::Reg:
      return "a register";
    case K::Imm:
      return "an integer immediate";
    case K::FImm:
      return "a floating-point immediate";
    case K::Special:
      return "a special register";
    case K::Symbol:
      return "a symbol";
    case K::Addr:
      return o.elems.size() == 2 ? "a tensor operand" : "an address";
    case K::Vec:
      return "a vector";
    case K::Label:
      return "a label";
    case K::Sink:
      return "the sink `_`";
    case K::Pair:
      return "a pair";
  }
  return "an operand";
}

// What a kind of operand stands for.
const char* describe(OperandKind k) {
  switch (k) {
    case OperandKind::Dst:
      return "a destination (a register, the sink `_`, a {vector} of them or a pair a|b)";
    case OperandKind::Src:
      return "a source (a register, an immediate, a special register, a symbol or a {vector} of them)";
    case OperandKind::Addr:
      return "an address [base] or [base+offset]";
    case OperandKind::Tensor:
      return "a tensor operand [tensorMap, {c0, ...}]";
    case OperandKind::Imm:
      return "an integer immediate";
    case OperandKind::Label:
      return "a label";
  }
  return "an operand";
}

const char* display_name(const OpInfo& row) { return *row.root ? row.root : row.name; }

}  // namespace

const OpInfo* const detail::op_rows = kRows;

void detail::no_op_row(size_t j) { fail("codegen: no instruction-table row for Op " + std::to_string(j)); }

std::span<const OpInfo> op_table() { return kRows; }

Requirement op_requirement(const Instr& i) {
  const int first = kFirstModifierFloor[static_cast<size_t>(i.op)];
  for (size_t j = first < 0 ? std::size(kModifierFloors) : static_cast<size_t>(first);
       j < std::size(kModifierFloors) && kModifierFloors[j].op == i.op; ++j) {
    if (kModifierFloors[j].applies(i)) return kModifierFloors[j].floor;
  }
  return op_info(i.op).floor;
}

bool operand_fits(OperandKind k, const Operand& o) { return fits(k, o); }

std::string operand_mismatch(const Instr& i) {
  const OpInfo& row = op_info(i.op);
  const Signature& s = row.signature;
  const size_t n = i.ops.size();
  // Spelled only for a message: every instruction of every kernel passes through this check.
  auto sig = [&] { return std::string("(") + row.operands + ")"; };
  if (n < s.required || n > s.count) {
    std::string want = std::to_string(s.required);
    if (s.count != s.required) want += " to " + std::to_string(s.count);
    return std::string(display_name(row)) + " takes " + want + " operands " + sig() + ", has " + std::to_string(n);
  }
  for (size_t j = 0; j < n; ++j) {
    if (!fits(s.kinds[j], i.ops[j])) {
      return std::string(display_name(row)) + " operand " + std::to_string(j + 1) + " is " + kind_of(i.ops[j]) +
             ", where its signature " + sig() + " has " + kOperandLetters[static_cast<size_t>(s.kinds[j])] + ": " +
             describe(s.kinds[j]);
    }
  }
  return "";
}

}  // namespace tessel::codegen
