// cublas_peer_test.cpp: the cuBLAS peer of `tessel bench gemm` (tools/bench/cublas_peer.hpp): where
// cublasLt is looked for, how a missing one is reported, the mapping of tessel's row-major GEMM
// onto cuBLAS's column-major convention (CPU), and, on a GPU with cuBLAS, small problems of every
// layout against a host reference.
#include "cublas_peer.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "runtime/gpu.hpp"
#include "tessel/codegen/number_format.hpp"

using namespace tessel;
using namespace tessel::bench;
using codegen::Type;
using kernels::GemmArguments;
using kernels::TensorView;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A (L,M,K), B (L,K,N), out (L,M,N) with the given majors ('k'/'m' for A, 'k'/'n' for B, 'n'/'m'
// for out), compact, at made-up addresses (the mapping never reads them).
GemmArguments problem(Type in, Type out, int64_t L, int64_t M, int64_t N, int64_t K, char a_major, char b_major,
                      char o_major) {
  auto view = [](Type t, int64_t l, int64_t rows, int64_t cols, bool row_major) {
    TensorView v;
    v.data = 0x10000;
    v.dtype = t;
    v.shape = {l, rows, cols};
    v.stride = row_major ? std::vector<int64_t>{rows * cols, cols, 1} : std::vector<int64_t>{rows * cols, 1, rows};
    return v;
  };
  GemmArguments g;
  g.A = view(in, L, M, K, a_major == 'k');
  g.B = view(in, L, K, N, b_major == 'n');
  g.out = view(out, L, M, N, o_major == 'n');
  g.accumulator_type = Type::F32;
  return g;
}

}  // namespace

TEST_CASE("cublas peer: the libraries it tries") {
  const std::vector<std::string> plain = cublaslt_candidates(nullptr);
  REQUIRE(plain.size() >= 3);
  CHECK(plain[0] == "libcublasLt.so.13");
  CHECK(plain[1] == "libcublasLt.so.12");
  CHECK(plain[2] == "libcublasLt.so");
  CHECK(cublaslt_candidates("") == plain);
  // A file given in TESSEL_CUBLASLT comes first.
  const std::vector<std::string> file = cublaslt_candidates("/opt/x/libcublasLt.so.12");
  CHECK(file[0] == "/opt/x/libcublasLt.so.12");
  CHECK(file.size() == plain.size() + 1);
  // A folder (the nvidia-cublas wheel's lib/) gives its three names first.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tessel_cublas_dir_test";
  std::filesystem::create_directories(dir);
  const std::vector<std::string> folder = cublaslt_candidates((dir.string() + "/").c_str());
  CHECK(folder[0] == (dir / "libcublasLt.so.13").string());
  CHECK(folder[1] == (dir / "libcublasLt.so.12").string());
  CHECK(folder[2] == (dir / "libcublasLt.so").string());
  std::filesystem::remove_all(dir);
}

TEST_CASE("cublas peer: a missing cuBLAS is reported clearly") {
  const CublasLtProbe p = probe_cublaslt({"/nonexistent/libcublasLt.so.13", "/nonexistent/libcublasLt.so.12"});
  CHECK_FALSE(p.available);
  CHECK(p.reason.rfind("cuBLAS not found: ", 0) == 0);
  CHECK(contains(p.reason, "/nonexistent/libcublasLt.so.13"));
  CHECK(contains(p.reason, "/nonexistent/libcublasLt.so.12"));
  CHECK(contains(p.reason, "TESSEL_CUBLASLT"));
  // A library that is not cublasLt (the C math library) is named with the symbol it lacks.
  const CublasLtProbe m = probe_cublaslt({"libm.so.6"});
  CHECK_FALSE(m.available);
  CHECK(contains(m.reason, "has no symbol cublasLtCreate"));
}

TEST_CASE("cublas peer: this machine's cuBLAS, found or reported") {
  const CublasLtProbe p = probe_cublaslt(cublaslt_candidates());
  if (p.available) {
    MESSAGE("cuBLAS found: " << p.library << ", version " << p.version);
    CHECK(p.version > 0);
    CHECK(p.reason.empty());
  } else {
    MESSAGE(p.reason);
    CHECK(p.reason.rfind("cuBLAS not found: ", 0) == 0);
  }
}

