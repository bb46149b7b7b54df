// emulated_gemm.hpp: the host-path tests' GEMM runs: tessel::gemm on the stand-in driver, the
// launches it recorded run in the CPU emulator and checked against the f64 host reference.
#pragma once

#include <doctest/doctest.h>

#include "stand_in.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

namespace tessel::test {

// The driver calls beyond launches and current-context queries since the last reset.
inline uint64_t other_calls(const StandIn& s) {
  return s.all_calls() - s.calls("cuLaunchKernelEx") - s.calls("cuCtxGetCurrent");
}

// Runs the launches the stand-in recorded since the last reset in the emulator, each with the
// module of the step it must be (gemm_steps of the choice for these arguments: the recorded entry
// and PTX must be that step's), and checks out against the reference.
inline void run_recorded(const kernels::GemmChoice& choice, const kernels::GemmProblem& p,
                         const kernels::GemmArguments& args, uint64_t workspace, emu::Memory& memory, uint64_t out) {
  const std::vector<TesselStandInLaunch> launches = StandIn::get().launches();
  const std::vector<kernels::GemmStep> steps = kernels::gemm_steps(choice, args, workspace);
  REQUIRE(launches.size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const kernels::Artifact& a = steps[i].kernel->artifact_for(steps[i].args);
    INFO("step " << i << ": " << steps[i].what << " (" << a.kernel << ")");
    REQUIRE(std::string(launches[i].entry) == a.kernel);
    REQUIRE(launches[i].ptx_fnv1a == tessel_stand_in_fnv1a(a.ptx.data(), a.ptx.size()));
    codegen::LaunchPlan plan;
    plan.module = a.module;
    plan.kernel = a.kernel;
    for (int d = 0; d < 3; ++d) {
      plan.grid[static_cast<size_t>(d)] = launches[i].grid[d];
      plan.block[static_cast<size_t>(d)] = launches[i].block[d];
      plan.cluster[static_cast<size_t>(d)] = launches[i].cluster[d];
    }
    plan.dynamic_shared_bytes = launches[i].shared_bytes;
    plan.params = StandIn::params(launches[i]);
    emu::run(plan, memory);
  }
  const std::string diff = kernels::check_gemm(p, memory.read<uint8_t>(out, p.out.bytes.size()));
  CHECK_MESSAGE(diff.empty(), p.describe() << ": " << diff);
}

// One problem through tessel::gemm on the stand-in, its launches run in the emulator: fresh
// buffers (new addresses) for every call. One emulated memory for the process: the one-call GEMM
// keeps its workspace (allocated through the driver, so in this memory) from call to call.
struct EmulatedGemm {
  static emu::Memory& memory() {
    static auto* m = new emu::Memory;
    return *m;
  }
  static uint64_t& workspace() {
    static uint64_t w = 0;
    return w;
  }

  // Returns the choice tessel::gemm made.
  const kernels::GemmChoice& run(const kernels::GemmProblem& p, int expect_launches = -1) {
    StandIn& s = StandIn::get();
    emu::Memory& mem = memory();
    StandIn::Emulated hooks(mem);
    const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), o = mem.upload(p.out.bytes);
    const uint64_t c = p.C ? mem.upload(p.C->bytes) : 0;
    const kernels::GemmArguments args = p.arguments(a, b, o, c);
    s.reset();
    const kernels::GemmChoice& choice = kernels::gemm(args);
    if (s.calls("cuMemAlloc") > 0) workspace() = StandIn::Emulated::last_allocation();
    if (expect_launches >= 0) CHECK(s.launch_count() == static_cast<uint64_t>(expect_launches));
    run_recorded(choice, p, args, choice.workspace_bytes ? workspace() : 0, mem, o);
    return choice;
  }
};

}  // namespace tessel::test
