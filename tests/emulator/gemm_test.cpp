// gemm_test.cpp: a SIMT GEMM built with the builder (2-D blocks, a loop over K tiles, shared
// tiles between two bar.syncs, an unrolled fma chain) on the emulator, bit-exact against the host
// doing the same fma chain; and the emulator's speed on it and on a grid-stride axpy.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

constexpr int kTile = 16;

// C (M x N) = A (M x K) * B (K x N), all row-major f32; M, N, K multiples of 16. Block (16,16)
// computes one 16x16 tile of C; thread (x, y) element (y, x) of it.
Kernel simt_gemm_kernel() {
  KernelBuilder b("tessel_test_simt_gemm");
  Value A = b.global_pointer_param("A"), B = b.global_pointer_param("B"), C = b.global_pointer_param("C");
  Value K = b.param("K", Type::S32), N = b.param("N", Type::S32);
  Value As = b.shared_array("As", kTile * kTile * 4), Bs = b.shared_array("Bs", kTile * kTile * 4);
  Value tx = b.special(Special::TidX), ty = b.special(Special::TidY);
  Value row = b.cvt(b.special(Special::CtaidY), Type::S32) * kTile + b.cvt(ty, Type::S32);
  Value col = b.cvt(b.special(Special::CtaidX), Type::S32) * kTile + b.cvt(tx, Type::S32);
  Value mine = (ty << 4) + tx;  // this thread's slot of a tile
  Value acc = b.reg(Type::F32);
  b.assign(acc, b.constant_f32(0));
  b.for_range(b.constant(0, Type::S32), K, kTile, [&](Value k0) {
    Value a = b.load(Space::Global, Type::F32, test::element(b, A, row * K + k0 + b.cvt(tx, Type::S32), 4))[0];
    Value x = b.load(Space::Global, Type::F32, test::element(b, B, (k0 + b.cvt(ty, Type::S32)) * N + col, 4))[0];
    b.store(Space::Shared, Type::F32, As + (mine << 2), {a});
    b.store(Space::Shared, Type::F32, Bs + (mine << 2), {x});
    bar_sync(b);
    Value arow = As + (ty << 6), bcol = Bs + (tx << 2);
    b.unrolled(kTile, [&](int kk) {
      Value p = b.load(Space::Shared, Type::F32, arow, 4 * kk)[0];
      Value q = b.load(Space::Shared, Type::F32, bcol, 4 * kTile * kk)[0];
      b.assign(acc, b.mad(p, q, acc));
    });
    bar_sync(b);
  });
  b.store(Space::Global, Type::F32, test::element(b, C, row * N + col, 4), {acc});
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: a SIMT GEMM with shared tiles and barriers is bit-exact against the host fma chain") {
  TESSEL_RNG(rng);
  const int M = 48, N = 32, K = 64;
  std::vector<float> a(M * K), bm(K * N);
  for (float& x : a) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  for (float& x : bm) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  emu::Memory mem;
  const uint64_t pa = mem.upload(a), pb = mem.upload(bm), pc = mem.alloc(M * N * 4);
  LaunchPlan plan = test::plan_of(simt_gemm_kernel(), 1, 1);
  plan.grid = {N / kTile, M / kTile, 1};
  plan.block = {kTile, kTile, 1};
  plan.arg(pa).arg(pb).arg(pc).arg(int32_t{K}).arg(int32_t{N});
  const auto start = std::chrono::steady_clock::now();
  const emu::RunStats stats = emu::run(plan, mem);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("SIMT GEMM " << M << "x" << N << "x" << K << ": " << stats.steps << " instructions in " << seconds * 1e3
                       << " ms (" << stats.steps / seconds / 1e6 << " M instructions/s)");
  const std::vector<float> c = mem.read<float>(pc, M * N);
  int wrong = 0;
  for (int r = 0; r < M; ++r) {
    for (int col = 0; col < N; ++col) {
      float acc = 0;
      for (int k = 0; k < K; ++k) acc = std::fma(a[r * K + k], bm[k * N + col], acc);
      if (c[r * N + col] != acc && ++wrong <= 3)
        FAIL_CHECK("C[" << r << "][" << col << "] = " << c[r * N + col] << ", want " << acc);
    }
  }
  CHECK(wrong == 0);
  CHECK(stats.barriers == uint64_t{2} * (K / kTile) * (M / kTile) * (N / kTile));
}

namespace {

// y[i] = alpha * x[i] + y[i] over a grid-stride loop.
Kernel axpy_kernel(int64_t grid_threads) {
  KernelBuilder b("tessel_test_axpy");
  Value x = b.global_pointer_param("x"), y = b.global_pointer_param("y");
  Value n = b.param("n", Type::S32);
  Value alpha = b.param("alpha", Type::F32);
  b.for_range(test::global_index(b), n, grid_threads, [&](Value i) {
    Value at = test::element(b, y, i, 4);
    Value v = b.mad(alpha, b.load(Space::Global, Type::F32, test::element(b, x, i, 4))[0],
                    b.load(Space::Global, Type::F32, at)[0]);
    b.store(Space::Global, Type::F32, at, {v});
  });
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: one block of 128 threads over 4096 elements runs well under a second") {
  TESSEL_RNG(rng);
  const int32_t n = 4096;
  const float alpha = 1.5f;
  std::vector<float> x(n), y(n);
  for (float& v : x) v = std::uniform_real_distribution<float>(-10, 10)(rng);
  for (float& v : y) v = std::uniform_real_distribution<float>(-10, 10)(rng);
  emu::Memory mem;
  const uint64_t px = mem.upload(x), py = mem.upload(y);
  LaunchPlan plan = test::plan_of(axpy_kernel(128), 1, 128);
  plan.arg(px).arg(py).arg(n).arg(alpha);
  const auto start = std::chrono::steady_clock::now();
  const emu::RunStats stats = emu::run(plan, mem);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("axpy of " << n << " f32 on 128 threads: " << stats.steps << " instructions in " << seconds * 1e3 << " ms ("
                     << stats.steps / seconds / 1e6 << " M instructions/s)");
  CHECK(seconds < 1.0);  // generous: a debug build on a loaded machine takes a few milliseconds
  const std::vector<float> got = mem.read<float>(py, n);
  for (int i = 0; i < n; ++i) {
    if (got[i] != std::fma(alpha, x[i], y[i])) {
      FAIL_CHECK("y[" << i << "] = " << got[i] << ", want " << std::fma(alpha, x[i], y[i]));
      break;
    }
  }
}