TEST_CASE("cublas peer: row-major tessel GEMMs become D^T = B^T A^T") {
  // A row-major (K-major), B row-major (N-major), out row-major: cuBLAS's A is B^T (N x K,
  // column-major = B's rows), its B is A^T (K x M), D is out^T (N x M); no transposes.
  const LtMapping r = map_gemm_to_cublaslt(problem(Type::BF16, Type::BF16, 1, 100, 200, 300, 'k', 'n', 'n'));
  INFO(r.to_string());
  REQUIRE(r.ok);
  CHECK(r.swapped);
  CHECK(r.compute == lt::CUBLAS_COMPUTE_32F);
  CHECK((r.m == 200 && r.n == 100 && r.k == 300));
  CHECK((r.a.op == lt::CUBLAS_OP_N && r.a.rows == 200 && r.a.cols == 300 && r.a.ld == 200));
  CHECK((r.b.op == lt::CUBLAS_OP_N && r.b.rows == 300 && r.b.cols == 100 && r.b.ld == 300));
  CHECK((r.d.op == lt::CUBLAS_OP_N && r.d.rows == 200 && r.d.cols == 100 && r.d.ld == 200));
  CHECK(r.a.dtype == lt::CUDA_R_16BF);
  CHECK(r.batch == 1);
}

TEST_CASE("cublas peer: K-major A and B give cuBLAS's TN form (fp8) whatever out's major") {
  for (char o : {'n', 'm'}) {
    for (Type t : {Type::E4M3, Type::E5M2}) {
      const LtMapping r = map_gemm_to_cublaslt(problem(t, Type::BF16, 1, 64, 128, 256, 'k', 'k', o));
      INFO(r.to_string());
      REQUIRE(r.ok);
      CHECK(r.a.op == lt::CUBLAS_OP_T);
      CHECK(r.b.op == lt::CUBLAS_OP_N);
      CHECK(r.a.rows == 256);  // stored K x (cuBLAS's m): K contiguous
      CHECK(r.b.rows == 256);  // stored K x (cuBLAS's n)
      CHECK(r.a.ld == 256);
      CHECK(r.b.ld == 256);
      CHECK(r.swapped == (o == 'n'));
      CHECK(r.d.ld == (o == 'n' ? 128 : 64));
      CHECK(r.a.dtype == (t == Type::E4M3 ? lt::CUDA_R_8F_E4M3 : lt::CUDA_R_8F_E5M2));
      CHECK(r.d.dtype == lt::CUDA_R_16BF);
    }
  }
}

TEST_CASE("cublas peer: column-major out maps directly, and every major combination maps") {
  const LtMapping r = map_gemm_to_cublaslt(problem(Type::F16, Type::F32, 1, 100, 200, 300, 'm', 'k', 'm'));
  INFO(r.to_string());
  REQUIRE(r.ok);
  CHECK_FALSE(r.swapped);
  CHECK((r.m == 100 && r.n == 200 && r.k == 300));
  CHECK((r.a.op == lt::CUBLAS_OP_N && r.a.rows == 100 && r.a.ld == 100));  // A M-major: column-major M x K
  CHECK((r.b.op == lt::CUBLAS_OP_N && r.b.rows == 300 && r.b.ld == 300));  // B K-major: column-major K x N
  CHECK((r.d.rows == 100 && r.d.ld == 100 && r.d.dtype == lt::CUDA_R_32F));
  for (char a : {'k', 'm'})
    for (char b : {'k', 'n'})
      for (char o : {'n', 'm'}) {
        const LtMapping x = map_gemm_to_cublaslt(problem(Type::F32, Type::F32, 3, 8, 16, 32, a, b, o));
        INFO(a << b << o << ": " << x.to_string());
        CHECK(x.ok);
        CHECK(x.compute == lt::CUBLAS_COMPUTE_32F_FAST_TF32);
        CHECK(x.batch == 3);
        // Each operand's batch stride is its own matrix's size here.
        CHECK(x.d.batch_stride == 8 * 16);
        CHECK(x.a.batch_stride == (x.swapped ? 32 * 16 : 8 * 32));
        CHECK(x.b.batch_stride == (x.swapped ? 8 * 32 : 32 * 16));
      }
}

