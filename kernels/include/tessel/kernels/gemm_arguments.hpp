// gemm_arguments.hpp: the arguments of one GEMM launch, the CUTLASS form of the epilogue:
// out = alpha * (A @ B) + beta * C over a batch, with operands as tensor views (any strides; the
// kernel's metadata says which it needs). C is out itself unless the caller gives another tensor.
#pragma once

#include <optional>

#include "tessel/codegen/types.hpp"
#include "tessel/kernels/tensor_view.hpp"

namespace tessel::kernels {

// A is (L, M, K), B is (L, K, N), out (D) is (L, M, N); a kernel may also take rank 2 (M, K) x
// (K, N) -> (M, N) as one batch (its supports() says). A and B share one element type; out may
// differ (f16 inputs with an f32 output). Products are summed in `accumulator_type`.
//
// C: the tensor beta scales. Empty (the default, and what make_gemm_arguments gives): C is out,
// read and then overwritten in place. Otherwise C has out's shape and element type and any
// strides of its own (row- or column-major whatever out's major, a batch stride of 0 to add the
// same C to every batch); it may be exactly out's view (in place again), but may not otherwise
// overlap out. With beta == 0, C is never read (it, or out, may hold NaNs).
//
// Broadcast: A, B or C may have a batch stride of 0 (one matrix for every batch); out may not
// (its batches would alias). Kernels say in supports() which of these they take.
struct GemmArguments {
  TensorView A, B, out;
  std::optional<TensorView> C;
  codegen::Type accumulator_type = codegen::Type::F32;
  double alpha = 1.0, beta = 0.0;
  // Split-K: the K range of every output tile in `split_k` parts, each a unit of work of its own
  // whose f32 partial tile goes to `workspace`, summed in the order 0, 1, ... by the unit that
  // arrives last (the same bits every run). 1: the whole K per tile. Kernels that cannot split
  // refuse other values (supports() says); the split-K Hopper kernels take 1..32, at most the
  // k-tiles (docs/gemm.md, "Schedules").
  int split_k = 1;
  // Stream-K: the CTAs that share the last tiles' k-tiles (the persistent grid; tessel::gemm gives
  // the device's SM count). 0: none, every tile runs whole. Only the stream-K kernels take a value
  // other than 0 (docs/gemm.md, "Schedules").
  int stream_k_workers = 0;
  // Device scratch memory of at least the kernel's workspace_size(args) bytes (0: none);
  // Kernel::run(args, ..., workspace) fills it in, any contents will do.
  uint64_t workspace = 0;

  // The tensor beta scales: *C, or out when C is empty.
  const TensorView& c() const { return C ? *C : out; }
  // Whether C is a tensor of its own (C given and not exactly out's view).
  bool distinct_c() const;
};

// The accumulator tessel picks for inputs of type t: f32 for f16/bf16/f32, f64 for f64, s32 for
// the integers.
codegen::Type default_accumulator(codegen::Type t);

// Arguments with the default accumulator: out = alpha * A @ B + beta * out.
GemmArguments make_gemm_arguments(TensorView A, TensorView B, TensorView out, double alpha = 1.0, double beta = 0.0);
// The same with a C of its own: out = alpha * A @ B + beta * C.
GemmArguments make_gemm_arguments(TensorView A, TensorView B, TensorView C, TensorView out, double alpha,
                                  double beta);

}  // namespace tessel::kernels
