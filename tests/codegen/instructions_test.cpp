// instructions_test.cpp: the instruction families of sync.hpp, mbarrier.hpp, async_copy.hpp and
// warp.hpp: the exact PTX lines each builder function writes (in order), the target each kernel
// gets, ptxas accepting the kernel for that target, and the error text for invalid arguments.
#include <doctest/doctest.h>

#include <regex>

#include <string>
#include <vector>

#include "codegen/ptxas.hpp"
#include "tessel/codegen.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

Module one(Kernel k) {
  Module m;
  m.kernels.push_back(std::move(k));
  return m;
}

// Every line appears in the PTX as a whole line, in this order (other lines may come between).
void check_lines(const std::string& ptx, const std::vector<std::string>& lines) {
  INFO("PTX:\n" << ptx);
  size_t at = 0;
  for (const std::string& line : lines) {
    const size_t found = ptx.find("\n" + line + "\n", at);
    CHECK_MESSAGE(found != std::string::npos, "missing, or out of order: " << line);
    if (found != std::string::npos) at = found + 1;
  }
}

// The lines appear one after the other, with nothing between them.
void check_block(const std::string& ptx, const std::vector<std::string>& lines) {
  std::string block = "\n";
  for (const std::string& line : lines) block += line + "\n";
  INFO("PTX:\n" << ptx);
  CHECK_MESSAGE(ptx.find(block) != std::string::npos, "missing block:" << block);
}

void check_target(const std::string& ptx, const std::string& version, const std::string& target) {
  INFO("PTX:\n" << ptx);
  CHECK(ptx.find("\n.version " + version + "\n.target " + target + "\n") != std::string::npos);
}

}  // namespace

// --- sync.hpp -----------------------------------------------------------------------------------

TEST_CASE("codegen: bar.sync, barrier.cluster and the proxy fences") {
  KernelBuilder b("tessel_test_barriers");
  bar_sync(b);
  bar_sync(b, 1, 128);
  barrier_cluster_arrive(b);
  barrier_cluster_wait(b);
  barrier_cluster_arrive(b, false);
  barrier_cluster_wait(b, false);
  cluster_sync(b);
  barrier_cluster_arrive(b, true, true);
  cluster_sync(b, false, true);
  fence_proxy_async(b);
  fence_proxy_async(b, Space::Global);
  fence_proxy_async(b, Space::Shared);
  fence_proxy_async(b, Space::SharedCluster);
  fence_mbarrier_init(b);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  // barrier.cluster and the fences need sm_90; fence.proxy.async needs PTX ISA 8.0.
  check_target(ptx, "8.0", "sm_90");
  check_block(ptx, {
                       "\tbar.sync \t0;",
                       "\tbar.sync \t1, 128;",
                       "\tbarrier.cluster.arrive.aligned;",
                       "\tbarrier.cluster.wait.aligned;",
                       "\tbarrier.cluster.arrive;",
                       "\tbarrier.cluster.wait;",
                       "\tbarrier.cluster.arrive.aligned;",
                       "\tbarrier.cluster.wait.aligned;",
                       "\tbarrier.cluster.arrive.relaxed.aligned;",
                       "\tbarrier.cluster.arrive.relaxed;",
                       "\tbarrier.cluster.wait;",
                       "\tfence.proxy.async;",
                       "\tfence.proxy.async.global;",
                       "\tfence.proxy.async.shared::cta;",
                       "\tfence.proxy.async.shared::cluster;",
                       "\tfence.mbarrier_init.release.cluster;",
                       "\tret;",
                   });
  test::check_assembles(m);
}

// .relaxed on barrier.cluster.arrive came with PTX ISA 8.0 (the plain form with 7.8).
TEST_CASE("codegen: a relaxed cluster arrive needs PTX ISA 8.0") {
  KernelBuilder b("tessel_test_relaxed_arrive");
  barrier_cluster_arrive(b, true, true);
  barrier_cluster_wait(b);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "8.0", "sm_90");
  check_lines(ptx, {"\tbarrier.cluster.arrive.relaxed.aligned;", "\tbarrier.cluster.wait.aligned;"});
  test::check_assembles(m);
}

TEST_CASE("codegen: bar.sync alone stays on sm_80") {
  KernelBuilder b("tessel_test_bar_sync");
  bar_sync(b, 15, 1024);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.0", "sm_80");
  check_lines(ptx, {"\tbar.sync \t15, 1024;"});
  test::check_assembles(m);
}

