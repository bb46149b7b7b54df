// stream_k_test.cpp: the Hopper GEMM's stream-K schedule on the CPU emulator: ragged, batched
// problems on worker counts below, at and above the tile count (every tile in the stream-K
// region; data-parallel tiles before it; a tile split over many CTAs), beta != 0 with a C of its
// own, column-major out, f32 and fp8; every element against the f64 host reference, and the same
// bits on a second launch into the same workspace and with the blocks run in reverse order (so
// that another CTA arrives last at each tile). Then the plan's arithmetic against a count of each
// range's units, the workspace's size and the refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "algebra/support.hpp"
#include "kernels/gemm_problem.hpp"
#include "kernels/hopper_config.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

HopperGemmConfig stream_config(Type ab, Type out, codegen::Major am, codegen::Major bm, Major om, int tm, int tn,
                               int stages) {
  HopperGemmConfig c = test::hopper_config(ab, out, am, bm, om, tm, tn, stages);
  c.stream_k = true;
  return c;
}

// One launch of `c` with `workers`, into a fresh copy of out and the given workspace; out's bytes.
std::vector<uint8_t> launch(const HopperGemmConfig& c, const test::GemmProblem& p, emu::Memory& mem, uint64_t a,
                            uint64_t b, uint64_t cc, uint64_t workspace, int workers, bool reverse = false) {
  const uint64_t out = mem.upload(p.out.bytes);
  GemmArguments args = p.arguments(a, b, out, cc);
  args.stream_k_workers = workers;
  args.workspace = workspace;
  const Status s = hopper_gemm_supports(c, args);
  REQUIRE_MESSAGE(s.ok, s.reason);
  const codegen::LaunchPlan plan = hopper_gemm_plan(c, args, hopper_gemm(c), 132, emu::encode_tensor_map);
  CHECK(plan.grid[0] == hopper_gemm_stream_k_plan(c, args).ctas);
  emu::RunOptions o;
  o.reverse_order = reverse;
  const emu::RunStats stats = emu::run(plan, mem, o);
  CHECK(stats.wgmmas > 0);
  return mem.read<uint8_t>(out, p.out.bytes.size());
}

}  // namespace

TEST_CASE("emulator: stream-K matches the host, ragged and batched, with the same bits whichever CTA arrives last") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  struct Case {
    HopperGemmConfig c;
    std::optional<Major> c_major;  // a C of its own, beta != 0
  };
  const Case cases[] = {
      {stream_config(Type::BF16, Type::BF16, K, K, Major::Row, 64, 64, 2), std::nullopt},
      {stream_config(Type::BF16, Type::F32, MN, K, Major::Row, 64, 64, 3), Major::Column},
      {stream_config(Type::F16, Type::F16, K, MN, Major::Column, 128, 64, 2), Major::Row},
      {stream_config(Type::E4M3, Type::BF16, K, K, Major::Row, 64, 64, 2), std::nullopt},
      {stream_config(Type::F32, Type::F32, K, K, Major::Row, 64, 64, 2), std::nullopt},
  };
  for (const Case& cs : cases) {
    const HopperGemmConfig& c = cs.c;
    test::GemmProblemOptions o;
    o.max_k = 7 * c.tile_k();
    o.tiles = 3;
    o.c_major = cs.c_major;
    if (cs.c_major) o.beta_zero = false;
    test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
    GemmArguments shape = p.arguments(0, 0, 0, 0);
    shape.stream_k_workers = 1 << 20;  // every k-tile its own CTA: ctas = T * kt
    const int64_t work = hopper_gemm_stream_k_plan(c, shape).ctas;
    emu::Memory mem;
    const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes);
    const uint64_t cc = p.C ? mem.upload(p.C->bytes) : 0;
    // 1 (one CTA: the whole problem in one range), 2 and 3, 5 (ranges that end inside tiles),
    // every k-tile its own CTA.
    std::set<int> counts = {1, 2, 3, 5, static_cast<int>(work)};
    for (int workers : counts) {
      shape.stream_k_workers = workers;
      const HopperGemmStreamKPlan plan = hopper_gemm_stream_k_plan(c, shape);
      INFO(c.name() << " with " << workers << " workers: " << plan.dp_tiles << " data-parallel tiles, " << plan.sk_tiles
                    << " stream-K tiles, " << plan.slots << " slots: " << p.describe());
      // Whatever the workspace held: its counters need no clearing.
      const uint64_t ws = mem.upload(std::vector<uint8_t>(std::max<size_t>(plan.workspace, 16), 0xFF));
      const std::vector<uint8_t> first = launch(c, p, mem, a, b, cc, ws, workers);
      CHECK(test::check_gemm(p, first) == "");
      CHECK(launch(c, p, mem, a, b, cc, ws, workers) == first);
      CHECK(launch(c, p, mem, a, b, cc, ws, workers, true) == first);
      if (p.C) CHECK(mem.read<uint8_t>(cc, p.C->bytes.size()) == p.C->bytes);
    }
  }
}