TEST_CASE("cublas peer: what it does not map is refused with the reason") {
  GemmArguments g = problem(Type::BF16, Type::BF16, 1, 8, 8, 8, 'k', 'n', 'n');
  g.accumulator_type = Type::F64;
  CHECK(contains(map_gemm_to_cublaslt(g).reason, "f32 only"));
  g = problem(Type::E4M3, Type::E4M3, 1, 16, 16, 16, 'k', 'k', 'n');
  CHECK(contains(map_gemm_to_cublaslt(g).reason, "outputs"));
  g = problem(Type::S32, Type::S32, 1, 8, 8, 8, 'k', 'n', 'n');
  CHECK(contains(map_gemm_to_cublaslt(g).reason, "inputs"));
  g = problem(Type::BF16, Type::BF16, 1, 8, 8, 8, 'k', 'n', 'n');
  g.A.stride = {64 * 2, 16, 2};  // no unit stride
  const LtMapping r = map_gemm_to_cublaslt(g);
  CHECK_FALSE(r.ok);
  CHECK(contains(r.reason, "unit stride"));
}

namespace {

// A compact view of `t` (L, rows, cols) with unit stride in cols (`row_major`) or rows, at 0x20000.
TensorView compact(Type t, int64_t l, int64_t rows, int64_t cols, bool row_major) {
  TensorView v;
  v.data = 0x20000;
  v.dtype = t;
  v.shape = {l, rows, cols};
  v.stride = row_major ? std::vector<int64_t>{rows * cols, cols, 1} : std::vector<int64_t>{rows * cols, 1, rows};
  return v;
}

}  // namespace

TEST_CASE("cublas peer: a C of its own in out's memory order is cuBLAS's C, with its own ld and batch stride") {
  for (char o : {'n', 'm'}) {
    GemmArguments g = problem(Type::BF16, Type::BF16, 4, 100, 200, 300, 'k', 'n', o);
    g.beta = 1;
    // C in out's major, its rows padded (ld 208 or 104), and one C for every batch (stride 0).
    TensorView C = compact(Type::BF16, 4, 100, 200, o == 'n');
    C.stride = o == 'n' ? std::vector<int64_t>{0, 208, 1} : std::vector<int64_t>{0, 1, 104};
    g.C = C;
    const LtMapping r = map_gemm_to_cublaslt(g);
    INFO(o << ": " << r.to_string());
    REQUIRE(r.ok);
    CHECK(r.distinct_c);
    CHECK(r.c.op == lt::CUBLAS_OP_N);
    CHECK(r.c.rows == r.d.rows);
    CHECK(r.c.cols == r.d.cols);
    CHECK(r.c.ld == (o == 'n' ? 208 : 104));
    CHECK(r.c.batch_stride == 0);
    CHECK(r.d.batch_stride == 100 * 200);
    CHECK(r.d.ld == (o == 'n' ? 200 : 100));
    CHECK(contains(r.to_string(), "; C: bf16"));
    CHECK(contains(r.to_string(), "batch stride 0 (broadcast)"));
  }
  // C given as out's very view is C = out: in place, no C of cuBLAS's own.
  GemmArguments same = problem(Type::F16, Type::F32, 1, 8, 16, 32, 'k', 'n', 'm');
  same.C = same.out;
  const LtMapping r = map_gemm_to_cublaslt(same);
  REQUIRE(r.ok);
  CHECK_FALSE(r.distinct_c);
}

