// demos_test.cpp: the demonstration kernels and the class form of the catalog: every listed
// configuration assembles with ptxas without spills, shows its hardware path, prints
// deterministically, and misuse of options and the generators names the valid choices.
#include "tessel/kernels/demos.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "codegen/ptxas.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"
#include "kernels/listed.hpp"
#include "tessel/kernels/catalog.hpp"

using namespace tessel;

namespace {

// Classes with a TEST_CASE of their own (here or in their own file); any other is covered by a
// catch-all.
const std::vector<std::string> kDemoFamilies = {"vector_copy", "tma_tile", "wgmma_tile", "elementwise"};
// Classes whose every configuration a test of their own assembles (with its own spill rules).
const std::vector<std::string> kOwnPtxasTest = {"hopper_gemm", "simt_gemm"};

bool have_ptxas() {
  if (!test::ptxas_path().empty()) return true;
  MESSAGE("TESSEL_SKIP: ptxas not found (set TESSEL_PTXAS or install the CUDA toolkit's ptxas)");
  std::printf("TESSEL_SKIP: ptxas not found\n");
  return false;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The argument of the `.target` directive, e.g. "sm_90a"; empty if there is none.
std::string target_directive(const std::string& ptx) {
  std::smatch m;
  return std::regex_search(ptx, m, std::regex(R"(\n\.target (\S+)\n)")) ? m[1].str() : "";
}

// Every listed configuration of `f` assembles for its target, and ptxas's -v report shows no
// spills for any of its kernels (a spill in these small kernels would be a register-use bug).
void check_family_assembles(const kernels::KernelClass& f) {
  const std::vector<test::Listed> configs = test::listed_of(f);
  REQUIRE(!configs.empty());
  for (const test::Listed& l : configs) {
    INFO("tessel dump " << l.label);
    const codegen::Module m = l.kernel->generate();
    REQUIRE(!m.kernels.empty());
    const std::string ptx = codegen::print_ptx(m);
    const std::string target = codegen::target_name(codegen::requirement(m));
    const test::PtxasResult r = test::run_ptxas(ptx, target);
    INFO("ptxas -v -arch=" << target << ":\n" << r.log);
    CHECK(r.ok);
    if (!r.ok) continue;
    for (const codegen::Kernel& k : m.kernels) {
      // "Function properties for NAME\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
      std::smatch s;
      const std::regex report("Function properties for " + k.name +
                              R"(\s*\n\s*\d+ bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
      INFO("kernel " << k.name);
      REQUIRE(std::regex_search(r.log, s, report));
      CHECK(s[1].str() == "0");
      CHECK(s[2].str() == "0");
    }
  }
}

void check_family_assembles(const std::string& name) {
  if (!have_ptxas()) return;
  check_family_assembles(*kernels::Registry::global().find_class(name));
}

}  // namespace

TEST_CASE("kernels: every vector_copy configuration assembles with ptxas without spills") {
  check_family_assembles("vector_copy");
}

TEST_CASE("kernels: every tma_tile configuration assembles with ptxas without spills") {
  check_family_assembles("tma_tile");
}

TEST_CASE("kernels: every wgmma_tile configuration assembles with ptxas without spills") {
  check_family_assembles("wgmma_tile");
}

// A family added later is assembled here until it gets a TEST_CASE of its own.
TEST_CASE("kernels: every configuration of the other families assembles with ptxas without spills") {
  if (!have_ptxas()) return;
  for (const kernels::KernelClassPtr& f : kernels::Registry::global().classes()) {
    const bool demo = std::find(kDemoFamilies.begin(), kDemoFamilies.end(), f->name()) != kDemoFamilies.end();
    const bool own = std::find(kOwnPtxasTest.begin(), kOwnPtxasTest.end(), f->name()) != kOwnPtxasTest.end();
    if (!demo && !own) {
      check_family_assembles(*f);
    }
  }
}

TEST_CASE("kernels: the demonstration kernels show their hardware paths and targets") {
  for (const test::Listed& l : test::listed_of("vector_copy")) {
    const kernels::Options& o = l.options;
    INFO("tessel dump " << l.label);
    const codegen::Module m = l.kernel->generate();
    const std::string ptx = codegen::print_ptx(m);
    CHECK(codegen::target_name(codegen::requirement(m)) == "sm_80");
    CHECK(target_directive(ptx) == "sm_80");
    // One 16-byte access each way per thread: .v4 of 32-bit words, or .v2 of f64 (PTX has no
    // 16-byte .v4.f64 before sm_100), and no scalar fallback.
    const bool f64 = o.at("dtype") == "f64";
    CHECK(count(ptx, f64 ? "ld.global.v2.f64" : "ld.global.v4.") == 1);
    CHECK(count(ptx, f64 ? "st.global.v2.f64" : "st.global.v4.") == 1);
    CHECK(count(ptx, "ld.global") == 1);
    CHECK(count(ptx, "st.global") == 1);
  }

  for (const test::Listed& l : test::listed_of("tma_tile")) {
    const kernels::Options& o = l.options;
    INFO("tessel dump " << l.label);
    const codegen::Module m = l.kernel->generate();
    const std::string ptx = codegen::print_ptx(m);
    CHECK(codegen::target_name(codegen::requirement(m)) == "sm_90");
    CHECK(target_directive(ptx) == "sm_90");
    for (const char* s : {"cp.async.bulk.tensor.2d", "mbarrier.init", "mbarrier.arrive.expect_tx",
                          "mbarrier.try_wait.parity", "fence.mbarrier_init"}) {
      INFO(s);
      CHECK(count(ptx, s) >= 1);
    }
    // The transaction count must be the box's bytes, or the wait never completes (PTX ISA,
    // mbarrier expect-tx): rows x one swizzle row (128 bytes unswizzled).
    const std::string& sw = o.at("swizzle");
    const int row_bytes = sw == "none" ? 128 : std::stoi(sw);
    const std::string tx = ", " + std::to_string(std::stoi(o.at("rows")) * row_bytes) + ";";
    const size_t at = ptx.find("mbarrier.arrive.expect_tx");
    REQUIRE(at != std::string::npos);
    CHECK(ptx.substr(at, ptx.find('\n', at) - at).find(tx) != std::string::npos);
  }

  for (const test::Listed& l : test::listed_of("wgmma_tile")) {
    const kernels::Options& o = l.options;
    INFO("tessel dump " << l.label);
    const codegen::Module m = l.kernel->generate();
    const std::string ptx = codegen::print_ptx(m);
    CHECK(codegen::target_name(codegen::requirement(m)) == "sm_90a");
    CHECK(target_directive(ptx) == "sm_90a");
    for (const char* s : {"wgmma.fence", "wgmma.commit_group", "wgmma.wait_group"}) {
      INFO(s);
      CHECK(count(ptx, s) == 1);
    }
    // K is one swizzle row (32 bytes unswizzled) of 2-byte inputs: K / 16 instructions of m64nNk16.
    const std::string& sw = o.at("swizzle");
    const size_t k_blocks = (sw == "none" ? 32 : std::stoi(sw)) / 32;
    const std::string mma =
        "wgmma.mma_async.sync.aligned.m64n" + o.at("n") + "k16.f32." + o.at("dtype") + "." + o.at("dtype");
    CHECK(count(ptx, "wgmma.mma_async") == k_blocks);
    CHECK(count(ptx, mma) == k_blocks);
  }
}

TEST_CASE("kernels: identical configurations print byte-identical PTX and distinct ones distinct kernels") {
  std::set<std::string> names;
  size_t n = 0;
  for (const kernels::KernelClassPtr& f : kernels::Registry::global().classes()) {
    for (const test::Listed& l : test::listed_of(*f)) {
      INFO("tessel dump " << l.label);
      const codegen::Module first = l.kernel->generate(), second = l.kernel->generate();
      CHECK(codegen::print_ptx(first) == codegen::print_ptx(second));
      codegen::PrintOptions po;
      po.comments = true;
      CHECK(codegen::print_ptx(first, po) == codegen::print_ptx(second, po));
      // The kernel name is the module cache's key: two configurations must never share one.
      for (const codegen::Kernel& k : first.kernels) {
        INFO("kernel " << k.name);
        CHECK(names.insert(k.name).second);
        ++n;
      }
    }
  }
  CHECK(names.size() == n);
}

TEST_CASE("kernels: kernel names encode their configuration") {
  for (const test::Listed& l : test::listed_of("vector_copy")) {
    const kernels::Options& o = l.options;
    const codegen::Module m = l.kernel->generate();
    REQUIRE(m.kernels.size() == 1);
    const std::string expected = "tessel_demo_vector_copy_" + o.at("dtype") + "_t" + o.at("threads");
    CHECK(m.kernels[0].name == expected);
    CHECK(codegen::print_ptx(m).find(".visible .entry " + expected + "(") != std::string::npos);
  }
  const codegen::Module f32 = kernels::vector_copy(kernels::VectorCopyConfig{});
  REQUIRE(f32.kernels.size() == 1);
  CHECK(f32.kernels[0].name.find("f32") != std::string::npos);
  CHECK(f32.kernels[0].name.find("t128") != std::string::npos);

  kernels::TmaTileConfig tma;
  CHECK(tma.name() == "tessel_demo_tma_tile_sm90_bf16_64x64_sw128");
  kernels::WgmmaTileConfig wg;
  wg.dtype = codegen::Type::F16;
  wg.n = 128;
  wg.swizzle = codegen::SmemSwizzle::B64;
  CHECK(wg.name() == "tessel_demo_wgmma_sm90a_f16_f32_m64n128k32_sw64");
}

TEST_CASE("kernels: the class form lists, completes and names options") {
  std::vector<std::string> names;
  for (const kernels::KernelClassPtr& f : kernels::Registry::global().classes()) names.push_back(f->name());
  // tessel's own classes first, in this order (a user's, such as the docs' example, follow them).
  REQUIRE(names.size() >= 6);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 6) ==
        std::vector<std::string>{"hopper_gemm", "simt_gemm", "elementwise", "vector_copy", "tma_tile", "wgmma_tile"});

