// swap_test.cpp: the swapped Hopper GEMM kernels (swap_ab, the _swap catalog entries: out^T =
// B^T A^T with B's N on the wgmma's 64 rows and A's few rows on an N of 8 to 64, out stored
// M-contiguous by the epilogue) on the CPU emulator, every element against the f64 host
// reference: M = 1..64, ragged N (out's columns through the TMA and element by element) and K
// (around the stage ring), batches, beta with a C of its own, split-K, every type the catalog
// swaps, and a column-major out (the kernel then runs as it is, storing M-contiguous).
#include <doctest/doctest.h>

#include "algebra/support.hpp"
#include "emulator/hopper_emulate.hpp"
#include "kernels/gemm_problem.hpp"
#include "kernels/hopper_config.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

struct Extents {
  int64_t l, m, n, k;
};

HopperGemmConfig swapped(Type ab, Type out, codegen::Major bm, int tm, int tn, int stages, bool split_k = false,
                         Major om = Major::Row) {
  HopperGemmConfig c = test::hopper_config(ab, out, codegen::Major::K, bm, om, tm, tn, stages);
  c.swap_ab = true;
  c.split_k = split_k;
  return c;
}

// One problem: A K-major, B in the configuration's major, out in its major with a padded leading
// dimension, C of its own in `c_major` (none: C is out) where beta != 0. "" or what differed.
std::string run_swapped(const HopperGemmConfig& c, const Extents& s, double beta, std::optional<Major> c_major,
                        int split_k, std::mt19937_64& rng) {
  const int align_ab = 16 / codegen::bytes(c.ab), align_out = 16 / codegen::bytes(c.out);
  auto pad = [&](int64_t x, int a) { return (x + a - 1) / a * a + a * static_cast<int64_t>(rng() % 2); };
  const bool b_k = c.b_major == codegen::Major::K, out_row = c.out_major == Major::Row;
  const TensorView A = matrix_view(c.ab, s.l, s.m, s.k, true, pad(s.k, align_ab));
  const TensorView B = matrix_view(c.ab, s.l, s.k, s.n, !b_k, pad(b_k ? s.k : s.n, align_ab));
  const TensorView out = matrix_view(c.out, s.l, s.m, s.n, out_row, pad(out_row ? s.n : s.m, align_out));
  std::optional<TensorView> C;
  if (c_major && beta != 0) {
    const bool row = *c_major == Major::Row;
    C = matrix_view(c.out, s.l, s.m, s.n, row, pad(row ? s.n : s.m, align_out));
  }
  return test::emulate_hopper_gemm(c, make_gemm_problem(A, B, out, C, 0.75, beta, rng), 3, split_k);
}

}  // namespace

TEST_CASE("emulator: swapped Hopper GEMMs match the host on M = 1..64, ragged N and K, batched") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  using codegen::Major::MN;
  // 3 stages, so that K of 4..9 k-tiles goes around the ring; one catalog configuration as listed.
  const HopperGemmConfig configs[] = {
      swapped(Type::BF16, Type::BF16, K, 64, 8, 3),       swapped(Type::BF16, Type::F32, MN, 64, 16, 3),
      swapped(Type::F16, Type::F16, K, 128, 32, 3),       swapped(Type::F32, Type::F32, K, 64, 32, 3),
      swapped(Type::E4M3, Type::BF16, K, 128, 16, 3),     swapped(Type::F16, Type::F32, MN, 64, 64, 3),
      swapped(Type::BF16, Type::BF16, K, 64, 16, 16),
  };
  std::uniform_int_distribution<int64_t> m_of(1, 64), n_of(65, 200);
  for (const HopperGemmConfig& c : configs) {
    for (int i = 0; i < 2; ++i) {
      const int64_t k_tiles = 4 + static_cast<int64_t>(rng() % 6);
      // Even: N a multiple of 8 (out^T's rows end on 16-byte granules: TMA stores); odd: any N.
      const int64_t n = i == 0 ? n_of(rng) / 8 * 8 : n_of(rng) | 1;
      const Extents s{1 + static_cast<int64_t>(rng() % 2), m_of(rng), n, k_tiles * c.tile_k() - static_cast<int64_t>(rng() % 5)};
      const double beta = i == 0 ? 0.0 : -0.5;
      INFO(c.name() << ": L " << s.l << " M " << s.m << " N " << s.n << " K " << s.k << " beta " << beta);
      CHECK(run_swapped(c, s, beta, std::nullopt, 1, rng) == "");
    }
  }
}

TEST_CASE("emulator: swapped split-K Hopper GEMMs match the host, and a C of its own in out's major") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  for (const HopperGemmConfig& c :
       {swapped(Type::BF16, Type::BF16, K, 64, 8, 3, true), swapped(Type::F16, Type::F32, K, 128, 16, 4, true)}) {
    for (int splits : {1, 2, 3}) {
      const Extents s{2, 1 + static_cast<int64_t>(rng() % 40), 70 + static_cast<int64_t>(rng() % 100), 6 * c.tile_k() - 3};
      INFO(c.name() << ": split_k " << splits << ", L " << s.l << " M " << s.m << " N " << s.n << " K " << s.k);
      CHECK(run_swapped(c, s, 1.25, Major::Row, splits, rng) == "");
    }
  }
}

// A C in the other major than out's loads in boxes 128 bytes wide across the swapped kernel's few
// columns: refused by name where those are fewer than 128 bytes, run where they are not.
TEST_CASE("emulator: a swapped Hopper GEMM runs or clearly refuses a C in the other major") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  const Extents s{1, 9, 100, 130};
  const std::string refused = run_swapped(swapped(Type::BF16, Type::BF16, K, 64, 16, 3), s, 0.5, Major::Column, 1, rng);
  CHECK(refused.find("supports() refused: C ") == 0);
  CHECK(refused.find("wider than its 16-column tile") != std::string::npos);
  CHECK(run_swapped(swapped(Type::BF16, Type::BF16, K, 64, 64, 3), s, 0.5, Major::Column, 1, rng) == "");
}

// swap_ab with a column-major out: the kernel computes out itself (no transposition) and stores it
// M-contiguous, its tile_n on N: a few columns of a tall out.
TEST_CASE("emulator: a swapped Hopper GEMM with a column-major out runs unswapped, storing M-contiguous") {
  TESSEL_RNG(rng);
  using codegen::Major::K;
  const HopperGemmConfig c = swapped(Type::BF16, Type::BF16, K, 64, 16, 3, false, Major::Column);
  CHECK(!runs_transposed(c));
  CHECK(kernel_config(c).out_major == Major::Column);
  for (int64_t m : {200, 131}) {
    const Extents s{2, m, 1 + static_cast<int64_t>(rng() % 30), 5 * c.tile_k() - 1};
    INFO(c.name() << ": M " << s.m << " N " << s.n << " K " << s.k);
    CHECK(run_swapped(c, s, 0.25, std::nullopt, 1, rng) == "");
  }
}
