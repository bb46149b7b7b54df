// common/gemm_c.hpp: the rules every GEMM kernel's supports() applies to C (the tensor beta
// scales): out's shape and element type, and no partial overlap with out; and to the types.
#pragma once

#include <string>

#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

// Whether args.C (when given) can be C for args.out: the same rank and shape, out's element type
// (the epilogue reads C as out's type), as many strides as modes, and either exactly out's view
// (in place) or no byte of out in C's span. `kernel` names the kernel in the reasons.
Status check_gemm_c(const GemmArguments& args, const std::string& kernel);

// Whether A and B are of type `ab` and out of type `out`: checked before any layout, so that a
// kernel of other types is refused for them, not for an alignment that a copy would mend.
Status check_gemm_types(const GemmArguments& args, codegen::Type ab, codegen::Type out);

}  // namespace tessel::kernels
