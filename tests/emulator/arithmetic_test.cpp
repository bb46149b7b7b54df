// arithmetic_test.cpp: integer and floating-point arithmetic of every IR type on the emulator
// against host references on fresh random operands (specials included): bit-exact for integers
// and for f32/f64/f16/bf16 operations that round once.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "emulator/gpu_compare.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

constexpr unsigned kThreads = 256;

enum class Fn { Add, Sub, Mul, Div, Rem, Min, Max, Fma, Neg, Abs, Relu, Shl, Shr, And, Or, Xor };
const char* fn_name(Fn f) {
  static const char* n[] = {"add", "sub", "mul",  "div", "rem", "min", "max", "fma",
                            "neg", "abs", "relu", "shl", "shr", "and", "or",  "xor"};
  return n[static_cast<int>(f)];
}

// PTX min/max on floats: a NaN gives way to the other operand, -0 is below +0.
template <class H>
H ptx_min_max(bool is_min, H a, H b) {
  if (std::isnan(a) && std::isnan(b)) return std::numeric_limits<H>::quiet_NaN();
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (is_min == std::signbit(a)) ? a : b;
  return (is_min == (a < b)) ? a : b;
}

// Host reference of f on host type H (shift amounts are b's low 7 bits, as the kernel takes them).
template <class H>
H reference(Fn f, H a, H b, H c) {
  if constexpr (std::is_floating_point_v<H>) {
    switch (f) {
      case Fn::Add:
        return a + b;
      case Fn::Sub:
        return a - b;
      case Fn::Mul:
        return a * b;
      case Fn::Div:
        return a / b;
      case Fn::Fma:
        return std::fma(a, b, c);
      case Fn::Min:
        return ptx_min_max(true, a, b);
      case Fn::Max:
        return ptx_min_max(false, a, b);
      case Fn::Neg:  // of a NaN: a NaN (same() takes every NaN as equal)
        return -a;
      case Fn::Abs:
        return std::fabs(a);
      case Fn::Relu:
        return ptx_min_max(false, a, H(0));
      default:
        return 0;
    }
  } else {
    using U = std::make_unsigned_t<H>;
    constexpr int w = sizeof(H) * 8;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b), uc = static_cast<U>(c);
    const unsigned amount = static_cast<unsigned>(ub) & 127;
    switch (f) {
      case Fn::Add:
        return static_cast<H>(static_cast<U>(ua + ub));
      case Fn::Sub:
        return static_cast<H>(static_cast<U>(ua - ub));
      case Fn::Mul:
        return static_cast<H>(static_cast<U>(ua * ub));
      case Fn::Div:
        return static_cast<H>(a / b);
      case Fn::Rem:
        return static_cast<H>(a % b);
      case Fn::Min:
        return a < b ? a : b;
      case Fn::Max:
        return a > b ? a : b;
      case Fn::Fma:
        return static_cast<H>(static_cast<U>(ua * ub + uc));
      case Fn::Neg:
        return static_cast<H>(static_cast<U>(U(0) - ua));
      case Fn::Abs:
        return a < 0 ? static_cast<H>(static_cast<U>(U(0) - ua)) : a;
      case Fn::Relu:
        return a > 0 ? a : H(0);
      case Fn::Shl:
        return amount >= unsigned(w) ? H(0) : static_cast<H>(static_cast<U>(ua << amount));
      case Fn::Shr:
        if (std::is_signed_v<H>) return amount >= unsigned(w) ? (a < 0 ? H(-1) : H(0)) : static_cast<H>(a >> amount);
        return amount >= unsigned(w) ? H(0) : static_cast<H>(ua >> amount);
      case Fn::And:
        return static_cast<H>(ua & ub);
      case Fn::Or:
        return static_cast<H>(ua | ub);
      case Fn::Xor:
        return static_cast<H>(ua ^ ub);
    }
    return 0;
  }
}

// Random floats: mostly normal values over a wide range, with zeros, infinities, NaN, subnormals.
template <class H>
H random_float(std::mt19937_64& rng) {
  const int k = static_cast<int>(rng() % 40);
  const H sign = (rng() & 1) ? H(-1) : H(1);
  switch (k) {
    case 0:
      return sign * H(0);
    case 1:
      return sign * std::numeric_limits<H>::infinity();
    case 2:
      return std::numeric_limits<H>::quiet_NaN();
    case 3:
      return sign * std::numeric_limits<H>::denorm_min() * H(1 + rng() % 1000);
    case 4:
      return sign * std::numeric_limits<H>::max();
    default: {
      const H m = std::uniform_real_distribution<H>(1, 2)(rng);
      return sign * std::ldexp(m, static_cast<int>(rng() % 61) - 30);
    }
  }
}

