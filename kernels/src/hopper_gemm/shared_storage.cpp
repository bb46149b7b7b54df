// hopper_gemm/shared_storage.cpp: the regions of the Hopper GEMM's shared memory.
#include "hopper_gemm/shared_storage.hpp"

#include <algorithm>

#include "sm90/epilogue.hpp"

namespace tessel::kernels {

HopperGemmSharedStorage::HopperGemmSharedStorage(const HopperGemmConfig& c) {
  constexpr int64_t kSwizzlePeriod = 8 * sm90::kSwizzleRow;  // 1024 bytes
  constexpr int64_t kMbarrier = 8;                           // bytes, and its alignment
  // The staging boxes in lines for C by lines where the block's shared memory has room for them.
  // (Boxes as wide as 128 bytes of out only: 64 lines of an M-contiguous C too.) Then as many
  // staging boxes per warpgroup as its tile has boxes (up to 4) where room remains, at least two:
  // each box beyond the second lets one more of the tile's C boxes load under the mainloop, and one
  // more TMA store stay in flight.
  const int ob = codegen::bytes(c.out);
  const bool wide = c.tile_n * ob >= sm90::kSwizzleRow;
  const int most = std::clamp(sm90::TmaStoreEpilogue::tile_boxes(c.tile_n, c.out, c.pingpong ? c.slabs() : 1), 2, 4);
  for (const bool lines : {wide, false}) {
    for (int boxes = most; boxes >= 2; --boxes) {
      sm90::SharedStorageLayout l;
      a = l.add(c.stages, c.a_stage_bytes(), kSwizzlePeriod);
      b = l.add(c.stages, c.b_stage_bytes(), kSwizzlePeriod);
      epilogue = l.add(c.consumers(),
                       boxes * (lines ? sm90::TmaStoreEpilogue::kLineBoxBytes : sm90::TmaStoreEpilogue::kBoxBytes),
                       kSwizzlePeriod);
      full = l.add(c.stages, kMbarrier, kMbarrier);
      empty = l.add(c.stages, kMbarrier, kMbarrier);
      turns = l.add(c.pingpong ? 2 : 0, kMbarrier, kMbarrier);
      c_full = l.add(boxes * c.consumers(), kMbarrier, kMbarrier);  // one per staging box
      split_k_last = l.add(c.split_k || c.stream_k ? 1 : 0, 8, 8);
      bytes = l.bytes();
      align = l.align();
      c_lines = lines;
      staging_boxes = boxes;
      if (bytes + align <= kMaxSharedBytes) return;
    }
  }
  // Nothing fits: the last (two plain boxes) stays, and check() names the bytes.
}

}  // namespace tessel::kernels
