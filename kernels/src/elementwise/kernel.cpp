// elementwise/kernel.cpp: the generator of the elementwise kernels (see elementwise.hpp). The
// structure is the CuTe DSL example's: zipped_divide by the tile, the block's tile sliced out,
// composed with the TV layout and sliced by the thread; the same for an identity tensor, whose
// coordinates predicate the ragged edges.
#include <bit>
#include <cstdio>
#include <functional>
#include <map>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

const char* const kTensorNames[3] = {"A", "B", "C"};

bool supported_dtype(Type t) {
  return t == Type::F32 || t == Type::F16 || t == Type::BF16 || t == Type::F64 || t == Type::S32 || t == Type::S8;
}

// The type arithmetic happens in: f32 for the 16-bit floats (one rounding at the end gives the
// correctly rounded result of +, -, *, /: f32 has more than 2p+2 bits of either), s32 for s8
// (wrapping back on the way out, as C's int8 arithmetic does).
Type compute_type(Type t) {
  if (t == Type::F16 || t == Type::BF16) return Type::F32;
  if (t == Type::S8) return Type::S32;
  return t;
}

IntTuple tuple_of(const std::vector<Int>& v) { return IntTuple::tuple(std::vector<IntTuple>(v.begin(), v.end())); }

std::string config_hash(const ElementwiseConfig& c) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the static extents and strides
  auto mix = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (int64_t v : c.static_shape) mix(v);
  for (const auto& s : c.static_stride) {
    mix(-1);
    for (int64_t v : s) mix(v);
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A staged input's TV layout, (T, V) -> index in the tile (colexicographic): the block's threads
// as (32/w lanes along second(), warps x w along the major mode), second fastest; a thread's
// values as (w along second, K = 32 x vector / (warps x w) along major). Value (j, k) of lane
// (ls, lm) is the element at second ls x w + j, major lm + warps x w x k: a thread's values along
// the major mode are interleaved with the other lanes', so that the w lanes of a warp that share
// its rows of shared memory store to one word (adjacent elements) rather than K elements apart
// (a block of K per lane put s8's four lanes 16 bytes apart, and with rows one bank apart, four
// lanes in a bank: 4-way conflicts; f16 2-way; tests/kernels/elementwise_test.cpp checks every
// staged store's banks).
Layout staged_tv_layout(const ElementwiseConfig& c) {
  const std::vector<int64_t> t = c.tile();
  // The tile index's strides: colexicographic, the compact strides of the tile's shape.
  const IntTuple index_stride = prefix_product(tuple_of(std::vector<Int>(t.begin(), t.end())));
  const int64_t w = c.stage_vector, lanes_m = int64_t{c.threads} / 32 * w, K = 32 * int64_t{c.vector} / lanes_m;
  const int64_t ps = index_stride[c.second()].leaf().value("tile index stride"),
                pm = index_stride[c.major].leaf().value("tile index stride");
  auto pair = [](int64_t a, int64_t b) { return IntTuple::tuple({IntTuple(Int(a)), IntTuple(Int(b))}); };
  return make_layout(IntTuple::tuple({pair(32 / w, lanes_m), pair(w, K)}),
                     IntTuple::tuple({pair(w * ps, pm), pair(ps, lanes_m * pm)}));
}

// The staged tile in shared memory: tile coordinate -> element offset, major-fastest, each row of
// 32 x vector elements padded by 4 bytes (one element of 8) so that the lanes' stores along
// second() (one row each) fall in distinct banks.
int64_t staged_pitch(const ElementwiseConfig& c) {
  return c.tile()[static_cast<size_t>(c.major)] + std::max<int64_t>(1, 4 / bytes(c.dtype));
}
Layout staged_smem_layout(const ElementwiseConfig& c) {
  const std::vector<int64_t> t = c.tile();
  std::vector<Int> shape(t.begin(), t.end()), stride(t.size(), Int(0));
  stride[static_cast<size_t>(c.major)] = Int(1);
  stride[static_cast<size_t>(c.second())] = Int(staged_pitch(c));
  return make_layout(tuple_of(shape), tuple_of(stride));
}

}  // namespace

