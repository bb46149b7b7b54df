// hopper_gemm/kernel.cpp: the Hopper GEMM kernel (see hopper_gemm.hpp and docs/hopper_gemm.md), composed
// from the sm90 blocks the way the CuTe DSL's hopper/dense_gemm.py composes its kernel:
//   shared storage (hopper_gemm_shared_storage) -> the TMA pipeline and the ping-pong turns
//   (sm90_pipeline) -> the persistent tile scheduler (sm90_tile_scheduler) -> warpgroup 0 the
//   producer (TMA loads), warpgroups 1.. the consumers (the wgmma mainloop on the stages laid out by
//   sm90_stage_layout, A's fragments through registers for tf32 with an M-major A, then the
//   epilogue of sm90_epilogue). Split-K (config.split_k): the
//   scheduler's units are (tile, split) with a share of the k-tiles, and sm90_split_k's fix-up runs
//   between the mainloop and the epilogue, which only the tile's last unit reaches. Stream-K
//   (config.stream_k): the same fix-up on the scheduler's stream-K units.
//
// The PTX is byte-identical to the one-function kernel these blocks came from: each block emits
// its instructions in the order the kernel did, which is why some are split where they are (the
// cluster rank is computed before the scheduler, the epilogue's barrier after the ping-pong turn).
#include "tessel/kernels/hopper_gemm.hpp"

#include <array>
#include <optional>
#include <vector>

#include "hopper_gemm/shared_storage.hpp"
#include "sm90/epilogue.hpp"
#include "sm90/pipeline.hpp"
#include "sm90/shared_storage.hpp"
#include "sm90/split_k.hpp"
#include "sm90/stage_layout.hpp"
#include "sm90/tile_scheduler.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/wgmma.hpp"

