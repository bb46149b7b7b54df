// device.cpp: device enumeration, properties, and primary contexts.
#include "tessel/runtime/device.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "call.hpp"
#include "context_guard.hpp"
#include "tessel/runtime/phases.hpp"

namespace tessel::rt {

namespace {

cu::CUdevice get_device(const cu::DriverApi& d, int ordinal) {
  int count = 0;
  detail::check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    fail("device " + std::to_string(ordinal) + " does not exist: the driver sees " + std::to_string(count) +
         " device(s)");
  cu::CUdevice dev = 0;
  detail::check(d, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  return dev;
}

// In the largest binary unit that keeps the value >= 1; one decimal unless exact.
std::string scaled(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double value = static_cast<double>(bytes);
  while (u < 4 && value >= 1024) value /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, value == static_cast<double>(static_cast<std::size_t>(value)) ? "%.0f %s" : "%.1f %s",
                value, units[u]);
  return buf;
}

// "3.35 TB/s"
std::string terabytes_per_second(double gbs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f TB/s", gbs / 1e3);
  return buf;
}

}  // namespace

std::string to_string(const DeviceProperties& p) {
  return p.name + ": " + p.arch() + ", " + std::to_string(p.sm_count) + " SMs, " +
         scaled(static_cast<std::size_t>(p.shared_memory_per_block_optin)) + " shared memory per block (opt-in), " +
         scaled(static_cast<std::size_t>(p.l2_cache_bytes)) + " L2, " + scaled(p.total_memory_bytes) +
         (p.dram_gbs() > 0 ? " at " + terabytes_per_second(p.dram_gbs()) : std::string());
}

int device_count() {
  const cu::DriverApi& d = detail::api();
  int count = 0;
  detail::check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

DeviceProperties device_properties(int ordinal) {
  const cu::DriverApi& d = detail::api();
  cu::CUdevice dev = get_device(d, ordinal);
  DeviceProperties p;
  p.ordinal = ordinal;
  char name[256] = {};
  detail::check(d, d.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  p.name = name;
  auto attr = [&](cu::CUdevice_attribute a) {
    int v = 0;
    detail::check(d, d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute", "attribute " + std::to_string(a));
    return v;
  };
  p.cc_major = attr(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.cc_minor = attr(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.sm_count = attr(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.warp_size = attr(cu::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p.max_threads_per_block = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p.max_threads_per_sm = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p.max_registers_per_block = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p.shared_memory_per_block = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p.shared_memory_per_block_optin = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  p.shared_memory_per_sm = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p.l2_cache_bytes = attr(cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p.clock_khz = attr(cu::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.memory_clock_khz = attr(cu::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memory_bus_bits = attr(cu::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.cluster_launch = attr(cu::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  detail::check(d, d.cuDeviceTotalMem(&p.total_memory_bytes, dev), "cuDeviceTotalMem");
  return p;
}

Context::Context(int device) : device_(device) {
  const cu::DriverApi& d = detail::api();
  cu::CUdevice dev = get_device(d, device);
  cu::CUcontext ctx = nullptr;
  detail::check(d, d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  handle_ = ctx;
  if (cu::CUresult r = d.cuCtxSetCurrent(ctx); r != cu::CUDA_SUCCESS) {
    d.cuDevicePrimaryCtxRelease(dev);
    detail::throw_driver_error(d, r, "cuCtxSetCurrent");
  }
  phase("primary context of device " + std::to_string(device));
}

Context::~Context() {
  if (!handle_) return;
  const cu::DriverApi& d = detail::api();  // cannot throw: a handle means the driver loaded
  // The context stays current on this thread: another Context of the device may still use it,
  // and the primary context's handle stays valid after its last release.
  cu::CUdevice dev = 0;
  if (d.cuDeviceGet(&dev, device_) == cu::CUDA_SUCCESS) d.cuDevicePrimaryCtxRelease(dev);
}

Context::Context(Context&& other) noexcept
    : device_(std::exchange(other.device_, -1)), handle_(std::exchange(other.handle_, nullptr)) {}

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    Context old(std::move(*this));
    device_ = std::exchange(other.device_, -1);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

const DeviceProperties& cached_device_properties(int ordinal) {
  static std::mutex mutex;
  static std::map<int, DeviceProperties> cache;  // entries are never erased: references stay valid
  std::lock_guard lock(mutex);
  auto it = cache.find(ordinal);
  if (it == cache.end()) it = cache.emplace(ordinal, device_properties(ordinal)).first;
  return it->second;
}

void* current_context() {
  const cu::DriverApi& d = detail::api();
  cu::CUcontext ctx = nullptr;
  detail::check(d, d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  return ctx;
}

int current_device() {
  if (!current_context()) return -1;
  const cu::DriverApi& d = detail::api();
  cu::CUdevice dev = 0;
  detail::check(d, d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  const int count = device_count();
  for (int ordinal = 0; ordinal < count; ++ordinal)  // CUdevice is a handle; the ordinal is what users name
    if (get_device(d, ordinal) == dev) return ordinal;
  fail("the current context's device is not among the driver's " + std::to_string(count) + " devices");
}

void Context::make_current() const {
  if (!handle_) fail("Context::make_current: this Context was moved from");
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuCtxSetCurrent(static_cast<cu::CUcontext>(handle_)), "cuCtxSetCurrent");
}

void Context::synchronize() const {
  if (!handle_) fail("Context::synchronize: this Context was moved from");
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, handle_);
  detail::check(d, d.cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace tessel::rt
