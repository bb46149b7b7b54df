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

namespace {

// A thread or value layout of rank 1 to 3 (leaf or tuple shape, at most 32 elements): compact in
// a random mode order, or with a gap, a broadcast (stride 0) or an overlap in its strides.
Layout random_part(std::mt19937_64& rng) {
  Shape s = random_shape(rng, 3, 2, {1, 2, 2, 3, 4, 8});
  while (product(s).value() > 32) s = random_shape(rng, 3, 2, {1, 2, 2, 3, 4, 8});
  std::vector<int64_t> order(flatten_leaves(s).size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int64_t>(k);
  std::shuffle(order.begin(), order.end(), rng);
  size_t k = 0;
  Layout l = make_ordered_layout(s, transform_leaf(s, [&](const Int&) { return Int(order[k++]); }));
  if (uniform(rng, 0, 2) == 0) {  // one stride scaled by 0 (broadcast), 2 or 3 (gap), or 1/2 (overlap)
    size_t target = static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(order.size()) - 1));
    int64_t how = pick(rng, {0, 2, 3, -2});
    k = 0;
    l = Layout(s, transform_leaf(l.stride(), [&](const Int& x) {
                 if (k++ != target) return x;
                 return how == -2 ? Int(std::max<int64_t>(x.value() / 2, 1)) : x * how;
               }));
  }
  if (l.shape().is_leaf() && uniform(rng, 0, 1)) l = Layout(IntTuple::tuple({l.shape()}), IntTuple::tuple({l.stride()}));
  return l;
}

// Whether L maps [0, size(L)) onto [0, size(L)) one to one.
bool bijective_onto_its_size(const Layout& l) {
  std::vector<int64_t> v = values(l);
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

// make_layout_tv (layout.hpp): with MN = raked_product(thr, val) and N = size(thr) * size(val),
// @pre MN is a bijection onto [0, N)   (refused otherwise)
// @post (1) tiler == product_each(shape(MN))   (2) MN(R(i)) == i   (3) R is a bijection from
//       (T,V) = [0, N) onto the tile's [0, N), so every cell has exactly one (thread, value)
TEST_CASE("layout_tv: post-conditions on random thread and value layouts of rank 1 to 3") {
  TESSEL_RNG(rng);
  int made = 0, refused = 0, unreadable = 0;
  for (int i = 0; i < 3000; ++i) {
    Layout thr = random_part(rng), val = random_part(rng);
    INFO("make_layout_tv(" << to_string(thr) << "," << to_string(val) << ")");
    Layout mn;
    try {
      mn = raked_product(thr, val);
    } catch (const Error&) {
      CHECK_THROWS_AS(make_layout_tv(thr, val), Error);  // the product's own refusal
      continue;
    }
    INFO("raked_product => " << to_string(mn));
    if (!bijective_onto_its_size(mn)) {  // @pre
      CHECK_THROWS_WITH_AS(make_layout_tv(thr, val), doctest::Contains("is not a bijection onto"), Error);
      ++refused;
      continue;
    }
    TVLayout tv;
    try {
      tv = make_layout_tv(thr, val);
    } catch (const Error& e) {  // the inverse of MN, read as (T,V), is not affine: no layout has it
      CHECK(std::string(e.what()).find("cannot be read as a (T,V) layout") != std::string::npos);
      ++unreadable;
      continue;
    }
    INFO("=> " << to_string(tv));
    CHECK(tv.tiler == product_each(mn.shape()));  // (1)
    int64_t n = (size(thr) * size(val)).value();
    REQUIRE(size(tv.layout).value() == n);
    for (int64_t k = 0; k < n; ++k) CHECK(at(mn, at(tv.layout, k)) == k);  // (2)
    CHECK(product(tv.tiler).value() == n);                                  // (3)
    CHECK(bijective_onto_its_size(tv.layout));
    ++made;
  }
  CHECK(made > 1000);
  CHECK(refused > 100);
  CHECK(unreadable < made / 4);
}

TEST_CASE("layout_tv: a thread or value layout with gaps is refused, one whose gaps the other fills is not") {
  // val (6,2):(1,18) leaves a gap: the (T,V) pairs would cover 24 of 48 cells twice.
  CHECK_THROWS_WITH_AS(make_layout_tv(parse_layout("4:1"), parse_layout("(6,2):(1,18)")),
                       doctest::Contains("is not a bijection onto [0,48)"), Error);
  CHECK_THROWS_WITH_AS(make_layout_tv(parse_layout("4:1"), parse_layout("4:0")),
                       doctest::Contains("some (thread, value) pairs would share a cell"), Error);
  // Threads 4 apart, 8 values each: raked, the values fill the threads' gaps (16 cells, 16 pairs).
  TVLayout tv = make_layout_tv(parse_layout("2:4"), parse_layout("8:1"));
  CHECK(to_string(tv.tiler) == "(16)");
  CHECK(bijective_onto_its_size(tv.layout));
  // Dynamic extents that cannot be proven to tile are refused, not guessed.
  CHECK_NOTHROW(make_layout_tv(parse_layout("4:1"), parse_layout("(M,2):(2,1)")));
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
  for (int i = 0; i < 2000; ++i) {  // ranks 1 to 3, leaf or tuple blocks, gaps and broadcasts
    Layout block = random_part(rng);
    std::vector<IntTuple> t;
    int r = std::max(block.rank(), static_cast<int>(uniform(rng, 1, 3)));
    for (int m = 0; m < r; ++m)
      t.push_back(Int((m < block.rank() ? size(block[m]).value() : 1) * pick(rng, {1, 2, 3})));
    Shape target = r == 1 && uniform(rng, 0, 1) ? t[0] : IntTuple::tuple(t);
    INFO("tile_to_shape(" << to_string(block) << "," << to_string(target) << ")");
    Layout res;
    try {
      res = tile_to_shape(block, target);
    } catch (const Error& e) {  // a block with gaps or overlaps may have no complement to tile with
      CHECK(!bijective_onto_its_size(block));
      CHECK(refused_by_a_part(e));
      continue;
    }
    INFO("=> " << to_string(res));
    if (target.is_leaf())  // (1): an integer target coalesces the whole result, as in CuTe
      CHECK(size(res) == target.leaf());
    else
      CHECK(product_each(res.shape()) == product_each(target));
    for (int64_t k = 0; k < size(block).value(); ++k) {  // (2): block's coordinates, read in its modes
      // Mode m of R starts with block's mode m: index k_m there, 0 in the modes the block lacks.
      std::vector<IntTuple> modes;
      for (int64_t m = 0, rest = k; m < r; ++m) {
        int64_t e = m < block.rank() ? size(block[m]).value() : 1;
        modes.push_back(Int(rest % e));
        rest /= e;
      }
      Coord c = r == 1 ? modes[0] : IntTuple::tuple(std::move(modes));
      CHECK(res(c).leaf().value() == at(block, k));
    }
    if (injective(block)) CHECK(injective(res));
  }
  CHECK_THROWS_WITH_AS(tile_to_shape(parse_layout("(8,8):(8,1)"), Shape{12, 8}),
                       doctest::Contains("block extent 8 (mode 0 of (8,8):(8,1)) does not divide the target extent 12"),
                       Error);
}
