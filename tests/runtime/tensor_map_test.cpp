// tensor_map_test.cpp: the documented rules of TMA descriptors (on the CPU), and descriptors
// the driver encodes and a TMA load uses (on a GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu.hpp"
#include "kernels.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;
using rt::TensorMapDataType;
using rt::TensorMapInterleave;
using rt::TensorMapSpec;
using rt::TensorMapSwizzle;

namespace {

// A 4096 x 4096 row-major bf16 matrix read in 64 x 64 boxes through the 128-byte swizzle: the
// usual A or B operand of a Hopper GEMM.
TensorMapSpec bf16_matrix() {
  TensorMapSpec s;
  s.type = TensorMapDataType::BF16;
  s.dims = {4096, 4096};
  s.strides = {1, 4096};
  s.box = {64, 64};
  s.swizzle = TensorMapSwizzle::B128;
  return s;
}

// A rank-4 NC/8HWC8-like f16 tensor with 16-byte interleave.
TensorMapSpec interleaved() {
  TensorMapSpec s;
  s.type = TensorMapDataType::F16;
  s.dims = {8, 32, 32, 4};
  s.strides = {1, 8, 8 * 32, 8 * 32 * 32};
  s.box = {8, 8, 8, 1};
  s.interleave = TensorMapInterleave::B16;
  return s;
}

void rejects(const TensorMapSpec& s, const std::string& message) {
  INFO(rt::to_string(s));
  CHECK_THROWS_WITH_AS(rt::validate_tensor_map(s), message.c_str(), tessel::Error);
}

}  // namespace

TEST_CASE("runtime: validate_tensor_map accepts what the driver documents as valid") {
  CHECK_NOTHROW(rt::validate_tensor_map(bf16_matrix()));
  CHECK_NOTHROW(rt::validate_tensor_map(bf16_matrix(), 0x7f0000000000));
  CHECK_NOTHROW(rt::validate_tensor_map(interleaved()));

  TensorMapSpec s;  // rank 1, f32, 4 elements = 16 bytes
  s.dims = {1000};
  s.strides = {1};
  s.box = {4};
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  s = bf16_matrix();  // every swizzle at its full span, the extreme extents
  s.swizzle = TensorMapSwizzle::B64;
  s.box = {32, 256};
  s.dims = {std::int64_t{1} << 32, 1};
  CHECK_NOTHROW(rt::validate_tensor_map(s));
  s.swizzle = TensorMapSwizzle::B32;
  s.box = {16, 1};
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  s = TensorMapSpec{};  // rank 5 with element strides and a stride just below 2^40 bytes
  s.type = TensorMapDataType::F32;
  s.dims = {64, 2, 2, 2, 2};
  s.strides = {1, 64, 128, 256, (std::int64_t{1} << 38) - 4};
  s.box = {32, 2, 2, 2, 2};
  s.element_strides = {1, 2, 8, 1, 1};
  s.oob_fill = rt::TensorMapOobFill::NanRequestZeroFma;
  s.l2_promotion = rt::TensorMapL2Promotion::B256;
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  s = interleaved();  // 32-byte interleave: 32-byte strides and address, swizzle 32B
  s.interleave = TensorMapInterleave::B32;
  s.swizzle = TensorMapSwizzle::B32;
  s.dims = {16, 32, 32, 4};
  s.strides = {1, 16, 16 * 32, 16 * 32 * 32};
  CHECK_NOTHROW(rt::validate_tensor_map(s, 0x10020));
}

TEST_CASE("runtime: validate_tensor_map rejects rank and length mismatches") {
  TensorMapSpec s = bf16_matrix();
  s.dims = {};
  s.strides = {};
  s.box = {};
  rejects(s, "tensor map: rank 0 must be in [1, 5]");
  s.dims = s.strides = s.box = {16, 1, 1, 1, 1, 1};
  s.strides[0] = 1;
  rejects(s, "tensor map: rank 6 must be in [1, 5]");

  s = bf16_matrix();
  s.strides = {1};
  rejects(s, "tensor map: strides (1) has 1 entries for rank 2 (dims (4096,4096))");
  s = bf16_matrix();
  s.box = {64, 64, 1};
  rejects(s, "tensor map: box (64,64,1) has 3 entries for rank 2 (dims (4096,4096))");
  s = bf16_matrix();
  s.element_strides = {1};
  rejects(s, "tensor map: element_strides (1) has 1 entries for rank 2 (dims (4096,4096))");

  s = interleaved();
  s.dims = {8, 32};
  s.strides = {1, 8};
  s.box = {8, 8};
  rejects(s, "tensor map: interleave 16B needs rank >= 3, got rank 2");
}

