// wgmma_test.cpp: wgmma.mma_async and the warp matrix instructions on the emulator, with operand
// tiles laid out by codegen's canonical_operand_layout and described by make_matrix_descriptor
// (the emulator decodes descriptors and layouts on its own, so the two cross-check), results read
// through the PTX ISA's accumulator fragment as written here: MN-major (transposed) operands, every
// swizzle, tf32, e4m3 x e5m2, A from registers, scale-d 0 and 1; stmatrix/ldmatrix x1/x2/x4 with
// and without .trans against a host placement of the fragments.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen/wgmma.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

// A random fp8 value with a small exponent: +-(1 + m / 2^mantissa_bits) * 2^e, e in [-3, 1].
double random_fp8(std::mt19937_64& rng, Type t) {
  const int mbits = number_format(t).mantissa_bits;
  const double m = static_cast<double>(test::uniform(rng, 0, (1 << mbits) - 1)) / (1 << mbits);
  return std::ldexp(1.0 + m, static_cast<int>(test::uniform(rng, -3, 1))) * (test::uniform(rng, 0, 1) ? -1 : 1);
}

// An operand tile (mn x k) with random values, its shared-memory image in the canonical layout
// of (swizzle, major) and its descriptor.
struct Tile {
  Type t;
  int mn, k;
  std::vector<double> val;        // [mn * k + kk]
  std::vector<uint32_t> bits;     // encoded
  std::vector<uint8_t> image;     // bytes of shared memory, from a 1024-byte aligned base
  MatrixDescriptor desc;
};

Tile make_tile(std::mt19937_64& rng, Type t, int mn, int k, SmemSwizzle sw, Major major) {
  Tile x{t, mn, k, {}, {}, {}, {}};
  const int e = bytes(t), T = 16 / e, W = swizzle_bytes(sw);
  for (int i = 0; i < mn * k; ++i) {
    // Values exact in t (codegen/number_format.hpp encodes them).
    if (is_fp8(t)) {
      x.val.push_back(random_fp8(rng, t));
    } else {
      const double v = static_cast<double>(test::uniform(rng, -16, 16)) / 8.0;
      x.val.push_back(i == 0 ? 1.0 : v);  // never all zero
    }
    x.bits.push_back(static_cast<uint32_t>(encode(number_format(t), x.val.back())));
  }
  int64_t lbo, sbo;  // elements
  if (major == Major::K) {
    lbo = sw == SmemSwizzle::None ? 8 * T : 1;
    sbo = sw == SmemSwizzle::None ? (k / T) * 8 * T : 8 * W / e;
  } else {
    sbo = sw == SmemSwizzle::None ? 8 * T : 8 * W / e;
    lbo = sw == SmemSwizzle::None ? (mn / T) * 8 * T : (k / 8) * 8 * W / e;
  }
  const ComposedLayout L = canonical_operand_layout(sw, major, t, mn, k, lbo, sbo);
  x.desc = make_matrix_descriptor(L, t, major);
  x.image.assign(static_cast<size_t>((cosize(L).value() * e + 1023) / 1024 * 1024), 0);
  for (int m = 0; m < mn; ++m) {
    for (int kk = 0; kk < k; ++kk) {
      const int64_t off = L(IntTuple{m, kk}).leaf().value() * e;
      std::memcpy(&x.image[size_t(off)], &x.bits[size_t(m * k + kk)], size_t(e));
    }
  }
  return x;
}

struct Case {
  Type a, b;
  int n;
  SmemSwizzle sw_a, sw_b;
  Major major_a, major_b;
  bool reg_a = false;
};

// Copies an image (a multiple of 16 bytes) from global to shared: thread tid takes chunks tid + 128j.
void copy_in(KernelBuilder& b, Value g, Value s, size_t bytes_, Value tid) {
  const int chunks = static_cast<int>(bytes_ / 16);
  for (int j = 0; j * 128 < chunks; ++j) {
    Value c = tid + 128 * j;
    b.if_(c < chunks, [&] {
      std::vector<Value> v = b.load(Space::Global, Type::B32, test::element(b, g, c, 16), 0, 4);
      b.store(Space::Shared, Type::B32, s + c * 16, v);
    });
  }
}

