// simt_gemm.hpp: the portable GEMM, out = alpha * (A @ B) + beta * C over a batch, on CUDA cores
// (no tensor-core instruction), for every element type codegen does arithmetic on. It is the
// catalog's fallback: sm_80, any strides, ragged M, N and K.
//
// Each block computes a tile_m x tile_n tile of out: per step of tile_k it loads the A and B tiles
// into shared memory (converted to the accumulator type, zero outside the problem), waits on
// bar.sync, and each thread accumulates a thread_m x thread_n micro-tile from them; the epilogue
// writes the elements inside the problem, reading C (out itself, or a tensor of its own with any
// strides) only when beta != 0. A batch stride of 0 broadcasts A, B or C. Thread (tm, tn) owns rows tm + i * tile_m/thread_m and
// columns tn + j * tile_n/thread_n, so a warp reads shared memory without bank conflicts.
#pragma once

#include <array>
#include <string>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

struct SimtGemmConfig {
  codegen::Type dtype = codegen::Type::F32;  // A, B and out: f64, f32, f16, bf16 or s32
  // The static stride 1 of each operand: Row (its last mode), Column (the one before) or Any
  // (every stride a parameter). A row-major is K-major; B row-major is N-major.
  Major a_major = Major::Row, b_major = Major::Row, out_major = Major::Row;
  int tile_m = 64, tile_n = 64, tile_k = 8;
  int thread_m = 4, thread_n = 4;  // outputs per thread in M and N

  codegen::Type accumulator() const { return default_accumulator(dtype); }
  int threads() const { return (tile_m / thread_m) * (tile_n / thread_n); }
  // tessel_simt_gemm_f32_f32_64x64x8_t4x4_rrr (majors of A, B, out: r, c or a for any).
  std::string name() const;
  // Throws tessel::Error naming the value and the rule (type, tile divisibility, thread count).
  void check() const;
};

// Which of an operand's strides (L, rows, cols) are parameters: all but the one its major makes 1.
std::array<bool, 3> simt_gemm_dynamic_strides(Major major);

// The kernel. Parameters, in order: A, B, out, C (u64 global addresses; C is out's address when
// C is out); L, M, N, K (s64); the strides of A (L, M, K), B (L, K, N) and out (L, M, N) in
// elements (s64), except those the majors make static, then C's (L, M, N), all three; alpha and
// beta (accumulator type). Block (threads()), grid (ceil(M/tile_m),
// ceil(N/tile_n), L).
codegen::Module simt_gemm(const SimtGemmConfig& c);

// Whether the configuration runs `args`, and why not (rank, shapes, types, strides, sizes that
// the grid or the int32/int64 parameters cannot hold, alpha/beta for integer types, C's shape,
// type and overlap with out).
Status simt_gemm_supports(const SimtGemmConfig& c, const GemmArguments& args);
// The launch of `module` (simt_gemm(c)) on `args` (which it supports). Rank-2 operands are one batch.
codegen::LaunchPlan simt_gemm_plan(const SimtGemmConfig& c, const GemmArguments& args, codegen::Module module);

// The catalog's metadata of a configuration.
KernelMetadata simt_gemm_metadata(const SimtGemmConfig& c);

// The catalog class "simt_gemm": dtypes x tiles x majors (each of A, B, out row or col, and one
// all-dynamic-strides entry per dtype and tile).
class SimtGemmClass : public KernelClass {
 public:
  std::string name() const override { return "simt_gemm"; }
  std::string description() const override;
  std::vector<KernelPtr> generate_kernels(const MetadataFilter& filter = {}, std::optional<Epilogue> epilogue = {},
                                          std::optional<int> cc = {}) const override;
  // --dtype, --a-major k|m|any, --b-major k|n|any, --out-major n|m|any, --tile-m, --tile-n,
  // --tile-k, --thread-m, --thread-n.
  std::vector<OptionSpec> options() const override;
  KernelPtr configure(const Options& options) const override;
  // Every configuration the class offers, before filtering.
  static std::vector<SimtGemmConfig> configurations();
};

// A configuration from a complete set of the class's options, and back.
SimtGemmConfig simt_gemm_config(const Options& o);
Options simt_gemm_options(const SimtGemmConfig& c);

}  // namespace tessel::kernels
