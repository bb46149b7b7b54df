// whole_program_test.cpp: which kernels the module cache compiles as a whole program
// (rt::needs_whole_program_compile) rather than through the driver's linker, and why: ptxas,
// compiling relocatable code as the linker does, ignores setmaxnreg and then serializes the wgmma
// of the tf32 GEMM that reads A through registers.
#include <doctest/doctest.h>

#include <string>

#include "codegen/ptxas.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/runtime/disk_cache.hpp"

using namespace tessel;

namespace {

std::string ptx_of(const std::string& name) { return codegen::print_ptx(kernels::resolve_kernel(name)->generate()); }

}  // namespace

TEST_CASE("kernels: kernels that trade registers (setmaxnreg) are compiled as whole programs") {
  for (const char* name : {"tessel_hopper_gemm_f32_f32_128x256x32_s4_mkr", "tessel_hopper_gemm_bf16_bf16_128x128x64_s6_kkr_pp",
                           "tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr_streamk"}) {
    INFO(name);
    CHECK(rt::needs_whole_program_compile(ptx_of(name)));
  }
  for (const char* name : {"tessel_elementwise_add_f32", "tessel_simt_gemm_f64_f64_128x128x8_t8x8_rrr"}) {
    INFO(name);
    CHECK_FALSE(rt::needs_whole_program_compile(ptx_of(name)));
  }
  CHECK_FALSE(rt::needs_whole_program_compile(""));
}

TEST_CASE("kernels: ptxas compiling for a link ignores setmaxnreg and serializes A-through-registers wgmma") {
  if (test::ptxas_path().empty()) {
    MESSAGE("TESSEL_SKIP: ptxas not found (set TESSEL_PTXAS or install the CUDA toolkit's ptxas)");
    return;
  }
  const std::string ptx = ptx_of("tessel_hopper_gemm_f32_f32_128x256x32_s4_mkr");
  // What the driver's linker does (relocatable code): setmaxnreg ignored (C7504), so the consumers
  // keep the entry budget and the wgmma are serialized for lack of registers (C7512).
  const test::PtxasResult linked = test::run_ptxas(ptx, "sm_90a", "-c");
  INFO("ptxas -c:\n" << linked.log);
  REQUIRE(linked.ok);
  CHECK(linked.log.find("C7504") != std::string::npos);
  CHECK(linked.log.find("C7512") != std::string::npos);
  // A whole program (what cuModuleLoadDataEx compiles): neither.
  const test::PtxasResult whole = test::run_ptxas(ptx, "sm_90a");
  INFO("ptxas:\n" << whole.log);
  REQUIRE(whole.ok);
  CHECK(whole.log.find("C7504") == std::string::npos);
  CHECK(whole.log.find("C7512") == std::string::npos);
}
