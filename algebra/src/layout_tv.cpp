// layout_tv.cpp: thread-value layouts (make_layout_tv) and tile_to_shape.
#include "tessel/algebra/layout.hpp"

namespace tessel {

TVLayout make_layout_tv(const Layout& thr, const Layout& val) {
  // The (M,N) tile: thr's threads each own a val-shaped block, interleaved (raked) over the tile.
  Layout layout_mn = raked_product(thr, val);
  // (T,V) -> index in the tile: invert (M,N) -> (thread, value) and read it as (T,V).
  Layout tv = composition(right_inverse(layout_mn), make_layout(Shape{size(thr), size(val)}));
  return {product_each(layout_mn.shape()), tv};
}

std::string to_string(const TVLayout& tv, Notation notation) {
  return to_string(tv.tiler, notation) + " " + to_string(tv.layout, notation);
}

Layout tile_to_shape(const Layout& block, const Shape& target, const std::optional<IntTuple>& order) {
  IntTuple target_each = product_each(target);
  IntTuple block_each = product_each(block.shape());
  int r = target_each.is_leaf() ? 1 : target_each.rank();
  if (block.rank() > r)
    fail("tile_to_shape: block " + to_string(block) + " has a higher rank than the target " + to_string(target));
  std::vector<IntTuple> reps;
  for (int i = 0; i < r; ++i) {
    Int t = target_each.is_leaf() ? target_each.leaf() : target_each[i].leaf();
    Int b = i < block.rank() ? (block_each.is_leaf() ? block_each.leaf() : block_each[i].leaf()) : Int(1);
    if (!provably_divides(b, t))
      fail("tile_to_shape: block extent " + to_string(b) + " (mode " + std::to_string(i) + " of " + to_string(block) +
           ") does not divide the target extent " + to_string(t));
    reps.push_back(t / b);
  }
  Shape product_shape = target_each.is_leaf() ? reps[0] : IntTuple::tuple(reps);
  Layout grid = order ? make_ordered_layout(product_shape, *order) : make_layout(product_shape);
  return coalesce(blocked_product(block, grid), product_shape);
}

}  // namespace tessel
