// driver.hpp: the CUDA driver, opened at run time: whether it is there, its version, and
// tessel::DriverError, the exception for a driver call that failed.
#pragma once

#include <string>

#include "tessel/algebra/error.hpp"

namespace tessel {

// A CUDA driver call returned an error. what() reads
//   "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): <detail>"
// where detail (the JIT log, a hint) is present only when there is one.
class DriverError : public Error {
 public:
  DriverError(std::string call, int code, std::string name, std::string description, std::string detail = {});
  const std::string& call() const { return call_; }                // "cuModuleLoadDataEx"
  int code() const { return code_; }                               // the CUresult, 218
  const std::string& name() const { return name_; }                // "CUDA_ERROR_INVALID_PTX"
  const std::string& description() const { return description_; }  // "a PTX JIT compilation failed"
  const std::string& detail() const { return detail_; }

 private:
  std::string call_;
  int code_;
  std::string name_, description_, detail_;
};

// The message of a DriverError; an empty name prints as "CUresult <code>".
std::string format_driver_error(const std::string& call, int code, const std::string& name,
                                const std::string& description, const std::string& detail);

}  // namespace tessel

namespace tessel::rt {

// The library tessel opens: $TESSEL_LIBCUDA when set and non-empty, else "libcuda.so.1".
// Read at each call; the process-wide driver is opened once, at its first use.
std::string driver_library_path();

// The outcome of opening a driver library: usable, or the reason why not.
struct DriverProbe {
  bool available = false;
  int version = 0;      // cuDriverGetVersion (12040 for 12.4); 0 when unknown
  std::string library;  // the path that was opened
  std::string reason;   // empty when available, else e.g. "no CUDA driver found: ..."
};

// Opens `library_path` afresh and checks it (symbols, version >= 12.0, cuInit) without touching
// the process-wide driver: what tests use to see how a missing driver is reported.
DriverProbe probe_driver(const std::string& library_path);

// The process-wide driver (opened on first use from driver_library_path()). Never throws.
const DriverProbe& driver_status();
inline bool driver_available() { return driver_status().available; }

// The driver's version (12040 for 12.4). Throws tessel::Error ("no CUDA driver found: ...") when
// there is no usable driver, or the DriverError of a failed cuInit (CUDA_ERROR_NO_DEVICE, ...).
int driver_version();

}  // namespace tessel::rt