// The plan against a direct count: CTA c's range [c W / G, (c + 1) W / G) of the region's k-tiles
// meets region tile s if it overlaps [s kt, (s + 1) kt); no tile may meet more than `slots`
// ranges, and the data-parallel tiles are whole rounds of G.
TEST_CASE("stream-K: the plan's regions, slots and workspace against a count of the ranges") {
  const HopperGemmConfig c =
      stream_config(Type::BF16, Type::BF16, codegen::Major::K, codegen::Major::K, Major::Row, 128, 128, 4);
  for (int64_t M : {128, 1000, 5120}) {
    for (int64_t N : {128, 1280, 3000}) {
      for (int64_t K : {64, 640, 2560}) {
        for (int workers : {1, 7, 132}) {
          GemmArguments g = make_gemm_arguments(matrix_view(Type::BF16, 0, M, K, true),
                                                matrix_view(Type::BF16, 0, K, N, false),
                                                matrix_view(Type::BF16, 0, M, N, true));
          g.stream_k_workers = workers;
          const HopperGemmStreamKPlan plan = hopper_gemm_stream_k_plan(c, g);
          const int64_t T = (M + 127) / 128 * ((N + 127) / 128), kt = (K + 63) / 64;
          INFO("M " << M << " N " << N << " K " << K << " workers " << workers);
          CHECK(plan.ctas == std::min<int64_t>(workers, T * kt));
          CHECK(plan.dp_tiles + plan.sk_tiles == T);
          CHECK(plan.dp_tiles % plan.ctas == 0);
          if (plan.sk_tiles > 0) CHECK(plan.sk_tiles * kt >= plan.ctas);  // no empty range
          CHECK(plan.sk_tiles <= 2 * plan.ctas);
          const int64_t W = plan.sk_tiles * kt, G = plan.ctas;
          int64_t most = 0;
          for (int64_t s = 0; s < plan.sk_tiles; ++s) {
            int64_t met = 0;
            for (int64_t cta = 0; cta < G; ++cta) {
              const int64_t b = cta * W / G, e = (cta + 1) * W / G;
              met += b < (s + 1) * kt && e > s * kt;
            }
            most = std::max(most, met);
          }
          if (plan.sk_tiles > 0) {
            CHECK(most <= plan.slots);
            CHECK(plan.workspace == static_cast<size_t>((plan.sk_tiles * 8 + 255) / 256 * 256 +
                                                        plan.sk_tiles * plan.slots * 128 * 128 * 4));
          } else {
            CHECK(plan.workspace == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("stream-K: worker counts refused with the value and the rule, and the configuration's rules") {
  HopperGemmConfig c =
      stream_config(Type::BF16, Type::BF16, codegen::Major::K, codegen::Major::K, Major::Row, 128, 128, 4);
  GemmArguments g = make_gemm_arguments(matrix_view(Type::BF16, 2, 300, 1000, true),
                                        matrix_view(Type::BF16, 2, 1000, 200, false),
                                        matrix_view(Type::BF16, 2, 300, 200, true));
  g.A.data = 1 << 20;
  g.B.data = 2 << 20;
  g.out.data = 3 << 20;
  CHECK(hopper_gemm_workspace_size(c, g) == 0);  // no workers: data-parallel, no workspace
  CHECK(hopper_gemm_supports(c, g).ok);
  g.stream_k_workers = -1;
  CHECK(hopper_gemm_supports(c, g).reason == "stream_k_workers -1 (0 to 65535 CTAs)");
  g.stream_k_workers = 5;
  CHECK(hopper_gemm_supports(c, g).ok);
  CHECK(hopper_gemm_workspace_size(c, g) > 0);
  HopperGemmConfig dp = c;
  dp.stream_k = false;
  CHECK(hopper_gemm_supports(dp, g).reason ==
        "stream_k_workers 5: this kernel does not stream K (0 only; the stream-K kernels, named _streamk, do)");
  CHECK_THROWS_WITH_AS(hopper_gemm_launch(c, g, 132, emu::encode_tensor_map), doctest::Contains("needs a workspace of"),
                       Error);
  HopperGemmConfig pp = c;
  pp.pingpong = true;
  CHECK_THROWS_WITH_AS(pp.check(), doctest::Contains("stream-K with ping-pong"), Error);
  HopperGemmConfig cl = c;
  cl.cluster_m = 2;
  CHECK_THROWS_WITH_AS(cl.check(), doctest::Contains("stream-K in a cluster 2x1"), Error);
  HopperGemmConfig both = c;
  both.split_k = true;
  CHECK_THROWS_WITH_AS(both.check(), doctest::Contains("stream-K and split-K together"), Error);
  CHECK(c.name() == "tessel_hopper_gemm_bf16_bf16_128x128x64_s4_kkr_streamk");
}
