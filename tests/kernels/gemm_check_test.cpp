// gemm_check_test.cpp: the host reference every GEMM test trusts (tessel/testing/gemm_check.hpp).
// check_gemm decodes each operand once into dense f64 rows; here an independent reference, element
// by element through the views' strides, fills the result, which check_gemm must accept, and a
// changed element or a byte written outside out's view, which it must report.
#include <doctest/doctest.h>

#include <random>

#include "algebra/support.hpp"
#include "kernels/gemm_problem.hpp"

using namespace tessel;
using codegen::Type;
using kernels::matrix_view;
using kernels::TensorView;

namespace {

// out = alpha A B + beta C (C: out's old values unless a C of its own), element by element.
std::vector<uint8_t> naive_result(const test::GemmProblem& p) {
  std::vector<uint8_t> r = p.out.bytes;
  const auto& a = p.A.view;
  const auto& b = p.B.view;
  const auto& o = p.out.view;
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2], K = a.shape[2];
  for (int64_t l = 0; l < L; ++l)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += test::load_element(p.A.bytes, a.dtype, l * a.stride[0] + m * a.stride[1] + k * a.stride[2]) *
               test::load_element(p.B.bytes, b.dtype, l * b.stride[0] + k * b.stride[1] + n * b.stride[2]);
        const int64_t at = l * o.stride[0] + m * o.stride[1] + n * o.stride[2];
        double v = p.alpha * s;
        if (p.beta != 0) {
          const test::HostOperand& c = p.C ? *p.C : p.out;
          v += p.beta * test::load_element(c.bytes, o.dtype,
                                           l * c.view.stride[0] + m * c.view.stride[1] + n * c.view.stride[2]);
        }
        test::store_element(r, o.dtype, at, v);
      }
  return r;
}

}  // namespace

TEST_CASE("gemm_check: accepts the element-by-element reference, reports a changed element and a stray write") {
  TESSEL_RNG(rng);
  struct Case {
    Type ab, out;
    bool a_row, b_row, out_row, own_c;
  };
  for (const Case& c : {Case{Type::BF16, Type::BF16, true, false, true, false}, Case{Type::F16, Type::F32, false, true, false, true},
                        Case{Type::F32, Type::F32, false, false, true, false}, Case{Type::E4M3, Type::BF16, true, false, false, true},
                        Case{Type::S32, Type::S32, true, true, true, false}}) {
    const int64_t L = 2, M = 1 + static_cast<int64_t>(rng() % 37), N = 1 + static_cast<int64_t>(rng() % 29),
                  K = 1 + static_cast<int64_t>(rng() % 23);
    const double beta = c.ab == Type::S32 ? 3 : 0.75;
    const std::optional<TensorView> C =
        c.own_c ? std::optional<TensorView>(matrix_view(c.out, L, M, N, !c.out_row, 0)) : std::nullopt;
    const test::GemmProblem p =
        test::make_gemm_problem(matrix_view(c.ab, L, M, K, c.a_row, c.a_row ? K + 3 : 0),
                                matrix_view(c.ab, L, K, N, c.b_row, 0), matrix_view(c.out, L, M, N, c.out_row, (c.out_row ? N : M) + 2), C,
                                c.ab == Type::S32 ? -1 : 0.5, beta, rng);
    INFO(p.describe());
    std::vector<uint8_t> r = naive_result(p);
    CHECK(test::check_gemm(p, r) == "");
    // One element off by far more than the tolerance.
    const auto& o = p.out.view;
    const int64_t at = (L - 1) * o.stride[0] + (M - 1) * o.stride[1] + (N / 2) * o.stride[2];
    std::vector<uint8_t> wrong = r;
    test::store_element(wrong, o.dtype, at, test::load_element(r, o.dtype, at) + 4);
    CHECK(test::check_gemm(p, wrong).find("1 elements differ") != std::string::npos);
    // A byte of out's padding (its leading dimension is 2 more than a row or column).
    std::vector<uint8_t> stray = r;
    stray[static_cast<size_t>((c.out_row ? N : M) * codegen::bytes(o.dtype))] ^= 0x5a;
    CHECK(test::check_gemm(p, stray).find("outside the view were written") != std::string::npos);
  }
}
