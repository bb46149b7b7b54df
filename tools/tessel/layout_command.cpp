// layout_command.cpp: `tessel layout`: evaluates calculator expressions (from the arguments, or
// one per line of standard input), prints one line per expression, and draws pictures
// (--table, --svg). docs/cli.md is its manual; keep the two in step.
#include "layout_command.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <optional>
#include <variant>

#include "printable.hpp"
#include "tessel/algebra/calculator.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/picture.hpp"

namespace tessel::cli {

namespace {

struct Options {
  bool table = false;
  bool symbolic = false;      // print dynamic leaves as their expressions
  std::optional<Env> values;  // --eval: give the named symbols these values
  std::optional<std::string> svg_file;
  std::vector<std::string> expressions;
};

// One run of the calculator: the status so far and the last value that a picture can show.
class Session {
 public:
  explicit Session(const Options& options) : options_(options) {}

  // Evaluates one expression and prints its line (and its table with --table).
  void evaluate(std::string_view text) {
    std::optional<CalcValue> value;
    std::string line;
    try {
      value = evaluate_expression(text);
      if (options_.values) value = tessel::evaluate(*value, *options_.values);
      line = to_string(*value, options_.symbolic ? Notation::Expressions : Notation::Cute);
    } catch (const std::exception& e) {
      value.reset();
      line = std::string("error: ") + e.what();
    } catch (...) {
      value.reset();
      line = "error: unknown failure";
    }
    emit(line, !value);
    if (!value) return;
    if (!std::holds_alternative<Layout>(*value) && !std::holds_alternative<TVLayout>(*value)) return;
    drawable_ = *value;
    if (!options_.table) return;
    try {
      std::string t = std::holds_alternative<Layout>(*value) ? layout_table(std::get<Layout>(*value))
                                                             : tv_table(std::get<TVLayout>(*value));
      std::cout << t.substr(t.find('\n') + 1);  // its title line is the result line just printed
    } catch (const std::exception& e) {
      emit(std::string("error: ") + e.what(), true);
    }
  }

  // An input line that holds no expression: blank, or a '#' comment.
  void skip() { emit("", false); }

  // Writes the SVG of the last layout or TV layout (with --svg) and returns the exit status.
  int finish() {
    if (options_.svg_file && !write_svg(*options_.svg_file)) failed_ = true;
    return failed_ ? 1 : 0;
  }

 private:
  void emit(const std::string& line, bool failed) {
    std::cout << printable(line) << '\n' << std::flush;
    failed_ = failed_ || failed;
  }

  // Errors of --svg go to standard error: standard output keeps its one line per expression.
  bool write_svg(const std::string& file) {
    if (!drawable_) {
      std::cerr << "error: --svg " << printable(file) << ": no expression gave a layout or a TV layout to draw\n";
      return false;
    }
    std::string svg;
    try {
      if (auto* l = std::get_if<Layout>(&*drawable_))
        svg = layout_svg(*l);
      else
        svg = tv_svg(std::get<TVLayout>(*drawable_));
    } catch (const std::exception& e) {
      std::cerr << "error: --svg " << printable(file) << ": " << printable(e.what()) << "\n";
      return false;
    }
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (out) out << svg;
    if (out) out.close();
    if (!out) {
      std::cerr << "error: --svg " << printable(file) << ": cannot write the file\n";
      return false;
    }
    return true;
  }

  const Options& options_;
  std::optional<CalcValue> drawable_;
  bool failed_ = false;
};

bool blank_or_comment(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r\f\v");
  return i == std::string_view::npos || line[i] == '#';
}

// Reads standard input to the end: one output line per input line, in order.
void read_lines(Session& session) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // \r\n line ends
    if (blank_or_comment(line))
      session.skip();
    else
      session.evaluate(line);
  }
}

// Parses `M=1000,N=64` into the values of --eval; throws Error naming the item that is wrong.
Env parse_values(const std::string& text) {
  const std::string form = " (--eval takes NAME=VALUE[,NAME=VALUE...], e.g. --eval M=1000,N=64)";
  Env env;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    size_t eq = item.find('=');
    if (eq == 0 || eq == std::string::npos) fail("--eval: '" + printable(item) + "' is not NAME=VALUE" + form);
    std::string name = item.substr(0, eq);
    for (size_t k = 0; k < eq; ++k) {  // a symbol's name, as the grammar spells it
      char c = item[k];
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
            (k > 0 && std::isdigit(static_cast<unsigned char>(c)))))
        fail("--eval: '" + printable(name) + "' is not a symbol name" + form);
    }
    int64_t v = parse_integer("--eval " + name, item.substr(eq + 1), INT64_MIN, INT64_MAX);
    if (!env.emplace(name, v).second)
      fail("--eval: " + name + " is given twice (" + name + "=" + std::to_string(env[name]) + " and " + name + "=" +
           std::to_string(v) + ")");
    start = end + 1;
  }
  return env;
}