TEST_CASE("runtime: validate_tensor_map rejects global extents and strides out of range") {
  TensorMapSpec s = bf16_matrix();
  s.dims[1] = 0;
  rejects(s, "tensor map: dims[1] = 0 must be in [1, 2^32]");
  s.dims[1] = (std::int64_t{1} << 32) + 1;
  rejects(s, "tensor map: dims[1] = 4294967297 must be in [1, 2^32]");

  s = bf16_matrix();
  s.strides[0] = 2;
  rejects(s,
          "tensor map: strides[0] = 2 must be 1 (dimension 0 is the contiguous one; the driver has no stride for it)");
  s = bf16_matrix();
  s.strides[1] = 0;
  rejects(s, "tensor map: strides[1] = 0 must be positive");
  s.strides[1] = -4096;
  rejects(s, "tensor map: strides[1] = -4096 must be positive");
  s.strides[1] = 4100;
  rejects(s, "tensor map: strides[1] = 4100 bf16 elements = 8200 bytes must be a multiple of 16 bytes");
  s.type = TensorMapDataType::F32;
  s.box = {32, 64};
  s.strides[1] = std::int64_t{1} << 38;
  rejects(s, "tensor map: strides[1] = 274877906944 f32 elements must be less than 2^40 bytes");

  s = interleaved();
  s.interleave = TensorMapInterleave::B32;
  s.swizzle = TensorMapSwizzle::B32;
  rejects(s, "tensor map: strides[1] = 8 f16 elements = 16 bytes must be a multiple of 32 bytes (interleave 32B)");
}

TEST_CASE("runtime: validate_tensor_map rejects boxes the driver cannot move") {
  TensorMapSpec s = bf16_matrix();
  s.box[1] = 0;
  rejects(s, "tensor map: box[1] = 0 must be in [1, 256]");
  s.box[1] = 257;
  rejects(s, "tensor map: box[1] = 257 must be in [1, 256]");

  s = bf16_matrix();
  s.swizzle = TensorMapSwizzle::None;
  s.box[0] = 4;
  rejects(s, "tensor map: box[0] = 4 bf16 elements = 8 bytes must be a multiple of 16 bytes");
  s.box[0] = 256;  // fine without a swizzle
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  s.swizzle = TensorMapSwizzle::B128;
  s.box[0] = 128;
  rejects(s,
          "tensor map: box[0] = 128 bf16 elements = 256 bytes must be at most the swizzle span of 128 bytes (swizzle "
          "128B)");
  s.swizzle = TensorMapSwizzle::B64;
  s.box[0] = 40;
  rejects(
      s, "tensor map: box[0] = 40 bf16 elements = 80 bytes must be at most the swizzle span of 64 bytes (swizzle 64B)");
  s.type = TensorMapDataType::F32;
  s.swizzle = TensorMapSwizzle::B32;
  s.box[0] = 12;
  s.strides[1] = 4096;
  rejects(s,
          "tensor map: box[0] = 12 f32 elements = 48 bytes must be at most the swizzle span of 32 bytes (swizzle 32B)");

  // With interleave too (the driver refused 2- and 8-byte inner boxes with 16B interleave on an
  // H200), while the swizzle-span rule is for non-interleaved maps only.
  s = interleaved();
  s.box[0] = 4;
  rejects(s, "tensor map: box[0] = 4 f16 elements = 8 bytes must be a multiple of 16 bytes");
  s.box[0] = 32;
  s.swizzle = TensorMapSwizzle::B32;
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  // A box is at most 228 KiB (the driver encoded 228 KiB and refused 232 KiB on an H200).
  s = bf16_matrix();
  s.swizzle = TensorMapSwizzle::None;
  s.dims = {4096, 4096, 4};
  s.strides = {1, 4096, 4096 * 4096};
  s.box = {192, 152, 4};  // 228 KiB
  CHECK_NOTHROW(rt::validate_tensor_map(s));
  s.box = {192, 160, 4};
  rejects(
      s, "tensor map: box (192,160,4) of bf16 is 245760 bytes, more than 233472 (228 KiB, the shared memory of an SM)");

  s = bf16_matrix();
  s.element_strides = {1, 9};
  rejects(s, "tensor map: element_strides[1] = 9 must be in [1, 8]");
  s.element_strides = {0, 1};
  rejects(s, "tensor map: element_strides[0] = 0 must be in [1, 8]");
}

TEST_CASE("runtime: validate_tensor_map rejects option combinations and bad addresses") {
  TensorMapSpec s = interleaved();
  s.interleave = TensorMapInterleave::B32;
  s.dims = {16, 32, 32, 4};
  s.strides = {1, 16, 16 * 32, 16 * 32 * 32};
  s.swizzle = TensorMapSwizzle::B64;
  rejects(s, "tensor map: interleave 32B requires swizzle 32B, got swizzle 64B");

  s = bf16_matrix();
  s.type = TensorMapDataType::U16;
  s.oob_fill = rt::TensorMapOobFill::NanRequestZeroFma;
  rejects(s, "tensor map: oob fill nan_request_zero_fma needs a floating-point type, got u16");
  s.type = TensorMapDataType::TF32;
  s.box[0] = 32;
  s.strides[1] = 4096;
  CHECK_NOTHROW(rt::validate_tensor_map(s));

  s = bf16_matrix();
  CHECK_THROWS_WITH_AS(rt::validate_tensor_map(s, 0), "tensor map: the global address is null", tessel::Error);
  CHECK_THROWS_WITH_AS(rt::validate_tensor_map(s, 0x7f0000001008),
                       "tensor map: global address 0x7f0000001008 must be 16-byte aligned", tessel::Error);
  s = interleaved();
  s.interleave = TensorMapInterleave::B32;
  s.swizzle = TensorMapSwizzle::B32;
  s.dims = {16, 32, 32, 4};
  s.strides = {1, 16, 16 * 32, 16 * 32 * 32};
  CHECK_THROWS_WITH_AS(rt::validate_tensor_map(s, 0x10010),
                       "tensor map: global address 0x10010 must be 32-byte aligned (interleave 32B)", tessel::Error);

  s = bf16_matrix();
  s.swizzle = static_cast<TensorMapSwizzle>(7);
  rejects(s, "tensor map: swizzle 7 is not a valid value");
  s = bf16_matrix();
  s.type = static_cast<TensorMapDataType>(13);  // CUDA 12.8's packed types are not supported
  rejects(s, "tensor map: data type 13 is not a valid value");
}

