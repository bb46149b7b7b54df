// cli_tune_test.cpp: `tessel tune` as a user runs it: its help and misuses (CPU), the clear failure
// without a GPU (the driver made unavailable, so it runs on every machine), and on a GPU (skipped
// without one) a small problem tuned, then tessel::gemm taking the tuned kernel from the file and
// matching the f64 host reference.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "runtime/gpu.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/tuning_cache.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

namespace {

using tessel::test::check_exit;
using tessel::test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A misuse: exit status 2, an error line containing `message`, nothing on stdout.
void check_misuse(const std::vector<std::string>& args, const std::string& message,
                  const std::vector<std::string>& env = {}) {
  std::vector<std::string> full{"tune"};
  full.insert(full.end(), args.begin(), args.end());
  const tessel::test::CliRun r = run_cli(full, "", env);
  check_exit(r, 2);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(contains(r.err, message));
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("cli tune: help, and the commands' list names it") {
  const tessel::test::CliRun r = run_cli({"tune", "--help"});
  check_exit(r, 0);
  CHECK(contains(r.out, "usage: tessel tune --m M --n N --k K"));
  CHECK(contains(r.out, "--candidates N"));
  CHECK(contains(r.out, "--out-file PATH"));
  const tessel::test::CliRun h = run_cli({"help", "tune"});
  check_exit(h, 0);
  CHECK(h.out == r.out);
  const tessel::test::CliRun all = run_cli({"--help"});
  CHECK(contains(all.out, "  tune "));
}

TEST_CASE("cli tune: misuses name the option and the rule") {
  const std::string file = (tessel::test::scratch() / "misuse.json").string();
  check_misuse({"--m", "64", "--n", "64", "--k", "64"},
               "tessel tune needs a file to write: --out-file PATH, or TESSEL_TUNING_CACHE=PATH");
  check_misuse({"--m", "64", "--n", "64", "--k", "64", "--out-file", file, "--candidates", "0"}, "--candidates");
  check_misuse({"--m", "64", "--n", "64", "--k", "64", "--out-file", file, "--class", "simt_gemm"},
               "tessel tune times the cost model's candidates; it takes no --kernel or --class");
  check_misuse({"--m", "64", "--n", "64", "--k", "64", "--out-file", file, "--one-call"},
               "tessel tune takes no --one-call: it times the cost model's candidates");
  check_misuse({"--sweep", "--each", "--out-file", file}, "tessel tune takes no --each");
  check_misuse({"--m", "64", "--n", "64", "--out-file", file}, "tessel tune needs --m, --n and --k (or --sweep)");
  check_misuse({"--sweep", "--m", "64", "--out-file", file}, "--sweep runs its own list of problems; it takes no --m");
  check_misuse({"--m", "64", "--n", "64", "--k", "64", "--out-file", file, "--bogus"}, "unknown option '--bogus'");
  check_misuse({"--m", "64", "--n", "64", "--k", "64", "--out-file", file, "extra"},
               "unexpected argument 'extra' (tessel tune takes options only)");
}

TEST_CASE("cli tune: without a GPU it exits 1 with the reason, and writes nothing") {
  const std::filesystem::path file = tessel::test::scratch() / "no_gpu.json";
  for (const bool from_env : {false, true}) {
    std::vector<std::string> args{"tune", "--m", "64", "--n", "64", "--k", "64"};
    std::vector<std::string> env{"TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"};
    if (from_env)
      env.push_back("TESSEL_TUNING_CACHE=" + file.string());
    else
      args.insert(args.end(), {"--out-file", file.string()});
    const tessel::test::CliRun r = run_cli(args, "", env);
    check_exit(r, 1);
    CHECK(r.err.rfind("error: tessel tune needs a GPU: no GPU found (", 0) == 0);
    CHECK(contains(r.err, "/nonexistent/libcuda.so.1"));
    CHECK_FALSE(std::filesystem::exists(file));
  }
}

TEST_CASE("cli tune gpu: a tuned problem's kernel is what tessel::gemm then runs, matching the reference") {
  TESSEL_REQUIRE_GPU(90);
  using namespace tessel;
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  // A shape no other test runs through tessel::gemm in this process (a choice once made stays).
  const int64_t M = 328, N = 264, K = 520;
  const std::filesystem::path file = test::scratch() / "gpu_tune.json";
  const test::CliRun r = run_cli({"tune", "--m", std::to_string(M), "--n", std::to_string(N), "--k", std::to_string(K),
                                  "--candidates", "4", "--iters", "5", "--warmup", "2", "--out-file", file.string()});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  check_exit(r, 0);
  CHECK(contains(r.out, "fastest: "));
  const kernels::TuningCache written = kernels::TuningCache::read(file.string());
  REQUIRE(written.entries.size() == 1);
  const kernels::TuningEntry& entry = written.entries.begin()->second;
  CHECK(entry.ms > 0);
  CHECK(entry.heuristic_ms >= entry.ms);

  // tessel tune's problem (row-major bf16 A, B and out), on fresh random values.
  test::gpu_context();
  const kernels::GemmProblem p =
      kernels::make_gemm_problem(kernels::matrix_view(codegen::Type::BF16, 0, M, K, true),
                                 kernels::matrix_view(codegen::Type::BF16, 0, K, N, true),
                                 kernels::matrix_view(codegen::Type::BF16, 0, M, N, true), std::nullopt, 1.0, 0.0, rng);
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   o = rt::DeviceBuffer::from(p.out.bytes);
  const kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr());
  REQUIRE(written.entries.begin()->first == kernels::tuning_key(g, kernels::gemm_device_in_use()));
  kernels::use_tuning_cache(file.string());
  const kernels::GemmChoice& choice = tessel::gemm(g);
  INFO(choice.describe() << ": " << choice.terms);
  CHECK(choice.kernel->name() == entry.kernel);
  CHECK(choice.splits == entry.splits);
  CHECK(choice.source == "the tuning cache " + file.string());
  test::gpu_context().synchronize();
  CHECK(kernels::check_gemm(p, o.to_vector<uint8_t>()) == "");
  kernels::use_tuning_cache("");
}

TEST_CASE("cli tune: tessel gemm --emulate and --explain run the tuning cache's kernel, and ignore a stale one") {
  using namespace tessel;
  // `tessel gemm`'s problem for these flags (row-major A, B and out; addresses 256-byte aligned),
  // and an H100's ranking of it (what --emulate and --explain --cc 90 --sms 132 choose for).
  const int64_t M = 72, N = 80, K = 64;
  kernels::GemmArguments g = kernels::make_gemm_arguments(kernels::matrix_view(codegen::Type::BF16, 0, M, K, true),
                                                          kernels::matrix_view(codegen::Type::BF16, 0, K, N, true),
                                                          kernels::matrix_view(codegen::Type::BF16, 0, M, N, true));
  g.A.data = uint64_t{1} << 32;
  g.B.data = uint64_t{2} << 32;
  g.out.data = uint64_t{3} << 32;
  const kernels::GemmDevice h100{90, 132};
  const kernels::GemmRanking r = kernels::rank_gemm(g, h100);
  REQUIRE(r.ranked.size() >= 2);
  const std::string second = r.ranked[1].kernel->name();
  REQUIRE(second != r.ranked[0].kernel->name());
  const std::filesystem::path file = tessel::test::scratch() / "emulate.json";
  kernels::TuningCache c;
  c.entries[kernels::tuning_key(g, h100)] = kernels::TuningEntry{second, 1, 0.01, r.ranked[0].kernel->name(), 1, 0.02};
  c.write(file.string());
  const std::vector<std::string> env{"TESSEL_TUNING_CACHE=" + file.string(),
                                     "TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"};
  const std::vector<std::string> problem{"gemm",           "--m", std::to_string(M), "--n", std::to_string(N), "--k",
                                         std::to_string(K)};

  std::vector<std::string> args = problem;
  args.push_back("--emulate");
  const tessel::test::CliRun e = run_cli(args, "", env);
  INFO("stdout: " << e.out << "\nstderr: " << e.err);
  check_exit(e, 0);
  CHECK(contains(e.out, "kernel: " + second + " (from the tuning cache " + file.string() + ")"));
  CHECK(contains(e.out, "ok    "));  // every element against the f64 host reference

  args = problem;
  args.insert(args.end(), {"--explain", "--cc", "90", "--sms", "132"});
  const tessel::test::CliRun x = run_cli(args, "", env);
  check_exit(x, 0);
  CHECK(contains(x.out, "choice: " + second + " (from the tuning cache " + file.string() + ")"));
  // A forced schedule wins over the file.
  args.insert(args.end(), {"--schedule", "data-parallel"});
  const tessel::test::CliRun f = run_cli(args, "", env);
  check_exit(f, 0);
  CHECK(contains(f.out, "choice: " + r.ranked[0].kernel->name() + "\n"));

  // A stale entry: the model's choice, and one warning naming the file and the kernel.
  c.entries.begin()->second.kernel = "tessel_hopper_gemm_removed_since";
  c.write(file.string());
  args = problem;
  args.insert(args.end(), {"--explain", "--cc", "90", "--sms", "132"});
  const tessel::test::CliRun s = run_cli(args, "", env);
  check_exit(s, 0);
  CHECK(contains(s.out, "choice: " + r.ranked[0].kernel->name() + "\n"));
  CHECK(contains(s.err, "tessel: warning: the tuning cache " + file.string()));
  CHECK(contains(s.err, "names tessel_hopper_gemm_removed_since, which the catalog does not have"));
}
