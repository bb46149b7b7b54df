// fp8_test.cpp: the fp8 host converters of the GEMM benchmark (tools/bench/fp8.hpp): every
// encoding decoded and encoded back, values taken from the OCP FP8 definition, and rounding of
// random floats against a reference derived independently (the nearest of all 256 decoded
// values, ties to the even encoding, saturating at the largest finite value).
#include "fp8.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/gpu.hpp"  // gpu_seed(): a fresh seed per run, TESSEL_SEED=N to reproduce

using namespace tessel::bench;

namespace {

struct Fp8 {
  const char* name;
  float (*decode)(uint8_t);
  uint8_t (*encode)(float);
  float max;
};

const Fp8 kFormats[] = {{"e4m3", e4m3_to_float, float_to_e4m3, kE4m3Max},
                        {"e5m2", e5m2_to_float, float_to_e5m2, kE5m2Max}};

// The reference: the finite encoding nearest to x, by search over every encoding; a tie goes to
// the encoding whose lowest bit is 0 (the even mantissa); past the largest finite value (and for
// infinities) the largest finite value with x's sign.
uint8_t reference_encode(const Fp8& f, float x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(x));
  if (a >= f.max) return sign | f.encode(f.max);
  int best = -1;
  double best_d = 0;
  for (int c = 0; c < 0x80; ++c) {
    const double v = f.decode(static_cast<uint8_t>(c));
    if (!std::isfinite(v)) continue;
    const double d = std::fabs(v - a);
    if (best < 0 || d < best_d || (d == best_d && (c & 1) == 0)) {
      best = c;
      best_d = d;
    }
  }
  return sign | static_cast<uint8_t>(best);
}

}  // namespace

TEST_CASE("fp8: values from the OCP FP8 definition") {
  CHECK(e4m3_to_float(0x38) == 1.0f);
  CHECK(e4m3_to_float(0xb8) == -1.0f);
  CHECK(e4m3_to_float(0x7e) == 448.0f);
  CHECK(e4m3_to_float(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  CHECK(e4m3_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(e4m3_to_float(0x07) == 7 * std::ldexp(1.0f, -9));
  CHECK(e4m3_to_float(0x3c) == 1.5f);
  CHECK(std::isnan(e4m3_to_float(0x7f)));
  CHECK(std::isnan(e4m3_to_float(0xff)));
  CHECK(e4m3_to_float(0x78) == 256.0f);  // e = 15 is a normal exponent in e4m3 (no infinity)
  CHECK(e5m2_to_float(0x3c) == 1.0f);
  CHECK(e5m2_to_float(0x7b) == 57344.0f);
  CHECK(e5m2_to_float(0x04) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(e5m2_to_float(0x01) == std::ldexp(1.0f, -16));  // smallest subnormal
  CHECK(e5m2_to_float(0x7c) == INFINITY);
  CHECK(e5m2_to_float(0xfc) == -INFINITY);
  CHECK(std::isnan(e5m2_to_float(0x7d)));
  CHECK(std::isnan(e5m2_to_float(0x7e)));
  CHECK(std::isnan(e5m2_to_float(0xff)));
  CHECK(std::signbit(e4m3_to_float(0x80)));
  CHECK(e4m3_to_float(0x80) == 0.0f);
}

TEST_CASE("fp8: every encoding decodes and encodes back to itself") {
  for (const Fp8& f : kFormats) {
    INFO(f.name);
    float previous = -1;
    for (int c = 0; c < 256; ++c) {
      const uint8_t bits = static_cast<uint8_t>(c);
      const float v = f.decode(bits);
      INFO("encoding 0x" << std::hex << c);
      if (std::isnan(v)) {
        CHECK(std::isnan(f.decode(f.encode(v))));
        CHECK((f.encode(v) & 0x7f) == 0x7f);
      } else if (std::isinf(v)) {
        // satfinite: an infinity becomes the largest finite value
        CHECK(f.encode(v) == ((c & 0x80) | f.encode(f.max)));
      } else {
        CHECK(f.encode(v) == bits);
        // The positive encodings are ordered like their values.
        if (c < 0x80) {
          CHECK(v > previous);
          previous = v;
        }
      }
    }
  }
}

TEST_CASE("fp8: rounding to nearest even and saturation, against a search over all encodings") {
  const uint64_t seed = tessel::test::gpu_seed();
  INFO("reproduce with TESSEL_SEED=" << seed);
  std::mt19937_64 rng(seed);
  for (const Fp8& f : kFormats) {
    INFO(f.name);
    std::vector<float> xs;
    // Every midpoint between neighbouring encodings (ties), and just either side of it.
    for (int c = 0; c + 1 < 0x80; ++c) {
      const double lo = f.decode(static_cast<uint8_t>(c)), hi = f.decode(static_cast<uint8_t>(c + 1));
      if (!std::isfinite(hi)) break;
      const float mid = static_cast<float>((lo + hi) / 2);
      xs.push_back(mid);
      xs.push_back(std::nextafter(mid, 0.0f));
      xs.push_back(std::nextafter(mid, INFINITY));
    }
    // Random magnitudes over the whole range and past it, both signs.
    const int lowest = f.max == kE4m3Max ? -12 : -19, highest = f.max == kE4m3Max ? 11 : 18;
    std::uniform_int_distribution<int> exponent(lowest, highest);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    for (int i = 0; i < 20000; ++i) xs.push_back(std::ldexp(mantissa(rng), exponent(rng)));
    xs.insert(xs.end(), {0.0f, f.max, f.max * 1.03f, f.max * 2, 1e30f, INFINITY, std::ldexp(1.0f, -40)});
    for (float x : xs) {
      for (float s : {x, -x}) {
        INFO("x = " << s);
        CHECK(f.encode(s) == reference_encode(f, s));
      }
    }
  }
}

TEST_CASE("fp8: the benchmark's inputs are exact") {
  // tessel bench gemm draws fp8 inputs as multiples of 1/8 (e4m3) or 1/4 (e5m2) in [-2, 2]: every
  // one must be representable, so that tessel and cuBLAS see the same values and f32 sums of their
  // products are exact.
  for (int k = -16; k <= 16; ++k) CHECK(e4m3_to_float(float_to_e4m3(k / 8.0f)) == k / 8.0f);
  for (int k = -8; k <= 8; ++k) CHECK(e5m2_to_float(float_to_e5m2(k / 4.0f)) == k / 4.0f);
}
