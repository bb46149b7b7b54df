// common/tma.cpp: see tma.hpp.
#include "tessel/kernels/tma.hpp"

#include "tessel/algebra/error.hpp"

namespace tessel::kernels {

using codegen::Type;

rt::TensorMapDataType tensor_map_type(Type elem) {
  switch (elem) {
    case Type::U8:
    case Type::B8:
    case Type::S8:
    case Type::E4M3:
    case Type::E5M2:
      return rt::TensorMapDataType::U8;
    case Type::U16:
    case Type::B16:
    case Type::S16:
      return rt::TensorMapDataType::U16;
    case Type::U32:
    case Type::B32:
      return rt::TensorMapDataType::U32;
    case Type::S32:
      return rt::TensorMapDataType::I32;
    case Type::U64:
    case Type::B64:
      return rt::TensorMapDataType::U64;
    case Type::S64:
      return rt::TensorMapDataType::I64;
    case Type::F16:
      return rt::TensorMapDataType::F16;
    case Type::BF16:
      return rt::TensorMapDataType::BF16;
    case Type::F32:
      return rt::TensorMapDataType::F32;
    case Type::TF32:
      return rt::TensorMapDataType::TF32;
    case Type::F64:
      return rt::TensorMapDataType::F64;
    default:
      break;
  }
  fail(std::string("TMA: no tensor-map data type for ") + codegen::ptx_name(elem));
}

rt::TensorMapSwizzle tensor_map_swizzle(codegen::SmemSwizzle s) {
  switch (s) {
    case codegen::SmemSwizzle::None:
      return rt::TensorMapSwizzle::None;
    case codegen::SmemSwizzle::B32:
      return rt::TensorMapSwizzle::B32;
    case codegen::SmemSwizzle::B64:
      return rt::TensorMapSwizzle::B64;
    case codegen::SmemSwizzle::B128:
      return rt::TensorMapSwizzle::B128;
  }
  return rt::TensorMapSwizzle::None;
}

rt::TensorMapSpec make_tensor_map_spec(const Layout& layout, Type elem, const std::vector<int64_t>& box,
                                       codegen::SmemSwizzle swizzle, const Env& env) {
  const Layout flat = flatten(env.empty() ? layout : evaluate(layout, env));
  const std::vector<Int> shape = flatten_leaves(flat.shape()), stride = flatten_leaves(flat.stride());
  const std::string what = "TMA descriptor of " + to_string(layout);
  if (shape.size() > 5) fail(what + ": " + std::to_string(shape.size()) + " modes, TMA moves at most 5");
  if (box.size() != shape.size()) {
    fail(what + ": a box of " + std::to_string(box.size()) + " extents for " + std::to_string(shape.size()) + " modes");
  }
  rt::TensorMapSpec s;
  s.type = tensor_map_type(elem);
  s.swizzle = tensor_map_swizzle(swizzle);
  s.box = box;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_static() || !stride[i].is_static()) {
      fail(what + ": mode " + std::to_string(i) + " is dynamic (" + to_string(shape[i]) + ":" + to_string(stride[i]) +
           "); give its symbols' values");
    }
    if (stride[i].value() < 0)
      fail(what + ": mode " + std::to_string(i) + " has the negative stride " + to_string(stride[i]));
    s.dims.push_back(shape[i].value());
    s.strides.push_back(stride[i].value());
  }
  if (s.strides.at(0) != 1) {
    fail(what + ": mode 0 has stride " + std::to_string(s.strides[0]) +
         "; TMA's first dimension is the contiguous one (reorder the modes so that the stride-1 mode comes first)");
  }
  return s;
}

}  // namespace tessel::kernels
