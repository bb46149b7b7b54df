// layout.hpp: Layout = Shape:Stride, a function from coordinates to indices, and the layout
// algebra built on it (CuTe's names and semantics). Contracts are written above each operation
// as @pre/@post lines; tests/algebra/ checks exactly these, numbered the same.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessel/algebra/int_tuple.hpp"

namespace tessel {

class Layout {
 public:
  Layout() : shape_(1), stride_(0) {}  // 1:0
  // @pre stride is congruent to shape; every static extent of shape is >= 1.
  Layout(Shape shape, Stride stride);

  const Shape& shape() const { return shape_; }
  const Stride& stride() const { return stride_; }
  int rank() const { return shape_.rank(); }
  Layout operator[](int i) const;  // mode i (CuTe's layout<i>)
  // L(c): c is an index (an integer, read colexicographically) or a coordinate of any profile
  // of the shape. The result is an integer leaf, or a coordinate for identity layouts.
  IntTuple operator()(const Coord& c) const;

 private:
  // A mode of a layout, which the whole's checks cover already (the algebra takes modes in its
  // inner loops).
  struct Unchecked {};
  Layout(Unchecked, const Shape& shape, const Stride& stride) : shape_(shape), stride_(stride) {}

  Shape shape_;
  Stride stride_;
};

bool operator==(const Layout& a, const Layout& b);  // same shape and stride (exact)

// Construction.
Layout make_layout(const Shape& shape);  // compact column-major: strides are prefix products
Layout make_layout(const Shape& shape, const Stride& stride);
Layout make_layout(const std::vector<Layout>& modes);  // each layout becomes one mode
// Compact layout whose modes get increasing strides in the order given by `order` (ties by
// position), e.g. make_ordered_layout((4,32),(1,0)) = (4,32):(32,1).
Layout make_ordered_layout(const Shape& shape, const IntTuple& order);
// The layout that maps each coordinate of `shape` to itself: strides are basis elements e_i.
Layout make_identity_layout(const Shape& shape);

// Queries.
Int size(const Layout& l);
Int cosize(const Layout& l);  // L(size-1) + 1 for non-negative strides: the codomain extent
int rank(const Layout& l);
int depth(const Layout& l);
const Shape& shape(const Layout& l);
const Stride& stride(const Layout& l);
Layout get(const Layout& l, const std::vector<int>& path);  // get<i,j,...>

// Coordinates and indices.
IntTuple crd2idx(const Coord& coord, const Shape& shape, const Stride& stride);
Coord idx2crd(const Int& index, const Shape& shape);    // colexicographic
Coord crd2crd(const Coord& coord, const Shape& shape);  // any profile -> the shape's own profile
// L at every index of a static layout, in 64-bit integers (a generator checks or tabulates a
// fragment's offsets: evaluating L per index builds a tuple per mode).
// @pre every leaf of L's shape and stride is a static integer (no basis elements).
// @post (1) out.size() == size(L); (2) out[i] == L(i) for every i in [0, size(L)).
std::vector<int64_t> static_indices(const Layout& l);

// Slicing: a coordinate in which some modes are `_` (keep the whole mode).
class SliceCoord {
 public:
  SliceCoord(Int x) : kind_(Kind::Value), value_(std::move(x)) {}  // NOLINT
  template <std::integral T>
  SliceCoord(T v) : SliceCoord(Int(v)) {}  // NOLINT
  SliceCoord(std::initializer_list<SliceCoord> elems) : kind_(Kind::Tuple), elems_(elems) {}
  static SliceCoord underscore();
  static SliceCoord tuple(std::vector<SliceCoord> elems);
  bool is_underscore() const { return kind_ == Kind::Underscore; }
  bool is_value() const { return kind_ == Kind::Value; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  const Int& value() const { return value_; }
  const std::vector<SliceCoord>& elems() const { return elems_; }

 private:
  enum class Kind { Value, Underscore, Tuple };
  SliceCoord() = default;
  Kind kind_ = Kind::Underscore;
  Int value_;
  std::vector<SliceCoord> elems_;
};
inline const SliceCoord _ = SliceCoord::underscore();
std::string to_string(const SliceCoord& c);

// @post slice(c, L)(k) + offset = L(c with the `_` modes given by k)
Layout slice(const SliceCoord& coord, const Layout& l);  // the `_` modes
Layout dice(const SliceCoord& coord, const Layout& l);   // the modes that are not `_`
std::pair<Layout, IntTuple> slice_and_offset(const SliceCoord& coord, const Layout& l);

// Modes.
Layout append(const Layout& l, const Layout& m);    // (l..., m); a rank-1 l counts as one mode
Layout prepend(const Layout& l, const Layout& m);   // (m, l...)
Layout group(const Layout& l, int begin, int end);  // modes [begin,end) become one mode
Layout flatten(const Layout& l);

// coalesce(L): the simplest layout with the same function.
// @post (1) size(R) == size(L)   (2) depth(R) <= 1   (3) R(i) == L(i) for all i < size(L)
Layout coalesce(const Layout& l);
// coalesce by profile: coalesces each mode that the profile names, keeping the structure above.
// @post (1) size(R) == size(L)   (2) R(i) == L(i)   (3) rank(R) == rank(L) where profile is a tuple
Layout coalesce(const Layout& l, const IntTuple& profile);
// filter(L): coalesce after removing modes of stride 0 and extent 1.
// @post (1) image(R) == image(L)   (2) R has no mode of stride 0 and extent > 1   (3) depth(R) <= 1
Layout filter(const Layout& l);

// A tiler: one layout applied to a whole layout, or <L0,L1,...> applied mode by mode.
class Tiler {
 public:
  Tiler(Layout layout) : modes_{std::move(layout)}, by_mode_(false) {}  // NOLINT
  explicit Tiler(std::vector<Layout> modes) : modes_(std::move(modes)), by_mode_(true) {}
  // A shape as a tiler: (4,8) is <4:1,8:1>; an integer n is n:1.
  static Tiler from_shape(const Shape& shape);
  bool by_mode() const { return by_mode_; }
  const std::vector<Layout>& modes() const { return modes_; }
  const Layout& layout() const;  // the whole-layout tiler; throws for a by-mode tiler
  int rank() const { return static_cast<int>(modes_.size()); }

