// function_ref.hpp: FunctionRef, a callable borrowed for the length of a call (LLVM's
// function_ref): the builder's control flow takes its bodies this way.
//
// A std::function copies its callable in, onto the heap where the callable is larger than two
// pointers: an epilogue's lambdas, which capture several references, cost an allocation and a
// free per `if`, and the builder makes about a hundred thousand of them over the Hopper GEMMs.
// A FunctionRef holds the callable's address and a function that calls it, so it must not
// outlive the callable (a parameter, never a member).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace tessel::codegen {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  FunctionRef() = default;  // none: operator bool is false
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): a callable converts, as to std::function
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* c, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(c))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }
  explicit operator bool() const { return call_ != nullptr; }

 private:
  void* callable_ = nullptr;
  R (*call_)(void*, Args...) = nullptr;
};

}  // namespace tessel::codegen
