// layout_tv.cpp: thread-value layouts (make_layout_tv) and tile_to_shape.
#include "tessel/algebra/layout.hpp"

namespace tessel {

TVLayout make_layout_tv(const Layout& thr, const Layout& val) {
  // The (M,N) tile: thr's threads each own a val-shaped block, interleaved (raked) over the tile.
  Layout layout_mn = raked_product(thr, val);
  // (T,V) -> index in the tile: invert (M,N) -> (thread, value) and read it as (T,V). That needs
  // layout_mn to be a bijection onto [0, size): its right inverse then covers all of it. With gaps
  // (val = (6,2):(1,18), say) the inverse is shorter and (T,V) pairs would share cells.
  Layout inverse = right_inverse(layout_mn);
  Int pairs = size(thr) * size(val);
  if (!(size(inverse) == pairs)) {
    std::string what = "make_layout_tv(" + to_string(thr) + "," + to_string(val) + "): raked_product(thr, val) = " +
                       to_string(layout_mn);
    if (size(inverse).is_static() && pairs.is_static())
      fail(what + " is not a bijection onto [0," + to_string(pairs) + ") (it reaches only [0," +
           to_string(size(inverse)) + ") without a gap), so some (thread, value) pairs would share a cell; "
           "thr and val must tile the (M,N) block without gaps or overlaps");
    fail(what + " cannot be shown to be a bijection onto [0," + to_string(pairs) +
         ") with these dynamic extents; give thr and val static extents");
  }
  // The inverse is a function on [0, N); reading it as (T,V) is a composition, which exists only
  // when that function is affine on both modes (CuTe has no answer otherwise either).
  Layout tv;
  try {
    tv = composition(inverse, make_layout(Shape{size(thr), size(val)}));
  } catch (const Error& e) {
    fail("make_layout_tv(" + to_string(thr) + "," + to_string(val) + "): the inverse " + to_string(inverse) +
         " of raked_product(thr, val) = " + to_string(layout_mn) + " cannot be read as a (T,V) layout of shape (" +
         to_string(size(thr)) + "," + to_string(size(val)) + "): " + e.what());
  }
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
