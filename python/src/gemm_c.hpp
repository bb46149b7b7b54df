// gemm_c.hpp: GemmArguments' C tensor (out = alpha * A @ B + beta * C), where this tessel's
// GemmArguments has one: the field is being added on another branch, so the bindings reach it
// through these templates, which compile either way.
#pragma once

#include "tessel/algebra/error.hpp"
#include "tessel/kernels/gemm_arguments.hpp"

namespace tessel::python {

// Whether GemmArguments has a C (an std::optional<TensorView> or a TensorView).
template <class G = kernels::GemmArguments>
constexpr bool gemm_has_c() {
  return requires(G g, kernels::TensorView v) { g.C = v; };
}

// The C of `g` when it is an optional that holds one; null otherwise.
template <class G>
kernels::TensorView* gemm_c(G& g) {
  if constexpr (requires { g.C.has_value(); *g.C; }) {
    return g.C ? &*g.C : nullptr;
  } else {
    return nullptr;
  }
}

// Sets C, or refuses where GemmArguments has none.
template <class G>
void set_gemm_c(G& g, const kernels::TensorView& c) {
  if constexpr (requires { g.C = c; }) {
    g.C = c;
  } else {
    fail("gemm: c= needs a tessel whose GemmArguments has a C tensor, and this build's has none; pass the "
         "addend as out= with beta (out = alpha * a @ b + beta * out)");
  }
}

}  // namespace tessel::python
