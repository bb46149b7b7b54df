// parser.hpp (internal): the recursive-descent reader shared by notation.cpp (plain CuTe
// notation) and calculator.cpp (notation plus calls).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "tessel/algebra/calculator.hpp"

namespace tessel::detail {

class Parser {
 public:
  using Call = std::function<CalcValue(const std::string& name, std::vector<CalcValue>& args)>;
  // Postfix application L(c) of a layout, composed layout or swizzle to a coordinate.
  using Apply = std::function<CalcValue(const CalcValue& f, const IntTuple& coord)>;
  // With no `call`, the input may hold only notation (no calls); with no `apply`, no L(c).
  Parser(std::string_view text, Call call = {}, Apply apply = {});
  CalcValue parse_all();  // the whole input: one expression, then the end

 private:
  static constexpr int kMaxDepth = 64;
  // Integers in one input: a bound on memory, far above any real layout.
  static constexpr int kMaxLeaves = 1 << 20;
  // Dynamic leaves (`?`, names) in one input. Expressions over n of them hold up to n^2 nodes
  // (the strides of a layout are prefix products), and some operations compare them; at this
  // bound every operation takes well under a second (docs/algebra.md, "Limits").
  static constexpr int kMaxDynamic = 1024;
  [[noreturn]] void error_at(size_t pos, const std::string& message) const;
  void skip_ws();
  bool at(char c);
  bool eat(char c);
  void expect(char c, const char* what);
  CalcValue expression();
  CalcValue tiler();
  CalcValue swizzle();
  CalcValue call(const std::string& name, size_t start);
  SliceCoord node();
  SliceCoord leaf();
  int64_t integer();
  std::string identifier();
  bool looking_at_call() const;

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  int leaves_ = 0;
  int dynamic_ = 0;
  int64_t anonymous_ = 0;  // the `?` read so far: they print as ?0, ?1, ... in this input
  Call call_;
  Apply apply_;
  std::map<std::string, Int> symbols_;  // a name means the same symbol throughout one input
};

// Converts a parsed node with no `_` into an IntTuple (throws naming the `_` otherwise).
IntTuple to_int_tuple(const SliceCoord& c);

}  // namespace tessel::detail
