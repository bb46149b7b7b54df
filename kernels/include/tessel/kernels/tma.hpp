// tma.hpp: TMA descriptors from the algebra: a global tensor's layout and a box become the
// runtime's TensorMapSpec (the runtime knows nothing of layouts; this is where the two meet).
#pragma once

#include <vector>

#include "tessel/algebra.hpp"
#include "tessel/codegen/types.hpp"
#include "tessel/codegen/wgmma.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::kernels {

// The TMA data type of an element type (bf16 -> BF16, f32 -> F32, ...); throws for one TMA
// cannot move (pred, fp8 is moved as u8 by the caller's choice, not here).
rt::TensorMapDataType tensor_map_type(codegen::Type elem);
rt::TensorMapSwizzle tensor_map_swizzle(codegen::SmemSwizzle s);

// The spec of a TMA descriptor for a global tensor with layout `layout` (static shape and
// strides in elements; flattened, each leaf mode becomes one TMA dimension in order, so mode 0
// must have stride 1) moved in boxes of `box` (one extent per flattened mode) with `swizzle`.
// Dynamic values are evaluated with `env` first. Throws tessel::Error naming the mode and the
// rule (more than 5 modes, a first stride that is not 1, a negative or dynamic stride); the
// runtime then checks the TMA rules (validate_tensor_map).
rt::TensorMapSpec make_tensor_map_spec(const Layout& layout, codegen::Type elem, const std::vector<int64_t>& box,
                                       codegen::SmemSwizzle swizzle = codegen::SmemSwizzle::None, const Env& env = {});

// rt::encode_tensor_map through a process-wide cache keyed by the whole spec and the address: a
// descriptor depends on nothing else (not the context), so a repeated launch on the same tensors
// encodes nothing (cuTensorMapEncodeTiled and the rule checks run once per spec and address). A
// spec the rules refuse is never cached: each call throws again. Thread-safe; bounded (cleared
// when it holds 4096 descriptors).
rt::TensorMap encode_tensor_map_cached(const rt::TensorMapSpec& spec, uint64_t address);

}  // namespace tessel::kernels