TEST_CASE("codegen: bar.sync with the barrier's id in a register") {
  KernelBuilder b("tessel_test_bar_sync_register");
  Value id = (b.special(Special::TidX) >> 7) + 1;
  bar_sync(b, id, 128);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  CHECK(std::regex_search(ptx, std::regex("\tbar\\.sync \t%r[0-9]+, 128;")));
  test::check_assembles(m);
  CHECK_THROWS_WITH_AS(bar_sync(b, id, 100), doctest::Contains("thread count 100 is not a multiple of 32"), Error);
}

TEST_CASE("codegen: elect.sync gives a pred that guards one lane") {
  KernelBuilder b("tessel_test_elect");
  Value out = b.global_pointer_param("out");
  Value lane = b.special(Special::LaneId);
  Value leader = elect_sync(b);
  b.if_(leader, [&] { b.store(Space::Global, Type::U32, out, {lane}); });
  Value half = elect_sync(b, 0x0000ffffu);
  b.if_(half, [&] { b.store(Space::Global, Type::U32, out, {lane}, 4); });
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "8.0", "sm_90");
  check_lines(ptx, {
                       "\tmov.u32 \t%r1, %laneid;",
                       "\telect.sync \t_|%p1, -1;",
                       "\t@!%p1 bra \t$L_1;",
                       "\tst.global.u32 \t[%rd2], %r1;",
                       "\telect.sync \t_|%p2, 65535;",
                       "\t@!%p2 bra \t$L_2;",
                       "\tst.global.u32 \t[%rd2+4], %r1;",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: shfl.sync in its four modes, with immediate and register lanes") {
  KernelBuilder b("tessel_test_shfl");
  Value out = b.global_pointer_param("out");
  Value x = b.param("x", Type::F32);
  Value n = b.param("n", Type::S32);
  Value lane = b.special(Special::LaneId);
  Value s = shfl_sync(b, ShflMode::Bfly, x, 16, 31);
  Value t = shfl_sync(b, ShflMode::Idx, n, lane, 31);
  Value u = shfl_sync(b, ShflMode::Up, n, 1, 0, 0x0000ffffu);
  Value w = shfl_sync(b, ShflMode::Down, s, lane, 0x1f);
  CHECK(w.type() == Type::F32);
  CHECK(t.type() == Type::S32);
  Value sum = t + u;
  b.store(Space::Global, Type::F32, out, {w});
  b.store(Space::Global, Type::S32, out, {sum}, 4);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.0", "sm_80");
  check_block(ptx, {
                       "\tshfl.sync.bfly.b32 \t%f2, %f1, 16, 31, -1;",
                       "\tshfl.sync.idx.b32 \t%r3, %r1, %r2, 31, -1;",
                       "\tshfl.sync.up.b32 \t%r4, %r1, 1, 0, 65535;",
                       "\tshfl.sync.down.b32 \t%f3, %f2, %r2, 31, -1;",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: setmaxnreg moves registers between warpgroups on sm_90a") {
  KernelBuilder b("tessel_test_setmaxnreg");
  // ptxas honours setmaxnreg only when it knows the register count at entry.
  b.kernel().maxntid = std::array<int, 3>{256, 1, 1};
  b.kernel().minnctapersm = 1;
  Value tid = b.special(Special::TidX);
  Value warpgroup = tid / 128;
  Value producer = warpgroup == 0;
  b.if_(
      producer, [&] { setmaxnreg(b, false, 40); }, [&] { setmaxnreg(b, true, 232); });
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "8.0", "sm_90a");
  check_lines(ptx, {
                       "\tsetmaxnreg.dec.sync.aligned.u32 \t40;",
                       "\tsetmaxnreg.inc.sync.aligned.u32 \t232;",
                   });
  if (test::check_assembles(m)) {
    const test::PtxasResult r = test::run_ptxas(ptx, "sm_90a");
    INFO(r.log);
    CHECK(r.log.find("setmaxnreg' ignored") == std::string::npos);
  }
}

TEST_CASE("codegen: sync instruction errors name the value and the rule") {
  KernelBuilder b("tessel_test_sync_errors");
  Value x = b.param("x", Type::F32);
  Value d = b.param("d", Type::F64);
  Value wide = b.param("wide", Type::U64);
  CHECK_THROWS_WITH_AS(bar_sync(b, 16), doctest::Contains("bar_sync: barrier 16 is not in [0, 15]"), Error);
  CHECK_THROWS_WITH_AS(bar_sync(b, -1), doctest::Contains("bar_sync: barrier -1 is not in [0, 15]"), Error);
  CHECK_THROWS_WITH_AS(bar_sync(b, 0, 48),
                       doctest::Contains("bar_sync: thread count 48 is not a multiple of 32 in [32, 1024]"), Error);
  CHECK_THROWS_WITH_AS(bar_sync(b, 0, 2048),
                       doctest::Contains("bar_sync: thread count 2048 is not a multiple of 32 in [32, 1024]"), Error);
  CHECK_THROWS_WITH_AS(fence_proxy_async(b, Space::Param),
                       doctest::Contains("fence_proxy_async: state space param is not one of none (every space), "
                                         "global, shared::cta, shared::cluster"),
                       Error);
  CHECK_THROWS_WITH_AS(elect_sync(b, 0),
                       doctest::Contains("elect_sync: membermask 0 names no lane (the executing lane must be in it)"),
                       Error);
  CHECK_THROWS_WITH_AS(shfl_sync(b, ShflMode::None, x, 1, 31),
                       doctest::Contains("shfl_sync: a mode is needed (up, down, bfly or idx)"), Error);
  CHECK_THROWS_WITH_AS(
      shfl_sync(b, ShflMode::Bfly, d, 1, 31),
      doctest::Contains("shfl_sync: a f64 value is not 32 bits (shfl.sync.b32 moves 32-bit registers)"), Error);
  CHECK_THROWS_WITH_AS(shfl_sync(b, ShflMode::Idx, x, 32, 31),
                       doctest::Contains("shfl_sync: lane operand 32 is not in [0, 31]"), Error);
  CHECK_THROWS_WITH_AS(shfl_sync(b, ShflMode::Idx, x, wide, 31),
                       doctest::Contains("shfl_sync: the lane operand is a u64 value (a 32-bit integer)"), Error);
  CHECK_THROWS_WITH_AS(
      shfl_sync(b, ShflMode::Idx, x, 0, 0x2000),
      doctest::Contains("shfl_sync: c operand 8192 is not (segment mask << 8) | clamp with both parts in [0, 31]"),
      Error);
  CHECK_THROWS_WITH_AS(shfl_sync(b, ShflMode::Idx, x, 0, 32),
                       doctest::Contains("shfl_sync: c operand 32 is not (segment mask << 8) | clamp"), Error);
  CHECK_THROWS_WITH_AS(shfl_sync(b, ShflMode::Idx, x, 0, 31, 0),
                       doctest::Contains("shfl_sync: membermask 0 names no lane"), Error);
  CHECK_THROWS_WITH_AS(setmaxnreg(b, true, 100),
                       doctest::Contains("setmaxnreg: 100 registers is not a multiple of 8 in [24, 256]"), Error);
  CHECK_THROWS_WITH_AS(setmaxnreg(b, false, 16),
                       doctest::Contains("setmaxnreg: 16 registers is not a multiple of 8 in [24, 256]"), Error);
  CHECK_THROWS_WITH_AS(setmaxnreg(b, true, 264),
                       doctest::Contains("setmaxnreg: 264 registers is not a multiple of 8 in [24, 256]"), Error);
  // A refused call emits nothing: the kernel still has only its parameter loads.
  Kernel k = b.finish();
  CHECK(legalize(k).size() == 4);
}

// --- mbarrier.hpp -------------------------------------------------------------------------------

TEST_CASE("codegen: mbarrier init, arrive, expect_tx, remote arrive and the parity wait") {
  KernelBuilder b("tessel_test_mbarrier");
  b.kernel().cluster_dims = std::array<int, 3>{2, 1, 1};
  Value bars = b.shared_array("bars", 16, 8);
  Value rank = b.special(Special::ClusterCtaRank);
  mbarrier_init(b, bars, 1);
  Value full = bars + 8;
  mbarrier_init(b, full, 2);
  fence_mbarrier_init(b);
  Value state = mbarrier_arrive(b, bars);
  CHECK(state.type() == Type::B64);
  mbarrier_arrive_expect_tx(b, bars, 1024);
  Value tx = b.constant(512, Type::U32);
  mbarrier_arrive_expect_tx(b, bars, tx);
  mbarrier_wait(b, bars, 0);
  Value phase = rank & 1;
  Value done = mbarrier_try_wait_parity(b, full, phase);
  CHECK(done.type() == Type::Pred);
  mbarrier_wait(b, full, phase);
  mbarrier_arrive_cluster(b, full, 1);
  Value peer = b.binary(codegen::Op::Xor, rank, 1);
  mbarrier_arrive_cluster(b, full, peer);
  Value generic = b.cvt(bars, Type::U64);
  Value remote = mapa(b, generic, 0);
  CHECK(remote.type() == Type::U64);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "8.0", "sm_90");
  check_lines(ptx, {
                       "\tmov.u32 \t%r1, bars;",
                       "\tmov.u32 \t%r2, %cluster_ctarank;",
                       "\tmbarrier.init.shared::cta.b64 \t[%r1], 1;",
                       "\tmbarrier.init.shared::cta.b64 \t[%r3], 2;",
                       "\tfence.mbarrier_init.release.cluster;",
                       "\tmbarrier.arrive.shared::cta.b64 \t%rd1, [%r1];",
                       "\tmbarrier.arrive.expect_tx.shared::cta.b64 \t%rd2, [%r1], 1024;",
                       "\tmbarrier.arrive.expect_tx.shared::cta.b64 \t%rd3, [%r1], %r4;",
                       "\tmbarrier.try_wait.parity.shared::cta.b64 \t%p3, [%r3], %r5;",
                       "\tmapa.shared::cluster.u32 \t%r6, %r3, 1;",
                       "\tmbarrier.arrive.shared::cluster.b64 \t_, [%r6];",
                       "\txor.b32 \t%r7, %r2, 1;",
                       "\tmapa.shared::cluster.u32 \t%r8, %r3, %r7;",
                       "\tmbarrier.arrive.shared::cluster.b64 \t_, [%r8];",
                       "\tmapa.shared::cluster.u64 \t%rd5, %rd4, 0;",
                   });
  // The wait is a loop that retries try_wait until the phase completes.
  check_block(ptx, {
                       "$L_1:",
                       "\tmbarrier.try_wait.parity.shared::cta.b64 \t%p1, [%r1], 0;",
                       "\tnot.pred \t%p2, %p1;",
                       "\t@!%p2 bra \t$L_2;",
                       "\tbra.uni \t$L_1;",
                       "$L_2:",
                   });
  check_block(ptx, {
                       "$L_3:",
                       "\tmbarrier.try_wait.parity.shared::cta.b64 \t%p4, [%r3], %r5;",
                       "\tnot.pred \t%p5, %p4;",
                       "\t@!%p5 bra \t$L_4;",
                       "\tbra.uni \t$L_3;",
                       "$L_4:",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: mbarrier init and arrive on shared::cta alone stay on sm_80") {
  KernelBuilder b("tessel_test_mbarrier_sm80");
  Value bar = b.shared_array("bar80", 8, 8);
  mbarrier_init(b, bar, 32);
  mbarrier_arrive(b, bar);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.8", "sm_80");
  check_lines(ptx, {
                       "\tmbarrier.init.shared::cta.b64 \t[%r1], 32;",
                       "\tmbarrier.arrive.shared::cta.b64 \t%rd1, [%r1];",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: mbarrier errors name the value and the rule") {
  KernelBuilder b("tessel_test_mbarrier_errors");
  Value bar = b.shared_array("bar", 8, 8);
  Value f = b.param("f", Type::F32);
  Value wide = b.param("wide", Type::U64);
  CHECK_THROWS_WITH_AS(mbarrier_init(b, bar, 0),
                       doctest::Contains("mbarrier_init: arrival count 0 is not in [1, 2^20 - 1]"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_init(b, bar, 1 << 20),
                       doctest::Contains("mbarrier_init: arrival count 1048576 is not in [1, 2^20 - 1]"), Error);
  CHECK_THROWS_WITH_AS(
      mbarrier_init(b, f, 1),
      doctest::Contains("mbarrier_init: the mbarrier address is a f32 value (a shared address is u32 or u64)"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_arrive(b, f), doctest::Contains("mbarrier_arrive: the mbarrier address is a f32 value"),
                       Error);
  CHECK_THROWS_WITH_AS(
      mbarrier_arrive_expect_tx(b, bar, 1 << 20),
      doctest::Contains("mbarrier_arrive_expect_tx: transaction count 1048576 bytes is not in [0, 2^20 - 1]"), Error);
  CHECK_THROWS_WITH_AS(
      mbarrier_arrive_expect_tx(b, bar, -16),
      doctest::Contains("mbarrier_arrive_expect_tx: transaction count -16 bytes is not in [0, 2^20 - 1]"), Error);
  CHECK_THROWS_WITH_AS(
      mbarrier_arrive_expect_tx(b, bar, wide),
      doctest::Contains("mbarrier_arrive_expect_tx: the transaction count is a u64 value (a 32-bit integer)"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_try_wait_parity(b, bar, 2),
                       doctest::Contains("mbarrier_try_wait_parity: parity 2 is not 0 or 1"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_try_wait_parity(b, bar, wide),
                       doctest::Contains("mbarrier_try_wait_parity: the parity is a u64 value (a 32-bit integer)"),
                       Error);
  CHECK_THROWS_WITH_AS(mbarrier_wait(b, bar, -1), doctest::Contains("mbarrier_wait: parity -1 is not 0 or 1"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_wait(b, bar, f),
                       doctest::Contains("mbarrier_wait: the parity is a f32 value (a 32-bit integer)"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_arrive_cluster(b, bar, 16),
                       doctest::Contains("mbarrier_arrive_cluster: CTA rank 16 is not in [0, 15]"), Error);
  CHECK_THROWS_WITH_AS(mbarrier_arrive_cluster(b, bar, wide),
                       doctest::Contains("mbarrier_arrive_cluster: the CTA rank is a u64 value (a 32-bit integer)"),
                       Error);
  CHECK_THROWS_WITH_AS(mapa(b, bar, -1), doctest::Contains("mapa: CTA rank -1 is not in [0, 15]"), Error);
  CHECK_THROWS_WITH_AS(mapa(b, f, 0), doctest::Contains("mapa: the mbarrier address is a f32 value"), Error);
}

// --- async_copy.hpp -----------------------------------------------------------------------------

TEST_CASE("codegen: cp.async with its sizes, zero fill, commit and wait on sm_80") {
  KernelBuilder b("tessel_test_cp_async");
  Value in = b.global_pointer_param("in");
  Value n = b.param("n", Type::U32);
  Value tile = b.shared_array("tile", 256, 16);
  cp_async(b, tile, in, 4);
  Value s1 = tile + 16;
  Value g1 = in + 16;
  cp_async(b, s1, g1, 8, Cache::Ca);
  Value s2 = tile + 32;
  Value g2 = in + 32;
  cp_async(b, s2, g2, 16, Cache::Ca);
  Value s3 = tile + 48;
  Value g3 = in + 48;
  cp_async(b, s3, g3, 16, Cache::Cg);
  cp_async(b, s3, g3, 16, Cache::Cg, n);
  cp_async_commit_group(b);
  cp_async_wait_group(b, 1);
  cp_async_wait_group(b, 0);
  cp_async_wait_all(b);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.0", "sm_80");
  check_lines(ptx, {
                       "\tld.param.u32 \t%r1, [n];",
                       "\tmov.u32 \t%r2, tile;",
                       "\tcp.async.ca.shared.global \t[%r2], [%rd2], 4;",
                       "\tcp.async.ca.shared.global \t[%r3], [%rd3], 8;",
                       "\tcp.async.ca.shared.global \t[%r4], [%rd4], 16;",
                       "\tcp.async.cg.shared.global \t[%r5], [%rd5], 16;",
                   });
  check_block(ptx, {
                       "\tcp.async.cg.shared.global \t[%r5], [%rd5], 16, %r1;",
                       "\tcp.async.commit_group;",
                       "\tcp.async.wait_group \t1;",
                       "\tcp.async.wait_group \t0;",
                       "\tcp.async.wait_all;",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: cp.async.mbarrier.arrive with and without .noinc") {
  KernelBuilder b("tessel_test_cp_async_mbarrier");
  Value in = b.global_pointer_param("in");
  Value tile = b.shared_array("tile", 256, 16);
  Value bar = b.shared_array("bar", 8, 8);
  mbarrier_init(b, bar, 1);
  cp_async(b, tile, in, 16);
  cp_async_mbarrier_arrive(b, bar);
  cp_async_mbarrier_arrive(b, bar, false);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.8", "sm_80");  // .shared::cta
  check_block(ptx, {
                       "	cp.async.mbarrier.arrive.noinc.shared::cta.b64 \t[%r2];",
                       "	cp.async.mbarrier.arrive.shared::cta.b64 \t[%r2];",
                   });
  test::check_assembles(m);
  KernelBuilder e("tessel_test_cp_async_mbarrier_errors");
  Value n = e.param("n", Type::S32);
  CHECK_THROWS_WITH_AS(cp_async_mbarrier_arrive(e, n),
                       doctest::Contains("cp_async_mbarrier_arrive: the mbarrier address is a s32 value"), Error);
}

TEST_CASE("codegen: TMA loads of rank 1 to 5, multicast, the tensor store and bulk groups") {
  KernelBuilder b("tessel_test_tma");
  b.kernel().cluster_dims = std::array<int, 3>{2, 1, 1};
  Value tmap = b.tensor_map_param("tmap");
  Value x = b.param("x", Type::S32);
  Value y = b.param("y", Type::S32);
  Value mask = b.param("mask", Type::U16);
  Value tile = b.shared_array("tile", 8192, 1024);
  Value bar = b.shared_array("bar", 8, 8);
  mbarrier_init(b, bar, 1);
  fence_mbarrier_init(b);
  mbarrier_arrive_expect_tx(b, bar, 5 * 8192);
  const std::vector<Value> xyxyx = {x, y, x, y, x};
  for (size_t rank = 1; rank <= 5; ++rank) {
    tma_load(b, tile, tmap, std::vector<Value>(xyxyx.begin(), xyxyx.begin() + static_cast<ptrdiff_t>(rank)), bar);
  }
  tma_load(b, tile, tmap, {x, y}, bar, mask);
  mbarrier_wait(b, bar, 0);
  fence_proxy_async(b, Space::Shared);
  tma_store(b, tmap, {x, y, x}, tile);
  cp_async_bulk_commit_group(b);
  cp_async_bulk_wait_group(b, 1);
  cp_async_bulk_wait_group(b, 0, true);
  tma_prefetch(b, tmap, {x, y, x});
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  // A kernel with a tensor-map parameter targets sm_90 (PTX ISA 8.0); multicast asks for sm_90a.
  check_target(ptx, "8.0", "sm_90a");
  const std::string load = "\tcp.async.bulk.tensor.";
  const std::string to_cluster = ".shared::cluster.global.mbarrier::complete_tx::bytes \t[%r3], ";
  check_lines(ptx, {
                       "\tmov.u64 \t%rd1, tmap;",
                       "\tcvta.param.u64 \t%rd2, %rd1;",
                       "\tld.param.s32 \t%r1, [x];",
                       "\tld.param.s32 \t%r2, [y];",
                       "\tld.param.u16 \t%rs1, [mask];",
                       "\tmov.u32 \t%r3, tile;",
                       "\tmov.u32 \t%r4, bar;",
                       "\tmbarrier.arrive.expect_tx.shared::cta.b64 \t%rd3, [%r4], 40960;",
                   });
  check_block(ptx,
              {
                  load + "1d" + to_cluster + "[%rd2, {%r1}], [%r4];",
                  load + "2d" + to_cluster + "[%rd2, {%r1, %r2}], [%r4];",
                  load + "3d" + to_cluster + "[%rd2, {%r1, %r2, %r1}], [%r4];",
                  load + "4d" + to_cluster + "[%rd2, {%r1, %r2, %r1, %r2}], [%r4];",
                  load + "5d" + to_cluster + "[%rd2, {%r1, %r2, %r1, %r2, %r1}], [%r4];",
                  "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                  "\t[%r3], [%rd2, {%r1, %r2}], [%r4], %rs1;",
              });
  check_block(ptx, {
                       "\tfence.proxy.async.shared::cta;",
                       "\tcp.async.bulk.tensor.3d.global.shared::cta.bulk_group \t[%rd2, {%r1, %r2, %r1}], [%r3];",
                       "\tcp.async.bulk.commit_group;",
                       "\tcp.async.bulk.wait_group \t1;",
                       "\tcp.async.bulk.wait_group.read \t0;",
                       "\tcp.async.bulk.prefetch.tensor.3d.L2.global.tile \t[%rd2, {%r1, %r2, %r1}];",
                   });
  test::check_assembles(m);
}

// selp has no .pred form (PTX ISA, selp: .b16 to .f64): a select between predicates is and/or.
TEST_CASE("codegen: a select between predicates assembles") {
  KernelBuilder b("tessel_test_select_pred");
  Value out = b.global_pointer_param("out");
  Value size = b.param("size", Type::U32);
  const Value pick = b.select(size < 64u, size > 16u, size == 144u);
  b.if_(pick, [&] { b.store(Space::Global, Type::U32, out, {size}); });
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  CHECK(ptx.find("selp.pred") == std::string::npos);
  CHECK(ptx.find("and.pred") != std::string::npos);
  CHECK(ptx.find("or.pred") != std::string::npos);
  test::check_assembles(m);
}

TEST_CASE("codegen: async copy errors name the value and the rule") {
  KernelBuilder b("tessel_test_async_copy_errors");
  Value tmap = b.tensor_map_param("tmap");
  Value in = b.global_pointer_param("in");
  Value x = b.param("x", Type::S32);
  Value wide = b.param("wide", Type::S64);
  Value n32 = b.param("n32", Type::U32);
  Value tile = b.shared_array("tile", 256, 16);
  CHECK_THROWS_WITH_AS(cp_async(b, tile, in, 2), doctest::Contains("cp_async: .ca copies 4, 8 or 16 bytes, not 2"),
                       Error);
  CHECK_THROWS_WITH_AS(cp_async(b, tile, in, 8, Cache::Cg), doctest::Contains("cp_async: .cg copies 16 bytes, not 8"),
                       Error);
  CHECK_THROWS_WITH_AS(cp_async(b, tile, in, 16, Cache::Cs),
                       doctest::Contains("cp_async: cache operator .cs is not .ca or .cg"), Error);
  CHECK_THROWS_WITH_AS(cp_async(b, tile, n32, 16),
                       doctest::Contains("cp_async: the source is a u32 value (a 64-bit address)"), Error);
  CHECK_THROWS_WITH_AS(cp_async(b, x, in, 16),
                       doctest::Contains("cp_async: the destination is a s32 value (a shared address is u32 or u64)"),
                       Error);
  CHECK_THROWS_WITH_AS(cp_async(b, tile, in, 16, Cache::Cg, wide),
                       doctest::Contains("cp_async: the source size is a s64 value (a 32-bit integer)"), Error);
  CHECK_THROWS_WITH_AS(cp_async_wait_group(b, -1), doctest::Contains("cp_async_wait_group: group count -1 is negative"),
                       Error);
  CHECK_THROWS_WITH_AS(tma_load(b, tile, tmap, {}, tile),
                       doctest::Contains("tma_load: 0 coordinates is not a tensor rank in [1, 5]"), Error);
  CHECK_THROWS_WITH_AS(tma_store(b, tmap, {x, x, x, x, x, x}, tile),
                       doctest::Contains("tma_store: 6 coordinates is not a tensor rank in [1, 5]"), Error);
  CHECK_THROWS_WITH_AS(
      tma_load(b, tile, tmap, {x, wide}, tile),
      doctest::Contains("tma_load: coordinate 1 is a s64 value (coordinates are 32-bit integers, .s32)"), Error);
  CHECK_THROWS_WITH_AS(tma_load(b, tile, n32, {x}, tile),
                       doctest::Contains("tma_load: the tensor map is a u32 value (a 64-bit address)"), Error);
  CHECK_THROWS_WITH_AS(tma_load(b, tile, tmap, {x}, tile, n32),
                       doctest::Contains("tma_load: the CTA mask is a u32 value (it is 16 bits: u16 or b16)"), Error);
  CHECK_THROWS_WITH_AS(
      tma_load(b, tile, tmap, {x}, wide),
      doctest::Contains("tma_load: the mbarrier address is a s64 value (a shared address is u32 or u64)"), Error);
  CHECK_THROWS_WITH_AS(tma_prefetch(b, tmap, {}),
                       doctest::Contains("tma_prefetch: 0 coordinates is not a tensor rank in [1, 5]"), Error);
  CHECK_THROWS_WITH_AS(
      tma_prefetch(b, tmap, {wide}),
      doctest::Contains("tma_prefetch: coordinate 0 is a s64 value (coordinates are 32-bit integers, .s32)"), Error);
  CHECK_THROWS_WITH_AS(cp_async_bulk_wait_group(b, -2, true),
                       doctest::Contains("cp_async_bulk_wait_group: group count -2 is negative"), Error);
}

// --- warp.hpp -----------------------------------------------------------------------------------

TEST_CASE("codegen: ldmatrix and mma.sync m16n8k16 f16 and bf16, m16n8k8 tf32 on sm_80") {
  KernelBuilder b("tessel_test_mma");
  Value out = b.global_pointer_param("out");
  Value tile = b.shared_array("tile", 2048, 16);
  std::vector<Value> a = ldmatrix(b, tile, 4);
  Value at_b = tile + 512;
  std::vector<Value> bf = ldmatrix(b, at_b, 2, true);
  Value at_one = tile + 1024;
  std::vector<Value> single = ldmatrix(b, at_one, 1);
  REQUIRE(a.size() == 4);
  REQUIRE(bf.size() == 2);
  REQUIRE(single.size() == 1);
  std::vector<Value> c;
  for (int k = 0; k < 4; ++k) c.push_back(b.constant_f32(0.0f));
  std::vector<Value> d = mma_sync(b, Type::F16, a, bf, c);
  mma_sync(b, Type::BF16, d, a, bf, d);  // accumulate in place
  std::vector<Value> e = mma_sync(b, Type::TF32, a, {bf[0], single[0]}, d);
  b.store(Space::Global, Type::F32, out, e);
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.0", "sm_80");
  check_lines(ptx, {
                       "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 \t{%r2, %r3, %r4, %r5}, [%r1];",
                       "\tldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 \t{%r7, %r8}, [%r6];",
                       "\tldmatrix.sync.aligned.m8n8.x1.shared.b16 \t{%r10}, [%r9];",
                   });
  check_block(ptx,
              {
                  "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \t{%f5, %f6, %f7, %f8}, {%r2, %r3, %r4, "
                  "%r5}, {%r7, %r8}, {%f1, %f2, %f3, %f4};",
                  "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \t{%f5, %f6, %f7, %f8}, {%r2, %r3, %r4, "
                  "%r5}, {%r7, %r8}, {%f5, %f6, %f7, %f8};",
                  "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \t{%f9, %f10, %f11, %f12}, {%r2, %r3, %r4, "
                  "%r5}, {%r7, %r10}, {%f5, %f6, %f7, %f8};",
                  "\tst.global.v4.f32 \t[%rd2], {%f9, %f10, %f11, %f12};",
              });
  test::check_assembles(m);
}

TEST_CASE("codegen: stmatrix x1, x2 and x4 on sm_90") {
  KernelBuilder b("tessel_test_stmatrix");
  Value tile = b.shared_array("tile", 2048, 16);
  std::vector<Value> frags = ldmatrix(b, tile, 4);
  Value at4 = tile + 512;
  stmatrix(b, at4, frags);
  Value at2 = tile + 1024;
  stmatrix(b, at2, {frags[0], frags[1]}, true);
  Value at1 = tile + 1536;
  stmatrix(b, at1, {frags[2]});
  Module m = one(b.finish());
  const std::string ptx = print_ptx(m);
  check_target(ptx, "7.8", "sm_90");
  check_lines(ptx, {
                       "\tstmatrix.sync.aligned.m8n8.x4.shared.b16 \t[%r6], {%r2, %r3, %r4, %r5};",
                       "\tstmatrix.sync.aligned.m8n8.x2.trans.shared.b16 \t[%r7], {%r2, %r3};",
                       "\tstmatrix.sync.aligned.m8n8.x1.shared.b16 \t[%r8], {%r4};",
                   });
  test::check_assembles(m);
}

TEST_CASE("codegen: warp matrix errors name the value and the rule") {
  KernelBuilder b("tessel_test_warp_errors");
  Value tile = b.shared_array("tile", 2048, 16);
  Value f = b.param("f", Type::F32);
  Value h = b.param("h", Type::F16x2);
  Value u = b.param("u", Type::U32);
  const std::vector<Value> a = {h, h, h, h}, bm = {h, h}, c = {f, f, f, f};
  CHECK_THROWS_WITH_AS(ldmatrix(b, tile, 3), doctest::Contains("ldmatrix: 3 matrices is not 1, 2 or 4"), Error);
  CHECK_THROWS_WITH_AS(ldmatrix(b, f, 1),
                       doctest::Contains("ldmatrix: the address is a f32 value (a shared address is u32 or u64)"),
                       Error);
  CHECK_THROWS_WITH_AS(stmatrix(b, tile, {h, h, h}), doctest::Contains("stmatrix: 3 matrices is not 1, 2 or 4"), Error);
  CHECK_THROWS_WITH_AS(stmatrix(b, tile, {}), doctest::Contains("stmatrix: 0 matrices is not 1, 2 or 4"), Error);
  CHECK_THROWS_WITH_AS(
      stmatrix(b, tile, {h, f}),
      doctest::Contains(
          "stmatrix: fragment register 1 is a f32 value (a 32-bit register: b32, u32, s32, f16x2 or bf16x2)"),
      Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F32, a, bm, c),
                       doctest::Contains("mma_sync: A/B type f32 is not f16, bf16 or tf32"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, {h, h, h}, bm, c),
                       doctest::Contains("mma_sync: A has 3 registers, not 4"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, a, {h}, c), doctest::Contains("mma_sync: B has 1 registers, not 2"),
                       Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, a, bm, {f, f}), doctest::Contains("mma_sync: C has 2 registers, not 4"),
                       Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::BF16, {h, f, h, h}, bm, c),
                       doctest::Contains("mma_sync: A register 1 is a f32 value (a 32-bit register"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::TF32, a, {u, f}, c),
                       doctest::Contains("mma_sync: B register 1 is a f32 value (a 32-bit register"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, a, bm, {f, f, u, f}),
                       doctest::Contains("mma_sync: C register 2 is a u32 value (f32)"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, {f, f, f}, a, bm, c),
                       doctest::Contains("mma_sync: D has 3 registers, not 4"), Error);
  CHECK_THROWS_WITH_AS(mma_sync(b, Type::F16, {f, f, f, u}, a, bm, c),
                       doctest::Contains("mma_sync: D register 3 is a u32 value (f32)"), Error);
}
