// picture_test.cpp: layout_table, tv_table, layout_svg and tv_svg. Tables are read back cell by
// cell and compared with the layout; SVGs are checked for their structure and determinism.
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

// A text table read back: the title line, the column indices and the cells, row by row.
struct Table {
  std::string title;
  std::vector<int64_t> columns;
  std::vector<std::vector<std::string>> cells;  // cells[m][n]
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Reads a table back, checking its frame on the way: separators identical and as wide as the
// rows, row indices 0, 1, ... in order, one cell per column in every row.
Table read_table(const std::string& text) {
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');
  std::vector<std::string> lines = split_lines(text);
  REQUIRE(lines.size() >= 5);
  REQUIRE(lines.size() % 2 == 1);  // title, header, (separator, row)..., separator
  Table t;
  t.title = lines[0];
  std::istringstream header(lines[1]);
  for (int64_t c; header >> c;) t.columns.push_back(c);
  const std::string& separator = lines[2];
  REQUIRE(separator.find('+') != std::string::npos);
  for (size_t i = 2; i < lines.size(); i += 2) {
    CHECK(lines[i] == separator);
    if (i + 1 == lines.size()) break;
    const std::string& row = lines[i + 1];
    CHECK(row.size() == separator.size());
    size_t bar = row.find('|');
    REQUIRE(bar != std::string::npos);
    CHECK(std::stoll(trim(row.substr(0, bar))) == static_cast<int64_t>(t.cells.size()));
    // Each '|' of the row sits under a '+' of the separator.
    for (size_t k = 0; k < row.size(); ++k) CHECK((row[k] == '|') == (separator[k] == '+'));
    std::vector<std::string> cells;
    for (size_t next; (next = row.find('|', bar + 1)) != std::string::npos; bar = next)
      cells.push_back(trim(row.substr(bar + 1, next - bar - 1)));
    CHECK(cells.size() == t.columns.size());
    t.cells.push_back(cells);
  }
  for (size_t n = 0; n < t.columns.size(); ++n) CHECK(t.columns[n] == static_cast<int64_t>(n));
  return t;
}

size_t count(const std::string& text, const std::string& what) {
  size_t k = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++k;
  return k;
}

// Checks every cell of layout_table(l) against `expected(m, n)`.
template <class F>
void check_layout_table(const Layout& l, int64_t rows, int64_t cols, F expected) {
  INFO("layout_table(" << to_string(l) << ")");
  Table t = read_table(layout_table(l));
  CHECK(t.title == to_string(l));
  REQUIRE(static_cast<int64_t>(t.cells.size()) == rows);
  REQUIRE(static_cast<int64_t>(t.columns.size()) == cols);
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < cols; ++n) CHECK(t.cells[m][n] == std::to_string(expected(m, n)));
}

}  // namespace

TEST_CASE("picture: layout_table of (4,8):(8,1) holds L(m,n) = 8m + n in row m and column n") {
  Layout l = parse_layout("(4,8):(8,1)");
  check_layout_table(l, 4, 8, [](int64_t m, int64_t n) { return 8 * m + n; });
  // The frame as CuTe's print_layout draws it.
  std::vector<std::string> lines = split_lines(layout_table(l));
  CHECK(lines[0] == "(4,8):(8,1)");
  CHECK(lines[2] == "  +----+----+----+----+----+----+----+----+");
  CHECK(lines[3] == "0 |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |");
  CHECK(lines[9] == "3 | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 31 |");
}

TEST_CASE("picture: layout_table of hierarchical and rank-1 layouts") {
  // Mode 0 = rows, mode 1 = columns, each index read colexicographically within its mode.
  check_layout_table(parse_layout("((2,2),(2,4)):((1,8),(2,16))"), 4, 8,
                     [](int64_t m, int64_t n) { return 1 * (m % 2) + 8 * (m / 2) + 2 * (n % 2) + 16 * (n / 2); });
  check_layout_table(parse_layout("(3,2):(-1,-7)"), 3, 2, [](int64_t m, int64_t n) { return -m - 7 * n; });
  check_layout_table(parse_layout("6:2"), 6, 1, [](int64_t m, int64_t) { return 2 * m; });
  check_layout_table(parse_layout("((2,3)):((3,1))"), 6, 1, [](int64_t m, int64_t) { return 3 * (m % 2) + m / 2; });
  check_layout_table(parse_layout("1:0"), 1, 1, [](int64_t, int64_t) { return 0; });
}

TEST_CASE("picture: layout_table cells of random 2-D layouts equal the layout at (m,n)") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 200; ++i) {
    Layout l = random_layout(rng, 2, 2);
    if (l.rank() != 2) continue;
    Layout rows = l[0], cols = l[1];
    check_layout_table(l, size(rows).value(), size(cols).value(),
                       [&](int64_t m, int64_t n) { return at(rows, m) + at(cols, n); });
  }
}

