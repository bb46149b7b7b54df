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

namespace {

// A random operand of a product: rank 1 to 3, a leaf shape (`6:1`) or a tuple (`(6):(1)`,
// `((2,3)):((1,2))`), compact, permuted, with a gap in its strides, or (when `any`) arbitrary.
// At most 48 elements, so that checking every pair of a product stays cheap.
Layout random_operand(std::mt19937_64& rng, bool any) {
  Shape s = random_shape(rng, 3, 2, {1, 2, 2, 3, 4, 6});
  while (product(s).value() > 48) s = random_shape(rng, 3, 2, {1, 2, 2, 3, 4, 6});
  std::vector<int64_t> order(flatten_leaves(s).size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int64_t>(k);
  std::shuffle(order.begin(), order.end(), rng);
  size_t k = 0;
  Layout l = make_ordered_layout(s, transform_leaf(s, [&](const Int&) { return Int(order[k++]); }));
  switch (any ? uniform(rng, 0, 3) : 0) {
    case 1: {  // a gap: one stride scaled (still injective)
      size_t target = static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(order.size()) - 1));
      int64_t gap = pick(rng, {2, 3});
      k = 0;
      l = Layout(s, transform_leaf(l.stride(), [&](const Int& x) { return k++ == target ? x * gap : x; }));
      break;
    }
    case 2:  // arbitrary strides: maybe not injective
      l = Layout(s, transform_leaf(s, [&](const Int&) { return Int(pick(rng, {0, 1, 2, 3, 4, 8})); }));
      break;
    default:
      break;
  }
  if (l.shape().is_leaf() && uniform(rng, 0, 1)) l = Layout(IntTuple::tuple({l.shape()}), IntTuple::tuple({l.stride()}));
  return l;
}

// The post-conditions every product shares, for R = op(A, B) whose mode structure is checked
// by the caller: size(R) == size(A) * size(B), and R injective when A and B are.
void check_size_and_injective(const Layout& r, const Layout& a, const Layout& b) {
  CHECK(size(r) == size(a) * size(b));
  if (injective(a) && injective(b)) CHECK(injective(r));
}

}  // namespace

// logical_product (layout.hpp): (1) mode 0 of R is A  (2) mode 1 of R is the function
// complement(A, size(A)*cosize(B)) o B  (3) R is injective when A and B are; and rank(R) == 2.
TEST_CASE("product: logical_product post-conditions on random layouts of rank 1 to 3") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 3000; ++i) {
    Layout a = random_operand(rng, true), b = random_operand(rng, true);
    INFO("logical_product(" << to_string(a) << "," << to_string(b) << ")");
    Layout r;
    try {
      r = logical_product(a, Tiler(b));
    } catch (const Error& e) {
      // Only the preconditions of the parts: A's complement (A not injective, or strides that do
      // not nest) or the divisibility conditions of complement(A) o B.
      CHECK(refused_by_a_part(e));
      continue;
    }
    INFO("=> " << to_string(r));
    CHECK(r.rank() == 2);
    CHECK(r[0] == a);                                                                // (1)
    CHECK(same_function(r[1], composition(complement(a, size(a) * cosize(b)), b)));  // (2)
    check_size_and_injective(r, a, b);                                               // (3)
    ++ok;
  }
  CHECK(ok > 1000);
}

// blocked_product and raked_product (layout.hpp), with P = logical_product(A', B') of the operands
// padded to rank r = max(rank(A), rank(B)):
// (1) blocked: R(a_i + size(A_i)*b_i ...) == P((a...),(b...)); raked: R(b_i + size(B_i)*a_i ...)
// (2) each mode has depth <= 1; and rank(R) == r, size(R) == size(A)*size(B), injective when A, B are.
TEST_CASE("product: blocked and raked post-conditions on random layouts of rank 1 to 3") {
  TESSEL_RNG(rng);
  int ok = 0;
  for (int i = 0; i < 3000; ++i) {
    Layout a = random_operand(rng, true), b = random_operand(rng, true);
    INFO(to_string(a) << " x " << to_string(b));
    Layout blocked, raked;
    try {
      blocked = blocked_product(a, b);
      raked = raked_product(a, b);
    } catch (const Error& e) {
      CHECK(refused_by_a_part(e));
      continue;
    }
    int r = std::max(a.rank(), b.rank());
    Layout pa = pad(a, r), pb = pad(b, r);
    Layout p = logical_product(pa, Tiler(pb));
    INFO("blocked " << to_string(blocked) << " raked " << to_string(raked) << " P " << to_string(p));
    CHECK(blocked.rank() == r);
    CHECK(raked.rank() == r);
    check_size_and_injective(blocked, a, b);
    check_size_and_injective(raked, a, b);
    for (int m = 0; m < r; ++m) {  // (2)
      CHECK(depth(blocked[m]) <= 1);
      CHECK(depth(raked[m]) <= 1);
    }
    // (1) at every (a, b) coordinate pair: the modes of A' and B' read colexicographically.
    std::vector<int64_t> sa, sb;
    for (int m = 0; m < r; ++m) {
      sa.push_back(size(pa[m]).value());
      sb.push_back(size(pb[m]).value());
    }
    int64_t na = size(a).value(), nb = size(b).value();
    auto coord = [&](std::vector<int64_t> v) {
      if (r == 1) return IntTuple(Int(v[0]));  // a 1-D product takes an index
      std::vector<IntTuple> c;
      for (int64_t x : v) c.push_back(Int(x));
      return IntTuple::tuple(std::move(c));
    };
    for (int64_t ia = 0; ia < na; ++ia)
      for (int64_t ib = 0; ib < nb; ++ib) {
        std::vector<int64_t> ca(r), cb(r), blk(r), rak(r);
        for (int64_t m = 0, x = ia, y = ib; m < r; ++m) {
          ca[m] = x % sa[m], x /= sa[m];
          cb[m] = y % sb[m], y /= sb[m];
          blk[m] = ca[m] + sa[m] * cb[m];
          rak[m] = cb[m] + sb[m] * ca[m];
        }
        int64_t want = p(Coord{coord(ca), coord(cb)}).leaf().value();
        CHECK(blocked(coord(blk)).leaf().value() == want);
        CHECK(raked(coord(rak)).leaf().value() == want);
      }
    ++ok;
  }
  CHECK(ok > 1000);
}

TEST_CASE("product: a rank-1 B keeps every element (the issue's cases)") {
  // complement(4:2, 24) o 6:1 = (2,3):(1,8): mode 0 of that alone would drop the 3.
  CHECK(calculate("raked_product(4:2,6:1)") == "((2,3,4)):((1,8,2))");
  CHECK(calculate("raked_product((4):(2),(6):(1))") == "((2,3,4)):((1,8,2))");
  CHECK(calculate("blocked_product(6:3,6:1)") == "((6,3,2)):((3,1,18))");
  CHECK(calculate("size(blocked_product(6:3,6:1))") == "36");
  CHECK(calculate("tile_to_shape(2:4,16)") == "(2,4,2):(4,1,8)");
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
