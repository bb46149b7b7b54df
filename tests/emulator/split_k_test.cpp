// split_k_test.cpp: the Hopper GEMM's split-K schedule on the CPU emulator: ragged, batched
// problems, split counts that divide the k-tiles and that do not, beta != 0 with a C of its own,
// column-major out and f32 out, every element against the double-precision host reference; the
// bits the same on a second launch into the same workspace and on another persistent grid (so
// that another unit arrives last); the workspace's size; the refusals of bad split counts.
#include <doctest/doctest.h>

#include <algorithm>

#include "algebra/support.hpp"
#include "kernels/gemm_problem.hpp"
#include "kernels/hopper_config.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/simt_gemm.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

HopperGemmConfig split_config(Type ab, Type out, codegen::Major am, codegen::Major bm, Major om, int tm, int tn,
                              int stages) {
  HopperGemmConfig c = test::hopper_config(ab, out, am, bm, om, tm, tn, stages);
  c.split_k = true;
  return c;
}

int64_t k_tiles(const HopperGemmConfig& c, const GemmArguments& g) {
  const int64_t K = g.A.shape.back();
  return (K + c.tile_k() - 1) / c.tile_k();
}

// One launch of `c` on the problem with `splits` and `ctas` persistent CTAs, into a fresh copy of
// out and the given workspace; out's bytes after it.
std::vector<uint8_t> launch(const HopperGemmConfig& c, const test::GemmProblem& p, emu::Memory& mem, uint64_t a,
                            uint64_t b, uint64_t cc, uint64_t workspace, int splits, int ctas) {
  const uint64_t out = mem.upload(p.out.bytes);
  GemmArguments args = p.arguments(a, b, out, cc);
  args.split_k = splits;
  args.workspace = workspace;
  const Status s = hopper_gemm_supports(c, args);
  REQUIRE_MESSAGE(s.ok, s.reason);
  const emu::RunStats stats = emu::run(hopper_gemm_plan(c, args, hopper_gemm(c), ctas, emu::encode_tensor_map), mem);
  CHECK(stats.wgmmas > 0);
  return mem.read<uint8_t>(out, p.out.bytes.size());
}

}  // namespace

TEST_CASE("emulator: split-K matches the host, ragged and batched, with the same bits on every run and grid") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  struct Case {
    HopperGemmConfig c;
    std::optional<Major> c_major;  // a C of its own, beta != 0
  };
  const Case cases[] = {
      {split_config(Type::BF16, Type::BF16, K, K, Major::Row, 64, 64, 2), std::nullopt},
      {split_config(Type::BF16, Type::F32, MN, K, Major::Row, 64, 64, 3), Major::Column},
      {split_config(Type::F16, Type::F16, K, MN, Major::Column, 128, 64, 2), Major::Row},
      {split_config(Type::BF16, Type::BF16, K, K, Major::Column, 64, 64, 2), Major::Column},
      {split_config(Type::E4M3, Type::BF16, K, K, Major::Row, 64, 64, 2), std::nullopt},
  };
  for (const Case& cs : cases) {
    const HopperGemmConfig& c = cs.c;
    test::GemmProblemOptions o;
    o.max_k = 7 * c.tile_k();
    o.c_major = cs.c_major;
    if (cs.c_major) o.beta_zero = false;
    test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
    // At least 3 k-tiles, so that a split count that does not divide them exists.
    while (k_tiles(c, p.arguments(0, 0, 0)) < 3) p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
    const int64_t kt = k_tiles(c, p.arguments(0, 0, 0));
    emu::Memory mem;
    const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes);
    const uint64_t cc = p.C ? mem.upload(p.C->bytes) : 0;
    // 2 (divides an even count), 3 or kt - 1 (a ragged share), every k-tile its own split.
    std::vector<int> counts = {2, static_cast<int>(kt % 3 == 0 ? kt - 1 : 3), static_cast<int>(std::min<int64_t>(kt, 32))};
    for (int splits : counts) {
      INFO(c.name() << " split_k " << splits << " of " << kt << " k-tiles: " << p.describe());
      GemmArguments shape = p.arguments(0, 0, 0, 0);
      shape.split_k = splits;
      const size_t ws_bytes = hopper_gemm_workspace_size(c, shape);
      REQUIRE(ws_bytes > 0);
      // Whatever the workspace held: its counters need no clearing.
      const uint64_t ws = mem.upload(std::vector<uint8_t>(ws_bytes, 0xFF));
      const std::vector<uint8_t> first = launch(c, p, mem, a, b, cc, ws, splits, 2);
      CHECK(test::check_gemm(p, first) == "");
      // Again into the same workspace (its counters now hold the first launch's id), and on 1 and
      // 3 CTAs: other units arrive last, the sum's order stays.
      CHECK(launch(c, p, mem, a, b, cc, ws, splits, 2) == first);
      CHECK(launch(c, p, mem, a, b, cc, ws, splits, 1) == first);
      CHECK(launch(c, p, mem, a, b, cc, ws, splits, 3) == first);
      if (p.C) CHECK(mem.read<uint8_t>(cc, p.C->bytes.size()) == p.C->bytes);
    }
  }
}

