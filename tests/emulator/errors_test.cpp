// errors_test.cpp: planted bugs, each caught by the emulator with an error that names what a
// compute-sanitizer report names: the kind, kernel, block, thread, instruction and address.
#include <doctest/doctest.h>

#include <string>

#include "emulator/support.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace test_kernels {
Kernel reverse_kernel(bool barrier);  // shared_test.cpp
}

namespace {

// out[i] = in[i] for i <= n: the guard should be i < n.
Kernel off_by_one_kernel() {
  KernelBuilder b("tessel_test_off_by_one");
  Value in = b.global_pointer_param("in"), out = b.global_pointer_param("out");
  Value n = b.param("n", Type::S32);
  Value i = test::global_index(b);
  b.if_(i <= n, [&] {
    Value v = b.load(Space::Global, Type::F32, test::element(b, in, i, 4))[0];
    b.store(Space::Global, Type::F32, test::element(b, out, i, 4), {v});
  });
  return b.finish();
}

}  // namespace

TEST_CASE("emulator: an off-by-one predicate reads one element past the buffer") {
  const int32_t n = 1000;
  emu::Memory mem;
  const uint64_t in = mem.upload(std::vector<float>(n, 1.5f)), out = mem.alloc(n * 4);
  LaunchPlan plan = test::plan_of(off_by_one_kernel(), 8, 128);  // 1024 threads
  plan.arg(in).arg(out).arg(n);
  // Thread 1000 = block 7, thread 104 reads in[1000], the first byte past the buffer.
  test::check_contains(
      test::emulation_error(plan, mem),
      {"emulator: out-of-bounds global access: kernel tessel_test_off_by_one, block (7,0,0), thread (104,0,0)",
       "ld.global.f32", "reads 4 bytes at global address " + emu::hex(in + 4 * n),
       "0 bytes past the end of the buffer at " + emu::hex(in) + " (4000 bytes)"});
}

TEST_CASE("emulator: a missing bar.sync reads shared memory another thread has not written, or wrote unordered") {
  emu::Memory mem;
  const uint64_t in = mem.upload(std::vector<float>(128, 2.0f)), out = mem.alloc(128 * 4);
  LaunchPlan plan = test::plan_of(test_kernels::reverse_kernel(false), 1, 128);
  plan.arg(in).arg(out);
  // Thread 0 reads tile[127] before thread 127 wrote it.
  test::check_contains(test::emulation_error(plan, mem),
                 {"emulator: uninitialized shared read: kernel tessel_test_reverse_no_barrier, block (0,0,0), thread "
                  "(0,0,0)",
                  "ld.shared.f32", "offset 508 of tile", "was never written by any thread"});
  // Without that check, thread 64 reads tile[63], which thread 63 wrote with no barrier between.
  emu::RunOptions o;
  o.check_uninitialized_shared = false;
  test::check_contains(test::emulation_error(plan, mem, o),
                 {"emulator: shared-memory race: kernel tessel_test_reverse_no_barrier, block (0,0,0), thread (64,0,0)",
                  "offset 252 of tile", "written by thread (63,0,0)", "missing bar.sync"});
  // With both checks off it runs, and gives a wrong result.
  o.check_shared_races = false;
  emu::run(plan, mem, o);
}

TEST_CASE("emulator: a v4 load at an address 4 bytes past 16-byte alignment is misaligned") {
  KernelBuilder b("tessel_test_misaligned");
  Value in = b.global_pointer_param("in"), out = b.global_pointer_param("out");
  std::vector<Value> v = b.load(Space::Global, Type::F32, in, 4, 4);
  b.store(Space::Global, Type::F32, out, v);
  emu::Memory mem;
  const uint64_t pin = mem.upload(std::vector<float>(16, 1.0f)), pout = mem.alloc(64);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  plan.arg(pin).arg(pout);
  test::check_contains(test::emulation_error(plan, mem),
                 {"emulator: misaligned address: kernel tessel_test_misaligned, block (0,0,0), thread (0,0,0)",
                  "ld.global.v4.f32", "reads 16 bytes at global address " + emu::hex(pin + 4), "not a multiple of 16"});
}

