// mbarrier_test.cpp: hand-built kernels for the mbarrier and TMA paths of the emulator: phase,
// parity and tx-count rules; a producer/consumer pipeline across warps (a waiting thread must
// yield); deadlocks reported with the waiting threads, the barrier and the parity; TMA loads with
// out-of-bound zero fill and stores clipped at the tensor's edges; named barriers of 256 threads.
#include <doctest/doctest.h>

#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

Value u32(KernelBuilder& b, int64_t v) { return b.constant(v, Type::U32); }

void store_u32(KernelBuilder& b, Value out, Value index, Value v) {
  b.store(Space::Global, Type::U32, test::element(b, out, index, 4), {v});
}

std::vector<uint32_t> random_words(std::mt19937_64& rng, size_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = static_cast<uint32_t>(1 + rng() % 0xfffffffeu);  // never 0
  return v;
}

}  // namespace

TEST_CASE("emulator: mbarrier phases follow arrivals, parity and the tx-count") {
  TESSEL_RNG(rng);
  KernelBuilder b("tessel_test_mbarrier_phases");
  Value tmap = b.tensor_map_param("tmap");
  Value out = b.global_pointer_param("out");
  Value x = b.param("x", Type::S32);
  Value bar = b.shared_array("bar", 8, 8);
  Value tile = b.shared_array("tile", 64, 128);
  Value tid = b.special(Special::TidX);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, bar, 1);
    mbarrier_wait(b, bar, 1);  // the phase before phase 0 (parity 1) counts as complete
    store_u32(b, out, u32(b, 0), u32(b, 1));
    mbarrier_arrive(b, bar);   // completes phase 0
    mbarrier_wait(b, bar, 0);
    store_u32(b, out, u32(b, 1), u32(b, 2));
    mbarrier_arrive_expect_tx(b, bar, 64);  // phase 1: every arrival in, 64 bytes pending
    tma_load(b, tile, tmap, {x}, bar);      // completes phase 1 with 64 bytes
    mbarrier_wait(b, bar, 1);
    for (int i = 0; i < 16; ++i) {
      Value v = b.load(Space::Shared, Type::U32, tile, 4 * i)[0];
      store_u32(b, out, u32(b, 2 + i), v);
    }
    mbarrier_arrive(b, bar);  // completes phase 2
    mbarrier_wait(b, bar, 0);
    store_u32(b, out, u32(b, 18), u32(b, 3));
  });
  const std::vector<uint32_t> src = random_words(rng, 40);
  const int32_t at = 4 * static_cast<int32_t>(test::uniform(rng, 0, 6));  // on a 16-byte granule (the hardware's rule)
  emu::Memory mem;
  const uint64_t dsrc = mem.upload(src), dout = mem.alloc(19 * 4);
  const rt::TensorMapSpec spec = test::spec_1d(40, 16);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  plan.arg(emu::encode_tensor_map(spec, dsrc)).arg(dout).arg(at);
  const emu::RunStats stats = emu::run(plan, mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(dout, 19);
  CHECK(got[0] == 1);
  CHECK(got[1] == 2);
  for (int i = 0; i < 16; ++i) CHECK(got[size_t(2 + i)] == src[size_t(at + i)]);
  CHECK(got[18] == 3);
  CHECK(stats.mbarrier_phases == 3);
  CHECK(stats.tma_loads == 1);
}