TEST_CASE("cublas peer: a C of its own in the other major is refused with cuBLAS's rule") {
  for (char o : {'n', 'm'}) {
    GemmArguments g = problem(Type::BF16, Type::BF16, 1, 100, 200, 300, 'k', 'k', o);
    g.beta = 2;
    g.C = compact(Type::BF16, 1, 100, 200, o != 'n');
    const LtMapping r = map_gemm_to_cublaslt(g);
    INFO(r.to_string());
    CHECK_FALSE(r.ok);
    CHECK(contains(r.reason, std::string("C has unit stride in ") + (o == 'n' ? "M where out has it in N" : "N where out has it in M")));
    CHECK(contains(r.reason, "only in D's memory order"));
  }
  GemmArguments g = problem(Type::BF16, Type::BF16, 1, 8, 8, 8, 'k', 'n', 'n');
  g.C = compact(Type::F32, 1, 8, 8, true);
  CHECK(contains(map_gemm_to_cublaslt(g).reason, "C's type must be out's"));
}

TEST_CASE("cublas peer: a batch stride of 0 goes to cuBLAS as it is") {
  GemmArguments g = problem(Type::BF16, Type::BF16, 8, 64, 96, 128, 'k', 'k', 'n');
  g.B.stride[0] = 0;  // one B for the 8 batches
  const LtMapping r = map_gemm_to_cublaslt(g);
  INFO(r.to_string());
  REQUIRE(r.ok);
  REQUIRE(r.swapped);  // cuBLAS's A is our B
  CHECK(r.a.batch_stride == 0);
  CHECK(r.b.batch_stride == 64 * 128);
  CHECK(r.batch == 8);
  CHECK(contains(r.to_string(), "batch stride 0 (broadcast)"));
  // Nothing to copy while a batch stride of 0 is allowed.
  CHECK(plan_cublaslt_peer(g, 90).copies.empty());
}

TEST_CASE("cublas peer: the TN rule of fp8 by compute capability") {
  CHECK(cublaslt_fp8_needs_tn(89));
  CHECK(cublaslt_fp8_needs_tn(90));
  CHECK(cublaslt_fp8_needs_tn(120));
  CHECK(cublaslt_fp8_needs_tn(121));
  CHECK_FALSE(cublaslt_fp8_needs_tn(100));
  CHECK_FALSE(cublaslt_fp8_needs_tn(103));
  CHECK_FALSE(cublaslt_fp8_needs_tn(80));
}

TEST_CASE("cublas peer plan: fp8 operands that are not K-major are copied K-major on sm_90, giving the TN form") {
  for (Type t : {Type::E4M3, Type::E5M2})
    for (char a : {'k', 'm'})
      for (char b : {'k', 'n'})
        for (char o : {'n', 'm'}) {
          const GemmArguments g = problem(t, Type::BF16, 1, 64, 128, 256, a, b, o);
          const LtPeerPlan p = plan_cublaslt_peer(g, 90);
          INFO(codegen::ptx_name(t) << " " << a << b << o);
          CHECK(p.copies.size() == static_cast<size_t>((a == 'm') + (b == 'n')));
          for (const LtCopy& c : p.copies) {
            CHECK(c.transposed);
            CHECK(c.to.data == 0);
            CHECK(c.from.data == 0x10000);
            CHECK(c.to.shape == c.from.shape);
            CHECK(contains(c.why, "TN form"));
            CHECK(contains(c.why, "sm_90"));
            if (c.operand == 'A') {
              CHECK(c.to.stride == std::vector<int64_t>{64 * 256, 256, 1});  // K-major (M, K)
              CHECK(contains(c.why, "A is M-major"));
            } else {
              REQUIRE(c.operand == 'B');
              CHECK(c.to.stride == std::vector<int64_t>{128 * 256, 1, 256});  // K-major (K, N)
              CHECK(contains(c.why, "B is N-major"));
            }
            CHECK(c.elements == c.to.shape[1] * c.to.shape[2]);
          }
          // What cuBLAS then runs is its TN form.
          const LtMapping r = map_gemm_to_cublaslt(p.args);
          INFO(r.to_string());
          REQUIRE(r.ok);
          CHECK(r.a.op == lt::CUBLAS_OP_T);
          CHECK(r.b.op == lt::CUBLAS_OP_N);
          // Where cuBLAS takes fp8 in any form (sm_100), and for 16-bit inputs, nothing is copied.
          CHECK(plan_cublaslt_peer(g, 100).copies.empty());
          CHECK(plan_cublaslt_peer(problem(Type::BF16, Type::BF16, 1, 64, 128, 256, a, b, o), 90).copies.empty());
        }
}

