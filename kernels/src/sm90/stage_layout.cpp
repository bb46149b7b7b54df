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
  // Block (i, kb) is the slice (_, (i, kb)) of the division: its mode 0, the same tile for every
  // block, at the offset of mode 1 at (i, kb). So the tile's descriptor (its canonical-layout check
  // at every coordinate) is made once, and each block has it at its own start (a slice and a
  // comparison of the layouts per block were a fortieth of the Hopper GEMMs' generation).
  const Layout divided = zipped_divide(stage.layout, Tiler::from_shape(IntTuple{mn, k_inst}));
  ComposedLayout tile = slice(SliceCoord{_, SliceCoord{0, 0}}, ComposedLayout{stage.swizzle, stage.offset, divided});
  StageDescriptors out;
  out.base = make_matrix_descriptor(tile, mma, major);
  out.base.start = 0;
  const Layout blocks = divided[1];
  for (int i = 0; i < blocks_mn; ++i) {
    for (int kb = 0; kb < kblocks; ++kb) {
      tile.offset = stage.offset + blocks(IntTuple{i, kb}).leaf();
      out.starts.push_back(matrix_descriptor_start(tile, mma, out.base.swizzle).value("wgmma block start"));
    }
  }
  return out;
}

}  // namespace tessel::kernels::sm90