template <class H>
H random_value(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<H>) {
    return random_float<H>(rng);
  } else {
    return static_cast<H>(rng());
  }
}

template <class H>
bool same(H x, H y) {
  if constexpr (std::is_floating_point_v<H>) {
    if (std::isnan(x) && std::isnan(y)) return true;
  }
  return std::memcmp(&x, &y, sizeof(H)) == 0;
}

Value zero_of(KernelBuilder& b, Type t) {
  if (t == Type::F32) return b.constant_f32(0);
  if (t == Type::F64) return b.constant_f64(0);
  return b.constant(0, t);
}

// out[k][i] = fns[k](a[i], b[i], c[i]) for i = tid.x, in type t.
Kernel scalar_kernel(Type t, const std::vector<Fn>& fns) {
  KernelBuilder b(std::string("tessel_test_arith_") + ptx_name(t));
  Value pa = b.global_pointer_param("a"), pb = b.global_pointer_param("b"), pc = b.global_pointer_param("c");
  Value out = b.global_pointer_param("out");
  const int es = bytes(t);
  Value tid = b.special(Special::TidX);
  Value x = b.load(Space::Global, t, test::element(b, pa, tid, es))[0];
  Value y = b.load(Space::Global, t, test::element(b, pb, tid, es))[0];
  Value z = b.load(Space::Global, t, test::element(b, pc, tid, es))[0];
  for (size_t k = 0; k < fns.size(); ++k) {
    Value r;
    switch (fns[k]) {
      case Fn::Add:
        r = x + y;
        break;
      case Fn::Sub:
        r = x - y;
        break;
      case Fn::Mul:
        r = x * y;
        break;
      case Fn::Div:
        r = x / y;
        break;
      case Fn::Rem:
        r = x % y;
        break;
      case Fn::Min:
        r = b.min(x, y);
        break;
      case Fn::Max:
        r = b.max(x, y);
        break;
      case Fn::Fma:
        r = b.mad(x, y, z);
        break;
      case Fn::Neg:
        r = -x;
        break;
      case Fn::Abs:
        r = b.unary(Op::Abs, x);
        break;
      case Fn::Relu:
        r = b.max(x, zero_of(b, t));
        break;
      case Fn::Shl:
      case Fn::Shr: {
        Value amount = b.cvt(y, Type::U32) & 127;
        r = fns[k] == Fn::Shl ? x << amount : x >> amount;
        break;
      }
      case Fn::And:
        r = x & y;
        break;
      case Fn::Or:
        r = x | y;
        break;
      case Fn::Xor:
        r = x ^ y;
        break;
    }
    Value at = test::element(b, out, b.binary(Op::Add, tid, static_cast<int64_t>(k * kThreads)), es);
    b.store(Space::Global, t, at, {r});
  }
  return b.finish();
}

template <class H>
void check_scalar(Type t, const std::vector<Fn>& fns, std::mt19937_64& rng) {
  std::vector<H> a(kThreads), b(kThreads), c(kThreads);
  for (unsigned i = 0; i < kThreads; ++i) {
    a[i] = random_value<H>(rng);
    b[i] = random_value<H>(rng);
    c[i] = random_value<H>(rng);
    if constexpr (std::is_integral_v<H>) {
      if (b[i] == 0) b[i] = 3;                             // no division by zero
      if (std::is_signed_v<H> && b[i] == H(-1)) b[i] = 5;  // no overflowing min / -1
    }
  }
  emu::Memory mem;
  const uint64_t pa = mem.upload(a), pb = mem.upload(b), pc = mem.upload(c);
  const uint64_t out = mem.alloc(fns.size() * kThreads * sizeof(H));
  codegen::LaunchPlan plan = test::plan_of(scalar_kernel(t, fns), 1, kThreads);
  plan.arg(pa).arg(pb).arg(pc).arg(out);
  emu::run(plan, mem);
  const std::vector<H> got = mem.read<H>(out, fns.size() * kThreads);
  for (size_t k = 0; k < fns.size(); ++k) {
    int wrong = 0;
    for (unsigned i = 0; i < kThreads; ++i) {
      const H want = reference(fns[k], a[i], b[i], c[i]);
      if (!same(got[k * kThreads + i], want) && ++wrong <= 3) {
        FAIL_CHECK(std::string(fn_name(fns[k])) << "." << ptx_name(t) << "(" << a[i] << ", " << b[i] << ", " << c[i]
                                                << "): emulator " << got[k * kThreads + i] << ", host " << want);
      }
    }
    CHECK_MESSAGE(wrong == 0, std::string(fn_name(fns[k])) << "." << ptx_name(t) << ": " << wrong << " wrong results");
  }
}

}  // namespace

