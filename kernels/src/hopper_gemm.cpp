// hopper_gemm.cpp: the generator of the Hopper GEMM (see hopper_gemm.hpp for the design).
//
// Shared memory (dynamic, its base rounded up to 1024 bytes):
//   [A stage 0 .. A stage S-1][B stage 0 .. B stage S-1][full mbarrier x S][empty mbarrier x S]
// Each operand stage is laid out by the algebra as the TMA box writes it with the 128-byte
// swizzle; slicing that layout by one wgmma's (MN, K) block gives the matrix descriptor (checked
// against the PTX ISA's canonical layouts by make_matrix_descriptor) and its start offset.
#include "tessel/kernels/hopper_gemm.hpp"

#include <optional>
#include <string>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen/wgmma.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

constexpr int kSwizzleRow = 128;  // bytes: every operand tile uses the 128-byte swizzle
constexpr int kGroupRows = 8;     // tile-rows per rasterization group (L2 reuse)
constexpr int kEpiBox = 64 * kSwizzleRow;  // bytes of one epilogue box: 64 rows of 128 bytes
constexpr int kEpilogueBarrier = 1;        // the named barrier of the consumer warpgroups (0: the CTA)

const char* major_letter(codegen::Major m, bool is_a) { return m == codegen::Major::K ? "k" : is_a ? "m" : "n"; }

// The shared-memory layout of one operand stage, (MN, K) -> element offset, as TMA boxes with the
// 128-byte swizzle leave it. K-major: one box of `rows` rows of 128 bytes. MN-major: one box of K
// rows of 128 bytes of MN per 128-byte chunk of MN: ((chunk, rows/chunk), K).
ComposedLayout stage_layout(Type elem, codegen::Major major, int rows, int k) {
  const Swizzle sw = element_swizzle(SmemSwizzle::B128, elem);
  if (major == codegen::Major::K) return composition(sw, make_layout(IntTuple{rows, k}, IntTuple{k, 1}));
  const int chunk = kSwizzleRow / bytes(elem);
  return composition(sw,
                     make_layout(IntTuple{IntTuple{chunk, rows / chunk}, k}, IntTuple{IntTuple{1, chunk * k}, chunk}));
}

// The descriptors of every wgmma block of an operand stage: block (i, kb) covers MN rows
// [i*mn, (i+1)*mn) and the kb-th k of the instruction. All share LBO, SBO and the swizzle, and
// differ by a static start offset, which is returned in bytes (the encoding adds start >> 4).
struct StageDescriptors {
  MatrixDescriptor base;        // start 0
  std::vector<int64_t> starts;  // [i * kblocks + kb], bytes
};

StageDescriptors stage_descriptors(const ComposedLayout& stage, Type mma, codegen::Major major, int mn, int blocks_mn,
                                   int k_inst, int kblocks) {
  StageDescriptors out;
  ComposedLayout divided = stage;
  divided.layout = zipped_divide(stage.layout, Tiler::from_shape(IntTuple{mn, k_inst}));
  for (int i = 0; i < blocks_mn; ++i) {
    for (int kb = 0; kb < kblocks; ++kb) {
      // The block as a tile of its own: (MN, K) of the instruction, its position in the offset.
      const ComposedLayout tile = slice(SliceCoord{_, SliceCoord{i, kb}}, divided);
      const MatrixDescriptor d = make_matrix_descriptor(tile, mma, major);
      if (out.starts.empty()) {
        out.base = d;
        out.base.start = 0;
      } else if (d.lbo != out.base.lbo || d.sbo != out.base.sbo || d.swizzle != out.base.swizzle) {
        fail("hopper_gemm: the wgmma blocks of one stage have different descriptors");
      }
      out.starts.push_back(d.start.value("wgmma block start"));
    }
  }
  return out;
}

}  // namespace

