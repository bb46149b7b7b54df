// cli_random_problems_test.cpp: `tessel bench gemm --random`'s problems (gemm_bench::random_cases):
// the seed gives them back, each is a valid problem within its bounds and prints as the options
// that give it again, and together they cover every class a user brings. Then what they are for:
// on sm_90 the one call takes every one to the tensor cores, and small ones drawn the same way run
// through the one call's choice in the emulator and match the f64 host reference.
#include <doctest/doctest.h>

#include <memory>
#include <variant>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algebra/support.hpp"
#include "gemm_bench.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/runtime/tensor_map.hpp"
#include "tessel/testing/kernel_run.hpp"

using namespace tessel;
using cli::gemm_bench::GemmCase;
using codegen::Type;

namespace {

const kernels::GemmDevice kH100{90, 132}, kA100{80, 108};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

bool same_case(const GemmCase& a, const GemmCase& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.l == b.l && a.dtype == b.dtype && a.out == b.out &&
         a.a_major == b.a_major && a.b_major == b.b_major && a.out_major == b.out_major && a.c_major == b.c_major &&
         a.alpha == b.alpha && a.beta == b.beta && a.pad_ld == b.pad_ld && a.broadcast_a == b.broadcast_a &&
         a.broadcast_b == b.broadcast_b && a.broadcast_c == b.broadcast_c;
}

// The problem's values (multiples of 1/4: exact in every type) on its layouts.
kernels::GemmProblem problem_of(const GemmCase& c, std::mt19937_64& rng) {
  const kernels::GemmArguments g = cli::gemm_bench::case_arguments(c);
  return kernels::make_gemm_problem(g.A, g.B, g.out, g.C, g.alpha, g.beta, rng);
}

// Its arguments at distinct addresses, as a caller's buffers would lie: aligned, or `at` past it.
kernels::GemmArguments placed(const kernels::GemmProblem& p, const kernels::GemmOffsets& at = {}) {
  return p.arguments((uint64_t{1} << 32) + at.a, (uint64_t{2} << 32) + at.b, (uint64_t{3} << 32) + at.out,
                     (uint64_t{4} << 32) + at.c);
}

// Base addresses aligned only to the element size (issue 18), each operand's a third of the time.
kernels::GemmOffsets random_offsets(const GemmCase& c, std::mt19937_64& rng) {
  auto off = [&](Type t) -> uint64_t {
    const int64_t eb = codegen::bytes(t);
    if (eb >= 16 || test::uniform(rng, 0, 2) != 0) return 0;
    return static_cast<uint64_t>(eb * test::uniform(rng, 1, 16 / eb - 1));
  };
  kernels::GemmOffsets at;
  at.a = off(c.dtype);
  at.b = off(c.dtype);
  at.out = off(c.out);
  at.c = c.c_major ? off(c.out) : 0;
  return at;
}

}  // namespace

