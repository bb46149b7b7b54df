// cli_bench_test.cpp: `tessel bench gemm` as a user runs it: its options and their error messages
// (CPU), the clear failure without a GPU, and a small run on a GPU (skipped without one).
#include <algorithm>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "cublas_peer.hpp"
#include "gemm_bench.hpp"
#include "runtime/gpu.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/runtime.hpp"

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
  CHECK(contains(r.out, "--c-major n|m"));
  CHECK(contains(r.out, "--broadcast LIST"));
  CHECK(contains(r.out, "--list"));
  CHECK(contains(r.out, "not\ncounted in its time"));
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
  check_misuse({"gemm", "--llama", "--sweep"},
               "--sweep, --llama and --random are three lists of problems: one at a time");
  check_misuse({"gemm", "--llama", "--one-call", "--class", "hopper_gemm"},
               "--one-call times tessel::gemm's own choice; it takes no --kernel or --class");
  check_misuse({"gemm", "--llama-model", "8b"}, "--llama-model picks one model of --llama; it needs --llama");
  check_misuse({"gemm", "--llama", "--llama-model", "7b"}, "--llama-model '7b' is not a model of the list (valid: 8b, 70b)");
  check_misuse({"gemm", "--llama", "--rows", "0-3"}, "--rows: '0' is not an integer in [1, 100]");
  check_misuse({"gemm", "--llama", "--llama-model", "8b", "--rows", "10-51"}, "--rows: '51' is not an integer in [10, 50]");
  check_misuse({"gemm", "--sweep", "--rows", "7"}, "--rows '7' is not FIRST-LAST (e.g. 1-25: rows 1 to 25 of the list)");
  check_misuse({"gemm", "--m", "8", "--n", "8", "--k", "8", "--rows", "1-2"},
               "--rows picks rows of --sweep, --llama or --random");
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

TEST_CASE("cli bench: fp8 takes an M-major A and an N-major B (cuBLAS's peer then runs on K-major copies)") {
  using tessel::cli::gemm_bench::parse_gemm_options;
  for (const char* t : {"e4m3", "e5m2"}) {
    bool help = false;
    const tessel::cli::gemm_bench::GemmCase c =
        parse_gemm_options({"--m", "64", "--n", "64", "--k", "64", "--dtype", t, "--a-major", "m", "--b-major", "n"},
                           help)
            .cases.at(0);
    CHECK(c.a_major == 'm');
    CHECK(c.b_major == 'n');
    CHECK(c.out == tessel::codegen::Type::BF16);
    // B's default for fp8 stays K-major.
    CHECK(parse_gemm_options({"--m", "64", "--n", "64", "--k", "64", "--dtype", t}, help).cases.at(0).b_major == 'k');
  }
}

