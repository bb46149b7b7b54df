// demos.hpp: the demonstration kernels of the code generator, each a small complete kernel that
// shows one hardware path: a 128-bit vector copy, a TMA tile load through an mbarrier, and one
// warpgroup MMA on swizzled shared-memory tiles. Each has a config, a generator and a catalog class
// (operation demo: one kernel per combination of its options).
#pragma once

#include <string>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/wgmma.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

// dst[i] = src[i] for i < n. Parameters: src, dst (u64 global pointers, 16-byte aligned), n (s64,
// a multiple of vector()). Each thread moves one 16-byte vector: ld.global.v4 / st.global.v4.
// Grid: ceil(n / elements_per_block()) blocks of `threads`.
struct VectorCopyConfig {
  codegen::Type dtype = codegen::Type::F32;  // f32, bf16 or f64
  int threads = 128;
  int vector() const;  // elements per 16 bytes
  int64_t elements_per_block() const { return int64_t{threads} * vector(); }
  std::string name() const;
};
VectorCopyConfig vector_copy_config(const Options& o);  // from resolved registry options
codegen::Module vector_copy(const VectorCopyConfig& c);
KernelClassPtr vector_copy_class();  // the catalog class "vector_copy" (operation demo)

// One TMA load of a rows x cols box of a row-major 2-D tensor into shared memory, completed on an
// mbarrier, then written back to out (row-major, leading dimension `ld` elements) by all threads
// through the shared-memory layout (swizzled when the descriptor swizzles). Parameters: tmap (the
// TMA descriptor of the input, box rows x cols, this swizzle), out (u64), ld (s64), and the
// box's coordinates are (ctaid.x * cols, ctaid.y * rows). Grid: (ceil(N/cols), ceil(M/rows)).
struct TmaTileConfig {
  codegen::Type dtype = codegen::Type::BF16;  // f32 or bf16
  int rows = 64, cols = 64;
  codegen::SmemSwizzle swizzle = codegen::SmemSwizzle::B128;
  int threads = 128;
  std::string name() const;
  // The shared-memory layout of the box, (rows, cols) -> element offset.
  ComposedLayout smem_layout() const;
};
TmaTileConfig tma_tile_config(const Options& o);  // cols: one swizzle row (128 B unswizzled)
codegen::Module tma_tile(const TmaTileConfig& c);
KernelClassPtr tma_tile_class();

// D (64 x n, f32, row-major) = A (64 x k, row-major = K-major) * B^T (B is n x k, row-major =
// K-major), k = 32 bytes per wgmma times k_blocks. One warpgroup (128 threads) copies A and B into
// swizzled shared memory, issues k_blocks wgmma.mma_async m64nNk16 through descriptors, and
// stores the accumulators with their fragment layout. Parameters: a, b, d (u64).
struct WgmmaTileConfig {
  codegen::Type dtype = codegen::Type::BF16;  // f16 or bf16 inputs, f32 accumulators
  int n = 64;
  codegen::SmemSwizzle swizzle = codegen::SmemSwizzle::B128;
  int k() const;  // the tile's K: one swizzle row (16 elements without swizzle)
  std::string name() const;
  ComposedLayout smem_layout(int rows) const;  // (rows, k) -> element offset, K-major
};
WgmmaTileConfig wgmma_tile_config(const Options& o);
codegen::Module wgmma_tile(const WgmmaTileConfig& c);
KernelClassPtr wgmma_tile_class();

}  // namespace tessel::kernels
