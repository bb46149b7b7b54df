// simt_gemm/kernel.cpp: the generator of the portable SIMT GEMM (see simt_gemm.hpp). Every address and
// predicate comes from the algebra: each operand is a (rows, cols, L) layout with dynamic extents
// and strides, zipped_divide by the block tile gives ((tile),(block coordinates)), and the same
// division of the identity layout gives each element's (row, col, l) for the ragged edges.
#include "tessel/kernels/simt_gemm.hpp"

#include <utility>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/sync.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

const char* major_letter(Major m) { return m == Major::Row ? "r" : m == Major::Column ? "c" : "a"; }

// An operand as the kernel sees it: its (rows, cols, L) layout with the majors' static stride 1,
// the identity layout of the same shape (coordinates for predicates), and its extents.
struct Operand {
  Tensor data;
  Layout coords;
  Int rows, cols;
};

Operand make_operand(Value base, Type dtype, const Int& rows, const Int& cols, const Int& L,
                     const std::array<Int, 3>& strides /* L, rows, cols */) {
  Operand o;
  o.rows = rows;
  o.cols = cols;
  const Layout l = make_layout(IntTuple{rows, cols, L}, IntTuple{strides[1], strides[2], strides[0]});
  o.data = Tensor(base, Space::Global, dtype, l, Type::S64, bytes(dtype));
  o.coords = make_identity_layout(IntTuple{rows, cols, L});
  return o;
}

// (T, V) -> colex index of a rows x cols tile: consecutive threads walk the operand's contiguous
// mode, so that a warp's loads are coalesced. Mode 0 contiguous: (T,V):(1,T). Mode 1 contiguous:
// ((cols, T/cols), V):((rows, 1), T/cols).
Layout load_tv(int rows, int cols, int threads, bool cols_contiguous) {
  const int v = rows * cols / threads;
  if (!cols_contiguous) return make_layout(IntTuple{threads, v}, IntTuple{1, threads});
  return make_layout(IntTuple{IntTuple{cols, threads / cols}, v}, IntTuple{IntTuple{rows, 1}, threads / cols});
}

// The value of a loaded element in the accumulator type. bf16 is widened by hand (its bits are the
// high half of an f32) because cvt.f32.bf16 needs sm_90 and this kernel targets sm_80.
Value widen(KernelBuilder& b, Value raw, Type dtype, Type acc) {
  if (dtype == Type::BF16) {
    Value bits32 = b.cvt(raw, Type::U32) << 16;
    Value f = b.reg(Type::F32);
    Instr mov;  // mov.b32 %f, %r: a bit-size move between registers of one size
    mov.op = Op::Mov;
    mov.type = Type::B32;
    mov.set_ops(f.op(), bits32.op());
    b.emit(std::move(mov));
    return f;
  }
  return b.cvt(raw, acc);
}

Type load_type(Type dtype) { return dtype == Type::BF16 ? Type::U16 : dtype; }

Value zero(KernelBuilder& b, Type t) {
  if (t == Type::F32) return b.constant_f32(0.0f);
  if (t == Type::F64) return b.constant_f64(0.0);
  return b.constant(0, t);
}

}  // namespace

std::string SimtGemmConfig::name() const {
  return std::string("tessel_simt_gemm_") + ptx_name(dtype) + "_" + ptx_name(accumulator()) + "_" +
         std::to_string(tile_m) + "x" + std::to_string(tile_n) + "x" + std::to_string(tile_k) + "_t" +
         std::to_string(thread_m) + "x" + std::to_string(thread_n) + "_" + major_letter(a_major) +
         major_letter(b_major) + major_letter(out_major);
}

void SimtGemmConfig::check() const {
  const std::string who = "simt_gemm " + name() + ": ";
  if (dtype != Type::F64 && dtype != Type::F32 && dtype != Type::F16 && dtype != Type::BF16 && dtype != Type::S32) {
    fail(who + "dtype " + ptx_name(dtype) + " (f64, f32, f16, bf16 or s32)");
  }
  for (int v : {tile_m, tile_n, tile_k, thread_m, thread_n}) {
    if (!power_of_two(v)) fail(who + "tile and thread extents must be powers of two, got " + std::to_string(v));
  }
  if (tile_m % thread_m != 0 || tile_n % thread_n != 0) fail(who + "thread_m/n must divide tile_m/n");
  const int t = threads();
  if (t < 32 || t > 1024) fail(who + std::to_string(t) + " threads (a block has 32 to 1024)");
  // Each thread loads whole elements of both tiles, walking either mode first.
  if (tile_m * tile_k < t || tile_k * tile_n < t) {
    fail(who + "the A and B tiles must have at least one element per thread (" + std::to_string(t) + " threads)");
  }
  if (tile_k > t || tile_n > t) fail(who + "tile_k and tile_n must not exceed the thread count");
}

