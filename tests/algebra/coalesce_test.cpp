// coalesce_test.cpp: coalesce, coalesce by profile and filter against their post-conditions.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

void check_coalesce(const Layout& l) {
  INFO("coalesce(" << to_string(l) << ")");
  Layout r = coalesce(l);
  INFO("=> " << to_string(r));
  CHECK(size(r) == size(l));      // (1)
  CHECK(depth(r) <= 1);           // (2)
  CHECK(values(r) == values(l));  // (3)
}

void check_coalesce_profile(const Layout& l, const IntTuple& profile) {
  INFO("coalesce(" << to_string(l) << "," << to_string(profile) << ")");
  Layout r = coalesce(l, profile);
  INFO("=> " << to_string(r));
  CHECK(size(r) == size(l));                          // (1)
  CHECK(values(r) == values(l));                      // (2)
  if (profile.is_tuple()) CHECK(rank(r) == rank(l));  // (3)
}

void check_filter(const Layout& l) {
  INFO("filter(" << to_string(l) << ")");
  Layout r = filter(l);
  INFO("=> " << to_string(r));
  std::vector<int64_t> vl = values(l), vr = values(r);
  CHECK(std::set<int64_t>(vl.begin(), vl.end()) == std::set<int64_t>(vr.begin(), vr.end()));  // (1)
  std::vector<Int> s = flatten_leaves(r.shape()), d = flatten_leaves(r.stride());
  for (size_t i = 0; i < s.size(); ++i) CHECK((d[i].value() != 0 || s[i].value() == 1));  // (2)
  CHECK(depth(r) <= 1);                                                                   // (3)
}

}  // namespace

TEST_CASE("coalesce: small cases from 1:0 up to nested shapes") {
  check_coalesce(Layout(1, 0));
  check_coalesce(Layout(1, 1));
  check_coalesce(parse_layout("(2,4):(1,2)"));
  check_coalesce(parse_layout("(2,1,6):(1,6,2)"));
  check_coalesce(parse_layout("(2,(1,6)):(1,(6,2))"));
  check_coalesce(parse_layout("((2,3),(4,5)):((1,2),(6,24))"));
  CHECK(to_string(coalesce(parse_layout("((2,3),(4,5)):((1,2),(6,24))"))) == "120:1");
  CHECK(to_string(coalesce(parse_layout("(4,1):(8,5)"))) == "4:8");
  CHECK(to_string(coalesce(parse_layout("(1,1):(8,5)"))) == "1:0");
}

TEST_CASE("coalesce: post-conditions on thousands of random layouts") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 3000; ++i) {
    Layout l = random_layout(rng);
    check_coalesce(l);
    check_filter(l);
    IntTuple profile = l.shape().is_leaf() ? IntTuple(1) : repeat_like(product_each(l.shape()), 1);
    check_coalesce_profile(l, profile);
  }
}

TEST_CASE("coalesce: a profile longer than the layout is an error") {
  CHECK_THROWS_WITH_AS(coalesce(parse_layout("(2,3):(1,2)"), parse_int_tuple("(1,1,1)")),
                       doctest::Contains("profile (1,1,1) has more modes"), Error);
}

TEST_CASE("coalesce: symbolic strides merge whether written as compact products or in another association") {
  const Int M = Int::symbol("M"), N = Int::symbol("N"), K = Int::symbol("K"), X = Int::symbol("X");
  // Compact: the strides prefix_product makes, found contiguous through their shared operands.
  const Layout compact = make_layout(IntTuple::tuple({M, N, K}));
  CHECK(coalesce(compact).rank() == 1);
  CHECK(size(coalesce(compact)) == size(compact));
  // Strides a user wrote: X * (M * N) is X * M * N associated otherwise; still contiguous.
  const Layout written(IntTuple::tuple({M, N, K}), IntTuple::tuple({X, X * M, X * (M * N)}));
  const Layout r = coalesce(written);
  INFO(to_string(written) << " => " << to_string(r));
  CHECK(r.rank() == 1);
  CHECK(r.stride() == IntTuple(X));
  // Not contiguous (a gap of 2 between the modes): two modes stay.
  const Layout gap(IntTuple::tuple({M, N}), IntTuple::tuple({Int(1), M * 2}));
  CHECK(coalesce(gap).rank() == 2);
}
