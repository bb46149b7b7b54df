// hopper_gemm.hpp: the Hopper GEMM (sm_90a), the kernel of the CuTe DSL's hopper/dense_gemm.py
// written by tessel as PTX: out = alpha * (A @ B) + beta * C over a batch (C is out unless the
// arguments give a tensor of its own: gemm_arguments.hpp), with
//   - TMA (cp.async.bulk.tensor) loads of A and B tiles into 128-byte-swizzled shared memory, whose
//     layouts come from the algebra and also give the wgmma matrix descriptors;
//   - a ring of `stages` buffers, each with a "full" mbarrier (the producer's expect_tx, completed
//     by the TMA's transaction bytes) and an "empty" one (an arrive per consumer warp when the
//     wgmmas reading it have finished);
//   - warp specialization: warpgroup 0 produces (one thread issues every TMA; setmaxnreg gives its
//     registers away), warpgroups 1.. consume, each a 64-row slab of the tile with wgmma.mma_async
//     m64nNk(32 bytes), one k-tile of MMAs kept in flight;
//   - a persistent grid (one CTA per SM) walking the tiles in groups of 8 tile-rows, so that the
//     CTAs running at once share A and B tiles in L2; clusters of 2 CTAs (2x1 or 1x2) multicast
//     halves of the B (A) tile they share;
//   - an epilogue from the accumulator fragment (alpha, beta * C with C's box loaded by the TMA
//     into the staging box when beta != 0, in C's own major; conversion) into 128-byte-swizzled
//     shared-memory boxes of 64 rows x 128 bytes (stmatrix.x4 for 16-bit out), each stored by a TMA
//     store (cp.async.bulk.tensor global.shared) that clips the ragged edge; two boxes per consumer warpgroup, so that the
//     threads fill one while the TMA reads the other, and the global writes drain while the next
//     tile's mainloop runs. Out-of-range rows, columns and k of A and B are zero-filled by the TMA;
//   - split-K (`split_k`, the _sk kernels): units of (tile, share of its k-tiles), f32 partial tiles
//     in the workspace, summed in split order by the tile's last unit (docs/gemm.md, "Schedules");
//   - stream-K (`stream_k`, the _streamk kernels): the last tiles' k-tiles shared evenly by every
//     CTA, the tiles split across CTAs fixed up like split-K's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/codegen/wgmma.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::kernels {

struct HopperGemmConfig {
  // A and B in memory: bf16 or f16; f32 (multiplied as tf32); e4m3 or e5m2 (fp8). f32 accumulators.
  codegen::Type ab = codegen::Type::BF16;
  codegen::Type out = codegen::Type::BF16;  // bf16, f16 or f32
  // K: K contiguous (A row-major, B column-major); MN: M (N) contiguous. MN only for bf16/f16.
  codegen::Major a_major = codegen::Major::K, b_major = codegen::Major::K;
  Major out_major = Major::Row;  // Row (N contiguous) or Column (M contiguous)
  int tile_m = 128;              // 64 or 128: one consumer warpgroup per 64 rows
  int tile_n = 128;              // 64, 128, 192 or 256 (8, 16, 32 or 64 swapped): the N of every wgmma
  int stages = 4;                // shared-memory buffers in the ring
  // The cluster, CTAs along M x along N: 1x1, 2x1 or 1x2. 2x1 pairs CTAs on tiles (2i, n) and
  // (2i+1, n), each loading half of their common B tile and multicasting it to both (half the L2
  // traffic for B); 1x2 pairs (m, 2j) and (m, 2j+1), sharing A the same way.
  int cluster_m = 1;
  int cluster_n = 1;
  int cluster_size() const { return cluster_m * cluster_n; }

