// module_cache.cpp: ModuleCache and ptx_hash.
#include "tessel/runtime/module_cache.hpp"

#include <algorithm>
#include <cstring>
#include <future>

#include "call.hpp"
#include "context_guard.hpp"

namespace tessel::rt {

std::uint64_t ptx_hash(std::string_view text) {
  // Eight bytes per step, each mixed in by multiply and xor-shift (the finaliser of splitmix64):
  // fast on the ~100 KB texts of large kernels, and the length is mixed in so that texts that
  // differ only by trailing zero bytes differ.
  auto mix = [](std::uint64_t h) {
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 31);
  };
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);  // the byte order of the host: same on x86-64 and aarch64
    h = mix(h ^ w);
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i + k < text.size(); ++k)
    tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i + k])) << (8 * k);
  return mix(h ^ tail);
}

struct ModuleCache::Entry {
  std::string text;
  std::shared_future<Module> module;
};

namespace {

Module load_in_context(std::string_view ptx, void* context) {
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, context);
  return Module::load_ptx(ptx);
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
