// composition_test.cpp: A o B against its post-conditions, and its refusals.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

void check_composition(const Layout& a, const Layout& b, const Layout& r) {
  INFO(to_string(a) << " o " << to_string(b) << " => " << to_string(r));
  CHECK(compatible(b.shape(), r.shape()));                                           // (1)
  for (int64_t i = 0; i < size(b).value(); ++i) CHECK(at(r, i) == at(a, at(b, i)));  // (2)
}

}  // namespace

TEST_CASE("composition: small cases") {
  for (const char* text : {"1:0 1:1", "4:1 2:2", "(4,4):(4,1) (2,5):(1,4)", "(2,(3,4)):(12,(4,1)) 6:2",
                           "(8,8):(8,1) ((2,2),(2,2)):((1,16),(2,32))", "(4,6):(1,4) 12:2"}) {
    std::string s(text);
    Layout a = parse_layout(s.substr(0, s.find(' '))), b = parse_layout(s.substr(s.find(' ') + 1));
    check_composition(a, b, composition(a, b));
  }
}

TEST_CASE("composition: post-conditions on thousands of random pairs") {
  TESSEL_RNG(rng);
  int composed = 0, refused = 0;
  for (int i = 0; i < 4000; ++i) {
    Layout a = random_layout(rng);
    Layout b = random_layout(rng, 2, 1, /*injective=*/true);
    // The contract is about B that maps into A's domain (CuTe evaluates A past its last mode,
    // but what lies there is not part of A).
    if (cosize(b).value() > size(a).value()) continue;
    Layout r;
    try {
      r = composition(a, b);
    } catch (const Error& e) {
      // A refusal must name the condition that failed.
      std::string what = e.what();
      CHECK(what.find("divisibility condition") != std::string::npos);
      ++refused;
      continue;
    }
    check_composition(a, b, r);
    ++composed;
  }
  MESSAGE("composed " << composed << ", refused " << refused);
  CHECK(composed > 500);
}

TEST_CASE("composition: a B whose modes overlap is checked, never silently wrong") {
  TESSEL_RNG(rng);
  int composed = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    Layout a = random_layout(rng);
    Layout b = random_layout(rng, 2, 1);  // any strides: overlapping and broadcast modes too
    if (cosize(b).value() > size(a).value()) continue;
    try {
      check_composition(a, b, composition(a, b));
      ++composed;
    } catch (const Error& e) {
      std::string what = e.what();
      CHECK((what.find("divisibility condition") != std::string::npos ||
             what.find("modes of B overlap") != std::string::npos));
      ++refused;
    }
  }
  MESSAGE("composed " << composed << ", refused " << refused);
  CHECK(composed > 500);
  CHECK_THROWS_WITH_AS(composition(parse_layout("(8,2,2):(1,0,4)"), parse_layout("(8,4):(1,2)")),
                       doctest::Contains("the modes of B overlap and A does not add across them"), Error);
  // Overlapping modes that A does add across are fine: A is a single mode here.
  CHECK(to_string(composition(parse_layout("32:2"), parse_layout("(8,4):(1,2)"))) == "(8,4):(2,4)");
}

TEST_CASE("composition: a decision that needs a run-time value names it") {
  // Whether 128 divides M is unknown while generating: the error names M, not `?`.
  CHECK_THROWS_WITH_AS(
      calculate("zipped_divide((M,N):(N,1),(16,128):(128,1))"),
      doctest::Contains("stride 128 and extent M (mode 0 of (M,N):(N,1)) are not known to divide one another"), Error);
  // Knowing 128 | M is not enough: whether 16 tiles fit in M/128 is still a run-time question.
  CHECK_THROWS_WITH_AS(calculate("zipped_divide((M{div=128},N):(N,1),(16,128):(128,1))"),
                       doctest::Contains("extent 16 is not known to be a multiple of (M/128)"), Error);
  CHECK(expr_string(cosize(parse_layout("(M,N):(N,1)"))) == "((((M-1)*N)+1)+(N-1))");
}

TEST_CASE("composition: by-mode tilers") {
  Layout a = parse_layout("(12,(4,8)):(59,(13,1))");
  Layout r = composition(a, Tiler({Layout(3, 4), Layout(8, 2)}));
  check_composition(a[0], Layout(3, 4), r[0]);
  check_composition(a[1], Layout(8, 2), r[1]);
  CHECK_THROWS_WITH_AS(composition(parse_layout("8:1"), Tiler({Layout(2, 1), Layout(2, 1)})),
                       doctest::Contains("has rank 2, higher than the rank 1"), Error);
}

TEST_CASE("composition: the divisibility conditions are refused with the values named") {
  CHECK_THROWS_WITH_AS(composition(parse_layout("(4,6):(1,8)"), parse_layout("6:1")),
                       doctest::Contains("shape divisibility condition fails: extent 6 is not a multiple of 4"), Error);
  CHECK_THROWS_WITH_AS(composition(parse_layout("(6,2):(1,7)"), parse_layout("2:4")),
                       doctest::Contains("stride divisibility condition fails: stride 4 and extent 6"), Error);
}

TEST_CASE("composition: many modes cost linear time, not quadratic") {
  // 20000 modes of extent 1 around a 4x8 layout: every operation must stay linear in the modes
  // (a quadratic one takes minutes here, which CTest's timeout reports).
  std::vector<IntTuple> s(20000, IntTuple(1)), d(20000, IntTuple(3));
  s.push_back(4);
  d.push_back(1);
  s.push_back(8);
  d.push_back(4);
  Layout big(IntTuple::tuple(s), IntTuple::tuple(d));
  CHECK(to_string(coalesce(big)) == "32:1");
  CHECK(same_function(composition(big, big), make_layout(Shape(32))));
  CHECK(to_string(right_inverse(big)) == "32:1");
  CHECK(to_string(complement(big, 64)) == "2:32");
  CHECK(size(blocked_product(big, big)).value() == 1024);
}
