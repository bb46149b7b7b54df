// demos_test.cpp: the demonstration kernels and their registry: every listed configuration
// assembles with ptxas without spills, shows its hardware path, prints deterministically, and
// misuse of the registry and the generators names the valid choices.
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
#include "tessel/kernels/registry.hpp"

using namespace tessel;

namespace {

// Families with a TEST_CASE of their own (here or in their own file); any other is covered by a
// catch-all.
const std::vector<std::string> kDemoFamilies = {"vector_copy", "tma_tile", "wgmma_tile", "elementwise"};
// Families whose every configuration a test of their own assembles (with its own spill rules).
const std::vector<std::string> kOwnPtxasTest = {"hopper_gemm"};

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
void check_family_assembles(const kernels::KernelFamily& f) {
  const std::vector<kernels::Options> configs = kernels::listed_configurations(f);
  REQUIRE(!configs.empty());
  for (const kernels::Options& o : configs) {
    INFO("tessel dump " << kernels::dump_arguments(f, o));
    const codegen::Module m = f.generate(o);
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
  check_family_assembles(kernels::find_family(name));
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
  for (const kernels::KernelFamily& f : kernels::kernel_families()) {
    const bool demo = std::find(kDemoFamilies.begin(), kDemoFamilies.end(), f.name) != kDemoFamilies.end();
    const bool own = std::find(kOwnPtxasTest.begin(), kOwnPtxasTest.end(), f.name) != kOwnPtxasTest.end();
    if (!demo && !own) {
      check_family_assembles(f);
    }
  }
}

TEST_CASE("kernels: the demonstration kernels show their hardware paths and targets") {
  const kernels::KernelFamily& vc = kernels::find_family("vector_copy");
  for (const kernels::Options& o : kernels::listed_configurations(vc)) {
    INFO("tessel dump " << kernels::dump_arguments(vc, o));
    const codegen::Module m = vc.generate(o);
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

  const kernels::KernelFamily& tma = kernels::find_family("tma_tile");
  for (const kernels::Options& o : kernels::listed_configurations(tma)) {
    INFO("tessel dump " << kernels::dump_arguments(tma, o));
    const codegen::Module m = tma.generate(o);
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

  const kernels::KernelFamily& wg = kernels::find_family("wgmma_tile");
  for (const kernels::Options& o : kernels::listed_configurations(wg)) {
    INFO("tessel dump " << kernels::dump_arguments(wg, o));
    const codegen::Module m = wg.generate(o);
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
  for (const kernels::KernelFamily& f : kernels::kernel_families()) {
    for (const kernels::Options& o : kernels::listed_configurations(f)) {
      INFO("tessel dump " << kernels::dump_arguments(f, o));
      const codegen::Module first = f.generate(o), second = f.generate(o);
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
  const kernels::KernelFamily& vc = kernels::find_family("vector_copy");
  for (const kernels::Options& o : kernels::listed_configurations(vc)) {
    const codegen::Module m = vc.generate(o);
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

TEST_CASE("kernels: the registry lists, completes and names options") {
  std::vector<std::string> names;
  for (const kernels::KernelFamily& f : kernels::kernel_families()) names.push_back(f.name);
  // The demonstrations come first, in this order (later families follow them).
  REQUIRE(names.size() >= kDemoFamilies.size());
  CHECK(std::vector<std::string>(names.begin(), names.begin() + kDemoFamilies.size()) == kDemoFamilies);

  const kernels::KernelFamily& vc = kernels::find_family("vector_copy");
  CHECK(kernels::resolve_options(vc, {}) == kernels::Options{{"dtype", "f32"}, {"threads", "128"}});
  CHECK(kernels::resolve_options(vc, {{"threads", "256"}}) == kernels::Options{{"dtype", "f32"}, {"threads", "256"}});
  // Options print in the family's order, not the map's.
  CHECK(kernels::dump_arguments(vc, {{"threads", "256"}, {"dtype", "bf16"}}) ==
        "vector_copy --dtype bf16 --threads 256");

  // Without an explicit list, every combination of values, each once.
  for (const kernels::KernelFamily& f : kernels::kernel_families()) {
    INFO(f.name);
    const std::vector<kernels::Options> configs = kernels::listed_configurations(f);
    if (f.listed.empty()) {
      size_t product = 1;
      for (const kernels::OptionSpec& s : f.options) product *= s.values.size();
      CHECK(configs.size() == product);
    }
    CHECK(std::set<kernels::Options>(configs.begin(), configs.end()).size() == configs.size());
    for (const kernels::Options& o : configs) CHECK(kernels::resolve_options(f, o) == o);
  }
}

TEST_CASE("kernels: registry misuse names the valid choices") {
  CHECK_THROWS_WITH_AS(kernels::find_family("nope"), "unknown kernel 'nope' (valid: vector_copy, tma_tile, wgmma_tile, elementwise, hopper_gemm)",
                       Error);
  CHECK_THROWS_WITH_AS(kernels::find_family(""), "unknown kernel '' (valid: vector_copy, tma_tile, wgmma_tile, elementwise, hopper_gemm)", Error);

  const kernels::KernelFamily& vc = kernels::find_family("vector_copy");
  CHECK_THROWS_WITH_AS(kernels::resolve_options(vc, {{"bogus", "1"}}),
                       "unknown option --bogus for vector_copy (valid: --dtype, --threads)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_options(vc, {{"dtype", "f16"}}),
                       "invalid value 'f16' for vector_copy --dtype (valid: f32, bf16, f64)", Error);
  const kernels::KernelFamily& tma = kernels::find_family("tma_tile");
  CHECK_THROWS_WITH_AS(kernels::resolve_options(tma, {{"swizzle", "128"}}),
                       "invalid value '128' for tma_tile --swizzle (valid: 128B, 64B, 32B, none)", Error);
  CHECK_THROWS_WITH_AS(kernels::resolve_options(tma, {{"n", "64"}}),
                       "unknown option --n for tma_tile (valid: --dtype, --rows, --swizzle)", Error);
  const kernels::KernelFamily& wg = kernels::find_family("wgmma_tile");
  CHECK_THROWS_WITH_AS(kernels::resolve_options(wg, {{"n", "96"}}),
                       "invalid value '96' for wgmma_tile --n (valid: 64, 128, 256)", Error);
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
  for (const tessel::kernels::KernelFamily& f : tessel::kernels::kernel_families()) {
    const std::string ptx = tessel::codegen::print_ptx(f.generate(tessel::kernels::resolve_options(f, {})));
    const tessel::test::PtxasResult r = tessel::test::run_ptxas(ptx, "sm_90a");
    INFO(f.name << ":\n" << r.log);
    CHECK(r.ok);
  }
}
