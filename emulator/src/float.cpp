// float.cpp: rounding to the IR's float formats in every PTX mode, on integers (see float.hpp).
#include "float.hpp"

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

#include "tessel/algebra/error.hpp"

namespace tessel::emu::detail {

using codegen::Round;
using codegen::Type;

Format format_of(Type t) {
  switch (t) {
    case Type::F16:
    case Type::F16x2:
      return kF16;
    case Type::BF16:
    case Type::BF16x2:
      return kBF16;
    case Type::TF32:
      return kTF32;
    case Type::F32:
      return kF32;
    case Type::F64:
      return kF64;
    default:
      fail(std::string("internal error: emulator: no float format for ") + codegen::ptx_name(t));
  }
}

uint64_t canonical_nan(Format f) {
  // f64 results are the default quiet NaN, narrower ones all ones but the sign (measured on an
  // H100: add.f64 gives 0x7ff8000000000000, add.f32 0x7fffffff, add.f16 0x7fff).
  if (f.ebits == 11) return 0x7ff8000000000000;
  return (uint64_t{1} << (f.ebits + f.mbits)) - 1;
}

double to_double(uint64_t bits, Format f) {
  if (f.ebits == 11) return std::bit_cast<double>(bits);
  if (f.ebits == 8 && f.mbits == 23) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  const bool neg = (bits >> (f.ebits + f.mbits)) & 1;
  const int emax = (1 << f.ebits) - 1, bias = (1 << (f.ebits - 1)) - 1;
  const int e = static_cast<int>((bits >> f.mbits) & emax);
  const uint64_t m = bits & ((uint64_t{1} << f.mbits) - 1);
  double v;
  if (e == emax) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - bias - f.mbits);
  } else {
    v = std::ldexp(static_cast<double>(m | (uint64_t{1} << f.mbits)), e - bias - f.mbits);
  }
  return neg ? -v : v;
}

namespace {

// Whether to add one unit to the truncated magnitude: `rest` is the dropped part, `half` its
// midpoint (rest and half compared as fractions of one unit), `odd` the kept last bit.
bool round_up(Round r, bool neg, bool odd, int cmp_half, bool inexact) {
  switch (r) {
    case Round::Rz:
    case Round::Rzi:
      return false;
    case Round::Rm:
    case Round::Rmi:
      return neg && inexact;
    case Round::Rp:
    case Round::Rpi:
      return !neg && inexact;
    default:  // to nearest, ties to even
      return cmp_half > 0 || (cmp_half == 0 && odd);
  }
}

}  // namespace

uint64_t round_to(Format f, bool neg, uint64_t mag, int exp2, Round r) {
  const uint64_t sign = neg ? uint64_t{1} << (f.ebits + f.mbits) : 0;
  if (mag == 0) return sign;
  const int bias = (1 << (f.ebits - 1)) - 1, emax = (1 << f.ebits) - 1;
  const int p = f.mbits + 1;
  // The value's binary exponent: mag has `top` significant bits.
  const int top = 64 - std::countl_zero(mag);
  const int e = exp2 + top - 1;
  // The quantum (weight of the last kept bit): normal numbers keep p bits, subnormals less.
  const int emin = 1 - bias;
  const int q = std::max(e, emin) - f.mbits;
  const int shift = q - exp2;  // bits of mag to drop
  uint64_t n;
  bool inexact = false;
  int cmp_half = -1;
  if (shift <= 0) {
    n = mag << -shift;  // exact; fits since top - shift <= p
  } else if (shift >= 64) {
    n = 0;
    inexact = true;
    cmp_half = shift == 64 ? (mag > (uint64_t{1} << 63) ? 1 : mag == (uint64_t{1} << 63) ? 0 : -1) : -1;
  } else {
    n = mag >> shift;
    const uint64_t rest = mag & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
    inexact = rest != 0;
    cmp_half = rest > half ? 1 : rest == half ? 0 : -1;
  }
  if (round_up(r, neg, n & 1, cmp_half, inexact)) ++n;
  int qe = q;
  if (n >> p) {  // carried into a new bit
    n >>= 1;
    ++qe;
  }
  const uint64_t max_finite = (uint64_t(emax - 1) << f.mbits) | ((uint64_t{1} << f.mbits) - 1);
  if (n < (uint64_t{1} << f.mbits)) return sign | n;  // subnormal (or zero)
  const int biased = qe + f.mbits + bias;
  if (biased >= emax) {
    const bool to_inf = r == Round::Rn || r == Round::None || (r == Round::Rp && !neg) || (r == Round::Rm && neg);
    return sign | (to_inf ? uint64_t(emax) << f.mbits : max_finite);
  }
  return sign | (uint64_t(biased) << f.mbits) | (n & ((uint64_t{1} << f.mbits) - 1));
}