TEST_CASE("emulator: an infinite loop ends with the step budget") {
  KernelBuilder b("tessel_test_forever");
  Value out = b.global_pointer_param("out");
  Value i = b.constant(0, Type::U32);
  b.while_([&] { return i >= b.constant(0, Type::U32); }, [&] { b.assign(i, i + b.constant(1, Type::U32)); });
  b.store(Space::Global, Type::U32, out, {i});
  emu::Memory mem;
  const uint64_t pout = mem.alloc(4);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  plan.arg(pout);
  emu::RunOptions o;
  o.max_steps = 100000;
  test::check_contains(test::emulation_error(plan, mem, o),
                 {"emulator: step budget exhausted: kernel tessel_test_forever, block (0,0,0), thread (0,0,0)",
                  "100000 instructions executed"});
}

TEST_CASE("emulator: a barrier that half of the block never reaches is a deadlock") {
  KernelBuilder b("tessel_test_half_barrier");
  Value tid = b.special(Special::TidX);
  b.if_(tid < b.constant(64, Type::U32), [&] { bar_sync(b); });
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(b.finish(), 1, 128);
  test::check_contains(test::emulation_error(plan, mem),
                 {"emulator: barrier deadlock: kernel tessel_test_half_barrier, block (0,0,0), thread (0,0,0), "
                  "instruction `bar.sync 0`",
                  "barrier 0 waits for 128 threads, 64 arrived", "thread (64,0,0) exited without reaching it"});
}

TEST_CASE("emulator: a shuffle whose lanes wait at a barrier instead is a deadlock") {
  KernelBuilder b("tessel_test_shfl_deadlock");
  Value lane = b.special(Special::LaneId);
  b.if_(
      lane < b.constant(16, Type::U32), [&] { shfl_sync(b, ShflMode::Bfly, lane, 1, 0x1f); }, [&] { bar_sync(b); });
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  test::check_contains(
      test::emulation_error(plan, mem),
      {"emulator: warp collective deadlock: kernel tessel_test_shfl_deadlock, block (0,0,0), thread (0,0,0)",
       "shfl.sync.bfly.b32", "membermask 0xffffffff waits for lane 16 (thread (16,0,0)), which waits at `bar.sync 0`"});
}

TEST_CASE("emulator: an instruction it does not run yet is named") {
  KernelBuilder b("tessel_test_mma_sync");
  std::vector<Value> r;
  for (int k = 0; k < 4; ++k) r.push_back(b.constant(0, Type::B32));
  std::vector<Value> c;
  for (int k = 0; k < 4; ++k) c.push_back(b.constant_f32(0.0f));
  mma_sync(b, Type::F16, r, {r[0], r[1]}, c);
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  test::check_contains(test::emulation_error(plan, mem),
                       {"emulator: not emulated yet: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: kernel "
                        "tessel_test_mma_sync, block (0,0,0), thread (0,0,0), instruction `mma.sync"});
}

TEST_CASE("emulator: a plan that does not fit its kernel is a tessel::Error") {
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(off_by_one_kernel(), 1, 128);
  plan.arg(uint64_t{0}).arg(uint64_t{0});
  CHECK_THROWS_WITH_AS(emu::run(plan, mem),
                       "emulator: launch of tessel_test_off_by_one: the kernel has 3 parameters, the plan gives 2",
                       tessel::Error);
  plan.arg(int64_t{7});
  CHECK_THROWS_WITH_AS(emu::run(plan, mem),
                       "emulator: launch of tessel_test_off_by_one: parameter 2 'n' has 4 bytes, the plan gives 8",
                       tessel::Error);
  plan.block = {2048, 1, 1};
  CHECK_THROWS_WITH_AS(emu::run(plan, mem),
                       "emulator: launch of tessel_test_off_by_one: block (2048,1,1) has 2048 threads (at most 1024)",
                       tessel::Error);
}

TEST_CASE("emulator: a shuffle from a lane outside the membermask is undefined, so an error") {
  KernelBuilder b("tessel_test_shfl_outside");
  Value lane = b.special(Special::LaneId);
  b.if_(lane < b.constant(16, Type::U32), [&] { shfl_sync(b, ShflMode::Idx, lane, 20, 0x1f, 0x0000ffffu); });
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  test::check_contains(
      test::emulation_error(plan, mem),
      {"emulator: shfl from an inactive lane: kernel tessel_test_shfl_outside, block (0,0,0), thread (0,0,0)",
       "lane 0 reads lane 20, which is not in the membermask (the value is undefined)"});
}
