// calculator_fuzzer.cpp: libFuzzer target for the layout-algebra calculator, the engine of
// `tessel layout`. The input is what `tessel layout` reads from standard input: lines.
//
// 1. The library, line by line: evaluate_expression; the result printed in both notations
//    (plain and --symbolic); evaluated with values for its named symbols (--eval); its --table
//    picture (layout_table / tv_table) and SVG when it is a layout or a TV layout.
// 2. The CLI's own path: tessel::cli::layout_command (tools/tessel/layout_command.cpp, compiled in)
//    reading the input as standard input, with standard output captured.
// Invariants (a broken one aborts, and libFuzzer keeps the input):
//   - no crash, no sanitizer report, no hang (libFuzzer's -timeout), no leak;
//   - every step returns or throws tessel::Error; any other exception is a bug (the CLI would
//     print it as an error line, so only step 1 can see it);
//   - one output line per input line: no result or message has a newline, and the CLI prints
//     exactly one line per input line, `error: ...` exactly for the lines that fail, and exits 0
//     when none failed, 1 otherwise;
//   - a line evaluated again prints the same, in both notations (its output depends on it alone);
//   - a table's first line is the result line (the CLI prints the table without it);
//   - a result printed as an int-tuple, layout, tiler or swizzle evaluates to itself as input.
// Set TESSEL_FUZZ_COLUMNS=1 to also require "col N: " at the start of every message of
// evaluate_expression (calculator.hpp's contract).
#include <cctype>
#include <cstdlib>
#include <optional>
#include <variant>

#include "fuzz_support.hpp"
#include "layout_command.hpp"
#include "tessel/algebra/calculator.hpp"
#include "tessel/algebra/picture.hpp"