TEST_CASE("cli bench: a C of its own and broadcast batches, and their misuses") {
  using tessel::cli::gemm_bench::GemmCase;
  using tessel::cli::gemm_bench::parse_gemm_options;
  bool help = false;
  GemmCase c = parse_gemm_options({"--m", "8", "--n", "16", "--k", "32", "--out-major", "m", "--c-major", "n",
                                   "--beta", "2", "--l", "4", "--broadcast", "c,a"},
                                  help)
                   .cases.at(0);
  CHECK(c.c_major == 'n');
  CHECK(c.out_major == 'm');
  CHECK(c.beta == 2);
  CHECK(c.broadcast_a);
  CHECK_FALSE(c.broadcast_b);
  CHECK(c.broadcast_c);
  CHECK(tessel::cli::gemm_bench::case_shape(c) == "4*8x16x32 bcast a,c");
  CHECK(tessel::cli::gemm_bench::case_majors(c) == "k,n,m C:n");
  // Without them: C is out, nothing broadcast.
  c = parse_gemm_options({"--m", "8", "--n", "16", "--k", "32", "--beta", "1"}, help).cases.at(0);
  CHECK(c.c_major == 0);
  CHECK_FALSE((c.broadcast_a || c.broadcast_b || c.broadcast_c));
  CHECK(tessel::cli::gemm_bench::case_majors(c) == "k,n,n");
  // The problem's arguments carry them: C a view of its own with a batch stride of 0, A's too.
  c = parse_gemm_options({"--m", "8", "--n", "16", "--k", "32", "--c-major", "m", "--beta", "1", "--l", "3",
                          "--broadcast", "a,c"},
                         help)
          .cases.at(0);
  const tessel::kernels::GemmArguments g = tessel::cli::gemm_bench::case_arguments(c);
  REQUIRE(g.C.has_value());
  CHECK(g.C->stride == std::vector<int64_t>{0, 1, 8});
  CHECK(g.out.stride == std::vector<int64_t>{8 * 16, 16, 1});
  CHECK(g.A.stride == std::vector<int64_t>{0, 32, 1});
  CHECK(g.B.stride == std::vector<int64_t>{32 * 16, 16, 1});

  const std::vector<std::string> p{"gemm", "--m", "8", "--n", "8", "--k", "8"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = p;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  check_misuse(with({"--c-major", "k", "--beta", "1"}), "--c-major 'k' is not a major (valid: n or m");
  check_misuse(with({"--c-major", "n"}),
               "--c-major n gives C a tensor of its own, which only a nonzero --beta reads (out = alpha * A @ B + "
               "beta * C); got --beta 0");
  check_misuse(with({"--l", "2", "--broadcast", "d"}),
               "--broadcast 'd' is not an operand that can broadcast (valid: a, b, c, as a comma-separated list)");
  check_misuse(with({"--l", "2", "--broadcast", "a,"}), "--broadcast '' is not an operand that can broadcast");
  check_misuse(with({"--l", "2", "--broadcast", "b,b"}), "--broadcast names 'b' twice");
  check_misuse(with({"--broadcast", "b"}),
               "--broadcast gives an operand a batch stride of 0 (one matrix for every batch); it needs --l 2 or "
               "more, got no --l");
  check_misuse(with({"--l", "1", "--broadcast", "b"}), "it needs --l 2 or more, got --l 1");
  check_misuse(with({"--l", "2", "--beta", "1", "--broadcast", "c"}),
               "--broadcast c needs a C of its own (--c-major n|m): out itself cannot have a batch stride of 0");
  check_misuse({"gemm", "--sweep", "--c-major", "n"}, "--sweep runs its own list of problems; it takes no --c-major");
  check_misuse({"gemm", "--llama", "--broadcast", "b"}, "--llama runs its own list of problems; it takes no --broadcast");
  const tessel::test::CliRun tune = run_cli({"tune", "--sweep", "--list"});
  check_exit(tune, 2);
  CHECK(contains(tune.err, "tessel tune takes no --list"));
}

// Rows 24 to 33 of --sweep: issue 18's classes that the rows before lacked, appended so that the
// rows before keep their numbers.
TEST_CASE("cli bench: --sweep's new rows (fp8 M/N-major, a C of its own, broadcast batches) follow the old ones") {
  using tessel::cli::gemm_bench::GemmCase;
  using tessel::codegen::Type;
  const std::vector<GemmCase> cases = tessel::cli::gemm_bench::sweep_cases();
  REQUIRE(cases.size() == 33);
  // The old rows: nothing of the new classes among them; their known ends where they were.
  for (size_t i = 0; i < 23; ++i) {
    INFO("row " << i + 1);
    CHECK(cases[i].c_major == 0);
    CHECK_FALSE((cases[i].broadcast_a || cases[i].broadcast_b || cases[i].broadcast_c));
    if (tessel::codegen::is_fp8(cases[i].dtype)) CHECK((cases[i].a_major == 'k' && cases[i].b_major == 'k'));
  }
  CHECK((cases[0].m == 8192 && cases[0].n == 8192 && cases[0].k == 8192 && cases[0].dtype == Type::BF16));
  CHECK((cases[22].l == 8 && cases[22].k == 1023 && cases[22].dtype == Type::F16));
  struct Want {
    int64_t l, m, n, k;
    Type in, out;
    char a, b, o, c;
    double beta;
    bool ba, bb, bc;
  };
  const Want want[] = {
      {1, 4096, 4096, 4096, Type::E4M3, Type::BF16, 'm', 'k', 'n', 0, 0, false, false, false},
      {1, 8192, 8192, 4096, Type::E4M3, Type::BF16, 'm', 'k', 'n', 0, 0, false, false, false},
      {1, 4096, 4096, 4096, Type::E4M3, Type::BF16, 'k', 'n', 'n', 0, 0, false, false, false},
      {1, 4096, 4096, 4096, Type::E5M2, Type::BF16, 'm', 'n', 'n', 0, 0, false, false, false},
      {1, 2000, 1500, 1000, Type::BF16, Type::BF16, 'k', 'k', 'm', 'n', 2, false, false, false},
      {1, 4096, 4096, 4096, Type::BF16, Type::BF16, 'k', 'n', 'n', 'm', 1, false, false, false},
      {1, 4096, 4096, 4096, Type::F16, Type::F32, 'k', 'k', 'n', 'n', 1, false, false, false},
      {8, 1024, 1024, 1024, Type::BF16, Type::BF16, 'k', 'k', 'n', 0, 0, false, true, false},
      {16, 512, 4096, 4096, Type::F16, Type::F32, 'k', 'n', 'n', 0, 0, true, false, false},
      {8, 2048, 2048, 1024, Type::BF16, Type::BF16, 'k', 'k', 'n', 'n', 1, false, false, true},
  };
  for (size_t i = 0; i < 10; ++i) {
    const GemmCase& c = cases[23 + i];
    const Want& w = want[i];
    INFO("row " << 24 + i);
    CHECK((c.l == w.l && c.m == w.m && c.n == w.n && c.k == w.k));
    CHECK((c.dtype == w.in && c.out == w.out));
    CHECK((c.a_major == w.a && c.b_major == w.b && c.out_major == w.o && c.c_major == w.c));
    CHECK(c.beta == w.beta);
    CHECK((c.broadcast_a == w.ba && c.broadcast_b == w.bb && c.broadcast_c == w.bc));
    CHECK_FALSE(c.pad_ld);
  }
  // Row 28 is row 20 (a column-major out, alpha 0.5, beta 2) with a row-major C of its own.
  const GemmCase &row20 = cases[19], &row28 = cases[27];
  CHECK((row20.m == row28.m && row20.n == row28.n && row20.k == row28.k && row20.b_major == row28.b_major));
  CHECK((row20.alpha == 0.5 && row28.alpha == 0.5 && row20.beta == 2 && row20.c_major == 0));
  // --list numbers them as --rows takes them, without a GPU.
  const tessel::test::CliRun r = run_cli({"bench", "gemm", "--sweep", "--rows", "24-33", "--list"});
  INFO(r.out << r.err);
  check_exit(r, 0);
  CHECK(contains(r.out, "  24  4096x4096x4096           e4m3->bf16 m,k,n      1, 0         --"));
  CHECK(contains(r.out, "  27  4096x4096x4096           e5m2->bf16 m,n,n      1, 0         --"));
  CHECK(contains(r.out, "  28  2000x1500x1000           bf16->bf16 k,k,m C:n  0.5, 2       --"));
  CHECK(contains(r.out, "  31  8*1024x1024x1024 bcast b bf16->bf16 k,k,n      1, 0         --"));
  CHECK(contains(r.out, "  32  16*512x4096x4096 bcast a f16->f32   k,n,n      1, 0         --"));
  CHECK(contains(r.out, "  33  8*2048x2048x1024 bcast c bf16->bf16 k,k,n C:n  1, 1         --"));
  CHECK_FALSE(contains(r.out, "  23  "));
  CHECK_FALSE(contains(r.out, "  34  "));
  const tessel::test::CliRun all = run_cli({"bench", "gemm", "--sweep", "--list"});
  check_exit(all, 0);
  CHECK(contains(all.out,
                 "   1  8192x8192x8192           bf16->bf16 k,n,n      1, 0         --m 8192 --n 8192 --k 8192 "));
  CHECK(contains(all.out, "  33  "));
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
  if (!tessel::bench::probe_cublaslt(tessel::bench::cublaslt_candidates()).available) return;
  // What cublasLt does not take as it lies, cuBLAS runs on copies, and its output still matches the
  // host reference (a warning otherwise): an fp8 A that is not K-major (sm_89+) ...
  const int cc = tessel::rt::device_properties(0).compute_capability();
  if (cc >= 89) {
    const tessel::test::CliRun m = run_cli({"bench", "gemm", "--m", "128", "--n", "96", "--k", "160", "--dtype",
                                            "e4m3", "--a-major", "m", "--iters", "2", "--warmup", "1", "--class",
                                            "simt_gemm"});
    INFO("fp8 M-major stdout: " << m.out << "\nstderr: " << m.err);
    check_exit(m, 0);
    if (tessel::bench::cublaslt_fp8_needs_tn(cc)) CHECK(contains(m.out, "cuBLAS runs on a copy of A: A is M-major"));
    CHECK(contains(m.out, "not counted in cuBLAS's time"));
    CHECK_FALSE(contains(m.out, "warning:"));
  }
  // ... and a C of its own in the other major than out, with B and C broadcast over the batch.
  const tessel::test::CliRun c = run_cli({"bench", "gemm", "--m", "96", "--n", "80", "--k", "64", "--l", "3",
                                          "--out-major", "m", "--c-major", "n", "--beta", "0.5", "--broadcast", "b,c",
                                          "--iters", "2", "--warmup", "1", "--class", "simt_gemm"});
  INFO("C of its own stdout: " << c.out << "\nstderr: " << c.err);
  check_exit(c, 0);
  CHECK(contains(c.out, "3*96x80x64 bcast b,c"));
  CHECK(contains(c.out, "cuBLAS runs on a copy of C: C is N-major where out is M-major"));
  CHECK_FALSE(contains(c.out, "warning:"));
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
