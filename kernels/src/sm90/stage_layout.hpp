// sm90/stage_layout.hpp: the shared-memory layout of one operand stage of an sm_90 GEMM, as the
// TMA leaves it with the 128-byte swizzle, and the wgmma matrix descriptors that read it.
#pragma once

#include <cstdint>
#include <vector>

#include "tessel/codegen/wgmma.hpp"

namespace tessel::kernels::sm90 {

constexpr int kSwizzleRow = 128;  // bytes: every operand stage uses the 128-byte swizzle

// One operand stage, (MN, K) -> element offset, as TMA boxes with the 128-byte swizzle leave it.
// K-major: one box of `rows` rows of 128 bytes. MN-major: one box of K rows of 128 bytes of MN per
// 128-byte chunk of MN: ((chunk, rows/chunk), K).
ComposedLayout stage_layout(codegen::Type elem, codegen::Major major, int rows, int k);

// The descriptors of every wgmma block of an operand stage: block (i, kb) covers MN rows
// [i*mn, (i+1)*mn) and the kb-th k of the instruction. All share LBO, SBO and the swizzle, and
// differ by a static start offset, which is returned in bytes (the encoding adds start >> 4).
struct StageDescriptors {
  codegen::MatrixDescriptor base;  // start 0
  std::vector<int64_t> starts;     // [i * kblocks + kb], bytes
};
StageDescriptors stage_descriptors(const ComposedLayout& stage, codegen::Type mma, codegen::Major major, int mn,
                                   int blocks_mn, int k_inst, int kblocks);

}  // namespace tessel::kernels::sm90
