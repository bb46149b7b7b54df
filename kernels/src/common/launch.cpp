// common/launch.cpp: see launch.hpp.
#include "tessel/kernels/launch.hpp"

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;

const rt::DeviceProperties& device_in_use() {
  int ordinal = rt::current_device();
  if (ordinal < 0) {  // no context on this thread: device 0's primary one, kept for the process
    static rt::Context* fallback = new rt::Context(0);
    fallback->make_current();
    ordinal = 0;
  }
  return rt::cached_device_properties(ordinal);
}

std::optional<int> device_cc_if_any() {
  if (!rt::driver_status().available) return std::nullopt;
  try {
    if (rt::device_count() == 0) return std::nullopt;
    const int ordinal = rt::current_device();
    return rt::cached_device_properties(ordinal < 0 ? 0 : ordinal).compute_capability();
  } catch (const Error&) {  // a driver that loads but cannot enumerate: as if there were none
    return std::nullopt;
  }
}

void use_device_for(const Module& m) {
  const rt::DeviceProperties& device = device_in_use();
  const int cc = device.compute_capability();
  const Requirement r = requirement(m);
  if (cc < r.sm || (r.arch_specific && cc != r.sm)) {
    fail("cannot run " + (m.kernels.empty() ? std::string("an empty module") : m.kernels.front().name) + ": it needs " +
         target_name(r) + " (" + r.what + "), device " + std::to_string(device.ordinal) + " is sm_" +
         std::to_string(cc));
  }
}

rt::Function load_plan(const LaunchPlan& plan) {
  plan.entry();  // a clear error if the plan names no kernel of its module
  return rt::ModuleCache::global().get(emit_ptx(plan.module, default_backend())).function(plan.kernel);
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
