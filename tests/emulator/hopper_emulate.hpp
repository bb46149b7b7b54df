// hopper_emulate.hpp: one Hopper GEMM problem on the CPU emulator, checked against the f64 host
// reference (the emulator tests of the Hopper GEMM share it).
#pragma once

#include <string>
#include <vector>

#include "kernels/gemm_problem.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::test {

// Runs `c` on `p` with `ctas` persistent CTAs (and `split_k`, a workspace of 0xFF bytes where it
// needs one); "" or what went wrong: a refusal, no TMA load or wgmma, the elements that differ, C
// written.
inline std::string emulate_hopper_gemm(const kernels::HopperGemmConfig& c, const GemmProblem& p, int ctas,
                                       int split_k = 1) {
  emu::Memory mem;
  const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), out = mem.upload(p.out.bytes);
  const uint64_t cc = p.C ? mem.upload(p.C->bytes) : 0;
  kernels::GemmArguments args = p.arguments(a, b, out, cc);
  args.split_k = split_k;
  if (const kernels::Status s = kernels::hopper_gemm_supports(c, args); !s) return "supports() refused: " + s.reason;
  if (const size_t ws = kernels::hopper_gemm_workspace_size(c, args); ws > 0)
    args.workspace = mem.upload(std::vector<uint8_t>(ws, 0xFF));
  const emu::RunStats stats =
      emu::run(kernels::hopper_gemm_plan(c, args, kernels::hopper_gemm(c), ctas, emu::encode_tensor_map), mem);
  if (stats.tma_loads == 0 || stats.wgmmas == 0) return "no TMA load or wgmma ran";
  std::string diff = check_gemm(p, mem.read<uint8_t>(out, p.out.bytes.size()));
  if (p.C && mem.read<uint8_t>(cc, p.C->bytes.size()) != p.C->bytes) diff += " C was written";
  return diff;
}

}  // namespace tessel::test
