// notation_fuzzer.cpp: libFuzzer target for the notation parser (tessel/algebra/notation.hpp):
// parse_int_tuple, parse_layout and parse_tiler on the whole input.
// Invariants (a broken one aborts, and libFuzzer keeps the input):
//   - no crash, no sanitizer report, no hang (libFuzzer's -timeout);
//   - every call returns or throws tessel::Error with a non-empty message; any other exception
//     is a bug;
//   - a message has no newline when the input has none (the CLI prints one line per input line);
//   - printing is the inverse of parsing: what parses prints as text that parses back, and that
//     prints the same text again.
// Set TESSEL_FUZZ_COLUMNS=1 to also require notation.hpp's "col N: " at the start of every message.
#include <cstdlib>

#include "fuzz_support.hpp"
#include "tessel/algebra/notation.hpp"

namespace {

using namespace tessel;
using fuzz::bug;

constexpr std::string_view kTarget = "notation";

bool require_columns() {
  static const bool on = [] {
    const char* v = std::getenv("TESSEL_FUZZ_COLUMNS");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

void check_message(const std::string& message, std::string_view input, std::string_view what) {
  if (message.empty()) return;  // the call returned
  if (input.find('\n') == std::string_view::npos && message.find('\n') != std::string::npos)
    bug(kTarget, std::string(what) + ": the message has a newline: " + fuzz::escaped(message), input);
  if (require_columns() && message.rfind("col ", 0) != 0)
    bug(kTarget, std::string(what) + ": the message does not start with 'col N: ': " + fuzz::escaped(message), input);
}

// Parses `input` with `parse`; if it parses, checks that its printed form parses back to a value
// that prints the same.
template <class Parse>
void round_trip(std::string_view input, std::string_view what, Parse parse) {
  std::string printed;
  std::string message = fuzz::only_tessel_errors(kTarget, input, [&] { printed = to_string(parse(input)); });
  check_message(message, input, what);
  if (!message.empty()) return;
  if (printed.find('\n') != std::string::npos)
    bug(kTarget, std::string(what) + ": the printed value has a newline", input);
  std::string again;
  message = fuzz::only_tessel_errors(kTarget, input, [&] { again = to_string(parse(printed)); });
  if (!message.empty())
    bug(kTarget, std::string(what) + ": the printed value '" + printed + "' does not parse back: " + message, input);
  if (again != printed)
    bug(kTarget, std::string(what) + ": '" + printed + "' parses back as '" + again + "'", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  round_trip(input, "parse_int_tuple", [](std::string_view t) { return parse_int_tuple(t); });
  round_trip(input, "parse_layout", [](std::string_view t) { return parse_layout(t); });
  round_trip(input, "parse_tiler", [](std::string_view t) { return parse_tiler(t); });
  return 0;
}