// The hardware faults on a TMA box whose first element is not on a 16-byte granule of the tensor,
// and on a store at a negative coordinate in any dimension (illegal instructions on an H200,
// tools/probe/tma_granule.cu), though the descriptor is valid: the emulator says so.
TEST_CASE("emulator: a TMA box whose start is not on a 16-byte granule is misaligned") {
  TESSEL_RNG(rng);
  for (bool store : {false, true}) {
    KernelBuilder b(store ? "tessel_test_tma_store_granule" : "tessel_test_tma_load_granule");
    Value tmap = b.tensor_map_param("tmap");
    Value x = b.param("x", Type::S32);
    Value bar = b.shared_array("bar", 8, 8);
    Value tile = b.shared_array("tile", 64, 128);
    b.if_(b.special(Special::TidX) == 0, [&] {
      if (store) {
        fence_proxy_async(b, Space::Shared);
        tma_store(b, tmap, {x}, tile);
        cp_async_bulk_commit_group(b);
        cp_async_bulk_wait_group(b, 0);
        return;
      }
      mbarrier_init(b, bar, 1);
      mbarrier_arrive_expect_tx(b, bar, 64);
      tma_load(b, tile, tmap, {x}, bar);
      mbarrier_wait(b, bar, 0);
    });
    const int32_t at = 4 * static_cast<int32_t>(test::uniform(rng, 0, 5)) + static_cast<int32_t>(test::uniform(rng, 1, 3));
    emu::Memory mem;
    const uint64_t dsrc = mem.upload(random_words(rng, 40));
    const rt::TensorMapSpec spec = test::spec_1d(40, 16);
    LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
    plan.arg(emu::encode_tensor_map(spec, dsrc)).arg(at);
    INFO("coordinate " << at << (store ? ", store" : ", load"));
    test::check_contains(test::emulation_error(plan, mem),
                         {"misaligned address", "a TMA box at (" + std::to_string(at) + ") starts " +
                                                    std::to_string(4 * at) + " bytes into dimension 0"});
    if (!store) continue;
    // A store on a granule but at a negative coordinate.
    LaunchPlan negative = plan;
    negative.params.clear();
    negative.arg(emu::encode_tensor_map(spec, dsrc)).arg(int32_t{-4});
    test::check_contains(test::emulation_error(negative, mem),
                         {"misaligned address", "a TMA store of the box at (-4): coordinate 0 is negative"});
  }
}

TEST_CASE("emulator: a phase with bytes still expected does not complete: a deadlock names it") {
  KernelBuilder b("tessel_test_mbarrier_tx");
  Value bar = b.shared_array("bar", 8, 8);
  Value tid = b.special(Special::TidX);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, bar, 1);
    mbarrier_arrive_expect_tx(b, bar, 64);  // no copy brings the 64 bytes
    mbarrier_wait(b, bar, 0);
  });
  emu::Memory mem;
  LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
  test::check_contains(test::emulation_error(plan, mem),
                 {"emulator: mbarrier deadlock: kernel tessel_test_mbarrier_tx, block (0,0,0), thread (0,0,0)",
                  "mbarrier.try_wait.parity.shared::cta.b64", "thread (0,0,0) waits for the phase of parity 0",
                  "of the mbarrier at shared address 0x400 (offset 0 of bar)",
                  "phase 0 (parity 0), 0 of 1 arrivals pending, tx-count 64", "31 threads have exited"});
}

TEST_CASE("emulator: misused mbarriers and foreign tensor maps are named") {
  {
    KernelBuilder b("tessel_test_mbarrier_uninit");
    Value bar = b.shared_array("bar", 8, 8);
    mbarrier_arrive(b, bar);
    emu::Memory mem;
    LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: uninitialized mbarrier: kernel tessel_test_mbarrier_uninit",
                    "mbarrier.arrive on shared address 0x400, where no mbarrier was initialized"});
  }
  {
    KernelBuilder b("tessel_test_tma_foreign_map");
    Value tmap = b.tensor_map_param("tmap");
    Value bar = b.shared_array("bar", 8, 8), tile = b.shared_array("tile", 64, 128);
    Value tid = b.special(Special::TidX);
    b.if_(tid == 0, [&] {
      mbarrier_init(b, bar, 1);
      tma_load(b, tile, tmap, {b.constant(0, Type::S32)}, bar);
    });
    emu::Memory mem;
    LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
    rt::TensorMap driver_like;  // what a driver would have written: no emulator magic
    driver_like.words[0] = 0x1234;
    plan.arg(driver_like);
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: invalid tensor map: kernel tessel_test_tma_foreign_map",
                    "tensor map not made by emu::encode_tensor_map"});
  }
}