// Parses the options; returns an exit status when the command is already done (help, misuse).
std::optional<int> parse_options(const std::vector<std::string>& args, Options& options) {
  bool only_expressions = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool option = !only_expressions && (a.rfind("--", 0) == 0 || a == "-h");
    if (!option) {
      options.expressions.push_back(a);  // `-3`, `-1:1` and the like are expressions
    } else if (a == "--") {
      only_expressions = true;
    } else if (a == "-h" || a == "--help") {
      print_layout_help(std::cout);
      return 0;
    } else if (a == "--table") {
      options.table = true;
    } else if (a == "--symbolic") {
      options.symbolic = true;
    } else if (a == "--eval") {
      if (i + 1 == args.size()) {
        std::cerr << "error: --eval needs NAME=VALUE[,NAME=VALUE...], e.g. --eval M=1000,N=64\n";
        return 2;
      }
      try {
        options.values = parse_values(args[++i]);
      } catch (const Error& e) {
        std::cerr << "error: " << printable(e.what()) << "\n";
        return 2;
      }
    } else if (a == "--svg") {
      if (i + 1 == args.size()) {
        std::cerr << "error: --svg needs a FILE\n";
        return 2;
      }
      options.svg_file = args[++i];
    } else if (a.rfind("--svg=", 0) == 0) {
      options.svg_file = a.substr(6);
    } else {
      std::cerr << "error: unknown option '" << printable(a) << "' of tessel layout\n"
                << "Run `tessel layout --help` for its options.\n";
      return 2;
    }
  }
  return std::nullopt;
}

}  // namespace

int layout_command(const std::vector<std::string>& args) {
  Options options;
  if (auto status = parse_options(args, options)) return *status;
  Session session(options);
  if (options.expressions.empty()) {
    read_lines(session);
  } else {
    for (const auto& e : options.expressions) session.evaluate(e);
  }
  return session.finish();
}

void print_layout_help(std::ostream& out) {
  out << "usage: tessel layout [--table] [--svg FILE] [--symbolic] [--eval NAME=V,...] [EXPR...]\n"
         "\n"
         "Evaluates CuTe layout-algebra expressions and prints each result in CuTe notation, one\n"
         "line per expression. With no EXPR it reads standard input: one expression per line, and\n"
         "exactly one output line per input line, in order (a blank line or a line whose first\n"
         "non-blank character is '#' prints an empty line). A bad expression prints a line\n"
         "`error: ...` that says what is wrong and where, and the next one is evaluated; the exit\n"
         "status is 1 if any expression failed, 0 otherwise.\n"
         "\n"
         "options:\n"
         "  --table      after each layout or TV layout result, print its table (rows = mode 0,\n"
         "               columns = mode 1); the output is then no longer one line per expression\n"
         "  --svg FILE   write an SVG picture of the last layout or TV layout result to FILE\n"
         "  --symbolic   print dynamic values as their expressions, e.g. ceil_div(M,16), not ?\n"
         "  --eval M=1000,N=64\n"
         "               give the named symbols these values and print the results evaluated\n"
         "  -h, --help   show this help\n"
         "  --           the arguments that follow are expressions\n"
         "\n"
         "grammar:\n"
         "  integer       42  -3\n"
         "  int-tuple     (4,(2,8))\n"
         "  layout        SHAPE:STRIDE, e.g. (4,8):(8,1)\n"
         "  dynamic       ?  ?{div=16}  M  N{div=8}   (a name is one value throughout the line)\n"
         "  tiler         <3:3,(2,4):(1,8)>   (a layout per mode; a shape (4,8) means <4:1,8:1>)\n"
         "  swizzle       Sw<3,4,3>\n"
         "  call          name(arg,...), nested freely: coalesce(composition(A,B))\n"
         "  application   L(c): a layout at an index or coordinate, e.g. (4,8):(8,1)((1,2))\n"
         "  slice coord   (2,_) for slice and dice\n"
         "\n"
         "functions:\n";
  std::string line = " ";
  for (const auto& name : calculator_functions()) {
    if (line.size() + 1 + name.size() > 92) {
      out << line << "\n";
      line = " ";
    }
    line += " " + name;
  }
  out << line << "\n\nSee docs/cli.md for the manual, with an example of every function.\n";
}

}  // namespace tessel::cli
