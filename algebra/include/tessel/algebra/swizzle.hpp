// swizzle.hpp: Swizzle<B,M,S> (CuTe's Sw<B,M,S>) and composed layouts swizzle o offset o layout,
// the shared-memory layouts that avoid bank conflicts.
#pragma once

#include <string>

#include "tessel/algebra/layout.hpp"

namespace tessel {

// Sw<B,M,S>: XOR the B bits at [M+S, M+S+B) of an offset into the bits at [M, M+B):
//   f(x) = x ^ ((x & yyy) >> S), with yyy = ((1<<B)-1) << (M+S).
// Keeps the M lowest bits (a 2^M-element vector stays contiguous); f o f = identity.
// @pre B >= 0, M >= 0, |S| >= B (the bit ranges do not overlap), B+M+|S| <= 62
struct Swizzle {
  int bits = 0, base = 0, shift = 0;  // B, M, S
  Swizzle() = default;
  Swizzle(int b, int m, int s);
  Int operator()(const Int& offset) const;  // symbolic: builds &, >>, ^ for dynamic offsets
  bool is_identity() const { return bits == 0; }
};
bool operator==(const Swizzle& a, const Swizzle& b);
std::string to_string(const Swizzle& s);  // `Sw<3,4,3>`

// R(c) = swizzle(offset + layout(c)).
struct ComposedLayout {
  Swizzle swizzle;
  Int offset = 0;
  Layout layout;
  IntTuple operator()(const Coord& c) const;
};
std::string to_string(const ComposedLayout& l, Notation notation = Notation::Cute);  // `Sw<3,4,3> o 0 o (8,64):(64,1)`

ComposedLayout composition(const Swizzle& s, const Layout& l);  // s o 0 o l
// (S o off o L) o B = S o off o (L o B): the swizzle stays outermost.
ComposedLayout composition(const ComposedLayout& a, const Layout& b);
ComposedLayout composition(const ComposedLayout& a, const Tiler& tiler);
// tile_to_shape and the products act on the inner layout.
ComposedLayout tile_to_shape(const ComposedLayout& block, const Shape& target,
                             const std::optional<IntTuple>& order = {});
ComposedLayout blocked_product(const ComposedLayout& a, const Layout& b);
// Slicing moves the sliced-away part into the offset: S o (off + L(c)) o slice(c, L).
ComposedLayout slice(const SliceCoord& coord, const ComposedLayout& l);
Int size(const ComposedLayout& l);
Int cosize(const ComposedLayout& l);

}  // namespace tessel
