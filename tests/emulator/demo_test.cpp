// demo_test.cpp: the code generator's demonstration kernels run through their LaunchPlan on the
// emulator: the vector copy matches a memcpy on fresh random data with the bytes after the output
// untouched, runs deterministically, and is fast enough for the test suite; the TMA tile copies
// ragged tensors through an mbarrier with every swizzle; the wgmma tile multiplies exactly.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/kernels/tma.hpp"

using namespace tessel;
using codegen::Type;
using tessel::IntTuple;

namespace {

// Copies n elements of dtype with kernels::vector_copy; returns the destination's bytes and the
// guard bytes after it.
struct CopyResult {
  std::vector<uint8_t> src, dst, guard;
  emu::RunStats stats;
};

CopyResult run_copy(Type dtype, int threads, int64_t n, std::mt19937_64& rng) {
  kernels::VectorCopyConfig c;
  c.dtype = dtype;
  c.threads = threads;
  const size_t bytes = static_cast<size_t>(n) * codegen::bytes(dtype);
  const size_t guard = 256;
  CopyResult r;
  r.src.resize(bytes);
  // Random bytes, never all zero: a kernel that writes nothing cannot match.
  for (uint8_t& x : r.src) x = static_cast<uint8_t>(1 + rng() % 255);
  emu::Memory mem;
  const uint64_t src = mem.alloc(bytes, 16), dst = mem.alloc(bytes + guard, 16);
  mem.write(src, r.src.data(), bytes);
  mem.fill(dst, std::byte{0x5a}, bytes + guard);
  codegen::LaunchPlan plan;
  plan.module = kernels::vector_copy(c);
  plan.kernel = c.name();
  plan.grid = {static_cast<unsigned>((n + c.elements_per_block() - 1) / c.elements_per_block()), 1, 1};
  plan.block = {static_cast<unsigned>(threads), 1, 1};
  plan.arg(src).arg(dst).arg(n);
  r.stats = emu::run(plan, mem);
  r.dst = mem.read<uint8_t>(dst, bytes);
  r.guard = mem.read<uint8_t>(dst + bytes, guard);
  return r;
}

}  // namespace

TEST_CASE("emulator: the vector_copy demo matches memcpy and leaves the guard bytes alone") {
  TESSEL_RNG(rng);
  for (Type dtype : {Type::F32, Type::BF16, Type::F64}) {
    for (int threads : {128, 256}) {
      const int64_t vec = 16 / codegen::bytes(dtype);
      // A size that leaves the last block partly idle (the kernel's predicate at work).
      const int64_t n = vec * test::uniform(rng, 300, 1500);
      INFO("dtype " << codegen::ptx_name(dtype) << ", threads " << threads << ", n " << n);
      const CopyResult r = run_copy(dtype, threads, n, rng);
      CHECK(r.dst == r.src);
      CHECK(r.guard == std::vector<uint8_t>(r.guard.size(), 0x5a));
      // One ld.v4 and one st.v4 per thread that has data; every thread of the grid ran.
      CHECK(r.stats.blocks == static_cast<uint64_t>((n + vec * threads - 1) / (vec * threads)));
    }
  }
}

TEST_CASE("emulator: two runs of one plan leave identical memory") {
  TESSEL_RNG(rng);
  const uint64_t s = rng();
  std::mt19937_64 a(s), b(s);
  const CopyResult x = run_copy(Type::F32, 128, 4 * 1000, a), y = run_copy(Type::F32, 128, 4 * 1000, b);
  CHECK(x.dst == y.dst);
  CHECK(x.stats.steps == y.stats.steps);
}

// --- tma_tile: one TMA box through an mbarrier, every swizzle -------------------------------------