 private:
  std::vector<Layout> modes_;
  bool by_mode_;
};
std::string to_string(const Tiler& t, Notation notation = Notation::Cute);  // `<3:3,(2,4):(1,8)>` or the layout

// composition(A, B) = A o B.
// @pre  the stride and shape divisibility conditions hold (CuTe): each step of B through the
//       modes of coalesce(A) divides evenly; A's last mode is treated as unbounded.
// @post (1) R is compatible with B   (2) R(c) == A(B(c)) for every coordinate c of B
Layout composition(const Layout& a, const Layout& b);
// By mode: mode i of the tiler composes with mode i of A; A's remaining modes are kept.
// @pre rank(tiler) <= rank(A)
Layout composition(const Layout& a, const Tiler& tiler);

// complement(A, cotarget): the layout of the indices A does not reach, ordered, up to cotarget.
// @pre  A is injective on its non-trivial modes, with strides that each step evenly past the
//       ones below them (so the complement is a layout)
// @post (1) R is injective   (2) R is disjoint from A: R(i) != A(j) for i >= 1, any j
//       (3) R is ordered: R(i-1) < R(i)   (4) cosize(make_layout(A,R)) >= cotarget
Layout complement(const Layout& a, const Int& cotarget);
Layout complement(const Layout& a);  // cotarget = cosize(A)

// right_inverse(A): the largest R with A(R(i)) == i for i < size(R).
// @post (1) A(R(i)) == i for all i < size(R)
Layout right_inverse(const Layout& a);
// left_inverse(A): R with R(A(i)) == i for all i < size(A).
// @pre A is injective
// @post (1) R(A(i)) == i for all i < size(A)
Layout left_inverse(const Layout& a);

// Divides: logical_divide(A, B) = composition(A, B') with B' = (B, complement(B, size(A))).
// @post (1) mode 0 of R is the function A o B   (2) R(i) == A(B'(i)) for i < size(R)
// The zipped, tiled and flat forms rearrange the modes ((tile_i, rest_i) by mode) of R.
Layout logical_divide(const Layout& a, const Tiler& tiler);
Layout zipped_divide(const Layout& a, const Tiler& tiler);  // ((tile modes),(rest modes))
Layout tiled_divide(const Layout& a, const Tiler& tiler);   // ((tile modes),rest...)
Layout flat_divide(const Layout& a, const Tiler& tiler);    // (tile modes...,rest...)

// Products: logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B).
// @pre  the complement of A exists (A injective, strides that nest) and composes with B
// @post (1) mode 0 of R is A   (2) mode 1 of R is the function complement(A, size(A)*cosize(B)) o B
//       (3) R is injective when A and B are;  rank(R) == 2, size(R) == size(A) * size(B)
Layout logical_product(const Layout& a, const Tiler& tiler);
Layout zipped_product(const Layout& a, const Tiler& tiler);
Layout tiled_product(const Layout& a, const Tiler& tiler);
Layout flat_product(const Layout& a, const Tiler& tiler);
// blocked_product(A, B): mode i is (A_i, B_i'): A's tile repeated as B's blocks.
// raked_product(A, B):   mode i is (B_i', A_i): A's elements interleaved (raked) over B.
// With P = logical_product(A, B) (both padded to rank r = max(rank(A), rank(B)) with 1:0 modes;
// at r == 1 each half of P is one whole mode, whatever its own rank):
// @pre  as logical_product
// @post (1) blocked: R(a_i + size(A_i)*b_i ...) == P((a...),(b...))
//           raked:   R(b_i + size(B_i')*a_i ...) == P((a...),(b...))   (2) each mode has depth <= 1
//       (3) rank(R) == r, size(R) == size(A) * size(B), R injective when A and B are
Layout blocked_product(const Layout& a, const Layout& b);
Layout raked_product(const Layout& a, const Layout& b);

// make_layout_tv(thr, val): the tiler (M,N) covered by thr x val and the TV layout
// (T,V) -> (M,N) index, as in CuTe DSL: with MN = raked_product(thr, val) and N = size(thr)*size(val),
// @pre  MN is a bijection onto [0, N): thr and val may have gaps only where the other fills them
//       (4:1 with (6,2):(1,18) is refused), and right_inverse(MN) read as (T,V) is a layout
// @post (1) tiler == product_each(shape(MN))   (2) MN(R(i)) == i for i < size(R)
//       (3) R is a bijection from (T,V) = [0, N) onto the tile's [0, N): one (thread, value) per cell
struct TVLayout {
  Shape tiler;
  Layout layout;
};
TVLayout make_layout_tv(const Layout& thr, const Layout& val);
std::string to_string(const TVLayout& tv,
                      Notation notation = Notation::Cute);  // `(16,128) ((32,4),(4,4)):((64,4),(16,1))`

// tile_to_shape(block, target, order): block repeated (blocked_product) to cover target, the
// repetitions ordered by `order` (column-major by default).
// @pre every extent of block divides the target's in that mode; rank(block) <= rank(target);
//      block has a complement (as blocked_product)
// @post (1) product_each(shape(R)) == product_each(target) for a tuple target; size(R) == target for
//       an integer one (R is then fully coalesced, as in CuTe)   (2) R agrees with block on block's
//       domain (mode i of R starts with mode i of block)   (3) R is injective when block is
Layout tile_to_shape(const Layout& block, const Shape& target, const std::optional<IntTuple>& order = {});

// CuTe notation: `(4,8):(8,1)`.
std::string to_string(const Layout& l, Notation notation = Notation::Cute);
Layout evaluate(const Layout& l, const Env& env);

}  // namespace tessel