// A CUDA graph replays a launch with its parameters, the launch id included: the last arrival's
// clearing of the counter is what lets the replay count from zero.
TEST_CASE("emulator: split-K replays the very same launch (a CUDA graph) into its workspace") {
  TESSEL_RNG(rng);
  const HopperGemmConfig c =
      split_config(Type::BF16, Type::BF16, codegen::Major::K, codegen::Major::K, Major::Row, 64, 64, 2);
  test::GemmProblemOptions o;
  o.max_k = 6 * c.tile_k();
  o.beta_zero = true;
  test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  while (k_tiles(c, p.arguments(0, 0, 0)) < 3) p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  INFO(p.describe());
  emu::Memory mem;
  const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), out = mem.upload(p.out.bytes);
  GemmArguments args = p.arguments(a, b, out);
  args.split_k = 3;
  args.workspace = mem.upload(std::vector<uint8_t>(hopper_gemm_workspace_size(c, args), 0xFF));
  const codegen::LaunchPlan plan = hopper_gemm_plan(c, args, hopper_gemm(c), 2, emu::encode_tensor_map);
  emu::run(plan, mem);
  const std::vector<uint8_t> first = mem.read<uint8_t>(out, p.out.bytes.size());
  CHECK(test::check_gemm(p, first) == "");
  mem.write(out, p.out.bytes);  // NaN again: a replay that stored nothing would leave them
  emu::run(plan, mem);
  CHECK(mem.read<uint8_t>(out, p.out.bytes.size()) == first);
}

TEST_CASE("split-K: the workspace's size, and split counts refused with the value and the rule") {
  HopperGemmConfig c = split_config(Type::BF16, Type::BF16, codegen::Major::K, codegen::Major::K, Major::Row, 128, 128, 4);
  // L = 2, M = 300, N = 200, K = 1000: 3 x 2 tiles per batch, 16 k-tiles of 64.
  GemmArguments g = make_gemm_arguments(matrix_view(Type::BF16, 2, 300, 1000, true),
                                        matrix_view(Type::BF16, 2, 1000, 200, false),
                                        matrix_view(Type::BF16, 2, 300, 200, true));
  g.A.data = 1 << 20;
  g.B.data = 2 << 20;
  g.out.data = 3 << 20;
  CHECK(hopper_gemm_workspace_size(c, g) == 0);  // split_k 1: none
  g.split_k = 5;
  const size_t tiles = 3 * 2 * 2;
  CHECK(hopper_gemm_workspace_size(c, g) == 256 + tiles * 5 * 128 * 128 * 4);
  CHECK(hopper_gemm_supports(c, g).ok);
  g.split_k = 16;
  CHECK(hopper_gemm_supports(c, g).ok);
  g.split_k = 17;
  CHECK(hopper_gemm_supports(c, g).reason ==
        "split_k 17 with K = 1000: 16 k-tiles of 64, and every split needs at least one k-tile");
  g.split_k = 0;
  CHECK(hopper_gemm_supports(c, g).reason == "split_k 0 (1 to 32)");
  g.split_k = 33;
  CHECK(hopper_gemm_supports(c, g).reason == "split_k 33 (1 to 32)");
  g.split_k = 2;
  HopperGemmConfig dp = c;
  dp.split_k = false;
  CHECK(hopper_gemm_supports(dp, g).reason == "split_k 2: this kernel does not split K (1 only; the split-K kernels, named _sk, do)");
  // A launch without its workspace is an error naming the size.
  CHECK_THROWS_WITH_AS(hopper_gemm_launch(c, g, 132, emu::encode_tensor_map),
                       doctest::Contains("needs a workspace of"), Error);
  g.workspace = (4 << 20) + 8;
  CHECK_THROWS_WITH_AS(hopper_gemm_launch(c, g, 132, emu::encode_tensor_map),
                       doctest::Contains("the workspace at 4194312 is not 16-byte aligned"), Error);
  // The configuration's rules.
  HopperGemmConfig pp = c;
  pp.pingpong = true;
  CHECK_THROWS_WITH_AS(pp.check(), doctest::Contains("split-K with ping-pong"), Error);
  HopperGemmConfig cl = c;
  cl.cluster_m = 2;
  CHECK_THROWS_WITH_AS(cl.check(), doctest::Contains("split-K in a cluster 2x1"), Error);
  CHECK(c.name() == "tessel_hopper_gemm_bf16_bf16_128x128x64_s4_kkr_sk");
}

// Every row-major split-K configuration of the catalog (128x256, 128x128, 64x128; every type pair
// and major) with 2 or 3 splits on a small ragged problem, once, against the host. Two parts, so
// that ctest -j runs them side by side.
namespace {
void emulate_split_catalog(size_t part, size_t parts) {
  TESSEL_RNG(rng);
  size_t i = 0, ran = 0;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations()) {
    if (!c.split_k || c.out_major != Major::Row || i++ % parts != part) continue;
    test::GemmProblemOptions o;
    o.max_k = 4 * c.tile_k();
    test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
    while (k_tiles(c, p.arguments(0, 0, 0)) < 2) p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
    const int splits = static_cast<int>(std::min<int64_t>(k_tiles(c, p.arguments(0, 0, 0)), 3));
    INFO(c.name() << " split_k " << splits << ": " << p.describe());
    emu::Memory mem;
    const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes);
    GemmArguments shape = p.arguments(0, 0, 0);
    shape.split_k = splits;
    const uint64_t ws = mem.upload(std::vector<uint8_t>(hopper_gemm_workspace_size(c, shape), 0xFF));
    CHECK(test::check_gemm(p, launch(c, p, mem, a, b, 0, ws, splits, 2)) == "");
    ++ran;
  }
  CHECK(ran >= 25);
}
}  // namespace

TEST_CASE("emulator: every row-major split-K catalog configuration matches the host (1 of 2)") {
  emulate_split_catalog(0, 2);
}
TEST_CASE("emulator: every row-major split-K catalog configuration matches the host (2 of 2)") {
  emulate_split_catalog(1, 2);
}
