// block_pool.hpp: the allocator of the IR's blocks (Block, a vector of statements): arrays in
// power-of-two size classes, recycled through per-thread free lists and never given back.
//
// A GEMM kernel's blocks hold megabytes of statements (an instruction keeps its operands inline),
// built up by doubling and released when the kernel is. From malloc, each kernel's were faulted
// in afresh: malloc gave the memory back to the system between kernels, and the page faults and
// its slow paths were a tenth of generation's wall time. From here a block is a free-list pop.
//
// The memory this allocator holds is the most that blocks of each size class took at once (a few
// MB for the largest GEMM kernels), reused by every later kernel on the thread. A block may be
// released on a thread other than the one that made it (it joins that thread's lists).
#pragma once

#include <cstddef>

namespace tessel::codegen {

namespace block_pool {
// `bytes` of storage aligned for any statement (16 bytes).
void* allocate(std::size_t bytes);
// Gives back what allocate(bytes) returned, with the same `bytes`.
void deallocate(void* p, std::size_t bytes) noexcept;
}  // namespace block_pool

// A stateless allocator over block_pool: every instance equals every other, so moving a block
// moves its pointer, as with std::allocator.
template <class T>
struct BlockAllocator {
  using value_type = T;
  BlockAllocator() = default;
  template <class U>
  BlockAllocator(const BlockAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(block_pool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { block_pool::deallocate(p, n * sizeof(T)); }
  template <class U>
  friend bool operator==(const BlockAllocator&, const BlockAllocator<U>&) {
    return true;
  }
};

}  // namespace tessel::codegen
