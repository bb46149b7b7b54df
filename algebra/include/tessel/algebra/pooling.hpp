// pooling.hpp: whether tessel's per-thread memory pools (the algebra's expression nodes, the IR's
// blocks and operand lists) recycle what they are given back. Not under AddressSanitizer: there
// every allocation comes from operator new, so that it still sees a use after release (a pool's
// reuse would hide it).
#pragma once

namespace tessel {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPoolMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kPoolMemory = false;
#else
inline constexpr bool kPoolMemory = true;
#endif
#else
inline constexpr bool kPoolMemory = true;
#endif

}  // namespace tessel