TEST_CASE("cublas peer plan: a copy's rows are padded to 16 bytes, a broadcast kept or written out") {
  // e4m3 A (777 x 333), M-major: the K-major copy's rows of 333 bytes padded to 336.
  GemmArguments g = problem(Type::E4M3, Type::F32, 1, 777, 64, 333, 'm', 'k', 'n');
  LtPeerPlan p = plan_cublaslt_peer(g, 90);
  REQUIRE(p.copies.size() == 1);
  CHECK(p.copies[0].to.stride == std::vector<int64_t>{777 * 336, 336, 1});
  CHECK(p.copies[0].elements == 777 * 336);
  // One M-major A for 4 batches: its copy stays one matrix, unless the batch stride of 0 is refused.
  g = problem(Type::E4M3, Type::BF16, 4, 64, 128, 256, 'm', 'k', 'n');
  g.A.stride[0] = 0;
  p = plan_cublaslt_peer(g, 90);
  REQUIRE(p.copies.size() == 1);
  CHECK(p.copies[0].to.stride == std::vector<int64_t>{0, 256, 1});
  CHECK(p.copies[0].elements == 64 * 256);
  p = plan_cublaslt_peer(g, 90, /*zero_batch_stride=*/false);
  REQUIRE(p.copies.size() == 1);
  CHECK(p.copies[0].to.stride == std::vector<int64_t>{64 * 256, 256, 1});
  CHECK(p.copies[0].elements == 4 * 64 * 256);
  CHECK(contains(p.copies[0].why, "A has a batch stride of 0, written out for each of the 4 batches"));
  // A broadcast bf16 B (N-major) written out keeps its major and is no transpose.
  g = problem(Type::BF16, Type::F32, 3, 64, 100, 32, 'k', 'n', 'n');
  g.B.stride[0] = 0;
  p = plan_cublaslt_peer(g, 90, false);
  REQUIRE(p.copies.size() == 1);
  CHECK(p.copies[0].operand == 'B');
  CHECK_FALSE(p.copies[0].transposed);
  CHECK(p.copies[0].to.stride == std::vector<int64_t>{32 * 104, 104, 1});
  CHECK(p.args.B.stride[0] == 32 * 104);
  CHECK(map_gemm_to_cublaslt(p.args).ok);
}

TEST_CASE("cublas peer plan: a C of its own in the other major is copied into out's major") {
  for (char o : {'n', 'm'}) {
    GemmArguments g = problem(Type::BF16, Type::BF16, 2, 100, 200, 300, 'k', 'k', o);
    g.beta = 2;
    g.C = compact(Type::BF16, 2, 100, 200, o != 'n');
    const LtPeerPlan p = plan_cublaslt_peer(g, 90);
    INFO(o);
    REQUIRE(p.copies.size() == 1);
    const LtCopy& c = p.copies[0];
    CHECK(c.operand == 'C');
    CHECK(c.transposed);
    CHECK(c.from.stride == g.C->stride);
    CHECK(c.to.stride == (o == 'n' ? std::vector<int64_t>{100 * 200, 200, 1} : std::vector<int64_t>{104 * 200, 1, 104}));
    CHECK(contains(c.why, "only in D's memory order"));
    const LtMapping r = map_gemm_to_cublaslt(p.args);
    INFO(r.to_string());
    REQUIRE(r.ok);
    CHECK(r.distinct_c);
    // In out's major already: taken as it lies.
    GemmArguments same = g;
    same.C = compact(Type::BF16, 2, 100, 200, o == 'n');
    CHECK(plan_cublaslt_peer(same, 90).copies.empty());
  }
}

