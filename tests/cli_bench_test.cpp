// cli_bench_test.cpp: `tessel bench gemm` as a user runs it: its options and their error messages
// (CPU), the clear failure without a GPU, and a small run on a GPU (skipped without one).
#include <algorithm>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "gemm_bench.hpp"
#include "runtime/gpu.hpp"

namespace {

using tessel::test::check_exit;
using tessel::test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A misuse: exit status 2 and an error line containing `message`.
void check_misuse(const std::vector<std::string>& args, const std::string& message) {
  std::vector<std::string> full{"bench"};
  full.insert(full.end(), args.begin(), args.end());
  const tessel::test::CliRun r = run_cli(full);
  INFO("args: " << [&] {
    std::string s;
    for (const auto& a : full) s += a + " ";
    return s;
  }());
  check_exit(r, 2);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(contains(r.err, message));
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("cli bench: help") {
  const tessel::test::CliRun r = run_cli({"bench", "--help"});
  check_exit(r, 0);
  CHECK(contains(r.out, "usage: tessel bench NAME"));
  CHECK(contains(r.out, "tessel bench gemm --m M --n N --k K"));
  CHECK(contains(r.out, "--sweep"));
  CHECK(contains(r.out, "TESSEL_CUBLASLT"));
  const tessel::test::CliRun h = run_cli({"help", "bench"});
  check_exit(h, 0);
  CHECK(h.out == r.out);
  CHECK(run_cli({"bench", "gemm", "-h"}).out == r.out);
  CHECK(contains(run_cli({"--help"}).out, "bench"));
}

TEST_CASE("cli bench: options are checked, and the messages name the valid values") {
  check_misuse({}, "tessel bench needs a benchmark: gemm");
  check_misuse({"conv"}, "unknown benchmark 'conv' (valid: gemm, or a kernel's name from `tessel list`)");
  // A catalog name is `bench gemm --kernel NAME`: a kernel of another operation is refused.
  check_misuse({"tessel_elementwise_add_f32"},
               "--kernel tessel_elementwise_add_f32 is of operation elementwise; tessel bench times GEMMs");
  check_misuse({"tessel_hopper_gemm_bf16_bf16_128x256x64_s4_kkr", "--sweep", "--m", "8"},
               "--sweep runs its own list of problems; it takes no --m");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--dtype", "f64"},
               "--dtype 'f64' is not a type the benchmark runs (valid: bf16, f16, f32, e4m3, e5m2)");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--out", "e4m3"},
               "--out 'e4m3' is not an output type the benchmark runs (valid: bf16, f16, f32)");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--a-major", "n"},
               "--a-major 'n' is not a major (valid: k or m");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--b-major", "m"},
               "--b-major 'm' is not a major (valid: k or n");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--out-major", "k"},
               "--out-major 'k' is not a major (valid: n or m");
  check_misuse({"gemm", "--n", "8", "--k", "8"}, "needs --m, --n and --k (or --sweep)");
  check_misuse({"gemm", "--m", "0", "--n", "8", "--k", "8"}, "--m: '0' is not an integer in [1, 1048576]");
  check_misuse({"gemm", "--m", "8x", "--n", "8", "--k", "8"}, "--m: '8x' is not an integer in [1, 1048576]");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--iters", "0"}, "--iters: '0' is not an integer in [1,");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--alpha", "nan"}, "--alpha: 'nan' is not a finite number");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--beta", "2x"}, "--beta: '2x' is not a finite number");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--seed", "-1"},
               "--seed: '-1' is not an integer in [0, 18446744073709551615]");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k"}, "--k needs a value");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--frobnicate"}, "unknown option '--frobnicate'");
  check_misuse({"gemm", "--sweep", "--m", "8"}, "--sweep runs its own list of problems; it takes no --m");
  check_misuse({"gemm", "--sweep", "--dtype", "f16"}, "it takes no --dtype");
  check_misuse({"gemm", "--llama", "--k", "8"}, "--llama runs its own list of problems; it takes no --k");
  check_misuse({"gemm", "--llama", "--sweep"}, "--sweep and --llama are two lists of problems: one at a time");
  check_misuse({"gemm", "--llama", "--one-call", "--class", "hopper_gemm"},
               "--one-call times tessel::gemm's own choice; it takes no --kernel or --class");
  check_misuse({"gemm", "--llama-model", "8b"}, "--llama-model picks one model of --llama; it needs --llama");
  check_misuse({"gemm", "--llama", "--llama-model", "7b"}, "--llama-model '7b' is not a model of the list (valid: 8b, 70b)");
  check_misuse({"gemm", "--llama", "--rows", "0-3"}, "--rows: '0' is not an integer in [1, 100]");
  check_misuse({"gemm", "--llama", "--llama-model", "8b", "--rows", "10-51"}, "--rows: '51' is not an integer in [10, 50]");
  check_misuse({"gemm", "--sweep", "--rows", "7"}, "--rows '7' is not FIRST-LAST (e.g. 1-25: rows 1 to 25 of the list)");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--rows", "1-2"}, "--rows picks rows of --sweep or --llama");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--splits", "2,1"}, "--splits: '1' is not an integer in [2, 32]");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--splits", "2,,4"}, "--splits: '' is not an integer in [2, 32]");
  const tessel::test::CliRun tune = run_cli({"tune", "--m", "8", "--n", "8", "--k", "8", "--splits", "33"});
  check_exit(tune, 2);
  CHECK(contains(tune.err, "--splits: '33' is not an integer in [2, 32]"));
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--class", "no_such_class"},
               "--class: no kernel class is called 'no_such_class' (valid: hopper_gemm, simt_gemm");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--kernel", "no_such_kernel"},
               "--kernel: no catalog kernel is called 'no_such_kernel'");
}

