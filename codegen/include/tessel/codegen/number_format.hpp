// number_format.hpp: the number formats of tessel's kernels as bit patterns, in one place (as
// CUTLASS keeps numeric_types.h): f16, bf16, tf32, e4m3 and e5m2 (and f32, f64, which the
// emulator's arithmetic rounds to the same way). Decoding is exact; encoding rounds in every mode
// of PTX's cvt (.rn, .rz, .rm, .rp, and .rna, which only the conversion to tf32 has), with or
// without .satfinite, and follows each format's NaN, infinity and overflow rules. Host references,
// checks, the emulator (cvt, immediates, wgmma operands) and the tools all use it; nothing else
// in tessel spells a format's bits.
//
// Formats (PTX ISA, 5.2.3 "Alternate Floating-Point Data Formats", and IEEE 754):
//   f16   1.5.10  bias 15   IEEE: exponent 11111 is infinity (mantissa 0) or NaN
//   bf16  1.8.7   bias 127  IEEE; the top half of an f32
//   tf32  1.8.10  bias 127  IEEE; kept in 32 bits as an f32 whose low 13 mantissa bits are 0
//                           (an encoding writes them 0, a decoding ignores them, as wgmma does)
//   e4m3  1.4.3   bias 7    no infinity; only S.1111.111 is NaN (0x7f, 0xff); largest 448
//   e5m2  1.5.2   bias 15   IEEE: S.11111.00 is infinity, S.11111.{01,10,11} NaN; largest 57344
//   f32   1.8.23, f64 1.11.52
#pragma once

#include <cstdint>

#include "tessel/codegen/types.hpp"

namespace tessel::codegen {

// How a format spends its largest exponent.
enum class Specials : uint8_t {
  Ieee,     // infinity (mantissa 0) and NaNs (any other mantissa)
  NanOnly,  // no infinity: ordinary values, but with the all-ones mantissa NaN (e4m3, the OCP "FN" kind)
};

// The rounding modes of cvt to a float format: to nearest with ties to even (.rn), toward zero
// (.rz), toward -inf (.rm), toward +inf (.rp), to nearest with ties away from zero (.rna).
enum class Rounding : uint8_t { Rn, Rz, Rm, Rp, Rna };

struct NumberFormat {
  Type type;  // the PTX type that names it: f16, bf16, tf32, e4m3, e5m2, f32, f64
  int exponent_bits;
  int mantissa_bits;  // stored (explicit) mantissa bits
  int low_bits;       // zero bits below the mantissa in the container (tf32: 13), else 0
  Specials specials;
  uint64_t canonical_nan;  // the NaN that the GPU writes for this format (see kF16 ... below)

