// parser.cpp: reads CuTe notation and calculator expressions, reporting the column of errors.
#include "parser.hpp"

#include <cctype>
#include <optional>

namespace tessel::detail {

IntTuple to_int_tuple(const SliceCoord& c) {
  if (c.is_underscore()) fail("`_` is only allowed in slicing coordinates");
  if (c.is_value()) return c.value();
  std::vector<IntTuple> r;
  for (const auto& e : c.elems()) r.push_back(to_int_tuple(e));
  return IntTuple::tuple(std::move(r));
}

namespace {
bool has_underscore(const SliceCoord& c) {
  if (c.is_underscore()) return true;
  if (c.is_value()) return false;
  for (const auto& e : c.elems())
    if (has_underscore(e)) return true;
  return false;
}
// A character as it should appear in an error message: itself if printable, else \xNN.
std::string shown(char c) {
  if (std::isprint(static_cast<unsigned char>(c))) return std::string(1, c);
  const char* hex = "0123456789abcdef";
  unsigned char u = static_cast<unsigned char>(c);
  return std::string("\\x") + hex[u >> 4] + hex[u & 15];
}
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

Parser::Parser(std::string_view text, Call call, Apply apply)
    : text_(text), call_(std::move(call)), apply_(std::move(apply)) {}

void Parser::error_at(size_t pos, const std::string& message) const {
  fail("col " + std::to_string(pos + 1) + ": " + message);
}

void Parser::skip_ws() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
}

bool Parser::at(char c) {
  skip_ws();
  return pos_ < text_.size() && text_[pos_] == c;
}

bool Parser::eat(char c) {
  if (!at(c)) return false;
  ++pos_;
  return true;
}

void Parser::expect(char c, const char* what) {
  if (eat(c)) return;
  std::string got = pos_ < text_.size() ? "'" + shown(text_[pos_]) + "'" : "the end of the input";
  error_at(pos_, std::string("expected '") + c + "' " + what + ", got " + got);
}

CalcValue Parser::parse_all() {
  CalcValue v;
  try {
    v = expression();
  } catch (const Error& e) {  // every error names a column: where the reading stopped, if not more precise
    std::string what = e.what();
    if (what.rfind("col ", 0) == 0) throw;
    error_at(std::min(pos_, text_.size() ? text_.size() - 1 : 0), what);
  }
  skip_ws();
  if (pos_ != text_.size()) error_at(pos_, "unexpected '" + shown(text_[pos_]) + "' after the expression");
  return v;
}

int64_t Parser::integer() {
  skip_ws();
  size_t start = pos_;
  bool negative = eat('-');
  skip_ws();
  if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
    error_at(start, "expected an integer");
  int64_t v = 0;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
    int digit = text_[pos_] - '0';
    if (v > (INT64_MAX - digit) / 10) error_at(start, "integer does not fit in 64 bits");
    v = v * 10 + digit;
    ++pos_;
  }
  return negative ? -v : v;
}

std::string Parser::identifier() {
  skip_ws();
  size_t start = pos_;
  while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

bool Parser::looking_at_call() const {
  size_t p = pos_;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  if (p >= text_.size() || !ident_start(text_[p])) return false;
  while (p < text_.size() && ident_char(text_[p])) ++p;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  return p < text_.size() && text_[p] == '(';
}

SliceCoord Parser::leaf() {
  skip_ws();
  size_t start = pos_;
  if (++leaves_ > kMaxLeaves)
    error_at(start, "more than " + std::to_string(kMaxLeaves) + " integers in one expression");
  if (pos_ >= text_.size()) error_at(pos_, "expected an integer, a tuple or an expression, got the end of the input");
  char c = text_[pos_];
  auto divisibility = [&]() -> std::optional<int64_t> {
    if (!eat('{')) return std::nullopt;
    size_t p = pos_;
    if (identifier() != "div") error_at(p, "expected 'div=' in a divisibility annotation");
    expect('=', "after 'div'");
    size_t q = pos_;
    int64_t d = integer();
    if (d < 1) error_at(q, "divisibility must be positive, got " + std::to_string(d));
    expect('}', "to close the divisibility annotation");
    return d;
  };
  auto count_dynamic = [&] {
    if (++dynamic_ > kMaxDynamic)
      error_at(start, "more than " + std::to_string(kMaxDynamic) +
                          " dynamic values (? or names) in one expression: the algebra's cost grows with the "
                          "square of their number");
  };
  // The value: ? or a name (dynamic), or an integer; then, for any of them, a basis path @i@j...
  // (a stride of an identity layout; the algebra prints dynamic ones too, e.g. ?{div=4}@2).
  Int v;
  if (c == '?') {
    count_dynamic();
    ++pos_;
    std::optional<int64_t> d = divisibility();
    v = Int::anonymous(anonymous_++, d.value_or(1));
  } else if (ident_start(c)) {
    std::string name = identifier();
    if (name == "_") return SliceCoord::underscore();
    count_dynamic();
    std::optional<int64_t> d = divisibility();
    auto it = symbols_.find(name);
    if (it == symbols_.end()) it = symbols_.emplace(name, Int::symbol(name, d.value_or(1))).first;
    if (d && *d != it->second.divisibility())
      error_at(start, "symbol " + name + " is declared with div=" + std::to_string(it->second.divisibility()) +
                          " and div=" + std::to_string(*d) + "; declare it once");
    v = it->second;
  } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
    v = integer();
  } else {
    error_at(start, "unexpected '" + shown(c) + "'");
  }
  BasisPath path;
  while (eat('@')) {
    size_t p = pos_;
    int64_t i = integer();
    if (i < 0 || i > 1024) error_at(p, "basis index must be in [0,1024], got " + std::to_string(i));
    path.push_back(static_cast<int>(i));
  }
  return path.empty() ? SliceCoord(v) : SliceCoord(v.with_basis(path));
}

