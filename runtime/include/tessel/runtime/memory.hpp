// memory.hpp: device memory (DeviceBuffer, owning) and copies between host and device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "tessel/runtime/stream.hpp"

namespace tessel::rt {

using DevicePtr = std::uint64_t;  // a CUdeviceptr: a device address, 0 for none

// Copies and fills; the plain forms wait for completion, the StreamRef forms are queued on the
// stream (host memory must then stay valid until the stream reaches them).
void copy_h2d(DevicePtr dst, const void* src, std::size_t bytes);
void copy_d2h(void* dst, DevicePtr src, std::size_t bytes);
void copy_d2d(DevicePtr dst, DevicePtr src, std::size_t bytes);
void fill_bytes(DevicePtr dst, std::uint8_t value, std::size_t bytes);
void copy_h2d(DevicePtr dst, const void* src, std::size_t bytes, StreamRef stream);
void copy_d2h(void* dst, DevicePtr src, std::size_t bytes, StreamRef stream);
void copy_d2d(DevicePtr dst, DevicePtr src, std::size_t bytes, StreamRef stream);
void fill_bytes(DevicePtr dst, std::uint8_t value, std::size_t bytes, StreamRef stream);

// Free and total device memory of the current context's device, in bytes.
struct MemoryInfo {
  std::size_t free = 0, total = 0;
};
MemoryInfo memory_info();

// The device allocation that holds `ptr` (cuPointerGetAttribute): its first address and size.
// Throws tessel::Error when `ptr` is not device memory (a host pointer, pinned host memory, an
// address no allocation holds), naming the address.
struct Allocation {
  DevicePtr start = 0;
  std::size_t bytes = 0;
  bool managed = false;
};
Allocation device_allocation(DevicePtr ptr);
// A count of the device memory tessel has freed (DeviceBuffer): it changes whenever an address
// checked with device_allocation may have come to belong to another allocation through tessel, so a
// cache of such checks (the elementwise call's) keyed with it goes stale on the next free. Frees by
// other code (cuMemFree by a user) are not counted.
std::uint64_t allocation_epoch();

// Device memory of the current context (cuMemAlloc: 256-byte aligned), freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  // uninitialised; 0 bytes allocates nothing
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DevicePtr ptr() const { return ptr_; }
  std::size_t size() const { return bytes_; }

  // Byte ranges are checked against size(): a range that does not fit throws tessel::Error.
  void upload(const void* src, std::size_t bytes, std::size_t offset = 0);
  void download(void* dst, std::size_t bytes, std::size_t offset = 0) const;
  void fill(std::uint8_t value);  // every byte

  template <class T>
  static DeviceBuffer from(std::span<const T> host) {
    static_assert(std::is_trivially_copyable_v<T>);
    DeviceBuffer b(host.size_bytes());
    b.upload(host.data(), host.size_bytes());
    return b;
  }
  template <class T>
  static DeviceBuffer from(const std::vector<T>& host) {
    return from(std::span<const T>(host));
  }
  // The whole buffer as elements of T (size() must be a multiple of sizeof(T)).
  template <class T>
  std::vector<T> to_vector() const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> v(element_count(sizeof(T)));
    download(v.data(), v.size() * sizeof(T));
    return v;
  }

 private:
  std::size_t element_count(std::size_t element_bytes) const;
  void check_range(const char* what, std::size_t bytes, std::size_t offset) const;
  DevicePtr ptr_ = 0;
  std::size_t bytes_ = 0;
  void* context_ = nullptr;
};

}  // namespace tessel::rt
