// elementwise_run.cpp: `tessel run elementwise` (see elementwise_check.hpp): one configuration on
// GPU 0 with random operands, C poisoned and guarded, checked against the host reference.
#include "tessel/testing/elementwise_check.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

DemoRun run_elementwise(const Options& o, std::mt19937_64& rng) {
  const ElementwiseConfig c = elementwise_config(o);
  const codegen::Module m = elementwise_kernel(c);
  use_device_for(m);
  const ElementwiseCase k = random_elementwise_case(c, rng, int64_t{1} << 20);
  const bool unary = is_unary(c.op);
  rt::DeviceBuffer da = rt::DeviceBuffer::from(k.a);
  rt::DeviceBuffer db = unary ? rt::DeviceBuffer() : rt::DeviceBuffer::from(k.b);
  rt::DeviceBuffer dc(k.c_bytes + ElementwiseCase::kGuardBytes);
  dc.fill(ElementwiseCase::kPoison);
  const ElementwiseArguments args = at_addresses(k.args, da.ptr(), unary ? da.ptr() : db.ptr(), dc.ptr());
  const codegen::LaunchPlan plan = elementwise_plan(c, args);
  const rt::Function f = load_plan(plan);
  rt::Event start, stop;
  start.record();
  launch_plan(plan, f);
  stop.record();
  stop.synchronize();
  DemoRun r;
  r.kernel_ms = rt::elapsed_ms(start, stop);
  std::string shape;
  for (int64_t e : k.args.C.shape) shape += (shape.empty() ? "" : "x") + std::to_string(e);
  r.problem = "shape " + shape + ", grid " + std::to_string(plan.grid[0]);
  const int64_t n = k.args.C.size(), eb = codegen::bytes(c.dtype);
  r.bytes = static_cast<double>(n * eb * (unary ? 2 : 3));
  const std::string diff = check_elementwise(k, dc.to_vector<uint8_t>());
  r.ok = diff.empty();
  r.result = r.ok ? "all " + std::to_string(n) + " elements match the host, padding and guard intact" : diff;
  return r;
}

}  // namespace tessel::kernels
