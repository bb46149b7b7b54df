// lower_test.cpp: lowering of symbolic integers. The lowered instructions are run by a small
// straight-line interpreter (below) and compared with the algebra's own evaluate() at random
// symbol values, for expressions the algebra builds: crd2idx of random layouts at symbolic
// coordinates, divides and swizzles.
#include <doctest/doctest.h>

#include <array>
#include <map>

#include "algebra/support.hpp"
#include "tessel/codegen.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

// Executes the integer instructions of a flat kernel body on one set of register values.
struct Interp {
  const Kernel& k;
  std::map<int, int64_t> regs;
  std::map<std::string, int64_t> specials, params;

  int64_t val(const Operand& o) {
    if (o.kind == Operand::Kind::Imm) return o.imm;
    if (o.kind == Operand::Kind::Special) return specials.at(o.name);
    REQUIRE(o.kind == Operand::Kind::Reg);
    REQUIRE(regs.count(o.reg));  // read of a register nothing wrote
    return regs.at(o.reg);
  }
  static int64_t wrap(int64_t v, Type t) {
    if (bits(t) == 32) return is_signed(t) ? static_cast<int32_t>(v) : static_cast<int64_t>(static_cast<uint32_t>(v));
    return v;
  }
  void run() {
    for (const Instr& i : legalize(k)) {
      REQUIRE(i.guard < 0);
      const Type t = k.regs.empty() || i.ops.empty() || i.ops[0].kind != Operand::Kind::Reg ? Type::S64
                                                                                            : k.regs[i.ops[0].reg].type;
      auto a = [&] { return val(i.ops[1]); };
      auto b = [&] { return val(i.ops[2]); };
      int64_t r = 0;
      switch (i.op) {
        case Op::Ret:
          return;
        case Op::Ld:
          r = params.at(i.ops[1].elems[0].name);
          break;
        case Op::Mov:
          r = val(i.ops[1]);
          break;
        case Op::Cvt:
          r = val(i.ops[1]);
          break;
        case Op::Add:
          r = a() + b();
          break;
        case Op::Sub:
          r = a() - b();
          break;
        case Op::Mul:
          r = a() * b();
          break;
        case Op::Div:
          r = a() / b();
          break;
        case Op::Rem:
          r = a() % b();
          break;
        case Op::Min:
          r = std::min(a(), b());
          break;
        case Op::Max:
          r = std::max(a(), b());
          break;
        case Op::And:
          r = a() & b();
          break;
        case Op::Or:
          r = a() | b();
          break;
        case Op::Xor:
          r = a() ^ b();
          break;
        case Op::Shl:
          r = a() << b();
          break;
        case Op::Shr:
          r = a() >> b();
          break;
        default:
          FAIL("unexpected instruction " << mnemonic(i));
          return;
      }
      regs[i.ops[0].reg] = wrap(r, t);
    }
  }
};

}  // namespace

TEST_CASE("codegen: lowered crd2idx, divides and swizzles equal the algebra's evaluate") {
  TESSEL_RNG(rng);
  for (int trial = 0; trial < 300; ++trial) {
    KernelBuilder b("lower_test");
    Value pm = b.param("M", Type::S64), pk = b.param("K", Type::S64);
    const int64_t dm = test::pick(rng, {1, 2, 4, 8});
    Int M = b.symbol("M", pm, dm, 1), K = b.symbol("K", pk, 1, 1);
    Int tid = b.thread_index(0), bid = b.block_index(0);
    // A random layout whose strides may be dynamic, at a coordinate made of the run-time symbols.
    Layout l = test::random_layout(rng, 3, 1);
    std::vector<Int> leaves = flatten_leaves(l.stride());
    size_t pos = 0;
    IntTuple stride = transform_leaf(l.stride(), [&](const Int& s) {
      ++pos;
      return pos == 1 ? s : (test::uniform(rng, 0, 2) == 0 ? s * M : s);
    });
    Layout dl(l.shape(), stride);
    Int idx = tid + bid * Int(7) + K;  // an index into the layout, any value
    Int x = dl(IntTuple(idx % size(dl))).leaf();
    switch (test::uniform(rng, 0, 3)) {
      case 0:
        x = x + ceil_div(M, Int(16)) * Int(3);
        break;
      case 1:
        x = Swizzle(2, 2, 3)(x);
        break;
      case 2:
        x = (x / Int(4)) % Int(8) + min(M, K);
        break;
      default:
        break;
    }
    const Type t = trial % 2 ? Type::S64 : Type::S32;
    Value out = b.lower(x, t);
    Kernel k = b.finish();
    Interp in{k, {}, {}, {}};
    const int64_t m = dm * test::uniform(rng, 1, 64), kv = test::uniform(rng, 1, 300);
    const int64_t tv = test::uniform(rng, 0, 255), bv = test::uniform(rng, 0, 1000);
    in.params = {{"M", m}, {"K", kv}};
    in.specials = {{"%tid.x", tv}, {"%ctaid.x", bv}};
    in.run();
    const int64_t want = evaluate(x, {{"M", m}, {"K", kv}, {"tid.x", tv}, {"ctaid.x", bv}});
    INFO("x = " << expr_string(x) << " with M=" << m << " K=" << kv << " tid=" << tv << " bid=" << bv);
    REQUIRE(in.regs.count(out.id()));
    CHECK(in.regs.at(out.id()) == want);
  }
}

