// cli_test.cpp: the `tessel` executable (TESSEL_CLI_PATH), run as a user runs it: arguments,
// standard input, exit status, --table, --svg, and hostile input that must give error lines,
// never a crash or a hang.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "tessel/algebra.hpp"

namespace fs = std::filesystem;

namespace {

using Run = tessel::test::CliRun;
using tessel::test::check_exit;
using tessel::test::read_file;
using tessel::test::run_cli;
using tessel::test::scratch;
using tessel::test::write_file;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("cli: expressions as arguments print one line each") {
  Run r =
      run_cli({"layout", "(4,8):(8,1)", "coalesce((2,(1,6)):(1,(6,2)))", "complement(4:2,24)", "size((4,8))", "-3"});
  check_exit(r, 0);
  CHECK(r.lines == std::vector<std::string>{"(4,8):(8,1)", "12:1", "(2,3):(1,8)", "32", "-3"});
  CHECK(r.err.empty());
}

TEST_CASE("cli: make_layout_tv prints the tiler then the TV layout") {
  Run r = run_cli({"layout", "make_layout_tv((4,32):(32,1),(4,4):(4,1))"});
  check_exit(r, 0);
  CHECK(r.out == "(16,128) ((32,4),(4,4)):((64,4),(16,1))\n");
}

TEST_CASE("cli: a failing argument prints an error line with its column and the next still runs") {
  Run r = run_cli({"layout", "(4,8):(8", "4:1", "composition(4:2,3:3)", ""});
  check_exit(r, 1);
  REQUIRE(r.lines.size() == 4);
  CHECK(starts_with(r.lines[0], "error: "));
  CHECK(r.lines[0].find("col ") != std::string::npos);
  CHECK(r.lines[1] == "4:1");
  CHECK(r.lines[2] == tessel::calculate("composition(4:2,3:3)"));
  CHECK(starts_with(r.lines[3], "error: "));  // an empty expression
}

TEST_CASE("cli: standard input gives exactly one line per input line in order") {
  Run r = run_cli({"layout"},
                  "(4,8):(8,1)\n"
                  "\n"
                  "   \t \n"
                  "# a comment\n"
                  "  # an indented comment\n"
                  "(4,8):(8\n"
                  "complement(4:2,24)\r\n"
                  "zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)\n"
                  "bogus(1)\n"
                  "size((4,8))");  // no '\n' at the end
  check_exit(r, 1);
  REQUIRE(r.lines.size() == 10);
  CHECK(r.lines[0] == "(4,8):(8,1)");
  CHECK(r.lines[1].empty());
  CHECK(r.lines[2].empty());
  CHECK(r.lines[3].empty());
  CHECK(r.lines[4].empty());
  CHECK(starts_with(r.lines[5], "error: col "));
  CHECK(r.lines[6] == "(2,3):(1,8)");
  CHECK(r.lines[7] == "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  CHECK(starts_with(r.lines[8], "error: "));
  CHECK(r.lines[8].find("bogus") != std::string::npos);
  CHECK(r.lines[9] == "32");
}

TEST_CASE("cli: standard input with only good lines exits 0 and empty input prints nothing") {
  Run r = run_cli({"layout"}, "4:1\n\n# note\n(2,2):(2,1)\n");
  check_exit(r, 0);
  CHECK(r.out == "4:1\n\n\n(2,2):(2,1)\n");
  Run empty = run_cli({"layout"}, "");
  check_exit(empty, 0);
  CHECK(empty.out.empty());
}

TEST_CASE("cli: --table prints the result line then the table of a layout or TV layout") {
  const std::string tv_expr = "make_layout_tv((2,4):(4,1),(2,2):(2,1))";
  Run r = run_cli({"layout", "--table", "(4,8):(8,1)", "size(4)", tv_expr});
  check_exit(r, 0);
  auto tv = std::get<tessel::TVLayout>(tessel::evaluate_expression(tv_expr));
  // The table follows its result line, without repeating it as the table's title.
  auto body = [](const std::string& table) { return table.substr(table.find('\n') + 1); };
  CHECK(r.out == "(4,8):(8,1)\n" + body(tessel::layout_table(tessel::parse_layout("(4,8):(8,1)"))) + "4\n" +
                     tessel::to_string(tv) + "\n" + body(tessel::tv_table(tv)));
  // A layout that cannot be drawn: its line, then an error line.
  Run bad = run_cli({"layout", "--table", "(2,2,2):(1,2,4)"});
  check_exit(bad, 1);
  REQUIRE(bad.lines.size() == 2);
  CHECK(bad.lines[0] == "(2,2,2):(1,2,4)");
  CHECK(starts_with(bad.lines[1], "error: layout_table: (2,2,2):(1,2,4) has rank 3"));
}

TEST_CASE("cli: --symbolic prints expressions, --eval gives the symbols values") {
  const std::string expr = "zipped_divide((M,N):(N,1),(16,128))";
  Run sym = run_cli({"layout", "--symbolic", expr});
  check_exit(sym, 0);
  CHECK(sym.lines == std::vector<std::string>{"((16,128),(ceil_div(M,16),ceil_div(N,128))):((N,1),((N*16),128))"});
  Run ev = run_cli({"layout", "--eval", "M=1000,N=64", expr, "size(M)"});
  check_exit(ev, 0);
  CHECK(ev.lines == std::vector<std::string>{"((16,128),(63,1)):((64,1),(1024,128))", "1000"});
  Run bad = run_cli({"layout", "--eval", "N{div=8}=12", "N"});
  check_exit(bad, 2);
  Run div = run_cli({"layout", "--eval", "N=12", "N{div=8}"});
  check_exit(div, 1);
  REQUIRE(div.lines.size() == 1);
  CHECK(div.lines[0].find("positive multiple of 8") != std::string::npos);
  for (const char* v : {"M", "M=", "=3", "M=3x", "M=1,,N=2", "N{div=8}=16", "1M=2", "M=1,M=2", "M= 3", "M=+3"}) {
    Run r = run_cli({"layout", "--eval", v, "M"});
    INFO(v);
    check_exit(r, 2);
    CHECK(r.err.rfind("error: --eval", 0) == 0);
  }
  CHECK(run_cli({"layout", "--eval", "M=1,M=2", "M"}).err == "error: --eval: M is given twice (M=1 and M=2)\n");
  CHECK(run_cli({"layout", "--eval", "M=3x", "M"}).err ==
        "error: --eval M: '3x' is not an integer in [-9223372036854775808, 9223372036854775807]\n");
}

TEST_CASE("cli: --svg writes the SVG of the last layout or TV layout") {
  const fs::path svg = scratch() / "picture.svg";
  Run r = run_cli({"layout", "--svg", svg.string(), "(2,2):(1,2)", "(4,8):(8,1)", "size(4)"});
  check_exit(r, 0);
  CHECK(r.lines == std::vector<std::string>{"(2,2):(1,2)", "(4,8):(8,1)", "4"});
  CHECK(read_file(svg) == tessel::layout_svg(tessel::parse_layout("(4,8):(8,1)")));

  const std::string tv_expr = "make_layout_tv((4,32):(32,1),(4,4):(4,1))";
  Run tv = run_cli({"layout", "--svg=" + svg.string()}, tv_expr + "\n");
  check_exit(tv, 0);
  CHECK(read_file(svg) == tessel::tv_svg(std::get<tessel::TVLayout>(tessel::evaluate_expression(tv_expr))));
}

TEST_CASE("cli: --svg with nothing to draw or an unwritable file is an error") {
  Run none = run_cli({"layout", "--svg", (scratch() / "none.svg").string(), "size(4)", "(4,8):(8"});
  check_exit(none, 1);
  CHECK(none.lines.size() == 2);  // standard output keeps one line per expression
  CHECK(starts_with(none.err, "error: --svg"));
  CHECK(!fs::exists(scratch() / "none.svg"));

  Run unwritable = run_cli({"layout", "--svg", (scratch() / "no" / "such" / "dir.svg").string(), "4:1"});
  check_exit(unwritable, 1);
  CHECK(unwritable.lines == std::vector<std::string>{"4:1"});
  CHECK(starts_with(unwritable.err, "error: --svg"));

  Run too_big = run_cli({"layout", "--svg", (scratch() / "big.svg").string(), "make_layout((1000,1000))"});
  check_exit(too_big, 1);
  CHECK(too_big.err.find("more than 65536") != std::string::npos);

  Run missing = run_cli({"layout", "--svg"});
  check_exit(missing, 2);
}

TEST_CASE("cli: hostile lines give error lines and exit status 1 without a crash") {
  const std::string deep_parens = std::string(10000, '(') + std::string(10000, ')');
  const std::string deep_calls = [] {
    std::string s;
    for (int i = 0; i < 5000; ++i) s += "coalesce(";
    return s + "4:1" + std::string(5000, ')');
  }();
  const std::vector<std::string> hostile = {
      deep_parens,
      deep_calls,
      "99999999999999999999",
      "size((4294967296,4294967296))",
      "(4294967296,4294967296):(4294967296,1)(18446744073709551615)",
      "make_layout((-1,4))",
      "(4,8):(8,1)(32)",
      "complement((2,2):(1,1),4)",
      "composition(4:2,3:3)(5)",
      "Sw<99,99,99>",
      "?{div=0}",
      std::string(1, '\0') + "\x01\x7f\xff\xfe",
      "(((((",
      ")))))",
      ":::::",
      "<<<<<",
      "__apply()",  // the parser's application L(c) is not a function a line can call
      "__apply(4,1)",
      "(4,8):(8,1)((_,1))",
  };
  std::string input;
  for (const auto& h : hostile) input += h + "\n";
  Run r = run_cli({"layout"}, input);
  check_exit(r, 1);
  REQUIRE(r.lines.size() == hostile.size());
  for (size_t i = 0; i < hostile.size(); ++i) {
    INFO("line " << i + 1 << ": " << r.lines[i].substr(0, 200));
    CHECK(starts_with(r.lines[i], "error: "));
  }
  CHECK(r.lines[3].find("overflow") != std::string::npos);
  CHECK(r.lines[16] == "error: col 1: unknown function '__apply'");
  CHECK(r.lines[18] == "error: col 12: `_` is only allowed in slicing coordinates");
  CHECK(r.lines[2].find("64 bits") != std::string::npos);
  // Bytes that are not printable come back escaped: each output line is plain text.
  for (const auto& line : r.lines)
    for (char c : line) CHECK((c >= 0x20 && c < 0x7f));

  // The same as arguments.
  std::vector<std::string> args{"layout"};
  for (const auto& h : hostile)
    if (h.find('\0') == std::string::npos) args.push_back(h);
  Run a = run_cli(args);
  check_exit(a, 1);
  CHECK(a.lines.size() == args.size() - 1);
}

TEST_CASE("cli: deeply nested tilers are an error line and not a crash") {
  Run r = run_cli({"layout"}, std::string(100000, '<') + "4:1" + std::string(100000, '>') + "\n4:1\n");
  check_exit(r, 1);
  REQUIRE(r.lines.size() == 2);
  CHECK(starts_with(r.lines[0], "error: "));
  CHECK(r.lines[1] == "4:1");
}

TEST_CASE("cli: random bytes and random notation give one line per input line") {
  std::mt19937_64 rng(20240601);
  std::string input;
  size_t n_lines = 0;
  const std::string alphabet = "(),:<>?_{}=@-+0123456789 MNSw#";
  for (int i = 0; i < 3000; ++i) {
    int length = static_cast<int>(rng() % 40);
    for (int k = 0; k < length; ++k) {
      char c = i % 2 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
      input += c == '\n' ? ' ' : c;
    }
    input += '\n';
    ++n_lines;
  }
  // One very long line: a tuple of 200000 ones.
  std::string tuple = "(";
  for (int k = 0; k < 200000; ++k) tuple += k ? ",1" : "1";
  input += "size(" + tuple + "))\n";
  n_lines += 1;
  Run r = run_cli({"layout"}, input);
  REQUIRE(r.exited);
  CHECK((r.status == 0 || r.status == 1));
  CHECK(r.lines.size() == n_lines);
  if (!r.lines.empty()) CHECK(r.lines.back() == "1");
}

TEST_CASE("cli: help version and misuse") {
  Run help = run_cli({"--help"});
  check_exit(help, 0);
  CHECK(help.out.find("layout") != std::string::npos);
  CHECK(run_cli({"help"}).out == help.out);
  Run bare = run_cli({});
  check_exit(bare, 2);
  CHECK(bare.err == help.out);

  Run version = run_cli({"--version"});
  check_exit(version, 0);
  CHECK(version.out == "tessel 0.1.0\n");

  Run layout_help = run_cli({"layout", "--help"});
  check_exit(layout_help, 0);
  CHECK(layout_help.out.find("usage: tessel layout") != std::string::npos);
  for (const auto& name : tessel::calculator_functions()) CHECK(layout_help.out.find(" " + name) != std::string::npos);
  CHECK(run_cli({"help", "layout"}).out == layout_help.out);

  Run unknown = run_cli({"frobnicate"});
  check_exit(unknown, 2);
  CHECK(starts_with(unknown.err, "error: unknown command 'frobnicate'"));
  Run unknown_option = run_cli({"layout", "--frobnicate", "4:1"});
  check_exit(unknown_option, 2);
  CHECK(starts_with(unknown_option.err, "error: unknown option '--frobnicate'"));
  CHECK(unknown_option.out.empty());
  Run top_option = run_cli({"--frobnicate"});
  check_exit(top_option, 2);
  CHECK(starts_with(top_option.err, "error: unknown option"));
  // After `--` everything is an expression.
  Run dashes = run_cli({"layout", "--", "--table"});
  check_exit(dashes, 1);
  CHECK(starts_with(dashes.out, "error: "));
}
