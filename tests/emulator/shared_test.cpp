// shared_test.cpp: shared memory, barriers, atomics and loops on the emulator: a block reversal
// through shared memory, a histogram with shared and global atomics over a for_range loop, atomic
// tickets (atom returns the old value), and float atomics that run deterministically.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace test_kernels {

// out[block*128 + t] = in[block*128 + 127 - t], through a shared tile; `barrier` between the
// store and the load (without it the kernel is wrong: see errors_test.cpp).
Kernel reverse_kernel(bool barrier) {
  KernelBuilder b(barrier ? "tessel_test_reverse" : "tessel_test_reverse_no_barrier");
  Value in = b.global_pointer_param("in"), out = b.global_pointer_param("out");
  Value tile = b.shared_array("tile", 128 * 4);
  Value tid = b.special(Special::TidX);
  Value gid = b.cvt(test::global_index(b), Type::U32);
  Value v = b.load(Space::Global, Type::F32, test::element(b, in, gid, 4))[0];
  b.store(Space::Shared, Type::F32, tile + (tid << 2), {v});
  if (barrier) bar_sync(b);
  Value w = b.load(Space::Shared, Type::F32, tile + ((b.constant(127, Type::U32) - tid) << 2))[0];
  b.store(Space::Global, Type::F32, test::element(b, out, gid, 4), {w});
  return b.finish();
}

}  // namespace test_kernels

TEST_CASE("emulator: a block reversal through shared memory with bar.sync") {
  TESSEL_RNG(rng);
  const unsigned blocks = 5, n = blocks * 128;
  std::vector<float> in(n);
  for (float& x : in) x = std::uniform_real_distribution<float>(-100, 100)(rng);
  emu::Memory mem;
  const uint64_t pin = mem.upload(in), pout = mem.alloc(n * 4);
  LaunchPlan plan = test::plan_of(test_kernels::reverse_kernel(true), blocks, 128);
  plan.arg(pin).arg(pout);
  const emu::RunStats stats = emu::run(plan, mem);
  const std::vector<float> out = mem.read<float>(pout, n);
  for (unsigned i = 0; i < n; ++i) {
    INFO("element " << i);
    CHECK(out[i] == in[i / 128 * 128 + 127 - i % 128]);
  }
  CHECK(stats.barriers == blocks);
}

