// fp8.cpp: e4m3 and e5m2 to and from float (see fp8.hpp), written once for both formats from
// their exponent and mantissa widths.
#include "fp8.hpp"

#include <cmath>

namespace tessel::bench {

namespace {

struct Format {
  int exponent_bits, mantissa_bits, bias;
  bool has_infinity;  // e5m2: the top exponent is infinity/NaN; e4m3: only S.1111.111 is NaN
  float max_finite;
};

constexpr Format kE4m3{4, 3, 7, false, kE4m3Max};
constexpr Format kE5m2{5, 2, 15, true, kE5m2Max};

float decode(const Format& f, uint8_t bits) {
  const int mantissa_mask = (1 << f.mantissa_bits) - 1;
  const int exponent_max = (1 << f.exponent_bits) - 1;
  const bool negative = (bits & 0x80) != 0;
  const int e = (bits >> f.mantissa_bits) & exponent_max;
  const int m = bits & mantissa_mask;
  double v;
  if (f.has_infinity && e == exponent_max) {
    v = m == 0 ? INFINITY : NAN;
  } else if (!f.has_infinity && e == exponent_max && m == mantissa_mask) {
    v = NAN;
  } else if (e == 0) {  // subnormal: m * 2^(1 - bias - mantissa_bits)
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mantissa_bits);
  } else {  // normal: (2^mantissa_bits + m) * 2^(e - bias - mantissa_bits)
    v = std::ldexp(static_cast<double>((1 << f.mantissa_bits) + m), e - f.bias - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -v : v);
}

uint8_t encode(const Format& f, float x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x)) return sign | 0x7f;
  double a = std::fabs(static_cast<double>(x));
  if (a == 0) return sign;
  const int min_exponent = 1 - f.bias;  // of the normal numbers (and the subnormals' scale)
  // The quantum at a's binade (the subnormals share the smallest normal binade's quantum):
  // a = mant * 2^exp with mant in [0.5, 1), so a's binade is 2^(exp-1).
  if (std::isinf(a) || a > f.max_finite) return sign | encode(f, f.max_finite);
  int exp = 0;
  std::frexp(a, &exp);
  const int binade = exp - 1 < min_exponent ? min_exponent : exp - 1;
  const double quantum = std::ldexp(1.0, binade - f.mantissa_bits);
  // a / quantum is exact (a power-of-two scaling of a float); nearbyint rounds to nearest even
  // in the default rounding mode. A result of 2^(mantissa_bits+1) is the next binade's first value.
  const double q = std::nearbyint(a / quantum);
  a = q * quantum;
  if (a > f.max_finite) a = f.max_finite;  // rounded past the largest finite: saturate
  if (a == 0) return sign;                 // rounded down to zero below half the smallest subnormal
  std::frexp(a, &exp);
  if (exp - 1 < min_exponent) {  // subnormal: exponent field 0, mantissa = a / 2^(min_exponent - mantissa_bits)
    const int m = static_cast<int>(std::ldexp(a, f.mantissa_bits - min_exponent));
    return sign | static_cast<uint8_t>(m);
  }
  const int e_field = exp - 1 + f.bias;
  const int m = static_cast<int>(std::ldexp(a, f.mantissa_bits - (exp - 1))) - (1 << f.mantissa_bits);
  return sign | static_cast<uint8_t>((e_field << f.mantissa_bits) | m);
}

}  // namespace

float e4m3_to_float(uint8_t bits) { return decode(kE4m3, bits); }
uint8_t float_to_e4m3(float f) { return encode(kE4m3, f); }
float e5m2_to_float(uint8_t bits) { return decode(kE5m2, bits); }
uint8_t float_to_e5m2(float f) { return encode(kE5m2, f); }

}  // namespace tessel::bench
