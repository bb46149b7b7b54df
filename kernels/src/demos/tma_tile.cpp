// demos/tma_tile.cpp: one TMA tile load: an elected thread initializes an mbarrier, arms it with
// the box's byte count and issues cp.async.bulk.tensor; every thread waits on the barrier's
// phase, then writes the box back to global memory through the shared-memory layout (swizzled
// as the TMA descriptor swizzles), predicated against the tensor's edges.
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
#include "demos/demo_class.hpp"
#include "tessel/kernels/demos.hpp"

namespace tessel::kernels {

using namespace codegen;

std::string TmaTileConfig::name() const {
  return std::string("tessel_demo_tma_tile_sm90_") + ptx_name(dtype) + "_" + std::to_string(rows) + "x" +
         std::to_string(cols) + "_sw" +
         (swizzle == SmemSwizzle::None ? "none" : std::to_string(swizzle_bytes(swizzle)));
}

ComposedLayout TmaTileConfig::smem_layout() const {
  // TMA writes the box row-major (the innermost dimension contiguous); a swizzled box XORs the
  // 16-byte chunks of each row as the wgmma descriptors do (same byte swizzle Sw<B,4,3>).
  return composition(element_swizzle(swizzle, dtype), make_layout(IntTuple{rows, cols}, IntTuple{cols, 1}));
}

Module tma_tile(const TmaTileConfig& c) {
  if (c.dtype != Type::BF16 && c.dtype != Type::F32)
    fail(std::string("tma_tile: dtype ") + ptx_name(c.dtype) + " (bf16 or f32)");
  const int eb = bytes(c.dtype);
  if (c.swizzle != SmemSwizzle::None && c.cols * eb != swizzle_bytes(c.swizzle)) {
    fail("tma_tile: a " + std::string(to_string(c.swizzle)) + " swizzled box has rows of " +
         std::to_string(swizzle_bytes(c.swizzle)) + " bytes, got " + std::to_string(c.cols) + " " + ptx_name(c.dtype));
  }
  if (c.rows < 1 || c.rows > 256 || c.cols < 1 || c.cols > 256 || (c.cols * eb) % 16 != 0) {
    fail("tma_tile: box " + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
         " (each side in [1, 256], rows of a multiple of 16 bytes)");
  }
  const int64_t box_bytes = int64_t{c.rows} * c.cols * eb;
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{c.threads, 1, 1};
  Value tmap = b.tensor_map_param("tmap");
  Value out = b.global_pointer_param("out");
  Value pm = b.param("m", Type::S32), pn = b.param("n", Type::S32), pld = b.param("ld", Type::S32);
  Int M = b.symbol("m", pm, 1, 1), N = b.symbol("n", pn, 1, 1), LD = b.symbol("ld", pld, 1, 1);
  Int tid = b.thread_index(0), bx = b.block_index(0), by = b.block_index(1);
  Value tile = b.shared_array(c.name() + "_box", box_bytes, c.swizzle == SmemSwizzle::None ? 128 : 1024);
  Value bar = b.shared_array(c.name() + "_bar", 8, 8);
  Value x = b.lower(bx * Int(c.cols), Type::S32), y = b.lower(by * Int(c.rows), Type::S32);

  Value leader = b.lower(tid, Type::S32) == 0;
  b.if_(leader, [&] {
    mbarrier_init(b, bar, 1);
    fence_mbarrier_init(b);  // the barrier's initialization is visible to the async proxy
  });
  bar_sync(b);
  b.if_(leader, [&] {
    mbarrier_arrive_expect_tx(b, bar, box_bytes);
    tma_load(b, tile, tmap, {x, y}, bar);
  });
  mbarrier_wait(b, bar, 0);

  // The box in 16-byte chunks, ((1,v),(rows,cols/v)): thread tid takes chunks tid + threads*j,
  // numbered row by row so that neighbouring threads write neighbouring addresses; one 16-byte
  // shared load per chunk, then element stores, each guarded against the tensor's edges.
  b.note("box chunk e = tid + threads*j at row e / (cols/v), column v*(e % (cols/v)); zipped_divide by (1,v)");
  const int v = 16 / eb, per_row = c.cols / v;
  const Tiler chunk = Tiler::from_shape(IntTuple{1, v});
  const Tensor sbox = Tensor(tile, Space::Shared, c.dtype, c.smem_layout(), Type::S32, 1024).zipped_divide(chunk);
  const Tensor gout = Tensor(out, Space::Global, c.dtype, make_layout(IntTuple{M, N}, IntTuple{LD, 1}), Type::S64, eb)
                          .zipped_divide(chunk);
  const int chunks = c.rows * per_row;
  for (int j = 0; j * c.threads < chunks; ++j) {
    const Int e = tid + Int(c.threads * j);
    const Int r = e / Int(per_row), q = e % Int(per_row);
    // A box of fewer chunks than threads leaves the last threads without one.
    Value mine = (j + 1) * c.threads > chunks ? b.lower(e, Type::S32) < chunks : Value();
    std::vector<Value> vals = b.load_tensor(sbox(SliceCoord{_, SliceCoord{r, q}}), mine);
    Value row_inside = b.lower(by * Int(c.rows) + r, Type::S32) < pm;
    if (mine.valid()) row_inside = row_inside & mine;
    Value col0 = b.lower(bx * Int(c.cols) + q * Int(v), Type::S32);
    std::vector<Value> guards;
    for (int i = 0; i < v; ++i) guards.push_back(row_inside & (col0 + i < pn));
    b.store_tensor(gout(SliceCoord{_, SliceCoord{by * Int(c.rows) + r, bx * Int(per_row) + q}}), vals, guards);
  }
  b.end_note();
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

TmaTileConfig tma_tile_config(const Options& o) {
  TmaTileConfig c;
  c.dtype = parse_type(o.at("dtype"));
  c.rows = static_cast<int>(parse_integer("rows", o.at("rows"), 1, 256));
  c.swizzle = parse_smem_swizzle(o.at("swizzle"));
  c.cols = (c.swizzle == SmemSwizzle::None ? 128 : swizzle_bytes(c.swizzle)) / bytes(c.dtype);
  return c;
}

KernelClassPtr tma_tile_class() {
  DemoSpec s;
  s.name = "tma_tile";
  s.description = "one cp.async.bulk.tensor 2-D box into shared memory on an mbarrier, written back (sm_90)";
  s.options = {{"dtype", {"bf16", "f32"}, "element type"},
               {"rows", {"64", "128", "32"}, "box rows"},
               {"swizzle",
                {"128B", "64B", "32B", "none"},
                "shared-memory swizzle; a row is one swizzle width (128 B unswizzled)"}};
  s.min_cc = 90;
  s.kernel_name = [](const Options& o) { return tma_tile_config(o).name(); };
  s.operands = [](const Options& o) {
    const Type t = tma_tile_config(o).dtype;
    return std::vector<OperandAttributes>{{"in", t, Major::Row, 16 / bytes(t)}, {"out", t, Major::Row, 1}};
  };
  s.generate = [](const Options& o) { return tma_tile(tma_tile_config(o)); };
  return make_demo_class(std::move(s));
}
}  // namespace tessel::kernels
