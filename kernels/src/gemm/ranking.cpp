// gemm/ranking.cpp: the one-call GEMM's choice: which catalog kernels run the problem (as the
// operands lie, or after copies into the workspace) and the cost model that ranks them.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "gemm/packing.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/launch.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

struct Extents {
  int64_t L = 1, M = 0, N = 0, K = 0;
};
Extents extents_of(const GemmArguments& g) {
  Extents e;
  const size_t r = g.out.shape.size(), ra = g.A.shape.size();
  if (r < 2 || ra < 2) return e;
  e.M = g.out.shape[r - 2];
  e.N = g.out.shape[r - 1];
  e.K = g.A.shape[ra - 1];
  e.L = r == 3 ? g.out.shape[0] : 1;
  return e;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Dense peak of one SM in FLOP per microsecond, from the H100 SXM's datasheet figures spread over
// its 132 SMs (the clock is the same on every Hopper part tessel targets, the SM count is not).
double peak_per_sm(Type ab, bool tensor_cores) {
  const double per_sm = 1e-6 / 132;
  if (!tensor_cores) {
    if (ab == Type::F64) return 34e12 * per_sm;
    if (ab == Type::S32) return 17e12 * per_sm;
    return 67e12 * per_sm;  // f32 FMA; f16 and bf16 are computed in f32
  }
  if (ab == Type::F32) return 495e12 * per_sm;  // tf32
  if (codegen::is_fp8(ab)) return 1979e12 * per_sm;
  return 989e12 * per_sm;  // bf16, f16
}

std::string schedule_of(const KernelMetadata& md) {
  auto it = md.options.find("schedule");
  return it == md.options.end() ? "" : it->second;
}
bool is_split_k(const KernelMetadata& md) { return kernel_schedule(md) == GemmSchedule::SplitK; }
bool is_stream_k(const KernelMetadata& md) { return kernel_schedule(md) == GemmSchedule::StreamK; }
bool is_pingpong(const KernelMetadata& md) { return schedule_of(md) == "pingpong"; }
bool is_swapped(const KernelMetadata& md) {
  auto it = md.options.find("swap-ab");
  return it != md.options.end() && it->second == "yes";
}
// Whether a Hopper kernel computes out^T = B^T A^T (hopper_gemm.hpp's runs_transposed): its tile
// (design.tile, the kernel's) then spans N with its rows and M with its columns.
bool runs_transposed(const KernelMetadata& md) {
  if (md.kernel_class != "hopper_gemm" || md.operands.size() < 3) return false;
  return (md.operands[2].major == Major::Column) != is_swapped(md);
}
// The cluster's CTAs along the kernel's M and along its N (a column-major out's kernel computes
// out^T = B^T A^T: the configuration's cluster exchanged).
std::pair<int64_t, int64_t> kernel_cluster(const KernelMetadata& md) {
  const bool t = runs_transposed(md);
  return {std::max(1, md.design.cluster[t ? 1 : 0]), std::max(1, md.design.cluster[t ? 0 : 1])};
}
// The kernel's tiles over the problem it computes, the grid padded to whole blocks of cm x cn tiles.
int64_t padded_tiles(const KernelMetadata& md, const Extents& e, int64_t cm, int64_t cn) {
  const int64_t tm = std::max(md.design.tile[0], 1), tn = std::max(md.design.tile[1], 1);
  const bool t = runs_transposed(md);
  return ceil_div(t ? e.N : e.M, tm * cm) * cm * ceil_div(t ? e.M : e.N, tn * cn) * cn * e.L;
}
// The output tiles of a kernel on the problem.
int64_t tile_count(const KernelMetadata& md, const Extents& e) { return padded_tiles(md, e, 1, 1); }
// The CTA slots the persistent scheduler fills: it hands out whole clusters of tiles, so a tile grid
// that the cluster shape does not divide is padded to it (row 20 of issue 18: 12 x 11 tiles of a
// 1x2 cluster are 72 cluster tiles, a second round on 66 clusters; session 35).
int64_t slot_count(const KernelMetadata& md, const Extents& e) {
  const auto [cm, cn] = kernel_cluster(md);
  return padded_tiles(md, e, cm, cn);
}
int cluster_size(const KernelMetadata& md) {
  return std::max(1, md.design.cluster[0] * md.design.cluster[1] * md.design.cluster[2]);
}

// The cost model's constants were fitted on an H100 to the measured time of every candidate of
// 142 problems (tools/device_calibrate.sh --candidates 8 --splits ... on
// tools/bench/gemm_calibration.txt, twice in session 30, and on tools/bench/gemm_llama.txt, the
// Llama sweep's 100 rows, in session 31: square and skinny, partial waves, every major, odd
// leading dimensions, beta, tf32, fp8, batches, decode rows, the swapped kernels among the
// candidates), minimising the squared log error of the estimates and the picks' distance from the
// fastest. On problems never fitted (tools/bench/gemm_models.txt: 80 projections of two other
// model shapes), the pick was 1.2% from the fastest timed candidate on average (docs/performance.md). Refit them
// when kernels change: that script, then tools/bench/fit_gemm_model.py, which mirrors
// estimate_gemm_us term for term (keep the two in step; tools/bench/calibration/ keeps the runs).
//
// The mainloop's fraction of the dense peak per SM with every SM busy, by tile and schedule, for
// 16-bit operands. Larger tiles reuse each loaded byte more; a ping-pong 64-row tile keeps one
// warpgroup per tile. tf32 and fp8 are fitted as one function of these each (few problems of
// theirs in the fit, so no table of their own): tf32's k-tile moves as many bytes for half the
// FLOPs, and its small tiles fall further behind (the cube).
struct TileFit {
  int tile_m, tile_n;
  bool pingpong;
  double efficiency;
};
constexpr TileFit kTileFits[] = {
    {64, 128, false, 0.683},  {64, 128, true, 0.603},  {64, 256, false, 0.753},  {64, 256, true, 0.684},
    {128, 128, false, 0.737}, {128, 128, true, 0.751}, {128, 192, false, 0.803}, {128, 256, false, 0.808},
};
constexpr double kTf32Scale = 1.58, kTf32Power = 3;  // tf32: 1.58 e^3
constexpr double kFp8Scale = 1.06;                    // fp8: 1.06 e
// A swapped kernel's m64nN wgmma (N of 8 to 64) reads its 64 x 16 A block from shared memory for
// N x 64 x 32 FLOPs: at 128 bytes a clock per SM that bounds it to (N / 2) / (16 + N / 4) of the
// peak (0.22 for N = 8, 1 from N = 64); one fitted scale for all of them, and at most the
// unswapped 64x128 tile's efficiency (no 64-row tile of N <= 64 reuses a loaded byte more).
constexpr double kSwapScale = 1.453;
constexpr double kSwapCap = kTileFits[0].efficiency;
static_assert(kTileFits[0].tile_m == 64 && kTileFits[0].tile_n == 128 && !kTileFits[0].pingpong);

double tile_efficiency(const KernelMetadata& md, Type ab) {
  double e = 0;
  const bool pp = is_pingpong(md);
  if (is_swapped(md)) {
    const double n = md.design.tile[1];
    e = std::min(kSwapCap, kSwapScale * std::min(1.0, (n / 2) / (16 + n / 4)));
  }
  for (const TileFit& f : kTileFits)
    if (e == 0 && f.tile_m == md.design.tile[0] && f.tile_n == md.design.tile[1] && f.pingpong == pp) e = f.efficiency;
  if (e == 0) {  // a tile the table does not know (one built by hand): by its area
    const double area = static_cast<double>(md.design.tile[0]) * md.design.tile[1];
    e = std::clamp(0.87 - 0.09 * std::log2(std::max(1.0, 128.0 * 256.0 / area)), 0.3, 0.87);
  }
  if (ab == Type::F32) return std::min(0.9, kTf32Scale * std::pow(e, kTf32Power));
  if (codegen::is_fp8(ab)) return std::min(0.95, kFp8Scale * e);
  return e;
}

// The other constants of the fit. Per SM: the epilogue's store rate (bytes of out, twice with a
// C), as a share of it what shows when the tile loop goes on (cooperative) or the other warpgroup
// computes (ping-pong); the fixed cost of each round of units (the pipeline's fill, the tile
// loop); how much faster a last round runs per missing unit (its SMs share the memory system and
// the power budget with fewer: a round of one unit's mainloop takes 0.38 of a full round's);
// split-K's partial tiles (written by every unit, read by each tile's last: mostly L2).
constexpr double kEpilogueBytesPerUsPerSm = 4.014e+04;
constexpr double kCooperativeEpilogue = 0.5;
// An out off the TMA's granules leaves element by element from the staging boxes
// (kHopperGemmElementwiseOut): how much slower than the TMA's boxes, an estimate, not fitted (H200,
// session 46: 8192 x 8191 x 1024 at 681 TFLOP/s against 717 for 8192 x 8192; with K = 128, 183).
constexpr double kElementwiseEpilogue = 1.5;
constexpr double kPingpongEpilogue = 0.198;
constexpr double kUnitUs = 0.154;
constexpr double kFirstFillUs = 0.461;
constexpr double kPartialRoundGain = 0.620;
constexpr double kPartialBytesPerUsPerSm = 2.727e+04;
// The device: DRAM, whichever is lower of the share of the device's bandwidth that a GEMM reaches
// (GemmDevice::dram_gbs, from its memory clock and bus width) and what the CTAs that move bytes
// reach (a grid of a few CTAs cannot stream a weight at full bandwidth); the launch. The share was
// fitted on an H100 as 2.767e6 B/us (of its 3352 GB/s); an H200 moves 4815 GB/s. The per-SM rate
// was fitted at 1.0e5 before a last round's bytes were rated by it; 7e4 was then chosen over 1.0e5
// and 5e4 on the regrets of every list (session 31, docs/performance.md).
constexpr double kDramShare = 0.8254;
constexpr double kDramBytesPerUsPerSm = 7.0e+04;
constexpr double kLaunchUs = 6.627;
// Every unit's A and B tiles come through L2 into shared memory: with small tiles on a large
// problem, the L2's bandwidth (shared by all SMs) bounds the mainloop before the tensor cores do
// (ncu of 128x128 on 777 x 16384 x 3072: L2 58% busy against 41% for 128x192 at the same work;
// at boost clocks 1.47x slower, docs/performance.md, session 31).
constexpr double kL2BytesPerUs = 1.546e+07;
// A K-major operand whose rows lie an odd multiple of 16 bytes apart: the TMA reads each 128-byte
// box row in 16-byte requests, twice the L2 sectors in four times the requests of an aligned row
// (ncu: 1504 x 2000 x 1000 against x 1024, 91 against 52 MB, 19.7 against 16.3 us); its tile
// bytes count kMisalignedL2 times (the time of that row, not a fit: session 32,
// docs/performance.md). M/N-major rows measured at most 1.15x the bytes, and count once.
constexpr double kMisalignedL2 = 2.5;
// A cluster's launch and its pair's coordination, per launch: on the calibration rows under 20 us
// where multicast saves nothing (aligned operands), a clustered kernel measured 0.5 to 2 us slower
// than its tile without a cluster (median 0.8; session 32, docs/performance.md).
constexpr double kClusterUs = 0.8;
// The copies into the workspace (elementwise copy kernels: read and write counted); one into another
// major reads across the operand's rows, kTransposeCopyFactor times a copy in the same major (an
// estimate, not fitted: the fit has too few transposes to tell; it breaks the tie between a kernel
// that needs the operand transposed and its twin that only needs its rows padded).
constexpr double kCopyBytesPerUs = 1.123e+06;
constexpr double kTransposeCopyFactor = 1.5;
// Split-K at the model's count is chosen over data-parallel only where its estimate is below
// kSplitKMargin times the best data-parallel one: where split-K is a near tie in the model it
// measured 5-15% slower as often as not (the calibration and validation problems,
// docs/performance.md, session 29); with this margin and the count tie below, every split-K pick
// on either list was the fastest candidate, and none ran slower than its data-parallel pick.
constexpr double kSplitKMargin = 0.98;
constexpr double kSplitCountTie = 0.02;
constexpr uint64_t kNominalWorkspace = uint64_t{1} << 40;  // where the ranking pretends the workspace is

int64_t bytes_of(const TensorView& v) { return v.size() * codegen::bytes(v.dtype); }

// What one element of operand `v`'s tile costs the L2, relative to an aligned one; K is v's last
// mode (A) or the one before (B).
double l2_cost(const TensorView& v, bool k_last) {
  const int r = v.rank();
  if (r < 2) return 1.0;
  const size_t k = static_cast<size_t>(k_last ? r - 1 : r - 2), rows = static_cast<size_t>(k_last ? r - 2 : r - 1);
  if (v.stride[k] != 1) return 1.0;  // M/N-major
  return v.stride[rows] * codegen::bytes(v.dtype) % 32 == 16 ? kMisalignedL2 : 1.0;
}

// The time the L2 takes to serve every tile's A and B k-range once (Hopper kernels): whatever the
// schedule, each tile's operands come through L2; in a cluster each CTA loads its share of the
// operand the cluster multicasts (the CTAs along the kernel's M share its B tile, those along N its
// A tile), so the L2 serves it once per cluster. In the kernel's frame (out^T = B^T A^T for a
// column-major out's kernel) A's tile is tm rows.
double l2_floor_us(const KernelMetadata& md, const GemmArguments& g) {
  const Extents e = extents_of(g);
  const double tm = std::max(md.design.tile[0], 1), tn = std::max(md.design.tile[1], 1);
  const bool t = runs_transposed(md);
  const TensorView &ka = t ? g.B : g.A, &kb = t ? g.A : g.B;
  const auto [cm, cn] = kernel_cluster(md);
  return static_cast<double>(tile_count(md, e)) *
         (tm * l2_cost(ka, !t) / static_cast<double>(cn) + tn * l2_cost(kb, t) / static_cast<double>(cm)) *
         static_cast<double>(e.K) * codegen::bytes(g.A.dtype) / kL2BytesPerUs;
}

}  // namespace

