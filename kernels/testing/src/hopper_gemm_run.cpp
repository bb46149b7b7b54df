// hopper_gemm_run.cpp: `tessel run hopper_gemm` on a GPU: a random ragged batched problem laid out
// as the configuration asks (gemm_check.hpp), K over several k-tiles, out poisoned where beta is 0,
// one launch on the persistent grid, every element against the double-precision host reference.
#include "tessel/testing/gemm_check.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::kernels {

DemoRun run_hopper_gemm(const Options& o, std::mt19937_64& rng) {
  const HopperGemmConfig c = hopper_gemm_config(o);
  const codegen::Module m = hopper_gemm(c);
  use_device_for(m);
  const GemmProblem p = make_gemm_problem(hopper_gemm_metadata(c), rng, false, 5 * c.tile_k(), 3);
  rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                   out = rt::DeviceBuffer::from(p.out.bytes);
  const GemmArguments args = p.arguments(a.ptr(), b.ptr(), out.ptr());
  const codegen::LaunchPlan plan = hopper_gemm_plan(c, args, m, device_in_use().sm_count, rt::encode_tensor_map);
  const rt::Function f = load_plan(plan);
  rt::Event start, stop;
  start.record();
  launch_plan(plan, f);
  stop.record();
  stop.synchronize();
  DemoRun r;
  r.kernel_ms = rt::elapsed_ms(start, stop);
  r.problem = p.describe() + ", grid " + std::to_string(plan.grid[0]);
  r.bytes = static_cast<double>(p.A.bytes.size() + p.B.bytes.size() + 2 * p.out.bytes.size());
  const std::string diff = check_gemm(p, out.to_vector<uint8_t>());
  r.ok = diff.empty();
  r.result = r.ok ? "every element matches the host reference, bytes between them intact" : diff;
  return r;
}

}  // namespace tessel::kernels