TEST_CASE("emulator: f32 and f64 arithmetic is bit-exact against the host") {
  TESSEL_RNG(rng);
  const std::vector<Fn> fns = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Div, Fn::Min,
                               Fn::Max, Fn::Fma, Fn::Neg, Fn::Abs, Fn::Relu};
  check_scalar<float>(Type::F32, fns, rng);
  check_scalar<double>(Type::F64, fns, rng);
}

TEST_CASE("emulator: integer arithmetic, logic and clamped shifts of every width are bit-exact") {
  TESSEL_RNG(rng);
  const std::vector<Fn> common = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Div, Fn::Rem, Fn::Min, Fn::Max,
                                  Fn::Fma, Fn::Shl, Fn::Shr, Fn::And, Fn::Or,  Fn::Xor};
  std::vector<Fn> with_sign = common;
  with_sign.insert(with_sign.end(), {Fn::Neg, Fn::Abs, Fn::Relu});
  check_scalar<int16_t>(Type::S16, with_sign, rng);
  check_scalar<uint16_t>(Type::U16, common, rng);
  check_scalar<int32_t>(Type::S32, with_sign, rng);
  check_scalar<uint32_t>(Type::U32, common, rng);
  check_scalar<int64_t>(Type::S64, with_sign, rng);
  check_scalar<uint64_t>(Type::U64, common, rng);
}

TEST_CASE("emulator: arithmetic of every type agrees with the GPU bit for bit") {
  TESSEL_REQUIRE_GPU(80);
  TESSEL_RNG(rng);
  auto check = [&]<class H>(Type t, const std::vector<Fn>& fns, H) {
    std::vector<H> v[3];
    for (auto& x : v) {
      x.resize(kThreads);
      for (H& e : x) e = random_value<H>(rng);
    }
    for (unsigned i = 0; i < kThreads; ++i) {
      if constexpr (std::is_integral_v<H>) {
        if (v[1][i] == 0 || (std::is_signed_v<H> && v[1][i] == H(-1))) v[1][i] = 3;
      }
    }
    const std::vector<test::Bytes> buffers = {test::as_bytes(v[0]), test::as_bytes(v[1]), test::as_bytes(v[2]),
                                              test::Bytes(fns.size() * kThreads * sizeof(H), 0)};
    const auto [e, g] = test::run_both(scalar_kernel(t, fns), {1, 1, 1}, {kThreads, 1, 1}, buffers);
    for (size_t k = 0; k < fns.size(); ++k) {
      const size_t n = kThreads * sizeof(H);
      const test::Bytes ek(e[3].begin() + k * n, e[3].begin() + (k + 1) * n),
          gk(g[3].begin() + k * n, g[3].begin() + (k + 1) * n);
      CHECK(test::count_differences(ek, gk, sizeof(H), std::string(fn_name(fns[k])) + "." + ptx_name(t),
                                    t == Type::F64) == 0);
    }
  };
  const std::vector<Fn> floats = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Div, Fn::Min,
                                  Fn::Max, Fn::Fma, Fn::Neg, Fn::Abs, Fn::Relu};
  check(Type::F32, floats, float{});
  check(Type::F64, floats, double{});
  const std::vector<Fn> ints = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Div, Fn::Rem, Fn::Min, Fn::Max, Fn::Fma,
                                Fn::Shl, Fn::Shr, Fn::And, Fn::Or,  Fn::Xor, Fn::Neg, Fn::Abs, Fn::Relu};
  check(Type::S16, ints, int16_t{});
  check(Type::S32, ints, int32_t{});
  check(Type::S64, ints, int64_t{});
  const std::vector<Fn> uints = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Div, Fn::Rem,
                                 Fn::Min, Fn::Max, Fn::Fma, Fn::Shl, Fn::Shr};
  check(Type::U16, uints, uint16_t{});
  check(Type::U32, uints, uint32_t{});
  check(Type::U64, uints, uint64_t{});
}
