// call.hpp: how runtime/src calls the driver: the process-wide entry points and check().
#pragma once

#include <string>
#include <utility>

#include "driver_api.hpp"
#include "tessel/runtime/driver.hpp"  // DriverError, and tessel::fail for the callers

namespace tessel::rt::detail {

// Opens the library at `path`, checks it is a CUDA driver of version >= 12.0, resolves every
// entry point of TESSEL_CU_FUNCTIONS and calls cuInit(0). Throws tessel::Error ("no CUDA driver
// found: ...") for a library that is missing or unusable, and DriverError when cuInit fails.
// A library whose cuInit was called stays loaded: unloading an initialised driver is unsafe.
cu::DriverApi load_driver(const std::string& path);

// The process-wide driver, loaded on first use; throws what load_driver threw, every time.
const cu::DriverApi& api();

// The DriverError for `result` of `call`, with the driver's error name and string.
[[noreturn]] void throw_driver_error(const cu::DriverApi& d, cu::CUresult result, const char* call,
                                     std::string detail = {});

// Throws the DriverError of a failed call; a no-op on CUDA_SUCCESS.
inline void check(const cu::DriverApi& d, cu::CUresult result, const char* call, std::string detail = {}) {
  if (result != cu::CUDA_SUCCESS) throw_driver_error(d, result, call, std::move(detail));
}

}  // namespace tessel::rt::detail