  codegen::Type mma_type() const;  // tf32 for f32 inputs, else `ab`
  int tile_k() const;              // 128 bytes of `ab`: one 128-byte swizzle row
  // Ping-pong: two consumer warpgroups take alternate tiles (whole tiles of up to 128 x 128), so
  // that one's epilogue runs under the other's MMAs; otherwise (cooperative) each takes a 64-row
  // slab of every tile.
  bool pingpong = false;
  // Split-K (cooperative, 1x1 clusters): the work units are (output tile, split), split s taking
  // a contiguous share of the tile's k-tiles; GemmArguments::split_k (a kernel parameter, so one
  // kernel serves every split count) says how many. Each unit writes its f32 partial tile to the
  // workspace and counts itself in at the tile's counter; the last to arrive sums the partials in
  // the order s = 0, 1, ... and runs the epilogue (sm90/split_k.hpp).
  bool split_k = false;
  // Stream-K (cooperative, 1x1 clusters): GemmArguments::stream_k_workers CTAs (G, the grid) take
  // the tiles data-parallel until fewer than two rounds are left; those last tiles' k-tiles, laid
  // end to end, are cut into G equal ranges, one per CTA, so that every CTA does the same work.
  // A tile whose k-tiles fall in the ranges of several CTAs is fixed up as split-K's: each writes
  // its partial, the last to arrive sums them in k order (hopper_gemm_stream_k_plan).
  bool stream_k = false;
  // Swapped (the _swap kernels, for a small M: a decoding step's few tokens): the kernel computes
  // out^T = B^T A^T, so B's N fills the wgmma's 64-row side (tile_m spans N) and the few rows of
  // A its N (tile_n spans M, 8 to 64), and stores out^T's tile M-contiguous, i.e. out in its own
  // major. (A column-major out without the swap runs as out^T = B^T A^T with a row-major store;
  // with it, as itself with an M-contiguous store.) Cooperative or split-K, 1x1 clusters.
  bool swap_ab = false;

  int consumers() const { return pingpong ? 2 : tile_m / 64; }
  int slabs() const { return tile_m / 64; }                      // 64-row slabs of a tile
  int tile_consumers() const { return pingpong ? 1 : slabs(); }  // warpgroups on one tile
  int threads() const { return 128 * (1 + consumers()); }
  int a_stage_bytes() const;
  int b_stage_bytes() const;
  // Dynamic shared memory: the stages, the epilogue's boxes (hopper_gemm/shared_storage.hpp), 16
  // bytes of mbarriers per stage and 1024 bytes of slack to align the base to the 128-byte
  // swizzle's 1024-byte period.
  int shared_bytes() const;
  // tessel_hopper_gemm_bf16_bf16_128x128x64_s4_kkr (majors of A, B: k or m/n; out: r or c),
  // with _c2x1 or _c1x2 for a cluster of 2, _pp for ping-pong, _sk for split-K, _streamk for
  // stream-K and _swap for swap_ab.
  std::string name() const;
  // Throws tessel::Error naming the value and the rule.
  void check() const;
};

// The kernel. Parameters, in order: tmap_a, tmap_b, tmap_out, tmap_c (TMA descriptors, see
// hopper_gemm_tensor_maps), where the kernel reads C in lines (hopper_gemm_c_lines) tmap_c1 ..
// tmap_c{16 / bytes of out - 1} (views 1 and up of C in lines; tmap_c is view 0), out (u64), M, N,
// K, L (s32), ld_out, batch_stride_out (s64, elements), alpha, beta (f32), flags (u32,
// hopper_gemm_flags), and where it reads C in lines, c_offsets (u32: line j's offset in its 16-byte
// granule in bits 4j..4j+3, j < G); split-K kernels also splits (s32), workspace
// (u64) and launch (u64, hopper_gemm_split_k_launch_id); stream-K kernels dp_tiles and slots (s32:
// hopper_gemm_stream_k_plan), workspace and launch. C is loaded through tmap_c only when beta != 0.
// Block threads(), dynamic shared memory shared_bytes(), any grid (persistent: CTA i takes tiles
// i, i + gridDim.x, ...).
codegen::Module hopper_gemm(const HopperGemmConfig& c);

// The configuration whose kernel runs `c`, on the problem it computes (never swap_ab). A column-major
// out is computed as the row-major out^T = B^T A^T: the configuration with A's and B's majors (and
// the cluster's M and N) exchanged and a row-major out (the kernel of a Column configuration is this
// one's, under its own name; its plan transposes the arguments). A swapped configuration with a
// row-major out runs out^T = B^T A^T too, stored M-contiguous (out_major Column: the kernel's
// epilogue stores an M-major out itself); one with a column-major out runs as it is, so stored.
HopperGemmConfig kernel_config(const HopperGemmConfig& c);
// Whether the kernel of `c` computes out^T = B^T A^T (the operands exchanged, M and N too).
bool runs_transposed(const HopperGemmConfig& c);
// Whether the kernel of `c` reads its A through registers: tf32 with the kernel's A M-major, which
// wgmma cannot read from shared memory (tf32 only K-major there) but takes as a register fragment,
// each consumer loading its fragments from the TMA's M-major stage (the user's A M-major under a
// row-major out, or B N-major under a column-major one). The kernel's B stays K-major.
bool a_from_registers(const HopperGemmConfig& c);