TEST_CASE("cli bench: fp8 takes K-major A and B only, and says so") {
  for (const char* t : {"e4m3", "e5m2"}) {
    check_misuse({"gemm", "--m", "64", "--n", "64", "--k", "64", "--dtype", t, "--a-major", "m"},
                 std::string("--dtype ") + t + " runs K-major A and B only (--a-major k --b-major k)");
    check_misuse({"gemm", "--m", "64", "--n", "64", "--k", "64", "--dtype", t, "--b-major", "n"},
                 "got --a-major k --b-major n");
  }
}

TEST_CASE("cli bench gpu: a small problem against cuBLAS, or a clear failure without a GPU") {
  const std::vector<std::string> args{"bench", "gemm",    "--m", "256",      "--n", "192",     "--k",
                                      "128",   "--iters", "3",   "--warmup", "1",   "--class", "simt_gemm"};
  if (const std::string why = tessel::test::gpu_unavailable(); !why.empty()) {
    // Valid options, no GPU: exit 1 with the reason.
    const tessel::test::CliRun r = run_cli(args);
    check_exit(r, 1);
    CHECK(contains(r.err, "error: tessel bench gemm needs a GPU: "));
    tessel::test::skip(why);
    return;
  }
  const tessel::test::CliRun r = run_cli(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  check_exit(r, 0);
  CHECK(contains(r.out, "seed: "));
  CHECK(contains(r.out, "TFLOP/s"));
  CHECK(contains(r.out, "256x192x128"));
  CHECK(contains(r.out, "tessel_simt_gemm_bf16"));
  CHECK_FALSE(contains(r.out, "warning:"));
  // fp8 needs sm_89+ in cuBLAS; the simt class has no fp8 kernel: the row says so, cuBLAS still runs.
  const tessel::test::CliRun f = run_cli({"bench", "gemm", "--m", "128", "--n", "128", "--k", "128", "--dtype", "e4m3",
                                          "--iters", "2", "--warmup", "1", "--class", "simt_gemm"});
  INFO("fp8 stdout: " << f.out << "\nstderr: " << f.err);
  check_exit(f, 0);
  CHECK(contains(f.out, "no catalog kernel of class simt_gemm takes the operands as they lie"));
}

// The list of issue 19's sweep, against the models' dimensions written out here: 2 models x 5
// projections x 5 token counts x 2 forms, bf16; the forward form takes the weights as stored.
TEST_CASE("cli bench: --llama's problems are a Llama model's projections, forward and weight gradient") {
  using tessel::cli::gemm_bench::GemmCase;
  const std::vector<GemmCase> cases = tessel::cli::gemm_bench::llama_cases();
  CHECK(cases.size() == 100);
  auto has = [&](int64_t m, int64_t n, int64_t k, char am, char bm) {
    for (const GemmCase& c : cases)
      if (c.m == m && c.n == n && c.k == k && c.a_major == am && c.b_major == bm && c.l == 1 &&
          c.dtype == tessel::codegen::Type::BF16 && c.out == tessel::codegen::Type::BF16 && c.beta == 0)
        return true;
    return false;
  };
  CHECK(has(16, 4096 + 2048, 4096, 'k', 'k'));     // 8B q/k/v, 16 tokens
  CHECK(has(1, 128256, 4096, 'k', 'k'));           // 8B lm head, decoding one token
  CHECK(has(8192, 4096, 14336, 'k', 'k'));         // 8B down, prefill
  CHECK(has(1024, 2 * 28672, 8192, 'k', 'k'));     // 70B gate/up
  CHECK(has(8192, 8192, 128, 'm', 'n'));           // 70B o's weight gradient over 128 tokens
  CHECK(has(128256, 8192, 8192, 'm', 'n'));        // 70B lm head's weight gradient, 8192 tokens
  CHECK(has(14336 * 2, 4096, 1, 'm', 'n'));        // 8B gate/up's gradient from one token
  CHECK(!has(16, 4096, 4096, 'm', 'n'));
  // --llama-model: one model's half of the list.
  const std::vector<GemmCase> small = tessel::cli::gemm_bench::llama_cases("8b");
  const std::vector<GemmCase> large = tessel::cli::gemm_bench::llama_cases("70b");
  CHECK(small.size() == 50);
  CHECK(large.size() == 50);
  CHECK(std::any_of(small.begin(), small.end(), [](const GemmCase& c) { return c.k == 14336; }));
  CHECK(std::none_of(small.begin(), small.end(), [](const GemmCase& c) { return c.k == 28672; }));
  CHECK(std::any_of(large.begin(), large.end(), [](const GemmCase& c) { return c.k == 28672; }));
  // --rows: a part of the list, in the list's order (the 70B list's last five rows).
  bool help = false;
  const std::vector<GemmCase> part =
      tessel::cli::gemm_bench::parse_gemm_options({"--llama", "--llama-model", "70b", "--rows", "46-50"}, help).cases;
  REQUIRE(part.size() == 5);
  for (size_t i = 0; i < part.size(); ++i) {
    CHECK(part[i].m == large[45 + i].m);
    CHECK(part[i].n == large[45 + i].n);
    CHECK(part[i].k == large[45 + i].k);
  }
}
