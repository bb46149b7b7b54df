// launch.hpp: launching a kernel (cuLaunchKernelEx): grid, block and cluster shape, dynamic
// shared memory, stream, and the kernel's arguments.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/runtime/module.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::rt {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  unsigned long long count() const { return 1ull * x * y * z; }
};
std::string to_string(const Dim3& d);  // "(4,2,1)"

struct LaunchConfig {
  Dim3 grid;     // in blocks; each extent a multiple of the cluster's
  Dim3 block;    // in threads
  Dim3 cluster;  // in blocks; (1,1,1) launches without clusters (no attribute is passed)
  unsigned dynamic_shared_bytes = 0;
  StreamRef stream;
};

// The checks the driver would make with a less helpful error: every extent >= 1, grid.y and
// grid.z <= 65535, block extents <= (1024,1024,64) and at most 1024 threads, each grid extent
// divisible by the cluster's. Throws tessel::Error naming the value. Pure; no driver needed.
void validate_launch(const LaunchConfig& config);

// The kernel's parameters, each stored with its own size and alignment, in declaration order:
// scalars, DevicePtr values (for .u64 pointer parameters), structs, TensorMap (128 bytes,
// 64-byte aligned, for `.param .align 64 .b8 name[128]`).
class ArgPack {
 public:
  ArgPack() = default;
  template <class... Ts>
  explicit ArgPack(const Ts&... values) {
    (add(values), ...);
  }

  template <class T>
  ArgPack& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied byte for byte");
    static_assert(!std::is_pointer_v<T>, "pass device addresses as DevicePtr (host pointers mean nothing to a kernel)");
    return add_bytes(&value, sizeof(T), alignof(T));
  }
  ArgPack& add_bytes(const void* data, std::size_t size, std::size_t align);
  // Overwrites argument `index`'s first `size` bytes (a pointer or descriptor moved with its tensor).
  void replace_bytes(std::size_t index, const void* data, std::size_t size);

  std::size_t size() const { return offsets_.size(); }
  // One pointer per argument, into this pack: valid until the next add.
  std::vector<void*> pointers() const;
  // The same into out[0, size()), without allocating; returns size().
  std::size_t pointers(void** out) const;

 private:
  struct alignas(64) Block {
    std::byte bytes[64];
  };
  std::vector<Block> storage_;
  std::size_t used_ = 0;
  std::vector<std::size_t> offsets_;
};

// Launches `function` (cuLaunchKernelEx) after validate_launch. `args` holds one pointer per
// kernel parameter, to its value. Returns once queued; errors of the kernel itself show up at
// the next synchronisation.
void launch(const Function& function, const LaunchConfig& config, std::span<void* const> args);
void launch(const Function& function, const LaunchConfig& config, const ArgPack& args);

}  // namespace tessel::rt
