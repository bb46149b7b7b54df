// gemm_check.hpp: random GEMM problems for the catalog's kernels (`tessel run`, the tests):
// operands laid out as a kernel's metadata asks (row/col major, or padded non-contiguous strides
// for "any"), ragged sizes, values exact in their element type, a double-precision host reference
// and a per-type tolerance. Device-independent: buffers are host bytes; callers upload them and
// pass device (or emulated) addresses.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tessel/kernels/catalog.hpp"
#include "tessel/testing/demo_run.hpp"

namespace tessel::kernels {

// A host buffer holding one operand, with the view's strides and the bytes around it.
struct HostOperand {
  TensorView view;    // data = 0 (the caller sets the device address)
  std::vector<uint8_t> bytes;  // the whole allocation, gaps between strided elements included
};

struct GemmProblem {
  HostOperand A, B, out;  // out holds the initial values (random, or NaN/poison when beta == 0)
  // A C of its own (C != out): its values (random, or NaN when beta == 0); out is then all NaN.
  // Empty: C is out.
  std::optional<HostOperand> C;
  double alpha = 1, beta = 0;
  codegen::Type accumulator = codegen::Type::F32;
  std::string describe() const;  // "L=2 M=37 N=70 K=19 alpha=.. beta=.. A f32 (..):(..)"
  // The arguments for device addresses a, b, o (and c, C's, when the problem has a C of its own).
  GemmArguments arguments(uint64_t a, uint64_t b, uint64_t o, uint64_t c = 0) const;
};

// What make_gemm_problem draws beyond the metadata's layouts.
struct GemmProblemOptions {
  bool rank2 = false;    // rank 2 operands (one batch); rank 3 otherwise
  int64_t max_k = 40;    // K in [1, max_k]
  int tiles = 2;         // M and N in (tile, tiles * tile + 7]
  int64_t max_l = 3;     // L in [1, max_l] (at least 2 where an operand broadcasts)
  // A C of its own in this major (row or column, whatever out's), with out's alignment; empty:
  // C is out.
  std::optional<Major> c_major;
  std::optional<bool> beta_zero;  // beta == 0 (true) or != 0 (false); either, half the time, if empty
  // Batch stride 0 (one matrix for every batch) for A, B and the distinct C.
  bool broadcast_a = false, broadcast_b = false, broadcast_c = false;
};

// A problem for a kernel of this metadata: L in [1, 3], M and N ragged around the tile
// (tile + 1 .. tiles * tile + 7), K in [1, max_k]; rank 3 unless `rank2`. Beta is 0 half the
// time. Non-unit strides are multiples of the metadata's alignment, with random padding.
GemmProblem make_gemm_problem(const KernelMetadata& md, std::mt19937_64& rng, bool rank2 = false,
                              int64_t max_k = 40, int tiles = 2);
GemmProblem make_gemm_problem(const KernelMetadata& md, std::mt19937_64& rng, const GemmProblemOptions& o);

// A (rows x cols) matrix layout (rank 3 with a batch of l when l > 0) with unit stride along the
// columns (row) or the rows, leading dimension ld (0: compact) and batch stride batch_stride (-1:
// compact, 0: broadcast), at address 0. Throws tessel::Error for a leading dimension shorter than
// the rows or columns it spans.
TensorView matrix_view(codegen::Type t, int64_t l, int64_t rows, int64_t cols, bool row, int64_t ld = 0,
                       int64_t batch_stride = -1);

// A problem on the given layouts (their `data` ignored; any strides, a batch stride of 0 too):
// values multiples of 1/4 in [-2, 2] (integers in [-8, 8] for s32), exact in every type, fp8
// included; out (or C, when given) random where beta != 0, else NaN bytes (never to be read).
GemmProblem make_gemm_problem(const TensorView& A, const TensorView& B, const TensorView& out,
                              const std::optional<TensorView>& C, double alpha, double beta, std::mt19937_64& rng);
// The same problem's shapes, scalars and accumulator without data (no bytes): for choosing a
// kernel (`tessel gemm --explain`) without building inputs that nothing reads.
GemmProblem gemm_problem_shapes(const TensorView& A, const TensorView& B, const TensorView& out,
                                const std::optional<TensorView>& C, double alpha, double beta);

// Arguments laid out as `md` asks, at made-up device addresses: for CPU tests (compile, plans).
GemmArguments fitting_arguments(const KernelMetadata& md, std::mt19937_64& rng);

// Element i of a buffer of type t, as a double; and the encoding of a double (rounded to nearest).
double load_element(const std::vector<uint8_t>& bytes, codegen::Type t, int64_t index);
void store_element(std::vector<uint8_t>& bytes, codegen::Type t, int64_t index, double v);

// Compares `result` (out's bytes after the run) with the double-precision reference: every
// element of the view within the type's tolerance, every byte outside it unchanged. Returns ""
// or what differed (the first few elements).
std::string check_gemm(const GemmProblem& p, const std::vector<uint8_t>& result);

}  // namespace tessel::kernels