// Whether the configuration runs `args`, and why not: ranks and shapes, types, majors, the TMA's
// 16-byte rules on addresses and strides (C's too when beta != 0, in either major), batch strides
// of 0 only for A, B and C, C's shape, type and overlap with out, extents above 2^31, alpha/beta
// not finite.
Status hopper_gemm_supports(const HopperGemmConfig& c, const GemmArguments& args);

// C in lines, for `args` whose C the kernel of `c` reads so (hopper_gemm_supports holds): G = 2^log_g
// views, view j holding lines j, j + G, ... (rows of a row-major C in the kernel's problem,
// columns of an M-contiguous one), based at the 16-byte granule holding line j's first element,
// with a pitch of G lines (a multiple of 16 bytes); its boxes are 16 bytes wider than a line (a
// line's 128 bytes of out) and start on granules. offsets: line j's first element's offset in its
// granule, 4 bits each. The specs depend on C's address only through those offsets (the launch
// bases view j at the granule of line j); views past C's last line repeat view 0 (their lines are
// never stored).
struct HopperGemmCViews {
  int log_g = 0;
  uint32_t offsets = 0;
  int64_t line_bytes = 0;  // from one line to the next (view j's base: line j's granule)
  std::vector<rt::TensorMapSpec> specs;
};
HopperGemmCViews hopper_gemm_c_views(const HopperGemmConfig& c, const GemmArguments& args);

// The TMA descriptor specs of the kernel's A, B and out for `args` (which the configuration
// supports; for a column-major out, the kernel's A is B^T, its B is A^T and its out is out^T).
// c: C's, in its own major (out's map when beta == 0: C is never read then, or when C is read in
// lines); c_views: C's views where the kernel reads it in lines (their bases depend on C's
// address beyond its offset in a granule: hopper_gemm_c_views' are recomputed at launch).
struct HopperGemmTensorMaps {
  rt::TensorMapSpec a, b, out, c;
  HopperGemmCViews c_views;
};

// The kernel's `flags` parameter: which operands broadcast one batch to all (batch stride 0: their
// tensor map has one batch, loaded at batch 0), and whether C is column-major in the kernel's
// (row-major) problem, i.e. M-contiguous. Of the kernel's operands (for a column-major out, the
// transposed ones: its A is B^T).
constexpr uint32_t kHopperGemmBroadcastA = 1, kHopperGemmBroadcastB = 2, kHopperGemmBroadcastC = 4,
                   kHopperGemmColumnMajorC = 8;
// C's address or pitch is off the 16-byte granules the TMA needs: the epilogue loads C in lines
// through G = 2^((flags >> kHopperGemmLogViewsShift) & 7) views (every G-th row, or column of an
// M-contiguous C, is a tensor the TMA can describe; TmaStoreEpilogue). Only kernels with room for
// the lines (hopper_gemm_c_lines); C's batch stride stays a multiple of 16 bytes.
constexpr uint32_t kHopperGemmLinesC = 16;
constexpr int kHopperGemmLogViewsShift = 8;
// out's address or pitch is off the 16-byte granules: the epilogue stores every box element by
// element (as it stores a ragged box), never through the TMA; out's map only stands in.
constexpr uint32_t kHopperGemmElementwiseOut = 32;
uint32_t hopper_gemm_flags(const TensorView& A, const TensorView& B, const TensorView& C);
// Whether the kernel of `c` reads a C off the TMA's granules in lines (kHopperGemmLinesC): every
// configuration whose boxes are 128 bytes of out wide and whose shared memory has room for the
// lines (not 128 x 256 with 4 stages, nor the swapped tiles under 64 columns).
bool hopper_gemm_c_lines(const HopperGemmConfig& c);


HopperGemmTensorMaps hopper_gemm_tensor_maps(const HopperGemmConfig& c, const GemmArguments& args);

