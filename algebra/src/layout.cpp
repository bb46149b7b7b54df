// layout.cpp: Layout itself: construction, queries, coordinates, slicing, modes, coalesce, filter.
#include "tessel/algebra/layout.hpp"

#include <algorithm>

#include "tessel/algebra/modes.hpp"

namespace tessel {

namespace {

// Walks the leaves in place: a list of them copied each Int (its node's count and its basis path),
// and every layout the algebra makes passes here.
void check_extents(const Shape& shape, const Shape& whole) {
  if (shape.is_tuple()) {  // tuple: each mode
    for (const IntTuple& m : shape.elems()) check_extents(m, whole);
    return;
  }
  const Int& s = shape.leaf();  // leaf
  if (s.has_basis()) fail("shape " + to_string(whole) + ": extent " + to_string(s) + " is a basis element");
  if (s.is_static() && s.value() < 1)
    fail("shape " + to_string(whole) + ": extent " + to_string(s) + " must be positive");
}

}  // namespace

Layout::Layout(Shape shape, Stride stride) : shape_(std::move(shape)), stride_(std::move(stride)) {
  if (!congruent(shape_, stride_))
    fail("layout " + to_string(shape_) + ":" + to_string(stride_) +
         ": shape and stride must have the same structure (congruent)");
  check_extents(shape_, shape_);
  product(shape_);  // the size must fit in 64 bits
}

Layout Layout::operator[](int i) const { return Layout(Unchecked{}, shape_[i], stride_[i]); }

IntTuple Layout::operator()(const Coord& c) const { return crd2idx(c, shape_, stride_); }

bool operator==(const Layout& a, const Layout& b) { return a.shape() == b.shape() && a.stride() == b.stride(); }

Layout make_layout(const Shape& shape) {
  return Layout(shape, prefix_product(shape));  // the constructor checks the extents
}

Layout make_layout(const Shape& shape, const Stride& stride) { return Layout(shape, stride); }

Layout make_layout(const std::vector<Layout>& modes) {
  std::vector<IntTuple> shapes, strides;
  shapes.reserve(modes.size());
  strides.reserve(modes.size());
  for (const auto& m : modes) {
    shapes.push_back(m.shape());
    strides.push_back(m.stride());
  }
  return Layout(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

Layout make_ordered_layout(const Shape& shape, const IntTuple& order) {
  std::vector<Int> s = flatten_leaves(shape);
  std::vector<Int> o = flatten_leaves(order);
  if (s.size() != o.size())
    fail("make_ordered_layout: order " + to_string(order) + " has " + std::to_string(o.size()) +
         " entries, the shape " + to_string(shape) + " has " + std::to_string(s.size()));
  std::vector<size_t> idx(s.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    return o[x].value("make_ordered_layout: order") < o[y].value("make_ordered_layout: order");
  });
  std::vector<Int> d(s.size());
  Int running = 1;
  for (size_t i : idx) {
    d[i] = running;
    running = running * s[i];
  }
  size_t k = 0;
  IntTuple stride = transform_leaf(shape, [&](const Int&) { return d[k++]; });
  return Layout(shape, stride);
}

Layout make_identity_layout(const Shape& shape) {
  std::function<IntTuple(const IntTuple&, BasisPath)> basis = [&](const IntTuple& s, BasisPath p) -> IntTuple {
    if (s.is_leaf()) return Int(1).with_basis(p.empty() ? BasisPath{0} : p);
    std::vector<IntTuple> r;
    for (int i = 0; i < s.rank(); ++i) {
      BasisPath q = p;
      q.push_back(i);
      r.push_back(basis(s[i], q));
    }
    return IntTuple::tuple(std::move(r));
  };
  return Layout(shape, basis(shape, {}));
}

Int size(const Layout& l) { return product(l.shape()); }

Int cosize(const Layout& l) {
  // L(size-1) + 1 is the codomain extent when strides are non-negative; with negative strides
  // the extent is 1 + sum over modes of (s-1)*|d|.
  Int c = 1;
  std::vector<Int> s = flatten_leaves(l.shape()), d = flatten_leaves(l.stride());
  for (size_t i = 0; i < s.size(); ++i) {
    if (d[i].has_basis()) fail("cosize of " + to_string(l) + ": strides are basis elements (a coordinate layout)");
    Int ad = d[i];
    if (ad.is_static() && ad.value() < 0) ad = Int(0) - ad;
    c = c + (s[i] - 1) * ad;
  }
  return c;
}

int rank(const Layout& l) { return l.rank(); }
int depth(const Layout& l) { return depth(l.shape()); }
const Shape& shape(const Layout& l) { return l.shape(); }
const Stride& stride(const Layout& l) { return l.stride(); }

Layout get(const Layout& l, const std::vector<int>& path) {
  Layout r = l;
  for (int i : path) {
    if (i < 0 || i >= r.rank())
      fail("get: mode " + std::to_string(i) + " of the layout " + to_string(r) + " does not exist (rank " +
           std::to_string(r.rank()) + ")");
    r = r[i];
  }
  return r;
}

namespace {

// A static leaf without a basis element: its value; else nothing.
bool plain_static(const IntTuple& t, int64_t& v) {
  if (!t.is_leaf() || !t.leaf().is_static() || t.leaf().has_basis()) return false;
  v = t.leaf().value();
  return true;
}

// The size of a shape whose every extent is static, in 64 bits.
bool static_size(const Shape& shape, int64_t& n) {
  if (shape.is_leaf()) return plain_static(shape, n);
  n = 1;
  for (int i = 0; i < shape.rank(); ++i) {
    int64_t m;
    if (!static_size(shape[i], m) || __builtin_mul_overflow(n, m, &n)) return false;
  }
  return true;
}

// crd2idx in 64-bit integers, for a coordinate, shape and stride whose leaves are all static
// integers (no basis elements): the same cases as crd2idx below, without building a tuple per
// step (the algebra's tuples allocate; an epilogue evaluates static layouts thousands of times).
// False where anything is not so, or a coordinate does not fit, or a value overflows: crd2idx
// then takes its general path, which computes the same value or refuses with its message.
// The int case of static_crd2idx, the index as a 64-bit integer (not a tuple made per mode).
bool static_index(int64_t idx, const Shape& shape, const Stride& stride, int64_t& out) {
  if (shape.is_leaf()) {  // int int
    int64_t d;
    return plain_static(stride, d) && !__builtin_mul_overflow(idx, d, &out);
  }
  if (stride.is_leaf() || stride.rank() != shape.rank()) return false;
  out = 0;  // int tuple: colexicographic, the last mode takes what is left (truncating, as Int's / and %)
  for (int i = 0; i < shape.rank(); ++i) {
    int64_t here = idx, m;
    if (i + 1 < shape.rank()) {
      int64_t s;
      if (!static_size(shape[i], s) || s <= 0) return false;
      here = idx % s;
      idx = idx / s;
    }
    if (!static_index(here, shape[i], stride[i], m) || __builtin_add_overflow(out, m, &out)) return false;
  }
  return true;
}

bool static_crd2idx(const Coord& coord, const Shape& shape, const Stride& stride, int64_t& out) {
  if (coord.is_tuple()) {  // tuple: the sum over the modes
    if (shape.is_leaf() || coord.rank() != shape.rank() || stride.is_leaf() || stride.rank() != shape.rank())
      return false;
    out = 0;
    for (int i = 0; i < shape.rank(); ++i) {
      int64_t m;
      if (!static_crd2idx(coord[i], shape[i], stride[i], m) || __builtin_add_overflow(out, m, &out)) return false;
    }
    return true;
  }
  int64_t idx;
  if (!plain_static(coord, idx)) return false;
  return static_index(idx, shape, stride, out);
}

// crd2idx of a static index where the strides may be dynamic (no basis elements), the extents
// it divides by static: the Int operations of the general path below, in its order (so the same
// expression), without the tuples it makes per mode (an epilogue evaluates its views with a
// dynamic leading dimension once per element). False where that is not the case.
bool static_index_dynamic_stride(int64_t idx, const Shape& shape, const Stride& stride, Int& out) {
  if (shape.is_leaf()) {  // int int
    if (!stride.is_leaf() || stride.leaf().has_basis()) return false;
    out = Int(idx) * stride.leaf();
    return true;
  }
  if (stride.is_leaf() || stride.rank() != shape.rank()) return false;
  out = Int(0);  // int tuple: colexicographic, the last mode takes what is left
  for (int i = 0; i < shape.rank(); ++i) {
    int64_t here = idx;
    if (i + 1 < shape.rank()) {
      int64_t s;
      if (!static_size(shape[i], s) || s <= 0) return false;
      here = idx % s;
      idx = idx / s;
    }
    Int m;
    if (!static_index_dynamic_stride(here, shape[i], stride[i], m)) return false;
    out = out + m;
  }
  return true;
}

}  // namespace

IntTuple crd2idx(const Coord& coord, const Shape& shape, const Stride& stride) {
  if (int64_t idx; static_crd2idx(coord, shape, stride, idx)) return Int(idx);
  if (int64_t idx; plain_static(coord, idx)) {
    if (Int out; static_index_dynamic_stride(idx, shape, stride, out)) return out;
  }
  if (coord.is_tuple()) {
    if (shape.is_leaf() || coord.rank() != shape.rank())
      fail("coordinate " + to_string(coord) + " does not fit the shape " + to_string(shape));
    IntTuple sum = Int(0);
    for (int i = 0; i < shape.rank(); ++i) sum = coord_sum(sum, crd2idx(coord[i], shape[i], stride[i]));
    return sum;
  }
  if (shape.is_leaf()) return inner_product(coord, stride);  // int int
  // int tuple: read the index colexicographically; the last mode takes what is left
  Int idx = coord.leaf();
  std::vector<IntTuple> crd;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i + 1 == shape.rank()) {
      crd.push_back(idx);
    } else {
      Int s = product(shape[i]);
      crd.push_back(idx % s);
      idx = idx / s;
    }
  }
  IntTuple sum = Int(0);
  for (int i = 0; i < shape.rank(); ++i) sum = coord_sum(sum, crd2idx(crd[i], shape[i], stride[i]));
  return sum;
}

