// gpu_test.cpp: on a GPU, both roads run the same seeded inputs. Every configuration `tessel dump
// --list` lists passes its host check through each road (bit-exact for the copies, the elementwise
// kernels and the wgmma tile, so both roads' outputs are identical there); every GEMM of the
// catalog (Hopper and SIMT) runs both artifacts of Kernel::compile on one problem and their
// outputs are compared byte for byte. Skipped without a GPU.
#include <doctest/doctest.h>

#include "kernels/gemm_problem.hpp"
#include "runtime/gpu.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen_llvm.hpp"
#include "kernels/listed.hpp"
#include "tessel/testing/kernel_run.hpp"

using namespace tessel;

namespace {

// Every listed configuration of `family` (those whose index is `part` modulo `parts`).
void both_roads(const std::string& family, size_t part = 0, size_t parts = 1) {
  codegen_llvm::enable();
  uint64_t seed = test::gpu_seed();
  const codegen::Backend before = codegen::default_backend();
  const std::unique_ptr<kernels::Machine> gpu = kernels::gpu_machine();
  size_t index = 0;
  for (const test::Listed& l : test::listed_of(family)) {
    if (index++ % parts != part) continue;
    const codegen::Module m = l.kernel->generate();
    const codegen::Requirement r = codegen::requirement(m);
    const int cc = rt::device_properties(0).compute_capability();
    if (cc < r.sm || (r.arch_specific && cc != r.sm)) continue;  // the family's floor was checked; a config's may be higher
    codegen::set_default_backend(codegen::Backend::Ptx);
    const kernels::DemoRun p = kernels::run_kernel(*l.kernel, *gpu, seed);
    codegen::set_default_backend(codegen::Backend::Llvm);
    const kernels::DemoRun v = kernels::run_kernel(*l.kernel, *gpu, seed);
    INFO(l.label << ": " << p.problem << "\n  printer: " << p.result << " (" << p.kernel_ms
                 << " ms)\n  llvm:    " << v.result << " (" << v.kernel_ms
                 << " ms) (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(p.ok);
    CHECK(v.ok);
    ++seed;
  }
  codegen::set_default_backend(before);
}

// One catalog GEMM through both roads on one problem: both outputs byte for byte, and the
// printer's against the host reference. Returns "" or what differed.
std::string gemm_both_roads(const kernels::Kernel& k, std::mt19937_64& rng, std::string& problem) {
  const test::GemmProblem p = test::make_gemm_problem(k.metadata(), rng);
  problem = p.describe();
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes);
  rt::DeviceBuffer o = rt::DeviceBuffer::from(p.out.bytes);
  const kernels::Arguments args = p.arguments(a.ptr(), b.ptr(), o.ptr());
  if (const kernels::Status s = k.supports(args); !s) return "supports() refused its own layout: " + s.reason;
  const size_t ws = k.workspace_size(args);
  rt::DeviceBuffer workspace(ws);
  std::vector<std::vector<uint8_t>> outs;
  for (const codegen::Backend road : {codegen::Backend::Ptx, codegen::Backend::Llvm}) {
    o.upload(p.out.bytes.data(), p.out.bytes.size());  // the same initial out for both
    const kernels::Artifact artifact = k.compile(args, {}, road);
    k.run(args, artifact, {}, ws ? workspace.ptr() : 0);
    test::gpu_context().synchronize();
    outs.push_back(o.to_vector<uint8_t>());
  }
  if (const std::string d = test::check_gemm(p, outs[0]); !d.empty()) return "the printer's road: " + d;
  if (outs[0] != outs[1]) {
    size_t first = 0;
    while (outs[0][first] == outs[1][first]) ++first;
    return "the roads' outputs differ, first at byte " + std::to_string(first) + " of " + std::to_string(outs[0].size());
  }
  return "";
}

void catalog_gemms(size_t part, size_t parts) {
  codegen_llvm::enable();
  std::mt19937_64 rng = test::gpu_rng();
  const int cc = rt::device_properties(0).compute_capability();
  size_t index = 0;
  for (const kernels::KernelPtr& k : kernels::list_kernels({}, cc)) {
    if (k->metadata().operation != kernels::Operation::Gemm || index++ % parts != part) continue;
    std::string problem;
    const std::string diff = gemm_both_roads(*k, rng, problem);
    INFO(k->name() << ": " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(diff == "");
  }
}

}  // namespace

TEST_CASE("codegen_llvm: gpu every catalog GEMM gives the same bytes through both roads (1 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  catalog_gemms(0, 4);
}
TEST_CASE("codegen_llvm: gpu every catalog GEMM gives the same bytes through both roads (2 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  catalog_gemms(1, 4);
}
TEST_CASE("codegen_llvm: gpu every catalog GEMM gives the same bytes through both roads (3 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  catalog_gemms(2, 4);
}
TEST_CASE("codegen_llvm: gpu every catalog GEMM gives the same bytes through both roads (4 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  catalog_gemms(3, 4);
}

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
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (1 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 0, 6);
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (2 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 1, 6);
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (3 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 2, 6);
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (4 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 3, 6);
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (5 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 4, 6);
}
TEST_CASE("codegen_llvm: gpu hopper_gemm through both roads (6 of 6)") {
  TESSEL_REQUIRE_GPU(90);
  both_roads("hopper_gemm", 5, 6);
}
