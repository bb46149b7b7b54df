// demo_tma_tile.cpp: one TMA tile load: an elected thread initializes an mbarrier, arms it with
// the box's byte count and issues cp.async.bulk.tensor; every thread waits on the barrier's
// phase, then writes the box back to global memory through the shared-memory layout (swizzled
// as the TMA descriptor swizzles), predicated against the tensor's edges.
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/sync.hpp"
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
  if ((c.rows * c.cols) % c.threads != 0) fail("tma_tile: the box must divide among the threads");
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

  // Thread tid writes elements tid + threads*j of the box, enumerated row-major so that
  // neighbouring threads write neighbouring addresses.
  b.note("box element e = tid + threads*j at (e / cols, e % cols): shared through the box layout, global through ld");
  const Tensor sbox(tile, Space::Shared, c.dtype, c.smem_layout(), Type::S32, 1024);
  const Tensor gout(out, Space::Global, c.dtype, make_layout(IntTuple{M, N}, IntTuple{LD, 1}), Type::S64, eb);
  for (int j = 0; j < c.rows * c.cols / c.threads; ++j) {
    const Int e = tid + Int(c.threads * j);
    const Int r = e / Int(c.cols), col = e % Int(c.cols);
    Value inside = (b.lower(by * Int(c.rows) + r, Type::S32) < pm) & (b.lower(bx * Int(c.cols) + col, Type::S32) < pn);
    std::vector<Value> v = b.load_tensor(sbox(SliceCoord{r, col}));
    b.store_tensor(gout(SliceCoord{by * Int(c.rows) + r, bx * Int(c.cols) + col}), v, inside);
  }
  b.end_note();
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

KernelFamily tma_tile_family() {
  KernelFamily f;
  f.name = "tma_tile";
  f.description = "one cp.async.bulk.tensor 2-D box into shared memory on an mbarrier, written back (sm_90)";
  f.options = {{"dtype", {"bf16", "f32"}, "element type"},
               {"rows", {"64", "128", "32"}, "box rows"},
               {"swizzle",
                {"128B", "64B", "32B", "none"},
                "shared-memory swizzle; a row is one swizzle width (128 B unswizzled)"}};
  f.generate = [](const Options& o) {
    TmaTileConfig c;
    c.dtype = parse_type(o.at("dtype"));
    c.rows = std::stoi(o.at("rows"));
    const std::string& s = o.at("swizzle");
    c.swizzle = s == "128B"  ? SmemSwizzle::B128
                : s == "64B" ? SmemSwizzle::B64
                : s == "32B" ? SmemSwizzle::B32
                             : SmemSwizzle::None;
    c.cols = (c.swizzle == SmemSwizzle::None ? 128 : swizzle_bytes(c.swizzle)) / bytes(c.dtype);
    return tma_tile(c);
  };
  return f;
}

}  // namespace tessel::kernels