Type HopperGemmConfig::mma_type() const { return ab == Type::F32 ? Type::TF32 : ab; }
int HopperGemmConfig::tile_k() const { return kSwizzleRow / bytes(ab); }
int HopperGemmConfig::a_stage_bytes() const { return tile_m * kSwizzleRow; }
int HopperGemmConfig::b_stage_bytes() const { return tile_n * kSwizzleRow; }
int HopperGemmConfig::epilogue_bytes() const { return consumers() * 2 * kEpiBox; }
int HopperGemmConfig::shared_bytes() const {
  return stages * (a_stage_bytes() + b_stage_bytes() + 16) + epilogue_bytes() + (pingpong ? 16 : 0) + 1024;
}

std::string HopperGemmConfig::name() const {
  return std::string("tessel_hopper_gemm_") + ptx_name(ab) + "_" + ptx_name(out) + "_" + std::to_string(tile_m) + "x" +
         std::to_string(tile_n) + "x" + std::to_string(tile_k()) + "_s" + std::to_string(stages) + "_" +
         major_letter(a_major, true) + major_letter(b_major, false) + (out_major == Major::Row ? "r" : "c") +
         (cluster_size() > 1 ? "_c" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) : "") +
         (pingpong ? "_pp" : "");
}

void HopperGemmConfig::check() const {
  const std::string who = "hopper_gemm " + name() + ": ";
  if (ab != Type::BF16 && ab != Type::F16 && ab != Type::F32 && !is_fp8(ab))
    fail(who + "input type " + ptx_name(ab) + " (bf16, f16, f32 as tf32, e4m3 or e5m2)");
  if (out != Type::BF16 && out != Type::F16 && out != Type::F32)
    fail(who + "output type " + ptx_name(out) + " (bf16, f16 or f32)");
  if ((a_major == codegen::Major::MN || b_major == codegen::Major::MN) && ab != Type::BF16 && ab != Type::F16)
    fail(who + "M/N-major operands need bf16 or f16 (wgmma transposes only 16-bit types)");
  if (out_major == Major::Any) fail(who + "out must be row or column major");
  if (tile_m != 64 && tile_m != 128) fail(who + "tile_m " + std::to_string(tile_m) + " (64 or 128)");
  if (tile_n != 64 && tile_n != 128 && tile_n != 256)
    fail(who + "tile_n " + std::to_string(tile_n) + " (64, 128 or 256)");
  if (stages < 2) fail(who + std::to_string(stages) + " stages (at least 2)");
  if (pingpong && tile_m == 128 && tile_n > 128)
    fail(who + "ping-pong with a 128 x " + std::to_string(tile_n) +
         " tile (at most 128 x 128: one warpgroup holds a whole tile's accumulators, 128 registers a thread)");
  if (pingpong && cluster_size() > 1) fail(who + "ping-pong in a cluster (not implemented: 1x1 only)");
  if (cluster_m != 1 && cluster_m != 2) fail(who + "cluster_m " + std::to_string(cluster_m) + " (1 or 2)");
  if (cluster_n != 1 && cluster_n != 2) fail(who + "cluster_n " + std::to_string(cluster_n) + " (1 or 2)");
  if (cluster_size() > 2)
    fail(who + "cluster " + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) +
         " (1x1, 2x1 or 1x2: at most 2 CTAs per cluster)");
  // Each CTA of a cluster loads a share of the operand it multicasts: an M/N-major share is whole
  // 128-byte box rows of M (N). A column-major out runs as out^T = B^T A^T (row_major_equivalent),
  // where A's tile spans tile_n and B's tile_m: the rule holds for the kernel that runs.
  const int chunk = kSwizzleRow / bytes(ab);
  const bool col = out_major == Major::Column;
  const char* a_tile = col ? "tile_n" : "tile_m";
  const char* b_tile = col ? "tile_m" : "tile_n";
  const std::string swapped = col ? ", as the kernel of out^T = B^T A^T runs a column-major out" : "";
  if (a_major == codegen::Major::MN && ((col ? tile_n : tile_m) / cluster_n) % chunk != 0)
    fail(who + "an M-major A with cluster_n " + std::to_string(cluster_n) + " needs " + a_tile + " a multiple of " +
         std::to_string(chunk * cluster_n) + " (each CTA multicasts " + a_tile + " / cluster_n rows of A, in " +
         std::to_string(chunk) + "-element boxes" + swapped + ")");
  if (b_major == codegen::Major::MN && ((col ? tile_m : tile_n) / cluster_m) % chunk != 0)
    fail(who + "an N-major B with cluster_m " + std::to_string(cluster_m) + " needs " + b_tile + " a multiple of " +
         std::to_string(chunk * cluster_m) + " (each CTA multicasts " + b_tile + " / cluster_m rows of B, in " +
         std::to_string(chunk) + "-element boxes" + swapped + ")");
  if (shared_bytes() > 227 * 1024)
    fail(who + std::to_string(shared_bytes()) + " bytes of shared memory (an sm_90 block has at most 232448)");
}

