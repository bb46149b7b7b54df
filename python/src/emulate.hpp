// emulate.hpp: one catalog kernel run on host arrays by the CPU emulator (emulate=True): the
// arrays' bytes copied into emulator memory, the kernel's launch plan run there, the outputs'
// bytes copied back.
#pragma once

#include <vector>

#include "tessel/kernels/catalog.hpp"

namespace tessel::python {

// The emulator's compute capability: kernels up to sm_90a run on it (wgmma, TMA, clusters).
inline constexpr int kEmulatorCc = 90;

// Runs `k` on `args`, whose views' `data` are host addresses, in the emulator, and writes the
// bytes of the views in `outputs` (pointers into args) back to host memory. Views that overlap on
// the host (an output that is an input: in place) share one emulator buffer, and each buffer keeps
// its host address modulo 256, so that alignment rules see what a GPU would.
void run_emulated(const kernels::Kernel& k, kernels::Arguments args, const std::vector<const kernels::TensorView*>& outputs);

}  // namespace tessel::python
