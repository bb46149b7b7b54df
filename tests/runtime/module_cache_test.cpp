// module_cache_test.cpp: one module per (context, PTX text), loaded once however many threads
// ask; keying and failure handling checked with a stand-in loader on the CPU.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpu.hpp"
#include "kernels.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

namespace {

void* fake_context(std::uintptr_t n) { return reinterpret_cast<void*>(n); }

}  // namespace

TEST_CASE("runtime: ptx_hash is deterministic and separates texts") {
  // Pinned values: the hash names modules in logs, so it must not change between builds.
  CHECK(rt::ptx_hash("") == rt::ptx_hash(std::string()));
  CHECK(rt::ptx_hash("abc") == rt::ptx_hash(std::string("abc")));
  CHECK(rt::ptx_hash("") == 0xE220A8397B1DCDAFull);
  CHECK(rt::ptx_hash(".version 8.0\n.target sm_90a\n") == 0xFBD455DC3E561F11ull);
  // Texts that differ by one byte anywhere, by length, or by trailing NULs hash apart.
  std::set<std::uint64_t> seen;
  std::string base(100, 'x');
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::string s = base;
    s[i] = 'y';
    seen.insert(rt::ptx_hash(s));
  }
  for (std::size_t n = 0; n <= 100; ++n) seen.insert(rt::ptx_hash(std::string(n, 'x')));
  for (std::size_t n = 1; n <= 16; ++n) seen.insert(rt::ptx_hash(std::string(n, '\0')));
  CHECK(seen.size() == 100 + 101 + 16);
}

TEST_CASE("runtime: ModuleCache loads once per context and text") {
  std::vector<std::pair<std::string, void*>> loads;
  rt::ModuleCache cache([&](std::string_view ptx, void* context) {
    loads.emplace_back(std::string(ptx), context);
    return rt::Module();
  });
  cache.get("kernel A", fake_context(1));
  cache.get("kernel A", fake_context(1));
  CHECK(loads.size() == 1);
  cache.get("kernel A", fake_context(2));  // another context: loaded again
  cache.get("kernel B", fake_context(1));
  cache.get("kernel B", fake_context(1));
  CHECK(cache.size() == 3);
  REQUIRE(loads.size() == 3);
  CHECK(loads[0] == std::make_pair(std::string("kernel A"), fake_context(1)));
  CHECK(loads[1] == std::make_pair(std::string("kernel A"), fake_context(2)));
  CHECK(loads[2] == std::make_pair(std::string("kernel B"), fake_context(1)));
  cache.clear();
  CHECK(cache.size() == 0);
  cache.get("kernel A", fake_context(1));
  CHECK(loads.size() == 4);
}

TEST_CASE("runtime: ModuleCache loads once when several threads ask at the same time") {
  std::atomic<int> loads{0};
  rt::ModuleCache cache([&](std::string_view, void*) {
    ++loads;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the others arrive meanwhile
    return rt::Module();
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back([&] { cache.get("same text", fake_context(1)); });
  for (auto& t : threads) t.join();
  CHECK(loads == 1);
  CHECK(cache.size() == 1);
}

TEST_CASE("runtime: ModuleCache does not keep a failed load") {
  std::atomic<int> calls{0};
  rt::ModuleCache cache([&](std::string_view, void*) -> rt::Module {
    if (calls++ == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw tessel::Error("first load fails");
    }
    return rt::Module();
  });
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      try {
        cache.get("text", fake_context(1));
      } catch (const tessel::Error& e) {
        if (std::string(e.what()) == "first load fails") ++failures;
      }
    });
  for (auto& t : threads) t.join();
  // Threads that arrived during the failed load share its error; later ones load again.
  CHECK(failures >= 1);
  CHECK(calls == 1 + (4 - failures));
  CHECK(cache.size() == (failures < 4 ? 1u : 0u));
  CHECK_NOTHROW(cache.get("text", fake_context(1)));
  CHECK(cache.size() == 1);
}

TEST_CASE("runtime: ModuleCache refuses an empty loader") {
  CHECK_THROWS_WITH_AS(rt::ModuleCache(rt::ModuleCache::Loader()), "ModuleCache: the loader is empty", tessel::Error);
}

// --- GPU ------------------------------------------------------------------------------------

TEST_CASE("runtime: the module cache gives every thread the same loaded module") {
  TESSEL_REQUIRE_GPU(80);
  rt::Context& context = tessel::test::gpu_context();
  rt::ModuleCache cache;
  std::vector<void*> handles(8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      context.make_current();  // a new thread has no current context
      handles[t] = cache.get(tessel::test::kVectorAddPtx).native();
    });
  for (auto& t : threads) t.join();
  CHECK(handles[0] != nullptr);
  CHECK(std::set<void*>(handles.begin(), handles.end()).size() == 1);
  CHECK(cache.size() == 1);
  CHECK(cache.get(tessel::test::kVectorAddPtx).native() == handles[0]);

  std::string error;
  std::thread([&] {
    try {
      cache.get(tessel::test::kVectorAddPtx);
    } catch (const tessel::Error& e) {
      error = e.what();
    }
  }).join();
  CHECK(error.rfind("ModuleCache::get: no current CUDA context on this thread", 0) == 0);
}
