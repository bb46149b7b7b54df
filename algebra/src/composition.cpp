// composition.cpp: A o B, with a layout or a by-mode tiler (CuTe's composition).
#include <algorithm>

#include "show.hpp"
#include "tessel/algebra/layout.hpp"
#include "tessel/algebra/modes.hpp"

namespace tessel {

using detail::show;

namespace {

bool is_one(const Int& x) { return x == Int(1); }

// A, coalesced once for all the modes of B.
struct FlatA {
  const Layout& a;
  Layout flat;
  std::vector<Int> shape, stride;  // flat's modes
};

FlatA flatten_for_composition(const Layout& a) {
  Layout flat = coalesce(a);
  // coalesce turns a layout of size 1 into 1:0; keep its last stride instead, so that A o B
  // extends past A's single element the way A's last mode does (a coordinate tensor of a
  // 1 x N tensor must still count rows 1, 2, ... for the predicate to see them).
  if (std::vector<Int> d = flatten_leaves(a.stride()); size(a) == Int(1) && !d.empty()) flat = Layout(Int(1), d.back());
  return {a, flat, flatten_leaves(flat.shape()), flatten_leaves(flat.stride())};
}

// A o (s:d) for an integral B: walk s:d through the modes of coalesce(A).
Layout compose_integral(const FlatA& fa, const Int& s, const Int& d) {
  if (d.coefficient() == Int(0)) return Layout(s, Int(0));  // a stride-0 B reads A(0) = 0
  const Layout& a = fa.a;
  const Layout& flat = fa.flat;
  const std::vector<Int>& as = fa.shape;
  const std::vector<Int>& ad = fa.stride;
  if (flat.shape().is_leaf()) return Layout(s, d * ad[0]);

  std::vector<Int> rs, rd;  // at most one mode per mode of A
  rs.reserve(as.size());
  rd.reserve(as.size());
  Int rest_shape = s, rest_stride = d;
  for (size_t k = 0; k + 1 < as.size() && !is_one(rest_shape); ++k) {
    const Int& cs = as[k];
    // Stride divisibility condition: rest_stride lands on a boundary of this mode.
    Int avail;  // extent of this mode left after skipping rest_stride
    if (provably_divides(rest_stride, cs)) {
      avail = cs / rest_stride;
    } else if (provably_divides(cs, rest_stride)) {
      avail = 1;
    } else {
      fail("composition " + show(a) + " o " + show(Layout(s, d)) + ": stride divisibility condition fails: stride " +
           show(rest_stride) + " and extent " + show(cs) + " (mode " + std::to_string(k) + " of " + show(flat) + ")" +
           (rest_stride.is_static() && cs.is_static() ? " do not divide one another"
                                                      : " are not known to divide one another while generating"));
    }
    // Shape divisibility condition: what is left of B fills this mode or stops inside it.
    Int take;
    if (provably_divides(avail, rest_shape)) {
      take = avail;
    } else if (provably_divides(rest_shape, avail) || known_less_equal(avail, rest_shape) == false) {
      take = rest_shape;
    } else {
      fail("composition " + show(a) + " o " + show(Layout(s, d)) + ": shape divisibility condition fails: extent " +
           show(rest_shape) +
           (rest_shape.is_static() && avail.is_static() ? " is not a multiple of "
                                                        : " is not known to be a multiple of ") +
           show(avail) + " (what is left of mode " + std::to_string(k) + " of " + show(flat) + ")");
    }
    if (!is_one(take)) {
      rs.push_back(take);
      rd.push_back(rest_stride * ad[k]);
    }
    rest_shape = rest_shape / take;
    rest_stride = provably_divides(rest_stride, cs) ? Int(1) : rest_stride / cs;
  }
  if (!is_one(rest_shape) || rs.empty()) {  // A's last mode is unbounded
    rs.push_back(rest_shape);
    rd.push_back(is_one(rest_shape) ? Int(0) : rest_stride * ad.back());
  }
  if (rs.size() == 1) return Layout(rs[0], rd[0]);
  std::vector<IntTuple> ts(rs.begin(), rs.end()), td(rd.begin(), rd.end());
  return Layout(IntTuple::tuple(std::move(ts)), IntTuple::tuple(std::move(td)));
}

// Right-distributivity, A o (B0,B1) = (A o B0, A o B1), needs A(B0(i) + B1(j)) = A(B0(i)) + A(B1(j)).
// That holds when A is one mode, and when B's non-zero modes cover disjoint spans (sorted by
// stride, each starts at or after the end of the one before). Returns false when it cannot tell.
bool distributes(const FlatA& fa, const Layout& b) {
  if (fa.flat.shape().is_leaf()) return true;
  std::vector<Int> s = flatten_leaves(b.shape()), d = flatten_leaves(b.stride());
  std::vector<std::pair<int64_t, Int>> spans;  // (stride, extent); only the last extent may be dynamic
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == Int(1) || d[i].coefficient() == Int(0)) continue;
    if (!d[i].is_static() || d[i].has_basis() || d[i].value() < 0) return false;
    spans.emplace_back(d[i].value(), s[i]);
  }
  std::stable_sort(spans.begin(), spans.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (size_t i = 1; i < spans.size(); ++i) {
    const Int& prev_extent = spans[i - 1].second;
    if (!prev_extent.is_static() || spans[i].first < checked_mul(spans[i - 1].first, prev_extent.value())) return false;
  }
  return true;
}

Layout compose(const FlatA& fa, const Layout& b) {
  const Layout& a = fa.a;
  if (b.shape().is_tuple()) {  // right-distributivity: A o (B0,B1,...) = (A o B0, A o B1, ...)
    std::vector<Layout> modes;
    for (int i = 0; i < b.rank(); ++i) modes.push_back(compose(fa, b[i]));
    Layout r = make_layout(modes);
    if (!distributes(fa, b)) {
      // B's modes overlap: check the result at every coordinate where that is affordable.
      Int n = size(b);
      bool checkable =
          is_static(a.shape()) && is_static(a.stride()) && is_static(b.shape()) && is_static(b.stride()) &&
          n.value() <= (1 << 16) &&
          n.value() * static_cast<int64_t>(fa.shape.size() + flatten_leaves(b.shape()).size()) <= (1 << 22);
      bool ok = checkable;
      for (int64_t i = 0; ok && i < n.value(); ++i) ok = r(Int(i)) == a(b(Int(i)));
      if (!ok)
        fail("composition " + show(a) + " o " + show(b) + ": the modes of B overlap and A " +
             (checkable ? "does not add across them" : "cannot be shown to add across them") +
             ", so A o B is not a layout");
    }
    return r;
  }
  if (b.stride().leaf().has_basis())
    fail("composition " + show(a) + " o " + show(b) + ": B's strides are basis elements");
  return compose_integral(fa, b.shape().leaf(), b.stride().leaf());
}

}  // namespace

