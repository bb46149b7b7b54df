// byo_gemm_f64_test.cpp: the bring-your-own example, checked: registered from user code, found by
// a filter on its class, refused with a reason for rank-2 operands, absent for a tile M of 256,
// assembled by ptxas, and (on a GPU) run on random rank-3 problems against a host reference.
#include "byo_gemm_f64.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "codegen/ptxas.hpp"
#include "kernels/gemm_problem.hpp"
#include "runtime/gpu.hpp"
#include "cli.hpp"
#include "tessel/kernels/catalog.hpp"

using namespace tessel;
using kernels::Major;

namespace {

const kernels::MetadataFilter byo_class = [](const kernels::KernelMetadata& md) {
  return md.kernel_class == "byo_gemm_f64";
};

// Rank-3 row-major f64 views at made-up addresses (nothing is dereferenced on the CPU).
kernels::GemmArguments row_major_problem(int64_t L, int64_t M, int64_t N, int64_t K) {
  using kernels::row_major;
  return kernels::make_gemm_arguments(row_major(0x10000, codegen::Type::F64, {L, M, K}),
                                      row_major(0x20000, codegen::Type::F64, {L, K, N}),
                                      row_major(0x30000, codegen::Type::F64, {L, M, N}), 1.5, 0.5);
}

}  // namespace

TEST_CASE("byo example: the user's class is registered and found by a filter on its class") {
  REQUIRE(kernels::Registry::global().find_class("byo_gemm_f64") != nullptr);
  const std::vector<kernels::KernelPtr> all = kernels::list_kernels(byo_class);
  CHECK(all.size() == 16);  // tiles (32,32,1), (16,16,1) x row/col A x B x out
  // Row-major A, B and out: one kernel per tile fits.
  const std::vector<kernels::KernelPtr> found = kernels::get_kernels(row_major_problem(2, 100, 70, 33), byo_class);
  REQUIRE(found.size() == 2);
  for (const kernels::KernelPtr& k : found) {
    CHECK(k->metadata().kernel_class == "byo_gemm_f64");
    for (const char* op : {"A", "B", "out"}) CHECK(k->metadata().operand(op).major == Major::Row);
  }
  CHECK(found[0]->metadata().design.tile == std::array<int, 3>{32, 32, 1});
  CHECK(found[1]->metadata().design.tile == std::array<int, 3>{16, 16, 1});
  // Without the filter tessel's own f64 kernels can run it too.
  CHECK(kernels::get_kernels(row_major_problem(2, 100, 70, 33)).size() > found.size());
}

TEST_CASE("byo example: supports refuses operands that are not rank 3, saying so") {
  const kernels::KernelPtr k = kernels::find_kernel("byo_gemm_f64_32x32x1_rrr");
  kernels::GemmArguments g = row_major_problem(1, 8, 8, 8);
  CHECK(k->supports(g).ok);
  g.A = kernels::row_major(0x10000, codegen::Type::F64, {8, 8});
  const kernels::Status s = k->supports(g);
  CHECK_FALSE(s.ok);
  CHECK(s.reason == "A has rank 2; this kernel needs rank 3 (L, M, K)");
  CHECK(kernels::get_kernels(g, byo_class).empty());
  CHECK_THROWS_WITH_AS(k->compile(g), doctest::Contains("A has rank 2; this kernel needs rank 3 (L, M, K)"), Error);
}

TEST_CASE("byo example: a filter asking for tile M = 256 returns no kernel of the class") {
  const kernels::MetadataFilter tile_m_256 = [](const kernels::KernelMetadata& md) {
    return md.kernel_class == "byo_gemm_f64" && md.design.tile[0] == 256;
  };
  CHECK(kernels::list_kernels(tile_m_256).empty());
  CHECK(kernels::get_kernels(row_major_problem(1, 300, 300, 8), tile_m_256).empty());
  CHECK(kernels::list_kernels(kernels::all_of({byo_class, kernels::metadata_filter("tile-m", "16")})).size() == 8);
}

TEST_CASE("byo example: every configuration assembles with ptxas") {
  std::mt19937_64 rng(std::random_device{}());
  for (const kernels::KernelPtr& k : kernels::list_kernels(byo_class)) {
    INFO(k->name());
    const kernels::Artifact a = k->compile(test::fitting_arguments(k->metadata(), rng));
    if (!test::check_assembles(a.module)) return;  // no ptxas: reported skipped
  }
}

