// warp_test.cpp: warp collectives on the emulator: a shfl.bfly reduction, the up/down/idx modes
// with clamping, shuffles of two half-warps that diverged (each with its own membermask), and
// elect.sync, against host computations.
#include <doctest/doctest.h>

#include <vector>

#include "emulator/gpu_compare.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

constexpr unsigned kThreads = 128;
constexpr int kOutputs = 6;  // sum, up, down, idx, half, elect

Kernel warp_kernel() {
  KernelBuilder b("tessel_test_warp");
  Value pa = b.global_pointer_param("a"), out = b.global_pointer_param("out");
  Value tid = b.special(Special::TidX), lane = b.special(Special::LaneId);
  Value v = b.load(Space::Global, Type::U32, test::element(b, pa, tid, 4))[0];
  // The butterfly reduction leaves the warp's sum in every lane.
  Value s = v;
  for (int off : {16, 8, 4, 2, 1}) s = s + shfl_sync(b, ShflMode::Bfly, s, off, 0x1f);
  Value up = shfl_sync(b, ShflMode::Up, v, 1, 0);         // lane 0 keeps its own value
  Value down = shfl_sync(b, ShflMode::Down, v, 3, 0x1f);  // lanes 29..31 keep theirs
  Value idx = shfl_sync(b, ShflMode::Idx, v, b.constant(31, Type::U32) - lane, 0x1f);
  // Two half-warps diverge and each broadcasts its first lane's value under its own membermask.
  Value half = b.reg(Type::U32);
  b.if_(
      lane < b.constant(16, Type::U32), [&] { b.assign(half, shfl_sync(b, ShflMode::Idx, v, 0, 0x1f, 0x0000ffffu)); },
      [&] { b.assign(half, shfl_sync(b, ShflMode::Idx, v, 16, 0x1f, 0xffff0000u)); });
  Value elected = b.select(elect_sync(b), b.constant(1, Type::U32), b.constant(0, Type::U32));
  const std::vector<Value> results = {s, up, down, idx, half, elected};
  for (int k = 0; k < kOutputs; ++k) {
    b.store(Space::Global, Type::U32, test::element(b, out, b.binary(Op::Add, tid, int64_t{k} * kThreads), 4),
            {results[k]});
  }
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: shfl.sync in every mode, divergent half-warps and elect.sync match the host") {
  TESSEL_RNG(rng);
  std::vector<uint32_t> a(kThreads);
  for (uint32_t& x : a) x = static_cast<uint32_t>(rng());
  emu::Memory mem;
  const uint64_t pa = mem.upload(a), out = mem.alloc(kOutputs * kThreads * 4);
  LaunchPlan plan = test::plan_of(warp_kernel(), 1, kThreads);
  plan.arg(pa).arg(out);
  const emu::RunStats stats = emu::run(plan, mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(out, kOutputs * kThreads);
  for (unsigned t = 0; t < kThreads; ++t) {
    const unsigned w = t / 32 * 32, l = t % 32;
    uint32_t sum = 0;
    for (unsigned k = 0; k < 32; ++k) sum += a[w + k];
    INFO("thread " << t);
    CHECK(got[0 * kThreads + t] == sum);
    CHECK(got[1 * kThreads + t] == a[l == 0 ? t : t - 1]);
    CHECK(got[2 * kThreads + t] == a[l + 3 > 31 ? t : t + 3]);
    CHECK(got[3 * kThreads + t] == a[w + 31 - l]);
    CHECK(got[4 * kThreads + t] == a[w + (l < 16 ? 0 : 16)]);
    CHECK(got[5 * kThreads + t] == (l == 0 ? 1u : 0u));
  }
  // 4 warps x (5 + 3 + 1 whole-warp shuffles and elect + 2 half-warp groups).
  CHECK(stats.collectives == 4 * (5 + 3 + 2 + 1));
}

TEST_CASE("emulator: warp collectives agree with the GPU") {
  TESSEL_REQUIRE_GPU(90);
  TESSEL_RNG(rng);
  std::vector<uint32_t> a(kThreads);
  for (uint32_t& x : a) x = static_cast<uint32_t>(rng());
  const auto [e, g] = test::run_both(warp_kernel(), {1, 1, 1}, {kThreads, 1, 1},
                                     {test::as_bytes(a), test::Bytes(kOutputs * kThreads * 4, 0)});
  CHECK(test::count_differences(e[1], g[1], 4, "warp outputs") == 0);
}
