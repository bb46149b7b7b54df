// operand_pool.cpp: per-thread slabs and free lists for the IR's operand lists (operand_pool.hpp).
#include "tessel/codegen/operand_pool.hpp"

#include <new>

#include "tessel/algebra/pooling.hpp"

namespace tessel::codegen::operand_pool {

namespace {

constexpr std::size_t kGrain = 64;                      // size classes are multiples of 64 bytes
constexpr std::size_t kClasses = kMaxPooled / kGrain;   // 64, 128, ..., 512 bytes
constexpr std::size_t kSlabBytes = std::size_t{1} << 16;  // each slab: 64 KiB, carved front to back

struct FreeBlock {
  FreeBlock* next;
};

// One thread's free lists and the slab it carves. Slabs are never released (a block may outlive
// its thread, in a kernel handed to another): see operand_pool.hpp.
struct Pool {
  FreeBlock* free[kClasses] = {};
  char* next = nullptr;  // the unused rest of the current slab
  char* end = nullptr;
};

thread_local Pool pool;

std::size_t size_class(std::size_t bytes) { return (bytes + kGrain - 1) / kGrain - 1; }

}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (!kPoolMemory || bytes > kMaxPooled) return ::operator new(bytes, std::align_val_t{16});
  const std::size_t c = size_class(bytes);
  Pool& p = pool;
  if (FreeBlock* b = p.free[c]) {
    p.free[c] = b->next;
    return b;
  }
  const std::size_t size = (c + 1) * kGrain;
  if (static_cast<std::size_t>(p.end - p.next) < size) {
    // The rest of the old slab (less than one block of this class) goes unused.
    p.next = static_cast<char*>(::operator new(kSlabBytes, std::align_val_t{16}));
    p.end = p.next + kSlabBytes;
  }
  void* r = p.next;
  p.next += size;
  return r;
}

void deallocate(void* ptr, std::size_t bytes) noexcept {
  if (ptr == nullptr) return;
  if (bytes == 0) bytes = 1;
  if (!kPoolMemory || bytes > kMaxPooled) {
    ::operator delete(ptr, std::align_val_t{16});
    return;
  }
  const std::size_t c = size_class(bytes);
  auto* b = static_cast<FreeBlock*>(ptr);
  b->next = pool.free[c];
  pool.free[c] = b;
}

}  // namespace tessel::codegen::operand_pool