// A column-major out is the row-major out^T = B^T A^T: the kernel of the swapped configuration
// (A's and B's majors exchanged; K-major stays K-major), which keeps one epilogue, the fast one.
HopperGemmConfig row_major_equivalent(const HopperGemmConfig& c) {
  if (c.out_major == Major::Row) return c;
  HopperGemmConfig t = c;
  std::swap(t.a_major, t.b_major);
  std::swap(t.cluster_m, t.cluster_n);
  t.out_major = Major::Row;
  return t;
}

namespace {

// A b32 register of two 16-bit values, `lo` in the low half (stmatrix's and mma's element order).
Value pack_halves(Value lo, Value hi) {
  KernelBuilder& b = lo.builder();
  Value w = b.reg(Type::B32);
  Instr m;
  m.op = Op::Mov;
  m.type = Type::B32;
  m.ops = {w.op(), Operand::vec({lo.op(), hi.op()})};
  b.emit(m);
  return w;
}

// Proves, for every thread, that stmatrix.x4 q puts the accumulator fragment's values where the
// fragment says: register j of lane t is element (row t/4, columns 2(t%4), +1) of matrix j, whose
// rows lanes 8j.. address; it holds fragment values 8q + 2j and 8q + 2j + 1.
void check_stmatrix_matches_fragment(const Layout& stm, const Layout& frag, int subn) {
  for (int64_t t = 0; t < 128; ++t) {
    const int64_t lane = t % 32, warp = t / 32;
    for (int64_t q = 0; q < subn / 16; ++q) {
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t row_base = stm(Coord{Int(warp * 32 + 8 * j + lane / 4), Int(q)}).leaf().value("stmatrix row");
        for (int64_t e = 0; e < 2; ++e) {
          const int64_t at = row_base + 64 * (2 * (lane % 4) + e);
          const int64_t want = frag(Coord{Int(t), Int(8 * q + 2 * j + e)}).leaf().value("fragment offset");
          if (at != want)
            fail("hopper_gemm: stmatrix of thread " + std::to_string(t) + " puts fragment value " +
                 std::to_string(8 * q + 2 * j + e) + " at " + std::to_string(at) + ", the fragment says " +
                 std::to_string(want));
        }
      }
    }
  }
}

}  // namespace

