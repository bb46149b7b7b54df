// emulate.cpp: see emulate.hpp. The same random problem and check as `tessel run` on a GPU
// (kernels/elementwise_check.hpp); the buffers live in emulated global memory.
#include "emulate.hpp"

#include <chrono>
#include <random>

#include "tessel/algebra/error.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/elementwise_check.hpp"
#include "tessel/kernels/gemm_check.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::cli {

namespace {

// The Hopper GEMM on the emulator: a random problem of at most about `max_elements` outputs per
// batch (K over a few k-tiles), 2 persistent CTAs (clusters), every element against the host reference.
kernels::DemoRun emulate_hopper_gemm(const kernels::Options& o, std::mt19937_64& rng) {
  const kernels::HopperGemmConfig c = kernels::hopper_gemm_config(o);
  const kernels::GemmProblem p =
      kernels::make_gemm_problem(kernels::hopper_gemm_metadata(c), rng, false, 3 * c.tile_k(), 2);
  emu::Memory mem;
  const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), out = mem.upload(p.out.bytes);
  const codegen::LaunchPlan plan =
      kernels::hopper_gemm_plan(c, p.arguments(a, b, out), kernels::hopper_gemm(c), 2 * c.cluster_size(), emu::encode_tensor_map);
  const auto t0 = std::chrono::steady_clock::now();
  const emu::RunStats stats = emu::run(plan, mem);
  const auto t1 = std::chrono::steady_clock::now();
  kernels::DemoRun r;
  r.kernel_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  r.problem = p.describe() + ", " + std::to_string(stats.tma_loads) + " TMA loads, " + std::to_string(stats.wgmmas) +
              " wgmmas, " + std::to_string(stats.steps) + " instructions emulated";
  const std::string diff = kernels::check_gemm(p, mem.read<uint8_t>(out, p.out.bytes.size()));
  r.ok = diff.empty();
  r.result = r.ok ? "every element matches the host reference, bytes between them intact" : diff;
  return r;
}

}  // namespace

kernels::DemoRun emulate_configuration(const kernels::KernelFamily& f, const kernels::Options& o, uint64_t seed,
                                       int64_t max_elements) {
  std::mt19937_64 rng(seed);
  if (f.name == "hopper_gemm") return emulate_hopper_gemm(o, rng);
  if (f.name != "elementwise")
    fail("tessel run --emulate: " + f.name + " is not emulated yet (emulated: elementwise, hopper_gemm)");
  const kernels::ElementwiseConfig c = kernels::elementwise_config(o);
  const kernels::ElementwiseCase k = kernels::random_elementwise_case(c, rng, max_elements);
  emu::Memory mem;
  const uint64_t a = mem.alloc(k.a.size());
  mem.write(a, k.a.data(), k.a.size());
  uint64_t b = a;
  if (!k.b.empty()) {
    b = mem.alloc(k.b.size());
    mem.write(b, k.b.data(), k.b.size());
  }
  const size_t c_size = k.c_bytes + kernels::ElementwiseCase::kGuardBytes;
  const uint64_t cbuf = mem.alloc(c_size);
  const codegen::LaunchPlan plan = kernels::elementwise_plan(c, kernels::at_addresses(k.args, a, b, cbuf));
  const auto t0 = std::chrono::steady_clock::now();
  const emu::RunStats stats = emu::run(plan, mem);
  const auto t1 = std::chrono::steady_clock::now();
  kernels::DemoRun r;
  r.kernel_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::string shape;
  for (int64_t e : k.args.C.shape) shape += (shape.empty() ? "" : "x") + std::to_string(e);
  r.problem = "shape " + shape + ", grid " + std::to_string(plan.grid[0]) + ", " + std::to_string(stats.steps) +
              " instructions emulated";
  const std::string diff = kernels::check_elementwise(k, mem.read<uint8_t>(cbuf, c_size));
  r.ok = diff.empty();
  r.result = r.ok ? "all " + std::to_string(k.args.C.size()) + " elements match the host, padding and guard intact"
                  : diff;
  return r;
}

}  // namespace tessel::cli
