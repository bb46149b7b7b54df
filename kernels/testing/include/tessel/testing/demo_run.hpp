// demo_run.hpp: the host side of the demonstration kernels: run one configuration on the GPU
// with fresh random inputs, outputs poisoned and guarded, and check it against a host reference.
// Used by the GPU tests and by `tessel run`.
#pragma once

#include <cstdint>
#include <string>

#include "tessel/kernels/registry.hpp"

namespace tessel::kernels {

struct DemoRun {
  bool ok = false;
  std::string problem;   // e.g. "n=1234560" or "M=100 N=150"
  std::string result;    // "all 1234560 elements match, guard zone intact" or what differed
  double kernel_ms = 0;  // one launch, CUDA events
  double bytes = 0;      // bytes the kernel reads and writes
};

// Generates, loads and launches `family` with `options` on the current context's device (device
// 0's primary context where the thread has none). Throws tessel::Error when
// the configuration is invalid or no GPU can run it ("no CUDA driver found: ...", or a device
// below the kernel's target).
DemoRun run_demo(const std::string& family, const Options& options, uint64_t seed);

}  // namespace tessel::kernels
