// int_tuple.cpp: shapes, strides and coordinates as trees of Ints.
#include "tessel/algebra/int_tuple.hpp"

#include <algorithm>

namespace tessel {

IntTuple IntTuple::tuple(std::vector<IntTuple> elems) {
  IntTuple t;
  if (!elems.empty()) t.elems_ = std::make_shared<const std::vector<IntTuple>>(std::move(elems));
  return t;
}

void IntTuple::not_a_leaf() const { fail("expected an integer, got the tuple " + to_string(*this)); }

const std::vector<IntTuple>& IntTuple::elems() const {
  if (is_leaf_) fail("expected a tuple, got the integer " + to_string(*this));
  static const std::vector<IntTuple> kNone;  // the empty tuple's
  return elems_ ? *elems_ : kNone;
}

const IntTuple& IntTuple::mode_slow(int i) const {
  if (is_leaf_) {
    if (i != 0) fail("mode " + std::to_string(i) + " of the integer " + to_string(*this) + " does not exist");
    return *this;
  }
  if (i < 0 || i >= rank())
    fail("mode " + std::to_string(i) + " of " + to_string(*this) + " does not exist (rank " + std::to_string(rank()) +
         ")");
  return (*elems_)[static_cast<size_t>(i)];
}

bool operator==(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() != b.is_leaf()) return false;
  if (a.is_leaf()) return a.leaf() == b.leaf();
  return a.elems() == b.elems();
}

int rank(const IntTuple& t) { return t.rank(); }

int depth(const IntTuple& t) {
  if (t.is_leaf()) return 0;
  int d = 0;
  for (const auto& e : t.elems()) d = std::max(d, depth(e));
  return 1 + d;
}

Int product(const IntTuple& t) {
  if (t.is_leaf()) return t.leaf();
  Int p = 1;
  for (const auto& e : t.elems()) p = p * product(e);
  return p;
}

IntTuple product_each(const IntTuple& t) {
  if (t.is_leaf()) return t;
  std::vector<IntTuple> r;
  for (const auto& e : t.elems()) r.emplace_back(product(e));
  return IntTuple::tuple(std::move(r));
}

static void flatten_into(const IntTuple& t, std::vector<Int>& out) {
  if (t.is_leaf()) {
    out.push_back(t.leaf());
    return;
  }
  for (const auto& e : t.elems()) flatten_into(e, out);
}

std::vector<Int> flatten_leaves(const IntTuple& t) {
  std::vector<Int> out;
  out.reserve(8);  // most tuples have at most 8 leaves: one allocation, not one per doubling
  flatten_into(t, out);
  return out;
}

IntTuple flatten(const IntTuple& t) {
  if (t.is_leaf()) return t;
  std::vector<IntTuple> r;
  for (const auto& x : flatten_leaves(t)) r.emplace_back(x);
  return IntTuple::tuple(std::move(r));
}

bool is_static(const IntTuple& t) {
  for (const auto& x : flatten_leaves(t))
    if (x.is_dynamic()) return false;
  return true;
}

bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (!congruent(a[i], b[i])) return false;
  return true;
}

bool weakly_congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf()) return true;   // leaf: int leaf / int tuple
  if (b.is_leaf()) return false;  // tuple int
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (!weakly_congruent(a[i], b[i])) return false;
  return true;
}

bool compatible(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf()) return product(b) == a.leaf();  // int int / int tuple: sizes agree
  if (b.is_leaf()) return false;                   // tuple int
  if (a.rank() != b.rank()) return false;          // tuple tuple
  for (int i = 0; i < a.rank(); ++i)
    if (!compatible(a[i], b[i])) return false;
  return true;
}

IntTuple transform_leaf(const IntTuple& a, const std::function<Int(const Int&)>& f) {
  if (a.is_leaf()) return f(a.leaf());
  std::vector<IntTuple> r;
  for (const auto& e : a.elems()) r.push_back(transform_leaf(e, f));
  return IntTuple::tuple(std::move(r));
}

IntTuple transform_leaf(const IntTuple& a, const IntTuple& b, const std::function<Int(const Int&, const Int&)>& f) {
  if (!congruent(a, b)) fail(to_string(a) + " and " + to_string(b) + " are not congruent");
  if (a.is_leaf()) return f(a.leaf(), b.leaf());
  std::vector<IntTuple> r;
  for (int i = 0; i < a.rank(); ++i) r.push_back(transform_leaf(a[i], b[i], f));
  return IntTuple::tuple(std::move(r));
}

IntTuple repeat_like(const IntTuple& t, const Int& x) {
  return transform_leaf(t, [&](const Int&) { return x; });
}

