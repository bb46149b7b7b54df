// context_guard.hpp: makes an object's own context current for one driver call, so that a
// buffer, stream or module can be used (and destroyed) from a thread that has another current.
#pragma once

#include "driver_api.hpp"

namespace tessel::rt::detail {

class ContextGuard {
 public:
  // A null context, or one already current, changes nothing. Failures are left to the call that
  // follows, which then reports its own error (destructors ignore it).
  ContextGuard(const cu::DriverApi& d, void* context) : d_(d) {
    if (!context || d.cuCtxGetCurrent(&previous_) != cu::CUDA_SUCCESS || previous_ == context) return;
    switched_ = d.cuCtxSetCurrent(static_cast<cu::CUcontext>(context)) == cu::CUDA_SUCCESS;
  }
  ~ContextGuard() {
    if (switched_) d_.cuCtxSetCurrent(previous_);
  }
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  const cu::DriverApi& d_;
  cu::CUcontext previous_ = nullptr;
  bool switched_ = false;
};

// The calling thread's current context, or null.
inline void* current_context(const cu::DriverApi& d) {
  cu::CUcontext c = nullptr;
  return d.cuCtxGetCurrent(&c) == cu::CUDA_SUCCESS ? c : nullptr;
}

}  // namespace tessel::rt::detail
