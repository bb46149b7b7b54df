// tensor_map.hpp: TMA descriptors for the emulator. On a GPU the 128-byte CUtensorMap is the
// driver's opaque encoding (rt::encode_tensor_map); the emulator cannot read that, so a plan that
// runs on the emulator carries the emulator's own self-describing encoding of the same
// rt::TensorMapSpec in the same 128 bytes, made here.
#pragma once

#include <cstdint>

#include "tessel/runtime/tensor_map.hpp"

namespace tessel::emu {

// The first word of every map encode_tensor_map makes ("TsEmTMap" in little-endian ASCII). A
// cp.async.bulk.tensor whose map lacks it fails with "tensor map not made by emu::encode_tensor_map".
inline constexpr uint64_t kTensorMapMagic = 0x70614d546d457354ull;

// Validates `spec` at `global_address` (rt::validate_tensor_map: the driver's documented rules,
// tessel::Error naming the value otherwise), then encodes it for the emulator: the magic word,
// the data type, rank, dims, byte strides, box, element strides, swizzle, interleave, L2
// promotion, OOB fill and the address, and a checksum over all of them. Interleaved layouts
// (TensorMapInterleave::B16/B32) are refused: the emulator does not run them. Takes the place
// of rt::encode_tensor_map in a kernel's host side when the plan goes to emu::run.
rt::TensorMap encode_tensor_map(const rt::TensorMapSpec& spec, uint64_t global_address);

}  // namespace tessel::emu
