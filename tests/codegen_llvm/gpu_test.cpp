// gpu_test.cpp: on a GPU, every configuration `tessel dump --list` lists runs through both roads
// on the same seeded inputs; both pass their host check (exact for the copies, the elementwise
// kernels and the wgmma tile; the GEMM's tolerance otherwise) and report the same result text
// (which names any mismatch and the GEMM's largest error). Skipped without a GPU.
#include <doctest/doctest.h>

#include "runtime/gpu.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen_llvm.hpp"
#include "tessel/testing/demo_run.hpp"

using namespace tessel;

namespace {

void both_roads(const std::string& family) {
  const kernels::KernelFamily& f = kernels::find_family(family);
  codegen_llvm::enable();
  uint64_t seed = test::gpu_seed();
  const codegen::Backend before = codegen::default_backend();
  for (const kernels::Options& o : kernels::listed_configurations(f)) {
    const codegen::Module m = f.generate(o);
    const codegen::Requirement r = codegen::requirement(m);
    const int cc = rt::device_properties(0).compute_capability();
    if (cc < r.sm || (r.arch_specific && cc != r.sm)) continue;  // the family's floor was checked; a config's may be higher
    codegen::set_default_backend(codegen::Backend::Ptx);
    const kernels::DemoRun p = kernels::run_demo(family, o, seed);
    codegen::set_default_backend(codegen::Backend::Llvm);
    const kernels::DemoRun l = kernels::run_demo(family, o, seed);
    INFO(kernels::dump_arguments(f, o) << ": " << p.problem << "\n  printer: " << p.result << " (" << p.kernel_ms
                                       << " ms)\n  llvm:    " << l.result << " (" << l.kernel_ms
                                       << " ms) (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(p.ok);
    CHECK(l.ok);
    CHECK(p.result == l.result);
    ++seed;
  }
  codegen::set_default_backend(before);
}

}  // namespace

TEST_CASE("codegen_llvm: gpu vector_copy through both roads") {
  TESSEL_REQUIRE_GPU(80);
  both_roads("vector_copy");
}
TEST_CASE("codegen_llvm: gpu elementwise through both roads") {
  TESSEL_REQUIRE_GPU(80);
  both_roads("elementwise");
}
TEST_CASE("codegen_llvm: gpu tma_tile through both roads") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("tma_tile");
}
TEST_CASE("codegen_llvm: gpu wgmma_tile through both roads") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("wgmma_tile");
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm");
}
