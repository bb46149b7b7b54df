// kernel_run.hpp: `tessel run NAME`: any kernel of the catalog (a user's class too) on a fresh
// random problem, on the GPU or the CPU emulator (machine.hpp), outputs poisoned and guarded,
// checked against a host reference. GEMMs get a problem laid out as their metadata asks
// (gemm_check.hpp), elementwise kernels one of their form (elementwise_check.hpp), the demos
// their own (demo_run.cpp).
#pragma once

#include <cstdint>

#include "tessel/algebra/error.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/testing/gemm_check.hpp"
#include "tessel/testing/demo_run.hpp"
#include "tessel/testing/machine.hpp"

namespace tessel::kernels {

// Thrown before anything runs, for a kernel the machine cannot run in reasonable time (a static
// shape too large to emulate in seconds), with the reason and what would run.
struct RunRefused : Error {
  using Error::Error;
};

// One run of `k` on `machine` on a random problem drawn from `seed`. `size`: about how many
// output elements an emulated problem has (GPU problems are larger, fixed by each check). Throws
// RunRefused (above), or tessel::Error where the kernel cannot run its problem.
DemoRun run_kernel(const Kernel& k, Machine& machine, uint64_t seed, int64_t size = 4096);

// Where each operand's bytes start in its buffer, after that many bytes of poison, so that its
// address is off the 16-byte granules by it (the choice must be made for such addresses too).
struct GemmOffsets {
  uint64_t a = 0, b = 0, out = 0, c = 0;
};

// A GEMM problem through a one-call choice (kernels/gemm.hpp) on `machine`: its copies into a
// poisoned workspace, the kernel, the copy back; out checked against the f64 reference, C against
// its own bytes (never written), the poison before out unchanged.
DemoRun run_gemm_choice(const GemmChoice& choice, const GemmProblem& p, Machine& machine, const GemmOffsets& at = {});

}  // namespace tessel::kernels
