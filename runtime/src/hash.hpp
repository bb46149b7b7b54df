// hash.hpp: the runtime's 64-bit hash of bytes (ptx_hash, the disk cache's digests and checksums).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tessel::rt::detail {

// Eight bytes per step, each mixed in by multiply and xor-shift (the finaliser of splitmix64):
// fast on the ~100 KB texts of large kernels, and the length is mixed in so that texts that
// differ only by trailing zero bytes differ. Different seeds give independent-looking hashes of
// the same bytes (two of them make the disk cache's 128-bit digest). Not cryptographic.
inline std::uint64_t hash_bytes(std::string_view text, std::uint64_t seed) {
  auto mix = [](std::uint64_t h) {
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 31);
  };
  std::uint64_t h = seed ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);  // the byte order of the host: same on x86-64 and aarch64
    h = mix(h ^ w);
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i + k < text.size(); ++k)
    tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i + k])) << (8 * k);
  return mix(h ^ tail);
}

// The seed of ptx_hash (its values are pinned by tests: logs name modules by them).
constexpr std::uint64_t kPtxHashSeed = 0x9E3779B97F4A7C15ull;

}  // namespace tessel::rt::detail
