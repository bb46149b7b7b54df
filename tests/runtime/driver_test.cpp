// driver_test.cpp: opening the driver (and saying clearly why not), and DriverError messages.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "gpu.hpp"
#include "kernels.hpp"
#include "scoped_env.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

namespace {

using tessel::test::ScopedEnv;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("runtime: a missing driver library is reported as no CUDA driver found") {
  rt::DriverProbe p = rt::probe_driver("/nonexistent/libcuda.so.1");
  CHECK_FALSE(p.available);
  CHECK(p.version == 0);
  CHECK(p.library == "/nonexistent/libcuda.so.1");
  CHECK(starts_with(p.reason, "no CUDA driver found: dlopen(\"/nonexistent/libcuda.so.1\") failed: "));
  CHECK(p.reason.find("TESSEL_LIBCUDA") != std::string::npos);
}

TEST_CASE("runtime: TESSEL_LIBCUDA names the driver library") {
  rt::driver_status();  // the process-wide driver is opened before the variable changes, and keeps its state
  {
    ScopedEnv env("TESSEL_LIBCUDA", "/nonexistent/libcuda-by-env.so");
    CHECK(rt::driver_library_path() == "/nonexistent/libcuda-by-env.so");
    rt::DriverProbe p = rt::probe_driver(rt::driver_library_path());
    CHECK_FALSE(p.available);
    CHECK(starts_with(p.reason, "no CUDA driver found: dlopen(\"/nonexistent/libcuda-by-env.so\") failed: "));
  }
  {
    ScopedEnv env("TESSEL_LIBCUDA", "");
    CHECK(rt::driver_library_path() == "libcuda.so.1");  // empty means unset
  }
}

TEST_CASE("runtime: a library that is not a CUDA driver is refused by name") {
  // libm is on every glibc system and has none of the driver's symbols.
  rt::DriverProbe p = rt::probe_driver("libm.so.6");
  CHECK_FALSE(p.available);
  CHECK(p.reason == "no CUDA driver found: libm.so.6 has no symbol cuGetErrorName (not a CUDA driver library)");
}

TEST_CASE("runtime: the CUDA toolkit's stub library is not a driver") {
  // The stub answers every call with CUDA_ERROR_STUB_LIBRARY; where it is installed, say so.
  const char* candidates[] = {"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/lib/stubs/libcuda.so",
                              "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so"};
  for (const char* stub : candidates) {
    if (!std::filesystem::exists(stub)) continue;
    rt::DriverProbe p = rt::probe_driver(stub);
    CHECK_FALSE(p.available);
    CHECK(starts_with(p.reason, std::string("no CUDA driver found: ") + stub + ": cuDriverGetVersion failed: "));
    CHECK(p.reason.find("CUDA_ERROR_STUB_LIBRARY") != std::string::npos);
    return;
  }
  tessel::test::skip("no CUDA stub library installed");
}

TEST_CASE("runtime: without a driver every call that needs one throws the same reason") {
  const rt::DriverProbe& status = rt::driver_status();
  if (status.available) {
    CHECK(status.reason.empty());
    CHECK(status.version >= 12000);
    CHECK(rt::driver_version() == status.version);
    CHECK(rt::device_count() >= 0);
    return;
  }
  CHECK_FALSE(status.reason.empty());
  CHECK_THROWS_WITH_AS(rt::device_count(), status.reason.c_str(), tessel::Error);
  CHECK_THROWS_WITH_AS(rt::driver_version(), status.reason.c_str(), tessel::Error);
  CHECK_THROWS_WITH_AS(rt::Context(0), status.reason.c_str(), tessel::Error);
  CHECK_THROWS_WITH_AS(rt::DeviceBuffer(1024), status.reason.c_str(), tessel::Error);
  CHECK_THROWS_WITH_AS(rt::Module::load_ptx(tessel::test::kVectorAddPtx), status.reason.c_str(), tessel::Error);
}

TEST_CASE("runtime: DriverError names the call and the driver's error") {
  tessel::DriverError e("cuModuleLoadDataEx", 218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed",
                        "ptxas application ptx input, line 9; error   : Unknown symbol 'x'");
  CHECK(std::string(e.what()) ==
        "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): ptxas application ptx "
        "input, line 9; error   : Unknown symbol 'x'");
  CHECK(e.call() == "cuModuleLoadDataEx");
  CHECK(e.code() == 218);
  CHECK(e.name() == "CUDA_ERROR_INVALID_PTX");
  CHECK(e.description() == "a PTX JIT compilation failed");
  const tessel::Error& base = e;  // caught with every other tessel error
  CHECK(std::string(base.what()).find("CUDA_ERROR_INVALID_PTX") != std::string::npos);

  CHECK(tessel::format_driver_error("cuInit", 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected", "") ==
        "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  // A code the driver has no name for.
  CHECK(tessel::format_driver_error("cuFoo", 12345, "", "", "") == "cuFoo failed: CUresult 12345");
}
