// fp8.hpp: the two 8-bit float formats of Hopper's tensor cores (OCP FP8) on the host: bit
// patterns to and from float, for the inputs of fp8 benchmarks and host references.
//
//   e4m3: 1 sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinity; S.1111.111 is NaN;
//         largest finite 448 (S.1111.110), smallest subnormal 2^-9.
//   e5m2: 1 sign, 5 exponent bits (bias 15), 2 mantissa bits; S.11111.00 is infinity,
//         S.11111.{01,10,11} NaN; largest finite 57344, smallest subnormal 2^-16.
//
// float_to_* rounds to nearest, ties to even, and saturates to the largest finite value (an
// infinity or a value past the largest included): what `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` does
// on the GPU. NaN becomes the NaN 0x7f with the input's sign bit.
#pragma once

#include <cstdint>

namespace tessel::bench {

float e4m3_to_float(uint8_t bits);
uint8_t float_to_e4m3(float f);
float e5m2_to_float(uint8_t bits);
uint8_t float_to_e5m2(float f);

inline constexpr float kE4m3Max = 448.0f;
inline constexpr float kE5m2Max = 57344.0f;

}  // namespace tessel::bench
