// fuzz_support.hpp: what the libFuzzer harnesses of tests/fuzz/ share: reporting a broken invariant
// (an abort, which libFuzzer records as a crash with its reproducer), capturing the standard
// streams around a CLI entry point, and splitting an input into lines or arguments.
#pragma once

#include <cxxabi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "tessel/algebra/error.hpp"

namespace tessel::fuzz {

// `text` with every byte that is not printable ASCII written as \xNN (the reports stay one line).
inline std::string escaped(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The readable name of an exception's type (std::bad_variant_access, not St18bad_variant_access).
inline std::string type_name(const std::exception& e) {
  int status = 0;
  char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
  std::string out = status == 0 && name ? name : typeid(e).name();
  std::free(name);
  return out;
}

// A broken invariant: says which and on what input, then aborts (libFuzzer saves the input as
// crash-<sha1> and prints its path).
[[noreturn]] inline void bug(std::string_view target, std::string_view what, std::string_view input) {
  std::fprintf(stderr, "\n=== tessel fuzz %.*s: BUG: %.*s\n=== input: \"%s\"\n", static_cast<int>(target.size()),
               target.data(), static_cast<int>(what.size()), what.data(), escaped(input).c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs `f`; a tessel::Error is the expected way to refuse an input (returns its message, or an
// empty string when `f` returned). Any other exception is a bug: the API throws tessel::Error only.
template <class F>
std::string only_tessel_errors(std::string_view target, std::string_view input, F&& f) {
  try {
    f();
    return {};
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.empty()) bug(target, "tessel::Error with an empty message", input);
    return m;
  } catch (const std::exception& e) {
    bug(target, std::string("exception that is not tessel::Error: ") + type_name(e) + ": " + e.what(), input);
  } catch (...) {
    bug(target, "exception that is not a std::exception", input);
  }
}

// Redirects std::cin from `in` and std::cout / std::cerr into strings while alive.
class CapturedStreams {
 public:
  explicit CapturedStreams(std::string in = {}) : in_(std::move(in)) {
    cin_ = std::cin.rdbuf(in_.rdbuf());
    cout_ = std::cout.rdbuf(out_.rdbuf());
    cerr_ = std::cerr.rdbuf(err_.rdbuf());
    std::cin.clear();
  }
  ~CapturedStreams() {
    std::cin.rdbuf(cin_);
    std::cout.rdbuf(cout_);
    std::cerr.rdbuf(cerr_);
    std::cin.clear();
    std::cout.clear();
    std::cerr.clear();
  }
  CapturedStreams(const CapturedStreams&) = delete;
  CapturedStreams& operator=(const CapturedStreams&) = delete;

  std::string out() const { return out_.str(); }
  std::string err() const { return err_.str(); }

 private:
  std::istringstream in_;
  std::ostringstream out_, err_;
  std::streambuf *cin_, *cout_, *cerr_;
};

// The lines std::getline reads from `text` (a last line without '\n' counts; an empty tail does
// not), each without its '\n'.
inline std::vector<std::string_view> getline_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// An argument vector from a fuzz input: split on NUL bytes when there is one (any byte can then
// be in an argument), otherwise on ASCII whitespace (so that seeds are readable text).
inline std::vector<std::string> split_arguments(std::string_view text) {
  std::vector<std::string> args;
  if (text.find('\0') != std::string_view::npos) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\0', start);
      if (end == std::string_view::npos) end = text.size();
      args.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    return args;
  }
  std::string cur;
  bool in_word = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (in_word) args.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) args.push_back(cur);
  return args;
}

}  // namespace tessel::fuzz
