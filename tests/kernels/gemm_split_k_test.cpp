// gemm_split_k_test.cpp: the one-call GEMM's choice of schedule (kernels/gemm.hpp): split-K where
// the output tiles leave SMs idle and each tile has many k-tiles, data-parallel where the tiles
// fill the device; forced schedules and split counts; a split-K choice (with and without copies
// into the workspace) run through gemm_steps in the emulator against the f64 reference; and
// `tessel gemm --schedule/--splits` on the command line.
#include <doctest/doctest.h>

#include <random>

#include "algebra/support.hpp"
#include "cli_support.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/testing/kernel_run.hpp"

using namespace tessel;
using codegen::Type;
using kernels::GemmSchedule;
using kernels::matrix_view;

namespace {

const kernels::GemmDevice kH100{90, 132};

kernels::GemmArguments problem(int64_t m, int64_t n, int64_t k) {
  kernels::GemmArguments g = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, m, k, true),
                                                          matrix_view(Type::BF16, 0, k, n, false),
                                                          matrix_view(Type::BF16, 0, m, n, true));
  g.A.data = uint64_t{1} << 32;
  g.B.data = uint64_t{2} << 32;
  g.out.data = uint64_t{3} << 32;
  return g;
}

kernels::GemmChoice best(const kernels::GemmArguments& g, GemmSchedule s = GemmSchedule::Any) {
  const kernels::GemmRanking r = kernels::rank_gemm(g, kH100, s);
  REQUIRE(!r.ranked.empty());
  return r.ranked.front();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("gemm: split-K where the tiles leave SMs idle and it measured faster, not where it measured slower") {
  // Chosen unasked: 8 (32) tiles of 64x128 over 1024 (512) k-tiles, where split-K measured 1.5x
  // (1.3x) faster than any data-parallel kernel on an H100 (docs/performance.md, session 30).
  for (auto [m, n, k] : {std::array<int64_t, 3>{256, 256, 65536}, {512, 512, 32768}}) {
    const kernels::GemmChoice c = best(problem(m, n, k));
    INFO(m << "x" << n << "x" << k << ": " << c.describe() << ": " << c.terms);
    CHECK(c.splits > 1);
    CHECK(c.schedule() == "split-K x " + std::to_string(c.splits));
    CHECK(c.kernel->metadata().options.at("schedule") == "split-k");
    // Every split keeps at least 4 k-tiles.
    CHECK((k / c.kernel->metadata().design.tile[2]) / c.splits >= 4);
    kernels::GemmArguments split = problem(m, n, k);
    split.split_k = c.splits;
    CHECK(c.workspace_bytes == c.kernel->workspace_size(split));
    CHECK(c.workspace_bytes > 0);
    // Asked for data-parallel: none of that.
    CHECK(best(problem(m, n, k), GemmSchedule::DataParallel).splits == 1);
  }
  // A decoding step's few rows: the swapped kernels' data-parallel tiles (64 of 64 x 8 or 16 over
  // 4096 columns), which measured 4-15% faster than every split count of theirs and of the
  // unswapped tiles (1 and 16 x 4096 x 14336, 16 x 4096 x 4096); and issue 19's 3072 x 768 x 12288,
  // where split-K x3 of 128x256 (216 units) measured 1.25x slower than 96 data-parallel tiles of
  // 128x192. Asked, split-K with the model's count.
  for (auto [m, n, k] :
       {std::array<int64_t, 3>{1, 4096, 14336}, {16, 4096, 14336}, {16, 4096, 4096}, {3072, 768, 12288}}) {
    const kernels::GemmChoice dp = best(problem(m, n, k));
    INFO(m << "x" << n << "x" << k << ": " << dp.describe() << ": " << dp.terms);
    CHECK(dp.splits == 1);
    if (m == 3072) CHECK(dp.kernel->metadata().design.tile[1] == 192);
    if (m <= 16) CHECK(dp.kernel->name().ends_with("_swap"));
    const kernels::GemmChoice c = best(problem(m, n, k), GemmSchedule::SplitK);
    INFO(c.describe() << ": " << c.terms);
    CHECK(c.splits > 1);
  }
  // Tiles that fill the device, or too few k-tiles to split: data-parallel, no workspace.
  for (auto [m, n, k] : {std::array<int64_t, 3>{8192, 8192, 8192}, {4096, 4096, 4096}, {8192, 8192, 1024}, {256, 256, 128}}) {
    const kernels::GemmChoice c = best(problem(m, n, k));
    INFO(m << "x" << n << "x" << k << ": " << c.describe() << ": " << c.terms);
    CHECK(c.splits == 1);
    CHECK(c.schedule() != "split-K");
    CHECK(c.workspace_bytes == 0);
  }
}

TEST_CASE("gemm: a schedule or split count forced, and what the heuristic refuses") {
  const kernels::GemmArguments big = problem(8192, 8192, 8192);
  const kernels::GemmChoice forced = best(big, GemmSchedule::SplitK);
  INFO(forced.describe() << ": " << forced.terms);
  CHECK(forced.splits >= 2);
  const kernels::GemmArguments small = problem(8, 4096, 4096);
  CHECK(best(small, GemmSchedule::DataParallel).splits == 1);
  kernels::GemmArguments five = small;
  five.split_k = 5;
  const kernels::GemmChoice c5 = best(five);
  CHECK(c5.splits == 5);
  CHECK(c5.kernel->metadata().options.at("schedule") == "split-k");
  // A forced count more than the k-tiles: every kernel refuses, naming the rule.
  kernels::GemmArguments too_many = problem(8, 4096, 256);  // 4 k-tiles of 64
  too_many.split_k = 8;
  const kernels::GemmRanking r = kernels::rank_gemm(too_many, kH100);
  CHECK(r.ranked.empty());
  bool named = false;
  for (const auto& [name, why] : r.refused)
    named = named || contains(why, "split_k 8 with K = 256: 4 k-tiles of 64, and every split needs at least one k-tile");
  CHECK(named);
}

TEST_CASE("gemm: split-K choices match the host in the emulator, through copies too, with the same bits twice") {
  TESSEL_RNG(rng);
  const std::unique_ptr<kernels::Machine> emulator = kernels::emulator_machine();
  auto check = [&](const char* what, const kernels::TensorView& a, const kernels::TensorView& b,
                   const kernels::TensorView& out, std::optional<kernels::TensorView> c, double beta) {
    INFO(what);
    const kernels::GemmProblem p = kernels::make_gemm_problem(a, b, out, c, 0.75, beta, rng);
    const kernels::GemmChoice choice = best(p.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32,
                                                        uint64_t{4} << 32),
                                            GemmSchedule::SplitK);
    INFO(choice.describe() << ": " << choice.terms);
    CHECK(choice.splits >= 2);
    const kernels::DemoRun r = kernels::run_gemm_choice(choice, p, *emulator);
    INFO(r.problem << ": " << r.result);
    CHECK(r.ok);
  };
  // Ragged, batched, a C of its own with beta, out column-major.
  check("batched, C column-major, out column-major", matrix_view(Type::BF16, 2, 70, 200, true),
        matrix_view(Type::BF16, 2, 200, 90, false), matrix_view(Type::BF16, 2, 70, 90, false),
        matrix_view(Type::BF16, 2, 70, 90, false), 1.5);
  // Odd K: A copied into the workspace first, split-K's partials after it.
  check("odd K through a copy of A", matrix_view(Type::BF16, 0, 40, 333, true, 333),
        matrix_view(Type::BF16, 0, 333, 72, false), matrix_view(Type::F32, 0, 40, 72, true), std::nullopt, 0.0);
}

