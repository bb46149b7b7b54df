// module_cache.hpp: loaded modules, one per (context, PTX text), shared by every thread: the
// same generated PTX is JIT-compiled once per context however often it is asked for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessel/runtime/module.hpp"

namespace tessel::rt {

// A 64-bit hash of PTX text (deterministic across runs and platforms, so logs can name a
// module by it). Equal text gives equal hashes; the cache compares the text as well.
std::uint64_t ptx_hash(std::string_view text);

class ModuleCache {
 public:
  // How the cache loads a module into a context; the default makes `context` current for the
  // call and runs Module::load_ptx. Tests substitute their own.
  using Loader = std::function<Module(std::string_view ptx, void* context)>;

  ModuleCache();
  explicit ModuleCache(Loader loader);
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // The module of `ptx` in the current context (tessel::Error if this thread has none),
  // loaded on first request. Concurrent first requests load once; the others wait for it. A
  // load that throws is not cached: every waiter gets the error, and the next request retries.
  Module get(std::string_view ptx);
  Module get(std::string_view ptx, void* context);

  std::size_t size() const;  // modules held (or being loaded)
  void clear();              // forgets them; each is unloaded when its last user lets go

  // The process-wide cache (never destroyed, so modules stay valid until exit).
  static ModuleCache& global();

 private:
  struct Entry;
  struct Key {
    void* context;
    std::uint64_t hash;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return static_cast<std::size_t>(k.hash ^ (reinterpret_cast<std::uintptr_t>(k.context) * 0x9E3779B97F4A7C15ull));
    }
  };

  Loader loader_;
  mutable std::mutex mutex_;
  // Entries with equal hashes (a collision) share a bucket and are told apart by their text.
  std::unordered_map<Key, std::vector<std::shared_ptr<Entry>>, KeyHash> entries_;
};

}  // namespace tessel::rt
