// swizzle.cpp: Swizzle<B,M,S> and composed layouts.
#include "tessel/algebra/swizzle.hpp"

#include <cstdlib>

namespace tessel {

Swizzle::Swizzle(int b, int m, int s) : bits(b), base(m), shift(s) {
  if (b < 0 || m < 0 || std::abs(s) < b || b + m + std::abs(s) > 62)
    fail("Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) +
         ">: needs B >= 0, M >= 0, |S| >= B and B+M+|S| <= 62");
}

Int Swizzle::operator()(const Int& offset) const {
  if (bits == 0) return offset;
  int64_t mask = (int64_t{1} << bits) - 1;
  int64_t yyy = mask << (base + std::max(0, shift));
  Int taken = bit_and(offset, Int(yyy));
  Int moved = shift >= 0 ? shift_right(taken, Int(shift)) : shift_left(taken, Int(-shift));
  return bit_xor(offset, moved);
}

bool operator==(const Swizzle& a, const Swizzle& b) {
  return a.bits == b.bits && a.base == b.base && a.shift == b.shift;
}

std::string to_string(const Swizzle& s) {
  return "Sw<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," + std::to_string(s.shift) + ">";
}

IntTuple ComposedLayout::operator()(const Coord& c) const {
  IntTuple idx = layout(c);
  return swizzle(offset + idx.leaf());
}

std::string to_string(const ComposedLayout& l, Notation notation) {
  return to_string(l.swizzle) + " o " + to_string(l.offset, notation) + " o " + to_string(l.layout, notation);
}

ComposedLayout composition(const Swizzle& s, const Layout& l) { return {s, 0, l}; }

ComposedLayout composition(const ComposedLayout& a, const Layout& b) {
  return {a.swizzle, a.offset, composition(a.layout, b)};
}

ComposedLayout composition(const ComposedLayout& a, const Tiler& tiler) {
  return {a.swizzle, a.offset, composition(a.layout, tiler)};
}

ComposedLayout tile_to_shape(const ComposedLayout& block, const Shape& target, const std::optional<IntTuple>& order) {
  return {block.swizzle, block.offset, tile_to_shape(block.layout, target, order)};
}

ComposedLayout blocked_product(const ComposedLayout& a, const Layout& b) {
  return {a.swizzle, a.offset, blocked_product(a.layout, b)};
}

ComposedLayout slice(const SliceCoord& coord, const ComposedLayout& l) {
  auto [sub, off] = slice_and_offset(coord, l.layout);
  return {l.swizzle, l.offset + off.leaf(), sub};
}

Int size(const ComposedLayout& l) { return size(l.layout); }
Int cosize(const ComposedLayout& l) { return cosize(l.layout); }

}  // namespace tessel