TEST_CASE("runtime: TensorMapSpec prints every field") {
  TensorMapSpec s = bf16_matrix();
  CHECK(rt::to_string(s) ==
        "bf16 dims (4096,4096) strides (1,4096) box (64,64) interleave none swizzle 128B l2_promotion none oob_fill "
        "none");
  CHECK(rt::element_bytes(TensorMapDataType::F64) == 8);
  CHECK(rt::element_bytes(TensorMapDataType::TF32Ftz) == 4);
  CHECK(rt::to_string(TensorMapDataType::F32Ftz) == "f32_ftz");
}

// --- GPU ------------------------------------------------------------------------------------

TEST_CASE("runtime: a valid 2-D bf16 tensor map encodes") {
  TESSEL_REQUIRE_GPU(90);
  rt::DeviceBuffer buffer(4096 * 4096 * 2);
  rt::TensorMap map = rt::encode_tensor_map(bf16_matrix(), buffer.ptr());
  bool nonzero = false;
  for (std::uint64_t w : map.words) nonzero |= w != 0;
  CHECK(nonzero);
}

// Random specs around the limits: the driver must encode every one that validate_tensor_map
// accepts (a failure here is a rule the driver enforces that tessel does not check yet).
TEST_CASE("runtime: the driver encodes every random tensor map that validate_tensor_map accepts") {
  TESSEL_REQUIRE_GPU(90);
  auto rng = tessel::test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  rt::DeviceBuffer buffer(1 << 20);  // the descriptor is never used: only its address matters
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    TensorMapSpec s;
    s.type = static_cast<TensorMapDataType>(pick(0, 12));
    s.interleave = static_cast<TensorMapInterleave>(pick(0, 5) == 0 ? pick(1, 2) : 0);
    s.swizzle = static_cast<TensorMapSwizzle>(pick(0, 3));
    s.l2_promotion = static_cast<rt::TensorMapL2Promotion>(pick(0, 3));
    s.oob_fill = static_cast<rt::TensorMapOobFill>(pick(0, 1));
    const std::int64_t rank = pick(1, 5), esize = rt::element_bytes(s.type);
    std::int64_t stride = 1;
    for (std::int64_t i = 0; i < rank; ++i) {
      s.dims.push_back(pick(0, 6) == 0 ? pick(1, std::int64_t{1} << 32) : pick(1, 300));
      s.strides.push_back(stride);
      // The next stride: the extent so far rounded up to 16 or 32 bytes, sometimes padded, sometimes not rounded.
      // (Saturated at 2^44 bytes, past the 2^40 limit, so that the arithmetic cannot overflow.)
      const std::int64_t cap = std::int64_t{1} << 44;
      std::int64_t bytes = s.dims.back() > cap / (stride * esize) ? cap : stride * s.dims.back() * esize;
      std::int64_t align = pick(0, 1) ? 16 : 32;
      if (pick(0, 9) != 0) bytes = (bytes + align - 1) / align * align + align * pick(0, 2);
      stride = std::clamp<std::int64_t>(bytes / esize, 1, cap);
      s.box.push_back(pick(0, 9) == 0 ? pick(0, 300) : (std::int64_t{1} << pick(0, 8)));
      if (pick(0, 3) == 0) s.element_strides.push_back(pick(0, 4) == 0 ? pick(0, 9) : pick(1, 8));
    }
    if (!s.element_strides.empty()) s.element_strides.resize(rank, 1);
    const rt::DevicePtr address = buffer.ptr() + 16 * pick(0, 3);
    try {
      rt::validate_tensor_map(s, address);
    } catch (const tessel::Error&) {
      ++rejected;
      continue;
    }
    ++accepted;
    INFO(rt::to_string(s) << " at +" << (address - buffer.ptr()));
    CHECK_NOTHROW(rt::encode_tensor_map(s, address));
  }
  MESSAGE(accepted << " random tensor maps accepted and encoded, " << rejected << " rejected by tessel");
  CHECK(accepted > 100);
}

// TMA loads through encoded tensor maps are tested with codegen's tma_tile kernel
// (tests/kernels/demos_gpu_test.cpp), in every swizzle mode and with ragged edges.
