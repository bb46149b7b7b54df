// split_k_gpu_test.cpp: the Hopper GEMM's split-K schedule on the GPU (skipped with the reason
// where there is none): issue 19's 3072 x 768 x 12288 (sampled against the f64 host reference)
// and decode-sized problems M = 8..64 with ragged N (every element), through tessel::gemm (its
// choice must split) and through the catalog kernel with forced split counts (one that does not
// divide the k-tiles, 32); out poisoned, the same bits on every repeat.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/gpu.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::matrix_view;

namespace {

// `samples` elements of a row-major out (alpha 1, beta 0; A row-major, B column-major) against
// the f64 reference, corners included; "" or the first few differences.
std::string check_sampled(const kernels::GemmProblem& p, const std::vector<uint8_t>& got, int64_t M, int64_t N,
                          int64_t K, int samples, std::mt19937_64& rng) {
  std::string diff;
  int wrong = 0;
  std::uniform_int_distribution<int64_t> pm(0, M - 1), pn(0, N - 1);
  const Type ab = p.A.view.dtype, ot = p.out.view.dtype;
  for (int s = 0; s < samples; ++s) {
    const int64_t m = s < 4 ? (s & 1) * (M - 1) : pm(rng), n = s < 4 ? (s >> 1) * (N - 1) : pn(rng);
    double ref = 0, mag = 0;
    for (int64_t k = 0; k < K; ++k) {
      const double x = kernels::load_element(p.A.bytes, ab, m * K + k) * kernels::load_element(p.B.bytes, ab, n * K + k);
      ref += x;
      mag += std::fabs(x);
    }
    const double v = kernels::load_element(got, ot, m * N + n);
    if (!(std::fabs(v - ref) <= 1e-2 * mag + 1e-3) && wrong++ < 5)
      diff += "(" + std::to_string(m) + "," + std::to_string(n) + "): got " + std::to_string(v) + ", expected " +
              std::to_string(ref) + "; ";
  }
  return diff;
}

}  // namespace

TEST_CASE("split-K: gpu issue 19's 3072 x 768 x 12288 through tessel::gemm and forced counts, the same bits every run") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  const int64_t M = 3072, N = 768, K = 12288;
  const kernels::GemmProblem p = kernels::make_gemm_problem(matrix_view(Type::BF16, 0, M, K, true),
                                                            matrix_view(Type::BF16, 0, K, N, false),
                                                            matrix_view(Type::BF16, 0, M, N, true), std::nullopt, 1, 0, rng);
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   o = rt::DeviceBuffer::from(p.out.bytes);
  kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr());
  // Split-K asked for: by default the one call runs this problem on 128x192 data-parallel tiles (docs/gemm.md).
  const kernels::GemmChoice& choice = tessel::gemm(g, {}, kernels::GemmSchedule::SplitK);
  INFO(choice.describe() << ": " << choice.terms);
  REQUIRE(choice.splits > 1);
  test::gpu_context().synchronize();
  const std::vector<uint8_t> first = o.to_vector<uint8_t>();
  CHECK(check_sampled(p, first, M, N, K, 3000, rng) == "");
  for (int i = 0; i < 3; ++i) {
    o.fill(0xFF);
    tessel::gemm(g, {}, kernels::GemmSchedule::SplitK);
    test::gpu_context().synchronize();
    CHECK(o.to_vector<uint8_t>() == first);
  }
  // The catalog kernel with forced counts: 7 (192 k-tiles: shares of 27 and 28) and 32.
  for (int splits : {2, 7, 32}) {
    INFO("split_k " << splits);
    g.split_k = splits;
    const size_t ws = choice.kernel->workspace_size(g);
    REQUIRE(ws > 0);
    rt::DeviceBuffer w(ws);
    w.fill(0xFF);
    o.fill(0xFF);
    choice.kernel->run(g, {}, w.ptr());
    test::gpu_context().synchronize();
    const std::vector<uint8_t> got = o.to_vector<uint8_t>();
    CHECK(check_sampled(p, got, M, N, K, 2000, rng) == "");
    o.fill(0xFF);
    choice.kernel->run(g, {}, w.ptr());
    test::gpu_context().synchronize();
    CHECK(o.to_vector<uint8_t>() == got);
  }
}

TEST_CASE("split-K: gpu M = 8..64 with ragged N and K, every element against the host, the same bits every run") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  struct Case {
    int64_t m, n, k;
    Type out;
    bool out_row;
    double beta;
  };
  const Case cases[] = {{8, 1000, 4096, Type::BF16, true, 0},  {16, 1000, 4000, Type::F32, true, 0},
                        {33, 777, 4096, Type::BF16, true, 1}, {64, 1024, 3000, Type::BF16, false, 0.5},
                        {1, 512, 4096, Type::BF16, true, 0}};
  for (const Case& c : cases) {
    for (kernels::GemmSchedule s : {kernels::GemmSchedule::Any, kernels::GemmSchedule::SplitK}) {
      INFO(c.m << "x" << c.n << "x" << c.k << " schedule " << static_cast<int>(s));
      const kernels::GemmProblem p = kernels::make_gemm_problem(
          matrix_view(Type::BF16, 0, c.m, c.k, true), matrix_view(Type::BF16, 0, c.k, c.n, false),
          matrix_view(c.out, 0, c.m, c.n, c.out_row), std::nullopt, 1, c.beta, rng);
      rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                       o = rt::DeviceBuffer::from(p.out.bytes);
      const kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr());
      const kernels::GemmChoice& choice = tessel::gemm(g, {}, s);
      INFO(choice.describe() << ": " << choice.terms);
      if (s == kernels::GemmSchedule::SplitK) CHECK(choice.splits > 1);
      test::gpu_context().synchronize();
      const std::vector<uint8_t> first = o.to_vector<uint8_t>();
      CHECK(kernels::check_gemm(p, first) == "");
      o.upload(p.out.bytes.data(), p.out.bytes.size());  // beta != 0 reads out: start again from it
      tessel::gemm(g, {}, s);
      test::gpu_context().synchronize();
      CHECK(o.to_vector<uint8_t>() == first);
    }
  }
}
