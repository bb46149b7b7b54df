// inverse_test.cpp: right_inverse and left_inverse against their post-conditions.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("inverse: post-conditions on thousands of random layouts") {
  TESSEL_RNG(rng);
  int left = 0;
  for (int i = 0; i < 3000; ++i) {
    Layout a = random_layout(rng);
    INFO("A = " << to_string(a));
    Layout r = right_inverse(a);
    INFO("right_inverse => " << to_string(r));
    for (int64_t k = 0; k < size(r).value(); ++k) CHECK(at(a, at(r, k)) == k);  // right (1)
    // A compact layout is a bijection: its right inverse covers all of it.
    if (injective(a) && cosize(a) == size(a)) CHECK(size(r) == size(a));
    if (!injective(a)) continue;
    try {
      Layout l = left_inverse(a);
      INFO("left_inverse => " << to_string(l));
      for (int64_t k = 0; k < size(a).value(); ++k) CHECK(at(l, at(a, k)) == k);  // left (1)
      ++left;
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("is not a multiple of") != std::string::npos);
    }
  }
  CHECK(left > 1000);
}

TEST_CASE("inverse: left_inverse refuses a layout that is not injective") {
  CHECK_THROWS_WITH_AS(left_inverse(parse_layout("(2,4):(0,1)")), doctest::Contains("not injective"), Error);
  CHECK(to_string(right_inverse(parse_layout("(2,4):(0,1)"))) == "4:2");
}
