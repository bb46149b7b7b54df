// lowering_test.cpp: codegen_llvm on small kernels built by hand: control flow, guards, specials,
// float contraction, shifts, launch bounds and setmaxnreg, the Hopper intrinsics and wgmma's
// inline PTX, the backend registry, and what the lowering refuses. Each kernel is assembled by
// ptxas where one is installed.
#include <doctest/doctest.h>

#include <sstream>

#include "codegen/ptxas.hpp"
#include "codegen_llvm/differential.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen_llvm.hpp"
#include "tessel/kernels/catalog.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

codegen_llvm::Compiled lower(const Module& m, bool ir = true) {
  codegen_llvm::CompileOptions o;
  o.keep_llvm_ir = ir;
  return codegen_llvm::compile(m, o);
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Whether every inline-asm call whose text holds `what` carries an attribute group with
// `convergent` (`call ... asm sideeffect "..." (...) #N` and `attributes #N = { convergent ... }`).
bool asm_calls_convergent(const std::string& ir, const std::string& what) {
  std::istringstream lines(ir);
  std::string line;
  int calls = 0;
  while (std::getline(lines, line)) {
    if (!contains(line, "asm sideeffect") || !contains(line, what)) continue;
    ++calls;
    const size_t hash = line.rfind(" #");
    if (hash == std::string::npos) return false;
    const std::string group = "attributes" + line.substr(hash) + " = { ";
    const size_t at = ir.find(group);
    if (at == std::string::npos) return false;
    const std::string attrs = ir.substr(at, ir.find('}', at) - at);
    if (!contains(attrs, "convergent")) return false;
  }
  return calls > 0;
}

// ptxas accepts the PTX for the module's target (skipped without ptxas).
void check_assembles(const std::string& ptx, const std::string& target) {
  if (test::ptxas_path().empty()) return;
  const test::PtxasReport r = test::assemble(ptx, target);
  INFO(r.log << "\n" << ptx);
  CHECK(r.ok);
  CHECK(r.spill_stores == 0);
}

// out[i] = i < n ? (i odd ? 2*x : x) summed over a loop of `trips`: params, specials, if/else, a
// loop and a guarded store.
Module small_kernel() {
  KernelBuilder b("llvm_small");
  Value out = b.global_pointer_param("out");
  Value n = b.param("n", Type::S32);
  Value trips = b.param("trips", Type::S32);
  Value x = b.param("x", Type::F32);
  Value tid = b.special(Special::TidX);
  Value i = b.cvt(tid, Type::S32);
  Value acc = b.constant_f32(0.0f);
  Value odd = (i & 1) == 1;
  Value y = b.reg(Type::F32);
  b.if_(odd, [&] { b.assign(y, x + x); }, [&] { b.assign(y, x); });
  b.for_range(b.constant(0, Type::S32), trips, 1, [&](Value) { b.assign(acc, acc + y); });
  Value addr = out + b.mul_wide(i, 4);
  Instr st;
  st.op = Op::St;
  st.space = Space::Global;
  st.type = Type::F32;
  st.ops = {Operand::addr(addr.op()), acc.op()};
  b.emit(st, i < n);
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace

TEST_CASE("codegen_llvm: a small kernel lowers to blocks, intrinsics and a guarded store") {
  const Module m = small_kernel();
  const codegen_llvm::Compiled c = lower(m);
  CHECK(c.target == "sm_80");
  CHECK(c.inline_asm.empty());
  CHECK(contains(c.llvm_ir, "ptx_kernel void @llvm_small("));
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.read.ptx.sreg.tid.x()"));
  CHECK(contains(c.ptx, ".visible .entry llvm_small("));
  CHECK(contains(c.ptx, "%tid.x"));
  CHECK(contains(c.ptx, "st.global.b32") != contains(c.ptx, "st.global.f32"));  // one store, either spelling
  CHECK(test::external_calls(c.ptx) == "");
  CHECK(test::entry_params(c.ptx) == test::entry_params(print_ptx(m)));
  check_assembles(c.ptx, c.target);
}

TEST_CASE("codegen_llvm: float arithmetic keeps the printer's rounding: contractable without .rn, exact with it") {
  for (const Round r : {Round::None, Round::Rn}) {
    KernelBuilder b(r == Round::None ? "llvm_contract" : "llvm_exact");
    Value out = b.global_pointer_param("out");
    Value x = b.param("x", Type::F32), y = b.param("y", Type::F32), z = b.param("z", Type::F32);
    auto arith = [&](Op op, Value p, Value q) {
      Value d = b.reg(Type::F32);
      Instr i;
      i.op = op;
      i.type = Type::F32;
      i.rnd = r;
      i.ops = {d.op(), p.op(), q.op()};
      b.emit(i);
      return d;
    };
    Value v = arith(Op::Add, arith(Op::Mul, x, y), z);
    Instr st;
    st.op = Op::St;
    st.space = Space::Global;
    st.type = Type::F32;
    st.ops = {Operand::addr(out.op()), v.op()};
    b.emit(st);
    Module m;
    m.kernels.push_back(b.finish());
    const codegen_llvm::Compiled c = lower(m);
    INFO(c.ptx);
    if (r == Round::Rn) {
      // mul.rn + add.rn may not fuse: LLVM keeps both, rounded, as the printer's PTX does.
      CHECK(contains(c.ptx, "mul.rn.f32"));
      CHECK(contains(c.ptx, "add.rn.f32"));
      CHECK_FALSE(contains(c.ptx, "fma"));
    } else {
      // Without .rn the printer lets ptxas contract; LLVM's `contract` flag lets LLVM do it.
      CHECK_FALSE(contains(c.ptx, "mul.rn.f32"));
      CHECK_FALSE(contains(c.ptx, "add.rn.f32"));
    }
    check_assembles(c.ptx, c.target);
  }
}

TEST_CASE("codegen_llvm: a shift by a register is clamped as PTX clamps it") {
  KernelBuilder b("llvm_shift");
  Value out = b.global_pointer_param("out");
  Value x = b.param("x", Type::U32), n = b.param("n", Type::U32), s = b.param("s", Type::S32);
  Value l = x << n;
  Value r = s >> b.cvt(n, Type::S32);
  Instr st;
  st.op = Op::St;
  st.space = Space::Global;
  st.type = Type::U32;
  st.vec = 2;
  st.ops = {Operand::addr(out.op()), Operand::vec({l.op(), r.op()})};
  b.emit(st);
  Module m;
  m.kernels.push_back(b.finish());
  codegen_llvm::CompileOptions raw;
  raw.optimize = false;  // the lowering's own IR, before any pass rewrites the compare
  raw.keep_llvm_ir = true;
  const codegen_llvm::Compiled unopt = codegen_llvm::compile(m, raw);
  INFO(unopt.llvm_ir);
  // An amount of 32 or more: shl gives 0 (a select), shr.s the sign (the amount clamped to 31).
  CHECK(contains(unopt.llvm_ir, "icmp uge i32"));
  CHECK(contains(unopt.llvm_ir, "select i1 %"));
  CHECK(contains(unopt.llvm_ir, ", i32 0, i32 %"));
  CHECK(contains(unopt.llvm_ir, "i32 31, i32 %"));
  const codegen_llvm::Compiled c = lower(m);
  check_assembles(c.ptx, c.target);
}

TEST_CASE("codegen_llvm: launch bounds, cluster shape and setmaxnreg reach the PTX") {
  KernelBuilder b("llvm_bounds");
  b.kernel().maxntid = std::array<int, 3>{384, 1, 1};
  b.kernel().minnctapersm = 1;
  b.kernel().cluster_dims = std::array<int, 3>{2, 1, 1};
  Value w = b.special(Special::TidX) >> int64_t{7};
  b.if_(w == 0, [&] { setmaxnreg(b, false, 40); }, [&] { setmaxnreg(b, true, 232); });
  Module m;
  m.kernels.push_back(b.finish());
  const codegen_llvm::Compiled c = lower(m);
  INFO(c.ptx);
  CHECK(c.target == "sm_90a");
  CHECK(contains(c.ptx, ".maxntid 384, 1, 1"));
  CHECK(contains(c.ptx, ".minnctapersm 1"));
  CHECK(contains(c.ptx, ".reqnctapercluster 2, 1, 1"));
  CHECK(contains(c.ptx, "setmaxnreg.dec.sync.aligned.u32 \t40"));
  CHECK(contains(c.ptx, "setmaxnreg.inc.sync.aligned.u32 \t232"));
  CHECK(c.inline_asm.empty());
  check_assembles(c.ptx, c.target);
}

TEST_CASE("codegen_llvm: the Hopper demos use native intrinsics and inline PTX only for wgmma.mma_async") {
  for (const std::string family : {"tma_tile", "wgmma_tile"}) {
    const Module m = kernels::resolve_kernel(family)->generate();
    const codegen_llvm::Compiled c = lower(m);
    INFO(family << ":\n" << c.llvm_ir);
    CHECK(test::external_calls(c.ptx) == "");
    if (family == "tma_tile") {
      CHECK(contains(c.llvm_ir, "@llvm.nvvm.cp.async.bulk.tensor.g2s.tile."));
      CHECK(contains(c.llvm_ir, "@llvm.nvvm.mbarrier.try.wait.parity"));
      // The descriptor is a grid-constant byval parameter, passed to TMA by its generic address.
      CHECK(contains(c.llvm_ir, "byval([128 x i8]) align 64"));
      CHECK(contains(c.llvm_ir, "\"nvvm.grid_constant\""));
      CHECK(c.inline_asm.empty());
    } else {
      CHECK(contains(c.llvm_ir, "@llvm.nvvm.wgmma.fence.sync.aligned"));
      CHECK(contains(c.llvm_ir, "@llvm.nvvm.wgmma.wait_group.sync.aligned"));
      REQUIRE(c.inline_asm.size() == 1);
      CHECK(c.inline_asm[0].rfind("wgmma.mma_async.sync.aligned.m64n", 0) == 0);
      CHECK(contains(c.llvm_ir, "asm sideeffect \"{\\0A.reg .pred %tp<1>;"));
      CHECK(asm_calls_convergent(c.llvm_ir, "wgmma.mma_async"));
    }
    check_assembles(c.ptx, c.target);
  }
}

TEST_CASE("codegen_llvm: a form without a native lowering goes to inline PTX spelled by codegen's mnemonic") {
  KernelBuilder b("llvm_fallback");
  Value out = b.global_pointer_param("out");
  Value x = b.param("x", Type::F32);
  Value d = b.reg(Type::F32);
  Instr i;  // add.rz.ftz.f32: LLVM has no rounding-mode add; tessel's spelling goes through as is
  i.op = Op::Add;
  i.type = Type::F32;
  i.rnd = Round::Rz;
  i.flags = kFtz;
  i.ops = {d.op(), x.op(), x.op()};
  b.emit(i);
  Instr st;
  st.op = Op::St;
  st.space = Space::Global;
  st.type = Type::F32;
  st.cache = Cache::Cs;  // st.global.cs: a cache operator, also inline PTX
  st.ops = {Operand::addr(out.op(), 4), d.op()};
  b.emit(st);
  Module m;
  m.kernels.push_back(b.finish());
  const codegen_llvm::Compiled c = lower(m);
  INFO(c.ptx);
  CHECK(c.inline_asm == std::vector<std::string>{"add.rz.ftz.f32", "st.global.cs.f32"});
  CHECK(contains(c.ptx, "add.rz.ftz.f32"));
  CHECK(contains(c.ptx, "st.global.cs.f32 [%rd"));
  CHECK(contains(c.ptx, "+4]"));
  check_assembles(c.ptx, c.target);
}

TEST_CASE("codegen_llvm: refusals name the kernel and the instruction") {
  KernelBuilder b("llvm_refused");
  Instr l;
  l.op = Op::Label;
  l.ops = {Operand::label("$L_1")};
  b.emit(l);
  Module m;
  m.kernels.push_back(b.finish());
  CHECK_THROWS_WITH_AS(codegen_llvm::compile(m),
                       "codegen_llvm: llvm_refused: a label or branch: codegen_llvm lowers the IR before legalize "
                       "(structured control flow) (in `$L_1:`)",
                       Error);
  CHECK_THROWS_WITH_AS(codegen_llvm::compile(Module{}), "codegen_llvm: a module needs at least one kernel", Error);
}

TEST_CASE("codegen_llvm: the backend registry runs the llvm road once enabled") {
  CHECK_THROWS_WITH_AS(parse_backend("nvcc"), "codegen: unknown backend 'nvcc' (the backends are ptx and llvm)", Error);
  CHECK(std::string(backend_name(parse_backend("llvm"))) == "llvm");
  codegen_llvm::enable();
  CHECK(backend_available(Backend::Llvm));
  const Module m = small_kernel();
  PrintOptions o;
  o.generator = "the test";
  const std::string ptx = emit_ptx(m, Backend::Llvm, o);
  CHECK(contains(ptx, "// Generated by the test (through LLVM's NVPTX backend)"));
  CHECK(contains(ptx, "Generated by LLVM NVPTX Back-End"));
  CHECK(emit_ptx(m, Backend::Ptx, o) == print_ptx(m, o));
}

TEST_CASE("codegen_llvm: warp and cluster instructions no listed kernel uses lower to their intrinsics") {
  // elect.sync, shfl.sync, mapa with a remote arrive, ldmatrix (inline PTX: not an intrinsic here).
  KernelBuilder b("llvm_warp");
  b.kernel().cluster_dims = std::array<int, 3>{2, 1, 1};
  Value out = b.global_pointer_param("out");
  Value smem = b.shared_array("bars", 64, 16);
  Value leader = elect_sync(b);
  Value lane = b.special(Special::LaneId);
  Value x = shfl_sync(b, ShflMode::Bfly, lane, 1, 0x1f);
  b.if_(leader, [&] { mbarrier_init(b, smem, 1); });
  mbarrier_arrive_cluster(b, smem, 1);
  const std::vector<Value> frags = ldmatrix(b, smem, 1);
  Instr st;
  st.op = Op::St;
  st.space = Space::Global;
  st.type = Type::U32;
  st.vec = 2;
  st.ops = {Operand::addr(out.op()), Operand::vec({x.op(), frags.at(0).op()})};
  b.emit(st);
  Module m;
  m.kernels.push_back(b.finish());
  const codegen_llvm::Compiled c = lower(m);
  INFO(c.llvm_ir << "\n" << c.ptx);
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.elect.sync("));
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.shfl.sync.bfly.i32("));
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.mapa.shared.cluster("));
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.mbarrier.arrive.scope.cta.space.cluster("));
  CHECK(contains(c.llvm_ir, "@llvm.nvvm.mbarrier.init.shared("));
  CHECK(c.inline_asm == std::vector<std::string>{"ldmatrix.sync.aligned.m8n8.x1.shared.b16"});
  CHECK(contains(c.ptx, "elect.sync"));
  CHECK(contains(c.ptx, "shfl.sync.bfly.b32"));
  CHECK(contains(c.ptx, "mapa.shared::cluster"));
  CHECK(!contains(c.ptx, "release.cluster"));  // the remote arrive at CTA scope: no cluster-wide fence
  CHECK(test::external_calls(c.ptx) == "");
  check_assembles(c.ptx, c.target);
}
