// layout_tv_test.cpp: make_layout_tv and tile_to_shape.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

// A compact layout of a random 2-D shape with a random mode order.
Layout random_compact_2d(std::mt19937_64& rng) {
  Shape s{Int(pick(rng, {1, 2, 3, 4, 8, 16})), Int(pick(rng, {1, 2, 4, 6}))};
  IntTuple order = uniform(rng, 0, 1) ? IntTuple{0, 1} : IntTuple{1, 0};
  return make_ordered_layout(s, order);
}

}  // namespace

TEST_CASE("layout_tv: post-conditions on random thread and value layouts") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 2000; ++i) {
    Layout thr = random_compact_2d(rng), val = random_compact_2d(rng);
    INFO("make_layout_tv(" << to_string(thr) << "," << to_string(val) << ")");
    TVLayout tv = make_layout_tv(thr, val);
    INFO("=> " << to_string(tv));
    Layout mn = raked_product(thr, val);
    CHECK(tv.tiler == product_each(mn.shape()));                                                 // (1)
    for (int64_t k = 0; k < size(tv.layout).value(); ++k) CHECK(at(mn, at(tv.layout, k)) == k);  // (2)
    CHECK(size(tv.layout) == size(thr) * size(val));                                             // (3)
    // Every element of the tile is owned by exactly one (thread, value).
    CHECK(injective(tv.layout));
  }
}

TEST_CASE("layout_tv: the CuTe DSL elementwise_add TV layout") {
  // thr (4,32):(32,1) row-major over 4x32 threads, val (4,4):(4,1): each thread reads a 4x4 block
  // whose rows are 4 contiguous elements of a row-major tile.
  TVLayout tv = make_layout_tv(parse_layout("(4,32):(32,1)"), parse_layout("(4,4):(4,1)"));
  CHECK(to_string(tv.tiler) == "(16,128)");
  // Thread 0's values 0..3 run along N (the contiguous mode): tile indices 0, 16, 32, 48.
  for (int64_t v = 0; v < 4; ++v) CHECK(tv.layout(Coord{0, v}).leaf().value() == v * 16);
}

TEST_CASE("tile_to_shape: post-conditions") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 2000; ++i) {
    Layout block = random_compact_2d(rng);
    Shape target{size(block[0]) * Int(pick(rng, {1, 2, 3})), size(block[1]) * Int(pick(rng, {1, 2, 4}))};
    INFO("tile_to_shape(" << to_string(block) << "," << to_string(target) << ")");
    Layout r = tile_to_shape(block, target);
    INFO("=> " << to_string(r));
    CHECK(product_each(r.shape()) == product_each(target));  // (1)
    for (int64_t m = 0; m < size(block[0]).value(); ++m)     // (2)
      for (int64_t n = 0; n < size(block[1]).value(); ++n) CHECK(r(Coord{m, n}) == block(Coord{m, n}));
    CHECK(injective(r));
  }
  CHECK_THROWS_WITH_AS(tile_to_shape(parse_layout("(8,8):(8,1)"), Shape{12, 8}),
                       doctest::Contains("block extent 8 (mode 0 of (8,8):(8,1)) does not divide the target extent 12"),
                       Error);
}