TEST_CASE("picture: tv_table of make_layout_tv((4,32):(32,1),(4,4):(4,1)) places every T and V") {
  TVLayout tv = make_layout_tv(parse_layout("(4,32):(32,1)"), parse_layout("(4,4):(4,1)"));
  REQUIRE(to_string(tv) == "(16,128) ((32,4),(4,4)):((64,4),(16,1))");
  Table t = read_table(tv_table(tv));
  CHECK(t.title == to_string(tv));
  REQUIRE(t.cells.size() == 16);
  REQUIRE(t.columns.size() == 128);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t m = 0; m < 16; ++m) {
    for (int64_t n = 0; n < 128; ++n) {
      const std::string& cell = t.cells[m][n];
      INFO("cell (" << m << "," << n << ") = " << cell);
      REQUIRE(cell.size() >= 4);
      REQUIRE(cell[0] == 'T');
      size_t v_at = cell.find('V');
      REQUIRE(v_at != std::string::npos);
      int64_t thread = std::stoll(cell.substr(1, v_at - 1)), value = std::stoll(cell.substr(v_at + 1));
      // (1) the TV layout maps (t,v) back to this cell's tile index m + 16n.
      CHECK(tv.layout(IntTuple{thread, value}).leaf().value() == m + 16 * n);
      // (2) the picture CuTe draws: thread (tm,tn) = t of the row-major 4x32 thread layout owns
      //     the row-major 4x4 block of values at rows 4tm.., columns 4tn...
      CHECK(thread == 32 * (m / 4) + n / 4);
      CHECK(value == 4 * (m % 4) + n % 4);
      seen.insert({thread, value});
    }
  }
  CHECK(seen.size() == 128 * 16);  // every (t,v) appears once
}

TEST_CASE("picture: tv_table marks unreached cells and keeps the first of a broadcast") {
  // Four threads with one value each over a (4,2) tile: column 1 is never reached.
  Table partial = read_table(tv_table(TVLayout{Shape{4, 2}, parse_layout("(4,1):(1,0)")}));
  for (int64_t m = 0; m < 4; ++m) {
    CHECK(partial.cells[m][0] == "T" + std::to_string(m) + "V0");
    CHECK(partial.cells[m][1] == ".");
  }
  // Two values of each thread on the same cell: the first (v = 0) is shown.
  Table broadcast = read_table(tv_table(TVLayout{Shape{2, 2}, parse_layout("(4,2):(1,0)")}));
  CHECK(broadcast.cells[0][0] == "T0V0");
  CHECK(broadcast.cells[1][0] == "T1V0");
  CHECK(broadcast.cells[0][1] == "T2V0");
  CHECK(broadcast.cells[1][1] == "T3V0");
  // A rank-1 tiler is one column.
  Table column = read_table(tv_table(TVLayout{Shape(4), parse_layout("(2,2):(2,1)")}));
  REQUIRE(column.columns.size() == 1);
  CHECK(column.cells[1][0] == "T0V1");
  CHECK(column.cells[2][0] == "T1V0");
}

TEST_CASE("picture: layout_svg is a standalone SVG with one rect and one label per cell") {
  Layout l = parse_layout("(4,8):(8,1)");
  std::string svg = layout_svg(l);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", 0) == 0);
  CHECK(svg.size() > 7);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(count(svg, "<rect ") == 32 + 1);  // the cells and the white background
  CHECK(count(svg, "stroke=\"black\"") == 32);
  CHECK(count(svg, "<text ") == 32 + 8 + 4);  // cell labels, column and row indices
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(svg.find("<title>(4,8):(8,1)</title>") != std::string::npos);
  for (int64_t i = 0; i < 32; ++i) CHECK(svg.find(">" + std::to_string(i) + "</text>") != std::string::npos);
  CHECK(layout_svg(l) == svg);  // deterministic
}

TEST_CASE("picture: tv_svg labels T over V and colours cells by thread modulo 8") {
  TVLayout tv = make_layout_tv(parse_layout("(2,4):(4,1)"), parse_layout("(2,2):(2,1)"));
  REQUIRE(to_string(tv) == "(4,8) ((4,2),(2,2)):((8,2),(4,1))");
  std::string svg = tv_svg(tv);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(count(svg, "<rect ") == 32 + 1);
  CHECK(count(svg, "<text ") == 2 * 32 + 8 + 4);  // `T<t>` and `V<v>` per cell, indices
  for (int t = 0; t < 8; ++t) CHECK(count(svg, ">T" + std::to_string(t) + "</text>") == 4);
  for (int v = 0; v < 4; ++v) CHECK(count(svg, ">V" + std::to_string(v) + "</text>") == 8);
  // Eight threads, eight colours, four cells each.
  for (const char* colour : {"#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2"})
    CHECK(count(svg, std::string("fill=\"") + colour + "\"") == 4);
  CHECK(tv_svg(tv) == svg);
  // Thread 8 wraps around to the colour of thread 0.
  TVLayout wide = make_layout_tv(parse_layout("16:1"), parse_layout("1:1"));
  CHECK(count(tv_svg(wide), "fill=\"#afafff\"") == 2);
}