Module hopper_gemm(const HopperGemmConfig& config) {
  config.check();
  const HopperGemmConfig c = row_major_equivalent(config);
  const Type mma = c.mma_type();
  const WgmmaAtom atom{c.tile_n, Type::F32, mma, mma};
  atom.check();
  const int BM = c.tile_m, BN = c.tile_n, BK = c.tile_k(), S = c.stages;
  const int k_inst = atom.k(), kblocks = BK / k_inst, eb = bytes(c.ab), ob = bytes(c.out);
  const int a_bytes = c.a_stage_bytes(), b_bytes = c.b_stage_bytes();

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

  b.note("shared memory: the base rounded up to the 1024-byte period of the 128-byte swizzle");
  Value smem = (b.dynamic_shared("smem", 1024) + 1023) & ~int64_t{1023};
  const int64_t a_region = int64_t{S} * a_bytes, epi = a_region + int64_t{S} * b_bytes;
  const int64_t bars = epi + int64_t{c.epilogue_bytes()};
  // The epilogue's boxes: two per consumer warpgroup, 64 rows of 128 bytes of out, as the TMA store
  // reads them (128-byte swizzle, so that the threads' 4- or 8-byte writes hit distinct banks).
  const int SUBN = kSwizzleRow / ob;
  const ComposedLayout epi_layout =
      composition(element_swizzle(SmemSwizzle::B128, c.out), make_layout(IntTuple{64, SUBN}, IntTuple{SUBN, 1}));
  auto epi_box = [&](Value w) { return smem + w * int64_t{2 * kEpiBox} + epi; };
  auto full_bar = [&](Value s) { return smem + (s << 3) + bars; };
  auto empty_bar = [&](Value s) { return smem + (s << 3) + (bars + 8 * S); };
  // Ping-pong: warpgroup w's turn to run its mainloop (the other arrives when its mainloop is done).
  auto turn_bar = [&](Value w) { return smem + (b.cvt(w, Type::U32) << 3) + (bars + 16 * S); };
  auto a_stage = [&](Value s) { return smem + s * int64_t{a_bytes}; };
  auto b_stage = [&](Value s) { return smem + s * int64_t{b_bytes} + a_region; };

  Value tid = b.special(Special::TidX);
  Value wg = tid >> 7;
  b.note(
      "thread 0 initializes the barriers: full (1 arrival + transaction bytes), empty (one per consumer warp of the "
      "cluster)");
  b.if_(tid == 0, [&] {
    for (int s = 0; s < S; ++s) {
      mbarrier_init(b, smem + (bars + 8 * s), 1);
      mbarrier_init(b, smem + (bars + 8 * (S + s)), 4 * c.tile_consumers() * CS);
    }
    if (c.pingpong) {
      mbarrier_init(b, smem + (bars + 16 * S), 4);
      mbarrier_init(b, smem + (bars + 16 * S + 8), 4);
    }
    fence_mbarrier_init(b);
  });
  // In a cluster the peer's barriers must be initialized before anything multicasts or arrives on them.
  if (CS > 1)
    cluster_sync(b);
  else
    bar_sync(b);
  Value rank = CS > 1 ? b.cvt(b.special(Special::ClusterCtaRank), Type::S32) : b.constant(0, Type::S32);
  Value rank_m = CM > 1 ? rank : b.constant(0, Type::S32), rank_n = CN > 1 ? rank : b.constant(0, Type::S32);

  b.note(
      "the persistent tile loop: cluster tiles clusterid.x, + nclusterid.x, ... of ceil(M/(CM BM)) x ceil(N/(CN BN)) "
      "x L");
  // The unit of scheduling is the cluster's tile: CM x CN tiles, the CTA of rank r taking the r-th.
  Value tiles_m = (M + (BM * CM - 1)) / (BM * CM), tiles_n = (N + (BN * CN - 1)) / (BN * CN);
  Value per_batch = tiles_m * tiles_n, total = per_batch * L;
  Value k_tiles = (K + (BK - 1)) / BK;
  Value first = b.cvt(b.special(CS > 1 ? Special::ClusterIdX : Special::CtaidX), Type::S32),
        step = b.cvt(b.special(CS > 1 ? Special::NclusterIdX : Special::NctaidX), Type::S32);
  // Tile t -> (m block, n block, batch): groups of kGroupRows tile-rows, walked down M first, so
  // that the CTAs running at once cover a few rows and columns of tiles (their A and B stay in L2).
  struct Coords {
    Value m0, n0, l;
  };
  auto schedule = [&](Value t) {
    Value l = t / per_batch, r = t % per_batch;
    Value group = r / (tiles_n * kGroupRows), in_group = r % (tiles_n * kGroupRows);
    Value first_m = group * kGroupRows;
    Value rows = b.min(tiles_m - first_m, b.constant(kGroupRows, Type::S32));
    Value mi = first_m + in_group % rows, ni = in_group / rows;
    return Coords{mi * (BM * CM) + rank_m * BM, ni * (BN * CN) + rank_n * BN, l};
  };
  auto advance = [&](Value stage, Value phase) {
    b.assign(stage, stage + 1);
    b.if_(stage == S, [&] {
      b.assign(stage, 0);
      b.assign(phase, phase ^ b.constant(1, Type::U32));
    });
  };
  // Tiles first, first + step, ...; `parity` (ping-pong) keeps every other one: the first + parity
  // one, then every 2 steps.
  auto tile_loop = [&](const std::function<void(const Coords&)>& body, std::optional<Value> parity = {}) {
    Value t = parity ? b.mov(first + *parity * step) : b.mov(first);
    Value stride = parity ? step * 2 : step;
    b.while_([&] { return t < total; },
             [&] {
               body(schedule(t));
               b.assign(t, t + stride);
             });
  };

  b.if_(
      wg == 0,
      [&] {
        b.note("producer warpgroup: gives registers away; thread 0 issues every TMA load");
        setmaxnreg(b, false, 40);
        b.if_(tid == 0, [&] {
          Value stage = b.constant(0, Type::U32), phase = b.constant(0, Type::U32);
          tile_loop([&](const Coords& at) {
            b.for_range(b.constant(0, Type::S32), k_tiles, 1, [&](Value kt) {
              b.note("wait until the consumers have released the stage, then load A and B into it");
              // A fresh barrier's preceding phase counts as complete: the first pass does not wait.
              mbarrier_wait(b, empty_bar(stage), phase ^ b.constant(1, Type::U32));
              Value full = full_bar(stage);
              mbarrier_arrive_expect_tx(b, full, int64_t{a_bytes} + b_bytes);
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
              load(tmap_a, a_stage(stage), c.a_major, at.m0, BM, CN, rank_n);
              load(tmap_b, b_stage(stage), c.b_major, at.n0, BN, CM, rank_m);
              advance(stage, phase);
            });
          });
          if (CS > 1) {
            b.note("producer tail: stay until every consumer of the cluster has released every stage");
            b.unrolled(S, [&](int) {
              mbarrier_wait(b, empty_bar(stage), phase ^ b.constant(1, Type::U32));
              advance(stage, phase);
            });
          }
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
        Value stage = b.constant(0, Type::U32), phase = b.constant(0, Type::U32);
        Value prev = b.constant(0, Type::U32);
        // A stage is free once every CTA that multicasts into it knows: arrive on each one's barrier.
        auto release = [&](Value s) {
          if (CS == 1) {
            mbarrier_arrive(b, empty_bar(s));
            return;
          }
          for (int r = 0; r < CS; ++r) mbarrier_arrive_cluster(b, empty_bar(s), r);
        };
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
        auto skip_k_tiles = [&] {
          Value next = stage + b.cvt(k_tiles, Type::U32);
          b.assign(phase, phase ^ ((next / static_cast<int64_t>(S)) & 1));
          b.assign(stage, next % static_cast<int64_t>(S));
        };
        if (c.pingpong) b.if_(w == 1, [&] { skip_k_tiles(); });
        // The mainloops take turns, each starting once the other's has waited on all its stages: a
        // consumer then never waits on a stage more than one phase ahead of its barrier (a parity
        // wait cannot tell phase p from p + 2). Warpgroup 0 goes first.
        std::optional<Value> my_tiles;
        if (c.pingpong) my_tiles = b.constant(0, Type::U32);
        // The consumers' named barrier of the epilogue; ping-pong warpgroups are in different tiles,
        // so each has its own (1 and 2).
        std::optional<Value> epi_barrier;
        if (c.pingpong) epi_barrier = b.cvt(w, Type::U32) + kEpilogueBarrier;
        auto epi_sync = [&] {
          if (c.pingpong)
            bar_sync(b, *epi_barrier, 128);
          else
            bar_sync(b, kEpilogueBarrier, 128 * c.consumers());
        };
        tile_loop([&](const Coords& at) {
          if (c.pingpong) {
            // Warpgroup 0's first wait is for parity 1, which a fresh barrier passes.
            mbarrier_wait(b, turn_bar(w), (*my_tiles & 1) ^ (w ^ b.constant(1, Type::U32)));
          }
          for (std::vector<Value>& acc : accs)
            for (Value& r : acc) b.assign(r, zero);
          b.for_range(b.constant(0, Type::S32), k_tiles, 1, [&](Value kt) {
            mbarrier_wait(b, full_bar(stage), phase);
            Value desc_a = matrix_descriptor(b, a_stage(stage), da.base) + a_slab;
            Value desc_b = matrix_descriptor(b, b_stage(stage), db.base);
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
            b.if_(kt > 0, [&] { b.if_(lane0, [&] { release(prev); }); });
            b.assign(prev, stage);
            advance(stage, phase);
          });
          if (c.pingpong) {
            b.if_(lane0, [&] { mbarrier_arrive(b, turn_bar(w ^ b.constant(1, Type::U32))); });
            b.assign(*my_tiles, *my_tiles + 1);
          }
          wgmma_wait_group(b, 0);
          b.if_(k_tiles > 0, [&] { b.if_(lane0, [&] { release(prev); }); });

          b.note(
              "epilogue: per 128-byte-wide box of the slab, alpha * acc (+ beta * C) -> out's type -> swizzled "
              "shared memory -> TMA store");
          const Int t_sym = b.symbol("t128", t128, 1, 0);
          const Int ld = b.symbol("ld_out", ld_out, 16 / ob, 0);
          for (int j = 0; j < my_slabs; ++j) {
            const std::vector<Value>& acc = accs[static_cast<size_t>(j)];
            Value row0 = c.pingpong ? at.m0 + j * 64 : at.m0 + w * 64;
            // The fragment of one box, (T128, V) -> (M64, SUBN) at m + 64 n; the accumulators of box
            // s are values [s nv, (s+1) nv) of the whole slab's fragment (it repeats every 8 columns).
            const Layout frag = wgmma_accumulator_layout(SUBN);
            // 16-bit out leaves through stmatrix.x4: lane 8j + i gives the address of row i of matrix j,
            // matrices j = (rows +0/+8 of the warp's 16) x (columns +0/+8 of a 16-column block q):
            // (T128 = (i, j0, j1, warp), q) -> (M64, SUBN) at m + 64 n.
            const Layout stm = make_layout(IntTuple{IntTuple{8, 2, 2, 4}, SUBN / 16},
                                           IntTuple{IntTuple{1, 8, 8 * 64, 16}, 16 * 64});
            if (ob == 2) check_stmatrix_matches_fragment(stm, frag, SUBN);
            // C (out's own memory when beta != 0), read from global: (64, SUBN) row-major at (row0, n0, l).
            // supports() asks 16-byte multiples of ld: the divisibility lets pairs of columns move as vectors.
            const Layout c_box = make_layout(IntTuple{64, SUBN}, IntTuple{ld, 1});
            Value elem_off = b.cvt(at.l, Type::S64) * bs_out + b.cvt(row0, Type::S64) * ld_out + b.cvt(at.n0, Type::S64);
            Value c_base = pout + elem_off * int64_t{ob};
            Value idx_t = b.lower(frag(Coord{t_sym, Int(0)}).leaf(), Type::S32);
            Value rows_left = M - row0 - (idx_t & 63), cols_left = N - at.n0 - (idx_t >> 6);
            Value interior = ((row0 + 64) <= M) & ((at.n0 + BN) <= N);
            Value use_c = beta != b.constant_f32(0.0f);
            // The TMA store writes whole 16-byte granules of a row: exact when rows end on one.
            Value rows_whole = ((N * ob) & 15) == 0;
            Value my_boxes = epi_box(w);
            const int nv = SUBN / 2;
            for (int s = 0; s < BN / SUBN; ++s) {
              const int box = j * (BN / SUBN) + s;  // the warpgroup's box sequence in this tile
              std::vector<Value> v;
              for (int i = 0; i < nv; ++i) v.push_back(acc[static_cast<size_t>(s * nv + i)] * alpha);
              // C's (and out's) box in global memory, this thread's elements.
              const Tensor cs =
                  Tensor(c_base + int64_t{s} * SUBN * ob, Space::Global, c.out, c_box, Type::S64, 16).compose(frag)(
                      SliceCoord{t_sym, _});
              auto inside = [&](int i) {
                const int64_t off = frag(Coord{Int(0), Int(i)}).leaf().value("fragment offset");
                return (rows_left > (off % 64)) & (cols_left > (off / 64 + s * SUBN));
              };
              b.if_(use_c, [&] {
                auto add_c = [&](int i, Value cin) {
                  b.assign(v[static_cast<size_t>(i)],
                           b.mad(beta, c.out == Type::F32 ? cin : b.cvt(cin, Type::F32), v[static_cast<size_t>(i)]));
                };
                b.if_(
                    interior,
                    [&] {
                      const std::vector<Value> cv = b.load_tensor(cs);
                      for (int i = 0; i < nv; ++i) add_c(i, cv[static_cast<size_t>(i)]);
                    },
                    [&] {
                      b.note("the ragged edge: C element by element, inside out's bounds only");
                      for (int i = 0; i < nv; ++i)
                        b.if_(inside(i), [&] { add_c(i, b.load(Space::Global, c.out, b.address(cs, Coord{Int(i)}))[0]); });
                    });
              });
              std::vector<Value> o;
              for (Value& x : v) o.push_back(c.out == Type::F32 ? x : b.cvt(x, c.out, Round::Rn));
              // The same for the whole CTA (both warpgroups' slabs share n0), so the barriers inside agree.
              Value by_tma = ((at.n0 + (s + 1) * SUBN) <= N) | rows_whole;
              b.if_(
                  by_tma,
                  [&] {
                    Value buf = my_boxes + int64_t{(box % 2) * kEpiBox};
                    // Within a slab at most the last box goes element-wise (by_tma only turns false
                    // along s), so there one pending group is the previous box's; a slab's first box
                    // waits for all (ping-pong's second slab would otherwise count a box that
                    // committed no group and write over a buffer still being read).
                    b.note("the box written two stores ago has been read by its TMA store: the buffer is free");
                    b.if_(t128 == 0, [&] { cp_async_bulk_wait_group(b, s == 0 ? 0 : 1, true); });
                    epi_sync();
                    if (ob == 2) {
                      b.note("stmatrix.x4: four 8x8 matrices (16 rows x 16 columns of the warp's rows) per instruction");
                      const Tensor st = Tensor(buf, Space::Shared, c.out, epi_layout, Type::U32, 1024).compose(stm)(
                          SliceCoord{t_sym, _});
                      for (int q = 0; q < SUBN / 16; ++q) {
                        std::vector<Value> regs;
                        for (int j = 0; j < 4; ++j) regs.push_back(pack_halves(o[8 * q + 2 * j], o[8 * q + 2 * j + 1]));
                        stmatrix(b, b.address(st, Coord{Int(q)}), regs);
                      }
                    } else {
                      const Tensor sb = Tensor(buf, Space::Shared, c.out, epi_layout, Type::U32, 1024).compose(frag)(
                          SliceCoord{t_sym, _});
                      b.store_tensor(sb, o);
                    }
                    b.note("the writes become visible to the TMA (async proxy), then one thread stores the box");
                    fence_proxy_async(b, Space::Shared);
                    epi_sync();
                    b.if_(t128 == 0, [&] {
                      tma_store(b, tmap_out, {at.n0 + s * SUBN, row0, at.l}, buf);
                      cp_async_bulk_commit_group(b);
                    });
                  },
                  [&] {
                    b.note(
                        "a box across N where out's rows end inside a 16-byte granule: the TMA store would write the "
                        "rest of the granule (the padding after each row), so element by element");
                    for (int i = 0; i < nv; ++i)
                      b.if_(inside(i), [&] { b.store(Space::Global, c.out, b.address(cs, Coord{Int(i)}), {o[static_cast<size_t>(i)]}); });
                  });
            }
          }
          if (c.pingpong) skip_k_tiles();  // the other warpgroup's next tile
        }, c.pingpong ? std::optional<Value>(b.cvt(w, Type::S32)) : std::nullopt);
        b.note("the last TMA stores complete before the CTA (and its shared memory) goes away");
        b.if_(t128 == 0, [&] { cp_async_bulk_wait_group(b, 0); });
      });
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace tessel::kernels
