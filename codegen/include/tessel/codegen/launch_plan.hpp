// launch_plan.hpp: one launch of a generated kernel, decided on the host and independent of where
// it runs: the module, the kernel's name, the grid, block and cluster shapes, the dynamic shared
// memory and the parameter values as bytes in declaration order. The kernels' host sides build
// plans; the runtime launches a plan on a GPU (kernels/launch.hpp) and the emulator runs the same
// plan on the CPU, so both see exactly the same kernel and arguments.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

struct LaunchPlan {
  Module module;
  std::string kernel;  // the name of the kernel in `module` to launch
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{1, 1, 1};  // (1,1,1): no cluster
  unsigned dynamic_shared_bytes = 0;
  // One entry per kernel parameter, in declaration order: the value's bytes (8 for a u64 pointer,
  // 4 for an s32, 128 for a TMA descriptor).
  std::vector<std::vector<std::byte>> params;

  template <class T>
  LaunchPlan& arg(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied byte for byte");
    static_assert(!std::is_pointer_v<T>, "pass device addresses as uint64_t");
    std::vector<std::byte> b(sizeof(T));
    std::memcpy(b.data(), &value, sizeof(T));
    params.push_back(std::move(b));
    return *this;
  }
  const Kernel& entry() const;  // the kernel called `kernel`; throws tessel::Error if absent
};

}  // namespace tessel::codegen
