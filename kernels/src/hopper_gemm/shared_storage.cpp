// hopper_gemm/shared_storage.cpp: the regions of the Hopper GEMM's shared memory.
#include "hopper_gemm/shared_storage.hpp"

#include "sm90/epilogue.hpp"

namespace tessel::kernels {

HopperGemmSharedStorage::HopperGemmSharedStorage(const HopperGemmConfig& c) {
  constexpr int64_t kSwizzlePeriod = 8 * sm90::kSwizzleRow;  // 1024 bytes
  constexpr int64_t kMbarrier = 8;                           // bytes, and its alignment
  // The staging boxes in lines for C by lines where the block's shared memory has room for them.
  // (Boxes as wide as 128 bytes of out only: 64 lines of an M-contiguous C too.)
  const bool wide = c.tile_n * codegen::bytes(c.out) >= sm90::kSwizzleRow;
  for (const bool lines : {wide, false}) {
    sm90::SharedStorageLayout l;
    a = l.add(c.stages, c.a_stage_bytes(), kSwizzlePeriod);
    b = l.add(c.stages, c.b_stage_bytes(), kSwizzlePeriod);
    epilogue = l.add(c.consumers(),
                     lines ? sm90::TmaStoreEpilogue::kLineStagingBytes : sm90::TmaStoreEpilogue::kStagingBytes,
                     kSwizzlePeriod);
    full = l.add(c.stages, kMbarrier, kMbarrier);
    empty = l.add(c.stages, kMbarrier, kMbarrier);
    turns = l.add(c.pingpong ? 2 : 0, kMbarrier, kMbarrier);
    c_full = l.add(2 * c.consumers(), kMbarrier, kMbarrier);  // one per staging box
    split_k_last = l.add(c.split_k || c.stream_k ? 1 : 0, 8, 8);
    bytes = l.bytes();
    align = l.align();
    c_lines = lines;
    if (!lines || bytes + align <= kMaxSharedBytes) break;
  }
}

}  // namespace tessel::kernels
