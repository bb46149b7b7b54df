// swizzle_test.cpp: Sw<B,M,S> and composed layouts.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("swizzle: an involution that keeps the low M bits, a bijection on each 2^(B+M+S) block") {
  for (int b = 0; b <= 3; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s = std::max(b, 1); s <= 4; ++s) {
        Swizzle sw(b, m, s);
        INFO(to_string(sw));
        int64_t block = int64_t{1} << (b + m + s);
        std::set<int64_t> image;
        for (int64_t x = 0; x < 2 * block; ++x) {
          int64_t y = sw(Int(x)).value();
          CHECK(sw(Int(y)).value() == x);                                         // f o f = identity
          CHECK((y & ((int64_t{1} << m) - 1)) == (x & ((int64_t{1} << m) - 1)));  // low M bits kept
          CHECK(y / block == x / block);                                          // stays in its block
          image.insert(y);
        }
        CHECK(static_cast<int64_t>(image.size()) == 2 * block);
      }
}

TEST_CASE("swizzle: the 128-byte swizzle moves 16-byte chunks of row r to chunk ^ r") {
  // In bytes: Sw<3,4,3> over rows of 128 bytes. In bf16 elements: Sw<3,3,3> over rows of 64.
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t chunk = 0; chunk < 8; ++chunk) {
      CHECK(Swizzle(3, 4, 3)(Int(128 * r + 16 * chunk)).value() == 128 * r + 16 * (chunk ^ r));
      CHECK(Swizzle(3, 3, 3)(Int(64 * r + 8 * chunk)).value() == 64 * r + 8 * (chunk ^ r));
    }
}

TEST_CASE("swizzle: symbolic offsets evaluate to the static swizzle") {
  TESSEL_RNG(rng);
  Int k = Int::symbol("K", 8);
  Swizzle sw(3, 3, 3);
  Int f = sw(k * 64 + 8);
  for (int i = 0; i < 200; ++i) {
    int64_t kv = 8 * uniform(rng, 1, 1000);
    CHECK(evaluate(f, {{"K", kv}}) == sw(Int(kv * 64 + 8)).value());
  }
}

TEST_CASE("swizzle: composed layouts, tile_to_shape and slicing") {
  ComposedLayout atom = composition(Swizzle(3, 4, 3), parse_layout("(8,64):(64,1)"));
  CHECK(to_string(atom) == "Sw<3,4,3> o 0 o (8,64):(64,1)");
  ComposedLayout smem = tile_to_shape(atom, Shape{128, 64, 3});
  CHECK(to_string(smem) == "Sw<3,4,3> o 0 o (128,64,3):(64,1,8192)");
  for (int64_t i = 0; i < size(smem).value(); i += 97) {
    Int inner = smem.layout(Int(i)).leaf();
    CHECK(at(smem, i) == Swizzle(3, 4, 3)(inner).value());
  }
  // Stage 2 of the pipeline: the slice keeps the swizzle outermost, the stage offset inside it.
  ComposedLayout stage = slice(SliceCoord{_, _, 2}, smem);
  CHECK(stage.offset.value() == 2 * 8192);
  for (int64_t m = 0; m < 128; m += 7)
    for (int64_t n = 0; n < 64; n += 5) CHECK(stage(Coord{m, n}) == smem(Coord{m, n, 2}));
  CHECK_THROWS_WITH_AS(Swizzle(3, 4, 2), doctest::Contains("|S| >= B"), Error);
}
