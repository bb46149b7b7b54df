// hopper_gemm_test.cpp: the Hopper GEMM (TMA loads on mbarriers, warp-specialized wgmma
// consumers, the persistent tile loop) on the CPU emulator, every element against the
// double-precision host reference of tests/kernels/gemm_problem.hpp: each major combination,
// column-major out, tf32 and fp8, ragged M, N and K, batches, K long enough to go around the
// stage ring, and 2 persistent CTAs so that each walks several tiles; ping-pong; clusters of two;
// and every row-major catalog configuration.
#include <doctest/doctest.h>

#include <functional>

#include "algebra/support.hpp"
#include "emulator/hopper_emulate.hpp"
#include "kernels/gemm_problem.hpp"
#include "kernels/hopper_config.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;
using kernels::GemmProblemOptions;

namespace {

// `wanted`: problems are drawn until one has it (a shape that reaches a particular path).
std::string emulate(const HopperGemmConfig& c, std::mt19937_64& rng, const GemmProblemOptions& o, std::string& problem,
                    const std::function<bool(const GemmArguments&)>& wanted = {}) {
  test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  while (wanted && !wanted(p.arguments(0, 0, 0))) p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  problem = p.describe();
  // 2 persistent CTAs (clusters); 1 for ping-pong, so that its warpgroups alternate over every tile.
  return test::emulate_hopper_gemm(c, p, c.pingpong ? 1 : 2 * c.cluster_size());
}

std::string emulate(const HopperGemmConfig& c, std::mt19937_64& rng, int64_t max_k, std::string& problem,
                    const std::function<bool(const GemmArguments&)>& wanted = {}) {
  GemmProblemOptions o;
  o.max_k = max_k;
  return emulate(c, rng, o, problem, wanted);
}

// emulate(), checked: the configuration and problem named in a failure.
void check_emulated(const HopperGemmConfig& c, std::mt19937_64& rng, int64_t max_k,
                    const std::function<bool(const GemmArguments&)>& wanted = {}) {
  std::string problem;
  const std::string diff = emulate(c, rng, max_k, problem, wanted);
  INFO(c.name() << ": " << problem);
  CHECK(diff == "");
}

void check_emulated(const HopperGemmConfig& c, std::mt19937_64& rng, const GemmProblemOptions& o,
                    const std::function<bool(const GemmArguments&)>& wanted = {}) {
  std::string problem;
  const std::string diff = emulate(c, rng, o, problem, wanted);
  INFO(c.name() << ": " << problem);
  CHECK(diff == "");
}

// Two consumer warpgroups on alternate tiles, skipping each other's stages in the ring.
HopperGemmConfig pingpong(HopperGemmConfig c) {
  c.pingpong = true;
  return c;
}

}  // namespace

TEST_CASE("emulator: the Hopper GEMM matches the host for every major combination, ragged and batched") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  const HopperGemmConfig configs[] = {
      test::hopper_config(Type::BF16, Type::BF16, K, K, Major::Row, 64, 64, 2),
      test::hopper_config(Type::BF16, Type::F32, MN, K, Major::Row, 64, 64, 3),
      test::hopper_config(Type::F16, Type::F16, K, MN, Major::Row, 64, 64, 2),
      test::hopper_config(Type::BF16, Type::BF16, MN, MN, Major::Column, 128, 64, 2),
      test::hopper_config(Type::F32, Type::F32, K, K, Major::Row, 64, 64, 2),
      // tf32 with the kernel's A M-major: its fragments through registers (a_from_registers).
      test::hopper_config(Type::F32, Type::F32, MN, K, Major::Row, 128, 64, 2),
      test::hopper_config(Type::F32, Type::F32, K, MN, Major::Column, 64, 128, 3),
      pingpong(test::hopper_config(Type::F32, Type::F32, MN, K, Major::Row, 128, 64, 2)),
      test::hopper_config(Type::E4M3, Type::BF16, K, K, Major::Row, 64, 64, 2),
      test::hopper_config(Type::E5M2, Type::BF16, K, K, Major::Column, 64, 128, 2),
      // fp8 in, f32 and f16 out (the accumulator is f32 whatever the output).
      test::hopper_config(Type::E4M3, Type::F32, K, K, Major::Row, 64, 64, 2),
      test::hopper_config(Type::E5M2, Type::F16, K, K, Major::Column, 64, 128, 3),
      pingpong(test::hopper_config(Type::BF16, Type::BF16, K, MN, Major::Row, 64, 64, 2)),
      pingpong(test::hopper_config(Type::F16, Type::F32, MN, K, Major::Column, 64, 64, 3)),
      pingpong(test::hopper_config(Type::BF16, Type::BF16, MN, MN, Major::Row, 128, 64, 2)),
  };
  for (const HopperGemmConfig& c : configs) {
    // K up to 5 k-tiles: the 2- and 3-stage rings wrap, the barriers' phases flip.
    check_emulated(c, rng, 5 * c.tile_k());
  }
}

