// simt_gemm_test.cpp: the SIMT GEMM on the CPU: configuration checks, supports() messages, the
// launch plan's shape and parameters, and every catalog configuration assembled by ptxas.
#include "tessel/kernels/simt_gemm.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "codegen/ptxas.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

TEST_CASE("simt_gemm: a configuration's PTX targets sm_80 and assembles") {
  SimtGemmConfig c;
  c.dtype = Type::BF16;
  c.a_major = Major::Column;
  const codegen::Module m = simt_gemm(c);
  CHECK(codegen::target_name(codegen::requirement(m)) == "sm_80");
  CHECK(m.kernels.at(0).name == "tessel_simt_gemm_bf16_f32_64x64x8_t4x4_crr");
  test::check_assembles(m);
}
