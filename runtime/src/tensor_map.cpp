// tensor_map.cpp: the documented rules of cuTensorMapEncodeTiled, and the call.
#include "tessel/runtime/tensor_map.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "call.hpp"

namespace tessel::rt {

// encode_tensor_map passes tessel's enums to the driver as they are.
#define TESSEL_SAME(a, b) static_assert(static_cast<int>(a) == static_cast<int>(b), #a " == " #b)
TESSEL_SAME(TensorMapDataType::U8, cu::CU_TENSOR_MAP_DATA_TYPE_UINT8);
TESSEL_SAME(TensorMapDataType::U16, cu::CU_TENSOR_MAP_DATA_TYPE_UINT16);
TESSEL_SAME(TensorMapDataType::U32, cu::CU_TENSOR_MAP_DATA_TYPE_UINT32);
TESSEL_SAME(TensorMapDataType::I32, cu::CU_TENSOR_MAP_DATA_TYPE_INT32);
TESSEL_SAME(TensorMapDataType::U64, cu::CU_TENSOR_MAP_DATA_TYPE_UINT64);
TESSEL_SAME(TensorMapDataType::I64, cu::CU_TENSOR_MAP_DATA_TYPE_INT64);
TESSEL_SAME(TensorMapDataType::F16, cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
TESSEL_SAME(TensorMapDataType::F32, cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
TESSEL_SAME(TensorMapDataType::F64, cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
TESSEL_SAME(TensorMapDataType::BF16, cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
TESSEL_SAME(TensorMapDataType::F32Ftz, cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ);
TESSEL_SAME(TensorMapDataType::TF32, cu::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32);
TESSEL_SAME(TensorMapDataType::TF32Ftz, cu::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
TESSEL_SAME(TensorMapInterleave::None, cu::CU_TENSOR_MAP_INTERLEAVE_NONE);
TESSEL_SAME(TensorMapInterleave::B16, cu::CU_TENSOR_MAP_INTERLEAVE_16B);
TESSEL_SAME(TensorMapInterleave::B32, cu::CU_TENSOR_MAP_INTERLEAVE_32B);
TESSEL_SAME(TensorMapSwizzle::None, cu::CU_TENSOR_MAP_SWIZZLE_NONE);
TESSEL_SAME(TensorMapSwizzle::B32, cu::CU_TENSOR_MAP_SWIZZLE_32B);
TESSEL_SAME(TensorMapSwizzle::B64, cu::CU_TENSOR_MAP_SWIZZLE_64B);
TESSEL_SAME(TensorMapSwizzle::B128, cu::CU_TENSOR_MAP_SWIZZLE_128B);
TESSEL_SAME(TensorMapL2Promotion::None, cu::CU_TENSOR_MAP_L2_PROMOTION_NONE);
TESSEL_SAME(TensorMapL2Promotion::B64, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
TESSEL_SAME(TensorMapL2Promotion::B128, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
TESSEL_SAME(TensorMapL2Promotion::B256, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
TESSEL_SAME(TensorMapOobFill::None, cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
TESSEL_SAME(TensorMapOobFill::NanRequestZeroFma, cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
#undef TESSEL_SAME
static_assert(sizeof(TensorMap) == sizeof(cu::CUtensorMap) && alignof(TensorMap) == alignof(cu::CUtensorMap));

namespace {

constexpr std::int64_t kMaxDim = std::int64_t{1} << 32;
constexpr std::int64_t kMaxStrideBytes = std::int64_t{1} << 40;
constexpr std::int64_t kMaxBoxBytes = std::int64_t{228} * 1024;

[[noreturn]] void reject(const std::string& rule) { fail("tensor map: " + rule); }

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + ")";
}

std::string hex(DevicePtr p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<std::uint64_t>(p));
  return buf;
}

bool is_float(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::F16:
    case TensorMapDataType::F32:
    case TensorMapDataType::F64:
    case TensorMapDataType::BF16:
    case TensorMapDataType::F32Ftz:
    case TensorMapDataType::TF32:
    case TensorMapDataType::TF32Ftz:
      return true;
    default:
      return false;
  }
}

// The swizzle span in bytes; 0 for none.
int swizzle_bytes(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::None:
      return 0;
    case TensorMapSwizzle::B32:
      return 32;
    case TensorMapSwizzle::B64:
      return 64;
    case TensorMapSwizzle::B128:
      return 128;
  }
  return 0;
}

// An enum that came in through a cast: name it rather than pass garbage to the driver.
template <class E>
void check_enum(E e, E last, const char* what) {
  if (static_cast<int>(e) < 0 || static_cast<int>(e) > static_cast<int>(last))
    reject(std::string(what) + " " + std::to_string(static_cast<int>(e)) + " is not a valid value");
}

}  // namespace

int element_bytes(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::U8:
      return 1;
    case TensorMapDataType::U16:
    case TensorMapDataType::F16:
    case TensorMapDataType::BF16:
      return 2;
    case TensorMapDataType::U32:
    case TensorMapDataType::I32:
    case TensorMapDataType::F32:
    case TensorMapDataType::F32Ftz:
    case TensorMapDataType::TF32:
    case TensorMapDataType::TF32Ftz:
      return 4;
    case TensorMapDataType::U64:
    case TensorMapDataType::I64:
    case TensorMapDataType::F64:
      return 8;
  }
  fail("tensor map: data type " + std::to_string(static_cast<int>(t)) + " is not a valid value");
}

std::string to_string(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::U8:
      return "u8";
    case TensorMapDataType::U16:
      return "u16";
    case TensorMapDataType::U32:
      return "u32";
    case TensorMapDataType::I32:
      return "i32";
    case TensorMapDataType::U64:
      return "u64";
    case TensorMapDataType::I64:
      return "i64";
    case TensorMapDataType::F16:
      return "f16";
    case TensorMapDataType::F32:
      return "f32";
    case TensorMapDataType::F64:
      return "f64";
    case TensorMapDataType::BF16:
      return "bf16";
    case TensorMapDataType::F32Ftz:
      return "f32_ftz";
    case TensorMapDataType::TF32:
      return "tf32";
    case TensorMapDataType::TF32Ftz:
      return "tf32_ftz";
  }
  return "type " + std::to_string(static_cast<int>(t));
}

std::string to_string(TensorMapInterleave i) {
  switch (i) {
    case TensorMapInterleave::None:
      return "none";
    case TensorMapInterleave::B16:
      return "16B";
    case TensorMapInterleave::B32:
      return "32B";
  }
  return "interleave " + std::to_string(static_cast<int>(i));
}

std::string to_string(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::None:
      return "none";
    case TensorMapSwizzle::B32:
      return "32B";
    case TensorMapSwizzle::B64:
      return "64B";
    case TensorMapSwizzle::B128:
      return "128B";
  }
  return "swizzle " + std::to_string(static_cast<int>(s));
}

std::string to_string(TensorMapL2Promotion p) {
  switch (p) {
    case TensorMapL2Promotion::None:
      return "none";
    case TensorMapL2Promotion::B64:
      return "64B";
    case TensorMapL2Promotion::B128:
      return "128B";
    case TensorMapL2Promotion::B256:
      return "256B";
  }
  return "l2 promotion " + std::to_string(static_cast<int>(p));
}

std::string to_string(TensorMapOobFill f) {
  switch (f) {
    case TensorMapOobFill::None:
      return "none";
    case TensorMapOobFill::NanRequestZeroFma:
      return "nan_request_zero_fma";
  }
  return "oob fill " + std::to_string(static_cast<int>(f));
}

std::string to_string(const TensorMapSpec& s) {
  std::string r = to_string(s.type) + " dims " + list(s.dims) + " strides " + list(s.strides) + " box " + list(s.box);
  if (!s.element_strides.empty()) r += " element_strides " + list(s.element_strides);
  r += " interleave " + to_string(s.interleave) + " swizzle " + to_string(s.swizzle) + " l2_promotion " +
       to_string(s.l2_promotion) + " oob_fill " + to_string(s.oob_fill);
  return r;
}

void validate_tensor_map(const TensorMapSpec& s) {
  check_enum(s.type, TensorMapDataType::TF32Ftz, "data type");
  check_enum(s.interleave, TensorMapInterleave::B32, "interleave");
  check_enum(s.swizzle, TensorMapSwizzle::B128, "swizzle");
  check_enum(s.l2_promotion, TensorMapL2Promotion::B256, "l2 promotion");
  check_enum(s.oob_fill, TensorMapOobFill::NanRequestZeroFma, "oob fill");

  const std::int64_t rank = static_cast<std::int64_t>(s.dims.size());
  const std::int64_t esize = element_bytes(s.type);
  // Messages are written only for a rule that fails: validating makes no string.
  auto type_name = [&] { return to_string(s.type); };
  const bool interleaved = s.interleave != TensorMapInterleave::None;

  if (rank < 1 || rank > 5) reject("rank " + std::to_string(rank) + " must be in [1, 5]");
  auto same_rank = [&](const std::vector<std::int64_t>& v, const char* what) {
    if (static_cast<std::int64_t>(v.size()) != rank)
      reject(std::string(what) + " " + list(v) + " has " + std::to_string(v.size()) + " entries for rank " +
             std::to_string(rank) + " (dims " + list(s.dims) + ")");
  };
  same_rank(s.strides, "strides");
  same_rank(s.box, "box");
  if (!s.element_strides.empty()) same_rank(s.element_strides, "element_strides");
  if (interleaved && rank < 3)
    reject("interleave " + to_string(s.interleave) + " needs rank >= 3, got rank " + std::to_string(rank));

  for (std::int64_t i = 0; i < rank; ++i) {
    if (s.dims[i] < 1 || s.dims[i] > kMaxDim)
      reject("dims[" + std::to_string(i) + "] = " + std::to_string(s.dims[i]) + " must be in [1, 2^32]");
  }

  // Strides: dimension 0 is the contiguous one; the driver takes the others in bytes.
  if (s.strides[0] != 1)
    reject("strides[0] = " + std::to_string(s.strides[0]) +
           " must be 1 (dimension 0 is the contiguous one; the driver has no stride for it)");
  const std::int64_t stride_align = s.interleave == TensorMapInterleave::B32 ? 32 : 16;
  for (std::int64_t i = 1; i < rank; ++i) {
    auto at = [&] { return "strides[" + std::to_string(i) + "] = " + std::to_string(s.strides[i]); };
    if (s.strides[i] < 1) reject(at() + " must be positive");
    if (s.strides[i] >= kMaxStrideBytes / esize) reject(at() + " " + type_name() + " elements must be less than 2^40 bytes");
    const std::int64_t bytes = s.strides[i] * esize;
    if (bytes % stride_align != 0)
      reject(at() + " " + type_name() + " elements = " + std::to_string(bytes) + " bytes must be a multiple of " +
             std::to_string(stride_align) + " bytes" + (stride_align == 32 ? " (interleave 32B)" : ""));
  }

  for (std::int64_t i = 0; i < rank; ++i)
    if (s.box[i] < 1 || s.box[i] > 256)
      reject("box[" + std::to_string(i) + "] = " + std::to_string(s.box[i]) + " must be in [1, 256]");
  const std::int64_t inner_bytes = s.box[0] * esize;
  // The driver refuses inner boxes of 2 or 8 bytes with 16B interleave too (seen on an H200,
  // driver 580): the rule holds with interleave as well as without.
  if (inner_bytes % 16 != 0)
    reject("box[0] = " + std::to_string(s.box[0]) + " " + type_name() + " elements = " + std::to_string(inner_bytes) +
           " bytes must be a multiple of 16 bytes");
  // A box lands in one block's shared memory: the driver refuses boxes above 228 KiB (Hopper's
  // shared memory per SM; 228 KiB encoded and 232 KiB was refused on an H200, driver 580).
  std::int64_t box_bytes = esize;
  for (std::int64_t i = 0; i < rank; ++i) box_bytes *= s.box[i];
  if (box_bytes > kMaxBoxBytes)
    reject("box " + list(s.box) + " of " + type_name() + " is " + std::to_string(box_bytes) + " bytes, more than " +
           std::to_string(kMaxBoxBytes) + " (228 KiB, the shared memory of an SM)");
  if (!interleaved && s.swizzle != TensorMapSwizzle::None && inner_bytes > swizzle_bytes(s.swizzle))
    reject("box[0] = " + std::to_string(s.box[0]) + " " + type_name() + " elements = " + std::to_string(inner_bytes) +
           " bytes must be at most the swizzle span of " + std::to_string(swizzle_bytes(s.swizzle)) +
           " bytes (swizzle " + to_string(s.swizzle) + ")");

  for (std::size_t i = 0; i < s.element_strides.size(); ++i)
    if (s.element_strides[i] < 1 || s.element_strides[i] > 8)
      reject("element_strides[" + std::to_string(i) + "] = " + std::to_string(s.element_strides[i]) +
             " must be in [1, 8]");

  if (s.interleave == TensorMapInterleave::B32 && s.swizzle != TensorMapSwizzle::B32)
    reject("interleave 32B requires swizzle 32B, got swizzle " + to_string(s.swizzle));
  if (s.oob_fill == TensorMapOobFill::NanRequestZeroFma && !is_float(s.type))
    reject("oob fill nan_request_zero_fma needs a floating-point type, got " + type_name());
}

void validate_tensor_map(const TensorMapSpec& s, DevicePtr address) {
  validate_tensor_map(s);
  const DevicePtr align = s.interleave == TensorMapInterleave::B32 ? 32 : 16;
  if (address == 0) reject("the global address is null");
  if (address % align != 0)
    reject("global address " + hex(address) + " must be " + std::to_string(align) + "-byte aligned" +
           (align == 32 ? " (interleave 32B)" : ""));
}

TensorMap encode_tensor_map(const TensorMapSpec& s, DevicePtr address) {
  validate_tensor_map(s, address);
  const cu::DriverApi& d = detail::api();
  const std::size_t rank = s.dims.size();
  const std::uint64_t esize = static_cast<std::uint64_t>(element_bytes(s.type));
  cu::cuuint64_t dims[5] = {}, strides[4] = {};
  cu::cuuint32_t box[5] = {}, element_strides[5] = {};
  for (std::size_t i = 0; i < rank; ++i) {
    dims[i] = static_cast<cu::cuuint64_t>(s.dims[i]);
    box[i] = static_cast<cu::cuuint32_t>(s.box[i]);
    element_strides[i] = s.element_strides.empty() ? 1u : static_cast<cu::cuuint32_t>(s.element_strides[i]);
    if (i > 0) strides[i - 1] = static_cast<cu::cuuint64_t>(s.strides[i]) * esize;  // bytes, dims 1..rank-1
  }
  cu::CUtensorMap map{};
  const cu::CUresult r =
      d.cuTensorMapEncodeTiled(&map, static_cast<cu::CUtensorMapDataType>(s.type), static_cast<cu::cuuint32_t>(rank),
                               reinterpret_cast<void*>(address), dims, strides, box, element_strides,
                               static_cast<cu::CUtensorMapInterleave>(s.interleave),
                               static_cast<cu::CUtensorMapSwizzle>(s.swizzle),
                               static_cast<cu::CUtensorMapL2promotion>(s.l2_promotion),
                               static_cast<cu::CUtensorMapFloatOOBfill>(s.oob_fill));
  if (r != cu::CUDA_SUCCESS) detail::throw_driver_error(d, r, "cuTensorMapEncodeTiled", to_string(s) + " at " + hex(address));
  TensorMap out;
  static_assert(sizeof(out.words) == sizeof(map.opaque));
  std::memcpy(out.words.data(), map.opaque, sizeof(map.opaque));
  return out;
}

}  // namespace tessel::rt
