// number_format_test.cpp: codegen/number_format.hpp. Every pattern of f16, bf16, tf32 (with random
// low bits), e4m3 and e5m2 decodes as a formula written independently says (the compiler's
// _Float16, the top half of a float, e5m2 as the top byte of an f16, e4m3 by the OCP definition);
// every finite pattern encodes back to itself in every mode; random doubles and 64-bit magnitudes
// (ties, near-ties, subnormals, overflow) encode in every mode, with and without .satfinite, as a
// search over all values of the format says; the NaN, infinity and saturation rules of the PTX
// ISA; and what an H100 computed for the same conversions (tests/data/number_format_h100_*.tsv).
#include "tessel/codegen/number_format.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "algebra/support.hpp"
#include "tessel/algebra/error.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

const NumberFormat* const kFormats[] = {&kF16, &kBF16, &kTF32, &kE4M3, &kE5M2};
const Rounding kModes[] = {Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp, Rounding::Rna};

const char* mode_name(Rounding r) {
  switch (r) {
    case Rounding::Rn:
      return "rn";
    case Rounding::Rz:
      return "rz";
    case Rounding::Rm:
      return "rm";
    case Rounding::Rp:
      return "rp";
    case Rounding::Rna:
      return "rna";
  }
  return "?";
}

// The patterns of a format: 2^(1 + exponent + mantissa bits), pattern i in the container.
uint64_t pattern_count(const NumberFormat& f) { return uint64_t{1} << (1 + f.exponent_bits + f.mantissa_bits); }
uint64_t pattern(const NumberFormat& f, uint64_t i) { return i << f.low_bits; }

// Decoding written apart from number_format.cpp.
double reference_decode(const NumberFormat& f, uint64_t bits) {
  switch (f.type) {
    case Type::F16:
      return static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>(bits)));
    case Type::BF16:
      return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
    case Type::TF32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
    case Type::E5M2:  // e5m2 is an f16 cut to its top byte
      return static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>((bits & 0xff) << 8)));
    case Type::E4M3: {
      // OCP FP8 E4M3: S.EEEE.MMM, bias 7; E = 0: 2^-6 * M/8; else 2^(E-7) * (1 + M/8); S.1111.111: NaN.
      const int s = static_cast<int>(bits >> 7) & 1, e = static_cast<int>(bits >> 3) & 15,
                m = static_cast<int>(bits) & 7;
      if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
      const double mag = e == 0 ? std::pow(2.0, -6) * (m / 8.0) : std::pow(2.0, e - 7) * (1 + m / 8.0);
      return s ? -mag : mag;
    }
    default:
      FAIL("no reference for " << std::string(ptx_name(f.type)));
      return 0;
  }
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// All non-negative finite values of a format, ascending, from the independent decoding: the
// reference for rounding.
struct Table {
  std::vector<long double> values;
  std::vector<uint64_t> bits;
};

Table table_of(const NumberFormat& f) {
  Table t;
  for (uint64_t i = 0; i < pattern_count(f) / 2; ++i) {
    const double v = reference_decode(f, pattern(f, i));
    if (std::isfinite(v)) {
      t.values.push_back(v);
      t.bits.push_back(pattern(f, i));
    }
  }
  for (size_t i = 1; i < t.values.size(); ++i) REQUIRE(t.values[i - 1] < t.values[i]);
  return t;
}

