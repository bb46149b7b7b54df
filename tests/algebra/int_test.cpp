// int_test.cpp: static folding, overflow, the simplifier, and symbolic == static when evaluated.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("int: static arithmetic folds, truncating like C++") {
  CHECK((Int(7) + 5).value() == 12);
  CHECK((Int(7) / 2).value() == 3);
  CHECK((Int(-7) / 2).value() == -3);
  CHECK((Int(-7) % 2).value() == -1);
  CHECK(ceil_div(Int(7), Int(2)).value() == 4);
  CHECK(ceil_div(Int(8), Int(2)).value() == 4);
  CHECK(min(Int(3), Int(9)).value() == 3);
  CHECK(bit_xor(Int(12), Int(10)).value() == 6);
  CHECK(shift_left(Int(3), Int(4)).value() == 48);
}

TEST_CASE("int: overflow and division by zero are errors that name the operation") {
  Int big = int64_t{1} << 40;
  CHECK_THROWS_WITH_AS(big * big, doctest::Contains("integer overflow"), Error);
  CHECK_THROWS_WITH_AS(Int(INT64_MAX) + 1, doctest::Contains("integer overflow"), Error);
  CHECK_THROWS_WITH_AS(Int(5) / 0, doctest::Contains("division by zero"), Error);
  CHECK_THROWS_WITH_AS(Int(5) % Int::symbol("M") / 0, doctest::Contains("division by zero"), Error);
  CHECK_THROWS_WITH_AS(shift_left(Int(1), Int(63)), doctest::Contains("overflow"), Error);
}

TEST_CASE("int: the simplifier folds identities and uses divisibility") {
  Int m = Int::symbol("M"), k = Int::symbol("K", 16);
  CHECK(m + 0 == m);
  CHECK(m * 1 == m);
  CHECK((m * 0).value() == 0);
  CHECK(m - m == Int(0));
  CHECK((m * 8) / 4 == m * 2);
  CHECK((m * 8) / 8 == m);
  CHECK(m / m == Int(1));
  CHECK((m / 4) / 2 == m / 8);
  CHECK(k % 8 == Int(0));
  CHECK(k % 16 == Int(0));
  CHECK(k % 32 != Int(0));
  CHECK(ceil_div(k, Int(16)) == k / 16);
  CHECK(k.divisibility() == 16);
  CHECK((k * 4).divisibility() == 64);
  CHECK((k / 4).divisibility() == 4);
  CHECK((m * 3 + 4) + 5 == m * 3 + 9);
  CHECK(m * Int::symbol("N") == Int::symbol("N") * m);  // canonical operand order
  CHECK(min(m, Int(1)) == Int(1));                      // dynamic values are >= 1
  CHECK(max(k, Int(16)) == k);
  CHECK(to_string(k) == "?{div=16}");
  CHECK(to_string(m) == "?");
  CHECK(expr_string(ceil_div(m, Int(128))) == "ceil_div(M,128)");
  CHECK_THROWS_WITH_AS(m.value("tile size"), doctest::Contains("tile size must be static"), Error);
}

namespace {

// A random expression over symbols and small constants, built twice: once with symbols (the
// simplifier at work) and once with their values (static folding).
struct Pair {
  Int symbolic, concrete;
};

Pair random_expr(std::mt19937_64& rng, const std::vector<Int>& syms, const std::vector<int64_t>& vals, int depth) {
  if (depth == 0 || uniform(rng, 0, 3) == 0) {
    if (uniform(rng, 0, 1) == 0) {
      size_t i = static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(syms.size()) - 1));
      return {syms[i], Int(vals[i])};
    }
    int64_t c = pick(rng, {0, 1, 2, 3, 4, 8, 16, 128});
    return {Int(c), Int(c)};
  }
  Pair a = random_expr(rng, syms, vals, depth - 1), b = random_expr(rng, syms, vals, depth - 1);
  switch (uniform(rng, 0, 10)) {
    case 0:
      return {a.symbolic + b.symbolic, a.concrete + b.concrete};
    case 1:
      return {a.symbolic - b.symbolic, a.concrete - b.concrete};
    case 2:
      return {a.symbolic * b.symbolic, a.concrete * b.concrete};
    case 3: {  // divide by a positive constant: the shape arithmetic of the algebra
      int64_t d = pick(rng, {1, 2, 4, 8, 3});
      return {a.symbolic / d, a.concrete / d};
    }
    case 4: {
      int64_t d = pick(rng, {1, 2, 4, 8, 3});
      return {a.symbolic % d, a.concrete % d};
    }
    case 5: {
      int64_t d = pick(rng, {1, 2, 4, 16});
      return {ceil_div(a.symbolic, Int(d)), ceil_div(a.concrete, Int(d))};
    }
    case 6:
      return {min(a.symbolic, b.symbolic), min(a.concrete, b.concrete)};
    case 7:
      return {bit_and(a.symbolic, b.symbolic), bit_and(a.concrete, b.concrete)};
    case 8:
      return {bit_xor(a.symbolic, b.symbolic), bit_xor(a.concrete, b.concrete)};
    case 9: {
      int64_t k = pick(rng, {0, 1, 3});
      return {shift_right(a.symbolic, Int(k)), shift_right(a.concrete, Int(k))};
    }
    default:
      return {max(a.symbolic, b.symbolic), max(a.concrete, b.concrete)};
  }
}

}  // namespace