Module simt_gemm(const SimtGemmConfig& c) {
  c.check();
  const Type acc = c.accumulator();
  const int T = c.threads(), BM = c.tile_m, BN = c.tile_n, BK = c.tile_k;
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{T, 1, 1};

  b.note("parameters: pointers, sizes, the dynamic strides, alpha and beta");
  Value pa = b.global_pointer_param("A"), pb = b.global_pointer_param("B"), po = b.global_pointer_param("out"),
        pc = b.global_pointer_param("C");
  Value vL = b.param("L", Type::S64), vM = b.param("M", Type::S64), vN = b.param("N", Type::S64),
        vK = b.param("K", Type::S64);
  const Int L = b.symbol("L", vL, 1, 1), M = b.symbol("M", vM, 1, 1), N = b.symbol("N", vN, 1, 1),
            K = b.symbol("K", vK, 1, 0);
  auto strides = [&](const char* op, Major major) {
    std::array<Int, 3> s;
    const std::array<bool, 3> dyn = simt_gemm_dynamic_strides(major);
    for (int i = 0; i < 3; ++i) {
      const std::string name = std::string("s") + op + "_" + "lrc"[i];
      s[static_cast<size_t>(i)] = dyn[static_cast<size_t>(i)] ? b.symbol(name, b.param(name, Type::S64), 1, 0) : Int(1);
    }
    return s;
  };
  const std::array<Int, 3> sa = strides("a", c.a_major), sb = strides("b", c.b_major), so = strides("o", c.out_major);
  // C's strides are all parameters: its major is its own, whatever out's.
  const std::array<Int, 3> sc = strides("c", Major::Any);
  Value alpha = b.param("alpha", acc), beta = b.param("beta", acc);

  const Operand A = make_operand(pa, c.dtype, M, K, L, sa);
  const Operand B = make_operand(pb, c.dtype, K, N, L, sb);
  const Operand O = make_operand(po, c.dtype, M, N, L, so);
  const Operand C = make_operand(pc, c.dtype, M, N, L, sc);
  const Int tid = b.thread_index(0), bm = b.block_index(0), bn = b.block_index(1), bl = b.block_index(2);

  // Thread (tm, tn) of the (BM/thread_m, BN/thread_n) grid; the faster mode follows out's contiguous
  // mode so that the epilogue's stores are coalesced.
  const int GM = BM / c.thread_m, GN = BN / c.thread_n;
  Int tm, tn;
  if (c.out_major == Major::Row) {
    const Coord t = idx2crd(tid, IntTuple{GN, GM});
    tn = t[0].leaf();
    tm = t[1].leaf();
  } else {
    const Coord t = idx2crd(tid, IntTuple{GM, GN});
    tm = t[0].leaf();
    tn = t[1].leaf();
  }

  // Shared tiles in the accumulator type: sA (BM, BK) m-fastest, sB (BK, BN) n-fastest, each padded
  // by one element per column (row) so that the loads' strided stores spread over the banks.
  const int eb = bytes(acc);
  Value sa_base = b.shared_array("sA", int64_t{BK} * (BM + 1) * eb, 16);
  Value sb_base = b.shared_array("sB", int64_t{BK} * (BN + 1) * eb, 16);
  const Tensor sA(sa_base, Space::Shared, acc, make_layout(IntTuple{BM, BK}, IntTuple{1, BM + 1}), Type::S32);
  const Tensor sB(sb_base, Space::Shared, acc, make_layout(IntTuple{BK, BN}, IntTuple{BN + 1, 1}), Type::S32);

  std::vector<Value> accum;
  for (int i = 0; i < c.thread_m * c.thread_n; ++i) accum.push_back(zero(b, acc));

  // Loads one tile of an operand into shared memory: thread tid, value v owns the element at the
  // tile coordinate tv(tid, v); elements outside (rows, cols) are zero.
  auto load_tile = [&](const Operand& op, const Tensor& smem, int rows, int cols, bool cols_contiguous,
                       const Int& block_row, const Int& block_col) {
    const Tiler tile = Tiler::from_shape(IntTuple{rows, cols});
    const Tensor tiled = op.data.zipped_divide(tile);
    const Layout tiled_coords = zipped_divide(op.coords, tile);
    const Layout tv = load_tv(rows, cols, T, cols_contiguous);
    for (int v = 0; v < rows * cols / T; ++v) {
      const Coord in_tile = idx2crd(tv(Coord{tid, Int(v)}).leaf(), IntTuple{rows, cols});
      const Coord full{in_tile, IntTuple{block_row, block_col, bl}};
      const IntTuple rc = tiled_coords(full);
      Value inside = (b.lower(rc[0].leaf(), Type::S64) < b.lower(op.rows, Type::S64)) &
                     (b.lower(rc[1].leaf(), Type::S64) < b.lower(op.cols, Type::S64));
      Value x = zero(b, acc);
      b.if_(inside, [&] {
        Value raw = b.load(Space::Global, load_type(c.dtype), b.address(tiled, full))[0];
        b.assign(x, widen(b, raw, c.dtype, acc));
      });
      b.store(Space::Shared, acc, b.address(smem, in_tile), {x});
    }
  };

  // The thread's rows of sA and columns of sB: zipped_divide by the thread grid, slice the thread.
  // ((GM, 1), (thread_m, BK)) and ((1, GN), (BK, thread_n)); slicing (tm, 0) and (0, tn) leaves
  // the thread's elements.
  const Tensor sA_split = sA.zipped_divide(Tiler::from_shape(IntTuple{GM, 1}));
  const Tensor sB_split = sB.zipped_divide(Tiler::from_shape(IntTuple{1, GN}));

  b.note("the k loop: ceil_div(K, tile_k) steps of load, bar.sync, accumulate, bar.sync");
  const Int k_tiles = ceil_div(K, Int(BK));
  b.for_range(b.constant(0, Type::S64), b.lower(k_tiles, Type::S64), 1, [&](Value kv) {
    const Int kt = b.symbol("kt", kv, 1, 0);
    b.note("load the A tile (BM, BK) and the B tile (BK, BN) into shared memory");
    load_tile(A, sA, BM, BK, c.a_major == Major::Row, bm, kt);
    load_tile(B, sB, BK, BN, c.b_major != Major::Column, kt, bn);
    bar_sync(b);
    b.note("accumulate the thread's micro-tile over the k of the tile");
    b.unrolled(BK, [&](int kk) {
      const std::vector<Value> a = b.load_tensor(sA_split(SliceCoord{{tm, 0}, {_, kk}}));
      const std::vector<Value> bv = b.load_tensor(sB_split(SliceCoord{{0, tn}, {kk, _}}));
      for (int i = 0; i < c.thread_m; ++i) {
        for (int j = 0; j < c.thread_n; ++j) {
          Value& r = accum[static_cast<size_t>(i + j * c.thread_m)];
          b.mad_to(r, a[static_cast<size_t>(i)], bv[static_cast<size_t>(j)], r);
        }
      }
    });
    bar_sync(b);
  });

  b.note("epilogue: out = alpha * acc + beta * C inside (M, N); C is not read when beta == 0");
  const Value read_c = beta != zero(b, acc);
  const Tensor o_tiled = O.data.zipped_divide(Tiler::from_shape(IntTuple{BM, BN}));
  const Tensor c_tiled = C.data.zipped_divide(Tiler::from_shape(IntTuple{BM, BN}));
  const Layout o_coords = zipped_divide(O.coords, Tiler::from_shape(IntTuple{BM, BN}));
  for (int j = 0; j < c.thread_n; ++j) {
    for (int i = 0; i < c.thread_m; ++i) {
      const Coord full{IntTuple{tm + Int(i * GM), tn + Int(j * GN)}, IntTuple{bm, bn, bl}};
      const IntTuple rc = o_coords(full);
      Value inside = (b.lower(rc[0].leaf(), Type::S64) < vM) & (b.lower(rc[1].leaf(), Type::S64) < vN);
      Value result = alpha * accum[static_cast<size_t>(i + j * c.thread_m)];
      b.if_(inside, [&] {
        b.if_(read_c, [&] {
          Value old = widen(b, b.load(Space::Global, load_type(c.dtype), b.address(c_tiled, full))[0], c.dtype, acc);
          b.mad_to(result, beta, old, result);
        });
        b.store(Space::Global, c.dtype, b.address(o_tiled, full), {b.cvt(result, c.dtype)});
      });
    }
  }
  b.end_note();
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace tessel::kernels
