// float.cpp: see float.hpp.
#include "float.hpp"

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>


namespace tessel::emu::detail {

using codegen::Round;
using codegen::Rounding;

Rounding rounding_of(Round r) {
  switch (r) {
    case Round::Rz:
    case Round::Rzi:
      return Rounding::Rz;
    case Round::Rm:
    case Round::Rmi:
      return Rounding::Rm;
    case Round::Rp:
    case Round::Rpi:
      return Rounding::Rp;
    default:
      return Rounding::Rn;
  }
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