Coord idx2crd(const Int& index, const Shape& shape) {
  if (shape.is_leaf()) return index;
  std::vector<IntTuple> crd;
  Int idx = index;
  for (int i = 0; i < shape.rank(); ++i) {
    Int s = product(shape[i]);
    Int here = i + 1 == shape.rank() ? idx : idx % s;
    crd.push_back(idx2crd(here, shape[i]));
    idx = idx / s;
  }
  return IntTuple::tuple(std::move(crd));
}

Coord crd2crd(const Coord& coord, const Shape& shape) {
  if (coord.is_leaf()) return idx2crd(coord.leaf(), shape);
  if (shape.is_leaf() || coord.rank() != shape.rank())
    fail("coordinate " + to_string(coord) + " does not fit the shape " + to_string(shape));
  std::vector<IntTuple> r;
  for (int i = 0; i < shape.rank(); ++i) r.push_back(crd2crd(coord[i], shape[i]));
  return IntTuple::tuple(std::move(r));
}

std::vector<int64_t> static_indices(const Layout& l) {
  // L(i) reads i colexicographically over the flattened leaves (the first fastest; within
  // [0, size) the last leaf's "what is left" is its own extent's digit).
  const std::vector<Int> shape = flatten_leaves(l.shape()), stride = flatten_leaves(l.stride());
  std::vector<int64_t> s, d;
  for (size_t j = 0; j < shape.size(); ++j) {
    if (!shape[j].is_static() || !stride[j].is_static() || shape[j].has_basis() || stride[j].has_basis())
      fail("static_indices of " + to_string(l) + ": every extent and stride must be a static integer");
    s.push_back(shape[j].value());
    d.push_back(stride[j].value());
  }
  std::vector<int64_t> out(static_cast<size_t>(size(l).value("static_indices: the layout's size")));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i), v = 0;
    bool overflow = false;
    for (size_t j = 0; j < s.size(); ++j) {
      int64_t term;
      overflow |= __builtin_mul_overflow(rest % s[j], d[j], &term) || __builtin_add_overflow(v, term, &v);
      rest /= s[j];
    }
    if (overflow) fail("static_indices of " + to_string(l) + ": index " + std::to_string(i) + " overflows 64 bits");
    out[i] = v;
  }
  return out;
}

