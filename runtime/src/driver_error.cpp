// driver_error.cpp: tessel::DriverError and its message.
#include <string>
#include <utility>

#include "call.hpp"
#include "tessel/runtime/driver.hpp"

namespace tessel {

std::string format_driver_error(const std::string& call, int code, const std::string& name,
                                const std::string& description, const std::string& detail) {
  std::string m = call + " failed: " + (name.empty() ? "CUresult " + std::to_string(code) : name);
  if (!description.empty()) m += " (" + description + ")";
  if (!detail.empty()) m += ": " + detail;
  return m;
}

DriverError::DriverError(std::string call, int code, std::string name, std::string description, std::string detail)
    : Error(format_driver_error(call, code, name, description, detail)),
      call_(std::move(call)),
      code_(code),
      name_(std::move(name)),
      description_(std::move(description)),
      detail_(std::move(detail)) {}

namespace rt::detail {

namespace {

// Names for the codes a library that is not a working driver returns (the toolkit's stub has no
// working cuGetErrorName); everything else is named by the driver.
struct KnownError {
  cu::CUresult code;
  const char* name;
  const char* description;
};
constexpr KnownError kKnownErrors[] = {
    {cu::CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {cu::CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {cu::CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {cu::CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
};

}  // namespace

void throw_driver_error(const cu::DriverApi& d, cu::CUresult result, const char* call, std::string detail) {
  const char* name = nullptr;
  const char* description = nullptr;
  // Both leave the pointer untouched (and return an error) for a code they do not know.
  if (d.cuGetErrorName) d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString) d.cuGetErrorString(result, &description);
  for (const KnownError& k : kKnownErrors)
    if (k.code == result && !name) name = k.name, description = k.description;
  if (result == cu::CUDA_ERROR_INVALID_CONTEXT && detail.empty())
    detail = "no current context on this thread? create a tessel::rt::Context or call its make_current()";
  throw DriverError(call, result, name ? name : "", description ? description : "", std::move(detail));
}

}  // namespace rt::detail

}  // namespace tessel
