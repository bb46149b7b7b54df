// builder_test.cpp: the IR the builder makes and the text the printer writes: registers and their
// declarations, control flow, guards, determinism, targets and errors.
#include <doctest/doctest.h>

#include "codegen/ptxas.hpp"
#include "tessel/codegen.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {
Module one(Kernel k) {
  Module m;
  m.kernels.push_back(std::move(k));
  return m;
}

// A kernel with a dynamic loop, an if/else and predicated memory: out[i] = sum_{j<n} in[j] (i<n).
Kernel loop_kernel() {
  KernelBuilder b("tessel_test_loop");
  Value in = b.global_pointer_param("in");
  Value out = b.global_pointer_param("out");
  Value n = b.param("n", Type::S32);
  Value tid = b.cvt(b.special(Special::TidX), Type::S32);
  Value acc = b.constant_f32(0.0f);
  b.for_range(b.constant(0, Type::S32), n, 1, [&](Value j) {
    Value addr = in + b.cvt(j * 4, Type::S64);
    Value x = b.load(Space::Global, Type::F32, addr)[0];
    b.assign(acc, acc + x);
  });
  b.if_(
      tid < n, [&] { b.store(Space::Global, Type::F32, out + b.cvt(tid * 4, Type::S64), {acc}); },
      [&] { b.store(Space::Global, Type::F32, out, {acc}, 0, Cache::Cs); });
  return b.finish();
}
}  // namespace

TEST_CASE("codegen: control flow flattens to labels and branches, and ptxas accepts it") {
  Module m = one(loop_kernel());
  const std::string ptx = print_ptx(m);
  CHECK(ptx.find(".version 7.0\n.target sm_80\n.address_size 64\n") != std::string::npos);
  CHECK(ptx.find("$L_1:\n") != std::string::npos);
  CHECK(ptx.find("\t@!%p1 bra \t$L_2;\n") != std::string::npos);
  CHECK(ptx.find("\tbra.uni \t$L_1;\n") != std::string::npos);
  CHECK(ptx.find("\tst.global.cs.f32 \t[%rd4], %f1;\n") != std::string::npos);  // out, after cvta
  CHECK(ptx.find("\t.reg .pred \t%p<3>;\n") != std::string::npos);
  test::check_assembles(m);
}

TEST_CASE("codegen: identical kernels print byte-identical PTX") {
  CHECK(print_ptx(one(loop_kernel())) == print_ptx(one(loop_kernel())));
}

TEST_CASE("codegen: .reg lines are derived from the registers made, per class") {
  KernelBuilder b("regs");
  for (int i = 0; i < 3; ++i) b.reg(Type::S32);
  b.reg(Type::U32);
  b.reg(Type::F16);
  b.reg(Type::BF16x2);
  b.reg(Type::F64);
  const std::string ptx = print_ptx(one(b.finish()));
  CHECK(ptx.find("\t.reg .b32 \t%r<6>;\n") != std::string::npos);  // 3 s32, 1 u32, 1 bf16x2
  CHECK(ptx.find("\t.reg .b16 \t%rs<2>;\n") != std::string::npos);
  CHECK(ptx.find("\t.reg .f64 \t%fd<2>;\n") != std::string::npos);
  CHECK(ptx.find(".reg .f32") == std::string::npos);
}

TEST_CASE("codegen: the target is the highest requirement, and names the feature") {
  // bf16 -> f32 came with sm_80 (PTX 7.1); bf16 -> an integer with sm_90 (PTX 7.8).
  KernelBuilder a("cvt_bf16_f32");
  a.cvt(a.reg(Type::BF16), Type::F32);
  Module m = one(a.finish());
  CHECK(target_name(requirement(m)) == "sm_80");
  test::check_assembles(m);
  KernelBuilder b("cvt_bf16");
  Value h = b.reg(Type::BF16);
  b.cvt(h, Type::S32);
  m = one(b.finish());
  Requirement r = requirement(m);
  CHECK(target_name(r) == "sm_90");
  CHECK(std::string(r.what) == "cvt from bf16");
  test::check_assembles(m);
}

