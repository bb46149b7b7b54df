// ir.cpp: operand constructors and the minimum PTX ISA version and target of each instruction
// (PTX ISA, "PTX ISA Notes" / "Target ISA Notes" of each instruction).
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

Operand Operand::r(int id) {
  Operand o;
  o.kind = Kind::Reg;
  o.reg = id;
  return o;
}
Operand Operand::i(int64_t v) {
  Operand o;
  o.kind = Kind::Imm;
  o.imm = v;
  return o;
}
Operand Operand::f32(float v) {
  Operand o;
  o.kind = Kind::FImm;
  o.type = Type::F32;
  uint32_t b;
  std::memcpy(&b, &v, 4);
  o.imm = b;
  return o;
}
Operand Operand::f64(double v) {
  Operand o;
  o.kind = Kind::FImm;
  o.type = Type::F64;
  std::memcpy(&o.imm, &v, 8);
  return o;
}
Operand Operand::special(std::string name) {
  Operand o;
  o.kind = Kind::Special;
  o.name = std::move(name);
  return o;
}
Operand Operand::symbol(std::string name) {
  Operand o;
  o.kind = Kind::Symbol;
  o.name = std::move(name);
  return o;
}
Operand Operand::addr(Operand base, int64_t offset) {
  Operand o;
  o.kind = Kind::Addr;
  o.imm = offset;
  o.elems.push_back(std::move(base));
  return o;
}
Operand Operand::vec(std::vector<Operand> elems) {
  Operand o;
  o.kind = Kind::Vec;
  o.elems = std::move(elems);
  return o;
}
Operand Operand::label(std::string name) {
  Operand o;
  o.kind = Kind::Label;
  o.name = std::move(name);
  return o;
}
Operand Operand::pair(Operand a, Operand b) {
  Operand o;
  o.kind = Kind::Pair;
  o.elems = {std::move(a), std::move(b)};
  return o;
}

Operand Operand::sink() {
  Operand o;
  o.kind = Kind::Sink;
  return o;
}

