// hopper_gemm_gpu_test.cpp: the Hopper GEMM on an sm_90 GPU: random ragged batched problems whose
// K runs the pipeline around its ring several times, on a deliberately small persistent grid (so
// that every CTA walks many tiles and the barriers' phases carry across tiles), out poisoned, every
// element against a double-precision host reference; and one large problem checked on a sample.
// Skipped, with the reason, where no sm_90 GPU is usable.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>

#include "kernels/gemm_problem.hpp"
#include "runtime/gpu.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/launch.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

rt::TensorMap encode(const rt::TensorMapSpec& s, uint64_t addr) { return rt::encode_tensor_map(s, addr); }

// One configuration on one random problem with `max_ctas` persistent CTAs; "" or what differed.
std::string run_problem(const HopperGemmConfig& c, std::mt19937_64& rng, int64_t max_k, int tiles, int max_ctas,
                        std::string& problem) {
  const test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, false, max_k, tiles);
  problem = p.describe();
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   o = rt::DeviceBuffer::from(p.out.bytes);
  const GemmArguments args = p.arguments(a.ptr(), b.ptr(), o.ptr());
  if (const Status s = hopper_gemm_supports(c, args); !s) return "supports() refused: " + s.reason;
  const codegen::LaunchPlan plan = hopper_gemm_plan(c, args, hopper_gemm(c), max_ctas, encode);
  launch_plan(plan);
  test::gpu_context().synchronize();
  return test::check_gemm(p, o.to_vector<uint8_t>());
}

// One problem drawn with `o` (a C of its own, broadcasts, beta forced): out poisoned, every element
// against the host, the bytes around out's elements and all of C's unchanged.
std::string run_problem(const HopperGemmConfig& c, std::mt19937_64& rng, const test::GemmProblemOptions& o,
                        int max_ctas, std::string& problem) {
  const test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  problem = p.describe();
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   out = rt::DeviceBuffer::from(p.out.bytes);
  std::optional<rt::DeviceBuffer> cb;
  if (p.C) cb.emplace(rt::DeviceBuffer::from(p.C->bytes));
  const GemmArguments args = p.arguments(a.ptr(), b.ptr(), out.ptr(), cb ? cb->ptr() : 0);
  if (const Status s = hopper_gemm_supports(c, args); !s) return "supports() refused: " + s.reason;
  launch_plan(hopper_gemm_plan(c, args, hopper_gemm(c), max_ctas, encode));
  test::gpu_context().synchronize();
  std::string diff = test::check_gemm(p, out.to_vector<uint8_t>());
  if (cb && cb->to_vector<uint8_t>() != p.C->bytes) diff += " C was written";
  return diff;
}

// A representative set: every type pair, every major combination of bf16, every tile shape.
std::vector<HopperGemmConfig> representatives() {
  std::vector<HopperGemmConfig> out;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations()) {
    const bool bf16_bf16 = c.ab == Type::BF16 && c.out == Type::BF16;
    const bool default_tile = c.tile_m == 128 && c.tile_n == 128;
    const bool kk_row = c.a_major == codegen::Major::K && c.b_major == codegen::Major::K && c.out_major == Major::Row;
    if ((bf16_bf16 && (default_tile || kk_row)) || (default_tile && kk_row)) out.push_back(c);
  }
  return out;
}

// One configuration on a ragged batched problem whose K runs the ring around several times, on 3
// and on 132 persistent CTAs.
void check_config(const HopperGemmConfig& c, std::mt19937_64& rng) {
  for (int max_ctas : {3, 132}) {
    std::string problem;
    const std::string diff = run_problem(c, rng, 900, 3, max_ctas, problem);
    INFO(c.name() << " on " << max_ctas << " CTAs: " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed()
                  << ")");
    CHECK(diff == "");
  }
}

// Representatives part, part + parts, ...: two test cases, so that ctest -j compiles them in
// parallel processes (the driver's compile of each configuration takes about a second).
void check_representatives(size_t part, size_t parts) {
  std::mt19937_64 rng = test::gpu_rng();
  const std::vector<HopperGemmConfig> configs = representatives();
  REQUIRE(configs.size() >= 15);
  for (size_t i = part; i < configs.size(); i += parts) check_config(configs[i], rng);
}

}  // namespace

