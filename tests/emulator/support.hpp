// support.hpp: helpers of the emulator tests: a launch plan around one built kernel, a run that
// must fail with its message returned, and addressing of element i of a buffer.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "algebra/support.hpp"
#include "tessel/codegen.hpp"
#include "tessel/emulator.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::test {

// A plan launching kernel k alone, grid x block (1-D).
inline codegen::LaunchPlan plan_of(codegen::Kernel k, unsigned grid, unsigned block) {
  codegen::LaunchPlan p;
  p.kernel = k.name;
  p.module.kernels.push_back(std::move(k));
  p.grid = {grid, 1, 1};
  p.block = {block, 1, 1};
  return p;
}

// The message of the EmulationError that running `plan` must throw ("" if it ran, with a failed
// check).
inline std::string emulation_error(const codegen::LaunchPlan& plan, emu::Memory& mem, const emu::RunOptions& o = {}) {
  try {
    emu::run(plan, mem, o);
  } catch (const emu::EmulationError& e) {
    return e.what();
  }
  FAIL_CHECK("the emulator ran " << plan.kernel << " without an error");
  return "";
}

// A 1-D tensor of w u32 words, in boxes of box_w.
inline rt::TensorMapSpec spec_1d(int64_t w, int64_t box_w) {
  rt::TensorMapSpec s;
  s.type = rt::TensorMapDataType::U32;
  s.dims = {w};
  s.strides = {1};
  s.box = {box_w};
  return s;
}

// A 2-D tensor of u32 words, w x h with rows ld words apart, in boxes of box_w x box_h.
inline rt::TensorMapSpec spec_2d(int64_t w, int64_t h, int64_t ld, int64_t box_w, int64_t box_h) {
  rt::TensorMapSpec s;
  s.type = rt::TensorMapDataType::U32;
  s.dims = {w, h};
  s.strides = {1, ld};
  s.box = {box_w, box_h};
  return s;
}

// Checks that `message` (an emulator error) contains every one of `parts`.
inline void check_contains(const std::string& message, const std::vector<std::string>& parts) {
  INFO("message: " << message);
  for (const std::string& p : parts) CHECK_MESSAGE(message.find(p) != std::string::npos, "missing: " << p);
}

// Address of element `index` (of `bytes` bytes) from a u64 base pointer, in the kernel: the
// thread's own element when index is %tid.x-based.
inline codegen::Value element(codegen::KernelBuilder& b, codegen::Value base, codegen::Value index, int bytes) {
  return base + b.mul_wide(index, bytes);
}

// The global thread index ctaid.x * ntid.x + tid.x as an s32.
inline codegen::Value global_index(codegen::KernelBuilder& b) {
  using codegen::Special;
  using codegen::Type;
  codegen::Value t = b.cvt(b.special(Special::TidX), Type::S32);
  codegen::Value c = b.cvt(b.special(Special::CtaidX), Type::S32);
  codegen::Value n = b.cvt(b.special(Special::NtidX), Type::S32);
  return b.mad(c, n, t);
}

}  // namespace tessel::test
