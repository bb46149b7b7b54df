// memory.cpp: the emulated global memory: allocation in a fake device range with unmapped gaps,
// checked host copies, and the lookup that every kernel access goes through.
#include "tessel/emulator/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "tessel/algebra/error.hpp"

namespace tessel::emu {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t Memory::alloc(size_t bytes, size_t align) {
  if (align == 0 || (align & (align - 1)) != 0) {
    fail("emulator: Memory::alloc alignment " + std::to_string(align) + " is not a power of two");
  }
  if (bytes > (size_t{1} << 40)) fail("emulator: Memory::alloc of " + std::to_string(bytes) + " bytes (at most 1 TiB)");
  uint64_t at = buffers_.empty() ? kBase : buffers_.back().end() + kGap;
  at = (at + align - 1) & ~uint64_t(align - 1);
  Buffer b;
  b.addr = at;
  b.data.assign(std::max<size_t>(bytes, 1), kPoison);
  buffers_.push_back(std::move(b));
  return at;
}

const Memory::Buffer* Memory::find(uint64_t addr, size_t n) const {
  if (!buffers_.empty()) {
    const Buffer& l = buffers_[std::min(last_, buffers_.size() - 1)];
    if (addr >= l.addr && addr + n <= l.end() && addr + n >= addr) return &l;
  }
  // The last buffer whose start is <= addr.
  auto it =
      std::upper_bound(buffers_.begin(), buffers_.end(), addr, [](uint64_t a, const Buffer& b) { return a < b.addr; });
  if (it == buffers_.begin()) return nullptr;
  --it;
  if (addr + n < addr || addr + n > it->end()) return nullptr;
  last_ = static_cast<size_t>(it - buffers_.begin());
  return &*it;
}

Memory::Buffer* Memory::find(uint64_t addr, size_t n) {
  return const_cast<Buffer*>(static_cast<const Memory*>(this)->find(addr, n));
}

std::string Memory::describe(uint64_t addr) const {
  auto it =
      std::upper_bound(buffers_.begin(), buffers_.end(), addr, [](uint64_t a, const Buffer& b) { return a < b.addr; });
  if (it == buffers_.begin()) {
    if (buffers_.empty()) return "no buffer is allocated";
    return std::to_string(buffers_.front().addr - addr) + " bytes below the first buffer, at " +
           hex(buffers_.front().addr);
  }
  --it;
  const std::string buffer = "the buffer at " + hex(it->addr) + " (" + std::to_string(it->data.size()) + " bytes)";
  if (addr < it->end()) return "at offset " + std::to_string(addr - it->addr) + " of " + buffer;
  return std::to_string(addr - it->end()) + " bytes past the end of " + buffer;
}

void Memory::write(uint64_t addr, const void* src, size_t n) {
  Buffer* b = find(addr, n);
  if (!b) fail("emulator: Memory::write of " + std::to_string(n) + " bytes at " + hex(addr) + ": " + describe(addr));
  if (n) std::memcpy(b->data.data() + (addr - b->addr), src, n);
}

void Memory::read(uint64_t addr, void* dst, size_t n) const {
  const Buffer* b = find(addr, n);
  if (!b) fail("emulator: Memory::read of " + std::to_string(n) + " bytes at " + hex(addr) + ": " + describe(addr));
  if (n) std::memcpy(dst, b->data.data() + (addr - b->addr), n);
}

void Memory::fill(uint64_t addr, std::byte value, size_t n) {
  Buffer* b = find(addr, n);
  if (!b) fail("emulator: Memory::fill of " + std::to_string(n) + " bytes at " + hex(addr) + ": " + describe(addr));
  std::fill_n(b->data.begin() + static_cast<std::ptrdiff_t>(addr - b->addr), n, value);
}

}  // namespace tessel::emu
