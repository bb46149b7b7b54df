// gemm_check.cpp: see gemm_check.hpp.
#include "tessel/testing/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

// The reach of a view in elements (strides are non-negative here).
int64_t extent(const TensorView& v) {
  int64_t hi = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) hi += (v.shape[i] - 1) * v.stride[i];
  return hi + 1;
}

// The encoding of v in t, which must be exact (the tests' values are; a value that rounded would
// make the reference disagree with the data).
uint64_t exact_bits(double v, Type t) {
  const codegen::NumberFormat& f = codegen::number_format(t);
  const uint64_t bits = codegen::encode(f, v);
  if (codegen::decode(f, bits) != v)
    fail(std::string("store_element: ") + std::to_string(v) + " is not exact in " + codegen::ptx_name(t));
  return bits;
}

// Strides of (L, rows, cols) for a major: contiguous with padding between rows/columns and
// batches (so that the kernel must honour every stride); "any" puts neither mode at stride 1.
// Non-unit strides are multiples of `align` elements (the kernel's alignment).
std::vector<int64_t> strides_for(Major m, int64_t rows, int64_t cols, int align, std::mt19937_64& rng) {
  const int64_t pad = std::uniform_int_distribution<int64_t>(0, 3)(rng);
  auto up = [&](int64_t x) { return (x + align - 1) / align * align; };
  if (m == Major::Row) return {up(rows * up(cols + pad) + 5), up(cols + pad), 1};
  if (m == Major::Column) return {up(cols * up(rows + pad) + 3), 1, up(rows + pad)};
  return {(2 * rows + 1) * cols + 1, 2, 2 * rows + 1};  // row stride 2, column stride 2*rows+1: no overlap
}

HostOperand make_operand(Type t, Major m, int align, int64_t L, int64_t rows, int64_t cols, bool rank2,
                         std::mt19937_64& rng) {
  HostOperand o;
  std::vector<int64_t> s = strides_for(m, rows, cols, align, rng);
  o.view.dtype = t;
  o.view.shape = {L, rows, cols};
  o.view.stride = s;
  if (rank2) {
    o.view.shape.erase(o.view.shape.begin());
    o.view.stride.erase(o.view.stride.begin());
  }
  o.bytes.resize(static_cast<size_t>((extent(o.view) + 16) * codegen::bytes(t)));
  return o;
}

// Values exact in every type: integers in [-8, 8] without 0 for s32, multiples of 1/16 in
// (-2, 2) without 0 otherwise (exact in f16, bf16 and tf32 too); for fp8, at most the type's
// significant bits: multiples of 1/8 in (-2, 2) for e4m3, of 1/4 in (-2, 2) for e5m2.
double random_value(Type t, std::mt19937_64& rng) {
  if (t == Type::E4M3 || t == Type::E5M2) {
    const int n = t == Type::E4M3 ? 15 : 7;
    int v = 0;
    while (v == 0) v = std::uniform_int_distribution<int>(-n, n)(rng);
    return v / (t == Type::E4M3 ? 8.0 : 4.0);
  }
  if (t == Type::S32) {
    int v = 0;
    while (v == 0) v = std::uniform_int_distribution<int>(-8, 8)(rng);
    return v;
  }
  int v = 0;
  while (v == 0) v = std::uniform_int_distribution<int>(-31, 31)(rng);
  return v / 16.0;
}

template <class F>
void for_each_index(const TensorView& v, F f) {
  const std::vector<int64_t>& s = v.shape;
  const int r = static_cast<int>(s.size());
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  for (int64_t n = 0; n < v.size(); ++n) {
    int64_t off = 0;
    for (int i = 0; i < r; ++i) off += c[static_cast<size_t>(i)] * v.stride[static_cast<size_t>(i)];
    f(c, off);
    for (int i = r - 1; i >= 0; --i) {
      if (++c[static_cast<size_t>(i)] < s[static_cast<size_t>(i)]) break;
      c[static_cast<size_t>(i)] = 0;
    }
  }
}

double tolerance(Type t) {
  // Relative to sum |alpha a b| + |beta c|: f64 and f32 round each fma (K <= 40 terms), f16 and
  // bf16 also round the output once (2^-11 and 2^-8 relative); integers are exact.
  switch (t) {
    case Type::F64:
      return 1e-12;
    case Type::F32:
      return 1e-5;
    case Type::F16:
      return 1e-2;
    case Type::BF16:
      return 1e-2;
    default:
      return 0;
  }
}

}  // namespace

