// cublas_peer.cpp: cublasLt opened with dlopen, the mapping of tessel's GEMM onto cuBLAS's
// column-major convention, and one prepared problem (descriptors + heuristic algorithm).
// The ABI types below are declared here (no CUDA header on the build machines); their values
// follow NVIDIA's cublasLt.h, cublas_api.h and library_types.h.
#include "cublas_peer.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/runtime/memory.hpp"

namespace tessel::bench {

namespace {

using codegen::Type;

// --- The cublasLt ABI the peer uses -----------------------------------------------------------
using cublasStatus_t = int;
inline constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
using cublasLtHandle_t = struct cublasLtContext*;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque*;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque*;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque*;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == 96, "cublasLtMatmulHeuristicResult_t is 96 bytes");

// cublasLtMatmulDescAttributes_t
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
// cublasLtMatrixLayoutAttribute_t
inline constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;           // int32_t
inline constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;  // int64_t, elements
// cublasLtMatmulPreferenceAttributes_t
inline constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;  // uint64_t

inline constexpr size_t kWorkspaceBytes = size_t{32} << 20;

// Every entry point: name, and its type. Enums pass as int (the C ABI of an enum of int values).
#define TESSEL_LT_FUNCTIONS(X)                                                                                       \
  X(cublasLtCreate, cublasStatus_t (*)(cublasLtHandle_t*))                                                           \
  X(cublasLtDestroy, cublasStatus_t (*)(cublasLtHandle_t))                                                           \
  X(cublasLtGetVersion, size_t (*)())                                                                                \
  X(cublasLtMatmulDescCreate, cublasStatus_t (*)(cublasLtMatmulDesc_t*, int, int))                                   \
  X(cublasLtMatmulDescDestroy, cublasStatus_t (*)(cublasLtMatmulDesc_t))                                             \
  X(cublasLtMatmulDescSetAttribute, cublasStatus_t (*)(cublasLtMatmulDesc_t, int, const void*, size_t))              \
  X(cublasLtMatrixLayoutCreate, cublasStatus_t (*)(cublasLtMatrixLayout_t*, int, uint64_t, uint64_t, int64_t))       \
  X(cublasLtMatrixLayoutDestroy, cublasStatus_t (*)(cublasLtMatrixLayout_t))                                         \
  X(cublasLtMatrixLayoutSetAttribute, cublasStatus_t (*)(cublasLtMatrixLayout_t, int, const void*, size_t))          \
  X(cublasLtMatmulPreferenceCreate, cublasStatus_t (*)(cublasLtMatmulPreference_t*))                                 \
  X(cublasLtMatmulPreferenceDestroy, cublasStatus_t (*)(cublasLtMatmulPreference_t))                                 \
  X(cublasLtMatmulPreferenceSetAttribute, cublasStatus_t (*)(cublasLtMatmulPreference_t, int, const void*, size_t))  \
  X(cublasLtMatmulAlgoGetHeuristic,                                                                                  \
    cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,       \
                       cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,              \
                       cublasLtMatmulHeuristicResult_t*, int*))                                                      \
  X(cublasLtMatmul,                                                                                                  \
    cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,     \
                       const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t, void*, \
                       cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t, void*))

template <class T>
using Id = T;  // so that a function pointer type can precede a member's name

struct LtApi {
#define TESSEL_LT_MEMBER(name, type) Id<type> name = nullptr;
  TESSEL_LT_FUNCTIONS(TESSEL_LT_MEMBER)
#undef TESSEL_LT_MEMBER
  const char* (*cublasLtGetStatusName)(cublasStatus_t) = nullptr;  // optional (cuBLAS 11.4+)
  void* library = nullptr;
  std::string path;
  size_t version = 0;
};

// cublasStatus_t names, for libraries without cublasLtGetStatusName.
std::string status_name(const LtApi* api, cublasStatus_t s) {
  if (api && api->cublasLtGetStatusName) {
    if (const char* n = api->cublasLtGetStatusName(s)) return n;
  }
  switch (s) {
    case 0:
      return "CUBLAS_STATUS_SUCCESS";
    case 1:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16:
      return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
      return "cublasStatus_t " + std::to_string(s);
  }
}

