// cublas_peer.hpp: cuBLAS as the GEMM benchmark's peer, through cublasLt opened at run time
// (dlopen: nothing links cuBLAS, and the build needs no CUDA header). One path covers bf16, f16,
// tf32 (f32 inputs) and fp8 (e4m3/e5m2) inputs with f32 accumulation.
//
// tessel's GEMM convention (kernels/gemm_arguments.hpp) is row-major-friendly: out (L, M, N) =
// alpha * A (L, M, K) @ B (L, K, N) + beta * out, any strides. cuBLAS is column-major: D (m x n)
// = op(A) (m x k) op(B) (k x n). map_gemm_to_cublaslt() chooses, from the strides:
//   - out with unit stride in N (row-major): cuBLAS computes D = out^T (N x M, column-major with
//     ld = out's M stride) as B^T A^T, so cuBLAS's A is our B and cuBLAS's B is our A;
//   - out with unit stride in M (column-major): D = out directly, cuBLAS's A is our A.
// Each operand is then N (its rows have unit stride: column-major as cuBLAS reads it) or T (its
// columns have unit stride). Both cases give cuBLAS's "TN" form exactly when our A and B are
// K-major, the only form cuBLAS runs fp8 in on Hopper.
//
// What cublasLt does not take as tessel's arguments lie, a cuBLAS user copies first; so does the
// peer (plan_cublaslt_peer), the copies made once before timing and not counted in its time. The
// rules are those of cuBLAS's documentation (docs.nvidia.com/cuda/cublas, CUDA 13), section
// "cublasLtMatmul()", and of cublasLt.h:
//   - fp8: "A must be transposed and B non-transposed (The "TN" format) on Ada (compute capability
//     8.9), Hopper (compute capability 9.0), and Blackwell GeForce (compute capability 12.x)":
//     there an fp8 A or B that is not K-major is copied K-major;
//   - a C != D: "both matrices must have the same data type, number of rows, number of columns,
//     batch size, and memory order" (CUBLASLT_MATMUL_DESC_TRANSC takes CUBLAS_OP_N only), the
//     leading dimension free: a distinct C in out's major is passed as it lies, one in the other
//     major is copied into out's major;
//   - a batch stride of 0 (CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, "default: 0", no rule
//     against it) is passed as it lies; where cublasLt's heuristic still finds no algorithm, the
//     caller may ask for the broadcast operand written out for every batch instead.
//
// The library: $TESSEL_CUBLASLT first (a file, or a directory such as the lib/ folder of the
// nvidia-cublas wheel that torch installs), then libcublasLt.so.13, .so.12 and .so through the
// loader's search path, then the same names in /usr/local/cuda/lib64 and
// /usr/local/cuda/targets/x86_64-linux/lib. cuBLAS runs in the current context (make device 0's
// primary context current first, as tessel's runtime does) on the stream it is given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessel/kernels/gemm_arguments.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::bench {

// The libraries tried, in order, for the value `env` of TESSEL_CUBLASLT (null or empty: unset).
std::vector<std::string> cublaslt_candidates(const char* env);
// The same for the environment of this process.
std::vector<std::string> cublaslt_candidates();

// The outcome of opening a cublasLt library: usable (every entry point the peer calls was
// found), or why not. Needs no GPU: nothing is called but cublasLtGetVersion.
struct CublasLtProbe {
  bool available = false;
  std::string library;  // the candidate that was opened
  size_t version = 0;   // cublasLtGetVersion(): 120805 for 12.8.5
  std::string reason;   // empty when available, else "cuBLAS not found: ..." naming every candidate tried
};
// Tries `candidates` in order and closes the library again.
CublasLtProbe probe_cublaslt(const std::vector<std::string>& candidates);

// The cublasLt enum values the peer uses (cublasLt.h, library_types.h, cublas_api.h).
namespace lt {
// cudaDataType_t
inline constexpr int CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28, CUDA_R_8F_E5M2 = 29;
// cublasComputeType_t
inline constexpr int CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
// cublasOperation_t
inline constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
}  // namespace lt

// One matrix as cublasLt is told it: a column-major rows x cols matrix at stride ld, read as
// op(matrix).
struct LtMatrix {
  int dtype = lt::CUDA_R_32F;  // cudaDataType_t
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int op = lt::CUBLAS_OP_N;  // CUBLAS_OP_N or CUBLAS_OP_T (D and C: always N)
  int64_t batch_stride = 0;  // elements; used when batch > 1
  // "bf16 8192x4096 ld 8192 T"
  std::string to_string() const;
};