TEST_CASE("codegen: builder errors name the value and the rule") {
  CHECK_THROWS_WITH_AS(KernelBuilder("bad-name"), doctest::Contains("has the character '-'"), Error);
  KernelBuilder b("errs");
  Value p = b.param("p", Type::U64);
  CHECK_THROWS_WITH_AS(b.param("p", Type::U64), doctest::Contains("parameter 'p' declared twice"), Error);
  CHECK_THROWS_WITH_AS(b.load(Space::Global, Type::F32, p, 0, 3), doctest::Contains("vector width 3"), Error);
  CHECK_THROWS_WITH_AS(b.load(Space::Global, Type::F64, p, 0, 4), doctest::Contains("is 32 bytes (at most 16)"), Error);
  Value s = b.reg(Type::S32);
  CHECK_THROWS_WITH_AS(b.load(Space::Global, Type::F32, s),
                       doctest::Contains("global address is a 64-bit integer, got s32"), Error);
  CHECK_THROWS_WITH_AS(b.if_(s, [] {}), doctest::Contains("if_ needs a pred, got s32"), Error);
  CHECK_THROWS_WITH_AS(b.shared_array("x", 100, 3), doctest::Contains("alignment must be a power of two, got 3"),
                       Error);
  Value f = b.reg(Type::F32);
  CHECK_THROWS_WITH_AS(f << 2, doctest::Contains("bitwise operations take integer types"), Error);
  CHECK_THROWS_WITH_AS(b.load_to({f, s}, Space::Global, Type::F32, p), doctest::Contains("load of f32 into a s32 register"),
                       Error);
  CHECK_THROWS_WITH_AS(b.load_to({f, f, f}, Space::Global, Type::F32, p), doctest::Contains("vector width 3"), Error);
  CHECK_THROWS_WITH_AS(b.unary(Op::Neg, p), doctest::Contains("neg/abs of a u64"), Error);
  b.finish();
  CHECK_THROWS_WITH_AS(b.finish(), doctest::Contains("finish called twice"), Error);
}

TEST_CASE("codegen: a vectorized copy needs the algebra to prove contiguity and alignment") {
  auto build = [](int64_t align, const Layout& l) {
    KernelBuilder b("copy");
    Value src = b.global_pointer_param("src"), dst = b.global_pointer_param("dst");
    b.copy(Tensor(src, Space::Global, Type::F32, l, Type::S64, align),
           Tensor(dst, Space::Global, Type::F32, l, Type::S64, align));
    return print_ptx(one(b.finish()));
  };
  const Layout contiguous = make_layout(IntTuple{8}, IntTuple{1});
  CHECK(build(16, contiguous).find("ld.global.v4.f32") != std::string::npos);
  CHECK(build(8, contiguous).find("ld.global.v2.f32") != std::string::npos);  // 8-byte aligned base
  CHECK(build(4, contiguous).find("ld.global.v") == std::string::npos);       // element-aligned only
  const Layout strided = make_layout(IntTuple{8}, IntTuple{2});
  CHECK(build(16, strided).find("ld.global.v") == std::string::npos);
  const Layout pairs = make_layout(IntTuple{2, 4}, IntTuple{1, 6});  // pairs 6 elements apart
  const std::string p = build(16, pairs);
  CHECK(p.find("ld.global.v2.f32") != std::string::npos);
  CHECK(p.find("ld.global.v4") == std::string::npos);
}

TEST_CASE("codegen: atom and red print the PTX ISA's forms and assemble") {
  KernelBuilder b("tessel_test_atomics");
  Value p = b.global_pointer_param("p");
  Value s = b.shared_array("tessel_test_atomics_smem", 64, 16);
  Value f = b.constant_f32(1.5f);
  Value u = b.constant(3, Type::U32);
  Value old = b.atom(Space::Global, AtomOp::Add, Type::F32, p, f);
  b.red(Space::Global, AtomOp::Add, Type::U32, p, u);
  b.atom(Space::Shared, AtomOp::Exch, Type::U32, s, u);
  b.red(Space::Global, AtomOp::Max, Type::S32, p, b.constant(-2, Type::S32));
  b.store(Space::Global, Type::F32, p, {old}, 4);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  CHECK(ptx.find("\tatom.global.add.f32 \t%f2, [%rd2], %f1;\n") != std::string::npos);
  CHECK(ptx.find("\tred.global.add.u32 \t[%rd2], %r2;\n") != std::string::npos);
  CHECK(ptx.find("\tatom.shared.exch.b32 \t%r3, [%r1], %r2;\n") != std::string::npos);
  CHECK(ptx.find("\tred.global.max.s32 \t[%rd2], %r4;\n") != std::string::npos);
  CHECK_THROWS_WITH_AS(b.red(Space::Global, AtomOp::Cas, Type::U32, p, u), doctest::Contains("red has no exch or cas"),
                       Error);
  test::check_assembles(m);
}

