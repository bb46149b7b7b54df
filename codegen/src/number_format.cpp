// number_format.cpp: decoding and rounding of the number formats (see number_format.hpp), on
// integers, so that every mode, subnormals and overflow follow IEEE 754 without the host's FPU.
#include "tessel/codegen/number_format.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

const NumberFormat& number_format(Type t) {
  switch (t) {
    case Type::F16:
    case Type::F16x2:
      return kF16;
    case Type::BF16:
    case Type::BF16x2:
      return kBF16;
    case Type::TF32:
      return kTF32;
    case Type::E4M3:
      return kE4M3;
    case Type::E5M2:
      return kE5M2;
    case Type::F32:
      return kF32;
    case Type::F64:
      return kF64;
    default:
      fail(std::string("number_format: ") + ptx_name(t) + " is not a floating-point type");
  }
}

bool has_number_format(Type t) { return is_float(t); }  // every floating type has a format

bool is_fp8(Type t) { return t == Type::E4M3 || t == Type::E5M2; }

namespace {

// The fields of a pattern, with the container's low bits (tf32) and high bits dropped.
struct Fields {
  bool negative;
  uint64_t exponent, mantissa;
};

Fields fields_of(const NumberFormat& f, uint64_t bits) {
  const uint64_t v = bits >> f.low_bits;
  return {((v >> (f.exponent_bits + f.mantissa_bits)) & 1) != 0,
          (v >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1), v & ((uint64_t{1} << f.mantissa_bits) - 1)};
}

bool nan_fields(const NumberFormat& f, const Fields& x) {
  const uint64_t top = (uint64_t{1} << f.exponent_bits) - 1, ones = (uint64_t{1} << f.mantissa_bits) - 1;
  if (x.exponent != top) return false;
  return f.specials == Specials::Ieee ? x.mantissa != 0 : x.mantissa == ones;
}

// Whether to add one unit to the truncated magnitude: cmp_half compares the dropped part with
// half a unit (-1, 0, 1), `odd` is the kept last bit.
bool round_up(Rounding r, bool negative, bool odd, int cmp_half, bool inexact) {
  switch (r) {
    case Rounding::Rz:
      return false;
    case Rounding::Rm:
      return negative && inexact;
    case Rounding::Rp:
      return !negative && inexact;
    case Rounding::Rna:
      return cmp_half >= 0 && inexact;
    case Rounding::Rn:
      break;
  }
  return cmp_half > 0 || (cmp_half == 0 && odd);
}

// The result of a value past the largest finite one (see encode in the header).
uint64_t overflow(const NumberFormat& f, bool negative, Rounding r, bool satfinite) {
  const uint64_t sign = negative ? f.sign_bit() : 0;
  const bool toward_zero = r == Rounding::Rz || (r == Rounding::Rm && !negative) || (r == Rounding::Rp && negative);
  if (toward_zero || satfinite) return sign | f.max_finite();
  if (f.specials == Specials::Ieee) return sign | f.infinity();
  return f.canonical_nan;  // e4m3: no infinity (OCP FP8: overflow without saturation is NaN)
}

}  // namespace

double decode(const NumberFormat& f, uint64_t bits) {
  if (f.type == Type::F64) return std::bit_cast<double>(bits);
  if (f.type == Type::F32) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  const Fields x = fields_of(f, bits);
  double v;
  if (nan_fields(f, x)) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (f.specials == Specials::Ieee && x.exponent == (uint64_t{1} << f.exponent_bits) - 1) {
    v = std::numeric_limits<double>::infinity();
  } else if (x.exponent == 0) {  // zero and subnormals: m * 2^(1 - bias - mantissa_bits)
    v = std::ldexp(static_cast<double>(x.mantissa), 1 - f.bias() - f.mantissa_bits);
  } else {  // normal: (2^mantissa_bits + m) * 2^(e - bias - mantissa_bits)
    v = std::ldexp(static_cast<double>(x.mantissa | (uint64_t{1} << f.mantissa_bits)),
                   static_cast<int>(x.exponent) - f.bias() - f.mantissa_bits);
  }
  return x.negative ? -v : v;
}

bool is_nan(const NumberFormat& f, uint64_t bits) { return nan_fields(f, fields_of(f, bits)); }

uint64_t encode_scaled(const NumberFormat& f, bool negative, uint64_t magnitude, int exponent, Rounding r,
                       bool satfinite) {
  const uint64_t sign = negative ? f.sign_bit() : 0;
  if (magnitude == 0) return sign;
  const int m = f.mantissa_bits;
  // The value's binary exponent: magnitude has `top` significant bits.
  const int top = 64 - std::countl_zero(magnitude);
  const int e = exponent + top - 1;
  // The quantum (weight of the last kept bit): normal numbers keep m + 1 bits, subnormals fewer.
  const int emin = 1 - f.bias();
  const int q = std::max(e, emin) - m;
  const int shift = q - exponent;  // bits of magnitude to drop
  uint64_t n;
  bool inexact = false;
  int cmp_half = -1;
  if (shift <= 0) {
    n = magnitude << -shift;  // exact; fits since top - shift <= m + 1
  } else if (shift >= 64) {
    n = 0;
    inexact = true;
    const uint64_t half = uint64_t{1} << 63;  // compared only when shift == 64
    cmp_half = shift > 64 ? -1 : magnitude > half ? 1 : magnitude == half ? 0 : -1;
  } else {
    n = magnitude >> shift;
    const uint64_t rest = magnitude & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
    inexact = rest != 0;
    cmp_half = rest > half ? 1 : rest == half ? 0 : -1;
  }
  if (round_up(r, negative, (n & 1) != 0, cmp_half, inexact)) ++n;
  int qe = q;
  if (n >> (m + 1)) {  // the carry reached a new binade
    n >>= 1;
    ++qe;
  }
  if (n < (uint64_t{1} << m)) return sign | (n << f.low_bits);  // subnormal, or zero
  const int64_t biased = int64_t{qe} + m + f.bias();
  if (biased >= (int64_t{1} << f.exponent_bits)) return overflow(f, negative, r, satfinite);
  const uint64_t bits = ((static_cast<uint64_t>(biased) << m) | (n & ((uint64_t{1} << m) - 1))) << f.low_bits;
  if (bits > f.max_finite()) return overflow(f, negative, r, satfinite);
  return sign | bits;
}

uint64_t encode(const NumberFormat& f, double x, Rounding r, bool satfinite) {
  if (std::isnan(x)) return f.canonical_nan;
  const bool negative = std::signbit(x);
  if (std::isinf(x)) return overflow(f, negative, Rounding::Rn, satfinite);
  if (f.type == Type::F64) return std::bit_cast<uint64_t>(x);
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t m = b & ((uint64_t{1} << 52) - 1);
  if (e == 0) return encode_scaled(f, negative, m, -1074, r, satfinite);
  return encode_scaled(f, negative, m | (uint64_t{1} << 52), e - 1075, r, satfinite);
}

}  // namespace tessel::codegen
