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
  rejects(s, "tensor map: box[0] = 4 bf16 elements = 8 bytes must be a multiple of 16 bytes (without interleave)");
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

  // The documented byte rules of box[0] hold only without interleave.
  s = interleaved();
  s.box[0] = 4;
  s.swizzle = TensorMapSwizzle::B32;
  CHECK_NOTHROW(rt::validate_tensor_map(s));

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

namespace {

// Byte offset `o` of a tile in shared memory after the TMA swizzle of `span` bytes: Sw<B,4,3>
// on byte offsets with B = log2(span / 16), i.e. 16-byte chunk bits [4, 4+B) ^= bits [7, 7+B).
std::size_t swizzled(std::size_t o, int span) {
  if (span == 0) return o;
  std::size_t mask = static_cast<std::size_t>(span / 16 - 1);
  return o ^ (((o >> 7) & mask) << 4);
}

}  // namespace

// TMA loads of a padded, ragged bf16 matrix, with boxes that cross its edges (zero fill), in
// each swizzle mode: the tile in shared memory must be the box, swizzled as documented.
TEST_CASE("runtime: a TMA load through an encoded tensor map lands the swizzled box in shared memory") {
  TESSEL_REQUIRE_GPU(90);
  auto rng = tessel::test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  const std::int64_t width = 200, height = 100, pitch = 208;  // elements; 416-byte rows
  std::vector<std::uint16_t> host(static_cast<std::size_t>(pitch * height));
  for (auto& v : host) v = static_cast<std::uint16_t>(rng());  // any bits: TMA copies bytes
  rt::DeviceBuffer matrix = rt::DeviceBuffer::from(host);
  rt::Function fn = rt::Module::load_ptx(tessel::test::kTmaBoxPtx).function("tessel_test_tma_box");

  struct Case {
    TensorMapSwizzle swizzle;
    int span;
    std::int64_t box0;
  };
  for (Case c : {Case{TensorMapSwizzle::None, 0, 64}, Case{TensorMapSwizzle::B32, 32, 16},
                 Case{TensorMapSwizzle::B64, 64, 32}, Case{TensorMapSwizzle::B128, 128, 64}}) {
    TensorMapSpec s;
    s.type = TensorMapDataType::BF16;
    s.dims = {width, height};
    s.strides = {1, pitch};
    s.box = {c.box0, 16};
    s.swizzle = c.swizzle;
    rt::TensorMap map = rt::encode_tensor_map(s, matrix.ptr());
    const std::uint32_t bytes = static_cast<std::uint32_t>(c.box0 * 16 * 2);
    for (int trial = 0; trial < 4; ++trial) {
      // Corners from fully inside to past the right and bottom edges, and negative.
      const auto x0 = static_cast<std::int32_t>(std::uniform_int_distribution<int>(-8, 190)(rng));
      const auto y0 = static_cast<std::int32_t>(std::uniform_int_distribution<int>(-4, 95)(rng));
      INFO("swizzle " << rt::to_string(c.swizzle) << " box at (" << x0 << "," << y0 << ")");
      rt::DeviceBuffer out(bytes);
      out.fill(0xFF);
      rt::LaunchConfig config;
      config.block = {128, 1, 1};
      rt::launch(fn, config, rt::ArgPack(map, out.ptr(), x0, y0, bytes));
      std::vector<std::uint8_t> got = out.to_vector<std::uint8_t>();

      std::vector<std::uint8_t> want(bytes);
      for (std::int64_t r = 0; r < 16; ++r)
        for (std::int64_t col = 0; col < c.box0; ++col) {
          std::int64_t x = x0 + col, y = y0 + r;
          std::uint16_t v = (x >= 0 && x < width && y >= 0 && y < height) ? host[y * pitch + x] : 0;
          std::size_t o = swizzled(static_cast<std::size_t>((r * c.box0 + col) * 2), c.span);
          std::memcpy(&want[o], &v, 2);
        }
      CHECK(got == want);
    }
  }
}