std::vector<int64_t> staged_store_offsets(const ElementwiseConfig& c) {
  if (c.rank < 2 || (!c.staged[0] && !c.staged[1]))
    fail("elementwise: staged_store_offsets of a configuration that stages no input: " + c.name());
  const Layout tv = staged_tv_layout(c), smem = staged_smem_layout(c);
  const int64_t nvals = int64_t{c.vector} * c.rows, eb = bytes(c.dtype);
  std::vector<int64_t> out;
  for (int64_t t = 0; t < c.threads; ++t)
    for (int64_t v = 0; v < nvals; ++v) {
      const int64_t idx = tv(IntTuple::tuple({IntTuple(Int(t)), IntTuple(Int(v))})).leaf().value("tile index");
      out.push_back(smem(Coord(Int(idx))).leaf().value("shared offset") * eb);
    }
  return out;
}

std::string shifted_extent_refusal(const ElementwiseConfig& c, const std::vector<int64_t>& shape) {
  const std::vector<int64_t> tile = c.tile();
  for (size_t k = 0; k < shape.size() && k < tile.size(); ++k) {
    if (shape[k] < tile[k])
      return "shifted edge tiles need each extent at least the tile's: mode " + std::to_string(k) + " has " +
             std::to_string(shape[k]) + ", the tile " + std::to_string(tile[k]);
  }
  const size_t m = static_cast<size_t>(c.major);
  if (m < shape.size() && shape[m] % c.vector != 0)
    return "shifted edge tiles need the major extent a multiple of the vector: mode " + std::to_string(m) + " has " +
           std::to_string(shape[m]) + ", the vector " + std::to_string(c.vector);
  const size_t s = static_cast<size_t>(c.rank >= 2 ? c.second() : 0);
  if ((c.staged[0] || c.staged[1]) && s < shape.size() && shape[s] % c.stage_vector != 0)
    return "shifted edge tiles need the staged mode's extent a multiple of the stage vector: mode " +
           std::to_string(s) + " has " + std::to_string(shape[s]) + ", the stage vector " +
           std::to_string(c.stage_vector);
  return "";
}

