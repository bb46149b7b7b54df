// memory.cpp: DeviceBuffer and the copies.
#include "tessel/runtime/memory.hpp"

#include <atomic>

#include <cstdio>
#include <string>
#include <utility>

#include "call.hpp"
#include "context_guard.hpp"

namespace tessel::rt {

namespace {

cu::CUstream native(StreamRef s) { return static_cast<cu::CUstream>(s.native()); }

}  // namespace

void copy_h2d(DevicePtr dst, const void* src, std::size_t bytes) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void copy_d2h(void* dst, DevicePtr src, std::size_t bytes) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

void copy_d2d(DevicePtr dst, DevicePtr src, std::size_t bytes) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}

namespace {
std::atomic<std::uint64_t> free_count{0};
}  // namespace

std::uint64_t allocation_epoch() { return free_count.load(std::memory_order_acquire); }

Allocation device_allocation(DevicePtr ptr) {
  const cu::DriverApi& d = detail::api();
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(ptr));
  unsigned int type = 0;
  // An address the driver does not know answers CUDA_ERROR_INVALID_VALUE: not device memory.
  if (d.cuPointerGetAttribute(&type, cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) != cu::CUDA_SUCCESS) {
    fail(std::string("address ") + hex + " is not device memory (no CUDA allocation holds it)");
  }
  if (type != cu::CU_MEMORYTYPE_DEVICE && type != cu::CU_MEMORYTYPE_UNIFIED) {
    fail(std::string("address ") + hex + " is host memory, not device memory");
  }
  Allocation a;
  unsigned int managed = 0;
  cu::CUdeviceptr start = 0;
  std::size_t size = 0;
  detail::check(d, d.cuPointerGetAttribute(&managed, cu::CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr),
                "cuPointerGetAttribute(IS_MANAGED)");
  detail::check(d, d.cuPointerGetAttribute(&start, cu::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr),
                "cuPointerGetAttribute(RANGE_START_ADDR)");
  detail::check(d, d.cuPointerGetAttribute(&size, cu::CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr),
                "cuPointerGetAttribute(RANGE_SIZE)");
  a.start = start;
  a.bytes = size;
  a.managed = managed != 0;
  return a;
}

void fill_bytes(DevicePtr dst, std::uint8_t value, std::size_t bytes) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemsetD8(dst, value, bytes), "cuMemsetD8");
}

void copy_h2d(DevicePtr dst, const void* src, std::size_t bytes, StreamRef stream) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyHtoDAsync(dst, src, bytes, native(stream)), "cuMemcpyHtoDAsync");
}

void copy_d2h(void* dst, DevicePtr src, std::size_t bytes, StreamRef stream) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyDtoHAsync(dst, src, bytes, native(stream)), "cuMemcpyDtoHAsync");
}

void copy_d2d(DevicePtr dst, DevicePtr src, std::size_t bytes, StreamRef stream) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemcpyDtoDAsync(dst, src, bytes, native(stream)), "cuMemcpyDtoDAsync");
}

void fill_bytes(DevicePtr dst, std::uint8_t value, std::size_t bytes, StreamRef stream) {
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuMemsetD8Async(dst, value, bytes, native(stream)), "cuMemsetD8Async");
}

MemoryInfo memory_info() {
  const cu::DriverApi& d = detail::api();
  MemoryInfo m;
  detail::check(d, d.cuMemGetInfo(&m.free, &m.total), "cuMemGetInfo");
  return m;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  if (bytes == 0) return;
  const cu::DriverApi& d = detail::api();
  cu::CUdeviceptr p = 0;
  detail::check(d, d.cuMemAlloc(&p, bytes), "cuMemAlloc", std::to_string(bytes) + " bytes");
  ptr_ = p;
  bytes_ = bytes;
  context_ = detail::current_context(d);
}

DeviceBuffer::~DeviceBuffer() {
  if (!ptr_) return;
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, context_);
  d.cuMemFree(ptr_);  // an error here (context already gone) cannot be reported from a destructor
  // After the free: a check that read the epoch before it sees the count move.
  free_count.fetch_add(1, std::memory_order_release);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      context_(std::exchange(other.context_, nullptr)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void DeviceBuffer::check_range(const char* what, std::size_t bytes, std::size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    fail(std::string("DeviceBuffer::") + what + ": " + std::to_string(bytes) + " bytes at offset " +
         std::to_string(offset) + " do not fit in a buffer of " + std::to_string(bytes_) + " bytes");
}

std::size_t DeviceBuffer::element_count(std::size_t element_bytes) const {
  if (bytes_ % element_bytes != 0)
    fail("DeviceBuffer::to_vector: a buffer of " + std::to_string(bytes_) + " bytes is not a whole number of " +
         std::to_string(element_bytes) + "-byte elements");
  return bytes_ / element_bytes;
}

void DeviceBuffer::upload(const void* src, std::size_t bytes, std::size_t offset) {
  check_range("upload", bytes, offset);
  if (bytes) copy_h2d(ptr_ + offset, src, bytes);
}

void DeviceBuffer::download(void* dst, std::size_t bytes, std::size_t offset) const {
  check_range("download", bytes, offset);
  if (bytes) copy_d2h(dst, ptr_ + offset, bytes);
}

void DeviceBuffer::fill(std::uint8_t value) {
  if (bytes_) fill_bytes(ptr_, value, bytes_);
}

}  // namespace tessel::rt
