// elementwise/op.cpp: the names of the elementwise operations.
#include <array>

#include "tessel/algebra/error.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

namespace {
constexpr std::array<const char*, 11> kNames = {"add", "sub",  "mul", "div", "min", "max",
                                                 "axpby", "copy", "neg", "abs", "relu"};
}

bool is_unary(ElementwiseOp op) { return op >= ElementwiseOp::Copy; }

const char* op_name(ElementwiseOp op) { return kNames.at(static_cast<size_t>(op)); }

ElementwiseOp parse_elementwise_op(const std::string& s) {
  std::string valid;
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (s == kNames[i]) return static_cast<ElementwiseOp>(i);
    valid += (i ? ", " : "") + std::string(kNames[i]);
  }
  fail("unknown elementwise op '" + s + "' (valid: " + valid + ")");
}

}  // namespace tessel::kernels