  constexpr int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  constexpr int container_bits() const { return 1 + exponent_bits + mantissa_bits + low_bits; }
  // In the container: the sign bit, the largest finite value, infinity (Ieee formats only).
  constexpr uint64_t sign_bit() const { return uint64_t{1} << (container_bits() - 1); }
  constexpr uint64_t max_finite() const {
    const uint64_t ones = (uint64_t{1} << mantissa_bits) - 1, top = (uint64_t{1} << exponent_bits) - 1;
    const uint64_t field =
        specials == Specials::Ieee ? ((top - 1) << mantissa_bits) | ones : (top << mantissa_bits) | (ones - 1);
    return field << low_bits;
  }
  constexpr uint64_t infinity() const { return ((uint64_t{1} << exponent_bits) - 1) << (mantissa_bits + low_bits); }
};

// The canonical NaNs were measured on an H100 (driver 580, 2026-11-24): every cvt from f32 to
// f16 or bf16 (.rn/.rz/.rm/.rp), to tf32 (.rn/.rz) and to e4m3/e5m2 (.rn.satfinite) writes this
// one pattern whatever the input NaN's sign and payload; f32 arithmetic writes 0x7fffffff, and
// f64's is the default quiet NaN (docs/emulator.md, "NaN encodings"). Exception, not modelled here:
// cvt.rna{.satfinite}.tf32.f32 is an integer round on the bits that lets a NaN through with its
// low 13 bits cleared (0x7f800001 becomes infinity, and with .satfinite the largest finite value);
// tessel never converts a NaN to tf32.
inline constexpr NumberFormat kF16{Type::F16, 5, 10, 0, Specials::Ieee, 0x7fff};
inline constexpr NumberFormat kBF16{Type::BF16, 8, 7, 0, Specials::Ieee, 0x7fff};
inline constexpr NumberFormat kTF32{Type::TF32, 8, 10, 13, Specials::Ieee, 0x7fffe000};
inline constexpr NumberFormat kE4M3{Type::E4M3, 4, 3, 0, Specials::NanOnly, 0x7f};
inline constexpr NumberFormat kE5M2{Type::E5M2, 5, 2, 0, Specials::Ieee, 0x7f};
inline constexpr NumberFormat kF32{Type::F32, 8, 23, 0, Specials::Ieee, 0x7fffffff};
inline constexpr NumberFormat kF64{Type::F64, 11, 52, 0, Specials::Ieee, 0x7ff8000000000000};

// The format of a float type; a packed pair (f16x2, bf16x2) gives its element's. Throws
// tessel::Error naming the type for anything else.
const NumberFormat& number_format(Type t);
bool has_number_format(Type t);  // whether number_format(t) is defined
bool is_fp8(Type t);             // e4m3 or e5m2

// The exact value of a bit pattern of f (bits above the container are ignored, and tf32's low 13
// bits): subnormals, signed zeros, +-infinity, and NaN (with the pattern's sign) for every NaN.
double decode(const NumberFormat& f, uint64_t bits);
bool is_nan(const NumberFormat& f, uint64_t bits);

// x rounded to f in mode r, as bits of f's container:
//   NaN: f's canonical NaN (PTX ISA, cvt: with .satfinite "the result is NaN").
//   Overflow (|x| rounds past the largest finite value, or x is infinite): the largest finite
//     value with x's sign where r rounds toward zero (.rz; .rm for x > 0; .rp for x < 0) or with
//     `satfinite` (PTX ISA, cvt, .satfinite: "sign-preserved MAX_NORM"); otherwise infinity with
//     x's sign, or for e4m3, which has none, its NaN.
//   Rounding of finite values as IEEE 754 defines it, subnormals included (no flush to zero).
// PTX has these conversions to fp8 only as cvt.rn.satfinite; the other combinations are here for
// the emulator's and the tests' use of the same rules.
uint64_t encode(const NumberFormat& f, double x, Rounding r = Rounding::Rn, bool satfinite = false);

// The same for the exact value (-1)^negative * magnitude * 2^exponent (a 64-bit integer is not
// always exact in a double: the emulator's cvt from u64/s64 rounds through this).
uint64_t encode_scaled(const NumberFormat& f, bool negative, uint64_t magnitude, int exponent, Rounding r,
                       bool satfinite = false);

// Shorthands for host code (test data, host references): each decode is exact in a float, each
// encode is the cvt of the same name from a value given as a double (a float converts exactly).
inline float decode_f16(uint16_t h) { return static_cast<float>(decode(kF16, h)); }
inline float decode_bf16(uint16_t h) { return static_cast<float>(decode(kBF16, h)); }
inline float decode_tf32(uint32_t t) { return static_cast<float>(decode(kTF32, t)); }
inline float decode_e4m3(uint8_t b) { return static_cast<float>(decode(kE4M3, b)); }
inline float decode_e5m2(uint8_t b) { return static_cast<float>(decode(kE5M2, b)); }
// cvt{.rn,.rz,.rm,.rp}.f16.f32, ...bf16.f32
inline uint16_t encode_f16(double x, Rounding r = Rounding::Rn) { return static_cast<uint16_t>(encode(kF16, x, r)); }
inline uint16_t encode_bf16(double x, Rounding r = Rounding::Rn) { return static_cast<uint16_t>(encode(kBF16, x, r)); }
// cvt.rna.tf32.f32 by default (the form sm_80 has; .rn and .rz came with sm_90)
inline uint32_t encode_tf32(double x, Rounding r = Rounding::Rna) { return static_cast<uint32_t>(encode(kTF32, x, r)); }
// cvt.rn.satfinite.e4m3x2.f32 and .e5m2x2.f32, one element (the only PTX conversions to fp8)
inline uint8_t encode_e4m3(double x) { return static_cast<uint8_t>(encode(kE4M3, x, Rounding::Rn, true)); }
inline uint8_t encode_e5m2(double x) { return static_cast<uint8_t>(encode(kE5M2, x, Rounding::Rn, true)); }

}  // namespace tessel::codegen
