// modes.hpp: internal helper shared by divides and products: rearranging the ((tile),(rest))
// modes of a logical divide or product into CuTe's zipped, tiled and flat forms.
#pragma once

#include "tessel/algebra/layout.hpp"

namespace tessel::detail {

enum class Arrange { Zipped, Tiled, Flat };

// The top-level modes of a layout (a 1-D layout with a leaf shape is its own single mode).
std::vector<Layout> top_modes(const Layout& l);

// A by-mode tiler may not have more modes than the layout it applies to; `op` names the caller.
void check_tiler_rank(const char* op, const Layout& a, const Tiler& tiler);

// `logical` is logical_divide(A, T) or logical_product(A, T):
//   whole-layout T: (tile, rest);  by-mode T of rank R: ((tile_0,rest_0),...,(tile_R-1,rest_R-1), A_R, ...)
// Zipped: ((tiles), (rests))   Tiled: ((tiles), rests...)   Flat: (tiles..., rests...)
Layout zip_tiles(const Layout& logical, const Tiler& tiler, Arrange arrange);

}  // namespace tessel::detail