namespace {

// A pipeline of 2 stages: thread 0 produces `produced` items (a word in shared memory per stage,
// full[s] after it), warp 1 consumes `items` of them (empty[s] after reading). The producer can
// run at most 2 items ahead, so it must wait for the consumers and they for it.
LaunchPlan pipeline(int produced, int items, uint32_t seed, uint64_t out) {
  KernelBuilder b("tessel_test_pipeline");
  Value o = b.global_pointer_param("out");
  Value bars = b.shared_array("bars", 32, 8);  // full[0], full[1], empty[0], empty[1]
  Value data = b.shared_array("data", 8, 8);
  Value tid = b.special(Special::TidX);
  Value one = u32(b, 1);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, bars, 1);
    mbarrier_init(b, bars + 8, 1);
    mbarrier_init(b, bars + 16, 32);
    mbarrier_init(b, bars + 24, 32);
  });
  bar_sync(b);
  b.if_(tid == 0, [&] {
    b.for_range(u32(b, 0), u32(b, produced), 1, [&](Value it) {
      Value s = it & 1, phase = (it >> 1) & 1;
      mbarrier_wait(b, bars + 16 + s * 8, phase ^ one);
      b.store(Space::Shared, Type::U32, data + s * 4, {it * 10 + static_cast<int64_t>(seed)});
      mbarrier_arrive(b, bars + s * 8);
    });
  });
  b.if_(tid >= 32, [&] {
    b.for_range(u32(b, 0), u32(b, items), 1, [&](Value it) {
      Value s = it & 1, phase = (it >> 1) & 1;
      mbarrier_wait(b, bars + s * 8, phase);
      Value v = b.load(Space::Shared, Type::U32, data + s * 4)[0];
      store_u32(b, o, it * 32 + (tid - 32), v);
      mbarrier_arrive(b, bars + 16 + s * 8);
    });
  });
  LaunchPlan plan = test::plan_of(b.finish(), 1, 64);
  plan.arg(out);
  return plan;
}

}  // namespace

TEST_CASE("emulator: a producer/consumer pipeline across warps runs: waiting threads yield") {
  TESSEL_RNG(rng);
  const int items = static_cast<int>(test::uniform(rng, 5, 12));
  const uint32_t seed = static_cast<uint32_t>(test::uniform(rng, 1, 1 << 20));
  emu::Memory mem;
  const uint64_t out = mem.alloc(size_t(items) * 32 * 4);
  const emu::RunStats stats = emu::run(pipeline(items, items, seed, out), mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(out, size_t(items) * 32);
  for (int it = 0; it < items; ++it) {
    for (int l = 0; l < 32; ++l) CHECK(got[size_t(it * 32 + l)] == uint32_t(it * 10) + seed);
  }
  CHECK(stats.mbarrier_phases == uint64_t(2 * items));
}

TEST_CASE("emulator: consumers waiting for an item never produced are a deadlock naming them") {
  emu::Memory mem;
  const uint64_t out = mem.alloc(6 * 32 * 4);
  test::check_contains(test::emulation_error(pipeline(5, 6, 1, out), mem),
                 {"emulator: mbarrier deadlock: kernel tessel_test_pipeline, block (0,0,0), thread (32,0,0)",
                  // item 5: stage 1 (full[1] at offset 8), its third use (phase 2, parity 0)
                  "thread (32,0,0) and 31 other threads wait for the phase of parity 0 of the mbarrier at shared "
                  "address 0x408 (offset 8 of bars)",
                  "phase 2 (parity 0), 1 of 1 arrivals pending, tx-count 0", "32 threads have exited"});
}

TEST_CASE("emulator: a TMA load fills out-of-bound elements with zero, negative coordinates included") {
  TESSEL_RNG(rng);
  const int64_t w = test::uniform(rng, 20, 40), h = test::uniform(rng, 8, 16), ld = (w + 3) / 4 * 4 + 4;
  const std::vector<uint32_t> in = random_words(rng, size_t(ld * h));
  KernelBuilder b("tessel_test_tma_oob");
  Value tmap = b.tensor_map_param("tmap");
  Value out = b.global_pointer_param("out");
  Value cx = b.param("cx", Type::S32), cy = b.param("cy", Type::S32);
  Value bar = b.shared_array("bar", 8, 8), tile = b.shared_array("tile", 8 * 4 * 4, 128);
  Value tid = b.special(Special::TidX);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, bar, 1);
    mbarrier_arrive_expect_tx(b, bar, 128);  // the whole box, out-of-bound elements included
    tma_load(b, tile, tmap, {cx, cy}, bar);
  });
  mbarrier_wait(b, bar, 0);
  store_u32(b, out, tid, b.load(Space::Shared, Type::U32, tile + tid * 4)[0]);
  const Kernel k = b.finish();
  const std::vector<std::pair<int32_t, int32_t>> corners = {
      {-4, -2}, {int32_t((w - 5) / 4 * 4), int32_t(h - 1)}, {-8, 0}, {int32_t(4 * test::uniform(rng, 0, (w - 8) / 4)), 0},
      {-4, int32_t(h - 3)}};  // x on 16-byte granules (the hardware's rule: the granule test above)
  for (const auto& [x, y] : corners) {
    INFO("box at (" << x << "," << y << ") of a " << w << "x" << h << " tensor");
    emu::Memory mem;
    const uint64_t din = mem.upload(in), dout = mem.alloc(32 * 4);
    LaunchPlan plan = test::plan_of(k, 1, 32);
    plan.arg(emu::encode_tensor_map(test::spec_2d(w, h, ld, 8, 4), din)).arg(dout).arg(x).arg(y);
    emu::run(plan, mem);
    const std::vector<uint32_t> got = mem.read<uint32_t>(dout, 32);
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 8; ++c) {
        const int64_t gx = x + c, gy = y + r;
        const bool inside = gx >= 0 && gx < w && gy >= 0 && gy < h;
        CHECK(got[size_t(r * 8 + c)] == (inside ? in[size_t(gy * ld + gx)] : 0u));
      }
    }
  }
}