SliceCoord SliceCoord::underscore() { return SliceCoord(); }

SliceCoord SliceCoord::tuple(std::vector<SliceCoord> elems) {
  SliceCoord c;
  c.kind_ = Kind::Tuple;
  c.elems_ = std::move(elems);
  return c;
}

std::string to_string(const SliceCoord& c) {
  if (c.is_underscore()) return "_";
  if (c.is_value()) return to_string(c.value());
  std::string s = "(";
  for (size_t i = 0; i < c.elems().size(); ++i) s += (i ? "," : "") + to_string(c.elems()[i]);
  return s + ")";
}

namespace {

// Walks coord against the layout: `keep_underscore` collects the `_` modes (slice) or the
// value modes (dice); nested tuples splice their kept modes into the enclosing tuple (CuTe).
void slice_walk(const SliceCoord& c, const IntTuple& s, const IntTuple& d, bool keep_underscore,
                std::vector<IntTuple>& shapes, std::vector<IntTuple>& strides, IntTuple& offset) {
  if (c.is_tuple()) {
    if (s.is_leaf() || static_cast<int>(c.elems().size()) != s.rank())
      fail("slice coordinate " + to_string(c) + " does not fit the shape " + to_string(s));
    for (int i = 0; i < s.rank(); ++i) slice_walk(c.elems()[i], s[i], d[i], keep_underscore, shapes, strides, offset);
    return;
  }
  if (c.is_underscore() == keep_underscore) {
    shapes.push_back(s);
    strides.push_back(d);
    return;
  }
  if (c.is_value()) {
    Int n = product(s);
    const Int& v = c.value();
    if (v.is_static() && n.is_static() && (v.value() < 0 || v.value() >= n.value()))
      fail("slice: coordinate " + to_string(v) + " is outside the mode " + to_string(s) + " (extent " + to_string(n) +
           ")");
    offset = coord_sum(offset, crd2idx(v, s, d));
  }
}

Layout sliced(const SliceCoord& coord, const Layout& l, bool keep_underscore, IntTuple* offset_out) {
  std::vector<IntTuple> shapes, strides;
  IntTuple offset = Int(0);
  if (!coord.is_tuple()) {  // a whole-layout `_` or value
    if (coord.is_underscore() == keep_underscore) {
      if (offset_out) *offset_out = Int(0);
      return l;
    }
    if (coord.is_value()) offset = crd2idx(coord.value(), l.shape(), l.stride());
  } else {
    slice_walk(coord, l.shape(), l.stride(), keep_underscore, shapes, strides, offset);
  }
  if (offset_out) *offset_out = offset;
  return Layout(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

}  // namespace

Layout slice(const SliceCoord& coord, const Layout& l) { return sliced(coord, l, true, nullptr); }
Layout dice(const SliceCoord& coord, const Layout& l) { return sliced(coord, l, false, nullptr); }

std::pair<Layout, IntTuple> slice_and_offset(const SliceCoord& coord, const Layout& l) {
  IntTuple offset = Int(0);
  Layout r = sliced(coord, l, true, &offset);
  return {r, offset};
}

Layout append(const Layout& l, const Layout& m) {
  std::vector<Layout> modes = detail::top_modes(l);
  modes.push_back(m);
  return make_layout(modes);
}

Layout prepend(const Layout& l, const Layout& m) {
  std::vector<Layout> modes = detail::top_modes(l);
  modes.insert(modes.begin(), m);
  return make_layout(modes);
}

Layout group(const Layout& l, int begin, int end) {
  std::vector<Layout> modes = detail::top_modes(l);
  int r = static_cast<int>(modes.size());
  if (begin < 0 || end > r || begin >= end)
    fail("group: range [" + std::to_string(begin) + "," + std::to_string(end) + ") is not a non-empty range of the " +
         std::to_string(r) + " modes of " + to_string(l));
  std::vector<Layout> inner(modes.begin() + begin, modes.begin() + end);
  std::vector<Layout> out(modes.begin(), modes.begin() + begin);
  out.push_back(make_layout(inner));
  out.insert(out.end(), modes.begin() + end, modes.end());
  return make_layout(out);
}

Layout flatten(const Layout& l) { return Layout(flatten(l.shape()), flatten(l.stride())); }

Layout coalesce(const Layout& l) {
  std::vector<Int> s = flatten_leaves(l.shape()), d = flatten_leaves(l.stride());
  std::vector<Int> rs, rd;  // at most one mode per leaf, made once (growing one was a tenth of coalesce)
  rs.reserve(s.size() + 1);
  rd.reserve(s.size() + 1);
  rs.push_back(1);
  rd.push_back(0);
  // Where a mode contiguous with the last kept leaf starts: that leaf's stride times its extent,
  // built as prefix_product builds a compact stride, so that such a stride is found equal through
  // their shared operands at once; comparing rs.back() * rd.back() with it instead walked both
  // products to their ends, quadratic in the leaves of a symbolic layout (8000 symbols: seconds).
  // That form stays as the fallback: it also matches strides written in another association.
  Int next = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == Int(1)) continue;  // extent 1: drop
    if (rs.back() == Int(1)) {     // replace the placeholder
      rs.back() = s[i];
      rd.back() = d[i];
    } else if (next == d[i] || rs.back() * rd.back() == d[i]) {  // contiguous with the previous mode: merge
      rs.back() = rs.back() * s[i];
    } else {
      rs.push_back(s[i]);
      rd.push_back(d[i]);
    }
    next = d[i] * s[i];
  }
  if (rs.size() == 1) return Layout(rs[0], rd[0]);
  std::vector<IntTuple> ts(rs.begin(), rs.end()), td(rd.begin(), rd.end());
  return Layout(IntTuple::tuple(std::move(ts)), IntTuple::tuple(std::move(td)));
}

Layout coalesce(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return coalesce(l);
  if (l.shape().is_leaf() && profile.rank() == 1) return coalesce(l, profile[0]);  // a 1-D layout is its own mode
  if (profile.rank() > l.rank() || l.shape().is_leaf())
    fail("coalesce: profile " + to_string(profile) + " has more modes than " + to_string(l));
  std::vector<Layout> modes;
  for (int i = 0; i < l.rank(); ++i) modes.push_back(i < profile.rank() ? coalesce(l[i], profile[i]) : l[i]);
  return make_layout(modes);
}

Layout filter(const Layout& l) {
  // Modes of stride 0 become extent 1, which coalesce drops.
  IntTuple s = transform_leaf(l.shape(), l.stride(),
                              [](const Int& si, const Int& di) { return di.coefficient() == Int(0) ? Int(1) : si; });
  return coalesce(Layout(s, l.stride()));
}

std::string to_string(const Layout& l, Notation notation) {
  return to_string(l.shape(), notation) + ":" + to_string(l.stride(), notation);
}

Layout evaluate(const Layout& l, const Env& env) { return Layout(evaluate(l.shape(), env), evaluate(l.stride(), env)); }

}  // namespace tessel