namespace {

void validate(const ElementwiseConfig& c) {
  const std::string what = "elementwise: ";
  if (!supported_dtype(c.dtype))
    fail(what + "dtype " + ptx_name(c.dtype) + " is not supported (f32, f16, bf16, f64, s32, s8)");
  if (c.rank < 1 || c.rank > 4) fail(what + "rank " + std::to_string(c.rank) + " (1 to 4)");
  if (c.major < 0 || c.major >= c.rank)
    fail(what + "major mode " + std::to_string(c.major) + " of a rank-" + std::to_string(c.rank) + " tensor");
  if (c.vector < 1 || !std::has_single_bit(static_cast<unsigned>(c.vector)) || c.vector * bytes(c.dtype) > 16) {
    fail(what + "vector of " + std::to_string(c.vector) + " " + ptx_name(c.dtype) +
         " elements (a power of two, at most 16 bytes)");
  }
  if (c.rows < 1 || c.rows > 16) fail(what + "rows = " + std::to_string(c.rows) + " (1 to 16)");
  if (c.threads < 32 || c.threads > 1024 || c.threads % 32 != 0)
    fail(what + "threads = " + std::to_string(c.threads) + " (a multiple of 32 in [32, 1024])");
  if (c.staged[2]) fail(what + "C is the output; only the inputs A and B can be staged through shared memory");
  for (int x = 0; x < 2; ++x) {
    if (!c.staged[x]) continue;
    const std::string n = std::string(kTensorNames[x]) + " staged through shared memory";
    if (x == 1 && is_unary(c.op)) fail(what + n + ", but " + op_name(c.op) + " reads no B");
    if (c.rank < 2) fail(what + n + " needs rank >= 2 (rank " + std::to_string(c.rank) + ")");
    if (c.unit[x]) fail(what + n + " is unit-stride in the major mode too: stage only a transposed input");
    if (c.threads / 32 * c.rows != 32)
      fail(what + n + " needs warps x rows = 32 (the tile's extent along its unit-stride mode), got " +
           std::to_string(c.threads / 32) + " x " + std::to_string(c.rows));
  }
  const int w = c.stage_vector;
  if (w < 1 || !std::has_single_bit(static_cast<unsigned>(w)) || w * bytes(c.dtype) > 16 || 32 % w != 0 ||
      (32 * c.vector) % (c.threads / 32 * w) != 0 || (w > 1 && !c.staged[0] && !c.staged[1])) {
    fail(what + "stage vector of " + std::to_string(w) + " " + ptx_name(c.dtype) +
         " elements (a power of two, at most 16 bytes, dividing 32 and 32 x vector / warps, for a staged input)");
  }
  if (c.shifted && !c.nc)
    fail(what + "shifted edge tiles write the overlap twice: they need nc (C aliasing neither input)");
  if (c.is_static()) {
    if (static_cast<int>(c.static_shape.size()) != c.rank)
      fail(what + "static shape of rank " + std::to_string(c.static_shape.size()) + " for rank " +
           std::to_string(c.rank));
    for (int64_t e : c.static_shape)
      if (e < 1) fail(what + "static extent " + std::to_string(e) + " (at least 1)");
    if (c.shifted) {
      const std::string why = shifted_extent_refusal(c, c.static_shape);
      if (!why.empty()) fail(what + why);
    }
    for (int x = 0; x < 3; ++x) {
      if (x == 1 && is_unary(c.op)) continue;
      if (static_cast<int>(c.static_stride[x].size()) != c.rank)
        fail(what + "static strides of " + kTensorNames[x] + " have rank " +
             std::to_string(c.static_stride[x].size()) + " (" + std::to_string(c.rank) + ")");
      if (c.unit[x] && c.static_stride[x][c.major] != 1)
        fail(what + kTensorNames[x] + " is unit-stride in mode " + std::to_string(c.major) + " but its stride is " +
             std::to_string(c.static_stride[x][c.major]));
    }
  }
}

// The value of one element after the operation, in the compute type.
Value apply(KernelBuilder& b, const ElementwiseConfig& c, Value x, Value y, Value alpha, Value beta) {
  const Type ct = compute_type(c.dtype);
  switch (c.op) {
    case ElementwiseOp::Add:
      return x + y;
    case ElementwiseOp::Sub:
      return x - y;
    case ElementwiseOp::Mul:
      return x * y;
    case ElementwiseOp::Div:
      return x / y;
    case ElementwiseOp::Min:
      return b.min(x, y);
    case ElementwiseOp::Max:
      return b.max(x, y);
    case ElementwiseOp::Axpby:
      return b.mad(alpha, x, beta * y);  // fma.rn(alpha, x, beta*y) for floats, mad.lo for integers
    case ElementwiseOp::Copy:
      return x;
    case ElementwiseOp::Neg:
      return -x;
    case ElementwiseOp::Abs:
      return b.unary(Op::Abs, x);
    case ElementwiseOp::Relu:
      return b.max(x, ct == Type::F32   ? b.constant_f32(0.0f)
                      : ct == Type::F64 ? b.constant_f64(0.0)
                                        : b.constant(0, ct));
  }
  fail("elementwise: unknown op");
}

Value widen(KernelBuilder& b, Value v, Type dtype) {
  const Type ct = compute_type(dtype);
  return ct == dtype ? v : b.cvt(v, ct);
}

Value narrow(KernelBuilder& b, Value v, Type dtype) {
  if (compute_type(dtype) == dtype) return v;
  return b.cvt(v, dtype, is_float(dtype) ? Round::Rn : Round::None);
}

}  // namespace