double load_element(const std::vector<uint8_t>& bytes, Type t, int64_t i) {
  const uint8_t* p = bytes.data() + i * codegen::bytes(t);
  switch (t) {
    case Type::F64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case Type::F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case Type::S32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case Type::F16:
    case Type::BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return codegen::decode(codegen::number_format(t), v);
    }
    case Type::E4M3:
    case Type::E5M2:
      return codegen::decode(codegen::number_format(t), *p);
    default:
      fail(std::string("load_element: type ") + codegen::ptx_name(t));
  }
}

void store_element(std::vector<uint8_t>& bytes, Type t, int64_t i, double v) {
  uint8_t* p = bytes.data() + i * codegen::bytes(t);
  switch (t) {
    case Type::F64:
      std::memcpy(p, &v, 8);
      return;
    case Type::F32: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case Type::S32: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case Type::F16:
    case Type::BF16: {
      const uint16_t h = static_cast<uint16_t>(codegen::encode(codegen::number_format(t), v));
      std::memcpy(p, &h, 2);
      return;
    }
    case Type::E4M3:
    case Type::E5M2:
      *p = static_cast<uint8_t>(exact_bits(v, t));
      return;
    default:
      fail(std::string("store_element: type ") + codegen::ptx_name(t));
  }
}

GemmProblem make_gemm_problem(const KernelMetadata& md, std::mt19937_64& rng, bool rank2, int64_t max_k,
                              int tiles) {
  GemmProblemOptions o;
  o.rank2 = rank2;
  o.max_k = max_k;
  o.tiles = tiles;
  return make_gemm_problem(md, rng, o);
}

GemmProblem make_gemm_problem(const KernelMetadata& md, std::mt19937_64& rng, const GemmProblemOptions& opt) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const bool broadcast = opt.broadcast_a || opt.broadcast_b || (opt.c_major && opt.broadcast_c);
  if (broadcast && opt.rank2) fail("make_gemm_problem: a broadcast batch needs rank 3");
  const int64_t L = opt.rank2 ? 1 : pick(broadcast ? 2 : 1, std::max<int64_t>(opt.max_l, broadcast ? 2 : 1));
  const int64_t M = pick(md.design.tile[0] + 1, opt.tiles * md.design.tile[0] + 7),
                N = pick(md.design.tile[1] + 1, opt.tiles * md.design.tile[1] + 7), K = pick(1, opt.max_k);
  GemmProblem p;
  const Type t = md.operand("A").dtype, to = md.operand("out").dtype;
  auto operand = [&](const char* name, Major major, int64_t rows, int64_t cols, bool bcast) {
    const OperandAttributes& a = md.operand(name);
    HostOperand h = make_operand(a.dtype, major, std::max(1, a.alignment), L, rows, cols, opt.rank2, rng);
    if (bcast) {
      h.view.stride[0] = 0;  // one matrix for every batch
      h.bytes.resize(static_cast<size_t>((extent(h.view) + 16) * codegen::bytes(a.dtype)));
    }
    return h;
  };
  p.A = operand("A", md.operand("A").major, M, K, opt.broadcast_a);
  p.B = operand("B", md.operand("B").major, K, N, opt.broadcast_b);
  p.out = operand("out", md.operand("out").major, M, N, false);
  if (opt.c_major) p.C = operand("out", *opt.c_major, M, N, opt.broadcast_c);
  p.accumulator = md.accumulator;
  for (HostOperand* o : {&p.A, &p.B}) {
    for (int64_t i = 0; i < static_cast<int64_t>(o->bytes.size()) / codegen::bytes(o->view.dtype); ++i)
      store_element(o->bytes, o->view.dtype, i, random_value(o->view.dtype, rng));
  }
  p.alpha = t == Type::S32 ? static_cast<double>(pick(-3, 3) | 1) : random_value(Type::F32, rng);
  const bool beta_zero = opt.beta_zero ? *opt.beta_zero : pick(0, 1) == 0;
  HostOperand& c = p.C ? *p.C : p.out;
  if (!beta_zero) {
    p.beta = t == Type::S32 ? static_cast<double>(pick(-3, 3) | 1) : random_value(Type::F32, rng);
    for (int64_t i = 0; i < static_cast<int64_t>(c.bytes.size()) / codegen::bytes(to); ++i)
      store_element(c.bytes, to, i, random_value(to, rng));
  } else {
    // beta == 0: the kernel must not read C, so it starts as NaN (0xFF bytes; -1 for s32).
    c.bytes.assign(c.bytes.size(), 0xFF);
  }
  // A C of its own: out is only written, and starts as NaN.
  if (p.C) p.out.bytes.assign(p.out.bytes.size(), 0xFF);
  return p;
}

