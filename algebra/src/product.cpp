// product.cpp: logical_product, its zipped, tiled and flat arrangements, blocked and raked.
#include "tessel/algebra/layout.hpp"
#include "tessel/algebra/modes.hpp"

namespace tessel {

Layout logical_product(const Layout& a, const Tiler& tiler) {
  detail::check_tiler_rank("logical_product", a, tiler);
  if (tiler.by_mode()) {
    std::vector<Layout> modes;
    for (int i = 0; i < a.rank(); ++i)
      modes.push_back(i < tiler.rank() ? logical_product(a[i], Tiler(tiler.modes()[i])) : a[i]);
    return make_layout(modes);
  }
  const Layout& b = tiler.layout();
  return make_layout({a, composition(complement(a, size(a) * cosize(b)), b)});
}

Layout zipped_product(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_product(a, tiler), tiler, detail::Arrange::Zipped);
}

Layout tiled_product(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_product(a, tiler), tiler, detail::Arrange::Tiled);
}

Layout flat_product(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_product(a, tiler), tiler, detail::Arrange::Flat);
}

namespace {

// Pads a layout to rank r with 1:0 modes (CuTe's append<R>).
Layout pad_to_rank(const Layout& l, int r) {
  if (l.rank() >= r) return l;
  std::vector<Layout> modes = detail::top_modes(l);
  while (static_cast<int>(modes.size()) < r) modes.push_back(Layout(1, 0));
  return make_layout(modes);
}

// blocked (A_i, B_i') or raked (B_i', A_i) per mode, each mode coalesced.
Layout interleaved_product(const Layout& a, const Layout& b, bool block_first) {
  int r = std::max(a.rank(), b.rank());
  Layout pa = pad_to_rank(a, r), pb = pad_to_rank(b, r);
  Layout result = logical_product(pa, Tiler(pb));
  Layout first = result[0], second = result[1];
  // Mode i of each half. At rank 1 the half is the whole mode: complement(A) o B of a leaf-shaped
  // B may come out as a tuple, e.g. (2,3):(1,8) for B = 6:1, and its mode 0 would drop the 3.
  auto mode = [r](const Layout& half, int i) { return r == 1 ? half : half[i]; };
  std::vector<Layout> modes;
  for (int i = 0; i < r; ++i) {
    Layout f = mode(first, i), s = mode(second, i);
    modes.push_back(coalesce(block_first ? make_layout({f, s}) : make_layout({s, f})));
  }
  // Two 1-D layouts give one mode: a plain 1-D layout when it coalesced to one extent.
  if (a.shape().is_leaf() && b.shape().is_leaf() && modes[0].shape().is_leaf()) return modes[0];
  return make_layout(modes);
}

}  // namespace

Layout blocked_product(const Layout& a, const Layout& b) { return interleaved_product(a, b, true); }
Layout raked_product(const Layout& a, const Layout& b) { return interleaved_product(a, b, false); }

}  // namespace tessel
