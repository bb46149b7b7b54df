// tensor_map.hpp: TMA descriptors (cuTensorMapEncodeTiled) for cp.async.bulk.tensor, and the
// rules the driver documents for them, checked on the CPU.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/runtime/memory.hpp"

namespace tessel::rt {

// CUtensorMapDataType. The packed sub-byte types of CUDA 12.8 are not supported.
enum class TensorMapDataType { U8, U16, U32, I32, U64, I64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz };
// CUtensorMapInterleave: none, or 16-/32-byte channel groups (NC/8HWC8-like layouts).
enum class TensorMapInterleave { None, B16, B32 };
// CUtensorMapSwizzle: 16-byte chunks permuted within a 32-, 64- or 128-byte span of shared
// memory, i.e. Sw<1,4,3>, Sw<2,4,3>, Sw<3,4,3> on byte offsets.
enum class TensorMapSwizzle { None, B32, B64, B128 };
// CUtensorMapL2promotion: the granularity at which L2 fetches from DRAM.
enum class TensorMapL2Promotion { None, B64, B128, B256 };
// CUtensorMapFloatOOBfill: out-of-bounds elements read as zero (None) or as a NaN that makes
// the consuming FMA produce zero (floating-point types only).
enum class TensorMapOobFill { None, NanRequestZeroFma };

int element_bytes(TensorMapDataType t);
std::string to_string(TensorMapDataType t);     // "bf16"
std::string to_string(TensorMapInterleave i);   // "none", "16B", "32B"
std::string to_string(TensorMapSwizzle s);      // "none", "32B", "64B", "128B"
std::string to_string(TensorMapL2Promotion p);  // "none", "64B", "128B", "256B"
std::string to_string(TensorMapOobFill f);      // "none", "nan_request_zero_fma"

// A tiled tensor map, dimensions innermost first (dimension 0 is contiguous), every extent
// and stride in elements. The kernels layer builds it from a Layout.
struct TensorMapSpec {
  TensorMapDataType type = TensorMapDataType::F32;
  std::vector<std::int64_t> dims;             // global extents
  std::vector<std::int64_t> strides;          // global strides; strides[0] must be 1
  std::vector<std::int64_t> box;              // the box one TMA copy moves
  std::vector<std::int64_t> element_strides;  // traversal steps; empty means all 1
  TensorMapInterleave interleave = TensorMapInterleave::None;
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::None;
  TensorMapOobFill oob_fill = TensorMapOobFill::None;
};
std::string to_string(const TensorMapSpec& s);  // "bf16 dims (64,32) strides (1,64) box (64,16) ..."

// The opaque 128-byte descriptor, 64-byte aligned as the driver and the kernel parameter
// (`.param .align 64 .b8 name[128]`) require. Pass it by value: ArgPack::add(map).
struct alignas(64) TensorMap {
  std::array<std::uint64_t, 16> words{};
};
static_assert(sizeof(TensorMap) == 128 && alignof(TensorMap) == 64);

// Checks every rule that cuTensorMapEncodeTiled documents (CUDA 12/13 Driver API, "Tensor Map
// Object Management"), with the address ones when an address is given:
//   rank 1..5 (>= 3 with interleave); dims, strides, box, element_strides of that length;
//   strides[0] == 1; dims in [1, 2^32]; byte strides of dims 1.. multiples of 16 (32 with
//   interleave 32B) and < 2^40; box in [1, 256]; without interleave box[0] * element size a
//   multiple of 16 bytes and, with a swizzle, at most the swizzle span (32/64/128 bytes);
//   element_strides in [1, 8]; interleave 32B only with swizzle 32B; the NaN fill only for
//   floating-point types; the address non-null and 16-byte aligned (32 with interleave 32B).
// Throws tessel::Error naming the value and the rule. Pure; no driver needed.
void validate_tensor_map(const TensorMapSpec& spec);
void validate_tensor_map(const TensorMapSpec& spec, DevicePtr global_address);

// Validates, then encodes the descriptor (call with a context current; kernels that use it need
// sm_90 or newer). A rule the driver enforces beyond the documented ones throws DriverError.
TensorMap encode_tensor_map(const TensorMapSpec& spec, DevicePtr global_address);

}  // namespace tessel::rt
