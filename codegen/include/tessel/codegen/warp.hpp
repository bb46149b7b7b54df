// warp.hpp: warp-collective matrix instructions: ldmatrix and stmatrix (8x8 matrices of 16-bit
// elements between shared memory and registers) and mma.sync (the sm_80 tensor-core MMA).
//
// All 32 lanes of the warp execute each of these with the same qualifiers (.sync.aligned).
// Section numbers are those of the PTX ISA 9.0 reference (§9.7.14.5 warp-level mma).
#pragma once

#include <vector>

#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// Fragment of an 8x8 matrix of 16-bit elements in ldmatrix/stmatrix (PTX ISA 9.0, "ldmatrix
// fragment layout"): lane t holds, in the 32-bit register of that matrix, the elements
// (row t/4, columns 2*(t%4) and 2*(t%4)+1), the lower-numbered column in the low half:
//   (T32,V2) -> (M8,N8), row-major index 8m+n:  (32,2):(2,1)
// With .trans the lanes hold the same positions of the transposed matrix.
//
// `ldmatrix.sync.aligned.m8n8.x{num}{.trans}.shared.b16 {r0, ...}, [addr]`: loads `num` 8x8
// matrices; lanes 8j..8j+7 give, in `addr`, the shared addresses of the 8 rows (16 bytes each,
// 16-byte aligned) of matrix j. Returns `num` b32 registers, register j holding matrix j.
// PTX ISA 9.0 §9.7.14.5.15 ldmatrix: num is 1, 2 or 4.
std::vector<Value> ldmatrix(KernelBuilder& b, Value smem_addr, int num, bool trans = false);

// `stmatrix.sync.aligned.m8n8.x{n}{.trans}.shared.b16 [addr], {r0, ...}`: stores n = frags.size()
// 8x8 matrices, fragment j from register frags[j], at the row addresses the lanes give as above.
// PTX ISA 9.0 §9.7.14.5.16 stmatrix (sm_90): n is 1, 2 or 4; each fragment is a 32-bit register
// (b32, u32, s32, f16x2, bf16x2).
void stmatrix(KernelBuilder& b, Value smem_addr, const std::vector<Value>& frags, bool trans = false);

// `mma.sync.aligned.m16n8k{16,8}.row.col.f32.{ab}.{ab}.f32 {d}, {a}, {b}, {c}`: D = A*B + C with
// A 16xK row-major, B Kx8 column-major, C and D 16x8 in f32, one product per warp. K is 16 for
// ab = f16 or bf16 (CuTe's SM80_16x8x16_F32F16F16F32_TN / _F32BF16BF16F32_TN) and 8 for tf32
// (SM80_16x8x8_F32TF32TF32F32_TN). With g = lane/4 and q = lane%4, the fragments are (PTX ISA
// 9.0 §9.7.14.5.8 and §9.7.14.5.7, "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8"):
//   f16/bf16, K=16: a: 4 b32 registers, each two elements (low half first):
//       A (T32,V8) -> (M16,K16), index m+16k:  ((4,8),(2,2,2)):((32,1),(16,8,128))
//       i.e. element v of lane t sits at m = g + 8*(v/2%2), k = 2q + v%2 + 8*(v/4)
//     b: 2 b32 registers, two elements each:
//       B (T32,V4) -> (N8,K16), index n+8k:    ((4,8),(2,2)):((16,1),(8,64))
//   tf32, K=8: a: 4 b32 registers, one element each:
//       A (T32,V4) -> (M16,K8), index m+16k:   ((4,8),(2,2)):((16,1),(8,64))
//     b: 2 b32 registers, one element each:
//       B (T32,V2) -> (N8,K8), index n+8k:     ((4,8),2):((8,1),32)
//   c and d: 4 f32 registers:
//       C (T32,V4) -> (M16,N8), index m+16n:   ((4,8),(2,2)):((32,1),(16,8))
// PTX ISA 9.0 §9.7.14.5.14 mma: ab is F16, BF16 or TF32; a, b and c have 4, 2 and 4 registers;
// a and b are 32-bit registers (b32, u32, s32, f16x2, bf16x2), c and d are f32.
// Returns fresh registers for d.
std::vector<Value> mma_sync(KernelBuilder& b, Type ab, const std::vector<Value>& a, const std::vector<Value>& bm,
                            const std::vector<Value>& c);
// The same into given registers `d` (4 f32); d may be c itself (accumulate in place).
void mma_sync(KernelBuilder& b, Type ab, const std::vector<Value>& d, const std::vector<Value>& a,
              const std::vector<Value>& bm, const std::vector<Value>& c);

}  // namespace tessel::codegen
