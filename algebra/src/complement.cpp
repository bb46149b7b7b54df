// complement.cpp: complement(A, cotarget), the layout of what A does not reach.
#include <algorithm>

#include "show.hpp"
#include "tessel/algebra/layout.hpp"

namespace tessel {

using detail::show;

Layout complement(const Layout& a, const Int& cotarget) {
  if (cotarget.has_basis() || (cotarget.is_static() && cotarget.value() < 1))
    fail("complement: cotarget " + show(cotarget) + " must be a positive integer");
  std::vector<Int> s = flatten_leaves(a.shape()), d = flatten_leaves(a.stride());
  struct Mode {
    Int shape, stride;
  };
  std::vector<Mode> modes;
  for (size_t i = 0; i < s.size(); ++i) {
    if (d[i].has_basis()) fail("complement of " + show(a) + ": strides are basis elements");
    if (d[i] == Int(0) || s[i] == Int(1)) continue;  // these modes reach nothing new
    if (d[i].is_static() && d[i].value() < 0)
      fail("complement of " + show(a) + ": negative stride " + show(d[i]) + " is not supported");
    modes.push_back({s[i], d[i]});
  }
  // Order the modes by stride; each comparison must be decidable while generating.
  auto le = [&](const Int& x, const Int& y) {
    auto r = known_less_equal(x, y);
    if (!r)
      fail("complement of " + show(a) + ": cannot order the strides " + show(x) + " and " + show(y) +
           " while generating (make one static)");
    return *r;
  };
  std::stable_sort(modes.begin(), modes.end(),
                   [&](const Mode& x, const Mode& y) { return le(x.stride, y.stride) && !le(y.stride, x.stride); });
  std::vector<IntTuple> rs, rd;
  Int current = 1;  // the extent covered so far
  for (const Mode& m : modes) {
    if (!provably_divides(current, m.stride))
      fail("complement of " + show(a) + ": the layout is not injective or its complement is not a layout: stride " +
           show(m.stride) + " is not a multiple of " + show(current) +
           ", the extent covered by the modes of smaller stride");
    rs.push_back(m.stride / current);
    rd.push_back(current);
    current = m.shape * m.stride;
  }
  rs.push_back(ceil_div(cotarget, current));
  rd.push_back(current);
  return coalesce(Layout(IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd))));
}

Layout complement(const Layout& a) { return complement(a, cosize(a)); }

}  // namespace tessel