namespace tessel::kernels {

using namespace codegen;
using namespace sm90;

namespace {

constexpr int kGroupRows = 8;  // tile-rows per rasterization group (L2 reuse)
// The named barriers of the consumer warpgroups that read A through registers: 3 + w (after
// TmaStoreEpilogue's 1 and 2, before SplitKFixup's 5).
constexpr int kRegABarrier = 3;

// The kernel's parameters, in the order of hopper_gemm.hpp.
struct GemmParams {
  Value tmap_a, tmap_b, tmap_out, tmap_c, out, M, N, K, L, ld_out, batch_stride_out, alpha, beta, flags;
  std::vector<Value> tmap_c_views;  // C in lines: views 1 and up (kHopperGemmLinesC)
  Value c_offsets;                  // C in lines: the offsets of lines 0 .. G - 1 in their granules
  Value splits, workspace, launch;  // split-K only (workspace and launch: stream-K too)
  Value dp_tiles, slots;            // stream-K only
};

// `c_views`: the views of C in lines beyond tmap_c (0: the kernel reads C through the TMA only).
GemmParams declare_params(KernelBuilder& b, bool split_k, bool stream_k, int c_views) {
  b.note("parameters: the TMA descriptors of A, B, out and C, out, the sizes, out's strides, alpha, beta, flags");
  GemmParams p;
  p.tmap_a = b.tensor_map_param("tmap_a");
  p.tmap_b = b.tensor_map_param("tmap_b");
  p.tmap_out = b.tensor_map_param("tmap_out");
  p.tmap_c = b.tensor_map_param("tmap_c");
  for (int j = 1; j <= c_views; ++j) p.tmap_c_views.push_back(b.tensor_map_param("tmap_c" + std::to_string(j)));
  p.out = b.global_pointer_param("out");
  p.M = b.param("M", Type::S32);
  p.N = b.param("N", Type::S32);
  p.K = b.param("K", Type::S32);
  p.L = b.param("L", Type::S32);
  p.ld_out = b.param("ld_out", Type::S64);
  p.batch_stride_out = b.param("batch_stride_out", Type::S64);
  p.alpha = b.param("alpha", Type::F32);
  p.beta = b.param("beta", Type::F32);
  p.flags = b.param("flags", Type::U32);
  if (c_views > 0) p.c_offsets = b.param("c_offsets", Type::U32);
  if (split_k) {
    b.note("split-K: the split count, the workspace (counters, then partial tiles) and the launch's id");
    p.splits = b.param("splits", Type::S32);
    p.workspace = b.global_pointer_param("workspace");
    p.launch = b.param("launch", Type::U64);
  }
  if (stream_k) {
    b.note("stream-K: the data-parallel tiles, the partial tiles per region tile, the workspace, the launch's id");
    p.dp_tiles = b.param("dp_tiles", Type::S32);
    p.slots = b.param("slots", Type::S32);
    p.workspace = b.global_pointer_param("workspace");
    p.launch = b.param("launch", Type::U64);
  }
  return p;
}

// What the producer and the consumers share, built by hopper_gemm() in the order of the PTX.
struct GemmKernel {
  KernelBuilder& b;
  const HopperGemmConfig& c;  // the configuration that runs (kernel_config: never swap_ab)
  const WgmmaAtom& atom;
  const GemmParams& p;
  const HopperGemmSharedStorage& regions;
  const SharedStorage& smem;
  const PipelineTmaAsync& pipeline;
  const OrderedSequenceBarrier* turns;  // ping-pong only
  const PersistentTileScheduler& scheduler;
  ClusterRank rank;
  Value tid;
};

// ---- The producer -------------------------------------------------------------------------------

// One operand's TMA loads into a stage. Its tile has `rows` rows (M of A, N of B); in a cluster,
// the `parts` CTAs that share it each load rows [share * rows / parts, ...) into the same place of
// the stage and multicast them to every CTA of the cluster (clusters of 2: parts is the cluster's size).
struct OperandLoad {
  Value tmap;
  codegen::Major major;
  int rows, parts;
  Value share;
};

void load_operand(const GemmKernel& k, const OperandLoad& op, Value stage_base, Value mn0, Value k0, Value l,
                  Value full) {
  KernelBuilder& b = k.b;
  const int BK = k.c.tile_k(), eb = bytes(k.c.ab), CS = k.c.cluster_size();
  const int my_rows = op.rows / op.parts;
  std::optional<Value> mask;
  Value row0 = mn0;
  if (op.parts > 1) {
    mask = b.constant((1 << CS) - 1, Type::U16);
    Value first_row = op.share * my_rows;
    row0 = mn0 + first_row;
    const int64_t row_bytes = op.major == codegen::Major::K ? kSwizzleRow : int64_t{BK} * eb;
    stage_base = stage_base + b.cvt(first_row, Type::U32) * row_bytes;
  }
  if (op.major == codegen::Major::K) {
    tma_load(b, stage_base, op.tmap, {k0, row0, l}, full, mask);
    return;
  }
  const int chunk = kSwizzleRow / eb;  // MN elements per 128-byte box row
  for (int j = 0; j < my_rows / chunk; ++j)
    tma_load(b, stage_base + int64_t{j} * chunk * BK * eb, op.tmap, {row0 + j * chunk, k0, l}, full, mask);
}

// The batch coordinate of an operand: 0 for one that broadcasts one batch to all (its tensor map
// has a single batch), the tile's batch otherwise.
Value operand_batch(const GemmKernel& k, uint32_t broadcast_flag, Value l) {
  KernelBuilder& b = k.b;
  return b.select((k.p.flags & broadcast_flag) != 0, b.constant(0, Type::S32), l);
}

// k-tile kt of the tile: the next stage, once free, gets A's and B's tiles.
void load_k_tile(const GemmKernel& k, PipelineState& state, const WorkTile& at, Value kt) {
  k.b.note("wait until the consumers have released the stage, then load A and B into it");
  Value full = k.pipeline.producer_acquire(state);
  Value k0 = kt * k.c.tile_k();
  const OperandLoad a{k.p.tmap_a, k.c.a_major, k.c.tile_m, k.c.cluster_n, k.rank.n};
  const OperandLoad b{k.p.tmap_b, k.c.b_major, k.c.tile_n, k.c.cluster_m, k.rank.m};
  load_operand(k, a, k.smem.element(k.regions.a, state.index), at.m0, k0,
               operand_batch(k, kHopperGemmBroadcastA, at.l), full);
  load_operand(k, b, k.smem.element(k.regions.b, state.index), at.n0, k0,
               operand_batch(k, kHopperGemmBroadcastB, at.l), full);
  k.pipeline.producer_commit(state);
  state.advance();
}

TmaStoreEpilogue::Params epilogue_params(const GemmKernel& k) {
  TmaStoreEpilogue::Params p{k.c.out,         k.c.tile_m, k.c.tile_n, k.c.pingpong, k.c.consumers(), k.c.slabs(),
                             k.c.out_major == Major::Column, k.regions.c_lines, k.regions.staging_boxes};
  // A 128 x 256 tile holds 128 accumulators a thread: with split-K's partial tiles, or tf32's A
  // fragments in registers, the staged element-wise boxes spilled (tf32's through tessel's printer,
  // every split-K one through LLVM's NVPTX backend), so those keep the fragment stores.
  const bool tight = k.c.split_k || (k.c.ab == Type::F32 && k.c.a_major == codegen::Major::MN);
  p.staged_elementwise = !(tight && k.c.tile_m * k.c.tile_n >= 128 * 256);
  return p;
}

TmaStoreEpilogue::Tensors epilogue_tensors(const GemmKernel& k) {
  return TmaStoreEpilogue::Tensors{k.p.tmap_out, k.p.tmap_c, k.p.out,   k.p.M,    k.p.N,    k.p.ld_out,
                                   k.p.batch_stride_out, k.p.alpha, k.p.beta, k.p.flags, k.p.tmap_c_views,
                                   k.p.c_offsets};
}

// Warpgroup 0: gives its registers away; one thread issues every TMA load (and, with beta != 0,
// the L2 prefetch of each tile's C once its k-tiles are asked for).
void producer(const GemmKernel& k) {
  KernelBuilder& b = k.b;
  b.note("producer warpgroup: gives registers away; thread 0 issues every TMA load");
  setmaxnreg(b, false, 40);
  b.if_(k.tid == 0, [&] {
    PipelineState state = k.pipeline.make_state();
    k.scheduler.for_each_tile([&](const WorkTile& at) {
      const bool units = k.c.split_k || k.c.stream_k;
      if (units)  // the unit's share of the tile's k-tiles
        b.for_range(at.k_begin, at.k_begin + at.k_count, 1, [&](Value kt) { load_k_tile(k, state, at, kt); });
      else
        b.for_range(b.constant(0, Type::S32), k.scheduler.k_tiles(), 1, [&](Value kt) { load_k_tile(k, state, at, kt); });
      // C into L2 ahead of the epilogue, once the tile's last k-tiles are asked for (a stage ring
      // before the consumers finish): before them, it competed with the pipeline's first loads
      // for DRAM. Not for split-K or stream-K: only the unit that arrives last reads C.
      if (!units) TmaStoreEpilogue::prefetch_c(b, epilogue_params(k), epilogue_tensors(k), at);
    });
    k.pipeline.producer_tail(state);
  });
}

// ---- The consumers' mainloop ---------------------------------------------------------------------

// A consumer warpgroup's wgmma mainloop: its accumulators (one 64-row slab, or, ping-pong, every
// slab of its tiles), its place in the stage ring, and the stage it has yet to release.
class ConsumerMainloop {
 public:
  ConsumerMainloop(const GemmKernel& k, Value w, Value lane0);
  // The tile's `k_tiles` (s32: all of them, or split-K's share) into the accumulators; ping-pong:
  // in the warpgroup's turn.
  void run(OrderedSequenceBarrier::State* turn, Value k_tiles);
  // Ping-pong: past the other warpgroup's k-tiles of its tile in the ring.
  void skip_k_tiles() { state_.advance(k_.scheduler.k_tiles()); }
  const std::vector<std::vector<Value>>& accumulators() const { return accs_; }
  std::vector<std::vector<Value>>& accumulators() { return accs_; }