// Clipped as the hardware clips: along dimension 0 in whole 16-byte granules, so that the rest
// of the last granule of a row of w words (w not a multiple of 4) is written too (seen on an H100),
// at the far edges only: a store at a negative coordinate faults on an H200 (below).
TEST_CASE("emulator: a TMA store writes the box clipped to the tensor") {
  TESSEL_RNG(rng);
  const int64_t w = test::uniform(rng, 20, 40), h = test::uniform(rng, 8, 16), ld = (w + 3) / 4 * 4 + 4;
  const std::vector<uint32_t> box = random_words(rng, 32);
  KernelBuilder b("tessel_test_tma_store");
  Value tmap = b.tensor_map_param("tmap");
  Value in = b.global_pointer_param("in");
  Value cx = b.param("cx", Type::S32), cy = b.param("cy", Type::S32);
  Value tile = b.shared_array("tile", 8 * 4 * 4, 128);
  Value tid = b.special(Special::TidX);
  b.store(Space::Shared, Type::U32, tile + tid * 4, {b.load(Space::Global, Type::U32, test::element(b, in, tid, 4))[0]});
  fence_proxy_async(b, Space::Shared);
  bar_sync(b);
  b.if_(tid == 0, [&] {
    tma_store(b, tmap, {cx, cy}, tile);
    cp_async_bulk_commit_group(b);
    cp_async_bulk_wait_group(b, 0, true);
  });
  const Kernel k = b.finish();
  const std::vector<std::pair<int32_t, int32_t>> corners = {
      {0, 0}, {int32_t((w - 5) / 4 * 4), int32_t(h - 1)}, {int32_t(4 * test::uniform(rng, 0, (w - 8) / 4)), 1}};
  for (const auto& [x, y] : corners) {
    INFO("box at (" << x << "," << y << ") of a " << w << "x" << h << " tensor");
    emu::Memory mem;
    const uint64_t din = mem.upload(box), dout = mem.alloc(size_t(ld * h * 4));  // poisoned: 0xffffffff
    LaunchPlan plan = test::plan_of(k, 1, 32);
    plan.arg(emu::encode_tensor_map(test::spec_2d(w, h, ld, 8, 4), dout)).arg(din).arg(x).arg(y);
    const emu::RunStats stats = emu::run(plan, mem);
    CHECK(stats.tma_stores == 1);
    const std::vector<uint32_t> got = mem.read<uint32_t>(dout, size_t(ld * h));
    int64_t wrong = 0, written = 0;
    for (int64_t gy = 0; gy < h; ++gy) {
      for (int64_t gx = 0; gx < ld; ++gx) {
        const int64_t c = gx - x, r = gy - y;
        const bool in_box = c >= 0 && c < 8 && r >= 0 && r < 4 && gx < (w + 3) / 4 * 4;
        const uint32_t want = in_box ? box[size_t(r * 8 + c)] : 0xffffffffu;
        wrong += got[size_t(gy * ld + gx)] != want;
        written += in_box;
      }
    }
    CHECK(wrong == 0);
    CHECK(written > 0);
  }
}

