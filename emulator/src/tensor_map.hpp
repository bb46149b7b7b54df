// tensor_map.hpp (private): the emulator's tensor-map encoding read back (see
// tessel/emulator/tensor_map.hpp for the writer). Word layout of the 128 bytes:
//   w0 magic; w1 type | rank << 8 | swizzle << 16 | interleave << 24 | oob fill << 32 |
//   l2 promotion << 40 | element bytes << 48; w2 global address; w3..w7 dims; w8..w11 byte strides
//   of dims 1..4; w12 box - 1 (8 bits per dim); w13 element stride - 1 (4 bits per dim);
//   w14 zero; w15 checksum of w0..w14.
#pragma once

#include <array>
#include <cstdint>

#include "tessel/runtime/tensor_map.hpp"

namespace tessel::emu::detail {

struct TmaMap {
  rt::TensorMapDataType type = rt::TensorMapDataType::U8;
  int rank = 0;
  int esize = 1;  // element bytes
  rt::TensorMapSwizzle swizzle = rt::TensorMapSwizzle::None;
  rt::TensorMapOobFill oob = rt::TensorMapOobFill::None;
  uint64_t address = 0;
  std::array<uint64_t, 5> dims{};     // elements
  std::array<uint64_t, 5> strides{};  // bytes (strides[0] = esize)
  std::array<int, 5> box{};           // elements
  std::array<int, 5> estride{};       // traversal steps
};

uint64_t tensor_map_checksum(const std::array<uint64_t, 16>& w);

// Reads the 128 bytes of a map; throws Fault ("invalid tensor map") without the magic word or
// with a wrong checksum.
TmaMap decode_tensor_map(const std::array<uint64_t, 16>& w);

}  // namespace tessel::emu::detail