namespace {

// Host values of an operand and its device bytes.
struct HostMatrix {
  std::vector<double> values;  // in the view's element order (offset = strides . coordinates)
  std::vector<uint8_t> bytes;
};

HostMatrix random_operand(const TensorView& v, std::mt19937_64& rng) {
  HostMatrix h;
  const int64_t n = v.size();
  const int eb = codegen::bytes(v.dtype);
  h.values.resize(n);
  h.bytes.resize(n * eb);
  std::uniform_int_distribution<int> k(-16, 16);
  for (int64_t i = 0; i < n; ++i) {
    const float x = (v.dtype == Type::E5M2 ? k(rng) / 2 : k(rng)) / 8.0f;  // exact in every type used here
    uint8_t* p = h.bytes.data() + i * eb;
    switch (v.dtype) {
      case Type::BF16: {
        const uint16_t b = codegen::encode_bf16(x);
        std::memcpy(p, &b, 2);
        break;
      }
      case Type::F16: {
        const uint16_t b = codegen::encode_f16(x);
        std::memcpy(p, &b, 2);
        break;
      }
      case Type::F32:
        std::memcpy(p, &x, 4);
        break;
      case Type::E4M3:
        *p = codegen::encode_e4m3(x);
        break;
      case Type::E5M2:
        *p = codegen::encode_e5m2(x);
        break;
      default:
        FAIL("type");
    }
    h.values[i] = x;
  }
  return h;
}

double read_element(const std::vector<uint8_t>& bytes, Type t, int64_t i) {
  switch (t) {
    case Type::BF16: {
      uint16_t b;
      std::memcpy(&b, bytes.data() + 2 * i, 2);
      return codegen::decode_bf16(b);
    }
    case Type::F16: {
      uint16_t b;
      std::memcpy(&b, bytes.data() + 2 * i, 2);
      return codegen::decode_f16(b);
    }
    default: {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      return f;
    }
  }
}

int64_t offset(const TensorView& v, int64_t l, int64_t r, int64_t c) {
  return l * v.stride[0] + r * v.stride[1] + c * v.stride[2];
}

// The worst error of out (`got`, elements of `out_type` laid out as g.out) against the f64 host
// value of alpha * A @ B + beta * C (C's values `c`, laid out as `c_view`), relative to
// sum |alpha a b| + |beta c|; infinite where an element is not finite (one left unwritten).
double worst_error(const GemmArguments& g, int64_t L, int64_t M, int64_t N, int64_t K, const HostMatrix& a,
                   const HostMatrix& b, const HostMatrix& c, const TensorView& c_view, const std::vector<uint8_t>& got,
                   Type out_type) {
  double worst = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0, scale = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = a.values[offset(g.A, l, m, k)] * b.values[offset(g.B, l, k, n)];
          acc += p;
          scale += std::fabs(p);
        }
        const double c0 = c.values[offset(c_view, l, m, n)];
        const double want = g.alpha * acc + g.beta * c0;
        const double err = std::fabs(read_element(got, out_type, offset(g.out, l, m, n)) - want) /
                           (std::fabs(g.alpha) * scale + std::fabs(g.beta * c0) + 1e-30);
        worst = std::isfinite(err) ? std::max(worst, err) : INFINITY;
      }
  return worst;
}

}  // namespace