 private:
  void mma_k_tile(Value kt);
  void mma_k_tile_reg_a();

  const GemmKernel& k_;
  Value lane0_;
  StageDescriptors da_, db_;
  // A from registers (tf32 with an M-major A: wgmma reads tf32 from shared memory K-major only, but
  // takes A's fragment from registers): per slab, the thread's byte offsets in a stage of its
  // fragment's 4 elements at k-block 0 (block kb lies kb x k_inst rows of 128 bytes further: the
  // swizzle's row bits are k mod 8, which a block of 8 k leaves as they are).
  bool reg_a_ = false;
  std::vector<std::array<Value, 4>> a_frag_;
  // The warpgroup's named barrier (kRegABarrier + w) that orders every lane's loads of a stage
  // before its warps' lane 0 release it to the TMA (an mbarrier arrive orders only its own thread).
  Value a_reads_barrier_;
  // Releases a stage: lane 0 of each warp arrives on its empty barrier (after the warpgroup's named
  // barrier where the lanes read A from it).
  void release(Value stage);
  int kblocks_ = 0;
  PipelineState state_;
  Value prev_;  // the stage of the k-tile before, released once its MMAs have finished
  std::vector<std::vector<Value>> accs_;
  Value zero_, on_;
  Value a_slab_;  // the warpgroup's A block in a stage, as a descriptor offset
};

ConsumerMainloop::ConsumerMainloop(const GemmKernel& k, Value w, Value lane0) : k_(k), lane0_(lane0) {
  KernelBuilder& b = k.b;
  const HopperGemmConfig& c = k.c;
  const Type mma = c.mma_type();
  const int k_inst = k.atom.k();
  kblocks_ = c.tile_k() / k_inst;
  reg_a_ = a_from_registers(c);
  if (reg_a_) {
    // Fragment (PTX ISA, wgmma .m64nNk8 A, tf32): register r of thread t of the slab's warpgroup
    // holds row 16*(t/32) + (t%32)/4 + 8*(r%2), column k = t%4 + 4*(r/2).
    const Tensor stage(b.constant(0, Type::U32), Space::Shared, c.ab,
                       stage_layout(c.ab, c.a_major, c.tile_m, c.tile_k()), Type::S32, 1024);
    const Int t = b.symbol("a_frag_thread", k.tid & 127, 1, 0);
    const Int slab0 = b.symbol("a_frag_slab", w, 1, 0);
    for (int j = 0; j < (c.pingpong ? c.slabs() : 1); ++j) {
      std::array<Value, 4> offsets;
      for (int r = 0; r < 4; ++r) {
        const Int row = (c.pingpong ? Int(64 * j) : slab0 * 64) + (t / 32) * 16 + (t % 32) / 4 + Int(8 * (r % 2));
        offsets[static_cast<size_t>(r)] = b.address(stage, Coord{row, t % 4 + Int(4 * (r / 2))});
      }
      a_frag_.push_back(offsets);
    }
    a_reads_barrier_ = b.cvt(w, Type::U32) + kRegABarrier;
  } else {
    da_ = stage_descriptors(stage_layout(mma, c.a_major, c.tile_m, c.tile_k()), mma, c.a_major, 64, c.slabs(), k_inst,
                            kblocks_);
  }
  db_ = stage_descriptors(stage_layout(mma, c.b_major, c.tile_n, c.tile_k()), mma, c.b_major, c.tile_n, 1, k_inst,
                          kblocks_);
  state_ = k.pipeline.make_state();
  prev_ = b.constant(0, Type::U32);
  for (int j = 0; j < (c.pingpong ? c.slabs() : 1); ++j) accs_.push_back(wgmma_accumulators(b, k.atom));
  zero_ = b.constant_f32(0.0f);
  on_ = b.constant(1, Type::U32) == 1;
  // The slab's descriptors start at stage 0; warpgroup w's A block is w (a runtime offset).
  // (One slab, or ping-pong: no offset; da.starts then may hold one slab's blocks only.)
  const bool slab_offset = c.slabs() > 1 && !c.pingpong && !reg_a_;
  a_slab_ = slab_offset ? b.cvt(w * static_cast<int64_t>(da_.starts[static_cast<size_t>(kblocks_)] >> 4), Type::U64)
                        : b.cvt(b.constant(0, Type::U32), Type::U64);
}

void ConsumerMainloop::run(OrderedSequenceBarrier::State* turn, Value k_tiles) {
  KernelBuilder& b = k_.b;
  if (turn) k_.turns->wait(*turn);
  for (std::vector<Value>& acc : accs_)
    for (Value& r : acc) b.assign(r, zero_);
  b.for_range(b.constant(0, Type::S32), k_tiles, 1, [&](Value kt) { mma_k_tile(kt); });
  if (turn) k_.turns->arrive(*turn, lane0_);
  wgmma_wait_group(b, 0);
  b.if_(k_tiles > 0, [&] { release(prev_); });
}

void ConsumerMainloop::release(Value stage) {
  KernelBuilder& b = k_.b;
  if (reg_a_) bar_sync(b, a_reads_barrier_, 128);
  b.if_(lane0_, [&] { k_.pipeline.consumer_release(stage); });
}

void ConsumerMainloop::mma_k_tile(Value kt) {
  KernelBuilder& b = k_.b;
  k_.pipeline.consumer_wait(state_);
  if (reg_a_) {
    mma_k_tile_reg_a();
    b.note("the k-tile before has finished (waited for above): release its stage");
    b.if_(kt > 0, [&] { release(prev_); });
    b.assign(prev_, state_.index);
    state_.advance();
    return;
  }
  Value desc_a = matrix_descriptor(b, k_.smem.element(k_.regions.a, state_.index), da_.base) + a_slab_;
  Value desc_b = matrix_descriptor(b, k_.smem.element(k_.regions.b, state_.index), db_.base);
  wgmma_fence(b);
  for (int kb = 0; kb < kblocks_; ++kb) {
    for (int j = 0; j < static_cast<int>(accs_.size()); ++j) {
      wgmma(b, k_.atom, accs_[static_cast<size_t>(j)],
            desc_a + (da_.starts[static_cast<size_t>(j * kblocks_ + kb)] >> 4),
            desc_b + (db_.starts[static_cast<size_t>(kb)] >> 4), on_, k_.c.a_major, k_.c.b_major);
    }
  }
  wgmma_commit_group(b);
  b.note("one k-tile of MMAs stays in flight; the one before has finished: release its stage");
  wgmma_wait_group(b, 1);
  b.if_(kt > 0, [&] { b.if_(lane0_, [&] { k_.pipeline.consumer_release(prev_); }); });
  b.assign(prev_, state_.index);
  state_.advance();
}

// A from registers: per k-block, a commit group of its wgmmas (every slab). Block kb's registers
// were last read by block kb of the k-tile before, the oldest of the kblocks groups then in flight:
// wait_group(kblocks - 1) before loading them again. Waiting so before the last block also
// finishes every MMA of the k-tile before, whose stage the caller then releases.
void ConsumerMainloop::mma_k_tile_reg_a() {
  KernelBuilder& b = k_.b;
  const int k_inst = k_.atom.k();
  Value stage_a = k_.smem.element(k_.regions.a, state_.index);
  Value desc_b = matrix_descriptor(b, k_.smem.element(k_.regions.b, state_.index), db_.base);
  b.note("A from registers: each k-block's fragments loaded from the M-major stage, then its wgmmas");
  std::vector<std::array<Value, 4>> at;  // the fragments' addresses in this stage at k-block 0
  for (const std::array<Value, 4>& offsets : a_frag_)
    at.push_back({stage_a + offsets[0], stage_a + offsets[1], stage_a + offsets[2], stage_a + offsets[3]});
  for (int kb = 0; kb < kblocks_; ++kb) {
    wgmma_wait_group(b, kblocks_ - 1);
    std::vector<std::vector<Value>> frags;
    for (const std::array<Value, 4>& addresses : at) {
      std::vector<Value> a;
      for (const Value& address : addresses)
        a.push_back(b.load(Space::Shared, Type::B32, address, int64_t{kb} * k_inst * kSwizzleRow)[0]);
      frags.push_back(std::move(a));
    }
    wgmma_fence(b);
    for (size_t j = 0; j < accs_.size(); ++j)
      wgmma_reg_a(b, k_.atom, accs_[j], frags[j], desc_b + (db_.starts[static_cast<size_t>(kb)] >> 4), on_,
                  k_.c.b_major);
    wgmma_commit_group(b);
  }
}

// ---- The consumers -------------------------------------------------------------------------------

TmaStoreEpilogue make_epilogue(const GemmKernel& k, Value w, Value t128) {
  return TmaStoreEpilogue(k.b, epilogue_params(k), epilogue_tensors(k), k.smem, k.regions.epilogue, k.regions.c_full,
                          w, t128);
}

SplitKFixup make_fixup(const GemmKernel& k, Value w, Value t128) {
  const SplitKFixup::Params fp{k.c.tile_m, k.c.tile_n, k.c.consumers()};
  const SplitKFixup::Tensors ft{k.c.stream_k ? k.p.slots : k.p.splits, k.p.workspace, k.p.launch, k.scheduler.tiles()};
  return SplitKFixup(k.b, fp, ft, k.smem, k.regions.split_k_last, w, t128);
}

// Warpgroups 1..: per tile, the mainloop then the epilogue. Cooperative: warpgroup w takes slab w
// of every tile. Ping-pong: warpgroup w takes the CTA's tiles w, w + 2, ... of the producer's
// sequence, and skips, in the stage ring, the k-tiles of the other's tiles; the other's mainloop
// then runs while this one's epilogue does.
void consumer(const GemmKernel& k, Value wg) {
  KernelBuilder& b = k.b;
  const bool pingpong = k.c.pingpong;
  b.note(pingpong ? "consumer warpgroups: wgmma on alternate tiles (ping-pong)"
                  : "consumer warpgroups: wgmma on 64-row slabs of the tile");
  setmaxnreg(b, true, k.c.consumers() == 2 ? 232 : 240);
  Value w = wg - 1;
  Value lane0 = (k.tid & 31) == 0;
  Value t128 = k.tid & 127;
  ConsumerMainloop mainloop(k, w, lane0);
  if (pingpong) b.if_(w == 1, [&] { mainloop.skip_k_tiles(); });
  // The mainloops take turns, each starting once the other's has waited on all its stages: a
  // consumer then never waits on a stage more than one phase ahead of its barrier (a parity wait
  // cannot tell phase p from p + 2). Warpgroup 0 goes first.
  std::optional<OrderedSequenceBarrier::State> turn;
  if (pingpong) turn = k.turns->make_state(w);
  const TmaStoreEpilogue epilogue = make_epilogue(k, w, t128);
  std::optional<SplitKFixup> fixup;
  if (k.c.split_k || k.c.stream_k) fixup.emplace(make_fixup(k, w, t128));
  k.scheduler.for_each_tile(
      [&](const WorkTile& at) {
        if (!fixup) epilogue.preload_c(at);  // the tile's first C boxes, under the mainloop
        mainloop.run(turn ? &*turn : nullptr, fixup ? at.k_count : k.scheduler.k_tiles());
        if (fixup) {  // split-K, stream-K: the unit that arrives last stores the sum of the tile's partials,
                      // and only it loads C (a unit that stores nothing must leave C's barriers be)
          Value stores = fixup->reduce(at, mainloop.accumulators().front());
          b.if_(stores, [&] {
            epilogue.preload_c(at);
            epilogue.store(at, mainloop.accumulators());
          });
        } else {
          epilogue.store(at, mainloop.accumulators());
        }
        if (pingpong) mainloop.skip_k_tiles();  // the other warpgroup's next tile
      },
      pingpong ? std::optional<Value>(b.cvt(w, Type::S32)) : std::nullopt);
  epilogue.finish();
}

// ---- The kernel ----------------------------------------------------------------------------------

void set_launch_bounds(KernelBuilder& b, const HopperGemmConfig& c) {
  b.kernel().maxntid = std::array<int, 3>{c.threads(), 1, 1};
  b.kernel().minnctapersm = 1;  // a register count at entry, so that setmaxnreg takes effect
  // A cluster of CS = CM x CN CTAs (CS <= 2), ranked along M first: the CTAs of a cluster column
  // (same n0) share B, those of a cluster row (same m0) share A; each loads its share and multicasts it.
  if (c.cluster_size() > 1) b.kernel().cluster_dims = std::array<int, 3>{c.cluster_size(), 1, 1};
}

PipelineTmaAsync::Params pipeline_params(const HopperGemmConfig& c, const HopperGemmSharedStorage& regions) {
  PipelineTmaAsync::Params p;
  p.full = regions.full;
  p.empty = regions.empty;
  p.tx_bytes = int64_t{c.a_stage_bytes()} + c.b_stage_bytes();
  p.consumer_arrivals = 4 * c.tile_consumers() * c.cluster_size();  // a warp's lane 0 each
  p.cluster_size = c.cluster_size();
  return p;
}

PersistentTileScheduler::Params scheduler_params(const HopperGemmConfig& c) {
  return PersistentTileScheduler::Params{c.tile_m, c.tile_n, c.tile_k(), c.cluster_m, c.cluster_n, kGroupRows};
}

}  // namespace

Module hopper_gemm(const HopperGemmConfig& config) {
  config.check();
  const HopperGemmConfig c = kernel_config(config);
  const WgmmaAtom atom{c.tile_n, Type::F32, c.mma_type(), c.mma_type()};
  atom.check();
  KernelBuilder b(config.name());
  set_launch_bounds(b, c);
  const HopperGemmSharedStorage regions(c);
  const GemmParams p = declare_params(b, c.split_k, c.stream_k, regions.c_lines ? 16 / bytes(c.out) - 1 : 0);

  b.note("shared memory: the base rounded up to the 1024-byte period of the 128-byte swizzle");
  const SharedStorage smem(b, regions.align);
  const PipelineTmaAsync pipeline(smem, pipeline_params(c, regions));
  std::optional<OrderedSequenceBarrier> turns;
  if (c.pingpong) turns.emplace(smem, regions.turns, 4);  // an arrival per warp of the passing warpgroup

  Value tid = b.special(Special::TidX);
  Value wg = tid >> 7;
  b.note(
      "thread 0 initializes the barriers: full (1 arrival + transaction bytes), empty (one per consumer warp of the "
      "cluster)");
  b.if_(tid == 0, [&] {
    pipeline.init();
    if (turns) turns->init();
    TmaStoreEpilogue::init(smem, regions.c_full);
    fence_mbarrier_init(b);
  });
  // In a cluster the peer's barriers must be initialized before anything multicasts or arrives on them:
  // fence.mbarrier_init (thread 0) then a relaxed arrive, not the default release one, which the
  // H100 runs as a GPU-scope memory barrier in every thread (ncu: 3.7% of row 20's stall samples).
  if (c.cluster_size() > 1)
    cluster_sync(b, true, true);
  else
    bar_sync(b);

  const ClusterRank rank = cluster_rank(b, c.cluster_m, c.cluster_n);
  const PersistentTileScheduler scheduler(b, scheduler_params(c), rank, p.M, p.N, p.K, p.L,
                                          c.split_k ? std::optional<Value>(p.splits) : std::nullopt,
                                          c.stream_k ? std::optional<Value>(p.dp_tiles) : std::nullopt);
  const GemmKernel k{b, c, atom, p, regions, smem, pipeline, turns ? &*turns : nullptr, scheduler, rank, tid};
  b.if_(
      wg == 0, [&] { producer(k); }, [&] { consumer(k, wg); });
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace tessel::kernels
