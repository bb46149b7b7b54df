// common/gemm_c.hpp: the rules every GEMM kernel's supports() applies to C (the tensor beta
// scales): out's shape and element type, and no partial overlap with out.
#pragma once

#include <string>

#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

// Whether args.C (when given) can be C for args.out: the same rank and shape, out's element type
// (the epilogue reads C as out's type), as many strides as modes, and either exactly out's view
// (in place) or no byte of out in C's span. `kernel` names the kernel in the reasons.
Status check_gemm_c(const GemmArguments& args, const std::string& kernel);

}  // namespace tessel::kernels
