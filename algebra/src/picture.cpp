// picture.cpp: text tables and SVG drawings of 2-D layouts and TV layouts (see picture.hpp).
#include "tessel/algebra/picture.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel {

namespace {

// A picture before it is drawn: an M x N grid of cells, stored column-major (m + n*M). Each cell
// holds one or two label lines (none for an empty cell) and a palette colour (-1: white).
struct Grid {
  std::string title;  // the layout in CuTe notation
  int64_t rows = 0, cols = 0;
  struct Cell {
    std::vector<std::string> lines;
    int colour = -1;
  };
  std::vector<Cell> cells;
  Cell& at(int64_t m, int64_t n) { return cells[static_cast<size_t>(m + n * rows)]; }
  const Cell& at(int64_t m, int64_t n) const { return cells[static_cast<size_t>(m + n * rows)]; }
};

// The size of a static shape, refusing dynamic or non-positive extents and sizes beyond
// kMaxPictureCells (checked leaf by leaf, so that no product can overflow).
int64_t drawable_size(const Shape& shape, const std::string& who, const std::string& what) {
  int64_t n = 1;
  for (const Int& x : flatten_leaves(shape)) {
    if (x.is_dynamic() || x.has_basis())
      fail(who + ": " + what + " has the extent " + to_string(x) +
           ", which is not a static integer; a picture needs static extents");
    int64_t v = x.value();
    if (v < 1) fail(who + ": " + what + " has the extent " + std::to_string(v) + "; extents must be >= 1");
    if (v > kMaxPictureCells || n > kMaxPictureCells / v)
      fail(who + ": " + what + " has more than " + std::to_string(kMaxPictureCells) + " cells to draw");
    n *= v;
  }
  return n;
}

// Checks that L can be drawn as a grid (rank 1 or 2, static extents, static integer strides)
// and returns its (rows, cols): the sizes of mode 0 and mode 1 (1 for a rank-1 layout).
std::pair<int64_t, int64_t> drawable_grid(const Layout& l, const std::string& who) {
  const std::string name = to_string(l);
  if (l.rank() > 2)
    fail(who + ": " + name + " has rank " + std::to_string(l.rank()) + "; a picture draws layouts of rank 1 or 2");
  if (l.rank() < 1) fail(who + ": " + name + " has rank 0; a picture draws layouts of rank 1 or 2");
  for (const Int& d : flatten_leaves(l.stride())) {
    if (d.is_dynamic())
      fail(who + ": " + name + " has the dynamic stride " + to_string(d) + "; a picture needs static integer strides");
    if (d.has_basis())
      fail(who + ": " + name + " has the basis stride " + to_string(d) +
           "; a picture needs static integer strides (not an identity layout)");
  }
  int64_t rows = drawable_size(l.shape()[0], who, name);
  int64_t cols = l.rank() == 2 ? drawable_size(l.shape()[1], who, name) : 1;
  if (rows > kMaxPictureCells / cols)
    fail(who + ": " + name + " has " + std::to_string(rows) + "x" + std::to_string(cols) + " cells, more than " +
         std::to_string(kMaxPictureCells) + " to draw");
  return {rows, cols};
}

// L at the grid cell (m,n): L((m,n)) for rank 2 (each an index into its mode), L(m) for rank 1.
int64_t value_at(const Layout& l, int64_t m, int64_t n, const std::string& who) {
  IntTuple r = l.rank() == 2 ? l(IntTuple{m, n}) : l(IntTuple(m));
  if (!r.is_leaf() || r.leaf().is_dynamic() || r.leaf().has_basis())
    fail(who + ": " + to_string(l) + " at (" + std::to_string(m) + "," + std::to_string(n) + ") is " + to_string(r) +
         ", not a static integer");
  return r.leaf().value();
}

Grid layout_grid(const Layout& l, const std::string& who) {
  auto [rows, cols] = drawable_grid(l, who);
  Grid g{to_string(l), rows, cols, std::vector<Grid::Cell>(static_cast<size_t>(rows * cols))};
  for (int64_t n = 0; n < cols; ++n)
    for (int64_t m = 0; m < rows; ++m) g.at(m, n).lines = {std::to_string(value_at(l, m, n, who))};
  return g;
}

Grid tv_grid(const TVLayout& tv, const std::string& who) {
  const std::string name = to_string(tv);
  if (tv.tiler.rank() > 2)
    fail(who + ": the tiler " + to_string(tv.tiler) + " of " + name + " has rank " + std::to_string(tv.tiler.rank()) +
         "; a picture draws tiles of rank 1 or 2");
  if (tv.tiler.rank() < 1) fail(who + ": the tiler of " + name + " is empty; a picture draws tiles of rank 1 or 2");
  int64_t rows = drawable_size(tv.tiler[0], who, "the tile of " + name);
  int64_t cols = tv.tiler.rank() == 2 ? drawable_size(tv.tiler[1], who, "the tile of " + name) : 1;
  if (rows > kMaxPictureCells / cols)
    fail(who + ": the tile of " + name + " has " + std::to_string(rows) + "x" + std::to_string(cols) +
         " cells, more than " + std::to_string(kMaxPictureCells) + " to draw");
  auto [threads, values] = drawable_grid(tv.layout, who);  // (T,V) -> tile index

  Grid g{name, rows, cols, std::vector<Grid::Cell>(static_cast<size_t>(rows * cols))};
  for (int64_t v = 0; v < values; ++v) {
    for (int64_t t = 0; t < threads; ++t) {
      int64_t i = value_at(tv.layout, t, v, who);
      if (i < 0 || i >= rows * cols)
        fail(who + ": " + name + " maps (T" + std::to_string(t) + ",V" + std::to_string(v) + ") to the index " +
             std::to_string(i) + ", outside the tile (" + std::to_string(rows) + "," + std::to_string(cols) + ")");
      Grid::Cell& c = g.cells[static_cast<size_t>(i)];
      if (!c.lines.empty()) continue;  // reached before: the first (t,v) is shown
      c.lines = {"T" + std::to_string(t), "V" + std::to_string(v)};
      c.colour = static_cast<int>(t % 8);
    }
  }
  return g;
}

// --- Text ---------------------------------------------------------------------------------------

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// One table line per row between separators, as CuTe's print_layout:
//        0    1
//     +----+----+
//   0 |  0 |  8 |
std::string render_table(const Grid& g) {
  auto label = [&](const Grid::Cell& c) {
    std::string s;
    for (const auto& line : c.lines) s += line;
    return s.empty() ? std::string(".") : s;
  };
  size_t width = std::to_string(g.cols - 1).size();
  for (const auto& c : g.cells) width = std::max(width, label(c).size());
  const size_t row_width = std::to_string(g.rows - 1).size();
  const std::string indent(row_width + 1, ' ');

  std::string separator = indent;
  for (int64_t n = 0; n < g.cols; ++n) separator += "+" + std::string(width + 2, '-');
  separator += "+\n";

  std::string out = g.title + "\n" + indent;
  for (int64_t n = 0; n < g.cols; ++n) {
    out += "  " + pad_left(std::to_string(n), width);
    if (n + 1 < g.cols) out += " ";
  }
  out += "\n";
  for (int64_t m = 0; m < g.rows; ++m) {
    out += separator;
    out += pad_left(std::to_string(m), row_width) + " ";
    for (int64_t n = 0; n < g.cols; ++n) out += "| " + pad_left(label(g.at(m, n)), width) + " ";
    out += "|\n";
  }
  out += separator;
  return out;
}

// --- SVG ----------------------------------------------------------------------------------------

// Light colours, one per thread modulo 8 (the palette of CuTe's print_latex).
constexpr const char* kPalette[8] = {"#afafff", "#afffaf", "#ffffaf", "#ffafaf",
                                     "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2"};

std::string escape_xml(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '&':
        r += "&amp;";
        break;
      default:
        r += c;
    }
  }
  return r;
}

