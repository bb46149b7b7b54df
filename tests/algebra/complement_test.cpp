// complement_test.cpp: complement(A, cotarget) against its four post-conditions.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

void check_complement(const Layout& a, int64_t cotarget) {
  INFO("complement(" << to_string(a) << "," << cotarget << ")");
  Layout r = complement(a, cotarget);
  INFO("=> " << to_string(r));
  std::vector<int64_t> vr = values(r), va = values(a);
  CHECK(injective(r));  // (1)
  std::set<int64_t> image_a(va.begin(), va.end());
  for (size_t i = 1; i < vr.size(); ++i) CHECK(image_a.count(vr[i]) == 0);  // (2)
  for (size_t i = 1; i < vr.size(); ++i) CHECK(vr[i - 1] < vr[i]);          // (3)
  CHECK(cosize(make_layout({a, r})).value() >= cotarget);                   // (4)
}

}  // namespace

TEST_CASE("complement: small cases") {
  check_complement(Layout(1, 0), 1);
  check_complement(Layout(1, 0), 8);
  check_complement(Layout(4, 1), 24);
  check_complement(parse_layout("(2,2):(1,6)"), 24);
  check_complement(parse_layout("(4,(2,2)):(8,(4,1))"), 90);
  check_complement(Layout(2, 0), 7);
}

TEST_CASE("complement: post-conditions on thousands of random injective layouts") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 2000; ++i) {
    Layout a = random_layout(rng, 3, 2, /*injective=*/uniform(rng, 0, 1) == 0);
    int64_t cot = cosize(a).value() * pick(rng, {1, 1, 2, 3}) + pick(rng, {0, 0, 1, 5});
    try {
      check_complement(a, cot);
    } catch (const Error& e) {
      // Only layouts whose strides do not step evenly past each other may be refused.
      std::string what = e.what();
      CHECK(what.find("is not a multiple of") != std::string::npos);
    }
  }
}

TEST_CASE("complement: refusals") {
  CHECK_THROWS_WITH_AS(complement(parse_layout("(2,2):(1,1)"), 8), doctest::Contains("not injective"), Error);
  CHECK_THROWS_WITH_AS(complement(parse_layout("4:1"), 0), doctest::Contains("cotarget 0 must be a positive"), Error);
  CHECK_THROWS_WITH_AS(complement(parse_layout("4:-1"), 8), doctest::Contains("negative stride"), Error);
}
