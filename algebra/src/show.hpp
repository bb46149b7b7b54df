// show.hpp (internal): how error messages print values: dynamic ones by their expressions
// (`extent M`, not `extent ?`), so a refusal names what is missing.
#pragma once

#include <string>

#include "tessel/algebra/layout.hpp"

namespace tessel::detail {

// A dynamic leaf by its expression, cut after 80 characters: a message stays one readable line
// however large the expressions grow (the strides of a layout of n symbols hold n^2 characters).
inline std::string show(const Int& x) { return expr_string(x, 80); }
inline std::string show(const IntTuple& t) {
  if (t.is_leaf()) return show(t.leaf());
  std::string s = "(";
  for (int i = 0; i < t.rank(); ++i) s += (i ? "," : "") + show(t[i]);
  return s + ")";
}
inline std::string show(const Layout& l) { return show(l.shape()) + ":" + show(l.stride()); }
inline std::string show(const Tiler& t) {
  if (!t.by_mode()) return show(t.modes()[0]);
  std::string s = "<";
  for (int i = 0; i < t.rank(); ++i) s += (i ? "," : "") + show(t.modes()[i]);
  return s + ">";
}

}  // namespace tessel::detail
