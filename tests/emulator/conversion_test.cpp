// conversion_test.cpp: cvt between integer and float types in every rounding mode, with the
// saturation of float-to-integer and .sat narrowing, on the emulator against host references.
// Directed roundings are checked from the host's round-to-nearest result: the correct directed
// result is that value or its neighbour on the side the mode points to. The references are
// written apart from codegen/number_format.hpp on purpose (the emulator rounds through it).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "emulator/gpu_compare.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

constexpr unsigned kThreads = 128;

// One conversion of the kernel: from which input, to which type, how.
struct Conv {
  const char* what;
  int input;  // 0: x (f32), 1: i (s32), 2: d (f64), 3: u (u64)
  Type to;
  Round rnd = Round::None;
  bool sat = false;
};

const std::vector<Conv> kConvs = {
    {"cvt.rn.f16.f32", 0, Type::F16, Round::Rn},
    {"cvt.rz.f16.f32", 0, Type::F16, Round::Rz},
    {"cvt.rm.f16.f32", 0, Type::F16, Round::Rm},
    {"cvt.rp.f16.f32", 0, Type::F16, Round::Rp},
    {"cvt.rn.bf16.f32", 0, Type::BF16, Round::Rn},
    {"cvt.rz.bf16.f32", 0, Type::BF16, Round::Rz},
    {"cvt.rzi.s32.f32", 0, Type::S32, Round::Rzi},
    {"cvt.rni.s32.f32", 0, Type::S32, Round::Rni},
    {"cvt.rmi.s32.f32", 0, Type::S32, Round::Rmi},
    {"cvt.rpi.s32.f32", 0, Type::S32, Round::Rpi},
    {"cvt.rzi.u32.f32", 0, Type::U32, Round::Rzi},
    {"cvt.rni.f32.f32", 0, Type::F32, Round::Rni},
    {"cvt.rn.f32.s32", 1, Type::F32, Round::Rn},
    {"cvt.rz.f32.s32", 1, Type::F32, Round::Rz},
    {"cvt.sat.s8.s32", 1, Type::S8, Round::None, true},
    {"cvt.sat.u8.s32", 1, Type::U8, Round::None, true},
    {"cvt.s8.s32", 1, Type::S8},
    {"cvt.s16.s32", 1, Type::S16},
    {"cvt.rn.f32.f64", 2, Type::F32, Round::Rn},
    {"cvt.rz.f32.f64", 2, Type::F32, Round::Rz},
    {"cvt.rm.f32.f64", 2, Type::F32, Round::Rm},
    {"cvt.rp.f32.f64", 2, Type::F32, Round::Rp},
    {"cvt.rzi.s64.f64", 2, Type::S64, Round::Rzi},
    {"cvt.rn.f64.u64", 3, Type::F64, Round::Rn},
    {"cvt.rz.f64.u64", 3, Type::F64, Round::Rz},
};
const Type kInputs[] = {Type::F32, Type::S32, Type::F64, Type::U64};

// Each output slot is 8 bytes wide; the value sits in its low bytes.
Kernel conversion_kernel() {
  KernelBuilder b("tessel_test_cvt");
  Value in[4];
  Value p[4] = {b.global_pointer_param("x"), b.global_pointer_param("i"), b.global_pointer_param("d"),
                b.global_pointer_param("u")};
  Value out = b.global_pointer_param("out");
  Value tid = b.special(Special::TidX);
  for (int k = 0; k < 4; ++k)
    in[k] = b.load(Space::Global, kInputs[k], test::element(b, p[k], tid, bytes(kInputs[k])))[0];
  for (size_t k = 0; k < kConvs.size(); ++k) {
    const Conv& c = kConvs[k];
    Value r = b.reg(c.to);
    Instr i;
    i.op = Op::Cvt;
    i.type = c.to;
    i.type2 = kInputs[c.input];
    i.rnd = c.rnd;
    if (c.sat) i.flags = kSat;
    i.ops = {r.op(), in[c.input].op()};
    b.emit(i);
    Value at = test::element(b, out, b.binary(Op::Add, tid, static_cast<int64_t>(k * kThreads)), 8);
    b.store(Space::Global, c.to, at, {r});
  }
  return b.finish();
}