TEST_CASE("byo example: gpu every configuration matches the host reference on rank-3 problems") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng = test::gpu_rng();
  for (const kernels::KernelPtr& k : kernels::list_kernels(byo_class)) {
    const test::GemmProblem p = test::make_gemm_problem(k->metadata(), rng);
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    const kernels::Arguments args = p.arguments(a.ptr(), b.ptr(), o.ptr());
    // Discovered through the catalog like a built-in: the filter names the class and the tile.
    const std::vector<kernels::KernelPtr> found = kernels::get_kernels(args, [&](const kernels::KernelMetadata& md) {
      return md.kernel_class == "byo_gemm_f64" && md.design.tile == k->metadata().design.tile;
    });
    INFO(k->name() << ": " << p.describe() << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    // An extent of 1 makes a mode's major ambiguous, so several entries may fit; k must be one.
    REQUIRE(!found.empty());
    CHECK(std::any_of(found.begin(), found.end(), [&](const kernels::KernelPtr& f) { return f->name() == k->name(); }));
    const kernels::Artifact artifact = k->compile(args);
    k->run(args, artifact);
    test::gpu_context().synchronize();
    CHECK(test::check_gemm(p, o.to_vector<uint8_t>()) == "");
  }
}

namespace {

// tessel::cli::main in this process (where the user's class is registered), its output captured.
struct InProcess {
  int status = -1;
  std::string out, err;
};
InProcess in_process(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  InProcess r;
  try {
    r.status = tessel::cli::main(args);
  } catch (...) {
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    throw;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

// The bar for one registry: a program that registers its own class and runs tessel's
// command line (cli.hpp) gets it in every command, with no edit of tessel's sources.
TEST_CASE("byo example: the user's class shows up in list, dump, run --emulate and bench") {
  const InProcess list = in_process({"list", "--class", "byo_gemm_f64"});
  CHECK(list.status == 0);
  CHECK(std::count(list.out.begin(), list.out.end(), '\n') == 16);
  CHECK(list.out.find("byo_gemm_f64_32x32x1_rrr ") != std::string::npos);

  const InProcess dump = in_process({"dump", "byo_gemm_f64_16x16x1_crc"});
  INFO(dump.err);
  CHECK(dump.status == 0);
  CHECK(dump.out.find("// Generated by tessel dump byo_gemm_f64_16x16x1_crc\n") != std::string::npos);
  CHECK(dump.out.find(".visible .entry byo_gemm_f64_16x16x1_crc(") != std::string::npos);
  const InProcess listed = in_process({"dump", "--list"});
  CHECK(listed.out.find("\nbyo_gemm_f64_32x32x1_rcr\n") != std::string::npos);
  // A class without options: its kernels are named, not configured.
  const InProcess options = in_process({"dump", "byo_gemm_f64_16x16x1_crc", "--tile-m", "8"});
  CHECK(options.status == 2);
  CHECK(options.err == "error: byo_gemm_f64_16x16x1_crc takes no options: its class byo_gemm_f64 has none\n");

  const InProcess run = in_process({"run", "byo_gemm_f64_32x32x1_rcr", "--emulate", "--seed", "7"});
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(run.out.find("ok    byo_gemm_f64_32x32x1_rcr: ") != std::string::npos);
  CHECK(run.out.find("every element matches the host reference") != std::string::npos);
  const InProcess all = in_process({"run", "byo_gemm_f64", "--all", "--emulate"});
  CHECK(all.status == 0);
  CHECK(std::count(all.out.begin(), all.out.end(), '\n') == 17);  // the seed, then 16 `ok` lines

  // bench takes the name, and says why it cannot time an f64 GEMM against cuBLAS.
  const InProcess bench = in_process({"bench", "byo_gemm_f64_32x32x1_rrr", "--m", "64"});
  CHECK(bench.status == 2);
  CHECK(bench.err.find("--kernel byo_gemm_f64_32x32x1_rrr takes f64 -> f64; tessel bench gemm runs bf16") !=
        std::string::npos);
}