double estimate_gemm_us(const KernelMetadata& md, const GemmArguments& g, const GemmDevice& dev) {
  const Extents e = extents_of(g);
  if (e.M == 0 || e.N == 0 || e.L == 0) return kLaunchUs;
  const bool tensor = md.min_cc >= 90;
  const int tm = std::max(md.design.tile[0], 1), tn = std::max(md.design.tile[1], 1),
            tk = std::max(md.design.tile[2], 1);
  const int cs = cluster_size(md);  // a cluster: its multicast (the L2 floor) and kClusterUs
  const double rate = peak_per_sm(g.A.dtype, tensor) * (tensor ? tile_efficiency(md, g.A.dtype) : 0.6);
  const int64_t tiles = tile_count(md, e);
  const int64_t ktiles = std::max<int64_t>(1, ceil_div(e.K, tk));
  const bool beta = g.beta != 0;
  double compute_us = 0;
  int64_t active = dev.sm_count;  // CTAs moving bytes at once
  int64_t last_active = active;    // ... in a last round of fewer units than CTAs
  double tail = 0;                 // the share of the units in that round
  if (tensor) {
    // A persistent grid: each CTA takes ceil(units / CTAs) units, one after another; a unit is a
    // tile, or split-K's (tile, split) with its share of the k-tiles. A round with fewer units
    // than CTAs runs each faster (the busy SMs share the memory system and the power with fewer).
    const int64_t splits = is_split_k(md) ? std::max(1, g.split_k) : 1;
    const int64_t ctas = std::max<int64_t>(cs, dev.sm_count / cs * cs);
    // The epilogue's time, and what shows of it: cooperative, kCooperativeEpilogue; ping-pong, what
    // the other warpgroup's mainloop does not hide, at least kPingpongEpilogue (a weight gradient
    // of 16 tokens has one k-tile a tile: nothing to hide the stores behind; on 128256 x 4096 x 16
    // 128x256 cooperative tiles beat 128x128 ping-pong by 4-9%, docs/performance.md, session 43).
    const double full_epilogue = static_cast<double>(tm) * tn * codegen::bytes(g.out.dtype) * (beta ? 2 : 1) /
                                 kEpilogueBytesPerUsPerSm * (tma_aligned_in(g.out, md.operands[2].major) ? 1.0 : kElementwiseEpilogue);
    const auto shown_epilogue = [&](double mainloop) {
      return is_pingpong(md) ? std::max(kPingpongEpilogue * full_epilogue, full_epilogue - mainloop)
                             : kCooperativeEpilogue * full_epilogue;
    };
    const double partial = static_cast<double>(tm) * tn * 4 / kPartialBytesPerUsPerSm;  // one f32 partial tile
    if (is_stream_k(md) && g.stream_k_workers > 0) {
      // Per CTA: its data-parallel rounds, then its share of the region's k-tiles and epilogues
      // (every SM busy to the end: no faster last round), a unit per tile its range meets, and
      // where tiles are split, about two partials written and two read.
      const HopperGemmStreamKPlan sk = hopper_gemm_stream_k_division(tiles, ktiles, g.stream_k_workers);
      const double k_tile_us = 2.0 * tm * tn * tk / rate;
      const double epilogue = shown_epilogue(static_cast<double>(ktiles) * k_tile_us);
      const double rounds = static_cast<double>(sk.dp_tiles / sk.ctas);
      const double share = static_cast<double>(sk.sk_tiles) / static_cast<double>(sk.ctas);
      compute_us = rounds * (static_cast<double>(ktiles) * k_tile_us + epilogue + kUnitUs) +
                   share * (static_cast<double>(ktiles) * k_tile_us + epilogue) +
                   (sk.sk_tiles > 0 ? (std::ceil(share) + 1) * kUnitUs + 4 * partial : 0.0) + kFirstFillUs;
      active = sk.ctas;
    } else {
      // Rounds count the cluster-padded slots; the work (and the memory system's sharing) only the
      // real units: a tile outside the problem moves no bytes.
      const int64_t units = tiles * splits, slots = slot_count(md, e) * splits;
      const int64_t rounds = ceil_div(slots, ctas);
      const int64_t last = std::max<int64_t>(1, std::min(units, slots - (rounds - 1) * ctas));  // of the last round
      active = std::min(units, ctas);
      if (rounds > 1) {
        last_active = last;
        tail = static_cast<double>(last) / static_cast<double>(units);
      }
      const double unit_mainloop = static_cast<double>(ceil_div(ktiles, splits)) * 2.0 * tm * tn * tk / rate;
      const double epilogue = shown_epilogue(unit_mainloop);
      const double last_speedup = 1 - kPartialRoundGain * (1 - static_cast<double>(last) / static_cast<double>(ctas));
      compute_us = static_cast<double>(rounds - 1) * (unit_mainloop + epilogue) + unit_mainloop * last_speedup +
                   epilogue + static_cast<double>(rounds) * kUnitUs + kFirstFillUs;
      // Split-K: every unit writes its f32 partial; each tile's last unit reads all of them.
      if (splits > 1)
        compute_us += static_cast<double>(rounds) * partial +
                      static_cast<double>(ceil_div(tiles, ctas)) * static_cast<double>(splits) * partial;
    }
    compute_us = std::max(compute_us, l2_floor_us(md, g) + kFirstFillUs);
  } else {
    // One block per tile, a few resident per SM: the whole grid shares the SMs' CUDA cores.
    const double flops = 2.0 * static_cast<double>(e.M) * e.N * e.K * e.L;
    compute_us = flops / (rate * dev.sm_count);
  }
  // A last round of fewer units streams its share of the bytes at what its CTAs reach (a decoding
  // step's 144 weight tiles of 64 rows on 132 SMs: the last 12 alone, 1.12x one round of 72).
  const auto dram_rate = [&](int64_t ctas) {
    return std::min(kDramShare * dev.dram_gbs * 1e3,
                    static_cast<double>(std::max<int64_t>(ctas, 1)) * kDramBytesPerUsPerSm);
  };
  const double moved = static_cast<double>(bytes_of(g.A) + bytes_of(g.B) + bytes_of(g.out) * (beta ? 2 : 1));
  const double dram_us = moved * (1 - tail) / dram_rate(active) + moved * tail / dram_rate(last_active);
  // Compute and memory overlap, not perfectly: a tenth of the smaller shows (which also prefers,
  // of two kernels that wait on the same bytes, the one with less work).
  return std::max(compute_us, dram_us) + 0.1 * std::min(compute_us, dram_us) + kLaunchUs + (cs > 1 ? kClusterUs : 0.0);
}