// The epilogue double-buffers its TMA-store boxes and, before writing a buffer, waits until at most
// one bulk group is pending. A box across a ragged N whose rows end inside a 16-byte granule goes
// out element by element and commits no group; the count must still free the buffer. The emulator
// performs a TMA store's read of shared memory only when its group is waited for, so a buffer
// rewritten too early shows in out. Here: f32 out (two 32-column boxes per 64-column slab), 128-row
// ping-pong (each warpgroup stores two slabs per tile), N with a last tile of 33..63 columns and
// rows of a length that is not a multiple of 4 elements, and M not ending in the first slab.
TEST_CASE("emulator: the Hopper GEMM epilogue frees a TMA-store buffer before reuse across an element-wise box") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  for (const HopperGemmConfig& c : {pingpong(test::hopper_config(Type::BF16, Type::F32, K, K, Major::Row, 128, 64, 2)),
                                    test::hopper_config(Type::BF16, Type::F32, K, K, Major::Row, 128, 64, 2)}) {
    check_emulated(c, rng, 2 * c.tile_k(), [](const GemmArguments& a) {
      const int64_t M = a.out.shape[1], N = a.out.shape[2];
      return N % 64 > 32 && N % 4 != 0 && (M % 128 == 0 || M % 128 > 64);
    });
  }
}

// Clusters of two CTAs, run together: each CTA loads its half of the shared operand and multicasts
// it to both, releases stages on both CTAs' empty barriers, and the pair meets at barrier.cluster.
// 2 persistent clusters, each walking several cluster tiles; 2x1 shares B, 1x2 shares A.
TEST_CASE("emulator: the Hopper GEMM in clusters of two matches the host") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  auto cluster = [](HopperGemmConfig c, int cm, int cn) {
    c.cluster_m = cm;
    c.cluster_n = cn;
    return c;
  };
  const HopperGemmConfig configs[] = {
      cluster(test::hopper_config(Type::BF16, Type::BF16, K, K, Major::Row, 128, 64, 2), 2, 1),
      cluster(test::hopper_config(Type::BF16, Type::F32, MN, MN, Major::Row, 128, 128, 2), 2, 1),
      cluster(test::hopper_config(Type::F16, Type::F16, K, MN, Major::Column, 128, 128, 3), 1, 2),
      cluster(test::hopper_config(Type::E4M3, Type::BF16, K, K, Major::Row, 128, 64, 2), 1, 2),
      cluster(test::hopper_config(Type::BF16, Type::BF16, MN, K, Major::Column, 128, 128, 2), 1, 2),  // A^T multicast along N
  };
  for (const HopperGemmConfig& c : configs) {
    check_emulated(c, rng, 5 * c.tile_k());
  }
}

// Every row-major catalog configuration (a column-major one is its row-major twin renamed, which
// a kernels test proves) on one small random problem: the whole catalog runs on the CPU in CI,
// with the emulator's late TMA stores and wgmma, proxy-fence, race and deadlock checks. Two parts,
// so that ctest -j runs them side by side.
namespace {
void emulate_catalog(size_t part, size_t parts) {
  TESSEL_RNG(rng);
  size_t i = 0, ran = 0;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations()) {
    if (c.out_major != Major::Row || i++ % parts != part) continue;
    check_emulated(c, rng, 2 * c.tile_k());
    ++ran;
  }
  CHECK(ran >= 100);
}
}  // namespace

TEST_CASE("emulator: every row-major Hopper GEMM catalog configuration matches the host (1 of 2)") {
  emulate_catalog(0, 2);
}
TEST_CASE("emulator: every row-major Hopper GEMM catalog configuration matches the host (2 of 2)") {
  emulate_catalog(1, 2);
}

