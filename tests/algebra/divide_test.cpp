// divide_test.cpp: logical_divide and the zipped, tiled and flat arrangements.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

// The post-conditions of logical_divide(A, B) for a whole-layout B.
void check_logical_divide(const Layout& a, const Layout& b) {
  INFO("logical_divide(" << to_string(a) << "," << to_string(b) << ")");
  Layout r = logical_divide(a, Tiler(b));
  INFO("=> " << to_string(r));
  Layout bp = make_layout({b, complement(b, size(a))});
  CHECK(same_function(r[0], composition(a, b)));                                      // (1)
  for (int64_t i = 0; i < size(r).value(); ++i) CHECK(at(r, i) == at(a, at(bp, i)));  // (2)
}

Layout random_tile(std::mt19937_64& rng, const Layout& mode) {
  // A tile that divides the mode: a divisor of its size, stride 1 or a divisor pattern.
  int64_t n = size(mode).value();
  std::vector<int64_t> divs;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) divs.push_back(d);
  int64_t t = divs[static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(divs.size()) - 1))];
  if (uniform(rng, 0, 2) == 0 && n % (t * 2) == 0) return Layout(t, 2);
  return Layout(t, 1);
}

}  // namespace

TEST_CASE("divide: logical_divide post-conditions on random layouts and tiles") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 2000; ++i) {
    Layout a = random_layout(rng);
    Layout b = random_tile(rng, Layout(size(a), 1));
    try {
      check_logical_divide(a, b);
      ++ok;
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("condition fails") != std::string::npos);
    }
  }
  CHECK(ok > 1000);
}

TEST_CASE("divide: zipped, tiled and flat rearrange the modes of the by-mode logical divide") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 1500; ++i) {
    Layout a = random_layout(rng, 3, 1);
    int tr = static_cast<int>(uniform(rng, 1, a.rank()));
    std::vector<Layout> tiles;
    for (int m = 0; m < tr; ++m) tiles.push_back(random_tile(rng, a[m]));
    Tiler t(tiles);
    INFO(to_string(a) << " / " << to_string(t));
    Layout logical, zipped, tiled, flat;
    try {
      logical = logical_divide(a, t);
    } catch (const Error&) {
      continue;
    }
    zipped = zipped_divide(a, t);
    tiled = tiled_divide(a, t);
    flat = flat_divide(a, t);
    for (int m = 0; m < a.rank(); ++m) {
      if (m < tr) {
        CHECK(same_function(logical[m][0], composition(a[m], tiles[m])));  // (1) by mode
        CHECK(zipped[0][m] == logical[m][0]);
        CHECK(zipped[1][m] == logical[m][1]);
        CHECK(flat[m] == logical[m][0]);
        CHECK(flat[tr + m] == logical[m][1]);
        CHECK(tiled[1 + m] == logical[m][1]);
      } else {
        CHECK(zipped[1][m] == a[m]);
        CHECK(flat[tr + m] == a[m]);
      }
    }
    CHECK(tiled[0] == zipped[0]);
    CHECK(size(zipped) == size(a));
    ++ok;
  }
  CHECK(ok > 500);
}

TEST_CASE("divide: the elementwise tiling of a row-major matrix") {
  // 2-D tensor (8,12) row-major divided by a (4,4) tiler: each tile is a 4x4 block.
  Layout a = parse_layout("(8,12):(12,1)");
  Layout z = zipped_divide(a, Tiler::from_shape(IntTuple{4, 4}));
  CHECK(to_string(z) == "((4,4),(2,3)):((12,1),(48,4))");
  // Tile (1,2) starts at row 4, column 8.
  CHECK(z(Coord{0, Coord{1, 2}}).leaf().value() == 4 * 12 + 8);
  CHECK_THROWS_WITH_AS(zipped_divide(a, Tiler({Layout(2, 1), Layout(2, 1), Layout(2, 1)})),
                       doctest::Contains("rank 3, higher than the rank 2"), Error);
}