// tessel's GEMM as cublasLt's D = alpha * op(A) op(B) + beta * C, or why it cannot be.
struct LtMapping {
  bool ok = false;
  std::string reason;    // when !ok: names the operand and the rule
  bool swapped = false;  // D = out^T = B^T A^T: cuBLAS's A is our B, its B our A
  int compute = lt::CUBLAS_COMPUTE_32F;
  int scale = lt::CUDA_R_32F;  // alpha and beta are floats
  int batch = 1;
  uint64_t m = 0, n = 0, k = 0;  // cuBLAS's (N, M, K when swapped)
  LtMatrix a, b, d;              // cuBLAS's A, B and D
  bool distinct_c = false;       // C a tensor of its own (GemmArguments::distinct_c); else C is D
  LtMatrix c;                    // C's layout when distinct_c (D's order, its own ld and batch stride)
  // "D^T = B^T A^T (row-major out), A: ..., B: ..., D: ..., compute 32F"
  std::string to_string() const;
};
// Pure (no library, no GPU): what the peer would ask cublasLt for `args`. Refuses what the peer
// does not map (an accumulator other than f32, types other than bf16/f16/f32/e4m3/e5m2 inputs and
// bf16/f16/f32 outputs, operands without a unit stride in one of their last two modes, a distinct
// C in another memory order than D's); whether cuBLAS then runs it is for cublasLt's heuristic to
// say.
LtMapping map_gemm_to_cublaslt(const kernels::GemmArguments& args);

// One operand the peer runs on a copy of, and why (the rule of the file's comment).
struct LtCopy {
  char operand = 'A';             // 'A', 'B' or 'C'
  kernels::TensorView from, to;   // to: the copy's view, its data 0 until the caller places it
  int64_t elements = 0;           // to's allocation, in elements
  bool transposed = false;        // into the other major (else only a broadcast written out)
  std::string why;                // "A is M-major; cuBLAS runs fp8 only in the TN form ... on sm_90, ..."
};
// What the peer runs: `args` with the operands that cublasLt does not take as they lie replaced by
// copies (their views' data 0 until the caller places them), and the copies to make first.
struct LtPeerPlan {
  kernels::GemmArguments args;
  std::vector<LtCopy> copies;  // in the order A, B, C
};
// Pure: the copies a cuBLAS user makes for `args` on a device of compute capability `cc`. A copy is
// compact with rows padded to 16 bytes (cuBLAS's fp8 needs 16-byte leading dimensions); a
// broadcast operand stays broadcast (one matrix) unless `zero_batch_stride` is false, when every
// operand with a batch stride of 0 is written out for every batch. map_gemm_to_cublaslt takes the
// plan's args wherever it takes `args` but for a C in the other major.
LtPeerPlan plan_cublaslt_peer(const kernels::GemmArguments& args, int cc, bool zero_batch_stride = true);
// Whether cuBLAS runs fp8 only in the TN form on this compute capability (8.9, 9.x, 12.x).
bool cublaslt_fp8_needs_tn(int cc);

// One GEMM problem prepared for cublasLt: descriptors made and an algorithm chosen by
// cublasLtMatmulAlgoGetHeuristic (with a 32 MiB workspace), to be run on any buffers of the same
// shapes and strides.
class CublasLtGemm {
 public:
  // Opens cublasLt on first use (process-wide; throws tessel::Error "cuBLAS not found: ..." when
  // no candidate works) and creates its handle in the current context. Arguments cuBLAS does not
  // run do not throw: supported() is false and reason() says why ("cuBLAS does not run this
  // combination: ...").
  explicit CublasLtGemm(const kernels::GemmArguments& args);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  bool supported() const { return supported_; }
  const std::string& reason() const { return reason_; }
  const LtMapping& mapping() const { return mapping_; }

  // Queues out = alpha * A @ B + beta * C on `stream` for operands at these device addresses (laid
  // out as the constructor's arguments; c is out's address where C is out). Throws tessel::Error
  // naming cublasLt's status.
  void run(uint64_t a, uint64_t b, uint64_t c, uint64_t out, rt::StreamRef stream) const;
  // The same with C = out (in place); throws for arguments with a distinct C.
  void run(uint64_t a, uint64_t b, uint64_t out, rt::StreamRef stream) const;

 private:
  struct Descriptors;
  std::unique_ptr<Descriptors> d_;
  LtMapping mapping_;
  bool supported_ = false;
  std::string reason_;
  float alpha_ = 1, beta_ = 0;
};

// The library the process-wide peer opened and its version ("libcublasLt.so.13 (13.0.0)");
// throws "cuBLAS not found: ..." like CublasLtGemm.
std::string cublaslt_description();

}  // namespace tessel::bench
