// common/catalog.cpp: see catalog.hpp. The kernel base (compile, run, the artifact cache), the registry
// and the queries over it.
#include "tessel/kernels/catalog.hpp"

#include <algorithm>
#include <set>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/module_cache.hpp"
#include "tessel/runtime/phases.hpp"

namespace tessel::kernels {

// --- Artifact -----------------------------------------------------------------------------------

struct Artifact::Loaded {
  std::mutex mutex;
  std::map<void*, rt::Function> functions;  // by context: a module loaded in one is not valid in another
};

rt::Function Artifact::function() const {
  if (!loaded) fail("artifact of " + kernel + ": not made by Kernel::compile (no load state)");
  void* context = rt::current_context();
  std::lock_guard lock(loaded->mutex);
  if (context) {
    auto it = loaded->functions.find(context);
    if (it != loaded->functions.end()) return it->second;  // the common case: one lookup, no driver query
  }
  use_device_for(module);  // the current context (or device 0's primary one), and a clear error below the target
  context = rt::current_context();
  rt::Function f = rt::ModuleCache::global().get(ptx, context).function(kernel);
  loaded->functions.emplace(context, f);
  return f;
}

// --- Kernel -------------------------------------------------------------------------------------

Kernel::Kernel(KernelMetadata metadata) : metadata_(std::move(metadata)) {}
Kernel::~Kernel() = default;
KernelClass::~KernelClass() = default;

std::size_t Kernel::workspace_size(const Arguments&) const { return 0; }
std::string Kernel::artifact_key(const Arguments&) const { return {}; }

codegen::Module Kernel::generate() const { return generate(example_arguments(metadata_)); }

std::vector<OptionSpec> KernelClass::options() const { return {}; }
std::vector<Options> KernelClass::variants() const { return {}; }
KernelPtr KernelClass::configure(const Options&) const {
  fail("kernel class " + name() + " has no options: name one of its kernels (`tessel list --class " + name() + "`)");
}

namespace {

Artifact make_artifact(const Kernel& k, codegen::Module module, std::optional<codegen::Backend> backend) {
  Artifact a;
  a.module = std::move(module);
  a.kernel = k.name();
  if (a.module.kernels.empty()) fail(k.name() + ": generate() made an empty module");
  a.backend = backend.value_or(codegen::default_backend());
  rt::phase("generated " + k.name());
  a.ptx = codegen::emit_ptx(a.module, a.backend);
  rt::phase("printed its PTX (" + std::to_string(a.ptx.size()) + " bytes)");
  a.target_sm = codegen::requirement(a.module).sm;
  a.loaded = std::make_shared<Artifact::Loaded>();
  return a;
}

}  // namespace

Artifact Kernel::compile_unchecked(std::optional<codegen::Backend> backend) const {
  return make_artifact(*this, generate(), backend);
}

Artifact Kernel::compile(const Arguments& args, std::optional<int> cc, std::optional<codegen::Backend> backend) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  if (cc && *cc < metadata_.min_cc) {
    fail(name() + " needs compute capability " + std::to_string(metadata_.min_cc) + ", asked to compile for " +
         std::to_string(*cc));
  }
  return make_artifact(*this, generate(args), backend);
}

void Kernel::run(const Arguments& args, const Artifact& artifact, rt::StreamRef stream, uint64_t workspace) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  // A GEMM's workspace travels in its arguments (GemmArguments::workspace), where its plan reads it.
  const auto* g = std::get_if<GemmArguments>(&args);
  const bool has_workspace = workspace != 0 || (g && g->workspace != 0);
  if (const std::size_t need = workspace_size(args); need > 0 && !has_workspace) {
    fail(name() + " needs a workspace of " + std::to_string(need) + " bytes (workspace_size), got none");
  }
  if (artifact.kernel != name()) fail(name() + ": run with the artifact of " + artifact.kernel);
  codegen::LaunchPlan p;
  if (g && workspace != 0 && g->workspace != workspace) {
    GemmArguments with = *g;
    with.workspace = workspace;
    p = plan_for_launch(with, artifact);
  } else {
    p = plan_for_launch(args, artifact);
  }
  const rt::Function f = artifact.function();
  for (const codegen::Kernel& k : artifact.module.kernels) {
    if (k.name == artifact.kernel) return launch_kernel(f, k, p, stream);
  }
  fail(name() + ": the artifact's module has no kernel " + artifact.kernel);
}

