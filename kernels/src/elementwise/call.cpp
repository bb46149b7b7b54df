// elementwise/call.cpp: the one-call path of the elementwise kernels (tessel::elementwise and the
// plans for a problem form): each form's choice and parameters made once by host.cpp's full path
// (every check, normal form, choice), then only the checks of addresses and values, the values
// written over the form's parameters, and the launch.
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "elementwise/steps.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;
using namespace elementwise_steps;

namespace {

// What the choice of kernel and every parameter but the addresses, alpha and beta depend on: the
// operation, the options, each operand's layout and address modulo 16 bytes, and which operands
// share an address (in place, the read-only path). Appended to `key`.
void append_form_key(std::string& key, const ElementwiseArguments& a, const ElementwiseOptions& o) {
  const auto raw = [&](const auto& x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  raw(static_cast<int32_t>(a.op));
  raw(o.threads);
  raw(o.rows);
  raw(o.max_blocks);
  raw(o.stage);
  for (const TensorView* v : {&a.A, &a.B, &a.C}) {
    append_layout_key(key, *v);
    raw(static_cast<uint8_t>(v->data % 16));
  }
  raw(static_cast<uint8_t>((a.C.data == a.A.data) | (a.C.data == a.B.data) << 1 | (a.A.data == a.B.data) << 2));
}

// A problem form's launch plan (no module), ready but for the addresses, alpha and beta: made by
// the full path (every check, normal form, choice) for the first arguments of the form.
struct PlanForm {
  LaunchPlan plan;                               // kernel (the configuration's name), grid, block, params
  std::array<int, 3> pointer_param{-1, -1, -1};  // the parameter index of A, B, C
  int alpha_param = -1, beta_param = -1;
  ElementwiseConfig config;
};

// The form's parameters with the addresses, alpha and beta of `args` written over them; `at` holds
// a pointer to each parameter's bytes.
void write_values(const PlanForm& f, const ElementwiseArguments& args, void* const* at) {
  const std::array<uint64_t, 3> data{args.A.data, args.B.data, args.C.data};
  for (size_t x = 0; x < 3; ++x)
    if (f.pointer_param[x] >= 0) std::memcpy(at[f.pointer_param[x]], &data[x], sizeof(uint64_t));
  if (f.alpha_param >= 0) write_scalar(args.C.dtype, args.alpha, at[f.alpha_param]);
  if (f.beta_param >= 0) write_scalar(args.C.dtype, args.beta, at[f.beta_param]);
}

// The form of `args` (null for an empty problem): cached by append_form_key, so that arguments of
// a known form run only the checks that read addresses and values (check_addresses,
// check_scalars); the first of a form runs every check. Thread-safe; bounded (4096 forms).
std::shared_ptr<const PlanForm> plan_form(const ElementwiseArguments& args, const ElementwiseOptions& o) {
  thread_local std::string key;
  key.clear();
  append_form_key(key, args, o);
  static std::mutex mutex;
  static auto* forms = new std::unordered_map<std::string, std::shared_ptr<const PlanForm>>;  // never destroyed
  std::shared_ptr<const PlanForm> known;  // shared: a caller keeps its form through a clear
  {
    std::lock_guard lock(mutex);
    auto it = forms->find(key);
    if (it != forms->end()) known = it->second;
  }
  if (known) {
    check_addresses(args);
    check_scalars(args);
    return known;
  }
  const Prepared p = prepare(args, o);  // every check
  if (p.grid[0] == 0) return nullptr;   // nothing to do (not cached: the checks are cheap)
  auto f = std::make_shared<PlanForm>();
  f->plan = plan_of(p, false);
  f->config = p.config;
  const std::vector<Param>& params = module_for(p.config).kernels[0].params;
  for (size_t i = 0; i < params.size(); ++i) {
    for (int x = 0; x < 3; ++x)
      if (params[i].name == kOperandNames[x]) f->pointer_param[static_cast<size_t>(x)] = static_cast<int>(i);
    if (params[i].name == "alpha") f->alpha_param = static_cast<int>(i);
    if (params[i].name == "beta") f->beta_param = static_cast<int>(i);
  }
  std::lock_guard lock(mutex);
  if (forms->size() >= 4096) forms->clear();  // a process that sweeps shapes starts over
  return forms->emplace(key, std::move(f)).first->second;  // a racing thread's form wins
}

}  // namespace

LaunchPlan elementwise_launch_plan(const ElementwiseArguments& args, const ElementwiseOptions& o) {
  const std::shared_ptr<const PlanForm> f = plan_form(args, o);
  if (!f) return LaunchPlan{};
  LaunchPlan p = f->plan;
  void* at[64];
  if (p.params.size() > 64) fail("elementwise: more than 64 kernel parameters");
  for (size_t i = 0; i < p.params.size(); ++i) at[i] = p.params[i].data();
  write_values(*f, args, at);
  return p;
}

std::optional<ElementwiseConfig> elementwise_config_for(const ElementwiseArguments& args, const ElementwiseOptions& o) {
  const std::shared_ptr<const PlanForm> f = plan_form(args, o);
  if (!f) return std::nullopt;
  return f->config;
}

namespace {

// One problem form's launch in one context: the form's plan packed for the loaded function.
struct Form {
  std::shared_ptr<const PlanForm> plan;
  ReadyLaunch ready;                       // packed with the first call's values
};

// The form's launch in the current context: generation (once per configuration), load (once per
// configuration and context), the parameters packed.
std::shared_ptr<Form> make_form(std::shared_ptr<const PlanForm> plan) {
  const Module& m = module_for(plan->config);
  use_device_for(m);  // the current context (device 0's primary one where there is none): every function below belongs to it
  static std::mutex mutex;
  static std::map<std::pair<void*, std::string>, rt::Function> functions;
  rt::Function f;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(rt::current_context(), plan->plan.kernel);
    auto it = functions.find(key);
    if (it == functions.end()) {
      LaunchPlan load;
      load.module = m;
      load.kernel = plan->plan.kernel;
      it = functions.emplace(key, load_plan(load)).first;
    }
    f = it->second;
  }
  auto form = std::make_shared<Form>();
  form->ready = ready_launch(f, m.kernels[0], plan->plan);
  form->plan = std::move(plan);
  return form;
}

}  // namespace

