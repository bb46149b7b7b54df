// device.hpp: GPUs, their properties, and the primary context through which tessel uses one.
#pragma once

#include <cstddef>
#include <string>

namespace tessel::rt {

struct DeviceProperties {
  int ordinal = 0;
  std::string name;                // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;  // compute capability: 9, 0
  int sm_count = 0;                // streaming multiprocessors
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_registers_per_block = 0;
  int shared_memory_per_block = 0;        // bytes, without opting in
  int shared_memory_per_block_optin = 0;  // bytes, with cuFuncSetAttribute (Function::set_max_dynamic_shared_memory)
  int shared_memory_per_sm = 0;           // bytes
  int l2_cache_bytes = 0;
  std::size_t total_memory_bytes = 0;
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
  bool cluster_launch = false;  // thread-block clusters (sm_90+)

  int compute_capability() const { return cc_major * 10 + cc_minor; }  // 90
  // DRAM bandwidth in GB/s: two transfers a memory clock over the bus (an H100 SXM's 2619 MHz and
  // 5120 bits: 3352; an H200's 3201 MHz and 6016 bits: 4815); 0 where the driver reports neither.
  double dram_gbs() const { return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9; }
  std::string arch() const { return "sm_" + std::to_string(compute_capability()); }
};

// One line: "NVIDIA H100 80GB HBM3: sm_90, 132 SMs, 227 KiB shared memory per block (opt-in), 50 MiB L2,
// 79.2 GiB at 3.35 TB/s".
std::string to_string(const DeviceProperties& p);

// The number of GPUs the driver sees. Throws when there is no usable driver (see driver.hpp).
int device_count();
DeviceProperties device_properties(int ordinal);
// The same, read once per device and kept for the process: some attributes (clock rates) cost the
// driver hundreds of microseconds per query, which a launch path must not pay on every call.
const DeviceProperties& cached_device_properties(int ordinal);

// The context current on this thread (a CUcontext), or null when the thread has none.
void* current_context();
// The ordinal of the current context's device, or -1 when the thread has no current context.
int current_device();

// The primary context of a device (the one the CUDA runtime API shares), retained for the
// lifetime of this object and made current on the constructing thread. Another thread that uses
// tessel with this device calls make_current() first. Objects created while a context is current
// (buffers, streams, events, modules) belong to it and must not outlive it.
class Context {
 public:
  explicit Context(int device = 0);
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&& other) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void make_current() const;  // cuCtxSetCurrent, for this thread
  void synchronize() const;   // waits for all work of the context
  int device() const { return device_; }
  DeviceProperties properties() const { return device_properties(device_); }
  void* native() const { return handle_; }  // the CUcontext

 private:
  int device_ = -1;
  void* handle_ = nullptr;
};

}  // namespace tessel::rt
