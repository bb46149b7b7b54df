// tensor_map_cache_test.cpp: the one-call GEMM's TMA descriptor cache (encode_tensor_map_cached)
// on the stand-in driver, whose descriptors hold every argument of cuTensorMapEncodeTiled: what the
// cache returns is what the driver encodes for that spec and address, a spec or address that differs
// in any one field gets its own descriptor (a field left out of the cache's key would return the
// first one's), and a spec the driver cannot take is refused as encode_tensor_map refuses it.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "algebra/support.hpp"
#include "stand_in.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/tma.hpp"
#include "tessel/runtime.hpp"

using namespace tessel;
using rt::TensorMapSpec;
using test::StandIn;

namespace {

bool same_bytes(const rt::TensorMap& a, const rt::TensorMap& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A random spec of rank 1 to 5 that the rules accept: 16-byte multiples of strides, boxes of at
// most 256 and 128 bytes inside (what every swizzle takes).
TensorMapSpec random_spec(std::mt19937_64& rng) {
  for (;;) {
    TensorMapSpec s;
    s.type = test::pick(rng, {0, 1}) ? rt::TensorMapDataType::BF16 : rt::TensorMapDataType::F32;
    const int64_t eb = rt::element_bytes(s.type), rank = test::uniform(rng, 1, 5);
    int64_t stride = 1;
    for (int64_t i = 0; i < rank; ++i) {
      s.dims.push_back(test::uniform(rng, 1, 300));
      s.strides.push_back(stride);
      stride = (stride * s.dims.back() * eb + 15) / 16 * 16 / eb + 16 / eb * test::uniform(rng, 0, 2);
      s.box.push_back(i == 0 ? 128 / eb / test::pick(rng, {1, 2, 4}) : test::uniform(rng, 1, 8));
    }
    s.swizzle = test::pick(rng, {0, 1}) ? rt::TensorMapSwizzle::B128 : rt::TensorMapSwizzle::None;
    s.l2_promotion = static_cast<rt::TensorMapL2Promotion>(test::uniform(rng, 0, 3));
    if (test::pick(rng, {0, 1})) s.element_strides.assign(static_cast<size_t>(rank), 1);
    try {
      rt::validate_tensor_map(s, 1 << 20);
      return s;
    } catch (const Error&) {
    }
  }
}

}  // namespace

TEST_CASE("host path: the TMA descriptor cache returns the driver's encoding, one per spec and address") {
  StandIn::get();
  TESSEL_RNG(rng);
  rt::DeviceBuffer buffer(1 << 22);
  int varied = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const TensorMapSpec s = random_spec(rng);
    const uint64_t address = buffer.ptr() + 16 * static_cast<uint64_t>(test::uniform(rng, 0, 1 << 12));
    INFO(rt::to_string(s) << " at +" << (address - buffer.ptr()));
    const rt::TensorMap first = kernels::encode_tensor_map_cached(s, address);
    CHECK(same_bytes(first, rt::encode_tensor_map(s, address)));
    CHECK(same_bytes(kernels::encode_tensor_map_cached(s, address), first));  // a hit
    // One field at a time: the cache must tell each apart.
    const std::vector<std::function<bool(TensorMapSpec&, uint64_t&)>> changes = {
        [](TensorMapSpec&, uint64_t& a) { return (a += 16), true; },
        [](TensorMapSpec& v, uint64_t&) {
          v.type = v.type == rt::TensorMapDataType::BF16 ? rt::TensorMapDataType::F16 : rt::TensorMapDataType::F32Ftz;
          return true;
        },
        [](TensorMapSpec& v, uint64_t&) { return ++v.dims.back(), true; },
        [](TensorMapSpec& v, uint64_t&) { return v.strides.size() > 1 && ((v.strides.back() += 16), true); },
        [](TensorMapSpec& v, uint64_t&) { return v.box.size() > 1 && v.box.back() < 8 && (++v.box.back(), true); },
        [](TensorMapSpec& v, uint64_t&) {
          v.swizzle = v.swizzle == rt::TensorMapSwizzle::None ? rt::TensorMapSwizzle::B128 : rt::TensorMapSwizzle::None;
          return true;
        },
        [](TensorMapSpec& v, uint64_t&) {
          v.l2_promotion = static_cast<rt::TensorMapL2Promotion>((static_cast<int>(v.l2_promotion) + 1) % 4);
          return true;
        },
        [](TensorMapSpec& v, uint64_t&) { return (v.oob_fill = rt::TensorMapOobFill::NanRequestZeroFma), true; },
        [](TensorMapSpec& v, uint64_t&) {
          if (v.element_strides.empty()) v.element_strides.assign(v.dims.size(), 1);
          return v.element_strides.back() < 8 && (++v.element_strides.back(), true);
        },
    };
    for (size_t c = 0; c < changes.size(); ++c) {
      TensorMapSpec v = s;
      uint64_t a = address;
      if (!changes[c](v, a)) continue;
      try {
        rt::validate_tensor_map(v, a);
      } catch (const Error&) {
        continue;  // a change the rules refuse (a box past a dimension): nothing to encode
      }
      INFO("change " << c << ": " << rt::to_string(v) << " at +" << (a - buffer.ptr()));
      const rt::TensorMap other = kernels::encode_tensor_map_cached(v, a);
      CHECK(same_bytes(other, rt::encode_tensor_map(v, a)));
      CHECK(!same_bytes(other, first));
      ++varied;
    }
  }
  CHECK(varied > 1000);
}

TEST_CASE("host path: the TMA descriptor cache refuses what encode_tensor_map refuses") {
  StandIn::get();
  rt::DeviceBuffer buffer(1 << 20);
  TensorMapSpec s;
  s.type = rt::TensorMapDataType::BF16;
  s.dims = {64, 2, 2, 2, 2, 2};  // rank 6: the TMA takes 1 to 5
  s.strides = {1, 64, 128, 256, 512, 1024};
  s.box = {64, 1, 1, 1, 1, 1};
  std::string uncached, cached;
  try {
    rt::encode_tensor_map(s, buffer.ptr());
  } catch (const Error& e) {
    uncached = e.what();
  }
  try {
    kernels::encode_tensor_map_cached(s, buffer.ptr());
  } catch (const Error& e) {
    cached = e.what();
  }
  CHECK(!uncached.empty());
  CHECK(cached == uncached);
}