namespace {

constexpr int kBins = 64;

// hist[v & 63] += 1 for every v of data[0, n): a shared histogram per block (zeroed, barrier,
// shared atomics in a grid-stride for_range loop, barrier), added into the global one with red.
Kernel histogram_kernel(int64_t grid_threads) {
  KernelBuilder b("tessel_test_histogram");
  Value data = b.global_pointer_param("data"), hist = b.global_pointer_param("hist");
  Value n = b.param("n", Type::S32);
  Value local = b.shared_array("bins", kBins * 4);
  Value tid = b.special(Special::TidX);
  Value in_range = tid < b.constant(kBins, Type::U32);
  b.if_(in_range, [&] { b.store(Space::Shared, Type::U32, local + (tid << 2), {b.constant(0, Type::U32)}); });
  bar_sync(b);
  b.for_range(test::global_index(b), n, grid_threads, [&](Value i) {
    Value v = b.load(Space::Global, Type::U32, test::element(b, data, i, 4))[0];
    b.red(Space::Shared, AtomOp::Add, Type::U32, local + ((v & (kBins - 1)) << 2), b.constant(1, Type::U32));
  });
  bar_sync(b);
  b.if_(in_range, [&] {
    Value c = b.load(Space::Shared, Type::U32, local + (tid << 2))[0];
    b.red(Space::Global, AtomOp::Add, Type::U32, test::element(b, hist, tid, 4), c);
  });
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: a histogram with shared and global atomics over a for_range loop") {
  TESSEL_RNG(rng);
  const unsigned blocks = 4, threads = 128;
  const int32_t n = static_cast<int32_t>(test::uniform(rng, 3000, 6000));
  std::vector<uint32_t> data(n), want(kBins, 0);
  for (uint32_t& v : data) {
    v = static_cast<uint32_t>(rng());
    ++want[v % kBins];
  }
  emu::Memory mem;
  const uint64_t pd = mem.upload(data), ph = mem.upload(std::vector<uint32_t>(kBins, 0));
  LaunchPlan plan = test::plan_of(histogram_kernel(int64_t{blocks} * threads), blocks, threads);
  plan.arg(pd).arg(ph).arg(n);
  emu::run(plan, mem);
  CHECK(mem.read<uint32_t>(ph, kBins) == want);
}

namespace {

// tickets[i] = atom.add(counter, 1); max/min/exch/cas/inc fold every value into one word each.
Kernel atomics_kernel() {
  KernelBuilder b("tessel_test_atomics");
  Value vals = b.global_pointer_param("vals"), words = b.global_pointer_param("words");
  Value tickets = b.global_pointer_param("tickets");
  Value gid = test::global_index(b);
  Value v = b.load(Space::Global, Type::S32, test::element(b, vals, gid, 4))[0];
  auto word = [&](int k) { return words + b.constant(4 * k, Type::U64); };
  Value t = b.atom(Space::Global, AtomOp::Add, Type::U32, word(0), b.constant(1, Type::U32));
  b.store(Space::Global, Type::U32, test::element(b, tickets, gid, 4), {t});
  b.red(Space::Global, AtomOp::Max, Type::S32, word(1), v);
  b.red(Space::Global, AtomOp::Min, Type::S32, word(2), v);
  b.red(Space::Global, AtomOp::Inc, Type::U32, word(3), b.constant(9, Type::U32));  // counts modulo 10
  b.red(Space::Global, AtomOp::Xor, Type::B32, word(4), Value(&b, v.id(), Type::B32));
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: atomics return the old value and fold add, max, min, inc and xor") {
  TESSEL_RNG(rng);
  const unsigned n = 3 * 128;
  std::vector<int32_t> vals(n);
  for (int32_t& v : vals) v = static_cast<int32_t>(rng());
  emu::Memory mem;
  const uint64_t pv = mem.upload(vals);
  const uint64_t pw = mem.upload(std::vector<int32_t>{0, INT32_MIN, INT32_MAX, 0, 0});
  const uint64_t pt = mem.alloc(n * 4);
  LaunchPlan plan = test::plan_of(atomics_kernel(), 3, 128);
  plan.arg(pv).arg(pw).arg(pt);
  emu::run(plan, mem);
  std::vector<uint32_t> tickets = mem.read<uint32_t>(pt, n);
  std::sort(tickets.begin(), tickets.end());
  std::vector<uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  CHECK(tickets == all);  // each thread drew a different ticket
  const std::vector<int32_t> w = mem.read<int32_t>(pw, 5);
  CHECK(w[0] == static_cast<int32_t>(n));
  CHECK(w[1] == *std::max_element(vals.begin(), vals.end()));
  CHECK(w[2] == *std::min_element(vals.begin(), vals.end()));
  CHECK(w[3] == static_cast<int32_t>(n % 10));
  int32_t x = 0;
  for (int32_t v : vals) x ^= v;
  CHECK(w[4] == x);
}

namespace {

// sum[i % 8] += vals[i] with atom.global.add.f32: the result depends on the order of the adds.
Kernel float_sum_kernel() {
  KernelBuilder b("tessel_test_float_atomics");
  Value vals = b.global_pointer_param("vals"), sums = b.global_pointer_param("sums");
  Value gid = test::global_index(b);
  Value v = b.load(Space::Global, Type::F32, test::element(b, vals, gid, 4))[0];
  b.red(Space::Global, AtomOp::Add, Type::F32, test::element(b, sums, gid & 7, 4), v);
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: float atomics give the same bits on every run") {
  TESSEL_RNG(rng);
  const unsigned n = 4 * 256;
  std::vector<float> vals(n);
  for (float& v : vals) v = std::uniform_real_distribution<float>(-1000, 1000)(rng);
  std::vector<uint32_t> first;
  for (int run = 0; run < 2; ++run) {
    emu::Memory mem;
    const uint64_t pv = mem.upload(vals), ps = mem.upload(std::vector<float>(8, 0.0f));
    LaunchPlan plan = test::plan_of(float_sum_kernel(), 4, 256);
    plan.arg(pv).arg(ps);
    emu::run(plan, mem);
    const std::vector<uint32_t> bits = mem.read<uint32_t>(ps, 8);
    const std::vector<float> sums = mem.read<float>(ps, 8);
    for (int k = 0; k < 8; ++k) {
      double exact = 0;
      for (unsigned i = k; i < n; i += 8) exact += vals[i];
      CHECK(std::fabs(sums[k] - exact) < 1e-3 * 1000 * n / 8);
    }
    if (run == 0) first = bits;
    if (run == 1) CHECK(bits == first);
  }
}
