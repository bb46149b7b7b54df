// layout_test.cpp: construction, coordinates, slicing and modes of a Layout.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("layout: construction and queries") {
  Layout l = make_layout(Shape{4, Shape{2, 8}});
  CHECK(to_string(l) == "(4,(2,8)):(1,(4,8))");
  CHECK(size(l).value() == 64);
  CHECK(cosize(l).value() == 64);
  CHECK(rank(l) == 2);
  CHECK(depth(l) == 2);
  CHECK(to_string(get(l, {1, 0})) == "2:4");
  CHECK(to_string(make_layout(Shape{2, 3}, Stride{3, 1})) == "(2,3):(3,1)");
  CHECK(to_string(make_ordered_layout(Shape{2, 3, 4}, IntTuple{1, 2, 0})) == "(2,3,4):(4,8,1)");
  CHECK(to_string(Layout()) == "1:0");
  CHECK(cosize(parse_layout("(4,2):(-1,4)")).value() == 8);
}

TEST_CASE("layout: bad layouts are refused with the rule named") {
  CHECK_THROWS_WITH_AS(parse_layout("(4,8):(1,(2,3))"), doctest::Contains("must have the same structure"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("(4,0):(1,4)"), doctest::Contains("extent 0 must be positive"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("(4,-2):(1,4)"), doctest::Contains("extent -2 must be positive"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("(4294967296,4294967296):(1,1)"), doctest::Contains("integer overflow"), Error);
}

TEST_CASE("layout: crd2idx and idx2crd agree on random shapes (colexicographic order)") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 1000; ++i) {
    Layout l = random_layout(rng);
    INFO(to_string(l));
    for (int64_t k = 0; k < size(l).value(); ++k) {
      Coord c = idx2crd(Int(k), l.shape());
      CHECK(congruent(c, l.shape()));
      CHECK(l(c) == l(Int(k)));
      CHECK(crd2idx(c, l.shape(), prefix_product(l.shape())).leaf().value() == k);
    }
  }
}

TEST_CASE("layout: static_indices is L at every index of random static layouts") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 1000; ++i) {
    Layout l = random_layout(rng);
    INFO(to_string(l));
    const std::vector<int64_t> v = static_indices(l);
    CHECK(static_cast<int64_t>(v.size()) == size(l).value());  // (1)
    for (int64_t k = 0; k < size(l).value(); ++k) {
      CHECK(v[static_cast<size_t>(k)] == l(Int(k)).leaf().value());  // (2)
    }
  }
  CHECK(static_indices(parse_layout("(2,(3,2)):(-1,(4,20))")) ==
        std::vector<int64_t>{0, -1, 4, 3, 8, 7, 20, 19, 24, 23, 28, 27});
  CHECK_THROWS_WITH_AS(static_indices(make_layout(Shape{4, 2}, Stride{1, Int::symbol("ld")})),
                       doctest::Contains("every extent and stride must be a static integer"), Error);
  CHECK_THROWS_WITH_AS(static_indices(make_layout(Shape{4}, Stride{int64_t{1} << 62})),
                       doctest::Contains("index 2 overflows 64 bits"), Error);
}

TEST_CASE("layout: slicing keeps the `_` modes and moves the rest into the offset") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 2000; ++i) {
    Layout l = random_layout(rng, 3, 1);
    if (l.shape().is_leaf()) continue;
    // Slice every other mode at a random coordinate.
    std::vector<SliceCoord> c;
    std::vector<int64_t> fixed;
    for (int m = 0; m < l.rank(); ++m) {
      if (m % 2 == 1) {
        fixed.push_back(uniform(rng, 0, size(l[m]).value() - 1));
        c.push_back(Int(fixed.back()));
      } else {
        fixed.push_back(-1);
        c.push_back(_);
      }
    }
    auto [s, offset] = slice_and_offset(SliceCoord::tuple(c), l);
    INFO(to_string(l) << " sliced by " << to_string(SliceCoord::tuple(c)) << " => " << to_string(s) << " + "
                      << to_string(offset));
    for (int64_t k = 0; k < size(s).value(); ++k) {
      Coord sub = idx2crd(Int(k), s.shape());
      std::vector<IntTuple> full;
      int j = 0;
      for (int m = 0; m < l.rank(); ++m) full.push_back(fixed[m] >= 0 ? IntTuple(Int(fixed[m])) : sub[j++]);
      CHECK(at(s, k) + offset.leaf().value() == l(IntTuple::tuple(full)).leaf().value());  // @post
    }
    CHECK(size(dice(SliceCoord::tuple(c), l)) * size(s) == size(l));
  }
}

TEST_CASE("layout: append, prepend, group, flatten") {
  Layout l = parse_layout("(4,(2,8)):(1,(4,8))");
  CHECK(to_string(append(l, Layout(3, 64))) == "(4,(2,8),3):(1,(4,8),64)");
  CHECK(to_string(prepend(l, Layout(3, 64))) == "(3,4,(2,8)):(64,1,(4,8))");
  CHECK(to_string(append(Layout(4, 1), Layout(2, 4))) == "(4,2):(1,4)");
  CHECK(to_string(group(parse_layout("(2,3,4,5):(1,2,6,24)"), 1, 3)) == "(2,(3,4),5):(1,(2,6),24)");
  CHECK(to_string(flatten(l)) == "(4,2,8):(1,4,8)");
  CHECK_THROWS_WITH_AS(group(l, 1, 5), doctest::Contains("is not a non-empty range"), Error);
}

TEST_CASE("layout: identity layouts map a coordinate to itself") {
  Layout id = make_identity_layout(Shape{4, 8});
  CHECK(to_string(id) == "(4,8):(1@0,1@1)");
  for (int64_t k = 0; k < 32; ++k) CHECK(id(Int(k)) == (IntTuple{k % 4, k / 4}));
  // Tiled like the data it predicates (the elementwise kernel's coordinate tensor).
  Layout z = zipped_divide(id, Tiler::from_shape(Shape{2, 4}));
  CHECK(to_string(z) == "((2,4),(2,2)):((1@0,1@1),(2@0,4@1))");
  CHECK(z(Coord{Coord{1, 3}, Coord{1, 1}}) == (IntTuple{3, 7}));
}