// The launch of `module` (hopper_gemm(c)) on `args`, with at most `max_ctas` persistent CTAs
// (the SM count; at least 1 even for an empty problem).
codegen::LaunchPlan hopper_gemm_plan(const HopperGemmConfig& c, const GemmArguments& args, codegen::Module module,
                                     int max_ctas, const TensorMapEncoder& encode);

// The same without the module (what Kernel::run launches with the artifact's loaded function).
// `maps`, when given, are hopper_gemm_tensor_maps(c, args), computed earlier for arguments of the
// same layouts and C's offset in a 16-byte granule (the catalog kernel keeps them so: they depend
// on nothing else of the addresses).
codegen::LaunchPlan hopper_gemm_launch(const HopperGemmConfig& c, const GemmArguments& args, int max_ctas,
                                       const TensorMapEncoder& encode, const HopperGemmTensorMaps* maps = nullptr);

KernelMetadata hopper_gemm_metadata(const HopperGemmConfig& c);

// Split-K's workspace for `args` (args.split_k > 1; 0 otherwise): a u64 counter per output tile
// (rounded up to 256 bytes), then split_k f32 partial tiles of tile_m x tile_n per output tile;
// stream-K's: hopper_gemm_stream_k_plan's.
// The counters need no initial value: each holds the launch's id beside its count.
constexpr int kHopperGemmMaxSplits = 32;  // split_k's most (s * k-tiles stays in int32)
std::size_t hopper_gemm_workspace_size(const HopperGemmConfig& c, const GemmArguments& args);
// Stream-K's division of the work for `args` on G = args.stream_k_workers CTAs (at most the
// k-tiles of the whole problem): T tiles of kt k-tiles each. With T <= G every tile is in the
// stream-K region; otherwise, unless G divides T, the last G + T % G tiles are (so that no CTA's
// range is shorter than a tile's k-tiles), and the tiles before them run data-parallel. The
// region's W = tiles * kt k-tiles are cut at floor(c W / G), c = 0..G; a tile meets at most
// `slots` ranges. Workspace: a u64 counter per region tile (rounded up to 256 bytes), then `slots`
// f32 partial tiles per region tile. workers == 0: no stream-K (every tile data-parallel).
struct HopperGemmStreamKPlan {
  int64_t ctas = 1;      // the grid: min(workers, T * kt), at least 1
  int64_t dp_tiles = 0;  // tiles before the region
  int64_t sk_tiles = 0;  // tiles in the region
  int64_t slots = 1;     // partial tiles per region tile: the most ranges a tile meets
  std::size_t workspace = 0;
};
HopperGemmStreamKPlan hopper_gemm_stream_k_plan(const HopperGemmConfig& c, const GemmArguments& args);
// The division alone, from the tile count, the k-tiles per tile and the workers (> 0): ctas,
// dp_tiles, sk_tiles and slots, no workspace (the cost model's view of the same plan).
HopperGemmStreamKPlan hopper_gemm_stream_k_division(int64_t tiles, int64_t k_tiles, int64_t workers);

// A fresh id for a split-K launch (48 bits, never 0 in a process): a counter whose id is not the
// launch's counts from zero, so the workspace needs no clearing between launches.
uint64_t hopper_gemm_split_k_launch_id();

// The catalog class "hopper_gemm": types x tiles x stages x majors; its options (--dtype, --out,
// --a-major k|m, --b-major k|n, --out-major n|m, --tile-m, --tile-n, --stages, --cluster-m,
// --cluster-n, --schedule cooperative|pingpong|split-k|stream-k) configure any valid configuration.
class HopperGemmClass : public KernelClass {
 public:
  std::string name() const override { return "hopper_gemm"; }
  std::string description() const override;
  std::vector<KernelPtr> generate_kernels(const MetadataFilter& filter = {}, std::optional<Epilogue> epilogue = {},
                                          std::optional<int> cc = {}) const override;
  std::vector<OptionSpec> options() const override;
  KernelPtr configure(const Options& options) const override;
  static std::vector<HopperGemmConfig> configurations();
};

// A configuration from a complete set of the class's options, and back.
HopperGemmConfig hopper_gemm_config(const Options& o);
Options hopper_gemm_options(const HopperGemmConfig& c);

}  // namespace tessel::kernels
