// tuning_host_path_test.cpp: the tuning cache on the one-call GEMM's host path, on the stand-in
// driver: tessel::gemm runs the kernel the cache names for the problem's class (its recorded
// launches are that kernel's, and their emulated result matches the f64 reference), repeated
// calls still only launch; `tessel tune` (on the stand-in: every time 0) writes an entry that
// tessel::gemm then takes.
#include <doctest/doctest.h>

#include <filesystem>

#include "algebra/support.hpp"
#include "cli_support.hpp"
#include "emulated_gemm.hpp"
#include "stand_in.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/tuning_cache.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::GemmArguments;
using kernels::matrix_view;
using test::EmulatedGemm;
using test::other_calls;
using test::StandIn;

namespace {

// The arguments a problem gets in the emulator's memory, for its key (addresses 256-byte aligned).
GemmArguments at_aligned_addresses(const kernels::GemmProblem& p) {
  return p.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32);
}

}  // namespace

TEST_CASE("host path: tessel::gemm runs the tuning cache's kernel, and repeated calls only launch") {
  StandIn& s = StandIn::get();
  TESSEL_RNG(rng);
  const int64_t M = 72, N = 80, K = 96;  // a shape no other host-path test chooses for
  auto problem = [&] {
    return kernels::make_gemm_problem(matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, false),
                                      matrix_view(Type::BF16, 0, M, N, true), std::nullopt, 1.0, 0.0, rng);
  };
  const kernels::GemmProblem p = problem();
  const kernels::GemmDevice dev = kernels::gemm_device_in_use();
  const kernels::GemmRanking r = kernels::rank_gemm(at_aligned_addresses(p), dev);
  REQUIRE(r.ranked.size() >= 2);
  // The model's second choice (another kernel than its first), as if measured fastest.
  const kernels::GemmChoice& second = r.ranked[1];
  REQUIRE(second.kernel->name() != r.ranked[0].kernel->name());
  REQUIRE_FALSE(second.any_packed());
  const std::filesystem::path file = test::scratch() / "host_path_tuning.json";
  kernels::TuningCache c;
  c.entries[kernels::tuning_key(at_aligned_addresses(p), dev)] =
      kernels::TuningEntry{second.kernel->name(), 1, 0.01, r.ranked[0].kernel->name(), 1, 0.02};
  c.write(file.string());
  kernels::use_tuning_cache(file.string());

  EmulatedGemm e;
  const kernels::GemmChoice& choice = e.run(p, 1);  // the launch is the tuned kernel's (run_recorded), checked
  INFO(choice.describe() << ": " << choice.terms);
  CHECK(choice.kernel->name() == second.kernel->name());
  CHECK(choice.source == "the tuning cache " + file.string());
  CHECK(std::string(s.launches().back().entry) != r.ranked[0].kernel->artifact_for(at_aligned_addresses(p)).kernel);
  e.run(problem(), 1);  // the same class, new addresses and values: the same kernel, checked again

  // Repeated calls on the same arguments: a launch each, nothing else asked of the driver.
  rt::DeviceBuffer a(M * K * 2), b(K * N * 2), o(M * N * 2);
  const GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr());
  CHECK(&kernels::gemm(g) == &choice);
  s.reset();
  for (int i = 0; i < 10; ++i) kernels::gemm(g);
  CHECK(s.calls("cuLaunchKernelEx") == 10);
  CHECK(other_calls(s) == 0);
  kernels::use_tuning_cache("");
}

TEST_CASE("host path: tessel tune on the stand-in writes the entry that tessel::gemm takes") {
  StandIn::get();
  TESSEL_RNG(rng);
  const std::filesystem::path file = test::scratch() / "host_path_tune.json";
  std::error_code ec;
  std::filesystem::remove(file, ec);
  // tessel tune's problem: row-major A, B and out (its defaults), 256-byte aligned buffers.
  const int64_t M = 88, N = 96, K = 112;
  const test::CliRun run =
      test::run_cli({"tune", "--m", std::to_string(M), "--n", std::to_string(N), "--k", std::to_string(K),
                     "--candidates", "3", "--iters", "2", "--warmup", "1", "--out-file", file.string()});
  test::check_exit(run, 0);
  CHECK(run.out.find("wrote 1 entry into the tuning cache " + file.string()) != std::string::npos);
  const kernels::TuningCache written = kernels::TuningCache::read(file.string());
  REQUIRE(written.entries.size() == 1);
  const kernels::GemmProblem p =
      kernels::make_gemm_problem(matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, true),
                                 matrix_view(Type::BF16, 0, M, N, true), std::nullopt, 1.0, 0.0, rng);
  const std::string key = kernels::tuning_key(at_aligned_addresses(p), kernels::gemm_device_in_use());
  REQUIRE(written.entries.count(key) == 1);
  const kernels::TuningEntry& entry = written.entries.at(key);
  CHECK(run.out.find(entry.kernel) != std::string::npos);  // in the table
  kernels::use_tuning_cache(file.string());
  EmulatedGemm e;
  const kernels::GemmChoice& choice = e.run(p);
  CHECK(choice.kernel->name() == entry.kernel);
  CHECK(choice.splits == entry.splits);
  CHECK(choice.source == "the tuning cache " + file.string());
  kernels::use_tuning_cache("");
}