TEST_CASE("cli bench: --random's problems come back from their seed, within bounds, as their options") {
  TESSEL_RNG(rng);
  const uint64_t seed = rng();
  const std::vector<GemmCase> cases = cli::gemm_bench::random_cases(1000, seed);
  const std::vector<GemmCase> again = cli::gemm_bench::random_cases(1000, seed);
  const std::vector<GemmCase> other = cli::gemm_bench::random_cases(1000, seed + 1);
  REQUIRE(cases.size() == 1000);
  int differ = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    CHECK(same_case(cases[i], again[i]));
    differ += !same_case(cases[i], other[i]);
  }
  CHECK(differ > 990);
  std::set<std::string> seen;  // the classes the list covers
  for (const GemmCase& c : cases) {
    const std::string options = cli::gemm_bench::case_options(c);
    INFO(options);
    CHECK((c.m >= 1 && c.n >= 1 && c.k >= 1 && c.m <= 8192 && c.n <= 8192 && c.k <= 8192));
    CHECK((c.l >= 1 && c.l <= 12));
    CHECK(2.0 * c.m * c.n * c.k * c.l <= 5e11);
    CHECK((c.c_major == 0 || c.beta != 0));
    CHECK((!c.broadcast_c || c.c_major != 0));
    CHECK((!(c.broadcast_a || c.broadcast_b || c.broadcast_c) || c.l >= 2));
    if (c.dtype == Type::F32) CHECK(c.out == Type::F32);
    if (c.dtype == Type::BF16 || c.dtype == Type::F16) CHECK((c.out == c.dtype || c.out == Type::F32));
    // The options it prints give it back (tessel bench gemm and tessel tune take them).
    bool help = false;
    const std::vector<GemmCase> parsed = cli::gemm_bench::parse_gemm_options(words(options), help).cases;
    REQUIRE(parsed.size() == 1);
    CHECK(same_case(parsed[0], c));
    seen.insert(std::string("in ") + codegen::ptx_name(c.dtype));
    seen.insert(std::string("out ") + codegen::ptx_name(c.out));
    seen.insert(std::string("A ") + c.a_major);
    seen.insert(std::string("B ") + c.b_major);
    seen.insert(std::string("out ") + c.out_major);
    if (c.c_major) seen.insert(std::string("C ") + c.c_major);
    if (c.beta == 1) seen.insert("beta 1");
    if (c.beta != 0 && c.beta != 1) seen.insert("beta other");
    if (c.alpha != 1) seen.insert("alpha");
    if (c.l > 1) seen.insert("batch");
    if (c.broadcast_a) seen.insert("broadcast a");
    if (c.broadcast_b) seen.insert("broadcast b");
    if (c.broadcast_c) seen.insert("broadcast c");
    if (c.pad_ld) seen.insert("padded");
    if (c.m <= 64) seen.insert("few rows");
    if (c.k <= 64) seen.insert("short k");
    if (c.m % 64 == 0 && c.n % 64 == 0 && c.k % 64 == 0) seen.insert("round");
    // A K-major 16-bit A whose rows are not a multiple of 16 bytes: TMA cannot describe it.
    if (!c.pad_ld && c.a_major == 'k' && codegen::bytes(c.dtype) == 2 && c.k % 8 != 0) seen.insert("unaligned A");
    if (c.m >= 2048 && c.n >= 2048 && c.k >= 2048) seen.insert("large");
  }
  for (const char* cls : {"in bf16", "in f16", "in f32", "in e4m3", "in e5m2", "out bf16", "out f16", "out f32", "A k",
                          "A m", "B k", "B n", "out n", "out m", "C n", "C m", "beta 1", "beta other", "alpha", "batch",
                          "broadcast a", "broadcast b", "broadcast c", "padded", "few rows", "short k", "round",
                          "unaligned A", "large"}) {
    INFO(cls);
    CHECK(seen.count(cls) == 1);
  }
  // --random N through the options, --rows of it, and its misuses.
  bool help = false;
  const std::string s = std::to_string(seed);
  const std::vector<GemmCase> part =
      cli::gemm_bench::parse_gemm_options({"--random", "30", "--seed", s, "--rows", "11-20"}, help).cases;
  REQUIRE(part.size() == 10);
  for (size_t i = 0; i < part.size(); ++i) CHECK(same_case(part[i], cases[10 + i]));
  auto refusal = [&](const std::vector<std::string>& args) {
    try {
      cli::gemm_bench::parse_gemm_options(args, help);
    } catch (const cli::gemm_bench::ParseError& e) {
      return e.message;
    }
    return std::string("(accepted)");
  };
  CHECK(refusal({"--random", "3", "--sweep"}) ==
        "--sweep, --llama and --random are three lists of problems: one at a time");
  CHECK(refusal({"--random", "0"}).find("--random") != std::string::npos);
  CHECK(refusal({"--random", "5", "--m", "8"}) == "--random runs its own list of problems; it takes no --m");
}

