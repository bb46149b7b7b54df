// module.cpp: loading PTX (with the JIT logs), functions and their attributes.
#include "tessel/runtime/module.hpp"

#include <string>
#include <vector>

#include "call.hpp"
#include "context_guard.hpp"

namespace tessel::rt {

struct Module::Impl {
  cu::CUmodule handle = nullptr;
  void* context = nullptr;
  std::string info_log;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (!handle) return;
    const cu::DriverApi& d = detail::api();
    detail::ContextGuard guard(d, context);
    d.cuModuleUnload(handle);
  }
};

namespace {

// The logs are filled up to their size and NUL-terminated; 64 KiB holds hundreds of errors.
constexpr std::size_t kLogBytes = 64 * 1024;

// The driver's log text without trailing NULs, newlines and spaces.
std::string trimmed(const std::vector<char>& log) {
  std::string s(log.data());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

Module Module::load_ptx(std::string_view ptx) {
  const cu::DriverApi& d = detail::api();
  // The image is read up to its terminating NUL.
  std::string text(ptx);
  std::vector<char> error_log(kLogBytes, '\0'), info_log(kLogBytes, '\0');
  cu::CUjit_option options[] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                cu::CU_JIT_INFO_LOG_BUFFER, cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  // Sizes travel as pointer-sized integers in the value array (the driver writes back the bytes used).
  void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1)),
                    info_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1))};
  cu::CUmodule handle = nullptr;
  cu::CUresult r = d.cuModuleLoadDataEx(&handle, text.c_str(), 4, options, values);
  if (r != cu::CUDA_SUCCESS) {
    std::string log = trimmed(error_log);
    if (log.empty()) log = trimmed(info_log);
    detail::throw_driver_error(d, r, "cuModuleLoadDataEx", log);
  }
  auto impl = std::make_shared<Impl>();
  impl->handle = handle;
  impl->context = detail::current_context(d);
  impl->info_log = trimmed(info_log);
  return Module(std::move(impl));
}

Module Module::load_image(std::string_view image) {
  const cu::DriverApi& d = detail::api();
  cu::CUmodule handle = nullptr;
  detail::check(d, d.cuModuleLoadData(&handle, image.data()), "cuModuleLoadData",
                "a machine-code image of " + std::to_string(image.size()) + " bytes");
  auto impl = std::make_shared<Impl>();
  impl->handle = handle;
  impl->context = detail::current_context(d);
  return Module(std::move(impl));
}

std::string link_ptx(std::string_view ptx) {
  const cu::DriverApi& d = detail::api();
  std::vector<char> error_log(kLogBytes, '\0'), info_log(kLogBytes, '\0');
  cu::CUjit_option options[] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                cu::CU_JIT_INFO_LOG_BUFFER, cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1)),
                    info_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1))};
  cu::CUlinkState state = nullptr;
  detail::check(d, d.cuLinkCreate(4, options, values, &state), "cuLinkCreate");
  // The state owns the image that cuLinkComplete returns (and uses the log buffers until then):
  // destroyed on every way out, after the image is copied.
  struct Destroy {
    const cu::DriverApi& d;
    cu::CUlinkState state;
    ~Destroy() { d.cuLinkDestroy(state); }
  } destroy{d, state};
  std::string text(ptx);  // the driver reads PTX up to its terminating NUL, which size counts
  auto fail_with_log = [&](cu::CUresult r, const char* call) {
    std::string log = trimmed(error_log);
    if (log.empty()) log = trimmed(info_log);
    detail::throw_driver_error(d, r, call, log);
  };
  if (cu::CUresult r = d.cuLinkAddData(state, cu::CU_JIT_INPUT_PTX, text.data(), text.size() + 1, "tessel.ptx", 0,
                                       nullptr, nullptr);
      r != cu::CUDA_SUCCESS)
    fail_with_log(r, "cuLinkAddData");
  void* image = nullptr;
  std::size_t size = 0;
  if (cu::CUresult r = d.cuLinkComplete(state, &image, &size); r != cu::CUDA_SUCCESS) fail_with_log(r, "cuLinkComplete");
  return std::string(static_cast<const char*>(image), size);
}

Function Module::function(const std::string& name) const {
  if (!impl_) fail("Module::function(\"" + name + "\"): no module loaded");
  const cu::DriverApi& d = detail::api();
  cu::CUfunction f = nullptr;
  detail::check(d, d.cuModuleGetFunction(&f, impl_->handle, name.c_str()), "cuModuleGetFunction",
                "kernel \"" + name + "\"");
  return Function(*this, name, f);
}

const std::string& Module::info_log() const {
  static const std::string none;
  return impl_ ? impl_->info_log : none;
}

void* Module::native() const { return impl_ ? impl_->handle : nullptr; }
void* Module::context() const { return impl_ ? impl_->context : nullptr; }

FunctionAttributes Function::attributes() const {
  if (!handle_) fail("Function::attributes: no function");
  const cu::DriverApi& d = detail::api();
  auto get = [&](cu::CUfunction_attribute a) {
    int v = 0;
    detail::check(d, d.cuFuncGetAttribute(&v, a, static_cast<cu::CUfunction>(handle_)), "cuFuncGetAttribute",
                  name_ + ", attribute " + std::to_string(a));
    return v;
  };
  FunctionAttributes a;
  a.registers = get(cu::CU_FUNC_ATTRIBUTE_NUM_REGS);
  a.static_shared_bytes = get(cu::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  a.local_bytes = get(cu::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  a.const_bytes = get(cu::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  a.max_threads_per_block = get(cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  a.max_dynamic_shared_bytes = get(cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  a.ptx_version = get(cu::CU_FUNC_ATTRIBUTE_PTX_VERSION);
  a.binary_version = get(cu::CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  return a;
}

void Function::set_max_dynamic_shared_memory(int bytes) const {
  if (!handle_) fail("Function::set_max_dynamic_shared_memory: no function");
  if (bytes < 0) fail("Function::set_max_dynamic_shared_memory: " + std::to_string(bytes) + " bytes is negative");
  const cu::DriverApi& d = detail::api();
  detail::check(d,
                d.cuFuncSetAttribute(static_cast<cu::CUfunction>(handle_),
                                     cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
                "cuFuncSetAttribute", name_ + ": max dynamic shared memory " + std::to_string(bytes) + " bytes");
}

void Function::allow_non_portable_cluster_size(bool allow) const {
  if (!handle_) fail("Function::allow_non_portable_cluster_size: no function");
  const cu::DriverApi& d = detail::api();
  detail::check(d,
                d.cuFuncSetAttribute(static_cast<cu::CUfunction>(handle_),
                                     cu::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, allow ? 1 : 0),
                "cuFuncSetAttribute", name_ + ": non-portable cluster size allowed");
}

}  // namespace tessel::rt
