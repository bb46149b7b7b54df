// hopper_config.hpp: the tests' Hopper GEMM configuration from its types, majors, tile and stages
// (cooperative, no cluster; a test sets the schedule or the cluster it wants on the result).
#pragma once

#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::test {

inline kernels::HopperGemmConfig hopper_config(codegen::Type ab, codegen::Type out, codegen::Major am,
                                               codegen::Major bm, kernels::Major om, int tm, int tn, int stages) {
  kernels::HopperGemmConfig c;
  c.ab = ab;
  c.out = out;
  c.a_major = am;
  c.b_major = bm;
  c.out_major = om;
  c.tile_m = tm;
  c.tile_n = tn;
  c.stages = stages;
  return c;
}

}  // namespace tessel::test