void elementwise(const ElementwiseArguments& args, rt::StreamRef stream, const ElementwiseOptions& o) {
  void* context = rt::driver_available() ? rt::current_context() : nullptr;
  if (!context) {
    // Bad arguments are refused, and an empty problem does nothing, before the driver is asked.
    if (!plan_form(args, o)) return;
    device_in_use();  // device 0's primary context, made current for the process (or no driver: its error)
    context = rt::current_context();
  }
  thread_local std::string key;
  key.assign(reinterpret_cast<const char*>(&context), sizeof context);
  append_form_key(key, args, o);
  static std::mutex mutex;
  static auto* forms = new std::unordered_map<std::string, std::shared_ptr<Form>>;  // never destroyed
  std::shared_ptr<Form> form;  // shared: a call in flight keeps its form through a clear
  {
    std::lock_guard lock(mutex);
    auto it = forms->find(key);
    if (it != forms->end()) form = it->second;
  }
  if (form) {
    // Same layouts, alignment and aliasing: the layout checks held, the choice and the parameters
    // stand; the checks of addresses and values run again.
    check_addresses(args);
    check_scalars(args);
  } else {
    std::shared_ptr<const PlanForm> plan = plan_form(args, o);  // every check (for a new form)
    if (!plan) return;                                           // nothing to do
    std::shared_ptr<Form> fresh = make_form(std::move(plan));
    std::lock_guard lock(mutex);
    if (forms->size() >= 4096) forms->clear();  // bounded: a process that sweeps shapes starts over
    form = forms->emplace(key, std::move(fresh)).first->second;  // a racing thread's form wins
  }
  if (o.check_device_memory) check_in_allocation(args);
  // The parameters: the form's, with this call's addresses, alpha and beta written over them.
  thread_local ReadyLaunch scratch;
  scratch = form->ready;
  void* at[64];
  if (scratch.args.size() > 64) fail("elementwise: more than 64 kernel parameters");
  scratch.args.pointers(at);
  write_values(*form->plan, args, at);
  launch_ready(scratch, stream);
}

}  // namespace tessel::kernels