// x rounded to f by search: the neighbours lo <= |x| < hi among the values, with one more value
// past the largest (largest + its ulp, the first value that does not exist) standing for overflow;
// to nearest, a tie goes to the even pattern (.rn) or to hi (.rna). Overflow: the largest finite
// value with .satfinite, else infinity (e4m3: NaN). x is a long double so that 64-bit magnitudes
// are exact.
uint64_t reference_encode(const Table& t, const NumberFormat& f, long double x, Rounding r, bool satfinite) {
  const bool neg = std::signbit(x);
  const uint64_t sign = neg ? f.sign_bit() : 0;
  const long double a = std::fabs(x);
  const size_t n = t.values.size();
  const long double beyond = t.values[n - 1] + (t.values[n - 1] - t.values[n - 2]);
  const size_t lo = static_cast<size_t>(std::upper_bound(t.values.begin(), t.values.end(), a) - t.values.begin()) - 1;
  if (t.values[lo] == a) return sign | t.bits[lo];
  const size_t hi = lo + 1;  // == n: beyond
  const long double hv = hi < n ? t.values[hi] : beyond;
  auto parity = [&](size_t i) {
    return i < n ? (t.bits[i] >> f.low_bits) & 1 : ((t.bits[n - 1] >> f.low_bits) + 1) & 1;
  };
  size_t pick;
  switch (r) {
    case Rounding::Rz:
      pick = lo;
      break;
    case Rounding::Rm:
      pick = neg ? hi : lo;
      break;
    case Rounding::Rp:
      pick = neg ? lo : hi;
      break;
    default: {
      const long double mid = (t.values[lo] + hv) / 2;  // exact: neighbours of at most 53 bits
      if (a < mid) {
        pick = lo;
      } else if (a > mid || a > beyond) {
        pick = hi;
      } else {
        pick = r == Rounding::Rna ? hi : parity(lo) == 0 ? lo : hi;
      }
    }
  }
  if (pick >= n) {
    if (satfinite) return sign | t.bits[n - 1];
    return f.specials == Specials::Ieee ? sign | f.infinity() : f.canonical_nan;
  }
  return sign | t.bits[pick];
}

// Random inputs for a format: midpoints of neighbours (ties) and the doubles either side, random
// points between neighbours, random doubles over the whole range and past it, values below the
// smallest subnormal; both signs.
std::vector<double> random_inputs(const Table& t, std::mt19937_64& rng, int count) {
  std::vector<double> xs;
  const size_t n = t.values.size();
  const double top = static_cast<double>(t.values[n - 1]), tiny = static_cast<double>(t.values[1]);
  int lo_exp = 0, hi_exp = 0;
  std::frexp(tiny, &lo_exp);
  std::frexp(top, &hi_exp);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < count; ++i) {
    const size_t k = static_cast<size_t>(test::uniform(rng, 0, static_cast<int64_t>(n) - 1));
    const double lo = static_cast<double>(t.values[k]);
    const double hi = k + 1 < n ? static_cast<double>(t.values[k + 1]) : 2 * top - static_cast<double>(t.values[n - 2]);
    const double mid = lo + (hi - lo) / 2;
    double x;
    switch (test::uniform(rng, 0, 5)) {
      case 0:
        x = mid;
        break;
      case 1:
        x = std::nextafter(mid, test::uniform(rng, 0, 1) ? 0.0 : HUGE_VAL);
        break;
      case 2:
        x = lo + (hi - lo) * unit(rng);
        break;
      case 3:  // a random 53-bit mantissa anywhere from below the smallest subnormal to past the largest
        x = std::ldexp(1.0 + unit(rng), static_cast<int>(test::uniform(rng, lo_exp - 4, hi_exp + 2)));
        break;
      case 4:
        x = tiny * unit(rng);
        break;
      default:
        x = std::ldexp(static_cast<double>(rng() >> 11),
                       static_cast<int>(test::uniform(rng, lo_exp - 60, hi_exp - 52)));
    }
    xs.push_back(test::uniform(rng, 0, 1) ? -x : x);
  }
  return xs;
}

// Text for failure messages (doctest's message builder takes strings and numbers, not manipulators).
std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
std::string mode_text(Rounding r, bool sat) { return std::string(" .") + mode_name(r) + (sat ? ".satfinite" : ""); }
std::string how(double x, Rounding r, bool sat) {
  std::ostringstream s;
  s << std::hexfloat << x << mode_text(r, sat);
  return s.str();
}

uint64_t hex_field(std::istringstream& in) {
  std::string s;
  in >> s;
  REQUIRE(!s.empty());
  return std::stoull(s, nullptr, 16);
}

}  // namespace

