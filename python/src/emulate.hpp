// emulate.hpp: catalog kernels run on host arrays by the CPU emulator (emulate=True): the
// arrays' bytes copied into emulator memory, the kernels' launch plans run there, the outputs'
// bytes copied back.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tessel/kernels/catalog.hpp"

namespace tessel::python {

// The emulator's compute capability: kernels up to sm_90a run on it (wgmma, TMA, clusters).
inline constexpr int kEmulatorCc = 90;

// The launches of one call: kernels and their arguments, given the call's arguments in emulator
// memory and the emulator address of its workspace.
using EmulatedLaunches =
    std::function<std::vector<std::pair<kernels::KernelPtr, kernels::Arguments>>(const kernels::Arguments&, uint64_t)>;

// Runs the launches of `args`, whose views' `data` are host addresses, in the emulator, with a
// workspace of `workspace_bytes`, and writes the bytes of the views in `outputs` (pointers into
// args) back to host memory. Views that overlap on the host (an output that is an input: in place)
// share one emulator buffer, and each buffer keeps its host address modulo 256, so that alignment
// rules see what a GPU would.
void run_emulated(kernels::Arguments args, const std::vector<const kernels::TensorView*>& outputs,
                  size_t workspace_bytes, const EmulatedLaunches& launches);

// One kernel: run_emulated of the single launch of `k` on `args`.
void run_emulated(const kernels::KernelPtr& k, const kernels::Arguments& args,
                  const std::vector<const kernels::TensorView*>& outputs);

}  // namespace tessel::python
