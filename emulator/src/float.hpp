// float.hpp: float arithmetic of the emulator: the number formats themselves (decoding, rounding
// in every mode, NaNs, overflow) are codegen/number_format.hpp's; here are the IR's rounding
// modifiers in its terms, conversion to integers, and the four operations and fma in double with
// the host's rounding mode, which the result is then rounded from.
#pragma once

#include <cstdint>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/number_format.hpp"

namespace tessel::emu::detail {

using codegen::NumberFormat;

// The rounding of a float result for an instruction's modifier: .rz/.rm/.rp (and the integral
// .rzi/.rmi/.rpi) their direction, everything else (.rn, .rni, none) to nearest even.
codegen::Rounding rounding_of(codegen::Round r);

// A double rounded to an integer in mode r (Rni, Rzi, Rmi, Rpi; the plain modes as their integer
// forms), saturated to the range of an integer of `bits` bits, signed or not; NaN gives 0
// (PTX ISA, cvt: float-to-integer conversions saturate).
uint64_t to_integer(double x, int bits, bool is_signed, codegen::Round r);

// A double rounded to an integral value in mode r (cvt.rni.f32.f32 and friends).
double round_integral(double x, codegen::Round r);

// Float-typed arithmetic in double with the host rounding mode set for the directed modes (the
// result is then rounded to the narrow format in the same mode: two roundings in one direction
// are one, and to nearest a double has more than 2p+2 bits for every narrower format).
double fp_add(double a, double b, codegen::Round r);
double fp_sub(double a, double b, codegen::Round r);
double fp_mul(double a, double b, codegen::Round r);
double fp_div(double a, double b, codegen::Round r);
double fp_fma(double a, double b, double c, codegen::Round r);
// a*b + c for formats narrower than f32, rounded to odd in double so that the final rounding to
// the narrow format to nearest is exact (a*b is exact in double for them).
double fma_round_to_odd(double a, double b, double c);

}  // namespace tessel::emu::detail
