// picture.hpp: pictures of layouts, the drawings people make to understand them: CuTe
// print_layout-style text tables of a 2-D layout, and SVG drawings of a layout or of a TV layout
// over its (M,N) tile (each cell labelled with its thread and value, coloured by thread).
#pragma once

#include <string>

#include "tessel/algebra/layout.hpp"

namespace tessel {

// Every picture refuses, with tessel::Error naming the layout and the rule, a layout that
//   - has rank > 2 at the top level (a rank-1 layout is drawn as one column, (N,1));
//   - has a dynamic extent, or a stride that is dynamic or a basis element (so that each cell
//     holds a plain static integer);
//   - would need more than kMaxPictureCells cells (for a TV layout: tile cells, or (t,v) pairs).
inline constexpr long long kMaxPictureCells = 65536;

// The index table of L, as CuTe's print_layout: the layout in CuTe notation, a header row of
// column indices, then for each row m a `+----+` separator and a `| v |` row with m on the left,
// and a closing separator. Mode 0 indexes rows, mode 1 columns; each may be hierarchical (its
// index is read colexicographically): cell (m,n) holds L((m,n)). Cells are as wide as the widest
// value or column index. Every line ends with '\n'.
std::string layout_table(const Layout& l);

// The (M,N) tile of a TV layout (M,N = sizes of the tiler's modes; a rank-1 tiler is (M,1)):
// the cell at tile index i = tv.layout((t,v)), i.e. (m,n) = (i % M, i / M), reads `T<t>V<v>`.
// Cells that no (t,v) reaches read `.`; where several (t,v) reach one cell (a broadcast TV
// layout) the first in (t,v) colexicographic order, t fastest, is shown.
// @pre every tile index lies in [0, M*N)
std::string tv_table(const TVLayout& tv);

// Standalone SVG documents of the same pictures: a white background <rect>, then one <rect> per
// cell (thin black stroke) with its label centred, row indices down the left and column indices
// along the top. For layout_svg the label is L((m,n)) on white; for tv_svg it is `T<t>` over
// `V<v>`, on a light colour chosen by t % 8 from a fixed palette (unreached cells are white and
// unlabelled). The output depends only on the input: the same layout gives byte-identical SVG.
std::string layout_svg(const Layout& l);
std::string tv_svg(const TVLayout& tv);

}  // namespace tessel
