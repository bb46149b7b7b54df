// emulate.hpp: `tessel run --emulate`: a kernel configuration run by the CPU emulator (no GPU, no
// driver) on a small random problem, checked against the host reference.
#pragma once

#include <cstdint>

#include "tessel/kernels/demo_run.hpp"

namespace tessel::cli {

// Throws tessel::Error for a family the emulator cannot run yet, naming the ones it can.
kernels::DemoRun emulate_configuration(const kernels::KernelFamily& f, const kernels::Options& o, uint64_t seed,
                                       int64_t max_elements);

}  // namespace tessel::cli
