// half.hpp: f16 and bf16 bit patterns to and from float on the host, rounding to nearest even
// (subnormals, overflow to infinity and NaN included): what cvt.rn.f16.f32 / cvt.rn.bf16.f32
// and their inverses do on the GPU. For host references and test data.
#pragma once

#include <cstdint>

namespace tessel::kernels {

float f16_to_float(uint16_t h);
uint16_t float_to_f16(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

}  // namespace tessel::kernels