SliceCoord Parser::node() {
  if (!at('(')) return leaf();
  size_t open = pos_;
  if (++depth_ > kMaxDepth) error_at(open, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  ++pos_;
  std::vector<SliceCoord> elems;
  if (!at(')')) {
    do {
      elems.push_back(node());
    } while (eat(','));
  }
  expect(')', "to close the tuple");
  --depth_;
  return SliceCoord::tuple(std::move(elems));
}

CalcValue Parser::tiler() {
  size_t open = pos_;
  expect('<', "to open a tiler");
  if (++depth_ > kMaxDepth) error_at(open, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  std::vector<Layout> modes;
  do {
    size_t p = pos_;
    CalcValue v = expression();
    if (auto* l = std::get_if<Layout>(&v))
      modes.push_back(*l);
    else if (auto* t = std::get_if<IntTuple>(&v))
      try {
        modes.push_back(make_layout(*t));  // a shape: its compact layout (whose strides may overflow)
      } catch (const Error& e) {
        error_at(p, e.what());
      }
    else
      error_at(p, "a tiler mode must be a layout or a shape, got " + to_string(v));
  } while (eat(','));
  expect('>', "to close the tiler");
  --depth_;
  if (modes.empty()) error_at(open, "empty tiler");
  return Tiler(std::move(modes));
}

CalcValue Parser::swizzle() {
  pos_ += 3;  // "Sw<"
  size_t p = pos_;
  int64_t b = integer();
  expect(',', "in Sw<B,M,S>");
  int64_t m = integer();
  expect(',', "in Sw<B,M,S>");
  int64_t s = integer();
  expect('>', "to close Sw<B,M,S>");
  auto small = [](int64_t x) { return x >= -1000 && x <= 1000; };  // the rule itself is Swizzle's
  if (!small(b) || !small(m) || !small(s)) error_at(p, "Sw<B,M,S>: needs B >= 0, M >= 0, |S| >= B and B+M+|S| <= 62");
  try {
    return Swizzle(static_cast<int>(b), static_cast<int>(m), static_cast<int>(s));
  } catch (const Error& e) {
    error_at(p, e.what());
  }
}

CalcValue Parser::call(const std::string& name, size_t start) {
  if (!call_) error_at(start, "calls are not allowed here: expected CuTe notation");
  if (++depth_ > kMaxDepth) error_at(start, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  expect('(', "after the function name");
  std::vector<CalcValue> args;
  if (!at(')')) {
    do {
      args.push_back(expression());
    } while (eat(','));
  }
  expect(')', "to close the call");
  --depth_;
  try {
    return call_(name, args);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind("col ", 0) == 0) throw;  // already located in a nested call
    error_at(start, what);
  }
}

CalcValue Parser::expression() {
  skip_ws();
  size_t start = pos_;
  if (pos_ >= text_.size()) error_at(pos_, "expected an expression, got the end of the input");
  CalcValue v;
  if (text_.substr(pos_, 3) == "Sw<") {
    v = swizzle();
  } else if (at('<')) {
    v = tiler();
  } else if (looking_at_call()) {
    std::string name = identifier();
    v = call(name, start);
  } else {
    SliceCoord shape = node();
    if (eat(':')) {
      size_t p = pos_;
      SliceCoord stride = node();
      try {
        v = Layout(to_int_tuple(shape), to_int_tuple(stride));
      } catch (const Error& e) {
        error_at(p, e.what());
      }
    } else if (has_underscore(shape)) {
      v = shape;
    } else {
      v = to_int_tuple(shape);
    }
  }
  // Postfix application: L(c) evaluates a layout at an index or coordinate.
  while (apply_ && at('(') &&
         (std::holds_alternative<Layout>(v) || std::holds_alternative<ComposedLayout>(v) ||
          std::holds_alternative<Swizzle>(v))) {
    size_t p = pos_;
    ++pos_;  // '('
    SliceCoord c = node();
    expect(')', "to close the application");
    try {
      v = apply_(v, to_int_tuple(c));
    } catch (const Error& e) {
      error_at(p, e.what());
    }
  }
  return v;
}

}  // namespace tessel::detail
