// cluster_test.cpp: hand-built kernels in clusters of two CTAs on the emulator: a multicast TMA load
// lands in both CTAs and completes on each one's mbarrier, a remote arrive reaches the peer's
// mbarrier (and only it), barrier.cluster waits for every thread of the cluster; the errors name
// a missing peer at barrier.cluster, a rank outside the cluster and a multicast mask past it.
#include <doctest/doctest.h>

#include <vector>

#include "emulator/support.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

// A plan of `grid` CTAs of 32 threads in clusters of two.
LaunchPlan cluster_plan(KernelBuilder& b, unsigned grid) {
  b.kernel().cluster_dims = std::array<int, 3>{2, 1, 1};
  LaunchPlan plan = test::plan_of(b.finish(), grid, 32);
  plan.cluster = {2, 1, 1};
  return plan;
}

}  // namespace

TEST_CASE("emulator: in a cluster, a multicast TMA load fills both CTAs and a remote arrive reaches the peer") {
  TESSEL_RNG(rng);
  const int64_t w = 8, h = test::uniform(rng, 8, 20);
  std::vector<uint32_t> in(size_t(w * h));
  for (uint32_t& x : in) x = static_cast<uint32_t>(1 + rng() % 0xfffffffeu);
  KernelBuilder b("tessel_test_cluster");
  Value tmap = b.tensor_map_param("tmap");
  Value out = b.global_pointer_param("out");
  Value row = b.param("row", Type::S32);
  Value full = b.shared_array("full", 8, 8), done = b.shared_array("done", 8, 8);
  Value tile = b.shared_array("tile", 8 * 4 * 4, 128);
  Value tid = b.special(Special::TidX);
  Value rank = b.special(Special::ClusterCtaRank);
  Value gid = test::global_index(b);
  b.if_(tid == 0, [&] {
    mbarrier_init(b, full, 1);
    mbarrier_init(b, done, 1);
    mbarrier_arrive_expect_tx(b, full, 128);  // each CTA expects the box, only rank 0 loads it
  });
  cluster_sync(b);  // the peer's barriers are initialised before anything reaches them
  b.if_((tid == 0) & (rank == 0), [&] {
    tma_load(b, tile, tmap, {b.constant(0, Type::S32), row}, full, b.constant(3, Type::U16));
  });
  mbarrier_wait(b, full, 0);
  Value word = b.load(Space::Shared, Type::U32, tile + tid * 4)[0];
  // Rank 0 arrives on rank 1's `done` only; rank 1 waits for it, then marks its words.
  b.if_((tid == 0) & (rank == 0), [&] { mbarrier_arrive_cluster(b, done, 1); });
  b.if_(rank == 1, [&] {
    mbarrier_wait(b, done, 0);
    b.assign(word, word ^ b.constant(0xffffffff, Type::U32));
  });
  b.store(Space::Global, Type::U32, test::element(b, out, gid, 4), {word});
  const unsigned grid = 4;  // two clusters
  LaunchPlan plan = cluster_plan(b, grid);
  const int32_t r0 = static_cast<int32_t>(test::uniform(rng, 0, h - 4));
  emu::Memory mem;
  const uint64_t din = mem.upload(in), dout = mem.alloc(grid * 32 * 4);
  plan.arg(emu::encode_tensor_map(test::spec_2d(w, h, w, 8, 4), din)).arg(dout).arg(r0);
  const emu::RunStats stats = emu::run(plan, mem);
  CHECK(stats.blocks == grid);
  CHECK(stats.tma_loads == 2);  // one per cluster, delivered to both of its CTAs
  const std::vector<uint32_t> got = mem.read<uint32_t>(dout, grid * 32);
  for (unsigned cta = 0; cta < grid; ++cta) {
    for (int i = 0; i < 32; ++i) {
      const uint32_t want = in[size_t((r0 + i / 8) * w + i % 8)];
      INFO("CTA " << cta << ", word " << i);
      CHECK(got[cta * 32 + size_t(i)] == (cta % 2 ? ~want : want));
    }
  }
}

TEST_CASE("emulator: cluster errors name the peer missing at barrier.cluster, the rank and the mask") {
  {
    KernelBuilder b("tessel_test_cluster_barrier");
    Value rank = b.special(Special::ClusterCtaRank);
    b.if_(rank == 0, [&] { cluster_sync(b); });  // rank 1 never comes
    LaunchPlan plan = cluster_plan(b, 2);
    emu::Memory mem;
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: barrier deadlock: kernel tessel_test_cluster_barrier, block (0,0,0)",
                    "barrier.cluster waits for every thread of the cluster's 2 blocks, 32 arrived",
                    "thread (0,0,0) of block (1,0,0) exited without reaching it"});
  }
  {
    KernelBuilder b("tessel_test_cluster_rank");
    Value bar = b.shared_array("bar", 8, 8);
    Value tid = b.special(Special::TidX);
    b.if_(tid == 0, [&] {
      mbarrier_init(b, bar, 1);
      mbarrier_arrive_cluster(b, bar, b.cvt(tid, Type::U32) + 2);
    });
    LaunchPlan plan = cluster_plan(b, 2);
    emu::Memory mem;
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: invalid cluster rank: kernel tessel_test_cluster_rank, block (0,0,0), thread (0,0,0)",
                    "mapa to CTA rank 2 of a cluster of 2 CTAs"});
  }
  {
    KernelBuilder b("tessel_test_cluster_mask");
    Value tmap = b.tensor_map_param("tmap");
    Value bar = b.shared_array("bar", 8, 8), tile = b.shared_array("tile", 128, 128);
    Value tid = b.special(Special::TidX);
    b.if_(tid == 0, [&] {
      mbarrier_init(b, bar, 1);
      tma_load(b, tile, tmap, {b.constant(0, Type::S32), b.constant(0, Type::S32)}, bar, b.constant(5, Type::U16));
    });
    LaunchPlan plan = cluster_plan(b, 2);
    emu::Memory mem;
    const uint64_t din = mem.alloc(8 * 4 * 4);
    plan.arg(emu::encode_tensor_map(test::spec_2d(8, 4, 8, 8, 4), din));
    test::check_contains(test::emulation_error(plan, mem),
                   {"emulator: invalid multicast mask: kernel tessel_test_cluster_mask",
                    "cta_mask 0x5 names no CTA, or CTAs past the 2 of this cluster"});
  }
}