namespace {

// Runs kernels::tma_tile on M x N (ragged: the last boxes hang over both edges) with its input
// in rows of ld_in elements, as kernels/testing/src/demo_run.cpp plans it on a GPU, but with the
// emulator's tensor map. Returns the number of wrong elements and of written padding bytes.
std::pair<int64_t, int64_t> run_tma_tile(const kernels::TmaTileConfig& c, std::mt19937_64& rng) {
  const int eb = codegen::bytes(c.dtype);
  const int64_t M = test::uniform(rng, c.rows + 1, 3 * c.rows), N = test::uniform(rng, c.cols + 1, 3 * c.cols);
  const int64_t ld_in = (N * eb + 15) / 16 * 16 / eb + 16 / eb, ld_out = N + 3;
  std::vector<uint8_t> in(static_cast<size_t>(M * ld_in * eb));
  for (uint8_t& x : in) x = static_cast<uint8_t>(1 + rng() % 255);
  emu::Memory mem;
  const uint64_t din = mem.upload(in), dout = mem.alloc(static_cast<size_t>(M * ld_out * eb));
  const rt::TensorMapSpec spec = kernels::make_tensor_map_spec(make_layout(IntTuple{N, M}, IntTuple{1, ld_in}),
                                                               c.dtype, {c.cols, c.rows}, c.swizzle);
  codegen::LaunchPlan plan;
  plan.module = kernels::tma_tile(c);
  plan.kernel = c.name();
  plan.grid = {static_cast<unsigned>((N + c.cols - 1) / c.cols), static_cast<unsigned>((M + c.rows - 1) / c.rows), 1};
  plan.block = {static_cast<unsigned>(c.threads), 1, 1};
  plan.arg(emu::encode_tensor_map(spec, din)).arg(dout).arg(int32_t(M)).arg(int32_t(N)).arg(int32_t(ld_out));
  const emu::RunStats stats = emu::run(plan, mem);
  CHECK(stats.tma_loads == uint64_t{plan.grid[0]} * plan.grid[1]);
  CHECK(stats.mbarrier_phases == stats.tma_loads);
  const std::vector<uint8_t> out = mem.read<uint8_t>(dout, static_cast<size_t>(M * ld_out * eb));
  int64_t wrong = 0, padding = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < ld_out; ++j) {
      const uint8_t* got = &out[static_cast<size_t>((i * ld_out + j) * eb)];
      if (j < N) {
        wrong += std::memcmp(got, &in[static_cast<size_t>((i * ld_in + j) * eb)], static_cast<size_t>(eb)) != 0;
      } else {
        for (int k = 0; k < eb; ++k) padding += got[k] != 0xff;
      }
    }
  }
  return {wrong, padding};
}

}  // namespace

TEST_CASE("emulator: the tma_tile demo copies ragged tensors through TMA with every swizzle") {
  TESSEL_RNG(rng);
  for (Type dtype : {Type::BF16, Type::F32}) {
    for (codegen::SmemSwizzle sw : {codegen::SmemSwizzle::None, codegen::SmemSwizzle::B32, codegen::SmemSwizzle::B64,
                                    codegen::SmemSwizzle::B128}) {
      for (int rows : {32, 64}) {
        kernels::TmaTileConfig c;
        c.dtype = dtype;
        c.rows = rows;
        c.swizzle = sw;
        c.cols = (sw == codegen::SmemSwizzle::None ? 128 : codegen::swizzle_bytes(sw)) / codegen::bytes(dtype);
        INFO(c.name());
        const auto [wrong, padding] = run_tma_tile(c, rng);
        CHECK(wrong == 0);
        CHECK(padding == 0);
      }
    }
  }
}

// --- wgmma_tile: one warpgroup MMA through descriptors, every swizzle ------------------------------

namespace {

uint16_t half_bits(float f, Type t) {  // exact for the values used (multiples of 1/8 in [-2, 2])
  return t == Type::BF16 ? codegen::encode_bf16(f) : codegen::encode_f16(f);
}

}  // namespace

TEST_CASE("emulator: the wgmma_tile demo multiplies exactly with every swizzle, n and type") {
  TESSEL_RNG(rng);
  for (Type dtype : {Type::BF16, Type::F16}) {
    for (codegen::SmemSwizzle sw : {codegen::SmemSwizzle::None, codegen::SmemSwizzle::B32, codegen::SmemSwizzle::B64,
                                    codegen::SmemSwizzle::B128}) {
      for (int n : {64, 128, 256}) {
        kernels::WgmmaTileConfig c;
        c.dtype = dtype;
        c.n = n;
        c.swizzle = sw;
        INFO(c.name());
        const int k = c.k();
        std::vector<float> a(size_t(64 * k)), b(size_t(n * k));
        // Multiples of 1/8 in [-2, 2], never all zero: the f32 result is exact.
        for (float& x : a) x = static_cast<float>(test::uniform(rng, -16, 16)) / 8.0f;
        for (float& x : b) x = static_cast<float>(test::uniform(rng, -16, 16)) / 8.0f;
        a[0] = b[0] = 1.0f;
        std::vector<uint16_t> ha(a.size()), hb(b.size());
        for (size_t i = 0; i < a.size(); ++i) ha[i] = half_bits(a[i], dtype);
        for (size_t i = 0; i < b.size(); ++i) hb[i] = half_bits(b[i], dtype);
        emu::Memory mem;
        const uint64_t da = mem.upload(ha), db = mem.upload(hb), dd = mem.alloc(size_t(64 * n) * 4);
        codegen::LaunchPlan plan;
        plan.module = kernels::wgmma_tile(c);
        plan.kernel = c.name();
        plan.block = {128, 1, 1};
        plan.arg(da).arg(db).arg(dd);
        const emu::RunStats stats = emu::run(plan, mem);
        CHECK(stats.wgmmas == static_cast<uint64_t>(k / (32 / 2)));
        const std::vector<float> d = mem.read<float>(dd, size_t(64 * n));
        int64_t wrong = 0;
        for (int i = 0; i < 64; ++i) {
          for (int j = 0; j < n; ++j) {
            double ref = 0;
            for (int kk = 0; kk < k; ++kk) ref += double(a[size_t(i * k + kk)]) * double(b[size_t(j * k + kk)]);
            wrong += d[size_t(i * n + j)] != static_cast<float>(ref);
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}
