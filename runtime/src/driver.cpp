// driver.cpp: the process-wide driver (opened once, on first use) and probing a library.
#include "tessel/runtime/driver.hpp"

#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include "call.hpp"

namespace tessel::rt {

namespace {

struct ProcessDriver {
  std::optional<cu::DriverApi> api;
  std::exception_ptr failure;  // what load_driver threw, rethrown at every use
  DriverProbe status;
};

DriverProbe probe_into(const std::string& path, std::optional<cu::DriverApi>& api, std::exception_ptr& failure) {
  DriverProbe probe;
  probe.library = path;
  try {
    api = detail::load_driver(path);
    probe.available = true;
    probe.version = api->version;
  } catch (const std::exception& e) {
    failure = std::current_exception();
    probe.reason = e.what();
  }
  return probe;
}

// Built on first use and never destroyed: objects with static storage duration may still free
// device memory while the process exits.
const ProcessDriver& process_driver() {
  static const ProcessDriver* driver = [] {
    auto* d = new ProcessDriver;
    d->status = probe_into(driver_library_path(), d->api, d->failure);
    return d;
  }();
  return *driver;
}

}  // namespace

std::string driver_library_path() {
  const char* env = std::getenv("TESSEL_LIBCUDA");
  return env && *env ? std::string(env) : std::string("libcuda.so.1");
}

DriverProbe probe_driver(const std::string& library_path) {
  std::optional<cu::DriverApi> api;
  std::exception_ptr failure;
  return probe_into(library_path, api, failure);
}

const DriverProbe& driver_status() { return process_driver().status; }

int driver_version() { return detail::api().version; }

namespace detail {

const cu::DriverApi& api() {
  const ProcessDriver& d = process_driver();
  if (d.failure) std::rethrow_exception(d.failure);
  return *d.api;
}

}  // namespace detail

}  // namespace tessel::rt