TEST_CASE("number_format: the formats, their limits and the types that name them") {
  CHECK(&number_format(Type::F16) == &kF16);
  CHECK(&number_format(Type::F16x2) == &kF16);
  CHECK(&number_format(Type::BF16x2) == &kBF16);
  CHECK(&number_format(Type::TF32) == &kTF32);
  CHECK(&number_format(Type::E4M3) == &kE4M3);
  CHECK(&number_format(Type::E5M2) == &kE5M2);
  CHECK(&number_format(Type::F32) == &kF32);
  CHECK(&number_format(Type::F64) == &kF64);
  CHECK_THROWS_WITH_AS(number_format(Type::S32), "number_format: s32 is not a floating-point type", Error);
  CHECK(has_number_format(Type::E5M2));
  CHECK_FALSE(has_number_format(Type::B16));
  CHECK(is_fp8(Type::E4M3));
  CHECK(is_fp8(Type::E5M2));
  CHECK_FALSE(is_fp8(Type::F16));
  CHECK_FALSE(is_fp8(Type::U8));

  // Largest finite values: 65504, 2^128 - 2^120, tf32's, 448, 57344; f32's and f64's own.
  CHECK(decode(kF16, kF16.max_finite()) == 65504.0);
  CHECK(kBF16.max_finite() == 0x7f7f);
  CHECK(kTF32.max_finite() == 0x7f7fe000);
  CHECK(decode(kE4M3, kE4M3.max_finite()) == 448.0);
  CHECK(decode(kE5M2, kE5M2.max_finite()) == 57344.0);
  CHECK(decode(kF32, kF32.max_finite()) == std::numeric_limits<float>::max());
  CHECK(decode(kF64, kF64.max_finite()) == std::numeric_limits<double>::max());
  CHECK(kE5M2.infinity() == 0x7c);
  CHECK(kTF32.infinity() == 0x7f800000);
  CHECK(kF16.sign_bit() == 0x8000);
  CHECK(kTF32.sign_bit() == 0x80000000u);
  CHECK(kTF32.container_bits() == 32);

  // Values from the OCP FP8 definition and IEEE 754.
  CHECK(decode_e4m3(0x38) == 1.0f);
  CHECK(decode_e4m3(0xb8) == -1.0f);
  CHECK(decode_e4m3(0x3c) == 1.5f);
  CHECK(decode_e4m3(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  CHECK(decode_e4m3(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(decode_e4m3(0x78) == 256.0f);                // E = 15 is an ordinary exponent in e4m3
  CHECK(std::isnan(decode_e4m3(0x7f)));
  CHECK(std::isnan(decode_e4m3(0xff)));
  CHECK(std::signbit(decode_e4m3(0x80)));
  CHECK(decode_e5m2(0x3c) == 1.0f);
  CHECK(decode_e5m2(0x04) == std::ldexp(1.0f, -14));
  CHECK(decode_e5m2(0x01) == std::ldexp(1.0f, -16));
  CHECK(decode_e5m2(0xfc) == -INFINITY);
  CHECK(std::isnan(decode_e5m2(0x7d)));
  CHECK(decode_f16(0x0001) == std::ldexp(1.0f, -24));
  CHECK(decode_f16(0xc000) == -2.0f);
  CHECK(decode_bf16(0x3f80) == 1.0f);
  CHECK(decode_tf32(0x3f801fff) == 1.0f);  // the low 13 bits are not part of the value
  CHECK(is_nan(kE4M3, 0xff));
  CHECK_FALSE(is_nan(kE4M3, 0x7e));
  CHECK(is_nan(kTF32, 0x7f802000));
  CHECK_FALSE(is_nan(kTF32, 0x7f801fff));  // infinity: only the low bits are set
}

TEST_CASE("number_format: every pattern decodes as an independent formula says") {
  TESSEL_RNG(rng);
  for (const NumberFormat* f : kFormats) {
    INFO(std::string(ptx_name(f->type)));
    int wrong = 0;
    for (uint64_t i = 0; i < pattern_count(*f); ++i) {
      // tf32: any low bits, which decoding ignores
      const uint64_t bits = pattern(*f, i) | (f->low_bits ? rng() & ((uint64_t{1} << f->low_bits) - 1) : 0);
      const double want = reference_decode(*f, bits), got = decode(*f, bits);
      if ((!same(got, want) || is_nan(*f, bits) != std::isnan(want)) && ++wrong <= 5)
        FAIL_CHECK(hex(bits) << ": decode " << got << ", formula " << want);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("number_format: every finite pattern encodes back to itself in every mode") {
  for (const NumberFormat* f : kFormats) {
    INFO(std::string(ptx_name(f->type)));
    int wrong = 0;
    for (uint64_t i = 0; i < pattern_count(*f); ++i) {
      const uint64_t bits = pattern(*f, i);
      const double v = decode(*f, bits);
      for (Rounding r : kModes) {
        for (bool sat : {false, true}) {
          uint64_t want = bits;
          if (std::isnan(v)) want = f->canonical_nan;
          if (std::isinf(v) && sat) want = (bits & f->sign_bit()) | f->max_finite();
          const uint64_t got = encode(*f, v, r, sat);
          if (got != want && ++wrong <= 5) FAIL_CHECK(hex(bits) << " as " << how(v, r, sat) << ": " << hex(got));
        }
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("number_format: encoding rounds random doubles as a search over all values does") {
  TESSEL_RNG(rng);
  for (const NumberFormat* f : kFormats) {
    INFO(std::string(ptx_name(f->type)));
    const Table t = table_of(*f);
    const std::vector<double> xs = random_inputs(t, rng, 6000);
    int wrong = 0;
    for (double x : xs) {
      for (Rounding r : kModes) {
        for (bool sat : {false, true}) {
          const uint64_t got = encode(*f, x, r, sat), want = reference_encode(t, *f, x, r, sat);
          if (got != want && ++wrong <= 8) {
            FAIL_CHECK(how(x, r, sat) << ": " << hex(got) << ", search " << hex(want));
          }
        }
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("number_format: encode_scaled rounds 64-bit magnitudes as the search does") {
  TESSEL_RNG(rng);
  for (const NumberFormat* f : kFormats) {
    INFO(std::string(ptx_name(f->type)));
    const Table t = table_of(*f);
    int lo_exp = 0, hi_exp = 0;
    std::frexp(static_cast<double>(t.values[1]), &lo_exp);
    std::frexp(static_cast<double>(t.values.back()), &hi_exp);
    int wrong = 0;
    for (int i = 0; i < 4000; ++i) {
      const uint64_t mag = rng() >> test::uniform(rng, 0, 63);  // 1 to 64 significant bits
      const int top = 64 - std::countl_zero(mag | 1);
      const int e = static_cast<int>(test::uniform(rng, lo_exp - 3, hi_exp + 1)) - top;
      const bool neg = test::uniform(rng, 0, 1) != 0;
      const long double x = std::ldexp(static_cast<long double>(mag), e) * (neg ? -1 : 1);  // exact
      for (Rounding r : kModes) {
        for (bool sat : {false, true}) {
          const uint64_t got = encode_scaled(*f, neg, mag, e, r, sat), want = reference_encode(t, *f, x, r, sat);
          if (got != want && ++wrong <= 8)
            FAIL_CHECK(mag << " * 2^" << e << mode_text(r, sat) << ": " << hex(got) << ", search " << hex(want));
        }
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("number_format: f32 and f64 round as the host does") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 20000; ++i) {
    const double x =
        std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), static_cast<int>(rng() % 320) - 160);
    CHECK(encode(kF32, x) == std::bit_cast<uint32_t>(static_cast<float>(x)));  // the host rounds to nearest even
    CHECK(encode(kF64, x) == std::bit_cast<uint64_t>(x));
    CHECK(decode(kF32, std::bit_cast<uint32_t>(static_cast<float>(x))) == static_cast<float>(x));
  }
}

TEST_CASE("number_format: NaN, infinity, overflow and .satfinite as the PTX ISA says") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  for (const NumberFormat* f : kFormats) {
    INFO(std::string(ptx_name(f->type)));
    for (Rounding r : kModes) {
      for (bool sat : {false, true}) {
        // cvt, .satfinite: "if the input value is NaN, then the result is NaN"; the GPU writes
        // one NaN whatever the input's sign.
        CHECK(encode(*f, nan, r, sat) == f->canonical_nan);
        CHECK(encode(*f, -nan, r, sat) == f->canonical_nan);
        CHECK(is_nan(*f, f->canonical_nan));
        // "If the absolute value of input (ignoring sign) is greater than MAX_NORM of the specified
        // destination format, then the result is sign-preserved MAX_NORM"; without .satfinite an
        // infinity stays one (e4m3 has none: NaN).
        const uint64_t big = f->specials == Specials::Ieee ? f->infinity() : f->canonical_nan;
        CHECK(encode(*f, inf, r, sat) == (sat ? f->max_finite() : big));
        CHECK(encode(*f, -inf, r, sat) == (sat                             ? f->sign_bit() | f->max_finite()
                                           : f->specials == Specials::Ieee ? f->sign_bit() | big
                                                                           : big));
        // Zeros keep their sign.
        CHECK(encode(*f, 0.0, r, sat) == 0);
        CHECK(encode(*f, -0.0, r, sat) == f->sign_bit());
      }
    }
  }
  // Overflow by rounding: to nearest at and past half an ulp beyond the largest value; toward zero
  // never; the directed modes on their side only.
  CHECK(encode_f16(65504.0) == 0x7bff);
  CHECK(encode_f16(65519.99) == 0x7bff);
  CHECK(encode_f16(65520.0) == 0x7c00);  // the tie with 2^16 rounds to the even pattern: infinity
  CHECK(encode_f16(-65520.0) == 0xfc00);
  CHECK(encode_f16(1e6, Rounding::Rz) == 0x7bff);
  CHECK(encode_f16(1e6, Rounding::Rm) == 0x7bff);
  CHECK(encode_f16(1e6, Rounding::Rp) == 0x7c00);
  CHECK(encode_f16(-1e6, Rounding::Rm) == 0xfc00);
  CHECK(encode_f16(-1e6, Rounding::Rp) == 0xfbff);
  CHECK(encode(kF16, 1e6, Rounding::Rn, true) == 0x7bff);
  CHECK(encode(kF16, -1e6, Rounding::Rp, true) == 0xfbff);
  // Subnormals, and ties there.
  CHECK(encode_f16(std::ldexp(1.0, -24)) == 0x0001);
  CHECK(encode_f16(std::ldexp(1.0, -25)) == 0x0000);  // half the smallest: ties to even (0)
  CHECK(encode_f16(std::ldexp(3.0, -25)) == 0x0002);  // 1.5 units: ties to even (2)
  CHECK(encode_f16(std::ldexp(1.0, -25), Rounding::Rna) == 0x0001);
  CHECK(encode_f16(-std::ldexp(1.0, -30), Rounding::Rm) == 0x8001);
  CHECK(encode_f16(std::ldexp(1.0, -30), Rounding::Rm) == 0x0000);
  CHECK(encode_f16(1.0 + std::ldexp(1.0, -11)) == 0x3c00);  // tie between 1 and 1 + 2^-10: even
  CHECK(encode_f16(1.0 + std::ldexp(3.0, -11)) == 0x3c02);
  CHECK(encode_bf16(1.0 + std::ldexp(1.0, -8)) == 0x3f80);
  CHECK(encode_bf16(1.0 + std::ldexp(3.0, -8)) == 0x3f82);
  CHECK(encode_bf16(std::ldexp(1.0, 128)) == 0x7f80);
  // tf32: .rna rounds a tie away from zero, .rn to even.
  CHECK(encode_tf32(1.0 + std::ldexp(1.0, -11)) == 0x3f802000);
  CHECK(encode_tf32(-(1.0 + std::ldexp(1.0, -11))) == 0xbf802000);
  CHECK(encode_tf32(1.0 + std::ldexp(1.0, -11), Rounding::Rn) == 0x3f800000);
  CHECK(encode_tf32(1.0 + std::ldexp(3.0, -11), Rounding::Rn) == 0x3f804000);
  // fp8 (cvt.rn.satfinite): 464 is the tie of 448 (S.1111.110, even) and the NaN pattern; past it
  // e4m3 saturates; e5m2 saturates where to nearest would give infinity.
  CHECK(encode_e4m3(464.0) == 0x7e);
  CHECK(encode_e4m3(465.0) == 0x7e);
  CHECK(encode(kE4M3, 465.0) == 0x7f);  // without .satfinite (no PTX form): NaN, e4m3 has no infinity
  CHECK(encode(kE4M3, 464.0) == 0x7e);
  CHECK(encode_e4m3(-1e9) == 0xfe);
  CHECK(encode_e4m3(std::ldexp(1.0, -10)) == 0x00);  // half the smallest subnormal: ties to even
  CHECK(encode_e4m3(std::ldexp(3.0, -11)) == 0x01);
  CHECK(encode_e5m2(61440.0) == 0x7b);
  CHECK(encode(kE5M2, 61440.0) == 0x7c);
  CHECK(encode(kE5M2, 61439.0) == 0x7b);
  CHECK(encode_e5m2(-inf) == 0xfb);
}

TEST_CASE("number_format: the benchmark's fp8 inputs are exact") {
  // tessel bench gemm draws fp8 inputs as multiples of 1/8 (e4m3) or 1/4 (e5m2) in [-2, 2]: every
  // one must be representable, so that tessel and cuBLAS see the same values and f32 sums of their
  // products are exact.
  for (int k = -16; k <= 16; ++k) CHECK(decode_e4m3(encode_e4m3(k / 8.0)) == k / 8.0f);
  for (int k = -8; k <= 8; ++k) CHECK(decode_e5m2(encode_e5m2(k / 4.0)) == k / 4.0f);
}

TEST_CASE("number_format: the conversions agree with an H100's") {
  std::ifstream in(TESSEL_TEST_DATA_DIR "/number_format_h100_cvt.tsv");
  REQUIRE(in.good());
  struct Column {
    const char* what;
    const NumberFormat& f;
    Rounding r;
    bool satfinite;
  };
  const Column columns[] = {
      {"cvt.rn.f16.f32", kF16, Rounding::Rn, false},
      {"cvt.rz.f16.f32", kF16, Rounding::Rz, false},
      {"cvt.rm.f16.f32", kF16, Rounding::Rm, false},
      {"cvt.rp.f16.f32", kF16, Rounding::Rp, false},
      {"cvt.rn.bf16.f32", kBF16, Rounding::Rn, false},
      {"cvt.rz.bf16.f32", kBF16, Rounding::Rz, false},
      {"cvt.rm.bf16.f32", kBF16, Rounding::Rm, false},
      {"cvt.rp.bf16.f32", kBF16, Rounding::Rp, false},
      {"cvt.rna.tf32.f32", kTF32, Rounding::Rna, false},
      {"cvt.rna.satfinite.tf32.f32", kTF32, Rounding::Rna, true},
      {"cvt.rn.tf32.f32", kTF32, Rounding::Rn, false},
      {"cvt.rz.tf32.f32", kTF32, Rounding::Rz, false},
      {"cvt.rn.satfinite.e4m3x2.f32", kE4M3, Rounding::Rn, true},
      {"cvt.rn.satfinite.e5m2x2.f32", kE5M2, Rounding::Rn, true},
  };
  std::string line;
  int rows = 0, wrong = 0, nans = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    const uint32_t bits = static_cast<uint32_t>(hex_field(s));
    const float x = std::bit_cast<float>(bits);
    ++rows;
    for (size_t c = 0; c < std::size(columns); ++c) {
      const Column& col = columns[c];
      const uint64_t gpu = hex_field(s);
      if (std::isnan(x) && col.r == Rounding::Rna) {
        // The quirk the header names: cvt.rna.tf32.f32 clears a NaN's low 13 bits (and then,
        // with .satfinite, steps a pattern whose exponent is all ones down by one unit).
        const uint32_t cut = bits & 0xffffe000u;
        CHECK(gpu == (col.satfinite && (cut & 0x7f800000u) == 0x7f800000u ? cut - 0x2000 : cut));
        ++nans;
        continue;
      }
      const uint64_t ours = encode(col.f, x, col.r, col.satfinite);
      if (ours != gpu && ++wrong <= 8)
        FAIL_CHECK(std::string(col.what) << " of " << hex(bits) << ": H100 " << hex(gpu) << ", number_format "
                                         << hex(ours));
    }
  }
  CHECK(rows > 1000);
  CHECK(nans > 10);
  CHECK(wrong == 0);

  // fp8 to f16 (cvt.rn.f16x2.e4m3x2, .e5m2x2): exact, NaN to f16's canonical NaN.
  std::ifstream dec(TESSEL_TEST_DATA_DIR "/number_format_h100_decode.tsv");
  REQUIRE(dec.good());
  int codes = 0;
  while (std::getline(dec, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    const uint64_t code = hex_field(s), e4m3 = hex_field(s), e5m2 = hex_field(s);
    INFO("fp8 code " << hex(code));
    CHECK(same(decode(kE4M3, code), decode(kF16, e4m3)));
    CHECK(same(decode(kE5M2, code), decode(kF16, e5m2)));
    CHECK(encode(kF16, decode(kE4M3, code)) == e4m3);
    CHECK(encode(kF16, decode(kE5M2, code)) == e5m2);
    ++codes;
  }
  CHECK(codes == 256);
}
