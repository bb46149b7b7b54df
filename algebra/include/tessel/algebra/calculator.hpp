// calculator.hpp: the algebra calculator behind `tessel layout`: one expression in, one line of
// CuTe notation out. Calls use CuTe's names and nest freely:
//   zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tessel/algebra/layout.hpp"
#include "tessel/algebra/swizzle.hpp"

namespace tessel {

// What an expression evaluates to.
using CalcValue = std::variant<IntTuple, Layout, Tiler, Swizzle, ComposedLayout, TVLayout, SliceCoord, bool>;

std::string to_string(const CalcValue& v, Notation notation = Notation::Cute);

// Parses and evaluates one expression; throws Error("col N: ...") on bad input.
CalcValue evaluate_expression(std::string_view text);
// A value with its symbols given values: dynamic leaves become static (integers, layouts, TV
// layouts, tilers and composed layouts; other values are returned unchanged).
CalcValue evaluate(const CalcValue& v, const Env& env);

// evaluate_expression, printed.
std::string calculate(std::string_view text);

// The names of the calls the calculator knows, for help texts.
std::vector<std::string> calculator_functions();

}  // namespace tessel