TEST_CASE("codegen: a subexpression is computed once per scope, static parts fold") {
  KernelBuilder b("cse");
  Value pm = b.param("M", Type::S32);
  Int M = b.symbol("M", pm, 1, 1);
  Int tid = b.thread_index(0);
  Value a = b.lower(tid * M + Int(4), Type::S32);
  Value c = b.lower(tid * M + Int(4), Type::S32);
  CHECK(a.id() == c.id());
  const size_t before = b.kernel().body.size();
  b.lower((tid * M + Int(4)) * Int(2), Type::S32);  // reuses tid*M+4 (one shl more)
  CHECK(b.kernel().body.size() == before + 1);
  // Inside a branch the outer values are reused, the branch's own do not leak out of it.
  Value inner;
  b.if_(a < 10, [&] {
    CHECK(b.lower(tid * M + Int(4), Type::S32).id() == a.id());
    inner = b.lower(tid * M * Int(3), Type::S32);
  });
  CHECK(b.lower(tid * M * Int(3), Type::S32).id() != inner.id());
}

TEST_CASE("codegen: powers of two become shifts and masks only where the value is non-negative") {
  KernelBuilder b("pow2");
  Value pm = b.param("M", Type::S32);
  Int M = b.symbol("M", pm, 1, 1);
  Int tid = b.thread_index(0);
  b.lower(tid / Int(8) + (tid % Int(16)) + M * Int(32), Type::S32);
  Module m;
  m.kernels.push_back(b.finish());
  const std::string ptx = print_ptx(m);
  CHECK(ptx.find("shr.s32") != std::string::npos);
  CHECK(ptx.find("and.b32") != std::string::npos);
  CHECK(ptx.find("shl.b32") != std::string::npos);
  CHECK(ptx.find("div.s32") == std::string::npos);
  CHECK(ptx.find("rem.s32") == std::string::npos);
  // A value that may be negative keeps the truncating division.
  KernelBuilder n("neg");
  Value pv = n.param("V", Type::S32);
  Int V = n.symbol("V", pv, 1, -1000);
  n.lower(V / Int(8), Type::S32);
  Module m2;
  m2.kernels.push_back(n.finish());
  CHECK(print_ptx(m2).find("div.s32") != std::string::npos);
}

TEST_CASE("codegen: lowering errors name the problem") {
  KernelBuilder b("errors");
  Int unbound = Int::symbol("Q");
  CHECK_THROWS_WITH_AS(b.lower(unbound + Int(1), Type::S32), doctest::Contains("symbol Q is not bound"), Error);
  CHECK_THROWS_WITH_AS(b.lower(Int(3), Type::F32), doctest::Contains("s32, u32, s64 or u64, not f32"), Error);
  Value v = b.param("v", Type::S32);
  b.symbol("v", v);
  CHECK_THROWS_WITH_AS(b.symbol("v", v), doctest::Contains("symbol v is already bound"), Error);
  Value f = b.param("f", Type::F32);
  CHECK_THROWS_WITH_AS(v + f, doctest::Contains("add of a s32 and a f32"), Error);
}