// --- host references ---

// The neighbour of a finite-or-inf pattern toward +inf or -inf (sign-magnitude formats).
uint64_t step(uint64_t v, int bits, bool up) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  if (v == 0) return up ? 1 : sign | 1;     // +0
  if (v == sign) return up ? 1 : sign | 1;  // -0
  const bool neg = (v & sign) != 0;
  return (up != neg) ? v + 1 : v - 1;
}

// The directed result from the nearest one: rn is the nearest (bits), v its value, x the exact.
uint64_t directed(Round r, uint64_t rn, double v, double x, int bits) {
  if (std::isnan(x) || v == x) return rn;
  switch (r) {
    case Round::Rz:
      return std::fabs(v) > std::fabs(x) ? step(rn, bits, v < 0) : rn;
    case Round::Rm:
      return v > x ? step(rn, bits, false) : rn;
    case Round::Rp:
      return v < x ? step(rn, bits, true) : rn;
    default:
      return rn;
  }
}

double f16_value(uint16_t h) { return static_cast<double>(std::bit_cast<_Float16>(h)); }

template <class I>
I saturating(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= std::ldexp(1.0, std::numeric_limits<I>::digits)) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

uint64_t reference(const Conv& c, float x, int32_t i, double d, uint64_t u) {
  const std::string w = c.what;
  if (c.to == Type::F16) {
    const uint16_t rn = std::bit_cast<uint16_t>(static_cast<_Float16>(x));
    return directed(c.rnd, rn, f16_value(rn), x, 16);
  }
  if (c.to == Type::BF16) {
    const uint32_t b = std::bit_cast<uint32_t>(x);
    if (std::isnan(x)) return 0x7fff;
    if (c.rnd == Round::Rz) return b >> 16;
    return (b + 0x7fff + ((b >> 16) & 1)) >> 16;
  }
  if (w == "cvt.rzi.s32.f32") return static_cast<uint32_t>(saturating<int32_t>(std::trunc(x)));
  if (w == "cvt.rni.s32.f32") return static_cast<uint32_t>(saturating<int32_t>(std::nearbyint(x)));
  if (w == "cvt.rmi.s32.f32") return static_cast<uint32_t>(saturating<int32_t>(std::floor(x)));
  if (w == "cvt.rpi.s32.f32") return static_cast<uint32_t>(saturating<int32_t>(std::ceil(x)));
  if (w == "cvt.rzi.u32.f32") return saturating<uint32_t>(std::trunc(x));
  if (w == "cvt.rni.f32.f32") return std::isnan(x) ? 0x7fffffff : std::bit_cast<uint32_t>(std::nearbyint(x));
  if (c.input == 1 && c.to == Type::F32) {
    const float rn = static_cast<float>(i);
    return directed(c.rnd, std::bit_cast<uint32_t>(rn), rn, i, 32);
  }
  if (w == "cvt.sat.s8.s32") return static_cast<uint8_t>(std::clamp(i, -128, 127));
  if (w == "cvt.sat.u8.s32") return static_cast<uint8_t>(std::clamp(i, 0, 255));
  if (w == "cvt.s8.s32") return static_cast<uint8_t>(i);
  if (w == "cvt.s16.s32") return static_cast<uint16_t>(i);
  if (c.input == 2 && c.to == Type::F32) {
    const float rn = static_cast<float>(d);
    return std::isnan(d) ? 0x7fffffff : directed(c.rnd, std::bit_cast<uint32_t>(rn), rn, d, 32);
  }
  if (w == "cvt.rzi.s64.f64") {
    if (std::isnan(d)) return 0;
    if (d >= std::ldexp(1.0, 63)) return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (d <= -std::ldexp(1.0, 63)) return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
    return static_cast<uint64_t>(static_cast<int64_t>(std::trunc(d)));
  }
  // u64 -> f64: the exact value needs 64 bits; long double holds it.
  const double rn = static_cast<double>(u);
  if (c.rnd == Round::Rn) return std::bit_cast<uint64_t>(rn);
  return static_cast<long double>(rn) > static_cast<long double>(u) ? std::bit_cast<uint64_t>(rn) - 1
                                                                    : std::bit_cast<uint64_t>(rn);
}