uint64_t from_double(double x, Format f, Round r) {
  if (std::isnan(x)) return canonical_nan(f);
  const bool neg = std::signbit(x);
  const uint64_t sign = neg ? uint64_t{1} << (f.ebits + f.mbits) : 0;
  if (std::isinf(x)) return sign | (uint64_t((1 << f.ebits) - 1) << f.mbits);
  if (f.ebits == 11) return std::bit_cast<uint64_t>(x);
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t m = b & ((uint64_t{1} << 52) - 1);
  if (e == 0) return round_to(f, neg, m, -1074, r);
  return round_to(f, neg, m | (uint64_t{1} << 52), e - 1075, r);
}

double round_integral(double x, Round r) {
  switch (r) {
    case Round::Rzi:
    case Round::Rz:
      return std::trunc(x);
    case Round::Rmi:
    case Round::Rm:
      return std::floor(x);
    case Round::Rpi:
    case Round::Rp:
      return std::ceil(x);
    default:
      return std::nearbyint(x);  // the default host mode: to nearest even
  }
}

uint64_t to_integer(double x, int bits, bool is_signed, Round r) {
  if (std::isnan(x)) return 0;
  const double v = round_integral(x, r);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (is_signed) {
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);  // hi is exclusive
    if (v < lo) return (uint64_t{1} << (bits - 1)) & mask;
    if (v >= hi) return (uint64_t{1} << (bits - 1)) - 1;
    return static_cast<uint64_t>(static_cast<int64_t>(v)) & mask;
  }
  if (v <= 0) return 0;
  if (v >= std::ldexp(1.0, bits)) return mask;
  return static_cast<uint64_t>(v);
}

namespace {

int host_mode(Round r) {
  switch (r) {
    case Round::Rz:
      return FE_TOWARDZERO;
    case Round::Rm:
      return FE_DOWNWARD;
    case Round::Rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

bool directed(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp; }

// Runs fn with the host rounding mode of r. The operands pass through volatiles so that the
// compiler cannot move the arithmetic across the mode switches.
template <class Fn>
double in_mode(Round r, Fn fn) {
  if (!directed(r)) return fn();
  const int old = std::fegetround();
  std::fesetround(host_mode(r));
  volatile double v = fn();
  std::fesetround(old);
  return v;
}

}  // namespace

double fp_add(double a, double b, Round r) {
  volatile double x = a, y = b;
  return in_mode(r, [&] { return x + y; });
}
double fp_sub(double a, double b, Round r) {
  volatile double x = a, y = b;
  return in_mode(r, [&] { return x - y; });
}
double fp_mul(double a, double b, Round r) {
  volatile double x = a, y = b;
  return in_mode(r, [&] { return x * y; });
}
double fp_div(double a, double b, Round r) {
  volatile double x = a, y = b;
  return in_mode(r, [&] { return x / y; });
}
double fp_fma(double a, double b, double c, Round r) {
  volatile double x = a, y = b, z = c;
  return in_mode(r, [&] { return std::fma(x, y, z); });
}

double fma_round_to_odd(double a, double b, double c) {
  const double p = a * b;  // exact: both have at most 24 significant bits
  const double s = p + c;
  if (!std::isfinite(s)) return s;
  // TwoSum: err is exactly (p + c) - s.
  const double bb = s - p;
  const double err = (p - (s - bb)) + (c - bb);
  if (err == 0) return s;
  if (std::bit_cast<uint64_t>(s) & 1) return s;
  return std::nextafter(s,
                        err > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
}

}  // namespace tessel::emu::detail
