// gemm_arguments.hpp: the arguments of one GEMM launch: out = alpha * (A @ B) + beta * out over a
// batch, with operands as tensor views (any strides; the kernel's metadata says which it needs).
#pragma once

#include "tessel/codegen/types.hpp"
#include "tessel/kernels/tensor_view.hpp"

namespace tessel::kernels {

// A is (L, M, K), B is (L, K, N) and out is (L, M, N); a kernel may also take rank 2 (M, K) x
// (K, N) -> (M, N) as one batch (its supports() says). A and B share one element type; out may
// differ (f16 inputs with an f32 output). Products are summed in `accumulator_type`. With
// beta == 0 the output is only written, never read (it may hold NaNs).
struct GemmArguments {
  TensorView A, B, out;
  codegen::Type accumulator_type = codegen::Type::F32;
  double alpha = 1.0, beta = 0.0;
};

// The accumulator tessel picks for inputs of type t: f32 for f16/bf16/f32, f64 for f64, s32 for
// the integers.
codegen::Type default_accumulator(codegen::Type t);

// Arguments with the default accumulator: out = alpha * A @ B + beta * out.
GemmArguments make_gemm_arguments(TensorView A, TensorView B, TensorView out, double alpha = 1.0, double beta = 0.0);

}  // namespace tessel::kernels
