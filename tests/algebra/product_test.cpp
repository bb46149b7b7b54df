// product_test.cpp: logical, zipped, tiled, flat, blocked and raked products.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

Layout pad(const Layout& l, int r) {
  std::vector<Layout> m;
  for (int i = 0; i < l.rank(); ++i) m.push_back(l[i]);
  while (static_cast<int>(m.size()) < r) m.push_back(Layout(1, 0));
  return make_layout(m);
}

}  // namespace

TEST_CASE("product: logical_product post-conditions on random layouts") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 2000; ++i) {
    Layout a = random_layout(rng, 2, 1, true), b = random_layout(rng, 2, 1, true);
    INFO("logical_product(" << to_string(a) << "," << to_string(b) << ")");
    Layout r;
    try {
      r = logical_product(a, Tiler(b));
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("is not a multiple of") != std::string::npos);
      continue;
    }
    INFO("=> " << to_string(r));
    CHECK(r[0] == a);                                                                // (1)
    CHECK(same_function(r[1], composition(complement(a, size(a) * cosize(b)), b)));  // (2)
    CHECK(injective(r));                                                             // (3)
    ++ok;
  }
  CHECK(ok > 1000);
}

TEST_CASE("product: blocked and raked products interleave the modes of the logical product") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 1000; ++i) {
    Layout a = random_layout(rng, 2, 1, true), b = random_layout(rng, 2, 1, true);
    if (std::max(a.rank(), b.rank()) != 2) continue;  // 2-D tiles, as the kernels use
    INFO(to_string(a) << " x " << to_string(b));
    Layout blocked, raked;
    try {
      blocked = blocked_product(a, b);
      raked = raked_product(a, b);
    } catch (const Error&) {
      continue;
    }
    int r = std::max(a.rank(), b.rank());
    Layout pa = pad(a, r), pb = pad(b, r);
    Layout p = logical_product(pa, Tiler(pb));
    INFO("blocked " << to_string(blocked) << " raked " << to_string(raked) << " P " << to_string(p));
    CHECK(blocked.rank() == r);
    CHECK(raked.rank() == r);
    for (int m = 0; m < r; ++m) {
      CHECK(depth(blocked[m]) <= 1);  // (2)
      CHECK(depth(raked[m]) <= 1);
    }
    // (1): at every (a, b) coordinate pair of the 2-D product.
    int64_t sa0 = size(pa[0]).value(), sa1 = size(pa[1]).value();
    int64_t sb0 = size(p[1][0]).value(), sb1 = size(p[1][1]).value();
    for (int64_t a0 = 0; a0 < sa0; ++a0)
      for (int64_t a1 = 0; a1 < sa1; ++a1)
        for (int64_t b0 = 0; b0 < sb0; ++b0)
          for (int64_t b1 = 0; b1 < sb1; ++b1) {
            int64_t want = p(Coord{Coord{a0, a1}, Coord{b0, b1}}).leaf().value();
            CHECK(blocked(Coord{a0 + sa0 * b0, a1 + sa1 * b1}).leaf().value() == want);
            CHECK(raked(Coord{b0 + sb0 * a0, b1 + sb1 * a1}).leaf().value() == want);
          }
    ++ok;
  }
  CHECK(ok > 200);
}

TEST_CASE("product: two 1-D layouts give one mode, and a 1-D tile for make_layout_tv") {
  CHECK(calculate("raked_product(4:1,2:1)") == "((2,4)):((4,1))");
  CHECK(calculate("blocked_product(4:0,2:1)") == "((4,2)):((0,1))");
  CHECK(calculate("blocked_product(2:1,3:1)") == "6:1");  // a mode that merges is a plain 1-D layout
  CHECK(calculate("make_layout_tv(4:1,2:1)") == "(8) (4,2):(2,1)");
}

TEST_CASE("product: zipped, tiled and flat arrangements") {
  Layout a = parse_layout("(2,2):(4,1)");
  Tiler t({Layout(3, 1), Layout(2, 1)});
  Layout l = logical_product(a, t);
  Layout z = zipped_product(a, t), ti = tiled_product(a, t), f = flat_product(a, t);
  for (int m = 0; m < 2; ++m) {
    CHECK(z[0][m] == l[m][0]);
    CHECK(z[1][m] == l[m][1]);
    CHECK(f[m] == l[m][0]);
    CHECK(f[2 + m] == l[m][1]);
    CHECK(ti[1 + m] == l[m][1]);
  }
  CHECK(ti[0] == z[0]);
}
