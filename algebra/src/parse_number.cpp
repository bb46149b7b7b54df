// parse_number.cpp: strict reading of numbers given as text.
#include "tessel/algebra/parse_number.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "tessel/algebra/error.hpp"

namespace tessel {

namespace {

// The text as the message shows it: printable characters kept, others as \xNN, cut at 40.
std::string quoted(std::string_view text) {
  std::string s = "'";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      const char* hex = "0123456789abcdef";
      s += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    }
  }
  return s + (text.size() > 40 ? "...'" : "'");
}

template <class T>
bool read_whole(std::string_view text, T& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

int64_t parse_integer(std::string_view what, std::string_view text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  if (!read_whole(text, v) || v < lo || v > hi)
    fail(std::string(what) + ": " + quoted(text) + " is not an integer in [" + std::to_string(lo) + ", " +
         std::to_string(hi) + "]");
  return v;
}

uint64_t parse_unsigned(std::string_view what, std::string_view text) {
  uint64_t v = 0;
  if (!read_whole(text, v))
    fail(std::string(what) + ": " + quoted(text) + " is not an integer in [0, " + std::to_string(UINT64_MAX) + "]");
  return v;
}

double parse_finite(std::string_view what, std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    fail(std::string(what) + ": " + quoted(text) + " is not a finite number");
  return v;
}

}  // namespace tessel
