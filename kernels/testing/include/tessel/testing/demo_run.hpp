// demo_run.hpp: the result of one checked run (`tessel run`), and the runs of the demonstration
// kernels: each on its own problem with fresh random inputs, outputs poisoned and guarded,
// checked against a host reference.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

class Machine;

struct DemoRun {
  bool ok = false;
  std::string problem;   // e.g. "n=1234560" or "M=100 N=150"
  std::string result;    // "all 1234560 elements match, guard zone intact" or what differed
  double kernel_ms = 0;  // one launch (CUDA events), or the emulator's wall clock
  double bytes = 0;      // bytes the kernel reads and writes
};

// A demonstration kernel (operation demo: vector_copy, tma_tile, wgmma_tile; `k` made by their
// classes) on `machine`. Throws tessel::Error for a kernel of another class.
DemoRun run_demo(const Kernel& k, Machine& machine, std::mt19937_64& rng);

}  // namespace tessel::kernels
