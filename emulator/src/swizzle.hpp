// swizzle.hpp: the 16-byte-chunk swizzles of shared memory that TMA writes and wgmma reads
// (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B; the matrix descriptor's swizzle modes): bits [4, 4+B) of a
// shared byte address are XORed with bits [7, 7+B), B = 1, 2, 3 for 32, 64, 128 bytes, i.e.
// Sw<B,4,3> on byte addresses. The pattern repeats every 256, 512, 1024 bytes and is a function
// of the address itself (the TMA and wgmma alignment rules make it one of the buffer offset too).
// Written here from the PTX ISA ("Shared Memory Matrix Layout", the swizzle figures) and the CUDA
// programming guide (TMA swizzle), independently of codegen's element_swizzle.
#pragma once

#include <cstdint>

namespace tessel::emu::detail {

// B for a swizzle span of `bytes` (16: none, B = 0).
inline int swizzle_bits(int bytes) { return bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0; }

inline uint32_t swizzle_address(uint32_t addr, int b) {
  return addr ^ (((addr >> 7) & ((1u << b) - 1)) << 4);
}

}  // namespace tessel::emu::detail