std::string version_string(size_t v) {
  // cublasLtGetVersion: major * 10000 + minor * 100 + patch (120805 is 12.8.5).
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// Opens `path` and resolves every entry point; on failure closes it and says why.
bool open_library(const std::string& path, LtApi& api, std::string& why) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    why = e ? e : "dlopen failed";
    return false;
  }
  LtApi a;
#define TESSEL_LT_RESOLVE(name, type)                                  \
  a.name = reinterpret_cast<Id<type>>(dlsym(h, #name));                \
  if (!a.name) {                                                       \
    why = path + " has no symbol " #name " (not a cublasLt library?)"; \
    dlclose(h);                                                        \
    return false;                                                      \
  }
  TESSEL_LT_FUNCTIONS(TESSEL_LT_RESOLVE)
#undef TESSEL_LT_RESOLVE
  a.cublasLtGetStatusName = reinterpret_cast<const char* (*)(cublasStatus_t)>(dlsym(h, "cublasLtGetStatusName"));
  a.library = h;
  a.path = path;
  a.version = a.cublasLtGetVersion();
  api = a;
  return true;
}

std::string not_found(const std::vector<std::string>& tried, const std::vector<std::string>& whys) {
  std::string s = "cuBLAS not found: no usable cublasLt library among";
  for (size_t i = 0; i < tried.size(); ++i) s += (i ? "; " : " ") + tried[i] + " (" + whys[i] + ")";
  return s + ". Install the CUDA toolkit's cuBLAS, or set TESSEL_CUBLASLT to libcublasLt.so.* or its folder";
}

// The process-wide library (never closed: cuBLAS keeps state for the life of the process).
const LtApi& lt_api() {
  static std::once_flag once;
  static LtApi api;
  static std::string failure;
  std::call_once(once, [] {
    const std::vector<std::string> tried = cublaslt_candidates();
    std::vector<std::string> whys;
    for (const std::string& path : tried) {
      std::string why;
      if (open_library(path, api, why)) return;
      whys.push_back(why);
    }
    failure = not_found(tried, whys);
  });
  if (!api.library) fail(failure);
  return api;
}

// The handle and the workspace, in the context current at first use (device 0's primary context).
// Never destroyed: the context may be gone by the time static objects are.
struct Shared {
  cublasLtHandle_t handle = nullptr;
  rt::DeviceBuffer* workspace = nullptr;
};

const Shared& shared_state() {
  static std::mutex m;
  static Shared* s = nullptr;
  std::lock_guard<std::mutex> lock(m);
  if (!s) {
    const LtApi& api = lt_api();
    auto* fresh = new Shared;
    if (cublasStatus_t r = api.cublasLtCreate(&fresh->handle); r != CUBLAS_STATUS_SUCCESS) {
      delete fresh;
      fail("cublasLtCreate failed: " + status_name(&api, r) + " (" + api.path + ")");
    }
    fresh->workspace = new rt::DeviceBuffer(kWorkspaceBytes);
    s = fresh;
  }
  return *s;
}

bool is_directory(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int lt_type(Type t) {
  switch (t) {
    case Type::F32:
      return lt::CUDA_R_32F;
    case Type::F16:
      return lt::CUDA_R_16F;
    case Type::BF16:
      return lt::CUDA_R_16BF;
    case Type::E4M3:
      return lt::CUDA_R_8F_E4M3;
    case Type::E5M2:
      return lt::CUDA_R_8F_E5M2;
    default:
      return -1;
  }
}

const char* lt_type_name(int t) {
  switch (t) {
    case lt::CUDA_R_32F:
      return "f32";
    case lt::CUDA_R_16F:
      return "f16";
    case lt::CUDA_R_16BF:
      return "bf16";
    case lt::CUDA_R_8F_E4M3:
      return "e4m3";
    case lt::CUDA_R_8F_E5M2:
      return "e5m2";
    default:
      return "?";
  }
}

// A matrix operand of ours: rows x cols with strides, and its batch stride.
struct Mat {
  std::string name;
  int64_t rows = 0, cols = 0, srow = 0, scol = 0, sbatch = 0;
  Mat transposed() const { return {name + "^T", cols, rows, scol, srow, sbatch}; }
};

// The last two modes of a rank-2 or rank-3 view (rows, cols), and the batch stride.
Mat mat_of(const std::string& name, const kernels::TensorView& v) {
  const int r = v.rank();
  Mat m;
  m.name = name;
  m.rows = v.shape[r - 2];
  m.cols = v.shape[r - 1];
  m.srow = v.stride[r - 2];
  m.scol = v.stride[r - 1];
  m.sbatch = r == 3 ? v.stride[0] : 0;
  return m;
}

// X as cublasLt's op(stored): N when X's rows have unit stride (X is column-major with ld = its
// column stride), T when its columns do (X^T is column-major, ld = X's row stride). `prefer_t`
// picks T where both hold (an extent-1 mode makes its stride meaningless).
bool as_operand(const Mat& x, int dtype, bool prefer_t, LtMatrix& out, std::string& why) {
  // A mode of extent 1 can take any stride: treat its stride as whatever the other reading needs.
  const bool rows_unit = x.srow == 1 || x.rows == 1;
  const bool cols_unit = x.scol == 1 || x.cols == 1;
  const bool use_t = cols_unit && (prefer_t || !rows_unit);
  if (!use_t && !rows_unit) {
    why = x.name + " has strides (" + std::to_string(x.srow) + "," + std::to_string(x.scol) +
          "); cuBLAS needs a unit stride in one of its two matrix modes";
    return false;
  }
  out.dtype = dtype;
  out.batch_stride = x.sbatch;
  if (use_t) {  // stored: cols x rows, column-major, ld = the row stride
    out.op = lt::CUBLAS_OP_T;
    out.rows = static_cast<uint64_t>(x.cols);
    out.cols = static_cast<uint64_t>(x.rows);
    out.ld = x.rows == 1 ? std::max<int64_t>(x.cols, 1) : x.srow;
  } else {  // stored: rows x cols, column-major, ld = the column stride
    out.op = lt::CUBLAS_OP_N;
    out.rows = static_cast<uint64_t>(x.rows);
    out.cols = static_cast<uint64_t>(x.cols);
    out.ld = x.cols == 1 ? std::max<int64_t>(x.rows, 1) : x.scol;
  }
  if (out.ld < static_cast<int64_t>(out.rows)) {
    why = x.name + " has a leading stride " + std::to_string(out.ld) + " smaller than its " + std::to_string(out.rows) +
          " contiguous elements (rows overlap); cuBLAS needs ld >= rows";
    return false;
  }
  return true;
}

// Whether cuBLAS sees out transposed (D = out^T): out has unit stride in N (of extent > 1), or no
// unit stride in M. map_gemm_to_cublaslt and plan_cublaslt_peer both take D's memory order from here.
bool out_swapped(const Mat& o) {
  const bool out_rows_unit = o.srow == 1 || o.rows == 1;
  return (o.scol == 1 && o.cols > 1) || !out_rows_unit;
}

// Whether mode `i` of v's last two (0: rows, 1: cols) has unit stride, or extent 1 (any stride).
bool unit_in(const kernels::TensorView& v, int i) {
  const int r = v.rank();
  return v.shape[r - 2 + i] == 1 || v.stride[r - 2 + i] == 1;
}

// A compact copy of `v` with unit stride in its last mode (`unit_last`) or in the one before, each
// row padded to 16 bytes; a broadcast batch (stride 0) stays one matrix when `keep_broadcast`.
// `elements`: the copy's allocation.
kernels::TensorView copy_view(const kernels::TensorView& v, bool unit_last, bool keep_broadcast, int64_t& elements) {
  const int r = v.rank();
  const int64_t rows = v.shape[r - 2], cols = v.shape[r - 1];
  const int64_t inner = unit_last ? cols : rows, outer = unit_last ? rows : cols;
  const int64_t q = std::max(1, 16 / codegen::bytes(v.dtype));
  const int64_t ld = (inner + q - 1) / q * q;
  kernels::TensorView t;
  t.data = 0;
  t.dtype = v.dtype;
  t.shape = v.shape;
  t.stride.assign(static_cast<size_t>(r), 0);
  t.stride[r - 1] = unit_last ? 1 : ld;
  t.stride[r - 2] = unit_last ? ld : 1;
  const bool broadcast = r == 3 && v.shape[0] > 1 && v.stride[0] == 0 && keep_broadcast;
  if (r == 3) t.stride[0] = broadcast ? 0 : outer * ld;
  elements = (r == 3 && !broadcast ? v.shape[0] : 1) * outer * ld;
  return t;
}

}  // namespace

std::vector<std::string> cublaslt_candidates(const char* env) {
  static const char* const kNames[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
  static const char* const kDirs[] = {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"};
  std::vector<std::string> c;
  if (env && *env) {
    std::string e = env;
    if (is_directory(e)) {
      while (e.size() > 1 && e.back() == '/') e.pop_back();
      for (const char* n : kNames) c.push_back(e + "/" + n);
    } else {
      c.push_back(e);
    }
  }
  for (const char* n : kNames) c.emplace_back(n);
  for (const char* d : kDirs) {
    for (const char* n : kNames) c.push_back(std::string(d) + "/" + n);
  }
  return c;
}

std::vector<std::string> cublaslt_candidates() { return cublaslt_candidates(std::getenv("TESSEL_CUBLASLT")); }

CublasLtProbe probe_cublaslt(const std::vector<std::string>& candidates) {
  CublasLtProbe p;
  std::vector<std::string> whys;
  for (const std::string& path : candidates) {
    LtApi api;
    std::string why;
    if (open_library(path, api, why)) {
      p.available = true;
      p.library = path;
      p.version = api.version;
      // Not closed when it is the process-wide library too (dlopen counts references).
      dlclose(api.library);
      return p;
    }
    whys.push_back(why);
  }
  p.reason = not_found(candidates, whys);
  return p;
}

std::string LtMatrix::to_string() const {
  std::ostringstream s;
  s << lt_type_name(dtype) << " " << rows << "x" << cols << " ld " << ld << (op == lt::CUBLAS_OP_T ? " T" : " N");
  if (batch_stride) s << " batch stride " << batch_stride;
  return s.str();
}

std::string LtMapping::to_string() const {
  if (!ok) return "not mapped: " + reason;
  std::ostringstream s;
  // A matrix of a batch with stride 0 is one matrix for every batch.
  auto matrix = [&](const LtMatrix& x) {
    return x.to_string() + (batch > 1 && x.batch_stride == 0 ? " batch stride 0 (broadcast)" : "");
  };
  s << (swapped ? "D^T = B^T A^T (out has unit stride in N)" : "D = A B (out has unit stride in M)") << ", m=" << m
    << " n=" << n << " k=" << k;
  if (batch > 1) s << " batch " << batch;
  s << "; A: " << matrix(a) << "; B: " << matrix(b) << "; D: " << matrix(d);
  if (distinct_c) s << "; C: " << matrix(c);
  s << (compute == lt::CUBLAS_COMPUTE_32F_FAST_TF32 ? "; compute 32F_FAST_TF32" : "; compute 32F");
  return s.str();
}

LtMapping map_gemm_to_cublaslt(const kernels::GemmArguments& args) {
  LtMapping r;
  auto refuse = [&](std::string why) {
    r.ok = false;
    r.reason = std::move(why);
    return r;
  };
  const kernels::TensorView &A = args.A, &B = args.B, &O = args.out;
  for (const kernels::TensorView* v : {&A, &B, &O}) {
    if (v->rank() != 2 && v->rank() != 3) return refuse("the peer maps rank-2 and rank-3 operands only");
    if (v->rank() != A.rank()) return refuse("A, B and out must have the same rank");
  }
  const int rk = A.rank();
  const int64_t L = rk == 3 ? A.shape[0] : 1;
  const int64_t M = A.shape[rk - 2], K = A.shape[rk - 1], N = B.shape[rk - 1];
  if (B.shape[rk - 2] != K || O.shape[rk - 2] != M || O.shape[rk - 1] != N ||
      (rk == 3 && (B.shape[0] != L || O.shape[0] != L)))
    return refuse("shapes do not agree: A (L,M,K), B (L,K,N), out (L,M,N)");
  if (L > INT32_MAX) return refuse("cuBLAS's batch count is a 32-bit integer");
  if (args.accumulator_type != Type::F32)
    return refuse(std::string("the peer accumulates in f32 only, not ") + codegen::ptx_name(args.accumulator_type));
  if (A.dtype != B.dtype) return refuse("A and B must have the same type");
  const int in = lt_type(A.dtype), out = lt_type(O.dtype);
  if (in < 0)
    return refuse(std::string("the peer maps bf16, f16, f32, e4m3 and e5m2 inputs, not ") + codegen::ptx_name(A.dtype));
  if (out < 0 || out == lt::CUDA_R_8F_E4M3 || out == lt::CUDA_R_8F_E5M2)
    return refuse(std::string("the peer maps bf16, f16 and f32 outputs, not ") + codegen::ptx_name(O.dtype));
  r.compute = A.dtype == Type::F32 ? lt::CUBLAS_COMPUTE_32F_FAST_TF32 : lt::CUBLAS_COMPUTE_32F;
  r.scale = lt::CUDA_R_32F;
  r.batch = static_cast<int>(L);

  Mat a = mat_of("A", A), b = mat_of("B", B), o = mat_of("out", O);
  // Row-major out (unit stride in N) is the usual case: D = out^T = B^T A^T.
  const bool out_cols_unit = o.scol == 1 || o.cols == 1;
  const bool out_rows_unit = o.srow == 1 || o.rows == 1;
  if (!out_cols_unit && !out_rows_unit)
    return refuse("out has strides (" + std::to_string(o.srow) + "," + std::to_string(o.scol) +
                  "); cuBLAS needs a unit stride in M or N");
  r.swapped = out_swapped(o);
  Mat first = a, second = b, d = o;
  if (r.swapped) {
    first = b.transposed();
    second = a.transposed();
    d = o.transposed();
  }
  std::optional<Mat> c;  // a C of its own, as cuBLAS's C
  if (args.distinct_c()) {
    const kernels::TensorView& C = *args.C;
    if (C.rank() != O.rank() || C.shape != O.shape) return refuse("C must have out's shape");
    if (C.dtype != O.dtype)
      return refuse("C's type must be out's (cublasLt's C and D have one type when C != D)");
    c = r.swapped ? mat_of("C", C).transposed() : mat_of("C", C);
  }
  r.m = static_cast<uint64_t>(d.rows);
  r.n = static_cast<uint64_t>(d.cols);
  r.k = static_cast<uint64_t>(K);
  std::string why;
  // cuBLAS's A preferably T and its B N: the "TN" form (fp8 on Hopper runs only in it).
  if (!as_operand(first, in, /*prefer_t=*/true, r.a, why)) return refuse(why);
  if (!as_operand(second, in, /*prefer_t=*/false, r.b, why)) return refuse(why);
  if (!as_operand(d, out, /*prefer_t=*/false, r.d, why)) return refuse(why);
  if (r.d.op != lt::CUBLAS_OP_N) return refuse("internal error: D must be read as N");
  if (c) {
    if (!as_operand(*c, out, /*prefer_t=*/false, r.c, why)) return refuse(why);
    if (r.c.op != lt::CUBLAS_OP_N)
      return refuse(std::string("C has unit stride in ") + (r.swapped ? "M" : "N") + " where out has it in " +
                    (r.swapped ? "N" : "M") +
                    ": cublasLt takes a C != D only in D's memory order (CUBLASLT_MATMUL_DESC_TRANSC takes "
                    "CUBLAS_OP_N only)");
    r.distinct_c = true;
  }
  r.ok = true;
  return r;
}

bool cublaslt_fp8_needs_tn(int cc) { return cc == 89 || cc / 10 == 9 || cc / 10 == 12; }

LtPeerPlan plan_cublaslt_peer(const kernels::GemmArguments& args, int cc, bool zero_batch_stride) {
  LtPeerPlan p;
  p.args = args;
  for (const kernels::TensorView* v : {&args.A, &args.B, &args.out})
    if (v->rank() != 2 && v->rank() != 3) return p;  // map_gemm_to_cublaslt says why
  const bool batched = args.out.rank() == 3 && args.out.shape[0] > 1;
  const bool tn = codegen::is_fp8(args.A.dtype) && cublaslt_fp8_needs_tn(cc);
  const std::string fp8_rule = std::string("cuBLAS runs fp8 only in the TN form (A and B K-major) on sm_") +
                               std::to_string(cc) + ", and the peer runs on a K-major copy";
  // One operand: `transpose` into the major `unit_last` says, or only its broadcast written out.
  auto consider = [&](char name, const kernels::TensorView& v, kernels::TensorView& slot, bool transpose,
                      bool unit_last, std::string why) {
    const bool broadcast = batched && v.rank() == 3 && v.stride[0] == 0;
    const bool materialise = broadcast && !zero_batch_stride;
    if (!transpose && !materialise) return;
    if (!transpose) unit_last = v.stride[v.rank() - 1] == 1;  // written out in its own major
    if (materialise)
      why += std::string(why.empty() ? "" : "; ") + name + " has a batch stride of 0, written out for each of the " +
             std::to_string(v.shape[0]) + " batches";
    LtCopy c;
    c.operand = name;
    c.from = v;
    c.to = copy_view(v, unit_last, !materialise, c.elements);
    c.transposed = transpose;
    c.why = why;
    slot = c.to;
    p.copies.push_back(std::move(c));
  };
  // A (M, K) is K-major with unit stride in its last mode; B (K, N) in the one before.
  const bool a_copy = tn && !unit_in(args.A, 1), b_copy = tn && !unit_in(args.B, 0);
  consider('A', args.A, p.args.A, a_copy, true, a_copy ? "A is M-major; " + fp8_rule : "");
  consider('B', args.B, p.args.B, b_copy, false, b_copy ? "B is N-major; " + fp8_rule : "");
  if (args.distinct_c() && args.C->rank() == args.out.rank()) {
    // C in D's memory order: unit stride in N where cuBLAS sees out transposed, else in M.
    const bool swapped = out_swapped(mat_of("out", args.out));
    const bool c_copy = !unit_in(*args.C, swapped ? 1 : 0);
    consider('C', *args.C, *p.args.C, c_copy, swapped,
             c_copy ? std::string("C is ") + (swapped ? "M" : "N") + "-major where out is " + (swapped ? "N" : "M") +
                          "-major; cublasLt takes a C != D only in D's memory order, and the peer runs on a copy "
                          "in out's major"
                    : "");
  }
  return p;
}

// --- CublasLtGemm ----------------------------------------------------------------------------

struct CublasLtGemm::Descriptors {
  const LtApi* api = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;  // c: a distinct C's only
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic{};
  cublasLtMatrixLayout_t c_or_d() const { return c ? c : d; }
  ~Descriptors() {
    if (!api) return;
    if (pref) api->cublasLtMatmulPreferenceDestroy(pref);
    if (d) api->cublasLtMatrixLayoutDestroy(d);
    if (c) api->cublasLtMatrixLayoutDestroy(c);
    if (b) api->cublasLtMatrixLayoutDestroy(b);
    if (a) api->cublasLtMatrixLayoutDestroy(a);
    if (op) api->cublasLtMatmulDescDestroy(op);
  }
};

CublasLtGemm::CublasLtGemm(const kernels::GemmArguments& args)
    : d_(std::make_unique<Descriptors>()), mapping_(map_gemm_to_cublaslt(args)) {
  alpha_ = static_cast<float>(args.alpha);
  beta_ = static_cast<float>(args.beta);
  const LtApi& api = lt_api();  // throws "cuBLAS not found: ..."
  const Shared& shared = shared_state();
  d_->api = &api;
  if (!mapping_.ok) {
    reason_ = "cuBLAS does not run this combination: " + mapping_.reason;
    return;
  }
  auto check = [&](cublasStatus_t s, const char* call) {
    if (s != CUBLAS_STATUS_SUCCESS) fail(std::string(call) + " failed: " + status_name(&api, s));
  };
  check(api.cublasLtMatmulDescCreate(&d_->op, mapping_.compute, mapping_.scale), "cublasLtMatmulDescCreate");
  const int32_t ta = mapping_.a.op, tb = mapping_.b.op;
  check(api.cublasLtMatmulDescSetAttribute(d_->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  check(api.cublasLtMatmulDescSetAttribute(d_->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  auto layout = [&](const LtMatrix& m, cublasLtMatrixLayout_t& l) {
    check(api.cublasLtMatrixLayoutCreate(&l, m.dtype, m.rows, m.cols, m.ld), "cublasLtMatrixLayoutCreate");
    if (mapping_.batch > 1) {
      const int32_t count = mapping_.batch;
      const int64_t stride = m.batch_stride;
      check(api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
            "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
      check(
          api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
          "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
    }
  };
  layout(mapping_.a, d_->a);
  layout(mapping_.b, d_->b);
  layout(mapping_.d, d_->d);
  if (mapping_.distinct_c) layout(mapping_.c, d_->c);  // else C is read through D's layout (C = D in place)
  check(api.cublasLtMatmulPreferenceCreate(&d_->pref), "cublasLtMatmulPreferenceCreate");
  const uint64_t ws = kWorkspaceBytes;
  check(api.cublasLtMatmulPreferenceSetAttribute(d_->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  int found = 0;
  const cublasStatus_t s = api.cublasLtMatmulAlgoGetHeuristic(shared.handle, d_->op, d_->a, d_->b, d_->c_or_d(),
                                                              d_->d, d_->pref, 1, &d_->heuristic, &found);
  if (s != CUBLAS_STATUS_SUCCESS || found < 1) {
    reason_ = "cuBLAS does not run this combination: cublasLtMatmulAlgoGetHeuristic " +
              (s != CUBLAS_STATUS_SUCCESS ? "returned " + status_name(&api, s) : std::string("found no algorithm")) +
              " for " + mapping_.to_string();
    return;
  }
  supported_ = true;
}

CublasLtGemm::~CublasLtGemm() = default;

void CublasLtGemm::run(uint64_t a, uint64_t b, uint64_t c, uint64_t out, rt::StreamRef stream) const {
  if (!supported_) fail(reason_);
  if (!mapping_.distinct_c && c != out)
    fail("CublasLtGemm::run: C is out for these arguments (no distinct C), but C's address differs from out's");
  const LtApi& api = *d_->api;
  const Shared& shared = shared_state();
  // Swapped: cuBLAS's A is our B and its B our A.
  const uint64_t first = mapping_.swapped ? b : a, second = mapping_.swapped ? a : b;
  const cublasStatus_t s = api.cublasLtMatmul(
      shared.handle, d_->op, &alpha_, reinterpret_cast<const void*>(first), d_->a,
      reinterpret_cast<const void*>(second), d_->b, &beta_, reinterpret_cast<const void*>(c), d_->c_or_d(),
      reinterpret_cast<void*>(out), d_->d, &d_->heuristic.algo, reinterpret_cast<void*>(shared.workspace->ptr()),
      kWorkspaceBytes, stream.native());
  if (s != CUBLAS_STATUS_SUCCESS)
    fail("cublasLtMatmul failed: " + status_name(&api, s) + " for " + mapping_.to_string());
}

void CublasLtGemm::run(uint64_t a, uint64_t b, uint64_t out, rt::StreamRef stream) const {
  if (mapping_.distinct_c) fail("CublasLtGemm::run: these arguments have a distinct C; pass its address");
  run(a, b, out, out, stream);
}

std::string cublaslt_description() {
  const LtApi& api = lt_api();
  return api.path + " (cublasLt " + version_string(api.version) + ")";
}

}  // namespace tessel::bench
