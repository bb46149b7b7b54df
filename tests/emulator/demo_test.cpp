// demo_test.cpp: the code generator's demonstration kernels run through their LaunchPlan on the
// emulator: the vector copy matches a memcpy on fresh random data with the bytes after the output
// untouched, runs deterministically, and is fast enough for the test suite.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/kernels/demos.hpp"

using namespace tessel;
using codegen::Type;

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