  const std::vector<kernels::OptionSpec> vc = kernels::Registry::global().find_class("vector_copy")->options();
  CHECK(kernels::resolve_options(vc, {}, "vector_copy") == kernels::Options{{"dtype", "f32"}, {"threads", "128"}});
  CHECK(kernels::resolve_options(vc, {{"threads", "256"}}, "vector_copy") ==
        kernels::Options{{"dtype", "f32"}, {"threads", "256"}});
  // Options print in the class's order, not the map's.
  CHECK(kernels::option_arguments(vc, {{"threads", "256"}, {"dtype", "bf16"}}) == "--dtype bf16 --threads 256");
  CHECK(kernels::all_combinations(vc).size() == 6);

  // Each class's kernels carry the options that configure them again, to the same kernel; a
  // demonstration class offers every combination of its values, each once.
  for (const kernels::KernelClassPtr& f : kernels::Registry::global().classes()) {
    INFO(f->name());
    const std::vector<test::Listed> configs = test::listed_of(*f);
    std::set<kernels::Options> distinct;
    for (const test::Listed& l : configs) distinct.insert(l.options);
    if (!f->options().empty()) CHECK(distinct.size() == configs.size());
    for (const test::Listed& l : configs) {
      INFO(l.label);
      CHECK(kernels::resolve_options(f->options(), l.options, f->name()) == l.options);
      if (!f->options().empty() && l.kernel->metadata().options.size() == f->options().size())
        CHECK(f->configure(l.options)->name() == l.kernel->name());
    }
    if (configs.front().kernel->metadata().operation == kernels::Operation::Demo) {
      size_t product = 1;
      for (const kernels::OptionSpec& s : f->options()) product *= s.values.size();
      CHECK(configs.size() == product);
    }
  }
}