TEST_CASE("hopper_gemm: gpu ragged batched problems, K around the pipeline, many tiles per CTA (1 of 2)") {
  TESSEL_REQUIRE_GPU(90);
  check_representatives(0, 2);
}
TEST_CASE("hopper_gemm: gpu ragged batched problems, K around the pipeline, many tiles per CTA (2 of 2)") {
  TESSEL_REQUIRE_GPU(90);
  check_representatives(1, 2);
}

// tf32 with the kernel's A M-major, its fragments through registers (a_from_registers): each tile
// shape's cooperative kernel, ping-pong and split-K, and a column-major out (its A is B^T), on 3
// and 132 CTAs, K around the ring several times.
TEST_CASE("hopper_gemm: gpu tf32 with an M-major A through registers, every schedule, ragged and batched") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng = test::gpu_rng();
  int ran = 0;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations()) {
    if (!a_from_registers(c)) continue;
    const bool wanted = (c.out_major == Major::Row && c.tile_m == 128 && c.tile_n == 256 && !c.split_k) ||
                        (c.out_major == Major::Row && c.tile_n == 128) ||
                        (c.out_major == Major::Column && c.tile_m == 128 && c.tile_n == 192 && !c.split_k);
    if (!wanted) continue;
    check_config(c, rng);
    ++ran;
  }
  CHECK(ran >= 6);
}

TEST_CASE("hopper_gemm: gpu K = 0 and K below one k-tile") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng = test::gpu_rng();
  // Clusters too: the pair's barriers and multicasts with (almost) nothing to load.
  for (std::array<int, 2> cl : {std::array<int, 2>{1, 1}, {2, 1}, {1, 2}}) {
    HopperGemmConfig c;
    c.cluster_m = cl[0];
    c.cluster_n = cl[1];
    for (int64_t max_k : {1, 7}) {
      std::string problem;
      const std::string diff = run_problem(c, rng, max_k, 2, 132, problem);
      INFO(c.name() << ": " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
      CHECK(diff == "");
    }
  }
  for (int tile_m : {64, 128}) {  // and ping-pong, whose second warpgroup may have no tile
    HopperGemmConfig pp;
    pp.tile_m = tile_m;
    pp.pingpong = true;
    for (int64_t max_k : {1, 7}) {
      std::string problem;
      const std::string diff = run_problem(pp, rng, max_k, 2, 132, problem);
      INFO(pp.name() << ": " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
      CHECK(diff == "");
    }
  }
}

// The CUTLASS epilogue on the device: a C of its own in either major whatever out's (row- and
// column-major out, 16-bit and f32 out, cooperative, ping-pong and clusters), beta != 0, and
// beta == 0 with C all NaN; a batch stride of 0 for A, B and C each. Ragged, K around the ring,
// on 132 persistent CTAs (and 3, for the plain distinct C).
// Configurations part, part + parts, ...: four test cases, so that ctest -j runs them in parallel
// processes (the whole ran 414 s on an H100, most of it the host reference).
static void check_distinct_c(size_t part, size_t parts) {
  std::mt19937_64 rng = test::gpu_rng();
  using codegen::Major::K;
  using codegen::Major::MN;
  std::vector<HopperGemmConfig> configs;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations()) {
    const bool pick = (c.ab == Type::BF16 && c.out == Type::BF16 && c.tile_m == 128 && c.tile_n == 256 &&
                       c.cluster_size() == 1) ||
                      (c.ab == Type::F16 && c.out == Type::F32 && c.tile_m == 128 && c.tile_n == 128 && c.pingpong) ||
                      (c.ab == Type::F32 && c.tile_m == 128 && c.tile_n == 128 && c.cluster_m == 2) ||
                      (c.ab == Type::BF16 && c.out == Type::BF16 && c.tile_n == 192 && c.cluster_n == 2) ||
                      (c.ab == Type::BF16 && c.out == Type::F32 && c.tile_m == 64 && c.tile_n == 128 && !c.pingpong);
    if (pick && c.a_major == (c.out_major == Major::Row ? K : MN) && c.b_major == K) configs.push_back(c);
  }
  REQUIRE(configs.size() >= 9);
  for (size_t i = part; i < configs.size(); i += parts) {
    const HopperGemmConfig& c = configs[i];
    for (Major cm : {Major::Row, Major::Column}) {
      for (int variant = 0; variant < 5; ++variant) {
        test::GemmProblemOptions o;
        o.max_k = 900;
        o.tiles = 3;
        o.c_major = cm;
        o.beta_zero = variant == 1;
        o.broadcast_a = variant == 2;
        o.broadcast_b = variant == 3;
        o.broadcast_c = variant == 4;
        for (int max_ctas : {3, 132}) {
          if (variant > 0 && max_ctas == 3) continue;  // the plain C on a small grid too
          std::string problem;
          const std::string diff = run_problem(c, rng, o, max_ctas, problem);
          const std::string what = c.name() + " on " + std::to_string(max_ctas) + " CTAs, C " + major_name(cm) +
                                   ", variant " + std::to_string(variant) + ": " + problem +
                                   " (reproduce with TESSEL_SEED=" + std::to_string(test::gpu_seed()) + ")";
          INFO(what);
          CHECK(diff == "");
        }
      }
    }
  }
}

