// hopper_gemm.cpp: the generator of the Hopper GEMM (see hopper_gemm.hpp for the design).
//
// Shared memory: HopperGemmSharedStorage names its regions and derives their offsets.
// Each operand stage is laid out by the algebra as the TMA box writes it with the 128-byte
// swizzle; slicing that layout by one wgmma's (MN, K) block gives the matrix descriptor (checked
// against the PTX ISA's canonical layouts by make_matrix_descriptor) and its start offset.
#include "tessel/kernels/hopper_gemm.hpp"

#include <optional>
#include <string>
#include <vector>

#include "hopper_gemm_shared_storage.hpp"
#include "sm90_epilogue.hpp"
#include "sm90_pipeline.hpp"
#include "sm90_shared_storage.hpp"
#include "sm90_stage_layout.hpp"
#include "sm90_tile_scheduler.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen/wgmma.hpp"

namespace tessel::kernels {

using namespace codegen;
using sm90::kSwizzleRow;
using sm90::stage_descriptors;
using sm90::stage_layout;
using sm90::StageDescriptors;

namespace {

constexpr int kGroupRows = 8;     // tile-rows per rasterization group (L2 reuse)

}  // namespace


Module hopper_gemm(const HopperGemmConfig& config) {
  config.check();
  const HopperGemmConfig c = row_major_equivalent(config);
  const Type mma = c.mma_type();
  const WgmmaAtom atom{c.tile_n, Type::F32, mma, mma};
  atom.check();
  const int BM = c.tile_m, BN = c.tile_n, BK = c.tile_k();
  const int k_inst = atom.k(), kblocks = BK / k_inst, eb = bytes(c.ab);
  const int a_bytes = c.a_stage_bytes(), b_bytes = c.b_stage_bytes();  // the stage's transaction bytes

  KernelBuilder b(config.name());
  b.kernel().maxntid = std::array<int, 3>{c.threads(), 1, 1};
  b.kernel().minnctapersm = 1;  // a register count at entry, so that setmaxnreg takes effect
  // A cluster of CS = CM x CN CTAs (CS <= 2), ranked along M first: the CTAs of a cluster column
  // (same n0) share B, those of a cluster row (same m0) share A; each loads its share and multicasts it.
  const int CM = c.cluster_m, CN = c.cluster_n, CS = CM * CN;
  if (CS > 1) b.kernel().cluster_dims = std::array<int, 3>{CS, 1, 1};

  b.note("parameters: the TMA descriptors of A, B and out, out, the sizes, out's strides, alpha and beta");
  Value tmap_a = b.tensor_map_param("tmap_a"), tmap_b = b.tensor_map_param("tmap_b"),
        tmap_out = b.tensor_map_param("tmap_out");
  Value pout = b.global_pointer_param("out");
  Value M = b.param("M", Type::S32), N = b.param("N", Type::S32), K = b.param("K", Type::S32),
        L = b.param("L", Type::S32);
  Value ld_out = b.param("ld_out", Type::S64), bs_out = b.param("batch_stride_out", Type::S64);
  Value alpha = b.param("alpha", Type::F32), beta = b.param("beta", Type::F32);

  const HopperGemmSharedStorage regions(c);
  b.note("shared memory: the base rounded up to the 1024-byte period of the 128-byte swizzle");
  const sm90::SharedStorage smem(b, regions.align);
  auto a_stage = [&](Value s) { return smem.element(regions.a, s); };
  auto b_stage = [&](Value s) { return smem.element(regions.b, s); };
  sm90::PipelineTmaAsync::Params pp;
  pp.full = regions.full;
  pp.empty = regions.empty;
  pp.tx_bytes = int64_t{a_bytes} + b_bytes;
  pp.consumer_arrivals = 4 * c.tile_consumers() * CS;  // a warp's lane 0 each
  pp.cluster_size = CS;
  const sm90::PipelineTmaAsync pipeline(smem, pp);
  // Ping-pong: the mainloops' turns (an arrival per warp of the warpgroup that passes the turn).
  std::optional<sm90::OrderedSequenceBarrier> turns;
  if (c.pingpong) turns.emplace(smem, regions.turns, 4);

  Value tid = b.special(Special::TidX);
  Value wg = tid >> 7;
  b.note(
      "thread 0 initializes the barriers: full (1 arrival + transaction bytes), empty (one per consumer warp of the "
      "cluster)");
  b.if_(tid == 0, [&] {
    pipeline.init();
    if (turns) turns->init();
    fence_mbarrier_init(b);
  });
  // In a cluster the peer's barriers must be initialized before anything multicasts or arrives on them.
  if (CS > 1)
    cluster_sync(b);
  else
    bar_sync(b);
  const sm90::ClusterRank rank = sm90::cluster_rank(b, CM, CN);
  const sm90::PersistentTileScheduler scheduler(
      b, sm90::PersistentTileScheduler::Params{BM, BN, BK, CM, CN, kGroupRows}, rank, M, N, K, L);
  const Value k_tiles = scheduler.k_tiles();

  b.if_(
      wg == 0,
      [&] {
        b.note("producer warpgroup: gives registers away; thread 0 issues every TMA load");
        setmaxnreg(b, false, 40);
        b.if_(tid == 0, [&] {
          sm90::PipelineState state = pipeline.make_state();
          scheduler.for_each_tile([&](const sm90::WorkTile& at) {
            b.for_range(b.constant(0, Type::S32), k_tiles, 1, [&](Value kt) {
              b.note("wait until the consumers have released the stage, then load A and B into it");
              Value full = pipeline.producer_acquire(state);
              Value k0 = kt * BK;
              // Rows [share * rows / parts, ...) of an operand's tile (M of A, N of B), into the same place of
              // the stage; multicast to every CTA of the cluster when parts > 1 (CS <= 2: parts = CS).
              auto load = [&](Value tmap, Value stage_base, codegen::Major major, Value mn0, int rows, int parts,
                              Value share) {
                const int my_rows = rows / parts;
                std::optional<Value> mask;
                Value row0 = mn0;
                if (parts > 1) {
                  mask = b.constant((1 << CS) - 1, Type::U16);
                  Value first_row = share * my_rows;
                  row0 = mn0 + first_row;
                  const int64_t row_bytes = major == codegen::Major::K ? kSwizzleRow : int64_t{BK} * eb;
                  stage_base = stage_base + b.cvt(first_row, Type::U32) * row_bytes;
                }
                if (major == codegen::Major::K) {
                  tma_load(b, stage_base, tmap, {k0, row0, at.l}, full, mask);
                  return;
                }
                const int chunk = kSwizzleRow / eb;  // MN elements per 128-byte box row
                for (int j = 0; j < my_rows / chunk; ++j)
                  tma_load(b, stage_base + int64_t{j} * chunk * BK * eb, tmap, {row0 + j * chunk, k0, at.l}, full,
                           mask);
              };
              load(tmap_a, a_stage(state.index), c.a_major, at.m0, BM, CN, rank.n);
              load(tmap_b, b_stage(state.index), c.b_major, at.n0, BN, CM, rank.m);
              pipeline.producer_commit(state);
              state.advance();
            });
          });
          pipeline.producer_tail(state);
        });
      },
      [&] {
        b.note(c.pingpong ? "consumer warpgroups: wgmma on alternate tiles (ping-pong)"
                          : "consumer warpgroups: wgmma on 64-row slabs of the tile");
        setmaxnreg(b, true, c.consumers() == 2 ? 232 : 240);
        Value w = wg - 1;
        Value lane0 = (tid & 31) == 0;
        Value t128 = tid & 127;
        const StageDescriptors da =
            stage_descriptors(stage_layout(mma, c.a_major, BM, BK), mma, c.a_major, 64, c.slabs(), k_inst, kblocks);
        const StageDescriptors db =
            stage_descriptors(stage_layout(mma, c.b_major, BN, BK), mma, c.b_major, BN, 1, k_inst, kblocks);
        sm90::PipelineState state = pipeline.make_state();
        Value prev = b.constant(0, Type::U32);  // the stage of the k-tile before, released once its MMAs finish
        // A warpgroup's slabs of a tile: 1 (cooperative: slab w), or all of them (ping-pong).
        const int my_slabs = c.pingpong ? c.slabs() : 1;
        std::vector<std::vector<Value>> accs;
        for (int j = 0; j < my_slabs; ++j) accs.push_back(wgmma_accumulators(b, atom));
        Value zero = b.constant_f32(0.0f);
        Value on = b.constant(1, Type::U32) == 1;
        // The slab's descriptors start at stage 0; warpgroup w's A block is w (a runtime offset).
        // (One slab, or ping-pong: no offset; da.starts then may hold one slab's blocks only.)
        const bool slab_offset = c.slabs() > 1 && !c.pingpong;
        Value a_slab = slab_offset ? b.cvt(w * static_cast<int64_t>(da.starts[static_cast<size_t>(kblocks)] >> 4), Type::U64)
                                   : b.cvt(b.constant(0, Type::U32), Type::U64);
        // Ping-pong: warpgroup w takes the CTA's tiles w, w + 2, ... of the producer's sequence and
        // skips, in the stage ring, the k-tiles of the other's tiles; the other's mainloop then runs
        // while this one's epilogue does.
        auto skip_k_tiles = [&] { state.advance(k_tiles); };
        if (c.pingpong) b.if_(w == 1, [&] { skip_k_tiles(); });
        // The mainloops take turns, each starting once the other's has waited on all its stages: a
        // consumer then never waits on a stage more than one phase ahead of its barrier (a parity
        // wait cannot tell phase p from p + 2). Warpgroup 0 goes first.
        std::optional<sm90::OrderedSequenceBarrier::State> turn;
        if (c.pingpong) turn = turns->make_state(w);
        const sm90::TmaStoreEpilogue epilogue(
            b, sm90::TmaStoreEpilogue::Params{c.out, BN, c.pingpong, c.consumers()},
            sm90::TmaStoreEpilogue::Tensors{tmap_out, pout, M, N, ld_out, bs_out, alpha, beta}, smem, regions.epilogue, w,
            t128);
        scheduler.for_each_tile([&](const sm90::WorkTile& at) {
          if (c.pingpong) turns->wait(*turn);
          for (std::vector<Value>& acc : accs)
            for (Value& r : acc) b.assign(r, zero);
          b.for_range(b.constant(0, Type::S32), k_tiles, 1, [&](Value kt) {
            pipeline.consumer_wait(state);
            Value desc_a = matrix_descriptor(b, a_stage(state.index), da.base) + a_slab;
            Value desc_b = matrix_descriptor(b, b_stage(state.index), db.base);
            wgmma_fence(b);
            for (int kb = 0; kb < kblocks; ++kb) {
              for (int j = 0; j < my_slabs; ++j) {
                wgmma(b, atom, accs[static_cast<size_t>(j)],
                      desc_a + (da.starts[static_cast<size_t>(j * kblocks + kb)] >> 4),
                      desc_b + (db.starts[static_cast<size_t>(kb)] >> 4), on, c.a_major, c.b_major);
              }
            }
            wgmma_commit_group(b);
            b.note("one k-tile of MMAs stays in flight; the one before has finished: release its stage");
            wgmma_wait_group(b, 1);
            b.if_(kt > 0, [&] { b.if_(lane0, [&] { pipeline.consumer_release(prev); }); });
            b.assign(prev, state.index);
            state.advance();
          });
          if (c.pingpong) turns->arrive(*turn, lane0);
          wgmma_wait_group(b, 0);
          b.if_(k_tiles > 0, [&] { b.if_(lane0, [&] { pipeline.consumer_release(prev); }); });

          epilogue.store(at, accs);
          if (c.pingpong) skip_k_tiles();  // the other warpgroup's next tile
        }, c.pingpong ? std::optional<Value>(b.cvt(w, Type::S32)) : std::nullopt);
        epilogue.finish();
      });
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace tessel::kernels