bool nan_pattern(uint64_t v, Type t) {
  switch (t) {
    case Type::F16:
      return (v & 0x7fff) > 0x7c00;
    case Type::BF16:
      return (v & 0x7fff) > 0x7f80;
    case Type::F32:
      return std::isnan(std::bit_cast<float>(static_cast<uint32_t>(v)));
    case Type::F64:
      return std::isnan(std::bit_cast<double>(v));
    default:
      return false;
  }
}

}  // namespace

TEST_CASE("emulator: cvt in every rounding mode, saturating and narrowing, matches the host") {
  TESSEL_RNG(rng);
  std::vector<float> x(kThreads);
  std::vector<int32_t> i(kThreads);
  std::vector<double> d(kThreads);
  std::vector<uint64_t> u(kThreads);
  for (unsigned k = 0; k < kThreads; ++k) {
    const int kind = static_cast<int>(rng() % 8);
    const float m = std::uniform_real_distribution<float>(-3, 3)(rng);
    // Halves (ties of rni), f16 and int32 range edges, subnormals, NaN, and plain values.
    x[k] = kind == 0   ? std::round(m * 8) / 2 + 0.5f
           : kind == 1 ? std::ldexp(m, static_cast<int>(rng() % 40) - 20)
           : kind == 2 ? std::ldexp(m, 31)
           : kind == 3 ? std::ldexp(m, -20)
           : kind == 4 ? (rng() & 1 ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(m, 16))
                       : m * 100;
    i[k] = static_cast<int32_t>(rng() >> (rng() % 40));
    if (rng() & 1) i[k] = -i[k];
    d[k] = kind == 4
               ? std::numeric_limits<double>::quiet_NaN()
               : std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), static_cast<int>(rng() % 160) - 80);
    u[k] = rng() >> (rng() % 64);
  }
  emu::Memory mem;
  const uint64_t px = mem.upload(x), pi = mem.upload(i), pd = mem.upload(d), pu = mem.upload(u);
  const uint64_t out = mem.alloc(kConvs.size() * kThreads * 8);
  mem.fill(out, std::byte{0}, kConvs.size() * kThreads * 8);
  LaunchPlan plan = test::plan_of(conversion_kernel(), 1, kThreads);
  plan.arg(px).arg(pi).arg(pd).arg(pu).arg(out);
  emu::run(plan, mem);
  const std::vector<uint64_t> got = mem.read<uint64_t>(out, kConvs.size() * kThreads);
  for (size_t c = 0; c < kConvs.size(); ++c) {
    const Conv& cv = kConvs[c];
    const uint64_t mask = bytes(cv.to) == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes(cv.to))) - 1;
    int wrong = 0;
    for (unsigned k = 0; k < kThreads; ++k) {
      const uint64_t want = reference(cv, x[k], i[k], d[k], u[k]) & mask, have = got[c * kThreads + k];
      const bool ok = have == want || (nan_pattern(have, cv.to) && nan_pattern(want, cv.to));
      if (!ok && ++wrong <= 3) {
        FAIL_CHECK(cv.what << " of x=" << x[k] << " i=" << i[k] << " d=" << d[k] << " u=" << u[k] << ": emulator "
                           << emu::hex(have) << ", host " << emu::hex(want));
      }
    }
    CHECK_MESSAGE(wrong == 0, cv.what << ": " << wrong << " wrong");
  }
}