TEST_CASE("hopper_gemm: gpu a C of its own in either major, beta 0 with C NaN, broadcast batches (1 of 4)") {
  TESSEL_REQUIRE_GPU(90);
  check_distinct_c(0, 4);
}
TEST_CASE("hopper_gemm: gpu a C of its own in either major, beta 0 with C NaN, broadcast batches (2 of 4)") {
  TESSEL_REQUIRE_GPU(90);
  check_distinct_c(1, 4);
}
TEST_CASE("hopper_gemm: gpu a C of its own in either major, beta 0 with C NaN, broadcast batches (3 of 4)") {
  TESSEL_REQUIRE_GPU(90);
  check_distinct_c(2, 4);
}
TEST_CASE("hopper_gemm: gpu a C of its own in either major, beta 0 with C NaN, broadcast batches (4 of 4)") {
  TESSEL_REQUIRE_GPU(90);
  check_distinct_c(3, 4);
}

TEST_CASE("hopper_gemm: gpu a 4096 x 4096 x 4096 bf16 problem, sampled against the host") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng = test::gpu_rng();
  HopperGemmConfig c;
  c.tile_n = 256;
  c.stages = 4;
  const int64_t n = 4096;
  test::GemmProblem p;
  auto fill = [&](test::HostOperand& o, Type t, std::vector<int64_t> stride) {
    o.view = TensorView{0, t, {n, n}, std::move(stride)};
    o.bytes.resize(static_cast<size_t>(n * n * codegen::bytes(t)));
    std::uniform_int_distribution<int> d(-31, 31);
    for (int64_t i = 0; i < n * n; ++i) test::store_element(o.bytes, t, i, (d(rng) | 1) / 16.0);
  };
  fill(p.A, Type::BF16, {n, 1});
  fill(p.B, Type::BF16, {1, n});  // K-major B: column-major
  p.out.view = TensorView{0, Type::BF16, {n, n}, {n, 1}};
  p.out.bytes.assign(static_cast<size_t>(n * n * 2), 0xFF);
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   o = rt::DeviceBuffer::from(p.out.bytes);
  const GemmArguments args = p.arguments(a.ptr(), b.ptr(), o.ptr());
  const codegen::LaunchPlan plan =
      hopper_gemm_plan(c, args, hopper_gemm(c), rt::device_properties(0).sm_count, encode);
  const rt::Function f = load_plan(plan);
  launch_plan(plan, f);
  test::gpu_context().synchronize();
  // Informational only (not a timed test): the benchmark is `tessel bench gemm`.
  rt::Event start, end;
  start.record();
  for (int i = 0; i < 10; ++i) launch_plan(plan, f);
  end.record();
  end.synchronize();
  const double ms = rt::elapsed_ms(start, end) / 10;
  MESSAGE(c.name() << " 4096^3: " << ms << " ms, " << 2.0 * n * n * n / ms / 1e9 << " TFLOP/s (informational)");
  const std::vector<uint8_t> got = o.to_vector<uint8_t>();
  int wrong = 0;
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  for (int s = 0; s < 2000; ++s) {
    const int64_t m = s < 4 ? (s & 1) * (n - 1) : pick(rng), col = s < 4 ? (s >> 1) * (n - 1) : pick(rng);
    double ref = 0, mag = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double x = test::load_element(p.A.bytes, Type::BF16, m * n + k) * test::load_element(p.B.bytes, Type::BF16, col * n + k);
      ref += x;
      mag += std::fabs(x);
    }
    const double v = test::load_element(got, Type::BF16, m * n + col);
    if (!(std::fabs(v - ref) <= 1e-2 * mag + 1e-3) && wrong++ < 5) {
      INFO("(" << m << "," << col << "): got " << v << ", expected " << ref << " (TESSEL_SEED=" << test::gpu_seed() << ")");
      CHECK(false);
    }
  }
  CHECK(wrong == 0);
}