// The CUTLASS epilogue: out = alpha * A @ B + beta * C with C a tensor of its own, in either major
// whatever out's (the kernel loads C's boxes by the TMA into the staging box: a row-major C in
// 128-byte rows of N, a column-major one in 128-byte rows of M, one load for 16-bit C, two for f32),
// ragged M, N and K, batched; and beta == 0 with C all NaN (never read). C's bytes must stay as
// they were. Cooperative and ping-pong, 16-bit and f32 out, row- and column-major out, a cluster.
TEST_CASE("emulator: the Hopper GEMM adds a C of its own in either major, loaded through the TMA") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  HopperGemmConfig clustered = test::hopper_config(Type::BF16, Type::BF16, K, MN, Major::Row, 128, 128, 2);
  clustered.cluster_m = 2;
  const HopperGemmConfig configs[] = {
      test::hopper_config(Type::BF16, Type::BF16, K, K, Major::Row, 64, 64, 2),
      test::hopper_config(Type::BF16, Type::F32, K, K, Major::Row, 64, 64, 2),
      test::hopper_config(Type::F16, Type::F16, MN, K, Major::Column, 128, 64, 2),
      test::hopper_config(Type::F32, Type::F32, K, K, Major::Column, 64, 128, 2),
      pingpong(test::hopper_config(Type::BF16, Type::F32, K, K, Major::Row, 128, 64, 2)),
      clustered,
  };
  for (const HopperGemmConfig& c : configs) {
    for (Major cm : {Major::Row, Major::Column}) {
      for (bool beta_zero : {false, true}) {
        GemmProblemOptions o;
        o.max_k = 3 * c.tile_k();
        o.c_major = cm;
        o.beta_zero = beta_zero;
        const std::string what = std::string("C ") + major_name(cm) + "-major, beta " + (beta_zero ? "0" : "!= 0");
        INFO(what);
        check_emulated(c, rng, o);
      }
    }
  }
}

// C == out given explicitly (the same view): in place, as when C is left empty.
TEST_CASE("emulator: the Hopper GEMM takes C given as out's own view (in place)") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  const HopperGemmConfig c = test::hopper_config(Type::BF16, Type::BF16, K, K, Major::Column, 64, 64, 2);
  GemmProblemOptions o;
  o.max_k = 2 * c.tile_k();
  o.beta_zero = false;
  test::GemmProblem p = test::make_gemm_problem(hopper_gemm_metadata(c), rng, o);
  INFO(p.describe());
  emu::Memory mem;
  const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), out = mem.upload(p.out.bytes);
  GemmArguments args = p.arguments(a, b, out);
  args.C = args.out;
  CHECK(!args.distinct_c());
  REQUIRE(hopper_gemm_supports(c, args));
  emu::run(hopper_gemm_plan(c, args, hopper_gemm(c), 2, emu::encode_tensor_map), mem);
  CHECK(test::check_gemm(p, mem.read<uint8_t>(out, p.out.bytes.size())) == "");
}

// A batch stride of 0 for A, B or C: one matrix for every batch (the tensor map has one batch and
// the kernel loads it at batch 0), L of 2 or more; with out row- and column-major (for a
// column-major out the kernel's A is B^T, so the flags follow the transposition).
TEST_CASE("emulator: the Hopper GEMM broadcasts A, B or C over the batch (batch stride 0)") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  const HopperGemmConfig configs[] = {test::hopper_config(Type::BF16, Type::BF16, K, MN, Major::Row, 64, 64, 2),
                                      test::hopper_config(Type::F16, Type::F32, MN, K, Major::Column, 64, 64, 2)};
  for (const HopperGemmConfig& c : configs) {
    for (int which = 0; which < 3; ++which) {
      GemmProblemOptions o;
      o.max_k = 2 * c.tile_k();
      o.max_l = 3;
      o.broadcast_a = which == 0;
      o.broadcast_b = which == 1;
      o.broadcast_c = which == 2;
      o.c_major = which == 2 ? std::optional<Major>(Major::Column) : std::nullopt;
      o.beta_zero = false;
      const std::string what = std::string("broadcast ") + "ABC"[which];
      INFO(what);
      check_emulated(c, rng, o);
    }
  }
}

// C is loaded into the staging box, element-wise boxes included; a box stored element by element
// commits no bulk group, so the wait before C's load must count every pending store there, or C
// lands in a buffer whose TMA store (two boxes before) has yet to read it and out gets C's values.
// f32 out (four 32-column boxes per 128-column tile), rows that end inside a 16-byte granule and a
// last tile of 65..95 columns: boxes 0 and 1 go through the TMA, 2 and 3 element by element.
TEST_CASE("emulator: the Hopper GEMM loads C into a box freed across element-wise boxes") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  for (Major cm : {Major::Row, Major::Column}) {
    GemmProblemOptions o;
    o.max_k = 64;
    o.c_major = cm;
    o.beta_zero = false;
    check_emulated(test::hopper_config(Type::BF16, Type::F32, K, K, Major::Row, 64, 128, 2), rng, o, [](const GemmArguments& a) {
      const int64_t N = a.out.shape[2];
      return N % 128 > 64 && N % 128 < 96 && N % 4 != 0;
    });
  }
}
