// elementwise/reference.cpp: the host reference of the elementwise kernels (see elementwise.hpp).
// Floats: the operation in float (f32, f16, bf16) or double (f64), rounded once to the element
// type: IEEE +, -, *, / in f32 are correctly rounded, and f32 holds more than 2p+2 bits of f16
// and bf16, so rounding the f32 result again gives the correctly rounded f16/bf16 result.
// Integers: in 32 bits, wrapping (s8 results wrap back to 8 bits).
#include <cmath>
#include <cstring>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

template <class T>
T apply_float(ElementwiseOp op, T x, T y, T alpha, T beta) {
  switch (op) {
    case ElementwiseOp::Add:
      return x + y;
    case ElementwiseOp::Sub:
      return x - y;
    case ElementwiseOp::Mul:
      return x * y;
    case ElementwiseOp::Div:
      return x / y;
    case ElementwiseOp::Min:
      return std::fmin(x, y);  // PTX min/max: a NaN operand yields the other operand
    case ElementwiseOp::Max:
      return std::fmax(x, y);
    case ElementwiseOp::Axpby:
      return std::fma(alpha, x, beta * y);
    case ElementwiseOp::Copy:
      return x;
    case ElementwiseOp::Neg:
      return -x;
    case ElementwiseOp::Abs:
      return std::fabs(x);
    case ElementwiseOp::Relu:
      return std::fmax(x, T(0));
  }
  return x;
}

// In 32-bit two's complement, wrapping (the arithmetic of add/sub/mul.lo/neg/abs.s32).
int32_t apply_int(ElementwiseOp op, int32_t x, int32_t y, int32_t alpha, int32_t beta) {
  auto u = [](int32_t v) { return static_cast<uint32_t>(v); };
  auto s = [](uint32_t v) { return static_cast<int32_t>(v); };
  switch (op) {
    case ElementwiseOp::Add:
      return s(u(x) + u(y));
    case ElementwiseOp::Sub:
      return s(u(x) - u(y));
    case ElementwiseOp::Mul:
      return s(u(x) * u(y));
    case ElementwiseOp::Div:
      // Division by zero and INT_MIN / -1 have no defined result on the GPU either; the tests
      // keep B away from both.
      if (y == 0 || (x == INT32_MIN && y == -1)) return 0;
      return x / y;
    case ElementwiseOp::Min:
      return x < y ? x : y;
    case ElementwiseOp::Max:
      return x > y ? x : y;
    case ElementwiseOp::Axpby:
      return s(u(alpha) * u(x) + u(beta) * u(y));
    case ElementwiseOp::Copy:
      return x;
    case ElementwiseOp::Neg:
      return s(0u - u(x));
    case ElementwiseOp::Abs:
      return x < 0 ? s(0u - u(x)) : x;
    case ElementwiseOp::Relu:
      return x > 0 ? x : 0;
  }
  return x;
}

template <class T>
T load(const std::vector<uint8_t>& mem, int64_t offset) {
  T v;
  std::memcpy(&v, mem.data() + offset, sizeof(T));
  return v;
}

template <class T>
void store(std::vector<uint8_t>& mem, int64_t offset, T v) {
  std::memcpy(mem.data() + offset, &v, sizeof(T));
}

}  // namespace

void elementwise_reference(const ElementwiseArguments& args, const std::vector<uint8_t>& a,
                           const std::vector<uint8_t>& b, std::vector<uint8_t>& c) {
  const bool unary = is_unary(args.op);
  const TensorView& C = args.C;
  const int64_t eb = codegen::bytes(C.dtype);
  auto check = [&](const TensorView& t, const std::vector<uint8_t>& mem, const char* name) {
    const int64_t end = static_cast<int64_t>(t.data) + t.span_bytes();
    if (static_cast<int64_t>(mem.size()) < end)
      fail(std::string("elementwise_reference: ") + name + " holds " + std::to_string(mem.size()) +
           " bytes, its view ends at byte " + std::to_string(end));
  };
  check(args.A, a, "A");
  if (!unary) check(args.B, b, "B");
  check(C, c, "C");
  const Type dt = C.dtype;
  const bool copy_bits = args.op == ElementwiseOp::Copy && (dt == Type::F32 || dt == Type::F64 || dt == Type::F16 ||
                                                           dt == Type::BF16 || dt == Type::S32 || dt == Type::S8);
  const int64_t n = C.size();
  const size_t r = C.shape.size();
  std::vector<int64_t> crd(r, 0);
  auto next = [&] {  // the next coordinate, mode 0 fastest
    for (size_t k = 0; k < r; ++k) {
      if (++crd[k] < C.shape[k]) break;
      crd[k] = 0;
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    int64_t oa = 0, ob = 0, oc = 0;  // element offsets, then byte offsets in the buffers
    for (size_t k = 0; k < r; ++k) {
      oa += crd[k] * args.A.stride[k];
      if (!unary) ob += crd[k] * args.B.stride[k];
      oc += crd[k] * C.stride[k];
    }
    oa = oa * eb + static_cast<int64_t>(args.A.data);
    ob = ob * eb + static_cast<int64_t>(args.B.data);
    oc = oc * eb + static_cast<int64_t>(C.data);
    if (copy_bits) {  // the bits, as the kernel moves them (a NaN keeps its payload)
      std::memcpy(c.data() + oc, a.data() + oa, static_cast<size_t>(eb));
      next();
      continue;
    }
    switch (C.dtype) {
      case Type::F32: {
        const float y = unary ? 0.0f : load<float>(b, ob);
        store(c, oc, apply_float<float>(args.op, load<float>(a, oa), y, static_cast<float>(args.alpha),
                                        static_cast<float>(args.beta)));
        break;
      }
      case Type::F64: {
        const double y = unary ? 0.0 : load<double>(b, ob);
        store(c, oc, apply_float<double>(args.op, load<double>(a, oa), y, args.alpha, args.beta));
        break;
      }
      case Type::F16:
      case Type::BF16: {
        const bool h = C.dtype == Type::F16;
        auto widen = [&](uint16_t v) { return h ? codegen::decode_f16(v) : codegen::decode_bf16(v); };
        const float x = widen(load<uint16_t>(a, oa)), y = unary ? 0.0f : widen(load<uint16_t>(b, ob));
        const float z = apply_float<float>(args.op, x, y, static_cast<float>(args.alpha), static_cast<float>(args.beta));
        store(c, oc, h ? codegen::encode_f16(z) : codegen::encode_bf16(z));
        break;
      }
      case Type::S32: {
        const int32_t y = unary ? 0 : load<int32_t>(b, ob);
        store(c, oc, apply_int(args.op, load<int32_t>(a, oa), y, static_cast<int32_t>(args.alpha),
                               static_cast<int32_t>(args.beta)));
        break;
      }
      case Type::S8: {
        const int32_t y = unary ? 0 : load<int8_t>(b, ob);
        const int32_t z = apply_int(args.op, load<int8_t>(a, oa), y, static_cast<int32_t>(args.alpha),
                                    static_cast<int32_t>(args.beta));
        store(c, oc, static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint32_t>(z) & 0xffu)));
        break;
      }
      default:
        fail(std::string("elementwise_reference: element type ") + codegen::ptx_name(C.dtype));
    }
    next();
  }
}

}  // namespace tessel::kernels