void complete_staged_config(ElementwiseConfig& c, const std::function<bool(int, int)>& fits) {
  c.rows = 32 / (c.threads / 32);
  while (c.vector * c.rows > max_staged_values(c.op)) c.vector /= 2;
  int w = std::max(1, 4 / bytes(c.dtype));
  auto ok = [&](int v) {
    if ((32 * c.vector) % (c.threads / 32 * v) != 0) return false;
    for (int x = 0; x < 2; ++x)
      if (c.staged[static_cast<size_t>(x)] && !fits(x, v)) return false;
    return true;
  };
  while (w > 1 && !ok(w)) w /= 2;
  c.stage_vector = w;
}

int max_staged_values(ElementwiseOp op) { return is_unary(op) ? 64 : 32; }

int ElementwiseConfig::second() const { return major > 0 ? major - 1 : 1; }

std::vector<int64_t> ElementwiseConfig::tile() const {
  if (rank == 1) return {tile_elements()};
  std::vector<int64_t> t(static_cast<size_t>(rank), 1);
  t[static_cast<size_t>(major)] = 32 * int64_t{vector};
  t[static_cast<size_t>(second())] = int64_t{threads} / 32 * rows;
  return t;
}

int64_t ElementwiseConfig::tile_elements() const { return int64_t{threads} * vector * rows; }

std::string ElementwiseConfig::name() const {
  std::string n = std::string("tessel_elementwise_") + op_name(op) + "_" + ptx_name(dtype) + "_r" +
                  std::to_string(rank) + "_m" + std::to_string(major) + "_";
  for (int x = 0; x < 3; ++x) n += unit[x] ? 'u' : staged[x] ? 't' : 's';
  if (stage_vector > 1) n += "_w" + std::to_string(stage_vector);
  n += "_v" + std::to_string(vector) + "_r" + std::to_string(rows) + "_t" + std::to_string(threads) +
       (wide_index ? "_i64" : "_i32") + (nc ? "_nc" : "") + (shifted ? "_ov" : "");
  if (is_static()) n += "_s" + config_hash(*this);
  return n;
}