TEST_CASE("kernels: misuse of names and options names the valid choices") {
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("nope"),
                       doctest::Contains("unknown kernel 'nope': neither a kernel class (hopper_gemm, simt_gemm, "
                                         "elementwise, vector_copy, tma_tile, wgmma_tile"),
                       Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("nope"),
                       doctest::Contains(") nor a kernel of the catalog (`tessel list` prints their names)"), Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel(""), doctest::Contains("unknown kernel ''"), Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("vector_copy", {{"bogus", "1"}}),
                       "unknown option --bogus for vector_copy (valid: --dtype, --threads)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("vector_copy", {{"dtype", "f16"}}),
                       "invalid value 'f16' for vector_copy --dtype (valid: f32, bf16, f64)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("tma_tile", {{"swizzle", "128"}}),
                       "invalid value '128' for tma_tile --swizzle (valid: 128B, 64B, 32B, none)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("tma_tile", {{"n", "64"}}),
                       "unknown option --n for tma_tile (valid: --dtype, --rows, --swizzle)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("wgmma_tile", {{"n", "96"}}),
                       "invalid value '96' for wgmma_tile --n (valid: 64, 128, 256)", Error);
  // The old underscore spelling is answered with the new one.
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("hopper_gemm", {{"tile_m", "64"}}),
                       doctest::Contains("options are spelled with dashes: --tile-m"), Error);
  // A catalog name with options starts from its own; an invalid combination names the rule.
  const kernels::KernelPtr k =
      kernels::resolve_kernel("tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr", {{"stages", "3"}});
  CHECK(k->name() == "tessel_hopper_gemm_bf16_bf16_128x256x64_s3_kkr");
  CHECK_THROWS_WITH_AS(
      kernels::resolve_kernel("tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr", {{"schedule", "pingpong"}}),
      doctest::Contains("ping-pong with a 128 x 256 tile"), Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_kernel("tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr", {{"rank", "3"}}),
                       doctest::Contains("unknown option --rank for tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr"),
                       Error);
}