TEST_CASE("emulator: cvt agrees with the GPU bit for bit") {
  TESSEL_REQUIRE_GPU(80);
  TESSEL_RNG(rng);
  std::vector<float> x(kThreads);
  std::vector<int32_t> i(kThreads);
  std::vector<double> d(kThreads);
  std::vector<uint64_t> u(kThreads);
  for (unsigned k = 0; k < kThreads; ++k) {
    const float m = std::uniform_real_distribution<float>(-3, 3)(rng);
    const int kind = static_cast<int>(rng() % 6);
    x[k] = kind == 0   ? std::round(m * 8) / 2 + 0.5f
           : kind == 1 ? std::ldexp(m, static_cast<int>(rng() % 60) - 30)
           : kind == 2 ? std::numeric_limits<float>::quiet_NaN()
           : kind == 3 ? std::ldexp(m, 17)
                       : m * 100;
    i[k] = static_cast<int32_t>(rng() >> (rng() % 40));
    d[k] = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), static_cast<int>(rng() % 300) - 150);
    u[k] = rng() >> (rng() % 64);
  }
  const auto [e, g] = test::run_both(conversion_kernel(), {1, 1, 1}, {kThreads, 1, 1},
                                     {test::as_bytes(x), test::as_bytes(i), test::as_bytes(d), test::as_bytes(u),
                                      test::Bytes(kConvs.size() * kThreads * 8, 0)});
  for (size_t c = 0; c < kConvs.size(); ++c) {
    const test::Bytes ek(e[4].begin() + c * kThreads * 8, e[4].begin() + (c + 1) * kThreads * 8);
    const test::Bytes gk(g[4].begin() + c * kThreads * 8, g[4].begin() + (c + 1) * kThreads * 8);
    CHECK(test::count_differences(ek, gk, 8, kConvs[c].what) == 0);
  }
}

TEST_CASE("emulator: cvt.f32.bf16 keeps a NaN's payload, cvt.f32.f16 writes the canonical NaN") {
  // As an H100 does (docs/emulator.md): widening bf16 only moves the bits, widening f16 does not.
  KernelBuilder b("tessel_test_cvt_nan");
  Value in = b.global_pointer_param("in"), out = b.global_pointer_param("out");
  Value tid = b.special(Special::TidX);
  for (int k = 0; k < 2; ++k) {
    const Type from = k == 0 ? Type::BF16 : Type::F16;
    Value h = b.load(Space::Global, from, test::element(b, in, tid, 2))[0];
    Value f = b.reg(Type::F32);
    Instr i;
    i.op = Op::Cvt;
    i.type = Type::F32;
    i.type2 = from;
    i.ops = {f.op(), h.op()};
    b.emit(i);
    b.store(Space::Global, Type::F32, test::element(b, out, b.binary(Op::Add, tid, int64_t{32 * k}), 4), {f});
  }
  const std::vector<uint16_t> x = {0x7fc1, 0xff81, 0x7f80, 0x3f80, 0x7e01, 0xfd23, 0x7c00, 0x3c00};
  std::vector<uint16_t> padded(32, 0);
  std::copy(x.begin(), x.end(), padded.begin());
  emu::Memory mem;
  const uint64_t pin = mem.upload(padded), pout = mem.alloc(64 * 4);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  plan.arg(pin).arg(pout);
  emu::run(plan, mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(pout, 64);
  for (size_t j = 0; j < x.size(); ++j) {
    INFO("input " << emu::hex(x[j]));
    CHECK(got[j] == uint32_t{x[j]} << 16);  // bf16: the bits, NaN or not
    const float f16 = static_cast<float>(std::bit_cast<_Float16>(x[j]));
    CHECK(got[32 + j] == (std::isnan(f16) ? 0x7fffffffu : std::bit_cast<uint32_t>(f16)));
  }
}
