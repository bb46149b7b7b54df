// notation.hpp: reading CuTe notation back: `(4,(2,8))`, `(4,8):(8,1)`, `<3:3,(2,4):(1,8)>`,
// dynamic leaves `?`, `?{div=16}` and named symbols `M`, `N{div=8}`. Printing is to_string().
#pragma once

#include <string_view>

#include "tessel/algebra/layout.hpp"

namespace tessel {

// Each throws Error("col N: ...") naming the column (1-based) of the first thing that is wrong.
IntTuple parse_int_tuple(std::string_view text);
Layout parse_layout(std::string_view text);
Tiler parse_tiler(std::string_view text);  // `<L0,L1,...>`, a layout, or an int-tuple (n:1 modes)

}  // namespace tessel
