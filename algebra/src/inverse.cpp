// inverse.cpp: right_inverse and left_inverse.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "tessel/algebra/layout.hpp"

namespace tessel {

Layout right_inverse(const Layout& a) {
  std::vector<Int> s = flatten_leaves(a.shape()), d = flatten_leaves(a.stride());
  std::vector<Int> rstride = flatten_leaves(prefix_product(flatten(a.shape())));
  std::vector<IntTuple> rs, rd;
  // Follow the strides up from 1: each next mode must start where the previous one ended.
  // The modes by stride, in mode order (the first of equal strides wins, as the search in mode
  // order would); hashed, so that each step costs a lookup, not a scan or a printed key.
  std::unordered_map<uint64_t, std::vector<size_t>> by_stride;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == Int(1)) continue;
    if (d[i].has_basis()) fail("right_inverse of " + to_string(a) + ": strides are basis elements");
    by_stride[hash_value(d[i])].push_back(i);
  }
  Int current = 1;
  for (;;) {
    auto bucket = by_stride.find(hash_value(current));
    if (bucket == by_stride.end()) break;
    std::vector<size_t>& modes = bucket->second;
    auto it = std::find_if(modes.begin(), modes.end(), [&](size_t i) { return d[i] == current; });
    if (it == modes.end()) break;
    size_t found = *it;
    modes.erase(it);
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