TEST_CASE("picture: every picture refuses rank 3 and too many cells") {
  Layout rank3 = parse_layout("(2,2,2):(1,2,4)");
  Layout big = make_layout(Shape{300, 300});
  for (const Layout& l : {rank3, big}) {
    INFO(to_string(l));
    CHECK_THROWS_AS(layout_table(l), Error);
    CHECK_THROWS_AS(layout_svg(l), Error);
  }
  CHECK_THROWS_WITH(layout_table(rank3), doctest::Contains("(2,2,2):(1,2,4) has rank 3"));
  CHECK_THROWS_WITH(layout_svg(big), doctest::Contains("more than 65536"));
  CHECK_NOTHROW(layout_table(make_layout(Shape{256, 256})));  // exactly the limit
  CHECK_THROWS_WITH(layout_table(make_layout(Shape{65537, 1})), doctest::Contains("more than 65536"));
  CHECK_THROWS_WITH(layout_table(parse_layout("(65536,65536):(1,0)")), doctest::Contains("more than 65536"));
  // A tile whose size overflows 64 bits is refused before anything is multiplied.
  TVLayout huge{Shape{Int(int64_t{1} << 32), Int(int64_t{1} << 32)}, parse_layout("(2,2):(1,2)")};
  CHECK_THROWS_WITH(tv_table(huge), doctest::Contains("more than 65536"));

  TVLayout tv3{Shape{2, 2, 2}, parse_layout("(2,4):(1,2)")};
  CHECK_THROWS_WITH(tv_table(tv3), doctest::Contains("rank 3"));
  CHECK_THROWS_AS(tv_svg(tv3), Error);
  TVLayout tv_big = make_layout_tv(parse_layout("(64,32):(32,1)"), parse_layout("(8,8):(8,1)"));
  CHECK_THROWS_WITH(tv_table(tv_big), doctest::Contains("more than 65536"));
  CHECK_THROWS_AS(tv_svg(tv_big), Error);
  TVLayout tv_rank3_layout{Shape{4, 2}, parse_layout("(2,2,2):(1,2,4)")};
  CHECK_THROWS_WITH(tv_table(tv_rank3_layout), doctest::Contains("rank 3"));
}

TEST_CASE("picture: every picture refuses dynamic extents and strides and basis strides") {
  for (const char* text : {"(4,8):(?,1)", "4:?{div=16}", "(M,8):(1,M)", "(?,4):(4,1)"}) {
    Layout l = parse_layout(text);
    INFO(text);
    CHECK_THROWS_WITH(layout_table(l), doctest::Contains(to_string(l).c_str()));
    CHECK_THROWS_AS(layout_svg(l), Error);
    CHECK_THROWS_AS(tv_table(TVLayout{Shape{4, 8}, l}), Error);
    CHECK_THROWS_AS(tv_svg(TVLayout{Shape{4, 8}, l}), Error);
  }
  CHECK_THROWS_WITH(layout_table(parse_layout("4:?")), doctest::Contains("dynamic stride"));
  Layout identity = make_identity_layout(Shape{2, 2});
  CHECK_THROWS_WITH(layout_table(identity), doctest::Contains("basis stride"));
  CHECK_THROWS_AS(layout_svg(identity), Error);
  CHECK_THROWS_WITH(tv_table(TVLayout{Shape{Int::symbol("M"), 2}, parse_layout("(2,2):(1,2)")}),
                    doctest::Contains("not a static integer"));
}

TEST_CASE("picture: a TV layout that leaves its tile is refused") {
  TVLayout outside{Shape{2, 2}, parse_layout("(2,2):(1,4)")};  // reaches index 5 of a 4-cell tile
  CHECK_THROWS_WITH(tv_table(outside), doctest::Contains("outside the tile (2,2)"));
  CHECK_THROWS_AS(tv_svg(outside), Error);
  TVLayout negative{Shape{2, 2}, parse_layout("(2,2):(-1,1)")};
  CHECK_THROWS_WITH(tv_table(negative), doctest::Contains("index -1"));
}
