// wgmma.hpp: warpgroup MMA (sm_90a): shared-memory matrix descriptors derived from the algebra's
// swizzled layouts, the wgmma instructions, and the accumulator fragment layout.
#pragma once

#include <vector>

#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// How an operand tile is stored: K-major (K contiguous) or MN-major (M or N contiguous).
enum class Major : uint8_t { K, MN };

// The swizzle modes of a matrix descriptor (PTX ISA, "Matrix Descriptor Format": bits 62-63).
enum class SmemSwizzle : uint8_t { None, B32, B64, B128 };
const char* to_string(SmemSwizzle s);                  // "none", "32B", "64B", "128B"
SmemSwizzle parse_smem_swizzle(const std::string& s);  // the inverse; throws naming the valid ones
int swizzle_bytes(SmemSwizzle s);                      // 16 for None (one core-matrix row), 32, 64, 128

// The descriptor mode of a swizzle acting on element offsets of `elem`: in bytes it must be
// Sw<1,4,3>, Sw<2,4,3> or Sw<3,4,3> (32/64/128B), or the identity (no swizzle).
SmemSwizzle smem_swizzle(const Swizzle& s, Type elem);
// The swizzle on element offsets for a mode: Sw<3,3,3> for 128B with 16-bit elements.
Swizzle element_swizzle(SmemSwizzle mode, Type elem);

// A wgmma shared-memory matrix descriptor, in bytes (the encoding divides by 16).
struct MatrixDescriptor {
  SmemSwizzle swizzle = SmemSwizzle::None;
  int64_t lbo = 0;  // leading-dimension byte offset
  int64_t sbo = 0;  // stride-dimension byte offset
  Int start = 0;    // byte offset of the tile in its buffer, before the swizzle
  // The 64-bit descriptor for a tile at byte address `start + smem_address` (static parts).
  uint64_t encode(uint32_t smem_address) const;
};

// The canonical layout of one wgmma operand tile, (MN, K) -> element offset (PTX ISA, "Shared
// Memory Matrix Layout"), with T = 16 bytes of elements and W = the swizzle width:
//   K-major:  ((8,MN/8),(T,K/T)) : ((W/16*T, SBO),(1, none ? LBO : T))
//   MN-major: ((T,W/16,MN/(T*W/16)),(8,K/8)) : ((1,T,LBO),(W/16*T,SBO)) (none: ((T,1,..),(8,..)):((1,T,SBO),(T,LBO)))
// wrapped in the mode's element swizzle. lbo and sbo are in elements here.
ComposedLayout canonical_operand_layout(SmemSwizzle mode, Major major, Type elem, int mn, int k, int64_t lbo,
                                        int64_t sbo);

// The descriptor of an operand tile: `tile` maps (MN, K) coordinates of one wgmma (MN = 64 for A,
// N for B; K = 32 bytes of elements) to element offsets in shared memory. Its swizzle gives the
// mode; LBO and SBO are read off the tile and then checked: the tile must equal the canonical
// layout at every coordinate, else tessel::Error names the tile and the first coordinate that
// differs. The buffer must be aligned to 8 rows of the swizzle width (1024 B for 128B).
MatrixDescriptor make_matrix_descriptor(const ComposedLayout& tile, Type elem, Major major);
// Its last step alone: the start of `tile` in bytes, checked against the swizzle's alignment, for
// a tile that differs from one make_matrix_descriptor took only in its offset (the blocks of a
// stage), which then has that descriptor at this start.
Int matrix_descriptor_start(const ComposedLayout& tile, Type elem, SmemSwizzle swizzle);

// Emits the 64-bit descriptor of a tile whose buffer starts at shared address `smem` (u32).
Value matrix_descriptor(KernelBuilder& b, Value smem, const MatrixDescriptor& d);

// One wgmma.mma_async shape m64nNk(32 bytes of A): accumulator type d, input types a and b.
struct WgmmaAtom {
  int n = 64;
  Type d = Type::F32, a = Type::BF16, b = Type::BF16;
  int k() const;             // 16 for f16/bf16, 8 for tf32, 32 for fp8
  int accumulators() const;  // registers per thread: n/2 (f32) or n/4 (f16, packed in pairs)
  void check() const;        // throws naming the rule for an invalid combination
};

// The accumulator fragment: (T128, V) -> (M64, N) as a column-major index m + 64*n
// (PTX ISA, "Matrix Fragments for wgmma.mma_async .m64nNk16": register d[i] of thread t holds
// row 16*(t/32) + (t%32)/4 + 8*((i/2)%2), column 2*(t%4) + i%2 + 8*(i/4)). For f32 accumulators.
Layout wgmma_accumulator_layout(int n);

// Fresh accumulator registers (f32, or b32 pairs for f16).
std::vector<Value> wgmma_accumulators(KernelBuilder& b, const WgmmaAtom& atom);

void wgmma_fence(KernelBuilder& b);
void wgmma_commit_group(KernelBuilder& b);
void wgmma_wait_group(KernelBuilder& b, int pending);

// D = A*B + (scale_d ? D : 0), A and B from shared-memory descriptors. trans_a/trans_b say the
// operand is MN-major (f16/bf16 only). scale_d is a pred.
void wgmma(KernelBuilder& b, const WgmmaAtom& atom, const std::vector<Value>& acc, Value desc_a, Value desc_b,
           Value scale_d, Major major_a = Major::K, Major major_b = Major::K);
// The same with A from registers (4 b32 per thread: the A fragment of the PTX ISA).
void wgmma_reg_a(KernelBuilder& b, const WgmmaAtom& atom, const std::vector<Value>& acc, const std::vector<Value>& a,
                 Value desc_b, Value scale_d, Major major_b = Major::K);

}  // namespace tessel::codegen
