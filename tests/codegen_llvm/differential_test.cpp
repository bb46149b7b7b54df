// differential_test.cpp: every configuration `tessel dump --list` lists, through both roads: both
// PTX texts assemble with ptxas for the kernel's own target, the entries' parameters and the
// shared memory agree, neither spills, neither calls out of itself. Register counts are written
// side by side (codegen_llvm_registers_partN.tsv in the working directory), not compared.
#include <doctest/doctest.h>

#include <fstream>

#include "codegen/ptxas.hpp"
#include "codegen_llvm/differential.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/codegen_llvm.hpp"
#include "kernels/listed.hpp"
#include "tessel/kernels/catalog.hpp"

using namespace tessel;

namespace {

constexpr int kParts = 8;  // ctest -j runs the parts as parallel processes

void check_part(int part) {
  if (test::ptxas_path().empty()) {
    MESSAGE("TESSEL_SKIP: ptxas not found (set TESSEL_PTXAS or install the CUDA toolkit's ptxas)");
    std::printf("TESSEL_SKIP: ptxas not found\n");
    return;
  }
  std::ofstream table("codegen_llvm_registers_part" + std::to_string(part + 1) + ".tsv");
  table << "configuration\ttarget\tptx registers\tllvm registers\tsmem\n";
  int index = 0, checked = 0;
  for (const kernels::KernelClassPtr& f : kernels::Registry::global().classes()) {
    for (const test::Listed& listed : test::listed_of(*f)) {
      if (index++ % kParts != part) continue;
      const std::string what = listed.label;
      INFO(what);
      const codegen::Module m = listed.kernel->generate();
      const std::string target = codegen::target_name(codegen::requirement(m));
      const std::string printed = codegen::print_ptx(m);
      const codegen_llvm::Compiled lowered = codegen_llvm::compile(m);
      CHECK(lowered.target == target);
      const test::PtxasReport p = test::assemble(printed, target), l = test::assemble(lowered.ptx, target);
      INFO("ptxas -arch=" << target << " of the printer's PTX:\n" << p.log);
      INFO("ptxas -arch=" << target << " of LLVM's PTX:\n" << l.log);
      REQUIRE(p.ok);
      REQUIRE(l.ok);
      CHECK(test::entry_params(printed) == test::entry_params(lowered.ptx));
      CHECK(p.shared_bytes == l.shared_bytes);
      CHECK(p.spill_stores == 0);
      CHECK(p.spill_loads == 0);
      CHECK(l.spill_stores == 0);
      CHECK(l.spill_loads == 0);
      CHECK(l.stack_bytes == 0);
      CHECK(test::external_calls(printed) == "");
      CHECK(test::external_calls(lowered.ptx) == "");
      // Inline PTX only for the forms LLVM has no intrinsic or instruction for (docs/llvm.md):
      // wgmma.mma_async, and split-K's L2-only partials (.cg) and its tile counter's atomics.
      for (const std::string& a : lowered.inline_asm) {
        INFO("inline PTX: " << a);
        CHECK((a.rfind("wgmma.mma_async", 0) == 0 || a.rfind("ld.global.cg.", 0) == 0 ||
               a.rfind("st.global.cg.", 0) == 0 || a.rfind("atom.", 0) == 0));
      }
      table << what << "\t" << target << "\t" << p.registers << "\t" << l.registers << "\t" << p.shared_bytes << "\n";
      ++checked;
    }
  }
  MESSAGE(checked << " configurations assembled through both roads (part " << part + 1 << " of " << kParts << ")");
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("codegen_llvm: differential part 1 of 8: both roads assemble, same params and smem, no spills") { check_part(0); }
TEST_CASE("codegen_llvm: differential part 2 of 8: both roads assemble, same params and smem, no spills") { check_part(1); }
TEST_CASE("codegen_llvm: differential part 3 of 8: both roads assemble, same params and smem, no spills") { check_part(2); }
TEST_CASE("codegen_llvm: differential part 4 of 8: both roads assemble, same params and smem, no spills") { check_part(3); }
TEST_CASE("codegen_llvm: differential part 5 of 8: both roads assemble, same params and smem, no spills") { check_part(4); }
TEST_CASE("codegen_llvm: differential part 6 of 8: both roads assemble, same params and smem, no spills") { check_part(5); }
TEST_CASE("codegen_llvm: differential part 7 of 8: both roads assemble, same params and smem, no spills") { check_part(6); }
TEST_CASE("codegen_llvm: differential part 8 of 8: both roads assemble, same params and smem, no spills") { check_part(7); }

TEST_CASE("codegen_llvm: differential helpers read parameters, smem and calls") {
  const std::string printed =
      ".visible .entry k(\n\t.param .align 64 .b8 tmap[128],\n\t.param .u64 out,\n\t.param .s32 M\n)\n{\n}\n";
  const std::string llvm =
      ".visible .entry k(\n\t.param .align 64 .b8 k_param_0[128],\n\t.param .u64 .ptr .global .align 1 k_param_1,\n"
      "\t.param .s32 k_param_2\n)\n{\n}\n";
  CHECK(test::entry_params(printed) == std::vector<std::string>{".align 64 .b8 [128]", ".b64", ".b32"});
  CHECK(test::entry_params(printed) == test::entry_params(llvm));
  CHECK(test::entry_params(".visible .entry k(\n\t.param .u32 a\n)") != test::entry_params(printed));
  CHECK(test::entry_params(".visible .entry k(\n\t.param .s32 a\n)") == test::entry_params(".visible .entry k(\n\t.param .u32 b\n)"));
  CHECK(test::entry_params(".visible .entry k(\n\t.param .s32 a\n)") != test::entry_params(".visible .entry k(\n\t.param .s64 b\n)"));
  CHECK(test::external_calls(printed) == "");
  CHECK(test::external_calls(".extern .func (.param .b32 r) f(.param .b32 a);\n") != "");
  CHECK(test::external_calls(".visible .entry k()\n{\n\tcall.uni (retval0), llvm_nvvm_bad, (param0);\n}\n") ==
        "it calls llvm_nvvm_bad, which it does not define");
  CHECK(test::external_calls(".func g()\n{\n}\n.visible .entry k()\n{\n\tcall.uni g, ();\n}\n") == "");
}
