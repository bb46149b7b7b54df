// memory.hpp: the emulated global memory: buffers the caller allocates at addresses of a fake
// device range, with unmapped gaps between them so that an access past one buffer hits nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace tessel::emu {

class Memory {
 public:
  // The first buffer's address, and the unmapped bytes left after each buffer (at least).
  static constexpr uint64_t kBase = 0x7f0000000000;
  static constexpr uint64_t kGap = 64 * 1024;
  // Fresh buffers hold this byte: an unwritten f32/f16/f64 reads as NaN, an integer as -1.
  static constexpr std::byte kPoison{0xff};

  // A buffer of `bytes` bytes (at least 1) at an address that is a multiple of `align` (a power
  // of two), filled with kPoison. Throws tessel::Error for a bad alignment.
  uint64_t alloc(size_t bytes, size_t align = 256);

  // Host copies; [addr, addr + n) must lie in one buffer (tessel::Error otherwise).
  void write(uint64_t addr, const void* src, size_t n);
  void read(uint64_t addr, void* dst, size_t n) const;
  void fill(uint64_t addr, std::byte value, size_t n);

  template <class T>
  void write(uint64_t addr, std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    write(addr, values.data(), values.size_bytes());
  }
  template <class T>
  void write(uint64_t addr, const std::vector<T>& values) {
    write(addr, std::span<const T>(values));
  }
  template <class T>
  std::vector<T> read(uint64_t addr, size_t count) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(count);
    read(addr, out.data(), count * sizeof(T));
    return out;
  }
  template <class T>
  T read_value(uint64_t addr) const {
    T v;
    read(addr, &v, sizeof(T));
    return v;
  }
  // alloc + write: a buffer holding `values`.
  template <class T>
  uint64_t upload(const std::vector<T>& values, size_t align = 256) {
    const uint64_t a = alloc(values.size() * sizeof(T), align);
    write(a, values);
    return a;
  }

  // The buffer holding [addr, addr + n), or null. Kernel accesses go through this.
  struct Buffer {
    uint64_t addr = 0;
    std::vector<std::byte> data;
    uint64_t end() const { return addr + data.size(); }
  };
  Buffer* find(uint64_t addr, size_t n);
  const Buffer* find(uint64_t addr, size_t n) const;
  // Where addr lies relative to the buffers, for error messages: "12 bytes past the end of the
  // buffer at 0x7f0000000000 (4096 bytes)", or "below the first buffer".
  std::string describe(uint64_t addr) const;

 private:
  std::vector<Buffer> buffers_;  // in address order (each alloc goes above the last)
  mutable size_t last_ = 0;      // the buffer of the last hit: accesses come in runs
};

std::string hex(uint64_t v);  // "0x7f0000000010"

}  // namespace tessel::emu