GemmSchedule kernel_schedule(const KernelMetadata& md) {
  const std::string s = schedule_of(md);
  return s == "split-k" ? GemmSchedule::SplitK : s == "stream-k" ? GemmSchedule::StreamK : GemmSchedule::DataParallel;
}

GemmDevice gemm_device_of(const rt::DeviceProperties& p) {
  GemmDevice d{p.compute_capability(), p.sm_count};
  if (const double gbs = p.dram_gbs(); gbs > 0) d.dram_gbs = gbs;
  return d;
}

GemmDevice gemm_device_in_use() { return gemm_device_of(device_in_use()); }

std::string GemmChoice::describe() const {
  std::string s = kernel ? kernel->name() : "(none)";
  static const char* const names[] = {"A", "B", "C", "out"};
  std::string copies;
  for (int i = 0; i < 4; ++i)
    if (packed[static_cast<size_t>(i)]) copies += (copies.empty() ? "" : ", ") + std::string(names[i]);
  if (!copies.empty()) s += " (through the workspace: " + copies + ")";
  if (splits > 1) s += " (split-K x " + std::to_string(splits) + ")";
  if (workers > 0) s += " (stream-K on " + std::to_string(workers) + " CTAs)";
  if (!source.empty()) s += " (from " + source + ")";
  return s;
}

