// gemm_problem.hpp: the tests' names for the library's random GEMM problems and host reference
// (tessel/testing/gemm_check.hpp, which `tessel run` uses too).
#pragma once

#include "tessel/testing/gemm_check.hpp"

namespace tessel::test {

using kernels::check_gemm;
using kernels::fitting_arguments;
using kernels::GemmProblem;
using kernels::GemmProblemOptions;
using kernels::HostOperand;
using kernels::load_element;
using kernels::make_gemm_problem;
using kernels::store_element;

}  // namespace tessel::test
