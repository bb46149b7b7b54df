// sm90/stage_layout.cpp: operand stage layouts from the algebra, and their wgmma descriptors.
#include "sm90/stage_layout.hpp"

#include "tessel/algebra/error.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

ComposedLayout stage_layout(Type elem, codegen::Major major, int rows, int k) {
  const Swizzle sw = element_swizzle(SmemSwizzle::B128, elem);
  if (major == codegen::Major::K) return composition(sw, make_layout(IntTuple{rows, k}, IntTuple{k, 1}));
  const int chunk = kSwizzleRow / bytes(elem);
  return composition(sw,
                     make_layout(IntTuple{IntTuple{chunk, rows / chunk}, k}, IntTuple{IntTuple{1, chunk * k}, chunk}));
}

StageDescriptors stage_descriptors(const ComposedLayout& stage, Type mma, codegen::Major major, int mn, int blocks_mn,
                                   int k_inst, int kblocks) {
  StageDescriptors out;
  ComposedLayout divided = stage;
  divided.layout = zipped_divide(stage.layout, Tiler::from_shape(IntTuple{mn, k_inst}));
  ComposedLayout first;  // the first block's tile
  for (int i = 0; i < blocks_mn; ++i) {
    for (int kb = 0; kb < kblocks; ++kb) {
      // The block as a tile of its own: (MN, K) of the instruction, its position in the offset.
      const ComposedLayout tile = slice(SliceCoord{_, SliceCoord{i, kb}}, divided);
      // A block with the first's layout and swizzle has its descriptor at another start: the
      // canonical-layout check, at every coordinate, is made once (per block it was 4% of the
      // Hopper GEMMs' generation).
      MatrixDescriptor d;
      if (!out.starts.empty() && tile.layout == first.layout && tile.swizzle == first.swizzle) {
        d = out.base;
        d.start = matrix_descriptor_start(tile, mma, d.swizzle);
      } else {
        d = make_matrix_descriptor(tile, mma, major);
      }
      if (out.starts.empty()) {
        first = tile;
        out.base = d;
        out.base.start = 0;
      } else if (d.lbo != out.base.lbo || d.sbo != out.base.sbo || d.swizzle != out.base.swizzle) {
        fail("hopper_gemm: the wgmma blocks of one stage have different descriptors");
      }
      out.starts.push_back(d.start.value("wgmma block start"));
    }
  }
  return out;
}

}  // namespace tessel::kernels::sm90
