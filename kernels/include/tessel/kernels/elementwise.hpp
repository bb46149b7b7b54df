// elementwise.hpp: C = op(A, B) over tensors of rank 1 to 4 with any strides, the CuTe DSL
// `elementwise_add` example made general. (The generator, the host side and the registry entry
// follow in this header as they land.)
#pragma once

#include <cstdint>
#include <string>

#include "tessel/kernels/tensor_view.hpp"

namespace tessel::kernels {

// Binary: add, sub, mul, div, min, max, axpby (alpha*A + beta*B). Unary (B unused): copy, neg,
// abs, relu.
enum class ElementwiseOp : uint8_t { Add, Sub, Mul, Div, Min, Max, Axpby, Copy, Neg, Abs, Relu };
bool is_unary(ElementwiseOp op);
const char* op_name(ElementwiseOp op);                     // "add"
ElementwiseOp parse_elementwise_op(const std::string& s);  // throws naming the valid ones

// The arguments of one elementwise launch. A, B and C have the same shape and element type; B is
// ignored by unary operations; alpha and beta are used by axpby only.
struct ElementwiseArguments {
  ElementwiseOp op = ElementwiseOp::Add;
  TensorView A, B, C;
  double alpha = 1.0, beta = 1.0;
};

}  // namespace tessel::kernels