GemmArguments fitting_arguments(const KernelMetadata& md, std::mt19937_64& rng) {
  return make_gemm_problem(md, rng).arguments(0x100000, 0x200000, 0x300000);
}

namespace {

// Host bytes of a view's whole span: random values (see make_gemm_problem) or NaN bytes.
HostOperand filled(const TensorView& v, std::mt19937_64* rng) {
  HostOperand h;
  h.view = v;
  h.view.data = 0;
  h.bytes.assign(static_cast<size_t>(std::max<int64_t>(v.span_bytes(), 1)), 0xFF);
  if (!rng) return h;
  std::uniform_int_distribution<int> q(-8, 8);
  std::vector<int64_t> index(v.shape.size(), 0);
  for (int64_t i = 0; i < v.size(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * v.stride[d];
    store_element(h.bytes, v.dtype, offset, v.dtype == Type::S32 ? q(*rng) : q(*rng) / 4.0);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < v.shape[d]) break;
      index[d] = 0;
    }
  }
  return h;
}

}  // namespace

TensorView matrix_view(Type t, int64_t l, int64_t rows, int64_t cols, bool row, int64_t ld, int64_t batch_stride) {
  const int64_t pitch = ld ? ld : (row ? cols : rows);
  if (pitch < (row ? cols : rows))
    fail("leading dimension " + std::to_string(pitch) + " is less than the " + (row ? "columns" : "rows") + " of a " +
         std::to_string(rows) + " x " + std::to_string(cols) + " operand");
  TensorView v;
  v.dtype = t;
  v.shape = {rows, cols};
  v.stride = row ? std::vector<int64_t>{pitch, 1} : std::vector<int64_t>{1, pitch};
  if (l > 0) {
    v.shape.insert(v.shape.begin(), l);
    v.stride.insert(v.stride.begin(), batch_stride >= 0 ? batch_stride : pitch * (row ? rows : cols));
  }
  return v;
}

GemmProblem gemm_problem_shapes(const TensorView& A, const TensorView& B, const TensorView& out,
                                const std::optional<TensorView>& C, double alpha, double beta) {
  GemmProblem p;
  auto shape = [](TensorView v) {
    HostOperand h;
    h.view = v;
    h.view.data = 0;
    return h;
  };
  p.A = shape(A);
  p.B = shape(B);
  p.out = shape(out);
  if (C) p.C = shape(*C);
  p.alpha = alpha;
  p.beta = beta;
  p.accumulator = default_accumulator(A.dtype);
  return p;
}

GemmProblem make_gemm_problem(const TensorView& A, const TensorView& B, const TensorView& out,
                              const std::optional<TensorView>& C, double alpha, double beta, std::mt19937_64& rng) {
  GemmProblem p = gemm_problem_shapes(A, B, out, C, alpha, beta);
  p.A = filled(A, &rng);
  p.B = filled(B, &rng);
  p.out = filled(out, !C && beta != 0 ? &rng : nullptr);
  if (C) p.C = filled(*C, beta != 0 ? &rng : nullptr);
  return p;
}

GemmArguments GemmProblem::arguments(uint64_t a, uint64_t b, uint64_t o, uint64_t c) const {
  GemmArguments g;
  g.A = A.view;
  g.A.data = a;
  g.B = B.view;
  g.B.data = b;
  g.out = out.view;
  g.out.data = o;
  if (C) {
    g.C = C->view;
    g.C->data = c;
  }
  g.accumulator_type = accumulator;
  g.alpha = alpha;
  g.beta = beta;
  return g;
}

std::string GemmProblem::describe() const {
  std::ostringstream s;
  s << "alpha=" << alpha << " beta=" << beta << " A " << A.view.to_string() << " B " << B.view.to_string() << " out "
    << out.view.to_string();
  if (C) s << " C " << C->view.to_string();
  return s.str();
}

