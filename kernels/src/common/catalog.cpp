// common/catalog.cpp: see catalog.hpp. The kernel base (compile, run, the artifact cache), the registry
// and the queries over it.
#include "tessel/kernels/catalog.hpp"

#include <set>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/module_cache.hpp"

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

Artifact Kernel::compile(const Arguments& args, std::optional<int> cc, std::optional<codegen::Backend> backend) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  if (cc && *cc < metadata_.min_cc) {
    fail(name() + " needs compute capability " + std::to_string(metadata_.min_cc) + ", asked to compile for " +
         std::to_string(*cc));
  }
  Artifact a;
  a.module = generate(args);
  a.kernel = name();
  if (a.module.kernels.empty()) fail(name() + ": generate() made an empty module");
  a.backend = backend.value_or(codegen::default_backend());
  a.ptx = codegen::emit_ptx(a.module, a.backend);
  a.target_sm = codegen::requirement(a.module).sm;
  a.loaded = std::make_shared<Artifact::Loaded>();
  return a;
}

void Kernel::run(const Arguments& args, const Artifact& artifact, rt::StreamRef stream, uint64_t workspace) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  if (const std::size_t need = workspace_size(args); need > 0 && workspace == 0) {
    fail(name() + " needs a workspace of " + std::to_string(need) + " bytes (workspace_size), got none");
  }
  if (artifact.kernel != name()) fail(name() + ": run with the artifact of " + artifact.kernel);
  const codegen::LaunchPlan p = plan_for_launch(args, artifact);
  const rt::Function f = artifact.function();
  for (const codegen::Kernel& k : artifact.module.kernels) {
    if (k.name == artifact.kernel) return launch_kernel(f, k, p, stream);
  }
  fail(name() + ": the artifact's module has no kernel " + artifact.kernel);
}

codegen::LaunchPlan Kernel::plan_for_launch(const Arguments& args, const Artifact& artifact) const {
  codegen::LaunchPlan p = plan(args, artifact);
  p.module = {};
  return p;
}

void Kernel::run(const Arguments& args, rt::StreamRef stream, uint64_t workspace) const {
  if (const Status s = supports(args); !s) fail(name() + " cannot run these arguments: " + s.reason);
  const std::string key = artifact_key(args);
  const Artifact* artifact = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = artifacts_.find(key);
    if (it == artifacts_.end()) it = artifacts_.emplace(key, compile(args)).first;
    artifact = &it->second;  // map nodes stay put; artifacts are never erased
  }
  run(args, *artifact, stream, workspace);
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
  const std::vector<KernelPtr> fresh = c->generate_kernels();
  std::lock_guard lock(mutex_);
  std::set<std::string> taken;
  for (const KernelClassPtr& k : classes_) {
    if (k->name() == cname) fail("register_kernel_class: a kernel class called '" + cname + "' is registered already");
    for (const KernelPtr& kp : k->generate_kernels()) taken.insert(kp->name());
  }
  for (const KernelPtr& kp : fresh) {
    if (kp->metadata().kernel_class != cname) {
      fail("register_kernel_class: class '" + cname + "' made kernel " + kp->name() + " of class '" +
           kp->metadata().kernel_class + "' (metadata.kernel_class must be the class's name)");
    }
    if (!taken.insert(kp->name()).second) {
      fail("register_kernel_class: class '" + cname + "' makes kernel " + kp->name() +
           ", a name the catalog has already (kernel names are unique)");
    }
  }
  classes_.push_back(std::move(c));
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
  std::vector<KernelPtr> out;
  for (const KernelClassPtr& c : classes()) {
    for (KernelPtr& k : c->generate_kernels(filter, epilogue, cc)) out.push_back(std::move(k));
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
  return out;
}

std::vector<KernelPtr> list_kernels(const MetadataFilter& filter, std::optional<int> cc) {
  return Registry::global().kernels(filter, std::nullopt, cc);
}

KernelPtr find_kernel(const std::string& name) {
  std::vector<KernelPtr> found = list_kernels([&](const KernelMetadata& md) { return md.name == name; });
  if (found.empty()) fail("no kernel called '" + name + "' in the catalog (`tessel list` lists them)");
  return found.front();
}

}  // namespace tessel::kernels
