// parse_number.hpp: numbers given as text (command-line options, kernel options, filters,
// environment variables), read one way everywhere: the whole text, decimal, range checked, and one
// error form naming the option, the text and the range:
//   --size: '12abc' is not an integer in [1, 16777216]
#pragma once

#include <cstdint>
#include <string_view>

#include "tessel/algebra/error.hpp"

namespace tessel {

// A decimal integer in [lo, hi]: an optional '-', then digits, nothing else (no spaces, no '+',
// no suffix). Throws Error otherwise.
int64_t parse_integer(std::string_view what, std::string_view text, int64_t lo, int64_t hi);
// A non-negative decimal integer up to 2^64-1 (seeds); '-1' is refused, not wrapped around.
uint64_t parse_unsigned(std::string_view what, std::string_view text);
// A finite decimal number (e.g. 0.5, -2, 1e-3), the whole text; no inf or nan.
double parse_finite(std::string_view what, std::string_view text);

}  // namespace tessel
