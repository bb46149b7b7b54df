// common/gemm_arguments.cpp: GemmArguments' C (see gemm_arguments.hpp) and the rules every GEMM
// kernel applies to it and to the types (common/gemm_c.hpp).
#include <algorithm>
#include <tuple>

#include "common/gemm_c.hpp"
#include "tessel/codegen/types.hpp"
#include "tessel/kernels/gemm_arguments.hpp"

namespace tessel::kernels {

namespace {

bool same_view(const TensorView& x, const TensorView& y) {
  return x.data == y.data && x.dtype == y.dtype && x.shape == y.shape && x.stride == y.stride;
}

}  // namespace

bool GemmArguments::distinct_c() const { return C && !same_view(*C, out); }

GemmArguments make_gemm_arguments(TensorView A, TensorView B, TensorView C, TensorView out, double alpha,
                                  double beta) {
  GemmArguments g = make_gemm_arguments(std::move(A), std::move(B), std::move(out), alpha, beta);
  g.C = std::move(C);
  return g;
}

Status check_gemm_types(const GemmArguments& g, codegen::Type ab, codegen::Type out) {
  for (const auto& [name, v, t] : {std::tuple{"A", &g.A, ab}, {"B", &g.B, ab}, {"out", &g.out, out}})
    if (v->dtype != t)
      return Status::failure(std::string(name) + " is " + codegen::ptx_name(v->dtype) + "; this kernel takes " +
                             codegen::ptx_name(t));
  return Status::success();
}

Status check_gemm_c(const GemmArguments& g, const std::string& kernel) {
  if (!g.C) return Status::success();
  const TensorView& c = *g.C;
  const TensorView& o = g.out;
  if (c.shape != o.shape)
    return Status::failure("C is " + c.to_string() + " and out " + o.to_string() + "; " + kernel +
                           " needs C of out's shape");
  if (c.stride.size() != c.shape.size())
    return Status::failure("C has " + std::to_string(c.stride.size()) + " strides for rank " +
                           std::to_string(c.rank()));
  if (c.dtype != o.dtype)
    return Status::failure(std::string("C is ") + codegen::ptx_name(c.dtype) + " and out " +
                           codegen::ptx_name(o.dtype) + "; " + kernel +
                           " needs C of out's element type (the epilogue reads C as it writes out)");
  if (same_view(c, o) || c.size() == 0) return Status::success();
  const auto [c0, c1] = c.byte_range();
  const auto [o0, o1] = o.byte_range();
  if (c0 < o1 && o0 < c1)
    return Status::failure("C " + c.to_string() + " overlaps out " + o.to_string() +
                           " without being the same view (in place is allowed, partial overlap is not: out's "
                           "stores would race with C's loads)");
  return Status::success();
}

}  // namespace tessel::kernels