void run_case(const Case& c, std::mt19937_64& rng) {
  const WgmmaAtom atom{c.n, Type::F32, c.a, c.b};
  const int K = atom.k(), nacc = atom.accumulators();
  const Tile A = make_tile(rng, c.a, 64, K, c.sw_a, c.major_a), B = make_tile(rng, c.b, c.n, K, c.sw_b, c.major_b);
  KernelBuilder b("tessel_test_wgmma");
  b.kernel().reqntid = std::array<int, 3>{128, 1, 1};
  Value ga = b.global_pointer_param("a"), gb = b.global_pointer_param("b"), gfrag = b.global_pointer_param("afrag");
  Value out = b.global_pointer_param("out");
  Value scale = b.param("scale", Type::S32);
  Value sa = b.shared_array("sa", int64_t(A.image.size()), 1024), sb = b.shared_array("sb", int64_t(B.image.size()), 1024);
  Value tid = b.special(Special::TidX);
  copy_in(b, ga, sa, A.image.size(), tid);
  copy_in(b, gb, sb, B.image.size(), tid);
  fence_proxy_async(b, Space::Shared);
  bar_sync(b);
  std::vector<Value> acc = wgmma_accumulators(b, atom);
  for (Value& v : acc) b.assign(v, b.constant_f32(3.0f));
  Value scale_d = scale != b.constant(0, Type::S32);
  Value db = matrix_descriptor(b, sb, B.desc);
  wgmma_fence(b);
  if (c.reg_a) {
    std::vector<Value> a;
    for (int r = 0; r < 4; ++r) a.push_back(b.load(Space::Global, Type::B32, test::element(b, gfrag, tid * 4 + r, 4))[0]);
    wgmma_reg_a(b, atom, acc, a, db, scale_d, c.major_b);
  } else {
    wgmma(b, atom, acc, matrix_descriptor(b, sa, A.desc), db, scale_d, c.major_a, c.major_b);
  }
  wgmma_commit_group(b);
  wgmma_wait_group(b, 0);
  for (int i = 0; i < nacc; ++i) b.store(Space::Global, Type::F32, test::element(b, out, tid * nacc + i, 4), {acc[size_t(i)]});
  const Kernel k = b.finish();

  // A's register fragment (PTX ISA, wgmma .m64nNk16 A in registers): register r of thread t holds
  // row 16*(t/32) + (t%32)/4 + 8*(r%2), elements k = 2*(t%4) + 8*(r/2) and the next (16-bit types,
  // the only ones the cases take from registers; other K would index past A).
  std::vector<uint32_t> frag(128 * 4);
  REQUIRE((!c.reg_a || K == 16));
  for (int t = 0; t < 128 && c.reg_a; ++t) {
    for (int r = 0; r < 4; ++r) {
      const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * (r % 2), k0 = 2 * (t % 4) + 8 * (r / 2);
      frag[size_t(t * 4 + r)] = A.bits[size_t(row * K + k0)] | A.bits[size_t(row * K + k0 + 1)] << 16;
    }
  }
  for (int s : {0, 1}) {
    INFO("scale-d " << s);
    emu::Memory mem;
    const uint64_t da = mem.upload(A.image), dbb = mem.upload(B.image), dfrag = mem.upload(frag);
    const uint64_t dout = mem.alloc(size_t(128 * nacc) * 4);
    LaunchPlan plan = test::plan_of(k, 1, 128);
    plan.arg(da).arg(dbb).arg(dfrag).arg(dout).arg(int32_t(s));
    const emu::RunStats stats = emu::run(plan, mem);
    CHECK(stats.wgmmas == 1);
    const std::vector<float> got = mem.read<float>(dout, size_t(128 * nacc));
    // The accumulator fragment (PTX ISA, wgmma .m64nNk* D): element i of thread t is at row
    // 16*(t/32) + (t%32)/4 + 8*((i/2)%2), column 2*(t%4) + i%2 + 8*(i/4).
    int64_t wrong = 0;
    for (int t = 0; t < 128; ++t) {
      for (int i = 0; i < nacc; ++i) {
        const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), col = 2 * (t % 4) + i % 2 + 8 * (i / 4);
        double ref = s ? 3.0 : 0.0;
        for (int kk = 0; kk < K; ++kk) ref += A.val[size_t(row * K + kk)] * B.val[size_t(col * K + kk)];
        wrong += got[size_t(t * nacc + i)] != static_cast<float>(ref);  // exact: the values are
      }
    }
    CHECK(wrong == 0);
  }
}

}  // namespace

TEST_CASE("emulator: wgmma with K-major and MN-major (transposed) operands in every swizzle") {
  TESSEL_RNG(rng);
  const std::vector<Case> cases = {
      {Type::BF16, Type::BF16, 64, SmemSwizzle::B128, SmemSwizzle::B128, Major::K, Major::MN},
      {Type::F16, Type::F16, 128, SmemSwizzle::B64, SmemSwizzle::None, Major::MN, Major::MN},
      {Type::BF16, Type::BF16, 24, SmemSwizzle::B32, SmemSwizzle::None, Major::MN, Major::K},
      {Type::F16, Type::F16, 64, SmemSwizzle::None, SmemSwizzle::B32, Major::MN, Major::MN},
      {Type::BF16, Type::BF16, 256, SmemSwizzle::B128, SmemSwizzle::B64, Major::MN, Major::K},
  };
  for (const Case& c : cases) {
    INFO(ptx_name(c.a) << " n" << c.n << " A " << to_string(c.sw_a) << (c.major_a == Major::K ? " K" : " MN")
                       << "-major, B " << to_string(c.sw_b) << (c.major_b == Major::K ? " K" : " MN") << "-major");
    run_case(c, rng);
  }
}

