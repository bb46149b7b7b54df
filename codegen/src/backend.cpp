// backend.cpp: the backend choice (default, environment, registered roads) and emit_ptx.
#include "tessel/codegen/backend.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

namespace {

std::mutex& mutex() {
  static std::mutex m;
  return m;
}
std::optional<Backend>& chosen() {
  static std::optional<Backend> b;
  return b;
}
std::atomic<PtxRoad>& llvm_road() {
  static std::atomic<PtxRoad> r{nullptr};
  return r;
}

}  // namespace

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Ptx:
      return "ptx";
    case Backend::Llvm:
      return "llvm";
  }
  return "?";
}

Backend parse_backend(const std::string& name) {
  if (name == "ptx") return Backend::Ptx;
  if (name == "llvm") return Backend::Llvm;
  fail("codegen: unknown backend '" + name + "' (the backends are ptx and llvm)");
}

Backend default_backend() {
  std::lock_guard lock(mutex());
  if (!chosen()) {
    const char* e = std::getenv("TESSEL_BACKEND");
    if (e && *e) {
      try {
        chosen() = parse_backend(e);
      } catch (const Error&) {
        fail(std::string("codegen: TESSEL_BACKEND='") + e + "' is not a backend (ptx or llvm)");
      }
    } else {
      chosen() = Backend::Ptx;
    }
  }
  return *chosen();
}

void set_default_backend(Backend b) {
  std::lock_guard lock(mutex());
  chosen() = b;
}

void register_backend(Backend b, PtxRoad road) {
  if (b == Backend::Ptx) fail("codegen: the ptx backend is the printer; it cannot be replaced");
  llvm_road().store(road);
}

bool backend_available(Backend b) { return b == Backend::Ptx || llvm_road().load() != nullptr; }

std::string emit_ptx(const Module& m, Backend b, const PrintOptions& o) {
  if (b == Backend::Ptx) return print_ptx(m, o);
  const PtxRoad road = llvm_road().load();
  if (!road) {
    fail("codegen: the llvm backend is not available: tessel was built without TESSEL_WITH_LLVM=ON, or the "
         "program did not call tessel::codegen_llvm::enable()");
  }
  return road(m, o);
}

}  // namespace tessel::codegen
