// modes.cpp: the zipped, tiled and flat arrangements of a divide or a product.
#include "tessel/algebra/modes.hpp"

namespace tessel::detail {

std::vector<Layout> top_modes(const Layout& l) {
  if (l.shape().is_leaf()) return {l};
  std::vector<Layout> m;
  for (int i = 0; i < l.rank(); ++i) m.push_back(l[i]);
  return m;
}

void check_tiler_rank(const char* op, const Layout& a, const Tiler& tiler) {
  if (tiler.by_mode() && tiler.rank() > a.rank())
    fail(std::string(op) + ": tiler " + to_string(tiler) + " has rank " + std::to_string(tiler.rank()) +
         ", higher than the rank " + std::to_string(a.rank()) + " of " + to_string(a));
}

Layout zip_tiles(const Layout& logical, const Tiler& tiler, Arrange arrange) {
  std::vector<Layout> tiles, rests;
  if (!tiler.by_mode()) {
    if (arrange == Arrange::Zipped) return logical;
    tiles = arrange == Arrange::Flat ? top_modes(logical[0]) : std::vector<Layout>{logical[0]};
    rests = top_modes(logical[1]);
  } else {
    for (int i = 0; i < logical.rank(); ++i) {
      if (i < tiler.rank()) {
        tiles.push_back(logical[i][0]);
        rests.push_back(logical[i][1]);
      } else {
        rests.push_back(logical[i]);
      }
    }
    if (arrange == Arrange::Zipped) return make_layout({make_layout(tiles), make_layout(rests)});
    if (arrange == Arrange::Tiled) tiles = {make_layout(tiles)};
  }
  std::vector<Layout> out = tiles;
  out.insert(out.end(), rests.begin(), rests.end());
  return make_layout(out);
}

}  // namespace tessel::detail
