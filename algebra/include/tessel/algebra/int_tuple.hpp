// int_tuple.hpp: IntTuple, a leaf Int or a tuple of IntTuples (CuTe's IntTuple), and the
// operations on shapes, strides and coordinates that do not need a layout.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tessel/algebra/int.hpp"

namespace tessel {

class IntTuple {
 public:
  IntTuple() = default;                                     // the empty tuple ()
  IntTuple(Int x) : is_leaf_(true), leaf_(std::move(x)) {}  // NOLINT: a leaf converts implicitly
  template <std::integral T>
  IntTuple(T v) : IntTuple(Int(v)) {}  // NOLINT
  // A tuple: IntTuple{4, 8} is (4,8); IntTuple{4} is the rank-1 tuple (4), not the leaf 4.
  IntTuple(std::initializer_list<IntTuple> elems) : IntTuple(tuple(std::vector<IntTuple>(elems))) {}
  static IntTuple tuple(std::vector<IntTuple> elems);

  bool is_leaf() const { return is_leaf_; }
  bool is_tuple() const { return !is_leaf_; }
  // Inline where they succeed (the algebra's inner loops read modes and leaves); the refusals
  // are out of line.
  const Int& leaf() const {  // throws if this is a tuple
    if (!is_leaf_) [[unlikely]]
      not_a_leaf();
    return leaf_;
  }
  const std::vector<IntTuple>& elems() const;  // throws if this is a leaf
  int rank() const { return is_leaf_ ? 1 : elems_ ? static_cast<int>(elems_->size()) : 0; }
  // Mode i (CuTe's get<i>): a leaf is its own mode 0.
  const IntTuple& operator[](int i) const {
    if (!is_leaf_ && elems_ && i >= 0 && i < static_cast<int>(elems_->size())) [[likely]]
      return (*elems_)[static_cast<size_t>(i)];
    return mode_slow(i);
  }

 private:
  [[noreturn]] void not_a_leaf() const;
  const IntTuple& mode_slow(int i) const;  // operator[] of a leaf, or a refusal

  bool is_leaf_ = false;
  Int leaf_;
  // A tuple's modes, none for the empty tuple. Never changed once made, so copies share them: a
  // copy of a shape or stride copied every level of it (an allocation per tuple), and the algebra
  // copies layouts often.
  std::shared_ptr<const std::vector<IntTuple>> elems_;
};

using Shape = IntTuple;
using Stride = IntTuple;
using Coord = IntTuple;

bool operator==(const IntTuple& a, const IntTuple& b);

int rank(const IntTuple& t);
int depth(const IntTuple& t);              // 0 for a leaf, 1 + max depth of the modes for a tuple
Int product(const IntTuple& t);            // size of a shape
IntTuple product_each(const IntTuple& t);  // the size of each mode, as a flat tuple (leaf -> leaf)
std::vector<Int> flatten_leaves(const IntTuple& t);
IntTuple flatten(const IntTuple& t);  // leaf stays a leaf; tuples become a flat tuple
bool is_static(const IntTuple& t);    // every leaf static

// Same tree structure.
bool congruent(const IntTuple& a, const IntTuple& b);
// Every coordinate of shape a is a coordinate of shape b: same size, and a's tree refines b's.
bool compatible(const IntTuple& a, const IntTuple& b);
// a's leaves sit where b has a leaf or a tuple (a is a coarser profile of b).
bool weakly_congruent(const IntTuple& a, const IntTuple& b);

// Apply f leafwise to congruent tuples.
IntTuple transform_leaf(const IntTuple& a, const std::function<Int(const Int&)>& f);
IntTuple transform_leaf(const IntTuple& a, const IntTuple& b, const std::function<Int(const Int&, const Int&)>& f);
IntTuple repeat_like(const IntTuple& t, const Int& x);

// Compact column-major strides of a shape: exclusive prefix products (CuTe's compact_col_major).
IntTuple prefix_product(const IntTuple& shape, const Int& init = 1);
// CuTe's shape_div: a / b where each division is exact or b is a multiple of a (result 1).
IntTuple shape_div(const IntTuple& a, const IntTuple& b);
Int shape_div(const Int& a, const Int& b);
IntTuple ceil_div(const IntTuple& a, const IntTuple& b);  // modewise, b padded with 1s

// Sum of coord * stride over the leaves, with coord congruent to (a profile of) stride.
// The result is a leaf for integer strides, a coordinate tuple for basis strides.
IntTuple inner_product(const IntTuple& coord, const IntTuple& stride);
// x as a coordinate: a leaf for a plain integer, c@(i,j) as the tuple with c at mode (i,j).
IntTuple as_coordinate(const Int& x);
// Sum of two indices or coordinates (CuTe's ArithmeticTuple addition; 0 adds to anything).
IntTuple coord_sum(const IntTuple& a, const IntTuple& b);

// CuTe notation: `(4,(2,8))`.
std::string to_string(const IntTuple& t, Notation notation = Notation::Cute);
// Value under an assignment of the symbols.
IntTuple evaluate(const IntTuple& t, const Env& env);

}  // namespace tessel