namespace {

using namespace tessel;
using fuzz::bug;

constexpr std::string_view kTarget = "calculator";

bool require_columns() {
  static const bool on = [] {
    const char* v = std::getenv("TESSEL_FUZZ_COLUMNS");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

// What the CLI skips: a blank line or a '#' comment.
bool blank_or_comment(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r\f\v");
  return i == std::string_view::npos || line[i] == '#';
}

// Values for the names in `line` (--eval): a few divisible by much, a few awkward.
Env values_for(std::string_view line) {
  static const int64_t kValues[] = {3840, 1000, 64, 7, 1};
  Env env;
  for (size_t i = 0; i < line.size();) {
    auto c = static_cast<unsigned char>(line[i]);
    if (!(std::isalpha(c) || c == '_')) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
    std::string name(line.substr(i, j - i));
    env[name] = kValues[std::hash<std::string>{}(name) % 5];
    i = j;
  }
  return env;
}

void no_newline(const std::string& text, std::string_view what, std::string_view line) {
  if (text.find('\n') != std::string::npos)
    bug(kTarget, std::string(what) + " has a newline: " + fuzz::escaped(text), line);
}

void check_error(const std::string& message, std::string_view what, std::string_view line) {
  no_newline(message, what, line);
  if (require_columns() && message.rfind("col ", 0) != 0)
    bug(kTarget, std::string(what) + " does not start with 'col N: ': " + fuzz::escaped(message), line);
}

// Whether a picture of `l` would take long and not be refused for its size (kMaxPictureCells).
bool too_slow_to_draw(const Layout& l) {
  constexpr int64_t kDrawnCells = 4096;
  try {
    const std::optional<int64_t> n = size(l).static_value();
    return n && *n > kDrawnCells && *n <= kMaxPictureCells;
  } catch (const Error&) {
    return false;  // the picture reports it
  }
}

// Step 1 for one line; returns whether the line evaluates (the CLI prints a result, not an error).
bool library_line(std::string_view line) {
  CalcValue value;
  std::string message = fuzz::only_tessel_errors(kTarget, line, [&] { value = evaluate_expression(line); });
  if (!message.empty()) {
    check_error(message, "the error message", line);
    return false;
  }
  std::string plain, symbolic;
  message = fuzz::only_tessel_errors(kTarget, line, [&] {
    plain = to_string(value);
    symbolic = to_string(value, Notation::Expressions);
    no_newline(plain, "the result", line);
    no_newline(symbolic, "the --symbolic result", line);
  });
  if (!message.empty()) bug(kTarget, "printing the result threw: " + fuzz::escaped(message), line);

  // A line's output depends on that line alone: evaluated again, it prints the same, in both
  // notations (not, say, anonymous symbols numbered on from earlier lines).
  message = fuzz::only_tessel_errors(kTarget, line, [&] {
    const CalcValue again = evaluate_expression(line);
    const std::string plain2 = to_string(again), symbolic2 = to_string(again, Notation::Expressions);
    if (plain2 != plain || symbolic2 != symbolic)
      bug(kTarget, "evaluated again, the line prints '" + plain2 + "' / '" + symbolic2 + "', not '" + plain + "' / '" +
                       symbolic + "'", line);
  });
  if (!message.empty()) bug(kTarget, "evaluated again, the line fails: " + fuzz::escaped(message), line);

  // A printed int-tuple, layout, tiler or swizzle is notation: it evaluates to itself again (a
  // result that does not is either printed wrongly or breaks a rule that inputs must keep, such
  // as extents >= 1). Composed and TV layouts and booleans print in forms that are not input.
  if (std::holds_alternative<IntTuple>(value) || std::holds_alternative<Layout>(value) ||
      std::holds_alternative<Tiler>(value) || std::holds_alternative<Swizzle>(value)) {
    std::string again;
    message = fuzz::only_tessel_errors(kTarget, line, [&] { again = to_string(evaluate_expression(plain)); });
    // A result may hold more dynamic values than one input may (docs/algebra.md, Limits): make_layout
    // of 1000 `?` prints 2000 of them. That refusal is the documented bound, not a bug.
    const bool over_the_bound = message.find("dynamic values (? or names) in one expression") != std::string::npos;
    if (!message.empty() && !over_the_bound)
      bug(kTarget, "the result '" + plain + "' does not evaluate as input: " + fuzz::escaped(message), line);
    if (over_the_bound) again = plain;
    if (again != plain) bug(kTarget, "the result '" + plain + "' evaluates as input to '" + again + "'", line);
  }

  // --eval: a missing symbol, a value that breaks a divisibility, overflow are errors.
  message = fuzz::only_tessel_errors(kTarget, line, [&] {
    no_newline(to_string(tessel::evaluate(value, values_for(line))), "the --eval result", line);
  });
  if (!message.empty()) no_newline(message, "the --eval error message", line);  // not about a column

  // --table and --svg: refused (rank > 2, dynamic, too many cells) with tessel::Error. Pictures of
  // more than kDrawnCells cells that are not refused run the same code as smaller ones, slowly:
  // they are skipped.
  const bool layout = std::holds_alternative<Layout>(value), tv = std::holds_alternative<TVLayout>(value);
  if ((layout || tv) && !too_slow_to_draw(layout ? std::get<Layout>(value) : std::get<TVLayout>(value).layout)) {
    message = fuzz::only_tessel_errors(kTarget, line, [&] {
      std::string table = layout ? layout_table(std::get<Layout>(value)) : tv_table(std::get<TVLayout>(value));
      if (table.substr(0, table.find('\n')) != plain)
        bug(kTarget, "the table's first line is not the result line '" + plain + "'", line);
    });
    if (!message.empty()) no_newline(message, "the --table error message", line);
    message = fuzz::only_tessel_errors(kTarget, line, [&] {
      std::string svg = layout ? layout_svg(std::get<Layout>(value)) : tv_svg(std::get<TVLayout>(value));
      if (svg.rfind("<svg", 0) != 0 && svg.rfind("<?xml", 0) != 0) bug(kTarget, "the SVG is not an SVG document", line);
    });
    if (!message.empty()) no_newline(message, "the --svg error message", line);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // Step 1: the library, line by line, as the CLI splits them.
  const std::vector<std::string_view> lines = fuzz::getline_lines(input);
  std::vector<int> expect;  // per line: -1 skipped (empty output line), 0 error, 1 result
  for (std::string_view line : lines) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    expect.push_back(blank_or_comment(line) ? -1 : library_line(line) ? 1 : 0);
  }

  // Step 2: `tessel layout` reading the input from standard input.
  int status = -1;
  std::string out;
  {
    fuzz::CapturedStreams streams{std::string(input)};
    std::string message = fuzz::only_tessel_errors(kTarget, input, [&] { status = cli::layout_command({}); });
    if (!message.empty()) bug(kTarget, "tessel layout threw tessel::Error: " + fuzz::escaped(message), input);
    out = streams.out();
  }
  const std::vector<std::string_view> printed = fuzz::getline_lines(out);
  if (!out.empty() && out.back() != '\n') bug(kTarget, "tessel layout's output does not end with a newline", input);
  if (printed.size() != lines.size())
    bug(kTarget,
        "tessel layout printed " + std::to_string(printed.size()) + " lines for " + std::to_string(lines.size()) +
            " input lines: " + fuzz::escaped(out),
        input);
  bool failed = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool error_line = printed[i].rfind("error: ", 0) == 0;
    if (expect[i] == -1 && !printed[i].empty())
      bug(kTarget, "line " + std::to_string(i + 1) + " is blank or a comment, but printed something", input);
    if (expect[i] != -1 && error_line != (expect[i] == 0))
      bug(kTarget,
          "line " + std::to_string(i + 1) + (expect[i] ? " evaluates, but tessel layout printed an error"
                                                       : " fails, but tessel layout printed no error"),
          input);
    failed = failed || expect[i] == 0;
  }
  if (status != (failed ? 1 : 0))
    bug(kTarget, "tessel layout exited " + std::to_string(status) + (failed ? ", not 1" : ", not 0"), input);
  return 0;
}
