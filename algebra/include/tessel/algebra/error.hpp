// error.hpp: tessel::Error, the one exception type that tessel's API throws for misuse.
#pragma once

#include <stdexcept>
#include <string>

namespace tessel {

// Thrown for every input that breaks a rule. The message names the offending value and the rule,
// e.g. "composition: stride divisibility condition fails: 3 does not divide 4 (mode 0 of 4:1)".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& message) { throw Error(message); }

// Internal invariants: a broken one is a bug in tessel, reported the same way (never an abort).
inline void check(bool condition, const char* what) {
  if (!condition) fail(std::string("internal error: ") + what);
}

}  // namespace tessel