TEST_CASE("codegen: a memoized view at other bases emits what the view itself emits") {
  // The epilogue's pattern: one per-thread view of a swizzled box, used at several bases. Kept
  // offsets (Tensor::memoized) change nothing in the code, only the work of making it.
  const ComposedLayout box = composition(Swizzle(3, 2, 3), make_layout(IntTuple{64, 32}, IntTuple{32, 1}));
  const Layout threads = make_layout(IntTuple{128, 16}, IntTuple{1, 128});  // (T128, V16) -> box element
  std::shared_ptr<Tensor::ElementOffsets> kept;
  auto build = [&](bool memoized) {
    KernelBuilder b("tessel_test_memoized_view");
    const Value p = b.global_pointer_param("p");
    const Int t = b.thread_index(0);
    Tensor view = Tensor(Value(), Space::Global, Type::F32, box, Type::S64, 16).compose(threads)(SliceCoord{t, _});
    if (memoized) view = view.memoized();
    for (int64_t k = 0; k < 3; ++k) {
      const Tensor at = view.at_base(p + k * 8192);
      const std::vector<Value> v = b.load_tensor(at);
      b.if_(v[0] < b.constant_f32(1.0f), [&] {
        for (int i = 0; i < 16; ++i) b.store(Space::Global, Type::F32, b.address(at, Coord{Int(i)}), {v[15 - i]});
      });
    }
    if (memoized) kept = view.offsets;
    return print_ptx(one(b.finish()));
  };
  const std::string plain = build(false), memoized = build(true);
  CHECK(plain == memoized);
  REQUIRE(kept);
  CHECK(kept->at.size() == 16);  // the offsets were kept, and used
  // A new layout from a memoized view keeps nothing (its offsets would be another layout's).
  const Tensor v = Tensor(Value(), Space::Global, Type::F32, box, Type::S64, 16).memoized();
  CHECK(v.offsets);
  CHECK_FALSE(v.compose(threads).offsets);
  CHECK_FALSE(v(SliceCoord{_, Int(1)}).offsets);
}

TEST_CASE("codegen: load_to and mad_to write the registers given, and ptxas accepts it") {
  KernelBuilder b("tessel_test_load_to");
  Value p = b.global_pointer_param("p");
  std::vector<Value> acc;
  for (int i = 0; i < 4; ++i) acc.push_back(b.mov(b.constant_f32(static_cast<float>(i))));
  const int regs_before = static_cast<int>(b.kernel().regs.size());
  b.load_to(acc, Space::Global, Type::F32, p, 16);
  CHECK(static_cast<int>(b.kernel().regs.size()) == regs_before);  // no register made for the load
  b.mad_to(acc[0], acc[1], acc[2], acc[0]);  // acc0 += acc1 * acc2, in place
  CHECK(static_cast<int>(b.kernel().regs.size()) == regs_before);
  CHECK_THROWS_WITH_AS(b.mad_to(b.reg(Type::S32), acc[1], acc[2], acc[0]), doctest::Contains("mad"), Error);
  b.store(Space::Global, Type::F32, p, acc);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  // The load's destinations are the registers the movs wrote, which the store reads.
  const size_t ld = ptx.find("ld.global.v4.f32"), st = ptx.find("st.global.v4.f32");
  REQUIRE(ld != std::string::npos);
  REQUIRE(st != std::string::npos);
  auto regs_at = [&](size_t at) { return ptx.substr(ptx.find('{', at), ptx.find('}', at) - ptx.find('{', at) + 1); };
  CHECK(regs_at(ld) == regs_at(st));
  const std::string r0 = regs_at(ld).substr(1, regs_at(ld).find(',') - 1);  // acc[0]'s name
  CHECK(ptx.find("fma.rn.f32 \t" + r0 + ", ") != std::string::npos);
  test::check_assembles(m);
}
