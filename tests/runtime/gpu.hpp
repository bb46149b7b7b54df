// gpu.hpp: what the runtime's GPU tests share: the skip protocol on machines without a GPU,
// one context for device 0, and seeded random data.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "tessel/algebra/parse_number.hpp"
#include "tessel/runtime.hpp"

namespace tessel::test {

// Why the GPU tests cannot run here, or "" when they can.
inline std::string gpu_unavailable() {
  const rt::DriverProbe& driver = rt::driver_status();
  if (!driver.available) return driver.reason;
  if (rt::device_count() == 0) return "the CUDA driver sees no device";
  return "";
}

// Prints the line that CTest reads as "skipped" (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
// Print it only on the way out of the test: a skip wins over a failure.
inline void skip(const std::string& why) { std::cout << "TESSEL_SKIP: " << why << std::endl; }

// Device 0's primary context, current on the calling thread. Retained once per process and
// never released, so that nothing depends on the order of destruction at exit.
inline rt::Context& gpu_context() {
  static rt::Context* context = new rt::Context(0);
  context->make_current();
  return *context;
}

// The run's seed: fresh each run, or TESSEL_SEED=N to reproduce one. Tests print it with INFO.
inline std::uint64_t gpu_seed() {
  static const std::uint64_t s = [] {
    if (const char* e = std::getenv("TESSEL_SEED")) return tessel::parse_unsigned("TESSEL_SEED", e);
    return static_cast<std::uint64_t>(std::random_device{}());
  }();
  return s;
}

inline std::mt19937_64 gpu_rng() { return std::mt19937_64(gpu_seed()); }

}  // namespace tessel::test

// Returns from the test case, reported skipped, unless a GPU is usable; then makes device 0's
// context current. `min_cc` (e.g. 90) also skips older devices.
#define TESSEL_REQUIRE_GPU(min_cc)                                                                      \
  do {                                                                                                  \
    if (std::string why = ::tessel::test::gpu_unavailable(); !why.empty()) {                            \
      ::tessel::test::skip(why);                                                                        \
      return;                                                                                           \
    }                                                                                                   \
    ::tessel::test::gpu_context();                                                                      \
    if (int cc = ::tessel::rt::device_properties(0).compute_capability(); cc < (min_cc)) {              \
      ::tessel::test::skip("needs compute capability " + std::to_string(min_cc) + ", device 0 is sm_" + \
                           std::to_string(cc));                                                         \
      return;                                                                                           \
    }                                                                                                   \
  } while (0)
