// gemm/json.hpp: the little JSON the tuning cache needs (tuning_cache.cpp): a value tree, a strict
// reader that names the byte where the text stops being JSON, and the writer's quoting.
#pragma once

#include <string>
#include <vector>

namespace tessel::kernels::json {

struct Member;

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  // In the text's order. A struct, not std::pair<std::string, Value>: a pair needs its types
  // complete, and Value is not yet (GCC accepts it; clang with libstdc++ does not).
  std::vector<Member> object;

  // The member `key` of an object (the last of that name), or null.
  const Value* find(const std::string& key) const;
};

struct Member {
  std::string key;
  Value value;
};

// Parses one JSON value (RFC 8259; whitespace around it, nothing else after it). Throws
// tessel::Error "byte N: <what was expected>" where the text is not JSON.
Value parse(const std::string& text);

// `s` as a JSON string literal (quotes, escapes of '"', '\\' and control characters).
std::string quote(const std::string& s);

// `x` as a JSON number that reads back as the same double (finite x only).
std::string number(double x);

}  // namespace tessel::kernels::json