TEST_CASE("cublas peer gpu: every major combination and fp8 against a host reference") {
  TESSEL_REQUIRE_GPU(80);
  const CublasLtProbe probe = probe_cublaslt(cublaslt_candidates());
  if (!probe.available) {
    tessel::test::skip(probe.reason);
    return;
  }
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  std::mt19937_64 rng = tessel::test::gpu_rng();
  const int cc = rt::device_properties(0).compute_capability();
  struct Case {
    Type in, out;
    char a, b, o;
  };
  std::vector<Case> cases;
  for (char a : {'k', 'm'})
    for (char b : {'k', 'n'})
      for (char o : {'n', 'm'}) cases.push_back({Type::BF16, Type::BF16, a, b, o});
  cases.push_back({Type::F16, Type::F32, 'k', 'n', 'n'});
  cases.push_back({Type::F32, Type::F32, 'm', 'k', 'n'});
  if (cc >= 89) {
    cases.push_back({Type::E4M3, Type::BF16, 'k', 'k', 'n'});
    cases.push_back({Type::E4M3, Type::F32, 'k', 'k', 'm'});
  }
  const int64_t L = 2, M = 96, N = 80, K = 64;
  rt::Stream stream;
  for (const Case& c : cases) {
    GemmArguments g = problem(c.in, c.out, L, M, N, K, c.a, c.b, c.o);
    g.alpha = 1.5;
    g.beta = 0.5;
    INFO(codegen::ptx_name(c.in) << "->" << codegen::ptx_name(c.out) << " majors " << c.a << c.b << c.o);
    const HostMatrix a = random_operand(g.A, rng), b = random_operand(g.B, rng), o = random_operand(g.out, rng);
    rt::DeviceBuffer da = rt::DeviceBuffer::from(a.bytes), db = rt::DeviceBuffer::from(b.bytes),
                     dout = rt::DeviceBuffer::from(o.bytes);
    g.A.data = da.ptr();
    g.B.data = db.ptr();
    g.out.data = dout.ptr();
    CublasLtGemm peer(g);
    INFO(peer.mapping().to_string());
    REQUIRE_MESSAGE(peer.supported(), peer.reason());
    peer.run(da.ptr(), db.ptr(), dout.ptr(), stream);
    stream.synchronize();
    const double worst =
        worst_error(g, L, M, N, K, a, b, o, g.out, dout.to_vector<uint8_t>(), c.out);
    // Inputs are exact and their f32 sums too; only the output's rounding (bf16: 2^-8) and tf32's
    // rounding of the (exact in tf32) inputs remain.
    CHECK(worst < 1e-2);
  }
}

TEST_CASE("cublas peer gpu: a C of its own and batch strides of 0 against a host reference") {
  TESSEL_REQUIRE_GPU(80);
  const CublasLtProbe probe = probe_cublaslt(cublaslt_candidates());
  if (!probe.available) {
    tessel::test::skip(probe.reason);
    return;
  }
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  std::mt19937_64 rng = tessel::test::gpu_rng();
  struct Case {
    char o;              // out's major; C is in the same (what cuBLAS takes as C != D)
    bool ba, bb, bc;     // batch stride 0 for A, B, C
  };
  const Case cases[] = {{'n', false, false, false}, {'m', false, false, false}, {'n', false, true, false},
                        {'n', true, false, true},   {'m', false, false, true}};
  const int64_t L = 3, M = 96, N = 80, K = 64;
  rt::Stream stream;
  for (const Case& c : cases) {
    GemmArguments g = problem(Type::BF16, Type::F32, L, M, N, K, 'k', 'n', c.o);
    g.alpha = 1.5;
    g.beta = 0.5;
    TensorView C = compact(Type::F32, L, M, N, c.o == 'n');
    if (c.ba) g.A.stride[0] = 0;
    if (c.bb) g.B.stride[0] = 0;
    if (c.bc) C.stride[0] = 0;
    g.C = C;
    INFO("out " << c.o << " broadcast A " << c.ba << " B " << c.bb << " C " << c.bc);
    const HostMatrix a = random_operand(g.A, rng), b = random_operand(g.B, rng), cv = random_operand(*g.C, rng);
    rt::DeviceBuffer da = rt::DeviceBuffer::from(a.bytes), db = rt::DeviceBuffer::from(b.bytes),
                     dc = rt::DeviceBuffer::from(cv.bytes),
                     dout = rt::DeviceBuffer::from(std::vector<uint8_t>(static_cast<size_t>(L * M * N * 4), 0xff));
    g.A.data = da.ptr();
    g.B.data = db.ptr();
    g.C->data = dc.ptr();
    g.out.data = dout.ptr();
    CublasLtGemm peer(g);
    INFO(peer.mapping().to_string());
    REQUIRE(peer.mapping().distinct_c);
    // A refusal here is what makes `tessel bench gemm` write a broadcast out (its note says so).
    CHECK_MESSAGE(peer.supported(), peer.reason());
    if (!peer.supported()) continue;
    peer.run(da.ptr(), db.ptr(), dc.ptr(), dout.ptr(), stream);
    stream.synchronize();
    const double worst =
        worst_error(g, L, M, N, K, a, b, cv, *g.C, dout.to_vector<uint8_t>(), Type::F32);
    // Inputs exact in bf16 and their f32 sums exact: only f32 rounding remains.
    CHECK(worst < 1e-5);
  }
}