TEST_CASE("emulator: wgmma with tf32, e4m3 x e5m2 and A from registers") {
  TESSEL_RNG(rng);
  const std::vector<Case> cases = {
      {Type::TF32, Type::TF32, 32, SmemSwizzle::B32, SmemSwizzle::B32, Major::K, Major::K},
      {Type::TF32, Type::TF32, 16, SmemSwizzle::None, SmemSwizzle::B128, Major::K, Major::K},
      {Type::E4M3, Type::E5M2, 64, SmemSwizzle::B128, SmemSwizzle::B64, Major::K, Major::K},
      {Type::E5M2, Type::E4M3, 8, SmemSwizzle::B32, SmemSwizzle::None, Major::K, Major::K},
      {Type::BF16, Type::BF16, 64, SmemSwizzle::None, SmemSwizzle::B64, Major::K, Major::MN, true},
      {Type::F16, Type::F16, 32, SmemSwizzle::None, SmemSwizzle::B128, Major::K, Major::K, true},
  };
  for (const Case& c : cases) {
    INFO(ptx_name(c.a) << "." << ptx_name(c.b) << " n" << c.n << (c.reg_a ? " A in registers" : ""));
    run_case(c, rng);
  }
}

TEST_CASE("emulator: stmatrix and ldmatrix place 8x8 fragments as the PTX ISA says") {
  TESSEL_RNG(rng);
  for (int num : {1, 2, 4}) {
    for (bool trans : {false, true}) {
      INFO("x" << num << (trans ? ".trans" : ""));
      std::vector<uint32_t> in(128), idx(32);
      for (uint32_t& x : in) x = static_cast<uint32_t>(1 + rng() % 0xfffffffeu);
      for (uint32_t i = 0; i < 32; ++i) idx[i] = i;
      std::shuffle(idx.begin(), idx.end(), rng);  // rows in a random order
      KernelBuilder b("tessel_test_stmatrix");
      Value gin = b.global_pointer_param("in"), gidx = b.global_pointer_param("idx");
      Value out = b.global_pointer_param("out"), back = b.global_pointer_param("back");
      Value sm = b.shared_array("sm", 512, 16);
      Value lane = b.special(Special::TidX);
      Value zero = b.constant(0, Type::B32);
      b.store(Space::Shared, Type::B32, sm + lane * 16, {zero, zero, zero, zero});
      bar_sync(b);
      Value addr = sm + b.load(Space::Global, Type::U32, test::element(b, gidx, lane, 4))[0] * 16;
      std::vector<Value> frags;
      for (int j = 0; j < num; ++j) frags.push_back(b.load(Space::Global, Type::B32, test::element(b, gin, lane * 4 + j, 4))[0]);
      stmatrix(b, addr, frags, trans);
      bar_sync(b);
      for (int w = 0; w < 4; ++w) {
        Value word = lane * 4 + w;
        b.store(Space::Global, Type::B32, test::element(b, out, word, 4), {b.load(Space::Shared, Type::B32, sm + word * 4)[0]});
      }
      std::vector<Value> regs = ldmatrix(b, addr, num, trans);
      for (int j = 0; j < num; ++j) b.store(Space::Global, Type::B32, test::element(b, back, lane * 4 + j, 4), {regs[size_t(j)]});
      emu::Memory mem;
      const uint64_t din = mem.upload(in), didx = mem.upload(idx), dout = mem.alloc(512), dback = mem.alloc(512);
      LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
      plan.arg(din).arg(didx).arg(dout).arg(dback);
      emu::run(plan, mem);
      // Lane l's register j: elements (row l/4, columns 2(l%4), 2(l%4)+1) of matrix j, or with .trans
      // (rows 2(l%4), 2(l%4)+1, column l/4); row r of matrix j lives at the address of lane 8j+r.
      std::vector<uint16_t> want(256, 0);
      for (int l = 0; l < 32; ++l) {
        for (int j = 0; j < num; ++j) {
          for (int h = 0; h < 2; ++h) {
            const int row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
            want[size_t(idx[size_t(8 * j + row)] * 8 + uint32_t(col))] = static_cast<uint16_t>(in[size_t(l * 4 + j)] >> (16 * h));
          }
        }
      }
      CHECK(mem.read<uint16_t>(dout, 256) == want);
      const std::vector<uint32_t> got = mem.read<uint32_t>(dback, 128);
      for (int l = 0; l < 32; ++l) {
        for (int j = 0; j < num; ++j) CHECK(got[size_t(l * 4 + j)] == in[size_t(l * 4 + j)]);
      }
    }
  }
}
