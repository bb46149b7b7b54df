// operand_pool.hpp: the allocator of the IR's operand lists (Operand::elems, and Instr::ops beyond
// the operands it keeps inline) and of its if and loop nodes (IfStmt, LoopStmt): small arrays
// carved from per-thread slabs and recycled through free lists, one per size class.
//
// The builder makes an operand list for every address, vector or pair operand (and made one for
// every instruction before InstrOperands kept up to four inline), and a kernel keeps them all
// until it is destroyed: from malloc, each came from its slow path (nothing freed yet to reuse)
// and their allocation and release were a tenth of a GEMM's generation and destruction
// (callgrind, docs/performance.md). From a slab an allocation
// is a pointer bump or a free-list pop, a release a push.
//
// Slabs are never given back: the memory this allocator holds is the most that operand lists
// took at once (a few MB for the largest GEMM kernels), reused by every later kernel. A list may
// be released on a thread other than the one that made it (its block joins that thread's lists).
#pragma once

#include <cstddef>

namespace tessel::codegen {

namespace operand_pool {
// `bytes` of storage aligned for any operand (16 bytes); sizes above kMaxPooled go to operator new.
void* allocate(std::size_t bytes);
// Gives back what allocate(bytes) returned, with the same `bytes`.
void deallocate(void* p, std::size_t bytes) noexcept;
inline constexpr std::size_t kMaxPooled = 512;
}  // namespace operand_pool

}  // namespace tessel::codegen
