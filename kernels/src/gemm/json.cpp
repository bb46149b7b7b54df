// gemm/json.cpp: see json.hpp.
#include "gemm/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::kernels::json {

const Value* Value::find(const std::string& key) const {
  const Value* found = nullptr;
  for (const auto& [k, v] : object)
    if (k == key) found = &v;
  return found;
}

namespace {

constexpr int kMaxDepth = 64;  // deeper text is refused, not recursed into

class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  Value document() {
    Value v = value(0);
    space();
    if (i_ != s_.size()) error("the end of the text after the value");
    return v;
  }

 private:
  const std::string& s_;
  size_t i_ = 0;

  [[noreturn]] void error(const std::string& expected) const {
    fail("byte " + std::to_string(i_) + ": expected " + expected + (i_ < s_.size() ? "" : " (the text ends there)"));
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool take(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p, ++i_)
      if (i_ >= s_.size() || s_[i_] != *p) error(std::string("'") + word + "'");
  }

  Value value(int depth) {
    if (depth > kMaxDepth) error("at most " + std::to_string(kMaxDepth) + " nested arrays and objects");
    space();
    if (i_ >= s_.size()) error("a value");
    Value v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::Object;
      if (take('}')) return v;
      do {
        space();
        if (i_ >= s_.size() || s_[i_] != '"') error("a member's name in quotes");
        std::string key = string();
        if (!take(':')) error("':' after a member's name");
        v.object.push_back(Member{std::move(key), value(depth + 1)});
      } while (take(','));
      if (!take('}')) error("',' or '}' in an object");
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::Array;
      if (take(']')) return v;
      do v.array.push_back(value(depth + 1));
      while (take(','));
      if (!take(']')) error("',' or ']' in an array");
    } else if (c == '"') {
      v.kind = Value::Kind::String;
      v.string = string();
    } else if (c == 't' || c == 'f') {
      v.kind = Value::Kind::Bool;
      v.boolean = c == 't';
      literal(c == 't' ? "true" : "false");
    } else if (c == 'n') {
      literal("null");
    } else {
      v.kind = Value::Kind::Number;
      v.number = number();
    }
    return v;
  }

  double number() {
    const size_t start = i_;
    auto digits = [&] {
      const size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == d) error("a digit");
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else
      digits();
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    double x = 0;
    const auto r = std::from_chars(s_.data() + start, s_.data() + i_, x);
    if (r.ec != std::errc() || !std::isfinite(x)) {
      i_ = start;
      error("a number a double holds");
    }
    return x;
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int d = 0; d < 4; ++d, ++i_) {
      if (i_ >= s_.size()) error("4 hexadecimal digits after \\u");
      const char h = s_[i_];
      u <<= 4;
      if (h >= '0' && h <= '9')
        u |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        u |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        u |= static_cast<unsigned>(h - 'A' + 10);
      else
        error("4 hexadecimal digits after \\u");
    }
    return u;
  }

  void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  // At the opening quote.
  std::string string() {
    ++i_;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) error("'\"' closing the string");
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) error("no control character inside a string (escape it)");
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      ++i_;
      if (i_ >= s_.size()) error("an escape after '\\'");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00) {  // a surrogate pair
            if (i_ + 1 >= s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u') error("a low surrogate \\uDC00..\\uDFFF");
            i_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xdc00 || lo >= 0xe000) error("a low surrogate \\uDC00..\\uDFFF");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp < 0xe000) {
            error("no lone low surrogate");
          }
          utf8(out, cp);
          break;
        }
        default:
          --i_;
          error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }
};

}  // namespace

Value parse(const std::string& text) { return Reader(text).document(); }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double x) {
  if (!std::isfinite(x)) fail("json::number: " + std::to_string(x) + " is not finite (JSON has no such number)");
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);  // the shortest text that reads back exactly
  return std::string(buf, r.ptr);
}

}  // namespace tessel::kernels::json
