// common/launch.cpp: see launch.hpp.
#include "tessel/kernels/launch.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;

const rt::DeviceProperties& device_in_use() {
  // The last answer on this thread, for the context current then: one driver query (the current
  // context) instead of four on every call. A primary context belongs to one device for the life
  // of the process.
  thread_local void* known_context = nullptr;
  thread_local const rt::DeviceProperties* known = nullptr;
  if (void* context = rt::current_context(); context && context == known_context) return *known;
  int ordinal = rt::current_device();
  if (ordinal < 0) {  // no context on this thread: device 0's primary one, kept for the process
    static rt::Context* fallback = new rt::Context(0);
    fallback->make_current();
    ordinal = 0;
  }
  known = &rt::cached_device_properties(ordinal);
  known_context = rt::current_context();
  return *known;
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

namespace {

// Above 48 KB a function's dynamic shared memory must be allowed first (cuFuncSetAttribute): once
// per function and size, remembered here (a function's attribute stays set). The map keeps a copy
// of each such function, so that its module stays loaded and its handle cannot come back as
// another function's.
void allow_dynamic_shared(const rt::Function& f, unsigned bytes) {
  if (bytes <= 48 * 1024) return;
  static std::mutex mutex;
  static auto* allowed = new std::unordered_map<void*, std::pair<rt::Function, unsigned>>;  // the largest size set
  {
    std::lock_guard lock(mutex);
    auto it = allowed->find(f.native());
    if (it != allowed->end() && it->second.second >= bytes) return;
  }
  f.set_max_dynamic_shared_memory(static_cast<int>(bytes));
  std::lock_guard lock(mutex);
  auto [it, fresh] = allowed->try_emplace(f.native(), f, bytes);
  if (!fresh) it->second.second = std::max(it->second.second, bytes);
}

}  // namespace

ReadyLaunch ready_launch(const rt::Function& f, const Kernel& k, const LaunchPlan& plan) {
  if (plan.params.size() != k.params.size()) {
    fail("launch plan for " + k.name + ": " + std::to_string(plan.params.size()) + " arguments for " +
         std::to_string(k.params.size()) + " parameters");
  }
  ReadyLaunch r;
  r.function = f;
  for (size_t i = 0; i < plan.params.size(); ++i) {
    const auto& p = plan.params[i];
    r.args.add_bytes(p.data(), p.size(), k.params[i].kind == Param::Kind::TensorMap ? 64 : p.size());
  }
  allow_dynamic_shared(f, plan.dynamic_shared_bytes);
  r.config.grid = {plan.grid[0], plan.grid[1], plan.grid[2]};
  r.config.block = {plan.block[0], plan.block[1], plan.block[2]};
  r.config.cluster = {plan.cluster[0], plan.cluster[1], plan.cluster[2]};
  r.config.dynamic_shared_bytes = plan.dynamic_shared_bytes;
  return r;
}

void launch_ready(const ReadyLaunch& r, rt::StreamRef stream) {
  rt::LaunchConfig lc = r.config;
  lc.stream = stream;
  rt::launch(r.function, lc, r.args);
}

void launch_kernel(const rt::Function& f, const Kernel& k, const LaunchPlan& plan, rt::StreamRef stream) {
  launch_ready(ready_launch(f, k, plan), stream);
}

void launch_plan(const LaunchPlan& plan, rt::StreamRef stream) { launch_plan(plan, load_plan(plan), stream); }

}  // namespace tessel::kernels