namespace {

Requirement need(int ptx, int sm, const char* what, bool arch_specific = false) {
  return Requirement{ptx, sm, arch_specific, what};
}

// The larger of two requirements; `what` names the feature with the highest (sm, a, ptx).
Requirement raise(Requirement a, const Requirement& b) {
  auto key = [](const Requirement& r) { return std::tuple(r.sm, r.arch_specific, r.ptx); };
  if (key(b) > key(a)) a.what = b.what;
  a.ptx = std::max(a.ptx, b.ptx);
  a.sm = std::max(a.sm, b.sm);
  a.arch_specific = a.arch_specific || b.arch_specific;
  return a;
}

bool uses_bf16(const Instr& i) { return i.type == Type::BF16 || i.type == Type::BF16x2; }

Requirement of_operands(const Instr& in) {
  Requirement r;
  for (const Operand& o : in.ops) {
    if (o.kind == Operand::Kind::Special && (o.name.rfind("%cluster", 0) == 0 || o.name.rfind("%ncluster", 0) == 0)) {
      r = raise(r, need(78, 90, "cluster special registers"));
    }
    if (o.kind == Operand::Kind::Sink) r = raise(r, need(78, 80, "the sink operand `_`"));
  }
  return r;
}

Requirement of_op(const Instr& i) {
  switch (i.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
      if (uses_bf16(i)) return need(78, 90, "bf16 add/sub/mul");
      return {};
    case Op::Fma:
    case Op::Min:
    case Op::Max:
    case Op::Neg:
    case Op::Abs:
      if (uses_bf16(i)) return need(70, 80, "bf16 arithmetic");
      return {};
    case Op::Cvt:
      // cvt.f32.bf16 came with sm_80 (PTX 7.1); bf16 to other types, and .ftz, with sm_90 (PTX 7.8).
      if (i.type2 == Type::BF16 && i.type == Type::F32 && !i.has(kFtz)) return need(71, 80, "cvt.f32.bf16");
      if (i.type2 == Type::BF16 || i.type2 == Type::BF16x2) return need(78, 90, "cvt from bf16");
      if (i.type == Type::E4M3 || i.type == Type::E5M2 || i.type2 == Type::E4M3 || i.type2 == Type::E5M2)
        return need(78, 89, "cvt with fp8");
      return {};
    case Op::Cvta:
      if (i.space == Space::Param) return need(77, 80, "cvta.param");
      return {};
    case Op::Ld:
    case Op::St: {
      Requirement r;
      if (i.has(kNoAllocL1)) r = raise(r, need(74, 80, "ld/st .L1::no_allocate"));
      if (i.has(kL2Prefetch)) r = raise(r, need(74, 80, "ld .L2::128B"));
      return r;
    }
    case Op::Atom:
    case Op::Red:
      if (uses_bf16(i)) return need(78, 90, "bf16 atomics");
      return {};
    case Op::BarrierClusterArrive:
    case Op::BarrierClusterWait:
      if (i.has(kRelease) || i.has(kAcquire)) return need(80, 90, "barrier.cluster with .release/.acquire");
      return need(78, 90, "barrier.cluster");
    case Op::FenceProxyAsync:
      return need(80, 90, "fence.proxy.async");
    case Op::FenceMbarrierInit:
      return need(80, 90, "fence.mbarrier_init");
    case Op::CpAsync:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
      return need(70, 80, "cp.async");
    case Op::TmaLoad:
      // ptxas accepts multicast on sm_90 with an advisory to target sm_90a, the arch it is for.
      if (i.has(kMulticast)) return need(80, 90, "cp.async.bulk.tensor .multicast::cluster", true);
      return need(80, 90, "cp.async.bulk.tensor");
    case Op::TmaStore:
    case Op::BulkCommit:
    case Op::BulkWait:
      return need(80, 90, "cp.async.bulk.tensor");
    case Op::MbarInit:
    case Op::MbarArrive:
      if (i.has(kCluster) || i.space == Space::SharedCluster) return need(80, 90, "mbarrier.arrive.release.cluster");
      return need(78, 80, "mbarrier on shared::cta");
    case Op::MbarArriveExpectTx:
      return need(80, 90, "mbarrier.arrive.expect_tx");
    case Op::MbarTryWait:
      if (i.has(kAcquire) || i.has(kCluster)) return need(80, 90, "mbarrier.try_wait.acquire.cluster");
      return need(78, 90, "mbarrier.try_wait");
    case Op::Mapa:
      return need(78, 90, "mapa");
    case Op::WgmmaFence:
    case Op::Wgmma:
    case Op::WgmmaCommit:
    case Op::WgmmaWait:
      return need(80, 90, "wgmma", true);
    case Op::Setmaxnreg:
      return need(80, 90, "setmaxnreg", true);
    case Op::Ldmatrix:
      return {};
    case Op::Stmatrix:
      return need(78, 90, "stmatrix");
    case Op::MmaSync:
      if (i.type2 == Type::E4M3 || i.type2 == Type::E5M2) return need(84, 89, "mma.sync with fp8");
      return need(70, 80, "mma.sync");
    case Op::ElectSync:
      return need(80, 90, "elect.sync");
    default:
      return {};
  }
}

}  // namespace

Requirement requirement(const Instr& i) { return raise(of_op(i), of_operands(i)); }

namespace {
void walk(const Block& b, Requirement& r) {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::Instr) r = raise(r, requirement(s.instr));
    for (const IfStmt& f : s.if_) {
      walk(f.then_block, r);
      walk(f.else_block, r);
    }
    for (const LoopStmt& l : s.loop_) {
      walk(l.cond_block, r);
      walk(l.body, r);
    }
  }
}
}  // namespace

Requirement requirement(const Kernel& k) {
  Requirement r = k.min_target;
  walk(k.body, r);
  if (k.cluster_dims) r = raise(r, need(78, 90, "cluster dimensions (.reqnctapercluster)"));
  for (const Param& p : k.params) {
    if (p.kind == Param::Kind::TensorMap) r = raise(r, need(80, 90, "a TMA descriptor parameter"));
  }
  return r;
}

Requirement requirement(const Module& m) {
  Requirement r;
  for (const Kernel& k : m.kernels) r = raise(r, requirement(k));
  return r;
}

std::string target_name(const Requirement& r) { return "sm_" + std::to_string(r.sm) + (r.arch_specific ? "a" : ""); }

const Kernel& LaunchPlan::entry() const {
  for (const Kernel& k : module.kernels) {
    if (k.name == kernel) return k;
  }
  std::string names;
  for (const Kernel& k : module.kernels) names += (names.empty() ? "" : ", ") + k.name;
  fail("launch plan: no kernel '" + kernel + "' in the module (it has: " + (names.empty() ? "none" : names) + ")");
}

}  // namespace tessel::codegen