Layout composition(const Layout& a, const Layout& b) { return compose(flatten_for_composition(a), b); }

Layout composition(const Layout& a, const Tiler& tiler) {
  if (!tiler.by_mode()) return composition(a, tiler.layout());
  detail::check_tiler_rank("composition", a, tiler);
  std::vector<Layout> modes;
  for (int i = 0; i < a.rank(); ++i) modes.push_back(i < tiler.rank() ? composition(a[i], tiler.modes()[i]) : a[i]);
  return make_layout(modes);
}

Tiler Tiler::from_shape(const Shape& shape) {
  if (shape.is_leaf()) return Tiler(make_layout(shape));
  if (shape.rank() == 0) fail("a tiler needs at least one mode, got the empty shape ()");  // `<>` is no tiler either
  std::vector<Layout> modes;
  for (int i = 0; i < shape.rank(); ++i) modes.push_back(make_layout(shape[i]));
  return Tiler(std::move(modes));
}

const Layout& Tiler::layout() const {
  if (by_mode_) fail("the tiler " + show(*this) + " applies by mode; a single layout was expected");
  return modes_[0];
}

std::string to_string(const Tiler& t, Notation notation) {
  if (!t.by_mode()) return to_string(t.layout(), notation);
  std::string s = "<";
  for (int i = 0; i < t.rank(); ++i) s += (i ? "," : "") + to_string(t.modes()[i], notation);
  return s + ">";
}

}  // namespace tessel