// Integer geometry only, so that the text is the same on every machine.
std::string render_svg(const Grid& g) {
  constexpr int64_t kCharWidth = 7;  // of a 12px monospace digit, roughly
  constexpr int64_t kLineHeight = 14;
  size_t chars = 1, lines = 1;
  for (const auto& c : g.cells) {
    lines = std::max(lines, c.lines.size());
    for (const auto& line : c.lines) chars = std::max(chars, line.size());
  }
  chars = std::max(chars, std::to_string(g.cols - 1).size());
  const int64_t cell_w = (std::max<int64_t>(32, kCharWidth * static_cast<int64_t>(chars) + 14) + 1) / 2 * 2;
  const int64_t cell_h = kLineHeight * static_cast<int64_t>(lines) + 12;
  const int64_t left = kCharWidth * static_cast<int64_t>(std::to_string(g.rows - 1).size()) + 14;
  const int64_t top = 24;
  const int64_t width = left + g.cols * cell_w + 8;
  const int64_t height = top + g.rows * cell_h + 8;
  auto num = [](int64_t x) { return std::to_string(x); };

  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\">\n";
  out += "<title>" + escape_xml(g.title) + "</title>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";  // opaque in dark viewers too
  out += "<g font-family=\"monospace\" font-size=\"12\" text-anchor=\"middle\" dominant-baseline=\"central\">\n";
  for (int64_t n = 0; n < g.cols; ++n)
    out += "<text x=\"" + num(left + n * cell_w + cell_w / 2) + "\" y=\"" + num(top / 2) + "\">" + num(n) + "</text>\n";
  for (int64_t m = 0; m < g.rows; ++m)
    out += "<text x=\"" + num(left / 2) + "\" y=\"" + num(top + m * cell_h + cell_h / 2) + "\">" + num(m) + "</text>\n";
  for (int64_t n = 0; n < g.cols; ++n) {
    for (int64_t m = 0; m < g.rows; ++m) {
      const Grid::Cell& c = g.at(m, n);
      const int64_t x = left + n * cell_w, y = top + m * cell_h;
      const char* fill = c.colour >= 0 ? kPalette[c.colour] : "#ffffff";
      out += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell_w) + "\" height=\"" + num(cell_h) +
             "\" fill=\"" + fill + "\" stroke=\"black\" stroke-width=\"1\"/>\n";
      // Lines centred as a block: line k of K sits at the centre + (2k - K + 1) * half a line.
      const int64_t k_lines = static_cast<int64_t>(c.lines.size());
      for (int64_t k = 0; k < k_lines; ++k) {
        const int64_t cy = y + cell_h / 2 + (2 * k - k_lines + 1) * kLineHeight / 2;
        out += "<text x=\"" + num(x + cell_w / 2) + "\" y=\"" + num(cy) + "\">" +
               escape_xml(c.lines[static_cast<size_t>(k)]) + "</text>\n";
      }
    }
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace

std::string layout_table(const Layout& l) { return render_table(layout_grid(l, "layout_table")); }
std::string tv_table(const TVLayout& tv) { return render_table(tv_grid(tv, "tv_table")); }
std::string layout_svg(const Layout& l) { return render_svg(layout_grid(l, "layout_svg")); }
std::string tv_svg(const TVLayout& tv) { return render_svg(tv_grid(tv, "tv_svg")); }

}  // namespace tessel
