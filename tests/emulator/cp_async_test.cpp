// cp_async_test.cpp: hand-built kernels for the emulator's cp.async (4, 8 and 16 bytes, zero fill
// past src-size, commit/wait groups, wait_all) and cp.async.mbarrier.arrive(.noinc): the bytes
// land as the PTX says, only once waited for, and the misuses are named.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(1 + rng() % 255);  // never 0: zero fill shows
  return v;
}

// Thread t's 16 bytes of `tile` (u32) to out[16 t, 16 t + 16) through 4-byte shared loads.
void copy_out(KernelBuilder& b, Value tile, Value out, Value tid) {
  for (int w = 0; w < 4; ++w) {
    Value v = b.load(Space::Shared, Type::U32, tile + b.cvt(tid, Type::U32) * 16, 4 * w)[0];
    b.store(Space::Global, Type::U32, test::element(b, out, tid * 4 + w, 4), {v});
  }
}

}  // namespace

TEST_CASE("emulator: cp.async copies 4, 8 and 16 bytes, zero-fills past src-size, lands when waited for") {
  TESSEL_RNG(rng);
  // 32 threads: thread t copies 16 bytes (src-size t % 17) into slot t, then 8 + 4 + 4 bytes (the
  // 4 last of them with src-size 0) into slot 32 + t; each reads its neighbour's slots after the
  // wait and a barrier.
  KernelBuilder b("tessel_test_cp_async_sizes");
  Value in = b.global_pointer_param("in");
  Value out = b.global_pointer_param("out");
  Value tile = b.shared_array("tile", 64 * 16, 16);
  Value tid = b.cvt(b.special(Special::TidX), Type::S32);
  Value t = b.cvt(tid, Type::U32);
  Value src = in + b.mul_wide(tid, 16);
  cp_async(b, tile + t * 16, src, 16, Cache::Cg, (tid % 17));
  cp_async_commit_group(b);
  Value src2 = in + 512 + b.mul_wide(tid, 16);
  Value dst2 = tile + 512 + t * 16;
  cp_async(b, dst2, src2, 8);
  cp_async(b, dst2 + 8, src2 + 8, 4);
  cp_async(b, dst2 + 12, src2 + 12, 4, Cache::Ca, b.constant(0, Type::U32));
  cp_async_wait_group(b, 0);  // the first group; the second is not committed yet
  cp_async_wait_all(b);
  bar_sync(b);
  Value peer = tid ^ b.constant(1, Type::S32);
  copy_out(b, tile, out, peer);
  copy_out(b, tile + 512, out + 512, peer);
  const std::vector<uint8_t> host = random_bytes(rng, 1024);
  emu::Memory mem;
  const uint64_t din = mem.upload(host), dout = mem.alloc(1024);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  plan.arg(din).arg(dout);
  const emu::RunStats stats = emu::run(plan, mem);
  const std::vector<uint8_t> got = mem.read<uint8_t>(dout, 1024);
  for (size_t t = 0; t < 32; ++t) {
    const size_t p = t ^ 1;  // thread t wrote its neighbour's slots
    for (size_t i = 0; i < 16; ++i) {
      INFO("thread " << t << " byte " << i);
      CHECK(got[16 * p + i] == (i < p % 17 ? host[16 * p + i] : 0));
      CHECK(got[512 + 16 * p + i] == (i < 12 ? host[512 + 16 * p + i] : 0));
    }
  }
  CHECK(stats.cp_async_copies == 32 * 4);
}

TEST_CASE("emulator: cp.async.mbarrier.arrive.noinc releases the copies to the mbarrier's waiters") {
  TESSEL_RNG(rng);
  // Warp 0 copies 16 bytes per thread and arrives through cp.async.mbarrier.arrive.noinc (32
  // arrivals expected); warp 1 waits on the phase and reads what warp 0 copied, with no barrier.
  KernelBuilder b("tessel_test_cp_async_mbarrier");
  Value in = b.global_pointer_param("in");
  Value out = b.global_pointer_param("out");
  Value tile = b.shared_array("tile", 32 * 16, 16);
  Value bar = b.shared_array("bar", 8, 8);
  Value tid = b.cvt(b.special(Special::TidX), Type::S32);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, bar, 32);
    fence_mbarrier_init(b);
  });
  bar_sync(b);
  b.if_(
      tid < 32,
      [&] {
        cp_async(b, tile + b.cvt(tid, Type::U32) * 16, in + b.mul_wide(tid, 16), 16, Cache::Cg);
        cp_async_mbarrier_arrive(b, bar);
      },
      [&] {
        mbarrier_wait(b, bar, 0);
        copy_out(b, tile, out, tid - 32);
      });
  const std::vector<uint8_t> host = random_bytes(rng, 512);
  emu::Memory mem;
  const uint64_t din = mem.upload(host), dout = mem.alloc(512);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 64);
  plan.arg(din).arg(dout);
  const emu::RunStats stats = emu::run(plan, mem);
  CHECK(mem.read<uint8_t>(dout, 512) == host);
  CHECK(stats.mbarrier_phases == 1);
  CHECK(stats.cp_async_copies == 32);
}

TEST_CASE("emulator: cp.async misuses are named: no wait, misaligned, src-size past the copy, no .noinc") {
  emu::Memory mem;
  const std::vector<uint8_t> host(256, 7);
  const uint64_t din = mem.upload(host), dout = mem.alloc(256);
  enum class Misuse { NoWait, Misaligned, SrcSize, Inc };
  auto kernel = [&](Misuse m) {
    KernelBuilder b("tessel_test_cp_async_misuse");
    Value in = b.global_pointer_param("in");
    Value out = b.global_pointer_param("out");
    Value tile = b.shared_array("tile", 256, 16);
    Value bar = b.shared_array("bar", 8, 8);
    Value tid = b.cvt(b.special(Special::TidX), Type::S32);
    mbarrier_init(b, bar, 1);
    if (m == Misuse::Misaligned) {
      cp_async(b, tile + 4, in, 8);
    } else if (m == Misuse::SrcSize) {
      cp_async(b, tile, in, 8, Cache::Ca, b.constant(9, Type::U32));
    } else {
      cp_async(b, tile, in, 16);
    }
    if (m == Misuse::Inc) {
      // Without .noinc the arrival does not count: the phase never completes.
      cp_async_mbarrier_arrive(b, bar, false);
      mbarrier_wait(b, bar, 0);
    }
    copy_out(b, tile, out, tid);  // NoWait: reads the slot before the copy has landed
    LaunchPlan plan = test::plan_of(b.finish(), 1, 1);
    plan.arg(din).arg(dout);
    return plan;
  };
  test::check_contains(test::emulation_error(kernel(Misuse::NoWait), mem), {"uninitialized shared read"});
  test::check_contains(test::emulation_error(kernel(Misuse::Misaligned), mem),
                       {"misaligned address", "cp.async of 8 bytes", "multiples of 8"});
  test::check_contains(test::emulation_error(kernel(Misuse::SrcSize), mem), {"src-size 9", "at most the copy's size"});
  test::check_contains(test::emulation_error(kernel(Misuse::Inc), mem), {"deadlock"});
}
