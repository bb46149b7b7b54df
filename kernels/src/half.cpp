// half.cpp: see half.hpp.
#include "tessel/kernels/half.hpp"

#include <cmath>
#include <cstring>

namespace tessel::kernels {

namespace {
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

float f16_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  if (exp == 0x1f) return float_of(sign | 0x7f800000u | (man << 13));  // inf, NaN
  if (exp == 0) {                                                       // zero, subnormal: man * 2^-24
    const float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return float_of(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_f16(float f) {
  const uint32_t u = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7e00u);
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past the largest finite
  if (a < 0x1p-14f) {
    // Subnormal (or zero): a multiple of 2^-24, rounded to nearest even by the float addition
    // of 2^-24 * 2^23 (which leaves exactly the integer part's last bits in the mantissa).
    const float r = a * 0x1p24f;        // exact: a scaled to units of 2^-24
    const float n = std::nearbyint(r);  // round half to even (default rounding mode)
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(n));
  }
  // Normal: keep 10 of the 23 mantissa bits, rounding half to even; a carry bumps the exponent.
  uint32_t e = ((u >> 23) & 0xff) - 112, m = u & 0x7fffffu;
  uint32_t h = (e << 10) | (m >> 13);
  const uint32_t rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float bf16_to_float(uint16_t h) { return float_of(static_cast<uint32_t>(h) << 16); }

uint16_t float_to_bf16(float f) {
  const uint32_t u = bits_of(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40u);  // stays a (quiet) NaN
  const uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);             // half to even; overflow reaches inf
  return static_cast<uint16_t>(rounded >> 16);
}

}  // namespace tessel::kernels