codegen::LaunchPlan Kernel::plan_for_launch(const Arguments& args, const Artifact& artifact,
                                            const LaunchTarget& target) const {
  codegen::LaunchPlan p = plan(args, artifact, target);
  p.module = {};
  return p;
}

const Artifact& Kernel::artifact_for(const Arguments& args) const {
  const std::string key = artifact_key(args);
  std::lock_guard lock(mutex_);
  auto it = artifacts_.find(key);
  if (it == artifacts_.end()) it = artifacts_.emplace(key, compile(args)).first;
  return it->second;  // map nodes stay put; artifacts are never erased
}

void Kernel::run(const Arguments& args, rt::StreamRef stream, uint64_t workspace) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  run(args, artifact_for(args), stream, workspace);
}

// --- Registry -----------------------------------------------------------------------------------

Registry& Registry::global() {
  static Registry* r = [] {
    auto* g = new Registry;  // never destroyed: user registrars may run during static init or exit
    register_builtin_kernel_classes(*g);
    return g;
  }();
  return *r;
}

void Registry::add(KernelClassPtr c) {
  if (!c) fail("register_kernel_class: a null kernel class");
  const std::string cname = c->name();
  // Generating metadata is cheap (kernels generate IR only when compiled), so names are checked
  // for uniqueness across the whole catalog here, once.
  std::vector<KernelPtr> fresh = c->generate_kernels();
  std::lock_guard lock(mutex_);
  for (const KernelClassPtr& k : classes_) {
    if (k->name() == cname) fail("register_kernel_class: a kernel class called '" + cname + "' is registered already");
  }
  std::set<std::string> names;
  for (const KernelPtr& kp : fresh) {
    if (kp->metadata().kernel_class != cname) {
      fail("register_kernel_class: class '" + cname + "' made kernel " + kp->name() + " of class '" +
           kp->metadata().kernel_class + "' (metadata.kernel_class must be the class's name)");
    }
    if (by_name_.count(kp->name()) || !names.insert(kp->name()).second) {
      fail("register_kernel_class: class '" + cname + "' makes kernel " + kp->name() +
           ", a name the catalog has already (kernel names are unique)");
    }
  }
  for (const KernelPtr& kp : fresh) by_name_.emplace(kp->name(), kp);
  classes_.push_back(std::move(c));
  kernels_.push_back(std::move(fresh));
}

