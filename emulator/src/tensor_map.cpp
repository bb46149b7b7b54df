// tensor_map.cpp: the emulator's TMA descriptor encoding, written by encode_tensor_map and read
// by the cp.async.bulk.tensor of block.cpp (layout in src/tensor_map.hpp).
#include "tensor_map.hpp"

#include "fault.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/emulator/memory.hpp"
#include "tessel/emulator/tensor_map.hpp"

namespace tessel::emu {

namespace detail {

uint64_t tensor_map_checksum(const std::array<uint64_t, 16>& w) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (int i = 0; i < 15; ++i) {
    h ^= w[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

TmaMap decode_tensor_map(const std::array<uint64_t, 16>& w) {
  if (w[0] != kTensorMapMagic) {
    fault("invalid tensor map", "tensor map not made by emu::encode_tensor_map (its first word is " + hex(w[0]) +
                                    ", not the emulator's magic " + hex(kTensorMapMagic) +
                                    "; a driver-encoded CUtensorMap cannot run on the emulator)");
  }
  if (w[15] != tensor_map_checksum(w)) {
    fault("invalid tensor map", "the tensor map's checksum does not match its contents (was it modified?)");
  }
  TmaMap m;
  m.type = static_cast<rt::TensorMapDataType>(w[1] & 0xff);
  m.rank = static_cast<int>((w[1] >> 8) & 0xff);
  m.swizzle = static_cast<rt::TensorMapSwizzle>((w[1] >> 16) & 0xff);
  m.oob = static_cast<rt::TensorMapOobFill>((w[1] >> 32) & 0xff);
  m.esize = static_cast<int>((w[1] >> 48) & 0xff);
  m.address = w[2];
  for (int d = 0; d < 5; ++d) {
    m.dims[d] = d < m.rank ? w[3 + d] : 1;
    m.strides[d] = d == 0 ? static_cast<uint64_t>(m.esize) : d < m.rank ? w[7 + d] : 0;
    m.box[d] = d < m.rank ? static_cast<int>((w[12] >> (8 * d)) & 0xff) + 1 : 1;
    m.estride[d] = d < m.rank ? static_cast<int>((w[13] >> (4 * d)) & 0xf) + 1 : 1;
  }
  return m;
}

}  // namespace detail

rt::TensorMap encode_tensor_map(const rt::TensorMapSpec& spec, uint64_t global_address) {
  rt::validate_tensor_map(spec, global_address);
  if (spec.interleave != rt::TensorMapInterleave::None) {
    fail("emu::encode_tensor_map: interleave " + rt::to_string(spec.interleave) +
         " is not emulated (only TensorMapInterleave::None)");
  }
  const size_t rank = spec.dims.size();
  const uint64_t esize = static_cast<uint64_t>(rt::element_bytes(spec.type));
  rt::TensorMap map;
  auto& w = map.words;
  w[0] = kTensorMapMagic;
  w[1] = static_cast<uint64_t>(spec.type) | rank << 8 | static_cast<uint64_t>(spec.swizzle) << 16 |
         static_cast<uint64_t>(spec.interleave) << 24 | static_cast<uint64_t>(spec.oob_fill) << 32 |
         static_cast<uint64_t>(spec.l2_promotion) << 40 | esize << 48;
  w[2] = global_address;
  for (size_t d = 0; d < rank; ++d) {
    w[3 + d] = static_cast<uint64_t>(spec.dims[d]);
    if (d > 0) w[7 + d] = static_cast<uint64_t>(spec.strides[d]) * esize;
    w[12] |= static_cast<uint64_t>(spec.box[d] - 1) << (8 * d);
    const int64_t es = spec.element_strides.empty() ? 1 : spec.element_strides[d];
    w[13] |= static_cast<uint64_t>(es - 1) << (4 * d);
  }
  w[15] = detail::tensor_map_checksum(w);
  return map;
}

}  // namespace tessel::emu