std::string GemmChoice::schedule() const {
  if (splits > 1) return "split-K x " + std::to_string(splits);
  if (workers > 0) return "stream-K on " + std::to_string(workers) + " CTAs";
  return kernel && schedule_of(kernel->metadata()) == "pingpong" ? "ping-pong" : "data-parallel";
}

int choose_splits(const KernelMetadata& md, const GemmArguments& args, const GemmDevice& dev, bool force) {
  if (!is_split_k(md)) return 1;
  const Extents e = extents_of(args);
  const int64_t ktiles = ceil_div(e.K, std::max(md.design.tile[2], 1));
  // Every split keeps at least 4 k-tiles (the pipeline's fill and the partial's write and read
  // cost about that); forced, any split of at least one k-tile.
  int64_t most = std::min<int64_t>(32, ktiles / 4);
  if (force && most < 2) most = std::min<int64_t>(32, ktiles);
  GemmArguments g = args;
  g.split_k = 1;
  const double whole = estimate_gemm_us(md, g, dev);
  std::array<double, 33> us{};  // us[s]: the estimate with s splits, 2 <= s <= most
  int best = 1;
  double best_us = force ? std::numeric_limits<double>::infinity() : whole;
  for (int s = 2; s <= most; ++s) {
    g.split_k = s;
    us[static_cast<size_t>(s)] = estimate_gemm_us(md, g, dev);
    if (us[static_cast<size_t>(s)] < best_us) {
      best = s;
      best_us = us[static_cast<size_t>(s)];
    }
  }
  if (!force && best_us > 0.97 * whole) return 1;  // not worth a workspace and a second pass over the tile
  // Counts within kSplitCountTie of the best are a tie, which goes to the fewest splits (fewer
  // partials; measured faster where the model cannot tell, as on every decode row of the
  // calibration: x2 against the model's x3 or x4).
  for (int s = 2; s < best; ++s)
    if (us[static_cast<size_t>(s)] <= (1 + kSplitCountTie) * best_us) return s;
  return best;
}

