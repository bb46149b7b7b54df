// common/tma.cpp: see tma.hpp.
#include "tessel/kernels/tma.hpp"

#include <mutex>
#include <unordered_map>

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

namespace {

// A spec and an address as one flat key (each vector's length first).
std::vector<int64_t> encode_key(const rt::TensorMapSpec& s, uint64_t address) {
  std::vector<int64_t> k;
  k.reserve(32);
  k.push_back(static_cast<int64_t>(address));
  k.push_back(static_cast<int64_t>(s.type) | static_cast<int64_t>(s.interleave) << 8 |
              static_cast<int64_t>(s.swizzle) << 16 | static_cast<int64_t>(s.l2_promotion) << 24 |
              static_cast<int64_t>(s.oob_fill) << 32);
  for (const std::vector<int64_t>* v : {&s.dims, &s.strides, &s.box, &s.element_strides}) {
    k.push_back(static_cast<int64_t>(v->size()));
    k.insert(k.end(), v->begin(), v->end());
  }
  return k;
}

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t v : k) h = (h ^ static_cast<uint64_t>(v)) * 0x100000001b3ull;
    return static_cast<size_t>(h);
  }
};

}  // namespace

rt::TensorMap encode_tensor_map_cached(const rt::TensorMapSpec& spec, uint64_t address) {
  static std::mutex mutex;
  static auto* cache = new std::unordered_map<std::vector<int64_t>, rt::TensorMap, KeyHash>;  // never destroyed
  std::vector<int64_t> key = encode_key(spec, address);
  {
    std::lock_guard lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  const rt::TensorMap map = rt::encode_tensor_map(spec, address);  // throws for a spec the rules refuse
  std::lock_guard lock(mutex);
  if (cache->size() >= 4096) cache->clear();
  cache->emplace(std::move(key), map);
  return map;
}

}  // namespace tessel::kernels