namespace {

// An operand as f64, dense [l][row][k] (k fastest), each element decoded once: the reference's
// inner loop is then a dot product (decoding in it made a 256^3 check take a second).
std::vector<double> dense_f64(const HostOperand& h, int64_t L, int64_t rows, int64_t K, int64_t sl, int64_t sr,
                              int64_t sk) {
  const Type t = h.view.dtype;
  // 1- and 2-byte types through a table of every encoding.
  std::vector<double> table;
  if (codegen::bytes(t) <= 2) {
    table.resize(size_t{1} << (8 * codegen::bytes(t)));
    std::vector<uint8_t> one(2);
    for (size_t bits = 0; bits < table.size(); ++bits) {
      one[0] = static_cast<uint8_t>(bits);
      one[1] = static_cast<uint8_t>(bits >> 8);
      table[bits] = load_element(one, t, 0);
    }
  }
  std::vector<double> d(static_cast<size_t>(L * rows * K));
  size_t i = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < K; ++k) {
        const int64_t at = l * sl + r * sr + k * sk;
        if (codegen::bytes(t) == 2) {
          uint16_t v;
          std::memcpy(&v, h.bytes.data() + at * 2, 2);
          d[i++] = table[v];
        } else if (codegen::bytes(t) == 1) {
          d[i++] = table[h.bytes[static_cast<size_t>(at)]];
        } else {
          d[i++] = load_element(h.bytes, t, at);
        }
      }
  return d;
}

}  // namespace

std::string check_gemm(const GemmProblem& p, const std::vector<uint8_t>& result) {
  const Type to = p.out.view.dtype;
  const bool rank2 = p.out.view.rank() == 2;
  const size_t d = rank2 ? 0 : 1;  // index of M in a coordinate
  const int64_t L = rank2 ? 1 : p.out.view.shape[0], M = p.out.view.shape[d], N = p.out.view.shape[d + 1],
                K = p.A.view.shape[d + 1];
  const auto& sa = p.A.view.stride;
  const auto& sb = p.B.view.stride;
  const std::vector<double> a = dense_f64(p.A, L, M, K, rank2 ? 0 : sa[0], sa[d], sa[d + 1]);
  const std::vector<double> b = dense_f64(p.B, L, N, K, rank2 ? 0 : sb[0], sb[d + 1], sb[d]);
  std::vector<uint8_t> touched(result.size(), 0);
  std::ostringstream bad;
  int wrong = 0;
  for_each_index(p.out.view, [&](const std::vector<int64_t>& c, int64_t off) {
    const int64_t l = rank2 ? 0 : c[0], m = c[d], n = c[d + 1];
    const double* ar = a.data() + (l * M + m) * K;
    const double* br = b.data() + (l * N + n) * K;
    double ref = 0, mag = 0;
    for (int64_t k = 0; k < K; ++k) {
      const double x = ar[k] * br[k];
      ref += x;
      mag += std::fabs(x);
    }
    ref *= p.alpha;
    mag *= std::fabs(p.alpha);
    if (p.beta != 0) {
      double old = 0;
      if (p.C) {
        const auto& sc = p.C->view.stride;
        old = load_element(p.C->bytes, to, (rank2 ? 0 : l * sc[0]) + m * sc[d] + n * sc[d + 1]);
      } else {
        old = load_element(p.out.bytes, to, off);
      }
      ref += p.beta * old;
      mag += std::fabs(p.beta * old);
    }
    for (int i = 0; i < codegen::bytes(to); ++i) touched[static_cast<size_t>(off * codegen::bytes(to) + i)] = 1;
    const double got = load_element(result, to, off);
    if (!(std::fabs(got - ref) <= tolerance(to) * mag)) {
      if (wrong++ < 5)
        bad << " (l,m,n)=(" << l << "," << m << "," << n << "): got " << got << ", expected " << ref << ";";
    }
  });
  int64_t outside = 0;
  for (size_t i = 0; i < result.size(); ++i) outside += !touched[i] && result[i] != p.out.bytes[i];
  std::string r;
  if (wrong) r += std::to_string(wrong) + " elements differ:" + bad.str();
  if (outside) r += (r.empty() ? "" : " ") + std::to_string(outside) + " bytes outside the view were written";
  return r;
}

}  // namespace tessel::kernels