TEST_CASE("codegen: the common-subexpression table keeps thousands of values through nested and sibling scopes") {
  TESSEL_RNG(rng);
  KernelBuilder b("cse_many");
  Value pm = b.param("M", Type::S32);
  const Int M = b.symbol("M", pm, 1, 1);
  const Int tid = b.thread_index(0);
  // Enough distinct expressions to grow the table's index several times (it starts at 256 slots).
  std::vector<int64_t> ks(3000);
  for (size_t j = 0; j < ks.size(); ++j) ks[j] = static_cast<int64_t>(j) * 7 + test::uniform(rng, 0, 6);
  std::vector<Value> outer;
  for (int64_t k : ks) outer.push_back(b.lower(tid * M + Int(k), Type::S32));
  // Scopes nested 24 deep, each lowering values of its own and finding every outer one.
  std::function<void(int)> nest = [&](int depth) {
    const Int own = tid * M * Int(depth + 3);
    const Value mine = b.lower(own, Type::S32);
    for (size_t j = 0; j < ks.size(); j += 97) CHECK(b.lower(tid * M + Int(ks[j]), Type::S32).id() == outer[j].id());
    CHECK(b.lower(own, Type::S32).id() == mine.id());
    if (depth < 24) b.if_(mine < 10, [&] { nest(depth + 1); });
    CHECK(b.lower(own, Type::S32).id() == mine.id());  // still there after the inner scopes closed
  };
  Value first_inner, second_inner;
  b.if_(outer[0] < 10, [&] {
    nest(0);
    first_inner = b.lower(tid * M * Int(5), Type::S32);
  });
  // A sibling scope: what the first made is gone, what came before both is still found.
  b.if_(outer[1] < 10, [&] {
    second_inner = b.lower(tid * M * Int(5), Type::S32);
    CHECK(b.lower(tid * M + Int(ks[42]), Type::S32).id() == outer[42].id());
  });
  CHECK(first_inner.id() != second_inner.id());
  for (size_t j = 0; j < ks.size(); ++j) CHECK(b.lower(tid * M + Int(ks[j]), Type::S32).id() == outer[j].id());
}

TEST_CASE("codegen: a swizzled address's addend past the swizzle's bits becomes an immediate, exactly") {
  // The address moves the multiple of 2^k in an element's static addend (k past every bit the
  // swizzle reads or writes, either direction of shift) out of the swizzle into the immediate.
  // Each element's address must still be base + sw(offset + L(i)) * bytes.
  TESSEL_RNG(rng);
  for (int trial = 0; trial < 200; ++trial) {
    const int B = static_cast<int>(test::uniform(rng, 1, 3)), M = static_cast<int>(test::uniform(rng, 0, 4));
    const int S = static_cast<int>(test::uniform(rng, B, B + 2)) * (test::uniform(rng, 0, 1) ? 1 : -1);
    const Swizzle sw(B, M, S);
    KernelBuilder b("swizzle_address_test");
    Value p = b.param("P", Type::U64), pk = b.param("K", Type::S64);
    Int K = b.symbol("K", pk, 1, 0), tid = b.thread_index(0);
    // A thread's view of a swizzled box: a dynamic offset, then a layout whose static offsets run
    // past 2^k and inside it.
    const int64_t s1 = test::pick(rng, {8, 16, 32, 64, 128, 256});
    const ComposedLayout box{sw, tid * Int(test::uniform(rng, 1, 9)) + K,
                             make_layout(IntTuple{4, 8}, IntTuple{test::pick(rng, {1, 2, 3}), s1})};
    const Type elem = std::array{Type::F32, Type::BF16, Type::U8}[static_cast<size_t>(test::uniform(rng, 0, 2))];
    const Tensor view(p, Space::Global, elem, box, Type::S64, 1);
    std::vector<Value> at;
    for (int64_t i = 0; i < 32; ++i) at.push_back(b.address(view, Coord(Int(i))));
    Kernel k = b.finish();
    Interp in{k, {}, {}, {}};
    const int64_t base = test::uniform(rng, 0, 1 << 20) * 1024, kv = test::uniform(rng, 0, 5000);
    const int64_t tv = test::uniform(rng, 0, 255);
    in.params = {{"P", base}, {"K", kv}};
    in.specials = {{"%tid.x", tv}};
    in.run();
    for (int64_t i = 0; i < 32; ++i) {
      const Value& reg = at[static_cast<size_t>(i)];
      const int64_t off = evaluate(box(Coord(Int(i))).leaf(), {{"K", kv}, {"tid.x", tv}});
      INFO(to_string(sw) << " element " << i << " K=" << kv << " tid=" << tv);
      REQUIRE(in.regs.count(reg.id()));
      CHECK(in.regs.at(reg.id()) == base + off * bytes(elem));
    }
  }
}
