// divide.cpp: logical_divide and its zipped, tiled and flat arrangements.
#include "tessel/algebra/layout.hpp"
#include "tessel/algebra/modes.hpp"

namespace tessel {

Layout logical_divide(const Layout& a, const Tiler& tiler) {
  detail::check_tiler_rank("logical_divide", a, tiler);
  if (tiler.by_mode()) {
    std::vector<Layout> modes;
    for (int i = 0; i < a.rank(); ++i)
      modes.push_back(i < tiler.rank() ? logical_divide(a[i], Tiler(tiler.modes()[i])) : a[i]);
    return make_layout(modes);
  }
  const Layout& b = tiler.layout();
  return composition(a, make_layout({b, complement(b, size(a))}));
}

Layout zipped_divide(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_divide(a, tiler), tiler, detail::Arrange::Zipped);
}

Layout tiled_divide(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_divide(a, tiler), tiler, detail::Arrange::Tiled);
}

Layout flat_divide(const Layout& a, const Tiler& tiler) {
  return detail::zip_tiles(logical_divide(a, tiler), tiler, detail::Arrange::Flat);
}

}  // namespace tessel