TEST_CASE("cli gemm: the schedule named in --explain, forced with --schedule and --splits, run in the emulator") {
  using test::run_cli;
  const test::CliRun decode = run_cli({"gemm", "--m", "8", "--n", "4096", "--k", "4096", "--explain", "--cc", "90",
                                       "--sms", "132", "--schedule", "split-k"});
  INFO(decode.out << decode.err);
  CHECK(decode.status == 0);
  CHECK(contains(decode.out, "\nschedule: split-K x "));
  const test::CliRun not_asked = run_cli({"gemm", "--m", "8", "--n", "4096", "--k", "4096", "--explain", "--cc", "90",
                                          "--sms", "132"});
  CHECK(!contains(not_asked.out, "\nschedule: split-K"));
  const test::CliRun unasked = run_cli({"gemm", "--m", "512", "--n", "512", "--k", "32768", "--b-major", "k", "--explain",
                                        "--cc", "90", "--sms", "132"});
  CHECK(contains(unasked.out, "\nschedule: split-K x "));
  const test::CliRun square = run_cli({"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--explain", "--cc", "90",
                                       "--sms", "132"});
  CHECK(contains(square.out, "\nschedule: data-parallel\n"));
  const test::CliRun dp = run_cli({"gemm", "--m", "8", "--n", "4096", "--k", "4096", "--explain", "--cc", "90", "--sms",
                                   "132", "--schedule", "data-parallel"});
  CHECK(!contains(dp.out, "\nschedule: split-K"));
  const test::CliRun run = run_cli({"gemm", "--m", "50", "--n", "70", "--k", "300", "--splits", "3", "--beta", "1",
                                    "--emulate"});
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(contains(run.out, "\nschedule: split-K x 3\n"));
  CHECK(contains(run.out, "\nok    "));
  // Stream-K, forced, in the emulator (10 tiles of 16 k-tiles shared by 132 CTAs: every tile fixed up).
  const test::CliRun sk = run_cli({"gemm", "--m", "300", "--n", "200", "--k", "1000", "--schedule", "stream-k", "--emulate"});
  INFO(sk.out << sk.err);
  CHECK(sk.status == 0);
  CHECK(contains(sk.out, "_streamk (stream-K on 132 CTAs)\nschedule: stream-K on 132 CTAs\n"));
  CHECK(contains(sk.out, "\nok    "));
  const test::CliRun bad = run_cli({"gemm", "--m", "8", "--n", "8", "--k", "8", "--schedule", "round-robin", "--explain"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "--schedule 'round-robin' is not a schedule (valid: data-parallel, split-k, stream-k)"));
  const test::CliRun one = run_cli({"gemm", "--m", "8", "--n", "8", "--k", "8", "--splits", "1", "--explain"});
  CHECK(one.status == 2);
  CHECK(contains(one.err, "--splits"));
  const test::CliRun both = run_cli({"gemm", "--m", "8", "--n", "8", "--k", "8", "--schedule", "data-parallel",
                                     "--splits", "4", "--explain"});
  CHECK(both.status == 2);
  CHECK(contains(both.err, "--splits 4 is split-K's, which --schedule data-parallel is not"));
}