IntTuple prefix_product(const IntTuple& shape, const Int& init) {
  Int running = init;
  return transform_leaf(shape, [&](const Int& s) {
    Int r = running;
    running = running * s;
    return r;
  });
}

Int shape_div(const Int& a, const Int& b) {
  if (b == Int(0)) fail("shape_div: division by zero: " + to_string(a) + " / 0");
  if (provably_divides(b, a)) return a / b;
  if (provably_divides(a, b)) return Int(1);  // b is a multiple of a: a / b rounds up to 1
  fail("shape_div: neither of " + to_string(a) + " and " + to_string(b) + " is known to divide the other (" +
       expr_string(a) + ", " + expr_string(b) + ")");
}

IntTuple shape_div(const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple()) {
    if (b.is_tuple()) {  // tuple tuple
      if (a.rank() != b.rank()) fail("shape_div: ranks of " + to_string(a) + " and " + to_string(b) + " differ");
      std::vector<IntTuple> r;
      for (int i = 0; i < a.rank(); ++i) r.push_back(shape_div(a[i], b[i]));
      return IntTuple::tuple(std::move(r));
    }
    // tuple int: divide the modes in order, carrying what is left of b
    std::vector<IntTuple> r;
    Int rest = b.leaf();
    for (const auto& e : a.elems()) {
      r.push_back(shape_div(e, IntTuple(rest)));
      rest = shape_div(rest, product(e));
    }
    return IntTuple::tuple(std::move(r));
  }
  if (b.is_tuple()) return shape_div(a, IntTuple(product(b)));  // int tuple
  return shape_div(a.leaf(), b.leaf());                         // int int
}

IntTuple ceil_div(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf()) return ceil_div(a.leaf(), product(b));
  if (b.is_leaf()) {
    std::vector<IntTuple> r;
    Int rest = b.leaf();
    for (const auto& e : a.elems()) {  // divide the first mode, the rest by 1 (CuTe's padding)
      r.push_back(ceil_div(e, IntTuple(rest)));
      rest = 1;
    }
    return IntTuple::tuple(std::move(r));
  }
  if (b.rank() > a.rank()) fail("ceil_div: " + to_string(b) + " has a higher rank than " + to_string(a));
  std::vector<IntTuple> r;
  for (int i = 0; i < a.rank(); ++i) r.push_back(i < b.rank() ? ceil_div(a[i], b[i]) : a[i]);
  return IntTuple::tuple(std::move(r));
}

IntTuple as_coordinate(const Int& x) {
  IntTuple r = x.coefficient();
  for (auto it = x.basis().rbegin(); it != x.basis().rend(); ++it) {
    std::vector<IntTuple> elems(static_cast<size_t>(*it) + 1, IntTuple(Int(0)));
    elems[*it] = r;
    r = IntTuple::tuple(std::move(elems));
  }
  return r;
}

IntTuple coord_sum(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() && b.is_leaf()) return a.leaf() + b.leaf();  // int int
  if (a.is_leaf() && a.leaf() == Int(0)) return b;             // 0 + coordinate
  if (b.is_leaf() && b.leaf() == Int(0)) return a;
  if (a.is_leaf() || b.is_leaf())
    fail("cannot add the integer " + to_string(a.is_leaf() ? a : b) + " to the coordinate " +
         to_string(a.is_leaf() ? b : a));
  std::vector<IntTuple> r;  // tuple tuple: elementwise, the shorter padded with zeros
  for (int i = 0; i < std::max(a.rank(), b.rank()); ++i)
    r.push_back(coord_sum(i < a.rank() ? a[i] : IntTuple(Int(0)), i < b.rank() ? b[i] : IntTuple(Int(0))));
  return IntTuple::tuple(std::move(r));
}

IntTuple inner_product(const IntTuple& coord, const IntTuple& stride) {
  if (coord.is_leaf() && stride.is_leaf()) return as_coordinate(coord.leaf() * stride.leaf());
  if (coord.is_leaf() || stride.is_leaf() || coord.rank() != stride.rank())
    fail("coordinate " + to_string(coord) + " does not match the stride " + to_string(stride));
  IntTuple sum = Int(0);
  for (int i = 0; i < coord.rank(); ++i) sum = coord_sum(sum, inner_product(coord[i], stride[i]));
  return sum;
}

std::string to_string(const IntTuple& t, Notation notation) {
  if (t.is_leaf()) return to_string(t.leaf(), notation);
  std::string s = "(";
  for (int i = 0; i < t.rank(); ++i) {
    if (i) s += ",";
    s += to_string(t[i], notation);
  }
  return s + ")";
}

IntTuple evaluate(const IntTuple& t, const Env& env) {
  return transform_leaf(t, [&](const Int& x) { return Int(evaluate(x.coefficient(), env)).with_basis(x.basis()); });
}

}  // namespace tessel
