// elementwise_check.cpp: see elementwise_check.hpp.
#include "tessel/testing/elementwise_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Extents for a rank, ragged and bounded so the product stays near max_elements.
std::vector<int64_t> random_shape(int rank, std::mt19937_64& rng, int64_t max_elements) {
  std::vector<int64_t> s(static_cast<size_t>(rank));
  int64_t budget = std::max<int64_t>(max_elements, 1);
  for (int k = rank - 1; k >= 0; --k) {
    // Share the budget: the last mode chosen gets what remains.
    const double share = k == 0 ? 1.0 : 1.0 / (k + 1);
    const int64_t hi = std::max<int64_t>(1, static_cast<int64_t>(std::pow(static_cast<double>(budget), share)));
    s[static_cast<size_t>(k)] = uniform(rng, std::max<int64_t>(1, hi / 3), hi);
    budget = std::max<int64_t>(1, budget / s[static_cast<size_t>(k)]);
  }
  return s;
}

// Strides with mode `fast` contiguous and the next modes padded: each pitch a multiple of `align`
// elements plus a random multiple of `align` of padding.
std::vector<int64_t> padded_strides(const std::vector<int64_t>& shape, bool last_fastest, int64_t align,
                                    std::mt19937_64& rng, bool pad) {
  std::vector<int64_t> st(shape.size());
  int64_t acc = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    const size_t i = last_fastest ? shape.size() - 1 - k : k;
    st[i] = acc;
    acc *= shape[i];
    if (k + 1 < shape.size()) {
      acc = (acc + align - 1) / align * align;
      if (pad) acc += align * uniform(rng, 0, 2);
    }
  }
  return st;
}

void fill_values(std::vector<uint8_t>& mem, Type t, std::mt19937_64& rng, bool divisor) {
  const size_t eb = static_cast<size_t>(codegen::bytes(t));
  std::uniform_real_distribution<float> mag(divisor ? 0.25f : 0.015625f, 4.0f);
  for (size_t off = 0; off + eb <= mem.size(); off += eb) {
    const float f = mag(rng) * (rng() & 1 ? 1.0f : -1.0f);
    switch (t) {
      case Type::F32:
        std::memcpy(&mem[off], &f, 4);
        break;
      case Type::F64: {
        const double d = static_cast<double>(f) + static_cast<double>(mag(rng)) * 1e-9;
        std::memcpy(&mem[off], &d, 8);
        break;
      }
      case Type::F16: {
        const uint16_t h = codegen::encode_f16(f);
        std::memcpy(&mem[off], &h, 2);
        break;
      }
      case Type::BF16: {
        const uint16_t h = codegen::encode_bf16(f);
        std::memcpy(&mem[off], &h, 2);
        break;
      }
      case Type::S32: {
        int32_t v = static_cast<int32_t>(uniform(rng, 1, divisor ? 1000 : 1 << 20)) * (rng() & 1 ? 1 : -1);
        std::memcpy(&mem[off], &v, 4);
        break;
      }
      case Type::S8: {
        int8_t v = static_cast<int8_t>(uniform(rng, divisor ? 2 : 1, 127) * (rng() & 1 ? 1 : -1));
        mem[off] = static_cast<uint8_t>(v);
        break;
      }
      default:
        fail(std::string("fill_values: ") + codegen::ptx_name(t));
    }
  }
}

}  // namespace

void fill_random(ElementwiseCase& k, std::mt19937_64& rng) {
  const ElementwiseArguments& a = k.args;
  k.a.assign(static_cast<size_t>(a.A.data + static_cast<uint64_t>(a.A.span_bytes())), 0);
  fill_values(k.a, a.A.dtype, rng, false);
  if (!is_unary(a.op)) {
    k.b.assign(static_cast<size_t>(a.B.data + static_cast<uint64_t>(a.B.span_bytes())), 0);
    fill_values(k.b, a.B.dtype, rng, a.op == ElementwiseOp::Div);
  } else {
    k.b.clear();
  }
  k.c_bytes = static_cast<size_t>(a.C.data + static_cast<uint64_t>(a.C.span_bytes()));
}

