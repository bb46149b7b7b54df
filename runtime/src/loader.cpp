// loader.cpp: opening libcuda at run time (dlopen) and resolving its entry points by version
// through cuGetProcAddress, so that nothing links against libcuda.
#include <dlfcn.h>

#include <string>

#include "call.hpp"
#include "tessel/runtime/driver.hpp"
#include "tessel/runtime/phases.hpp"

namespace tessel::rt::detail {

namespace {

[[noreturn]] void no_driver(const std::string& why) { fail("no CUDA driver found: " + why); }

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// A plain exported symbol: the few entry points needed before cuGetProcAddress can be trusted.
template <class Fn>
Fn exported(void* library, const std::string& path, const char* name) {
  void* p = dlsym(library, name);
  if (!p) no_driver(path + " has no symbol " + name + " (not a CUDA driver library)");
  return reinterpret_cast<Fn>(p);
}

// A library that turns out not to be a usable driver is closed again; one whose cuInit was
// called stays loaded for the life of the process.
struct Library {
  void* handle = nullptr;
  bool keep = false;
  ~Library() {
    if (handle && !keep) dlclose(handle);
  }
};

}  // namespace

cu::DriverApi load_driver(const std::string& path) {
  // RTLD_LOCAL: keep libcuda's symbols out of the global namespace (a user may link their own).
  Library opened{dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)};
  phase("dlopen " + path);
  if (!opened.handle) {
    const char* why = dlerror();
    no_driver("dlopen(\"" + path + "\") failed: " + (why ? why : "unknown error") +
              " (set TESSEL_LIBCUDA to the driver library's path if it is installed elsewhere)");
  }
  void* library = opened.handle;

  cu::DriverApi d;
  // Error names first, so that the failures below can be reported with them.
  d.cuGetErrorName = exported<decltype(d.cuGetErrorName)>(library, path, "cuGetErrorName");
  d.cuGetErrorString = exported<decltype(d.cuGetErrorString)>(library, path, "cuGetErrorString");
  auto get_version = exported<decltype(d.cuDriverGetVersion)>(library, path, "cuDriverGetVersion");

  // The toolkit's stub library (lib/stubs/libcuda.so) answers every call with
  // CUDA_ERROR_STUB_LIBRARY: it is what a machine without the driver may find first.
  if (cu::CUresult r = get_version(&d.version); r != cu::CUDA_SUCCESS) {
    try {
      throw_driver_error(d, r, "cuDriverGetVersion");
    } catch (const DriverError& e) {
      no_driver(path + ": " + e.what());
    }
  }
  if (d.version < cu::kDriverAbiVersion)
    no_driver(path + " is CUDA driver " + version_string(d.version) + "; tessel needs " +
              version_string(cu::kDriverAbiVersion) + " or newer (cuLaunchKernelEx, cuTensorMapEncodeTiled)");

  // cuGetProcAddress_v2 exists from 12.0 on; the unsuffixed export keeps the 11.3 signature.
  auto gpa_v2 = reinterpret_cast<cu::PFN_cuGetProcAddress_v2>(dlsym(library, "cuGetProcAddress_v2"));
  auto gpa_v1 = reinterpret_cast<cu::PFN_cuGetProcAddress_v1>(dlsym(library, "cuGetProcAddress"));
  if (!gpa_v2 && !gpa_v1) no_driver(path + " has no symbol cuGetProcAddress (not a CUDA driver library)");

  // Base names at version 12000 select the ABI the declarations in driver_api.hpp describe.
  // LEGACY_STREAM: stream 0 means the legacy default stream, as in code compiled without
  // --default-stream per-thread (what CU_GET_PROC_ADDRESS_DEFAULT means there).
  auto resolve = [&](const char* name) {
    void* fn = nullptr;
    cu::CUdriverProcAddressQueryResult status = cu::CU_GET_PROC_ADDRESS_SUCCESS;
    cu::CUresult r = gpa_v2 ? gpa_v2(name, &fn, cu::kDriverAbiVersion, cu::CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status)
                            : gpa_v1(name, &fn, cu::kDriverAbiVersion, cu::CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    if (r != cu::CUDA_SUCCESS) {
      try {
        throw_driver_error(d, r, "cuGetProcAddress", name);
      } catch (const DriverError& e) {
        no_driver(path + ": " + e.what());
      }
    }
    if (!fn || status != cu::CU_GET_PROC_ADDRESS_SUCCESS)
      no_driver(path + " (CUDA " + version_string(d.version) + ") has no entry point " + name + " for CUDA " +
                version_string(cu::kDriverAbiVersion) +
                (status == cu::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? " (version not sufficient)" : ""));
    return fn;
  };
#define TESSEL_CU_RESOLVE(name, params) d.name = reinterpret_cast<decltype(d.name)>(resolve(#name));
  TESSEL_CU_FUNCTIONS(TESSEL_CU_RESOLVE)
#undef TESSEL_CU_RESOLVE

  // A driver without a GPU (or with the GPU hidden) fails here with CUDA_ERROR_NO_DEVICE.
  opened.keep = true;
  check(d, d.cuInit(0), "cuInit");
  phase("cuInit");
  return d;
}

}  // namespace tessel::rt::detail
