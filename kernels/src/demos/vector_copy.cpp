// demos/vector_copy.cpp: the vector-copy demonstration: the tensor is divided by the block's tile
// (zipped_divide), the tile by a TV layout (128 threads x one 16-byte vector each), and the copy
// vectorizes because the algebra proves each thread's elements contiguous and 16-byte aligned.
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"
#include "demos/demo_class.hpp"
#include "tessel/kernels/demos.hpp"

namespace tessel::kernels {

using namespace codegen;

int VectorCopyConfig::vector() const { return 16 / bytes(dtype); }

std::string VectorCopyConfig::name() const {
  return std::string("tessel_demo_vector_copy_") + ptx_name(dtype) + "_t" + std::to_string(threads);
}

Module vector_copy(const VectorCopyConfig& c) {
  if (c.dtype != Type::F32 && c.dtype != Type::BF16 && c.dtype != Type::F64) {
    fail(std::string("vector_copy: dtype ") + ptx_name(c.dtype) + " (f32, bf16 or f64)");
  }
  if (c.threads < 32 || c.threads > 1024 || c.threads % 32 != 0) {
    fail("vector_copy: threads = " + std::to_string(c.threads) + " (a multiple of 32 in [32, 1024])");
  }
  const int v = c.vector();
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{c.threads, 1, 1};
  Value src = b.global_pointer_param("src");
  Value dst = b.global_pointer_param("dst");
  Value n = b.param("n", Type::S64);
  // n is a multiple of the vector (the host checks it): the algebra uses that to keep vectors.
  Int N = b.symbol("n", n, v, 1);
  Int tid = b.thread_index(0), bid = b.block_index(0);

  const Layout whole = make_layout(IntTuple{N}, IntTuple{1});
  const Tensor gs(src, Space::Global, c.dtype, whole, Type::S64, 16);
  const Tensor gd(dst, Space::Global, c.dtype, whole, Type::S64, 16);
  const Tiler tile = Tiler::from_shape(IntTuple{c.elements_per_block()});
  // (T threads, V values) -> tile offset: thread t owns elements [t*v, t*v + v).
  const Layout tv = make_layout(IntTuple{c.threads, v}, IntTuple{v, 1});
  b.note("zipped_divide by the block tile, slice the block, compose with the TV layout, slice the thread");
  auto mine = [&](const Tensor& t) {
    return t.zipped_divide(tile)(SliceCoord{_, bid}).compose(tv)(SliceCoord{tid, _});
  };
  const Tensor s = mine(gs), d = mine(gd);
  b.note("predicate: the thread's first element is inside n (n is a multiple of the vector)");
  Value first = b.lower(bid * Int(c.elements_per_block()) + tid * Int(v), Type::S64);
  Value inside = first < n;
  b.note("copy: one 16-byte vector per thread");
  b.copy(s, d, inside);
  b.end_note();
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

VectorCopyConfig vector_copy_config(const Options& o) {
  VectorCopyConfig c;
  c.dtype = parse_type(o.at("dtype"));
  c.threads = static_cast<int>(parse_integer("threads", o.at("threads"), 1, 1024));
  return c;
}

KernelClassPtr vector_copy_class() {
  DemoSpec s;
  s.name = "vector_copy";
  s.description = "dst[i] = src[i]: one ld.global.v4 / st.global.v4 per thread (sm_80)";
  s.options = {{"dtype", {"f32", "bf16", "f64"}, "element type"}, {"threads", {"128", "256"}, "threads per block"}};
  s.min_cc = 80;
  s.kernel_name = [](const Options& o) { return vector_copy_config(o).name(); };
  s.operands = [](const Options& o) {
    const Type t = vector_copy_config(o).dtype;
    return std::vector<OperandAttributes>{{"src", t, Major::Any, 16 / bytes(t)}, {"dst", t, Major::Any, 16 / bytes(t)}};
  };
  s.generate = [](const Options& o) { return vector_copy(vector_copy_config(o)); };
  return make_demo_class(std::move(s));
}
}  // namespace tessel::kernels