ElementwiseCase random_elementwise_case(const ElementwiseConfig& c, std::mt19937_64& rng, int64_t max_elements) {
  ElementwiseCase k;
  ElementwiseArguments& a = k.args;
  a.op = c.op;
  if (c.op == ElementwiseOp::Axpby) {
    a.alpha = is_float(c.dtype) ? 1.0 + static_cast<double>(uniform(rng, 1, 1000)) / 256.0 : double(uniform(rng, -9, 9));
    a.beta = is_float(c.dtype) ? -0.5 - static_cast<double>(uniform(rng, 1, 1000)) / 512.0 : double(uniform(rng, -9, 9));
  }
  std::vector<int64_t> shape = c.is_static() ? c.static_shape : random_shape(c.rank, rng, max_elements);
  if (c.shifted && !c.is_static()) {
    // Shifted edge tiles take extents of at least a tile, the major one a multiple of the vector
    // and a staged one of the stage vector: a tile and a random part of another (edge tiles that
    // overlap), past max_elements where one tile is more.
    const std::vector<int64_t> tile = c.tile();
    for (size_t k = 0; k < shape.size(); ++k) {
      if (tile[k] == 1) continue;
      const bool staged = c.staged[0] || c.staged[1];
      const int64_t m = static_cast<int>(k) == c.major                ? c.vector
                        : staged && static_cast<int>(k) == c.second() ? c.stage_vector
                                                                      : 1;
      if (shape[k] < tile[k]) shape[k] = tile[k] + uniform(rng, 0, tile[k] - 1);
      shape[k] = (shape[k] + m - 1) / m * m;
    }
  }
  const bool c_last = c.major == c.rank - 1;
  TensorView* views[3] = {&a.A, &a.B, &a.C};
  for (int x = 0; x < 3; ++x) {
    TensorView& v = *views[x];
    v.dtype = c.dtype;
    v.shape = shape;
    v.data = 0;
    if (x == 1 && is_unary(c.op)) {
      v = a.A;
      continue;
    }
    if (c.is_static()) {
      v.stride = c.static_stride[x];
    } else {
      // A unit operand follows C's major; the others the other way round (strided in the major).
      const bool last = c.rank == 1 ? true : (c.unit[x] ? c_last : !c_last);
      v.stride = padded_strides(shape, last, c.vector, rng, true);
    }
  }
  fill_random(k, rng);
  return k;
}

ElementwiseArguments at_addresses(const ElementwiseArguments& args, uint64_t a, uint64_t b, uint64_t c) {
  ElementwiseArguments r = args;
  r.A.data += a;
  r.B.data += b;
  r.C.data += c;
  return r;
}

std::string check_elementwise(const ElementwiseCase& k, const std::vector<uint8_t>& c_out) {
  const ElementwiseArguments& a = k.args;
  if (c_out.size() < k.c_bytes + ElementwiseCase::kGuardBytes)
    return "C buffer of " + std::to_string(c_out.size()) + " bytes (expected " +
           std::to_string(k.c_bytes + ElementwiseCase::kGuardBytes) + ")";
  // The expected buffer: poison everywhere, the reference's elements where C has them.
  std::vector<uint8_t> expected(c_out.size(), ElementwiseCase::kPoison);
  elementwise_reference(a, k.a, k.b, expected);  // views' data are offsets in the buffers
  if (expected == c_out) return "";
  // Name the first few differences by byte offset and what was expected.
  std::string what;
  size_t shown = 0, count = 0;
  for (size_t i = 0; i < c_out.size(); ++i) {
    if (c_out[i] == expected[i]) continue;
    ++count;
    if (shown < 4) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%sbyte %zu%s: 0x%02x, expected 0x%02x", shown ? "; " : "", i,
                    i >= k.c_bytes ? " (guard)" : "", c_out[i], expected[i]);
      what += buf;
      ++shown;
    }
  }
  return std::to_string(count) + " bytes differ: " + what;
}

}  // namespace tessel::kernels
