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
    const std::vector<uint8_t> got = dout.to_vector<uint8_t>();
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
          const double c0 = o.values[offset(g.out, l, m, n)];
          const double want = g.alpha * acc + g.beta * c0;
          const double err = std::fabs(read_element(got, c.out, offset(g.out, l, m, n)) - want) /
                             (std::fabs(g.alpha) * scale + std::fabs(g.beta * c0) + 1e-30);
          worst = std::max(worst, err);
        }
    // Inputs are exact and their f32 sums too; only the output's rounding (bf16: 2^-8) and tf32's
    // rounding of the (exact in tf32) inputs remain.
    CHECK(worst < 1e-2);
  }
}