TEST_CASE("int: symbolic expressions evaluate to the statically folded value") {
  TESSEL_RNG(rng);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<int64_t> divs = {1, 4, 16}, vals;
    std::vector<Int> syms;
    Env env;
    for (size_t i = 0; i < divs.size(); ++i) {
      std::string name = "S" + std::to_string(i);
      // Positive multiples (extents), or multiples with a lower bound of 0 (an index) or below
      // zero (an offset), so that rules that assume non-negative operands are caught.
      int64_t lo = pick(rng, {divs[i], divs[i], 0, -8 * divs[i]});
      syms.push_back(Int::symbol(name, divs[i], lo));
      vals.push_back(divs[i] * uniform(rng, lo / divs[i], 50));
      env[name] = vals.back();
    }
    Pair p = random_expr(rng, syms, vals, 4);
    INFO(expr_string(p.symbolic) << " at S0=" << vals[0] << " S1=" << vals[1] << " S2=" << vals[2]);
    REQUIRE(evaluate(p.symbolic, env) == p.concrete.value());
    // What the simplifier claims to know must hold.
    if (p.symbolic.is_dynamic()) {
      int64_t v = p.concrete.value();
      CHECK(v % p.symbolic.divisibility() == 0);
      if (auto lo = p.symbolic.lower_bound()) CHECK(v >= *lo);
    }
    ++checked;
  }
  CHECK(checked == 3000);
}

TEST_CASE("int: compare_expr_strings orders as the printed expressions do") {
  // The canonical operand order of + and * (and so the generated PTX) is the order of
  // expr_string; the comparison that avoids printing must agree with it on every pair.
  TESSEL_RNG(rng);
  std::vector<Int> syms;
  std::vector<int64_t> vals;
  for (const char* name : {"S", "S1", "S12", "T", "x_1"}) {  // names that prefix one another
    syms.push_back(Int::symbol(name, 1, -4));
    vals.push_back(1);
  }
  syms.push_back(Int::anonymous(0, 1));
  vals.push_back(1);
  auto sign = [](int c) { return (c > 0) - (c < 0); };
  for (int trial = 0; trial < 20000; ++trial) {
    Int a = random_expr(rng, syms, vals, 5).symbolic, b = random_expr(rng, syms, vals, 5).symbolic;
    if (uniform(rng, 0, 3) == 0) a = a.with_basis({static_cast<int>(uniform(rng, 0, 2))});
    INFO(expr_string(a) << " vs " << expr_string(b));
    CHECK(sign(compare_expr_strings(a, b)) == sign(expr_string(a).compare(expr_string(b))));
    CHECK(compare_expr_strings(a, a) == 0);
    CHECK(expr_string(a, 8) == (expr_string(a).size() > 8 ? expr_string(a).substr(0, 8) + "..." : expr_string(a)));
  }
}

TEST_CASE("int: the lower bound of x & y holds for negative operands") {
  // -1 & -1 == -1: the result is non-negative only when one operand is.
  Int x = Int::symbol("x", 1, -8), y = Int::symbol("y", 1, -8);
  std::optional<int64_t> lo = bit_and(x, y).lower_bound();
  CHECK((!lo || *lo <= -1));
  CHECK(evaluate(bit_and(x, y), {{"x", -1}, {"y", -1}}) == -1);
  Int i = Int::symbol("i", 1, 0);  // one non-negative operand clears the sign bit
  CHECK(bit_and(i, y).lower_bound() == std::optional<int64_t>(0));
}

TEST_CASE("int: evaluate rejects missing symbols and values that break divisibility") {
  Int k = Int::symbol("K", 16);
  CHECK_THROWS_WITH_AS(evaluate(k, {}), doctest::Contains("no value given for symbol K"), Error);
  CHECK_THROWS_WITH_AS(evaluate(k, {{"K", 24}}), doctest::Contains("positive multiple of 16"), Error);
  CHECK(evaluate(k * 2, {{"K", 32}}) == 64);
}
