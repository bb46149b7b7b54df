// launch.cpp: see launch.hpp.
#include "tessel/kernels/launch.hpp"

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;

void use_device_for(const Module& m) {
  static rt::Context* ctx = new rt::Context(0);  // device 0's primary context, kept for the process
  ctx->make_current();
  // Read once: some attributes (clock rates) cost the driver hundreds of microseconds per query,
  // which a launch path must not pay on every call.
  static const int cc = rt::device_properties(0).compute_capability();
  const Requirement r = requirement(m);
  if (cc < r.sm || (r.arch_specific && cc != r.sm)) {
    fail("cannot run " + (m.kernels.empty() ? std::string("an empty module") : m.kernels.front().name) + ": it needs " +
         target_name(r) + " (" + r.what + "), device 0 is sm_" + std::to_string(cc));
  }
}

rt::Function load_plan(const LaunchPlan& plan) {
  plan.entry();  // a clear error if the plan names no kernel of its module
  return rt::ModuleCache::global().get(print_ptx(plan.module)).function(plan.kernel);
}

void launch_plan(const LaunchPlan& plan, const rt::Function& f, rt::StreamRef stream) {
  launch_kernel(f, plan.entry(), plan, stream);
}

void launch_kernel(const rt::Function& f, const Kernel& k, const LaunchPlan& plan, rt::StreamRef stream) {
  if (plan.params.size() != k.params.size()) {
    fail("launch plan for " + k.name + ": " + std::to_string(plan.params.size()) + " arguments for " +
         std::to_string(k.params.size()) + " parameters");
  }
  rt::ArgPack args;
  for (size_t i = 0; i < plan.params.size(); ++i) {
    const auto& p = plan.params[i];
    args.add_bytes(p.data(), p.size(), k.params[i].kind == Param::Kind::TensorMap ? 64 : p.size());
  }
  // Above 48 KB a function's dynamic shared memory must be allowed first (cuFuncSetAttribute).
  if (plan.dynamic_shared_bytes > 48 * 1024) f.set_max_dynamic_shared_memory(static_cast<int>(plan.dynamic_shared_bytes));
  rt::LaunchConfig lc;
  lc.grid = {plan.grid[0], plan.grid[1], plan.grid[2]};
  lc.block = {plan.block[0], plan.block[1], plan.block[2]};
  lc.cluster = {plan.cluster[0], plan.cluster[1], plan.cluster[2]};
  lc.dynamic_shared_bytes = plan.dynamic_shared_bytes;
  lc.stream = stream;
  rt::launch(f, lc, args);
}

void launch_plan(const LaunchPlan& plan, rt::StreamRef stream) { launch_plan(plan, load_plan(plan), stream); }

}  // namespace tessel::kernels
