// show.hpp (internal): how error messages print values: dynamic ones by their expressions
// (`extent M`, not `extent ?`), so a refusal names what is missing.
#pragma once

#include <string>

#include "tessel/algebra/int.hpp"

namespace tessel::detail {

template <class T>
std::string show(const T& x) {
  return to_string(x, Notation::Expressions);
}

}  // namespace tessel::detail
