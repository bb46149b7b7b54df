// block_pool.cpp: per-thread free lists of power-of-two arrays for the IR's blocks (block_pool.hpp).
#include "tessel/codegen/block_pool.hpp"

#include <bit>
#include <new>

#include "tessel/algebra/pooling.hpp"

namespace tessel::codegen::block_pool {

namespace {

constexpr int kMinShift = 10;  // the smallest class: 1 KiB
constexpr int kMaxShift = 28;  // the largest pooled: 256 MiB; larger go to operator new and back
constexpr int kClasses = kMaxShift - kMinShift + 1;

struct FreeBlock {
  FreeBlock* next;
};

// One thread's free lists. Blocks are never released (one may outlive its thread, in a kernel
// handed to another): see block_pool.hpp.
struct Pool {
  FreeBlock* free[kClasses] = {};
};

thread_local Pool pool;

// The class of `bytes`: the smallest power of two at least that large, from 1 KiB.
int size_class(std::size_t bytes) {
  const int shift = std::bit_width(bytes - 1);  // 2^shift >= bytes
  return (shift < kMinShift ? kMinShift : shift) - kMinShift;
}

}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (!kPoolMemory || bytes > (std::size_t{1} << kMaxShift)) return ::operator new(bytes, std::align_val_t{16});
  const int c = size_class(bytes);
  Pool& p = pool;
  if (FreeBlock* b = p.free[c]) {
    p.free[c] = b->next;
    return b;
  }
  return ::operator new(std::size_t{1} << (c + kMinShift), std::align_val_t{16});
}

void deallocate(void* ptr, std::size_t bytes) noexcept {
  if (ptr == nullptr) return;
  if (bytes == 0) bytes = 1;
  if (!kPoolMemory || bytes > (std::size_t{1} << kMaxShift)) {
    ::operator delete(ptr, std::align_val_t{16});
    return;
  }
  auto* b = static_cast<FreeBlock*>(ptr);
  const int c = size_class(bytes);
  b->next = pool.free[c];
  pool.free[c] = b;
}

}  // namespace tessel::codegen::block_pool
