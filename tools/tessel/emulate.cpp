// emulate.cpp: see emulate.hpp. The same random problem and check as `tessel run` on a GPU
// (kernels/elementwise_check.hpp); the buffers live in emulated global memory.
#include "emulate.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>

#include "tessel/algebra/error.hpp"
#include "tessel/emulator.hpp"
#include "tessel/testing/elementwise_check.hpp"
#include "tessel/testing/gemm_check.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/registry.hpp"

namespace tessel::cli {

namespace {

// A static shape bakes its size into the kernel: past this many elements (about a second of
// emulation at rank 2, more at higher ranks) the run is refused unless --size allows it.
constexpr int64_t kStaticElements = int64_t{1} << 20;

// Emulator options that print progress to standard error every two seconds of a long run.
emu::RunOptions with_progress() {
  emu::RunOptions o;
  auto start = std::chrono::steady_clock::now();
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(start);
  o.progress = [start, last](uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::seconds(2)) return;
    *last = now;
    std::cerr << "  emulating: " << done << " of " << total << " blocks ("
              << static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)) << "%), "
              << static_cast<int>(std::chrono::duration<double>(now - start).count()) << " s\n";
  };
  return o;
}

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
  const emu::RunStats stats = emu::run(plan, mem, with_progress());
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
    throw EmulationRefused(f.name + " is not emulated yet (emulated: elementwise, hopper_gemm)");
  const kernels::ElementwiseConfig c = kernels::elementwise_config(o);
  if (c.is_static()) {  // refused up front, not after minutes of emulation
    int64_t n = 1;
    std::string shape;
    for (int64_t e : c.static_shape) {
      n *= e;
      shape += (shape.empty() ? "" : "x") + std::to_string(e);
    }
    if (n > std::max(kStaticElements, max_elements))
      throw EmulationRefused("its static shape " + shape + " (" + std::to_string(n) +
                             " elements) is more than the emulator runs in seconds (" + std::to_string(kStaticElements) +
                             "); --shape dynamic runs a random shape of --size elements, --size " + std::to_string(n) +
                             " this one anyway");
  }
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
  const emu::RunStats stats = emu::run(plan, mem, with_progress());
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