Module elementwise_kernel(const ElementwiseConfig& c) {
  validate(c);
  const bool unary = is_unary(c.op);
  const Type it = c.wide_index ? Type::S64 : Type::S32;
  const Type ct = compute_type(c.dtype);
  const int eb = bytes(c.dtype);
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{c.threads, 1, 1};

  Value ptr[3];
  ptr[0] = b.global_pointer_param("A");
  if (!unary) ptr[1] = b.global_pointer_param("B");
  ptr[2] = b.global_pointer_param("C");
  Value alpha, beta;
  if (c.op == ElementwiseOp::Axpby) {
    alpha = b.param("alpha", ct);
    beta = b.param("beta", ct);
  }
  // The shape, shared by the three tensors; extents are at least 1 (the host drops empty problems).
  // With shifted edge tiles, at least the tile and multiples of the vectors (the host checks).
  const std::vector<int64_t> tile_ext = c.tile();
  std::vector<Int> extent;
  for (int k = 0; k < c.rank; ++k) {
    const std::string n = "M" + std::to_string(k);
    int64_t div = 1, low = 1;
    if (c.shifted) {
      low = tile_ext[static_cast<size_t>(k)];
      if (k == c.major)
        div = c.vector;
      else if (c.rank >= 2 && k == c.second() && (c.staged[0] || c.staged[1]))
        div = c.stage_vector;
    }
    extent.push_back(c.is_static() ? Int(c.static_shape[k]) : b.symbol(n, b.param(n, it), div, low));
  }
  // Strides: the unit ones are the static 1; the others are parameters. Where a tensor moves in
  // vectors, the host checks that its other strides are multiples of the vector (divisibility).
  Layout layout[3];
  std::vector<Int> strides[3];
  for (int x = 0; x < 3; ++x) {
    if (x == 1 && unary) continue;
    std::vector<Int>& stride = strides[x];
    for (int k = 0; k < c.rank; ++k) {
      const std::string n = std::string("s") + kTensorNames[x] + std::to_string(k);
      if ((k == c.major && c.unit[x]) || (k == c.second() && c.staged[x]))
        stride.push_back(Int(1));
      else if (c.is_static())
        stride.push_back(Int(c.static_stride[x][k]));
      else
        stride.push_back(b.symbol(n, b.param(n, it), c.unit[x] ? c.vector : c.staged[x] ? c.stage_vector : 1, 0));
    }
    layout[x] = make_layout(tuple_of(extent), tuple_of(stride));
  }
  Value ntiles = b.param("ntiles", it);

  // The thread-value layout: 32 lanes x `vector` elements along the major mode, the warps x `rows`
  // along the second; make_ordered_layout puts the major mode first (fastest). A rank-1 tensor
  // takes the same TV layout over a (32v, warps*rows) tile, whose column-major index is the offset.
  Layout thr, val;
  const int warps = c.threads / 32;
  if (c.rank == 1) {
    thr = make_ordered_layout(IntTuple{32, warps}, IntTuple{0, 1});
    val = make_ordered_layout(IntTuple{c.vector, c.rows}, IntTuple{0, 1});
  } else {
    const size_t r = static_cast<size_t>(c.rank);
    std::vector<Int> ts(r, Int(1)), vs(r, Int(1)), order(r);
    for (int k = 0; k < c.rank; ++k) order[k] = Int(k == c.major ? 0 : k == c.second() ? 1 : 2 + k);
    ts[c.major] = Int(32);
    ts[c.second()] = Int(warps);
    vs[c.major] = Int(c.vector);
    vs[c.second()] = Int(c.rows);
    thr = make_ordered_layout(tuple_of(ts), tuple_of(order));
    val = make_ordered_layout(tuple_of(vs), tuple_of(order));
  }
  const TVLayout tv = make_layout_tv(thr, val);  // (T, V) -> tile index
  std::vector<Int> tile_shape(tile_ext.begin(), tile_ext.end());
  const Tiler tiler = Tiler::from_shape(tuple_of(tile_shape));
  const Int tid = b.thread_index(0);
  const int64_t nvals = int64_t{c.vector} * c.rows;
  LoadOptions in;  // inputs through the read-only path when C overlaps neither input
  in.nc = c.nc;

  // A staged input's own TV layout (staged_tv_layout): 32/w lanes along second() (its unit stride;
  // the tile's extent there is warps x rows = 32, validated), each with a vector of w =
  // stage_vector elements there, the other lanes, the warps and the thread's other values
  // (interleaved) along the major mode: (T, V) -> tile index, (32 x warps, 32v/warps) -> (32v, 32).
  // Its tile goes to shared memory laid out major-fastest, rows padded (staged_smem_layout).
  const bool staging = c.staged[0] || c.staged[1];
  TVLayout tv_staged;
  Tensor smem[2];
  if (staging) {
    tv_staged.tiler = tuple_of(tile_shape);
    tv_staged.layout = staged_tv_layout(c);
    const int64_t pitch = staged_pitch(c);
    const Layout smem_layout = staged_smem_layout(c);
    for (int x = 0; x < 2; ++x) {
      if (!c.staged[x]) continue;
      const Value base = b.shared_array(std::string("stage_") + kTensorNames[x], pitch * 32 * eb, 16);
      smem[x] = Tensor(base, Space::Shared, c.dtype, smem_layout, Type::S32, 16);
    }
  }

  // Rows of a thread's values in global memory, for the whole tiles of a shifted kernel: the values
  // of TV layout `l` that share their coordinate d along mode `slow` are a run along mode `fast`
  // (stride 1 there), moved by one vector access from a pointer of its own, the run's base plus
  // d x the pitch in bytes (mul.wide and add: one IMAD.WIDE). The builder's address of an offset
  // d x pitch computes it in 32 bits, scales, widens and adds: four or five instructions a run,
  // the most of the staged copy's integer work (f32: 236 of its 340 instructions per tile and
  // thread). Needs 32-bit offsets (the pitch and d x pitch fit) and dynamic strides (static ones
  // already fold into the accesses' immediates).
  const bool row_pointers = c.shifted && c.rank >= 2 && !c.wide_index && !c.is_static();
  struct Run {
    int64_t d;                   // the coordinate along `slow`, from the thread's first value
    std::vector<int64_t> value;  // the value indices, in order along `fast`
  };
  const Shape tile_modes = tuple_of(tile_shape);
  auto runs_of = [&](const Layout& l, int fast, int slow) {
    // The thread's value layout (V -> tile index from its first value): each value's coordinates in
    // the tile, colexicographic, the thread's first value at 0 in every mode.
    const Layout vl = slice_and_offset(SliceCoord{tid, _}, l).first;
    std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> by_row;  // d -> (position along fast, value)
    for (int64_t v = 0; v < nvals; ++v) {
      const Coord at = idx2crd(vl(Coord(Int(v))).leaf(), tile_modes);
      std::vector<int64_t> crd(tile_ext.size());
      for (size_t k = 0; k < tile_ext.size(); ++k)
        crd[k] = at[static_cast<int>(k)].leaf().value("a thread's value coordinate in the tile");
      for (int k = 0; k < c.rank; ++k)
        if (k != fast && k != slow && crd[static_cast<size_t>(k)] != 0)
          fail("elementwise: a thread's values leave modes " + std::to_string(fast) + " and " + std::to_string(slow));
      by_row[crd[static_cast<size_t>(slow)]].emplace_back(crd[static_cast<size_t>(fast)], v);
    }
    std::vector<Run> runs;
    for (auto& [d, row] : by_row) {
      std::sort(row.begin(), row.end());
      Run r{d, {}};
      for (size_t i = 0; i < row.size(); ++i) {
        if (row[i].first != static_cast<int64_t>(i) || row.size() != by_row.begin()->second.size())
          fail("elementwise: a thread's values along mode " + std::to_string(fast) +
               " are not runs of one length from 0");
        r.value.push_back(row[i].second);
      }
      runs.push_back(std::move(r));
    }
    return runs;
  };
  // The row pointers of per-thread tensor g of operand x: its first value's address plus d x pitch.
  auto row_tensors = [&](const Tensor& g, int x, const std::vector<Run>& runs, int slow) {
    const int64_t n = static_cast<int64_t>(runs.front().value.size());
    const Value base = b.address(g);
    const Value pitch = b.lower(strides[x][static_cast<size_t>(slow)] * Int(eb), Type::S32);
    std::vector<Tensor> rows;
    for (const Run& r : runs) {
      const Value p = r.d == 0 ? base : b.binary(Op::Add, base, b.mul_wide(pitch, r.d));
      rows.emplace_back(p, Space::Global, c.dtype, make_layout(tuple_of({Int(n)}), tuple_of({Int(1)})), it, n * eb);
    }
    return rows;
  };
  auto load_rows = [&](const Tensor& g, int x, const Layout& l, int fast, int slow, LoadOptions o) {
    const std::vector<Run> runs = runs_of(l, fast, slow);
    const std::vector<Tensor> rows = row_tensors(g, x, runs, slow);
    std::vector<Value> out(static_cast<size_t>(nvals));
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::vector<Value> vals = b.load_tensor(rows[i], {}, o);
      for (size_t j = 0; j < vals.size(); ++j) out[static_cast<size_t>(runs[i].value[j])] = vals[j];
    }
    return out;
  };
  auto store_rows = [&](const Tensor& g, int x, const Layout& l, int fast, int slow, const std::vector<Value>& values) {
    const std::vector<Run> runs = runs_of(l, fast, slow);
    const std::vector<Tensor> rows = row_tensors(g, x, runs, slow);
    for (size_t i = 0; i < runs.size(); ++i) {
      std::vector<Value> vals;
      for (int64_t v : runs[i].value) vals.push_back(values[static_cast<size_t>(v)]);
      b.store_tensor(rows[i], vals);
    }
  };

  Value tile = b.cvt(b.special(Special::CtaidX), it);
  Value step = b.cvt(b.special(Special::NctaidX), it);
  b.note("each block walks its tiles: blockIdx.x, + gridDim.x, ... < ntiles");
  b.while_([&] { return tile < ntiles; },
           [&] {
             const Int T = b.symbol("tile", tile, 1, 0);
             b.note("zipped_divide by the tile, slice the block's tile, compose with the TV layout, slice the thread");
             // t: each tensor's values of this thread in the TV layout; a staged input's are its
             // shared tile's (sliced the same way), read after the staging below.
             Tensor t[3], staged_in[2], staged_out[2];
             // The coordinates of the thread's values: the identity layout divided the same way
             // (slices keep their offsets, which are coordinates here).
             auto [tile_crd, tile_origin] =
                 slice_and_offset(SliceCoord{_, T}, zipped_divide(make_identity_layout(tuple_of(extent)), tiler));
             // Shifted edge tiles: the origin min(t x tile, extent - tile) in each mode the tile
             // spans, every tile whole (the last overlaps the one before it).
             std::vector<Int> origin;
             if (c.shifted) {
               for (int k = 0; k < c.rank; ++k) {
                 const Int o = (tile_origin.is_leaf() ? tile_origin.leaf() : tile_origin[k].leaf()).coefficient();
                 const int64_t te = tile_ext[static_cast<size_t>(k)];
                 origin.push_back(te > 1 ? min(o, extent[k] - Int(te)) : o);
               }
             }
             for (int x = 0; x < 3; ++x) {
               if (x == 1 && unary) continue;
               const int64_t align = c.unit[x] ? int64_t{c.vector} * eb : c.staged[x] ? int64_t{c.stage_vector} * eb : eb;
               Tensor block_tile;
               if (c.shifted) {
                 Int off = 0;
                 for (int k = 0; k < c.rank; ++k)
                   off = off + origin[static_cast<size_t>(k)] * strides[x][static_cast<size_t>(k)];
                 block_tile =
                     Tensor(ptr[x], Space::Global, c.dtype,
                            ComposedLayout{Swizzle{}, off, make_layout(tuple_of(tile_shape), tuple_of(strides[x]))}, it,
                            align);
               } else {
                 const Tensor whole(ptr[x], Space::Global, c.dtype, layout[x], it, align);
                 block_tile = whole.zipped_divide(tiler)(SliceCoord{_, T});
               }
               if (x < 2 && c.staged[x]) {
                 staged_in[x] = block_tile.compose(tv_staged.layout)(SliceCoord{tid, _});
                 staged_out[x] = smem[x].compose(tv_staged.layout)(SliceCoord{tid, _});
                 t[x] = smem[x].compose(tv.layout)(SliceCoord{tid, _});
               } else {
                 t[x] = block_tile.compose(tv.layout)(SliceCoord{tid, _});
               }
             }
             // inside_of(l)(v): value v of this thread under TV layout l lies inside the shape.
             // tile_crd and tile_origin are captured by name: clang before 16 cannot capture a
             // structured binding.
             auto inside_of = [&, &tile_crd = tile_crd, &tile_origin = tile_origin](const Layout& l) {
               auto [thr_crd, thr_origin] = slice_and_offset(SliceCoord{tid, _}, composition(tile_crd, l));
               const IntTuple origin = coord_sum(tile_origin, thr_origin);
               return [&, thr_crd = thr_crd, origin](int64_t v) {
                 const IntTuple crd = coord_sum(origin, thr_crd(Coord(Int(v))));
                 Value p;
                 for (int k = 0; k < c.rank; ++k) {
                   const Int ck = crd.is_leaf() ? crd.leaf() : crd[k].leaf();
                   Value q = b.lower(ck.coefficient(), it) < b.lower(extent[k], it);
                   p = p.valid() ? (p & q) : q;
                 }
                 return p;
               };
             };
             auto inside = inside_of(tv.layout);
             if (staging) {
               b.note("stage the transposed inputs: lanes along their unit stride, into shared memory");
               auto stage_whole = [&] {
                 for (int x = 0; x < 2; ++x) {
                   if (!c.staged[x]) continue;
                   b.store_tensor(staged_out[x],
                                  row_pointers ? load_rows(staged_in[x], x, tv_staged.layout, c.second(), c.major, in)
                                               : b.load_tensor(staged_in[x], {}, in));
                 }
               };
               if (c.shifted) {
                 stage_whole();  // every tile whole
               } else {
                 auto inside_staged = inside_of(tv_staged.layout);
                 b.if_(inside_staged(nvals - 1),  // as below: the last value inside means every value is
                       stage_whole, [&] {
                         for (int64_t v = 0; v < nvals; ++v) {
                           const Value g = inside_staged(v);
                           for (int x = 0; x < 2; ++x) {
                             if (!c.staged[x]) continue;
                             const Value e = b.load_tensor(staged_in[x](SliceCoord(Int(v))), g, in)[0];
                             b.store_tensor(staged_out[x](SliceCoord(Int(v))), {e}, g);
                           }
                         }
                       });
               }
               bar_sync(b);  // every staged element written before any thread reads the tile
             }
             const LoadOptions in_t[2] = {c.staged[0] ? LoadOptions{} : in, c.staged[1] ? LoadOptions{} : in};
             // guards: the elements' predicates on the ragged path (empty on the full one), where an
             // integer divisor that was not loaded becomes 1: no division by an unloaded register.
             auto compute = [&](const std::vector<Value>& a, const std::vector<Value>& bv,
                                const std::vector<Value>& guards) {
               // A copy moves the bits: no widening and narrowing (two cvt per f16 or s8 element,
               // and f16's would turn a NaN into the canonical 0x7fff: a bf16 moved as f16 by the
               // GEMM's packing copies is a NaN to f16 wherever its exponent is near the top).
               if (c.op == ElementwiseOp::Copy) return a;
               std::vector<Value> out;
               for (size_t i = 0; i < a.size(); ++i) {
                 Value x = widen(b, a[i], c.dtype);
                 Value y = unary ? Value{} : widen(b, bv[i], c.dtype);
                 if (c.op == ElementwiseOp::Div && !is_float(c.dtype) && !guards.empty())
                   y = b.select(guards[i], y, b.constant(1, compute_type(c.dtype)));
                 out.push_back(narrow(b, apply(b, c, x, y, alpha, beta), c.dtype));
               }
               return out;
             };
             // The thread's last value has the largest coordinate in every mode: when it is
             // inside, all are, and whole vectors move unguarded.
             auto whole_tile = [&] {
               b.note("full tile: vector loads of A and B, the op, vector stores of C");
               // Unit-stride global operands by rows (row_pointers), the others as the builder moves them.
               auto rows_of = [&](int x) { return row_pointers && c.unit[x] && !c.staged[x]; };
               auto load = [&](int x) {
                 return rows_of(x) ? load_rows(t[x], x, tv.layout, c.major, c.second(), in_t[x])
                                   : b.load_tensor(t[x], {}, in_t[x]);
               };
               std::vector<Value> a = load(0);
               std::vector<Value> bv = unary ? std::vector<Value>{} : load(1);
               if (rows_of(2))
                 store_rows(t[2], 2, tv.layout, c.major, c.second(), compute(a, bv, {}));
               else
                 b.store_tensor(t[2], compute(a, bv, {}));
             };
             if (c.shifted) {
               whole_tile();  // every tile whole: no ragged path
             } else {
               b.note("predicate: the thread's last value inside the shape means every value is");
               b.if_(inside(nvals - 1), whole_tile, [&] {
                 b.note("ragged edge: element by element, each under its own predicate");
                 std::vector<Value> guard, a, bv;
                 for (int64_t v = 0; v < nvals; ++v) {
                   guard.push_back(inside(v));
                   a.push_back(b.load_tensor(t[0](SliceCoord(Int(v))), guard.back(), in_t[0])[0]);
                   if (!unary) bv.push_back(b.load_tensor(t[1](SliceCoord(Int(v))), guard.back(), in_t[1])[0]);
                 }
                 b.store_tensor(t[2], compute(a, bv, guard), guard);
               });
             }
             b.end_note();
             if (staging) bar_sync(b);  // every thread's reads of the tile done before the next is staged
             b.assign(tile, tile + step);
           });
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace tessel::kernels
