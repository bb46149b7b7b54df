// module.hpp: PTX modules loaded by the driver (cuModuleLoadDataEx, which JIT-compiles them for
// the current device, or machine code from its linker) and the kernels (functions) in them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tessel::rt {

class Function;

// A loaded module. Copies share it; it is unloaded when the last copy (or Function taken from
// it) goes away.
class Module {
 public:
  Module() = default;  // no module; function() throws

  // Loads PTX text into the current context. A module the driver rejects throws DriverError
  // whose message ends with the JIT compiler's log (the line and reason of each error).
  static Module load_ptx(std::string_view ptx);
  // Loads machine code (a cubin, as link_ptx returns) into the current context
  // (cuModuleLoadData): no compilation. An image the driver refuses throws DriverError.
  static Module load_image(std::string_view image);

  // The kernel `.entry name`; throws DriverError (CUDA_ERROR_NOT_FOUND) naming it if absent.
  Function function(const std::string& name) const;

  const std::string& info_log() const;  // what the JIT printed besides errors (often empty)
  void* native() const;                 // the CUmodule; null for Module()
  void* context() const;                // the CUcontext it was loaded in
  explicit operator bool() const { return impl_ != nullptr; }

  struct Impl;

 private:
  explicit Module(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// The machine code (a cubin) that the driver's linker (cuLinkCreate, cuLinkAddData,
// cuLinkComplete: no toolkit needed) makes of `ptx` for the current context's device. PTX the
// driver rejects throws DriverError whose message ends with the compiler's log.
std::string link_ptx(std::string_view ptx);

// What the compiler made of a kernel (cuFuncGetAttribute).
struct FunctionAttributes {
  int registers = 0;            // per thread
  int static_shared_bytes = 0;  // .shared declared in the PTX
  int local_bytes = 0;          // per thread: spills and local arrays
  int const_bytes = 0;
  int max_threads_per_block = 0;  // the most this kernel can launch with
  int max_dynamic_shared_bytes = 0;
  int ptx_version = 0, binary_version = 0;  // 80 for PTX ISA 8.0 / sm_80
};

// A kernel of a loaded module; keeps its module loaded.
class Function {
 public:
  Function() = default;
  const std::string& name() const { return name_; }
  void* native() const { return handle_; }  // the CUfunction
  const Module& module() const { return module_; }
  explicit operator bool() const { return handle_ != nullptr; }

  FunctionAttributes attributes() const;
  // Lets launches use up to `bytes` of dynamic shared memory; needed above 48 KiB, up to
  // DeviceProperties::shared_memory_per_block_optin minus the kernel's static shared memory.
  void set_max_dynamic_shared_memory(int bytes) const;
  // Lets launches use clusters above the portable size of 8 blocks (16 on H100).
  void allow_non_portable_cluster_size(bool allow = true) const;

 private:
  friend class Module;
  Function(Module module, std::string name, void* handle)
      : module_(std::move(module)), name_(std::move(name)), handle_(handle) {}
  Module module_;
  std::string name_;
  void* handle_ = nullptr;
};

}  // namespace tessel::rt