// Issue 18, item 4: on sm_90 the SIMT GEMM is never the choice for a type the tensor cores take,
// whatever the problem; and what supports() accepted, the launch can describe: every tensor map of
// the choice's Hopper steps passes the driver's rules (a kernel that said yes and then failed to
// encode would throw at the user's first call). On sm_80 the portable path takes what it can.
TEST_CASE("gemm: on sm_90 the one call takes every --random problem to the tensor cores") {
  TESSEL_RNG(rng);
  for (const GemmCase& c : cli::gemm_bench::random_cases(150, rng())) {
    const kernels::GemmArguments g = cli::gemm_bench::case_arguments(c);
    const kernels::GemmProblem shapes = kernels::gemm_problem_shapes(g.A, g.B, g.out, g.C, g.alpha, g.beta);
    const kernels::GemmOffsets at = random_offsets(c, rng);
    INFO(cli::gemm_bench::case_options(c) << " at offsets " << at.a << ", " << at.b << ", " << at.out << ", " << at.c);
    const kernels::GemmArguments args = placed(shapes, at);
    const kernels::GemmRanking r = kernels::rank_gemm(args, kH100);
    REQUIRE(!r.ranked.empty());
    const kernels::GemmChoice& choice = r.ranked.front();
    INFO(choice.describe());
    CHECK(choice.kernel->metadata().kernel_class == "hopper_gemm");
    // On an sm_80 device the SIMT GEMM takes every problem of one type in and out (any strides),
    // and the others (fp8, a 16-bit input with an f32 out) are refused, each kernel with its reason.
    const kernels::GemmRanking ampere = kernels::rank_gemm(args, kA100);
    if (c.dtype == c.out && !codegen::is_fp8(c.dtype)) {
      REQUIRE(!ampere.ranked.empty());
      CHECK(ampere.ranked.front().kernel->metadata().kernel_class == "simt_gemm");
    } else {
      CHECK(ampere.ranked.empty());
      CHECK(!ampere.refusals().empty());
    }
    for (const kernels::GemmStep& step : kernels::gemm_steps(choice, args, uint64_t{5} << 32)) {
      if (step.kernel->metadata().kernel_class != "hopper_gemm") continue;
      const kernels::GemmArguments& ga = std::get<kernels::GemmArguments>(step.args);
      const kernels::HopperGemmTensorMaps maps =
          kernels::hopper_gemm_tensor_maps(kernels::hopper_gemm_config(step.kernel->metadata().options), ga);
      for (const rt::TensorMapSpec* spec : {&maps.a, &maps.b, &maps.out, &maps.c}) CHECK_NOTHROW(rt::validate_tensor_map(*spec));
      for (const rt::TensorMapSpec& view : maps.c_views.specs) CHECK_NOTHROW(rt::validate_tensor_map(view));
    }
  }
}

// The same generator with extents up to 200: every class of problem, at addresses aligned only to
// the element size too, through the choice tessel::gemm makes for it on an H100 (copies into the
// workspace included), in the emulator.
TEST_CASE("gemm: small --random problems run through the one call's choice in the emulator") {
  TESSEL_RNG(rng);
  const std::unique_ptr<kernels::Machine> emulator = kernels::emulator_machine();
  for (const GemmCase& c : cli::gemm_bench::random_cases(16, rng(), 200, 2.0 * 200 * 200 * 100)) {
    const kernels::GemmOffsets at = random_offsets(c, rng);
    INFO(cli::gemm_bench::case_options(c) << " at offsets " << at.a << ", " << at.b << ", " << at.out << ", " << at.c);
    const kernels::GemmProblem p = problem_of(c, rng);
    const kernels::GemmRanking r = kernels::rank_gemm(placed(p, at), kH100);
    REQUIRE(!r.ranked.empty());
    const kernels::GemmChoice& choice = r.ranked.front();
    INFO(choice.describe());
    CHECK(choice.kernel->metadata().kernel_class == "hopper_gemm");
    const kernels::DemoRun run = kernels::run_gemm_choice(choice, p, *emulator, at);
    INFO(run.problem << ": " << run.result);
    CHECK(run.ok);
  }
}
