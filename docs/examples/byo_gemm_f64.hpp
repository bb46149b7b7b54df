// byo_gemm_f64.hpp: "bring your own kernel": an FP64 GEMM written outside tessel, with tessel's
// builder and layout algebra, and registered in tessel's catalog from this code alone. One thread
// computes one element of out = alpha * A @ B + beta * out for rank-3 (L, M, K) x (L, K, N)
// operands. Walkthrough: docs/catalog.md.
#pragma once

#include "tessel/kernels/catalog.hpp"

namespace byo {

// One configuration: the block's tile of out (tile_m x tile_n threads; K advances one element at a
// time, a tile K of 1) and which stride of each operand is 1.
struct GemmF64Config {
  int tile_m = 32, tile_n = 32;
  tessel::kernels::Major a = tessel::kernels::Major::Row, b = tessel::kernels::Major::Row,
                         out = tessel::kernels::Major::Row;
  std::string name() const;  // byo_gemm_f64_32x32x1_rrr
};

// The generator: configuration in, IR out.
tessel::codegen::Module byo_gemm_f64(const GemmF64Config& c);

// The kernel class: tiles (32,32,1) and (16,16,1) x row/column-major A, B and out.
class GemmF64Class : public tessel::kernels::KernelClass {
 public:
  std::string name() const override { return "byo_gemm_f64"; }
  std::string description() const override { return "user example: FP64 GEMM, one thread per output"; }
  std::vector<tessel::kernels::KernelPtr> generate_kernels(const tessel::kernels::MetadataFilter& filter,
                                                           std::optional<tessel::kernels::Epilogue> epilogue,
                                                           std::optional<int> cc) const override;
};

}  // namespace byo
