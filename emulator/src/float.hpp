// float.hpp: the floating-point formats of the IR (f16, bf16, tf32, f32, f64) as bit patterns:
// widening to double (exact) and rounding to a format in each PTX rounding mode, done on the
// integers so that every mode, subnormals and overflow follow IEEE 754 without the host's FPU.
#pragma once

#include <cstdint>

#include "tessel/codegen/ir.hpp"

namespace tessel::emu::detail {

struct Format {
  int ebits;  // exponent bits
  int mbits;  // stored mantissa bits
};
inline constexpr Format kF16{5, 10}, kBF16{8, 7}, kTF32{8, 10}, kF32{8, 23}, kF64{11, 52};

// The format of a float type (f16, bf16, tf32, f32, f64; the packed pairs give their half).
Format format_of(codegen::Type t);

// The NaN that arithmetic of a format produces: 0x7ff8000000000000 for f64, else sign clear with
// exponent and mantissa all ones (0x7fffffff for f32, 0x7fff for f16).
uint64_t canonical_nan(Format f);

// The exact value of a bit pattern.
double to_double(uint64_t bits, Format f);

// The value (-1)^neg * mag * 2^exp2 rounded to format f in mode r (Rn/None: to nearest even; Rz,
// Rm, Rp: toward zero, -inf, +inf), as bits. Overflow gives inf, or the largest finite value
// where the mode rounds toward zero.
uint64_t round_to(Format f, bool neg, uint64_t mag, int exp2, codegen::Round r);

// A double rounded to format f in mode r; NaN becomes the canonical NaN.
uint64_t from_double(double x, Format f, codegen::Round r);

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
