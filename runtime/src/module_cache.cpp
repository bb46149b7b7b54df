// module_cache.cpp: ModuleCache and ptx_hash.
#include "tessel/runtime/module_cache.hpp"

#include <algorithm>
#include <future>

#include "call.hpp"
#include "context_guard.hpp"
#include "hash.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/phases.hpp"

namespace tessel::rt {

std::uint64_t ptx_hash(std::string_view text) { return detail::hash_bytes(text, detail::kPtxHashSeed); }

struct ModuleCache::Entry {
  std::string text;
  std::shared_future<Module> module;
};

namespace {

Module load_in_context(std::string_view ptx, void* context) {
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, context);
  const DiskCache* disk = DiskCache::process_cache();
  // Without the disk cache, or for a kernel whose setmaxnreg the linker would ignore
  // (disk_cache.hpp): a whole-program compile, which the driver's JIT cache keeps.
  if (!disk || needs_whole_program_compile(ptx)) {
    Module m = Module::load_ptx(ptx);
    phase(disk ? "module loaded (PTX as a whole program: setmaxnreg)" : "module loaded (PTX, no disk cache)");
    return m;
  }
  // The machine code depends on the device (its compute capability) and on the driver's compiler.
  const int cc = cached_device_properties(current_device()).compute_capability();
  return load_through_disk_cache(*disk, make_disk_cache_key(ptx, cc, d.version), ptx, link_ptx, Module::load_image);
}

}  // namespace

ModuleCache::ModuleCache() : loader_(load_in_context) {}
ModuleCache::ModuleCache(Loader loader) : loader_(std::move(loader)) {
  if (!loader_) fail("ModuleCache: the loader is empty");
}

Module ModuleCache::get(std::string_view ptx) {
  void* context = detail::current_context(detail::api());
  if (!context)
    fail(
        "ModuleCache::get: no current CUDA context on this thread (create a tessel::rt::Context, or call its "
        "make_current())");
  return get(ptx, context);
}

Module ModuleCache::get(std::string_view ptx, void* context) {
  Key key{context, ptx_hash(ptx)};
  std::shared_future<Module> loaded;  // by an earlier request, or one still loading
  std::promise<Module> promise;
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto& bucket = entries_[key];
    for (const auto& e : bucket)
      if (e->text == ptx) loaded = e->module;
    if (!loaded.valid()) {
      entry = std::make_shared<Entry>();
      entry->text = std::string(ptx);
      entry->module = promise.get_future().share();
      bucket.push_back(entry);
    }
  }
  if (loaded.valid()) return loaded.get();  // waits if that load is still running

  // Load outside the lock: JIT compilation can take seconds, and other texts need not wait.
  try {
    promise.set_value(loader_(ptx, context));
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      std::erase(it->second, entry);
      if (it->second.empty()) entries_.erase(it);
    }
  }
  return entry->module.get();
}

std::size_t ModuleCache::size() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [key, bucket] : entries_) n += bucket.size();
  return n;
}

void ModuleCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

ModuleCache& ModuleCache::global() {
  static ModuleCache* cache = new ModuleCache();
  return *cache;
}

}  // namespace tessel::rt
