// inverse.cpp: right_inverse and left_inverse.
#include "tessel/algebra/layout.hpp"

namespace tessel {

Layout right_inverse(const Layout& a) {
  std::vector<Int> s = flatten_leaves(a.shape()), d = flatten_leaves(a.stride());
  std::vector<Int> rstride = flatten_leaves(prefix_product(flatten(a.shape())));
  std::vector<IntTuple> rs, rd;
  // Follow the strides up from 1: each next mode must start where the previous one ended.
  Int current = 1;
  std::vector<bool> used(s.size(), false);
  for (;;) {
    size_t found = s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      if (used[i] || s[i] == Int(1)) continue;
      if (d[i].has_basis()) fail("right_inverse of " + to_string(a) + ": strides are basis elements");
      if (d[i] == current) {
        found = i;
        break;
      }
    }
    if (found == s.size()) break;
    used[found] = true;
    rs.push_back(s[found]);
    rd.push_back(rstride[found]);
    current = s[found] * d[found];
  }
  if (rs.empty()) return Layout(1, 0);
  return coalesce(Layout(IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd))));
}

Layout left_inverse(const Layout& a) {
  std::vector<Int> s = flatten_leaves(a.shape()), d = flatten_leaves(a.stride());
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == Int(1)) && d[i].coefficient() == Int(0))
      fail("left_inverse of " + to_string(a) + ": the layout is not injective (extent " + to_string(s[i]) +
           " has stride 0)");
  return right_inverse(make_layout({a, complement(a)}));
}

}  // namespace tessel