TEST_CASE("kernels: the generators refuse configurations they cannot emit") {
  kernels::VectorCopyConfig vc;
  vc.threads = 48;
  CHECK_THROWS_WITH_AS(kernels::vector_copy(vc), "vector_copy: threads = 48 (a multiple of 32 in [32, 1024])", Error);
  vc.threads = 128;
  vc.dtype = codegen::Type::F16;
  CHECK_THROWS_WITH_AS(kernels::vector_copy(vc), "vector_copy: dtype f16 (f32, bf16 or f64)", Error);

  kernels::TmaTileConfig tma;
  tma.cols = 32;  // bf16: 64 bytes, not one 128-byte swizzle row
  CHECK_THROWS_WITH_AS(kernels::tma_tile(tma), "tma_tile: a 128B swizzled box has rows of 128 bytes, got 32 bf16",
                       Error);

  kernels::WgmmaTileConfig wg;
  wg.dtype = codegen::Type::F32;
  CHECK_THROWS_WITH_AS(kernels::wgmma_tile(wg), "wgmma_tile: dtype f32 (bf16 or f16)", Error);
}

// The issue's bar: each demonstration assembles for sm_90a too (ptxas compiles PTX of a lower
// target for a higher one), so all four hardware paths are checked for the Hopper target.
TEST_CASE("kernels: every demonstration's default configuration assembles for sm_90a") {
  if (tessel::test::ptxas_path().empty()) {
    std::printf("TESSEL_SKIP: ptxas not found\n");
    return;
  }
  for (const tessel::kernels::KernelClassPtr& f : tessel::kernels::Registry::global().classes()) {
    // The class's default configuration; a class without options (a user's): its first kernel.
    const tessel::kernels::KernelPtr k =
        f->options().empty() ? f->generate_kernels().front() : tessel::kernels::resolve_kernel(f->name());
    const std::string ptx = tessel::codegen::print_ptx(k->generate());
    const tessel::test::PtxasResult r = tessel::test::run_ptxas(ptx, "sm_90a");
    INFO(f->name() << ":\n" << r.log);
    CHECK(r.ok);
  }
}
