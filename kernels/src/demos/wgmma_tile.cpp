// demos/wgmma_tile.cpp: one warpgroup MMA tile: A (64 x k) and B (n x k), both K-major, are copied
// into swizzled shared memory with layouts from the algebra, each 16-wide K block is multiplied
// by wgmma.mma_async through descriptors derived (and checked) from the same layouts, and the
// f32 accumulators are stored through the PTX ISA's fragment layout.
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/wgmma.hpp"
#include "demos/demo_class.hpp"
#include "tessel/kernels/demos.hpp"

namespace tessel::kernels {

using namespace codegen;

int WgmmaTileConfig::k() const {
  const int eb = bytes(dtype);
  return swizzle == SmemSwizzle::None ? 32 / eb : swizzle_bytes(swizzle) / eb;
}

std::string WgmmaTileConfig::name() const {
  return std::string("tessel_demo_wgmma_sm90a_") + ptx_name(dtype) + "_f32_m64n" + std::to_string(n) + "k" +
         std::to_string(k()) + "_sw" + (swizzle == SmemSwizzle::None ? "none" : std::to_string(swizzle_bytes(swizzle)));
}

ComposedLayout WgmmaTileConfig::smem_layout(int rows) const {
  const int64_t t = 16 / bytes(dtype);
  if (swizzle == SmemSwizzle::None) {
    // Core matrices (8 rows x 16 bytes) stored contiguously, K-adjacent ones next: LBO = 8 rows of
    // 16 bytes, SBO = the two K core matrices of a row group.
    return composition(Swizzle(), make_layout(IntTuple{IntTuple{8, rows / 8}, IntTuple{t, k() / t}},
                                              IntTuple{IntTuple{t, 8 * t * (k() / t)}, IntTuple{1, 8 * t}}));
  }
  // Rows of one swizzle width, row-major: the swizzle atom (8 rows x W bytes) repeated down M/N.
  return composition(element_swizzle(swizzle, dtype), make_layout(IntTuple{rows, k()}, IntTuple{k(), 1}));
}

Module wgmma_tile(const WgmmaTileConfig& c) {
  if (c.dtype != Type::BF16 && c.dtype != Type::F16)
    fail(std::string("wgmma_tile: dtype ") + ptx_name(c.dtype) + " (bf16 or f16)");
  const WgmmaAtom atom{c.n, Type::F32, c.dtype, c.dtype};
  atom.check();
  const int k = c.k(), kinst = atom.k(), t = 16 / bytes(c.dtype);
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{128, 1, 1};
  Value a = b.global_pointer_param("a");
  Value bp = b.global_pointer_param("b");
  Value d = b.global_pointer_param("d");
  Int tid = b.thread_index(0);
  const int eb = bytes(c.dtype);
  Value sa = b.shared_array(c.name() + "_smem_a", int64_t{64} * k * eb, 1024);
  Value sb = b.shared_array(c.name() + "_smem_b", int64_t{c.n} * k * eb, 1024);
  const Tensor ga(a, Space::Global, c.dtype, make_layout(IntTuple{64, k}, IntTuple{k, 1}), Type::S32, 16);
  const Tensor gb(bp, Space::Global, c.dtype, make_layout(IntTuple{c.n, k}, IntTuple{k, 1}), Type::S32, 16);
  const Tensor tsa(sa, Space::Shared, c.dtype, c.smem_layout(64), Type::S32, 1024);
  const Tensor tsb(sb, Space::Shared, c.dtype, c.smem_layout(c.n), Type::S32, 1024);

  // Global -> shared in 16-byte chunks: ((1,t),(rows,k/t)) after zipped_divide; chunk j of
  // thread tid is number tid + 128*j of the rest mode.
  b.note("zipped_divide the tile into 16-byte chunks; thread tid copies chunks tid + 128*j");
  const Tiler chunk = Tiler::from_shape(IntTuple{1, t});
  auto load_tile = [&](const Tensor& g, const Tensor& s, int rows) {
    const Tensor gc = g.zipped_divide(chunk), sc = s.zipped_divide(chunk);
    for (int j = 0; j < rows * (k / t) / 128; ++j) {
      const Int idx = tid + Int(128 * j);
      b.copy(gc(SliceCoord{_, idx}), sc(SliceCoord{_, idx}));
    }
  };
  load_tile(ga, tsa, 64);
  load_tile(gb, tsb, c.n);
  b.end_note();
  // The generic-proxy writes above must be visible to wgmma, which reads through the async proxy.
  fence_proxy_async(b, Space::Shared);
  bar_sync(b);

  std::vector<Value> acc = wgmma_accumulators(b, atom);
  wgmma_fence(b);
  const Tiler block = Tiler::from_shape(IntTuple{64, kinst});
  const Tiler block_b = Tiler::from_shape(IntTuple{c.n, kinst});
  Value zero = b.constant(0, Type::S32);
  for (int kb = 0; kb < k / kinst; ++kb) {
    b.note("wgmma descriptors of K block " + std::to_string(kb) + " (zipped_divide by the instruction tile)");
    Tensor ta = tsa.zipped_divide(block)(SliceCoord{_, SliceCoord{0, kb}});
    Tensor tb = tsb.zipped_divide(block_b)(SliceCoord{_, SliceCoord{0, kb}});
    Value da = matrix_descriptor(b, sa, make_matrix_descriptor(ta.layout, c.dtype, codegen::Major::K));
    Value db = matrix_descriptor(b, sb, make_matrix_descriptor(tb.layout, c.dtype, codegen::Major::K));
    // D = A*B on the first block (scale-d false), D += A*B after.
    Value scale_d = kb == 0 ? (zero != 0) : (zero == 0);
    wgmma(b, atom, acc, da, db, scale_d);
  }
  b.end_note();
  wgmma_commit_group(b);
  wgmma_wait_group(b, 0);

  b.note("store: D (64 x n, row-major) composed with the accumulator layout (T128,V) -> (M64,N), sliced at tid");
  const Tensor gd(d, Space::Global, Type::F32, make_layout(IntTuple{64, c.n}, IntTuple{c.n, 1}), Type::S32, 16);
  const Tensor mine = gd.compose(wgmma_accumulator_layout(c.n))(SliceCoord{tid, _});
  b.store_tensor(mine, acc);
  b.end_note();
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

WgmmaTileConfig wgmma_tile_config(const Options& o) {
  WgmmaTileConfig c;
  c.dtype = parse_type(o.at("dtype"));
  c.n = static_cast<int>(parse_integer("n", o.at("n"), 8, 256));
  c.swizzle = parse_smem_swizzle(o.at("swizzle"));
  return c;
}

KernelClassPtr wgmma_tile_class() {
  DemoSpec s;
  s.name = "wgmma_tile";
  s.description =
      "D(64xN, f32) = A(64xK) * B(NxK)^T: one warpgroup, wgmma.mma_async on swizzled shared memory (sm_90a)";
  s.options = {{"dtype", {"bf16", "f16"}, "input type (f32 accumulators)"},
               {"n", {"64", "128", "256"}, "N of the wgmma (and of D)"},
               {"swizzle", {"128B", "64B", "32B", "none"}, "shared-memory swizzle; K = one swizzle row"}};
  s.min_cc = 90;
  s.kernel_name = [](const Options& o) { return wgmma_tile_config(o).name(); };
  s.operands = [](const Options& o) {
    const Type t = wgmma_tile_config(o).dtype;
    return std::vector<OperandAttributes>{
        {"A", t, Major::Row, 1}, {"B", t, Major::Column, 1}, {"D", Type::F32, Major::Row, 1}};
  };
  s.generate = [](const Options& o) { return wgmma_tile(wgmma_tile_config(o)); };
  return make_demo_class(std::move(s));
}
}  // namespace tessel::kernels