KernelPtr Registry::find_kernel(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<KernelClassPtr> Registry::classes() const {
  std::lock_guard lock(mutex_);
  return classes_;
}

KernelClassPtr Registry::find_class(const std::string& name) const {
  std::lock_guard lock(mutex_);
  for (const KernelClassPtr& c : classes_) {
    if (c->name() == name) return c;
  }
  return nullptr;
}

std::vector<KernelPtr> Registry::kernels(const MetadataFilter& filter, std::optional<Epilogue> epilogue,
                                         std::optional<int> cc) const {
  std::vector<std::vector<KernelPtr>> all;
  {
    std::lock_guard lock(mutex_);
    all = kernels_;
  }
  std::vector<KernelPtr> out;
  for (const std::vector<KernelPtr>& ks : all) {
    for (const KernelPtr& k : ks)
      if (admits(k->metadata(), filter, epilogue, cc)) out.push_back(k);
  }
  return out;
}

void register_kernel_class(KernelClassPtr c) { Registry::global().add(std::move(c)); }

// --- Queries ------------------------------------------------------------------------------------

std::vector<KernelPtr> get_kernels(const Arguments& args, const MetadataFilter& filter, std::optional<int> cc) {
  const Operation op = operation_of(args);
  const MetadataFilter same_operation = [&](const KernelMetadata& md) {
    return md.operation == op && (!filter || filter(md));
  };
  if (!cc) cc = device_cc_if_any();  // the device it would run on, where there is one
  std::vector<KernelPtr> out;
  for (KernelPtr& k : Registry::global().kernels(same_operation, std::nullopt, cc)) {
    if (k->supports(args)) out.push_back(std::move(k));
  }
  // GEMMs best first, by the one-call API's cost model (gemm.hpp) on the device they would run on
  // (an H100's 132 SMs where there is none); tensor-core kernels before CUDA-core ones.
  if (const auto* g = std::get_if<GemmArguments>(&args); g && out.size() > 1) {
    GemmDevice dev;
    if (device_cc_if_any()) dev = gemm_device_of(device_in_use());
    if (cc) dev.cc = *cc;
    std::vector<std::pair<double, KernelPtr>> scored;
    for (KernelPtr& k : out) {
      const double penalty = k->metadata().min_cc >= 90 ? 0 : 1e12;
      scored.emplace_back(estimate_gemm_us(k->metadata(), *g, dev) + penalty, std::move(k));
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.clear();
    for (auto& [score, k] : scored) out.push_back(std::move(k));
  }
  return out;
}

std::vector<KernelPtr> list_kernels(const MetadataFilter& filter, std::optional<int> cc) {
  return Registry::global().kernels(filter, std::nullopt, cc);
}

KernelPtr find_kernel(const std::string& name) {
  KernelPtr k = Registry::global().find_kernel(name);
  if (!k) fail("no kernel called '" + name + "' in the catalog (`tessel list` lists them)");
  return k;
}

// --- Names and options on a command line ------------------------------------------------------------

KernelPtr resolve_kernel(const std::string& name, const Options& given) {
  const Registry& r = Registry::global();
  // A configuration the catalog lists is its instance (and its compiled artifacts).
  auto listed = [&](KernelPtr k) {
    KernelPtr same = r.find_kernel(k->name());
    return same ? same : k;
  };
  if (const KernelClassPtr c = r.find_class(name))
    return listed(c->configure(resolve_options(c->options(), given, name)));
  std::vector<KernelPtr> found;
  if (KernelPtr k = r.find_kernel(name)) found.push_back(std::move(k));
  if (found.empty()) {
    std::string classes;
    for (const KernelClassPtr& c : r.classes()) classes += (classes.empty() ? "" : ", ") + c->name();
    fail("unknown kernel '" + name + "': neither a kernel class (" + classes +
         ") nor a kernel of the catalog (`tessel list` prints their names)");
  }
  KernelPtr k = std::move(found.front());
  if (given.empty()) return k;
  const KernelClassPtr c = r.find_class(k->metadata().kernel_class);
  if (!c || c->options().empty())
    fail(name + " takes no options: its class " + k->metadata().kernel_class + " has none");
  Options merged = k->metadata().options;
  for (const auto& [key, value] : given) merged[key] = value;
  // Unknown names and values are named as given, before the merge hides which were given.
  resolve_options(c->options(), given, name);
  return listed(c->configure(resolve_options(c->options(), merged, c->name())));
}

std::string kernel_arguments(const Kernel& k) {
  const KernelMetadata& md = k.metadata();
  const KernelClassPtr c = Registry::global().find_class(md.kernel_class);
  if (!c) return md.name;
  const std::vector<OptionSpec> specs = c->options();
  // A catalog entry that chooses its form at run time (elementwise) sets some options only.
  if (md.options.empty() || md.options.size() != specs.size()) return md.name;
  return md.kernel_class + " " + option_arguments(specs, resolve_options(specs, md.options, md.kernel_class));
}

std::vector<std::string> listed_kernels(const Registry& r) {
  std::vector<std::string> out;
  for (const KernelClassPtr& c : r.classes()) {
    for (const KernelPtr& k : c->generate_kernels()) out.push_back(k->name());
    const std::vector<OptionSpec> specs = c->options();
    for (const Options& v : c->variants())
      out.push_back(c->name() + " " + option_arguments(specs, resolve_options(specs, v, c->name())));
  }
  return out;
}

}  // namespace tessel::kernels
