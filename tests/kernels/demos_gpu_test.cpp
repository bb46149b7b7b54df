// demos_gpu_test.cpp: every listed configuration of the demonstration kernels on the GPU: PTX
// from codegen, loaded by the runtime, launched on fresh random data with outputs poisoned and
// guarded, compared with a host reference (kernels/demo_run.hpp). Skipped, with the reason, where
// no GPU is usable.
#include <doctest/doctest.h>

#include "runtime/gpu.hpp"
#include "kernels/listed.hpp"
#include "tessel/testing/kernel_run.hpp"

using namespace tessel;

namespace {

void run_family(const std::string& name) {
  uint64_t seed = test::gpu_seed();
  const std::unique_ptr<kernels::Machine> gpu = kernels::gpu_machine();
  for (const test::Listed& l : test::listed_of(name)) {
    const kernels::DemoRun r = kernels::run_kernel(*l.kernel, *gpu, seed);
    INFO(l.label << ": " << r.problem << ": " << r.result << " (reproduce with TESSEL_SEED=" << test::gpu_seed()
                 << ")");
    CHECK(r.ok);
    ++seed;  // a different problem for each configuration, reproducible from the run's seed
  }
}

}  // namespace

TEST_CASE("kernels: gpu vector_copy copies every element and nothing past n") {
  TESSEL_REQUIRE_GPU(80);
  run_family("vector_copy");
}

TEST_CASE("kernels: gpu tma_tile loads swizzled boxes, ragged edges included") {
  TESSEL_REQUIRE_GPU(90);
  run_family("tma_tile");
}

TEST_CASE("kernels: gpu wgmma_tile computes A*B^T exactly, for every swizzle and N") {
  TESSEL_REQUIRE_GPU(90);
  if (rt::device_properties(0).compute_capability() != 90) {
    test::skip("wgmma needs sm_90a (an H100 or H200)");
    return;
  }
  run_family("wgmma_tile");
}

TEST_CASE("kernels: a gpu run refuses clearly where it cannot run") {
  if (test::gpu_unavailable().empty()) {
    // A demonstration kernel has no launch from catalog arguments.
    const kernels::KernelPtr k = kernels::resolve_kernel("vector_copy");
    CHECK_THROWS_WITH_AS(k->plan(kernels::example_arguments(kernels::resolve_kernel("tessel_elementwise_add_f32")->metadata()),
                                 k->compile_unchecked()),
                         doctest::Contains("is a demonstration kernel"), Error);
    return;
  }
  // Without a driver: the runtime's error, before anything else happens.
  CHECK_THROWS_WITH_AS(kernels::gpu_machine(), doctest::Contains("no CUDA driver found"), Error);
}
