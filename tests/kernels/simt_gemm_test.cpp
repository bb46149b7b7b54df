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

TEST_CASE("simt_gemm: supports() checks C's shape, type and overlap with out") {
  SimtGemmConfig c;  // f32, row-major A, B and out
  // A, B, C, out.
  GemmArguments g = make_gemm_arguments(
      row_major(0x10000, Type::F32, {2, 10, 7}), row_major(0x20000, Type::F32, {2, 7, 9}),
      row_major(0x40000, Type::F32, {2, 10, 9}), row_major(0x30000, Type::F32, {2, 10, 9}), 1.0, 1.0);
  CHECK(simt_gemm_supports(c, g).ok);
  CHECK(g.distinct_c());
  g.C = row_major(0x40000, Type::F32, {2, 10, 8});
  CHECK(simt_gemm_supports(c, g).reason ==
        "C is f32 (2,10,8):(80,8,1) at 0x40000 and out f32 (2,10,9):(90,9,1) at 0x30000; simt_gemm needs C of out's "
        "shape");
  g.C = row_major(0x40000, Type::F16, {2, 10, 9});
  CHECK(simt_gemm_supports(c, g).reason ==
        "C is f16 and out f32; simt_gemm needs C of out's element type (the epilogue reads C as it writes out)");
  g.C = row_major(0x30000 + 4, Type::F32, {2, 10, 9});
  CHECK(simt_gemm_supports(c, g).reason.find("overlaps out") != std::string::npos);
  g.C = g.out;  // in place
  CHECK(simt_gemm_supports(c, g).ok);
  CHECK(!g.distinct_c());
}