// The async proxy (TMA store, wgmma) sees a thread's st.shared only after that thread's
// fence.proxy.async; without it (or with a fence of .global alone) the emulator names the byte,
// the writer and the missing fence. A fence after the issue is too late.
TEST_CASE("emulator: a TMA store of bytes written without fence.proxy.async is an error") {
  enum class Fence { None, Global, AfterIssue };
  for (Fence f : {Fence::None, Fence::Global, Fence::AfterIssue}) {
    KernelBuilder b("tessel_test_tma_store_fence");
    Value tmap = b.tensor_map_param("tmap");
    Value tile = b.shared_array("tile", 8 * 4 * 4, 128);
    Value tid = b.special(Special::TidX);
    b.store(Space::Shared, Type::U32, tile + tid * 4, {b.cvt(tid, Type::U32) + 1});
    if (f == Fence::Global) fence_proxy_async(b, Space::Global);
    bar_sync(b);
    b.if_(tid == 0, [&] {
      tma_store(b, tmap, {b.constant(0, Type::S32), b.constant(0, Type::S32)}, tile);
      if (f == Fence::AfterIssue) fence_proxy_async(b, Space::Shared);
      cp_async_bulk_commit_group(b);
      cp_async_bulk_wait_group(b, 0, true);
    });
    emu::Memory mem;
    const uint64_t dout = mem.alloc(8 * 4 * 4);
    LaunchPlan plan = test::plan_of(b.finish(), 1, 32);
    plan.arg(emu::encode_tensor_map(test::spec_2d(8, 4, 8, 8, 4), dout));
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: missing proxy fence: kernel tessel_test_tma_store_fence, block (0,0,0), thread (0,0,0)",
                    "the TMA store reads byte 0x400 (offset 0 of tile), which thread (0,0,0) wrote through the "
                    "generic proxy (st.shared, stmatrix) with no fence.proxy.async after the write"});
  }
}

TEST_CASE("emulator: bar.sync 1 with 256 of 384 threads orders their shared writes") {
  TESSEL_RNG(rng);
  const uint32_t seed = static_cast<uint32_t>(test::uniform(rng, 1, 1 << 20));
  KernelBuilder b("tessel_test_named_barrier");
  Value out = b.global_pointer_param("out");
  Value s = b.shared_array("s", 256 * 4, 16);
  Value tid = b.special(Special::TidX);
  b.if_(
      tid < 256,
      [&] {
        b.store(Space::Shared, Type::U32, s + tid * 4, {tid * 3 + static_cast<int64_t>(seed)});
        bar_sync(b, 1, 256);
        Value next = (tid + 1) & 255;
        store_u32(b, out, tid, b.load(Space::Shared, Type::U32, s + next * 4)[0]);
      },
      [&] { store_u32(b, out, tid, u32(b, 77)); });
  emu::Memory mem;
  const uint64_t dout = mem.alloc(384 * 4);
  LaunchPlan plan = test::plan_of(b.finish(), 1, 384);
  plan.arg(dout);
  const emu::RunStats stats = emu::run(plan, mem);
  const std::vector<uint32_t> got = mem.read<uint32_t>(dout, 384);
  for (uint32_t t = 0; t < 384; ++t) CHECK(got[t] == (t < 256 ? ((t + 1) & 255) * 3 + seed : 77u));
  CHECK(stats.barriers == 1);
}
