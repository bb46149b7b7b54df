// emulate.hpp: `tessel run --emulate`: a kernel configuration run by the CPU emulator (no GPU, no
// driver) on a small random problem, checked against the host reference.
#pragma once

#include <cstdint>

#include "tessel/algebra/error.hpp"
#include "tessel/testing/demo_run.hpp"

namespace tessel::cli {

// Thrown before any emulation, for a configuration the emulator does not run (a family it cannot
// run yet, a static shape too large to run in seconds), with the reason and what would run.
struct EmulationRefused : Error {
  using Error::Error;
};

// Throws EmulationRefused (see above); tessel::Error for what goes wrong in the run.
kernels::DemoRun emulate_configuration(const kernels::KernelFamily& f, const kernels::Options& o, uint64_t seed,
                                       int64_t max_elements);

}  // namespace tessel::cli