std::vector<std::string> GemmRanking::refusal_groups() const {
  // Hundreds of kernels give a handful of reasons; each group where its reason first appears.
  std::map<std::string, size_t> group_of;
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;  // reason, kernels
  for (const auto& [name, why] : refused) {
    auto [it, fresh] = group_of.emplace(why, by_reason.size());
    if (fresh) by_reason.push_back({why, {}});
    by_reason[it->second].second.push_back(name);
  }
  std::vector<std::string> groups;
  for (const auto& [why, names] : by_reason)
    groups.push_back(std::to_string(names.size()) + " kernel" + (names.size() > 1 ? "s" : "") + " (e.g. " +
                     names.front() + "): " + why);
  return groups;
}

std::string GemmRanking::refusals(size_t max_groups) const {
  const std::vector<std::string> groups = refusal_groups();
  std::string s;
  for (size_t i = 0; i < groups.size() && i < max_groups; ++i) s += (i ? "; " : "") + groups[i];
  if (groups.size() > max_groups) s += "; and " + std::to_string(groups.size() - max_groups) + " more reasons";
  return s;
}

GemmRanking rank_gemm(const GemmArguments& args, const GemmDevice& dev, GemmSchedule schedule) {
  GemmRanking r;
  const MetadataFilter gemms = [](const KernelMetadata& md) { return md.operation == Operation::Gemm; };
  const Extents e = extents_of(args);
  bool tensor_candidate = false;
  // The refusals of kernels that take A's type first: those are the ones a user can act on.
  std::vector<std::pair<std::string, std::string>> other_types;
  auto refuse = [&](const KernelPtr& k, std::string why) {
    const std::vector<OperandAttributes>& ops = k->metadata().operands;
    const bool a_type = !ops.empty() && ops.front().dtype == args.A.dtype;
    (a_type ? r.refused : other_types).emplace_back(k->name(), std::move(why));
  };
  for (const KernelPtr& k : list_kernels(gemms, dev.cc)) {
    const KernelMetadata& md = k->metadata();
    const bool split = is_split_k(md), stream = is_stream_k(md), tensor_kernel = md.min_cc >= 90;
    if (schedule == GemmSchedule::DataParallel && (split || stream)) {
      refuse(k, std::string("a ") + (split ? "split-K" : "stream-K") + " kernel; --schedule data-parallel asked");
      continue;
    }
    if (schedule == GemmSchedule::SplitK && !split) {
      refuse(k, "not a split-K kernel; --schedule split-k asked");
      continue;
    }
    if (schedule == GemmSchedule::StreamK && !stream) {
      refuse(k, "not a stream-K kernel; --schedule stream-k asked");
      continue;
    }
    if (stream && schedule == GemmSchedule::Any && args.stream_k_workers == 0) {
      refuse(k, "stream-K runs only when asked (--schedule stream-k, or stream_k_workers): "
                "not yet measured against data-parallel on a GPU");
      continue;
    }
    GemmChoice c;
    c.kernel = k;
    std::size_t copied = 0;  // the copies' workspace
    // Split-K: the count forced by the arguments, or the model's.
    GemmArguments run = args;
    bool no_split = false;
    if (split && args.split_k == 1) {
      run.split_k = choose_splits(md, args, dev, schedule == GemmSchedule::SplitK);
      no_split = run.split_k < 2;
    }
    // Stream-K: the CTAs the arguments give, or one per SM.
    if (stream && args.stream_k_workers == 0) run.stream_k_workers = dev.sm_count;
    const Status direct = k->supports(run);
    if (direct && no_split) {
      refuse(k, "split-K: no split count beats the whole K per tile by the model");
      continue;
    }
    if (direct) {
      c.estimate_us = estimate_gemm_us(md, run, dev);
      c.l2_us = tensor_kernel ? l2_floor_us(md, run) : 0.0;
      c.workspace_bytes = k->workspace_size(run);
    } else {
      // Tensor-core kernels of the problem's types may take it after copies (packing.hpp).
      const std::optional<Packing> p = tensor_kernel ? plan_packing(md, run, kNominalWorkspace) : std::nullopt;
      if (!p) {
        refuse(k, direct.reason);
        continue;
      }
      const Status packed = k->supports(p->packed_args);
      if (!packed) {
        refuse(k, direct.reason + "; after copies into the workspace: " + packed.reason);
        continue;
      }
      if (no_split) {
        refuse(k, "split-K: no split count beats the whole K per tile by the model");
        continue;
      }
      c.packed = p->packed;
      c.l2_us = l2_floor_us(md, p->packed_args);
      copied = p->workspace_bytes;
      // The copies' regions, then split-K's (gemm_steps lays them out so).
      c.workspace_bytes = split_k_workspace_offset(p->workspace_bytes) + k->workspace_size(p->packed_args);
      c.estimate_us = estimate_gemm_us(md, p->packed_args, dev) +
                      static_cast<double>(p->copied_bytes + (kTransposeCopyFactor - 1) * p->transposed_bytes) * 2 /
                          kCopyBytesPerUs +
                      kLaunchUs * p->copies;
    }
    if (split) c.splits = run.split_k;
    if (stream) c.workers = run.stream_k_workers;
    tensor_candidate = tensor_candidate || tensor_kernel;
    std::ostringstream t;
    const int tm = md.design.tile[0], tn = md.design.tile[1], tk = std::max(md.design.tile[2], 1);
    const int64_t tiles = tile_count(md, e);
    const std::string shape = std::to_string(tm) + "x" + std::to_string(tn) + (runs_transposed(md) ? " (of out^T)" : "");
    if (c.workers > 0) {
      const HopperGemmStreamKPlan sk =
          hopper_gemm_stream_k_division(tiles, std::max<int64_t>(1, ceil_div(e.K, tk)), c.workers);
      t << "stream-K: " << tiles << " tiles of " << shape << ", " << ceil_div(e.K, tk) << " k-tiles each, on "
        << sk.ctas << " CTAs: " << sk.dp_tiles / sk.ctas << " data-parallel rounds, then " << sk.sk_tiles
        << " tiles' k-tiles shared evenly";
    } else if (c.splits > 1)
      t << "split-K x " << c.splits << ": " << tiles * c.splits << " units (" << tiles << " tiles of " << shape
        << ") on " << dev.sm_count << " SMs, " << ceil_div(e.K, tk) << " k-tiles split " << c.splits
        << " ways, " << k->workspace_size(run) << " bytes of partial tiles";
    else
      t << tiles << " tiles of " << shape << " on " << dev.sm_count << " SMs, " << ceil_div(e.K, tk)
        << " k-tiles each";
    if (c.any_packed()) t << ", " << copied << " bytes copied through the workspace";
    t << ": about " << std::fixed;
    t.precision(1);
    t << c.estimate_us << " us";
    c.terms = t.str();
    r.ranked.push_back(std::move(c));
  }
  r.refused.insert(r.refused.end(), other_types.begin(), other_types.end());
  // The CUDA-core kernels never win on a device whose tensor cores take the types: they rank after
  // every tensor-core choice, whatever the model says (it is only a model).
  // Split-K at the model's own count ranks as if 1 / kSplitKMargin slower: it must win by that much.
  const bool own_count = schedule == GemmSchedule::Any && args.split_k == 1;
  auto key = [&](const GemmChoice& c) { return own_count && c.splits > 1 ? c.estimate_us / kSplitKMargin : c.estimate_us; };
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [&](const GemmChoice& a, const GemmChoice& b) {
    const bool ta = a.kernel->metadata().min_cc >= 90, tb = b.kernel->metadata().min_cc >= 90;
    if (tensor_candidate && ta != tb) return ta;
    return key(a) < key(b);
  });
  // A near tie (within 0.5%) goes to the largest tile, then to no cluster: where the model cannot
  // tell two kernels apart, the larger tile measured faster more often (on the calibration and
  // validation problems of docs/performance.md the picks' mean distance from the fastest fell from
  // 3.5% to 3.0% and from 6.9% to 5.5%). Up to 128 rows of out, a swapped kernel wins a near tie
  // with an unswapped one: it pads fewer rows and streams the weights on more CTAs (on the Llama and
  // held-out rows of session 31, every such tie went that way: 128x4096x4096 by 7%, 1x32064x3072 by
  // 7%; above 128 rows none was timed). Between two swapped kernels it goes, up to 128 rows, to
  // the smaller tile for the same reason (64x8 over 64x16 over 64x32 by 2-8%, session 30), which
  // the model's DRAM term cannot tell apart; above, where no tile pads rows, to the larger as
  // between unswapped ones (512^3: 64x64 5.8 us, 64x32 6.8 us on the H200, session 44). Between
  // two clusters of one tile it goes to the lower L2 floor: the one that multicasts the operand
  // costlier to load (3000x2000x1000 bf16 with A's K-major rows 2000 bytes apart, N-major B,
  // column-major out: the cluster multicasting A 32.9 us, the other 37.1, both estimated 28.3
  // since the compute term hides the floor; session 36). The rest keeps the model's order.
  if (!r.ranked.empty() && r.ranked.front().kernel->metadata().min_cc >= 90) {
    auto area = [](const GemmChoice& c) {
      const KernelMetadata& md = c.kernel->metadata();
      return int64_t{md.design.tile[0]} * md.design.tile[1];
    };
    auto clustered = [](const GemmChoice& c) { return cluster_size(c.kernel->metadata()) > 1; };
    const double near = key(r.ranked.front()) * 1.005;
    const bool few_rows = extents_of(args).M <= 128;
    size_t pick = 0;
    for (size_t i = 1; i < r.ranked.size() && key(r.ranked[i]) <= near; ++i) {
      const GemmChoice &c = r.ranked[i], &p = r.ranked[pick];
      if (c.kernel->metadata().min_cc < 90) break;
      const bool cs = is_swapped(c.kernel->metadata()), ps = is_swapped(p.kernel->metadata());
      const bool better = cs && ps               ? (few_rows ? area(c) < area(p) : area(c) > area(p))
                          : cs != ps && few_rows ? cs
                          : area(c) != area(p)   ? area(c) > area(p)
                          : clustered(c) != clustered(p) ? !clustered(c)
                                                 : c.l2_us < p.l2_us;
      if (better) pick = i;
    }
    std::rotate(r.ranked.begin(), r.ranked.begin() + static_cast<std::ptrdiff_t>(pick),
                r.ranked.begin() + static_cast<std::ptrdiff_t>(pick) + 1);
  }
  return r;
}

}  // namespace tessel::kernels
