// calculator_fuzz_test.cpp: random calls with random arguments. Every input must give a result
// or a tessel::Error; any other exception (or a crash, under the asan preset) is a bug.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

std::string random_arg(std::mt19937_64& rng, int depth);

std::string random_tuple(std::mt19937_64& rng, int depth) {
  if (depth == 0 || uniform(rng, 0, 2) == 0) {
    switch (uniform(rng, 0, 9)) {
      case 0:
        return "?";
      case 1:
        return "?{div=8}";
      case 2:
        return "M";
      case 3:
        return "0";
      case 4:
        return "-3";
      case 5:
        return "4611686018427387904";
      case 6:
        return "_";
      default:
        return std::to_string(pick(rng, {1, 2, 3, 4, 6, 8, 16}));
    }
  }
  std::string s = "(";
  int r = static_cast<int>(uniform(rng, 0, 3));
  for (int i = 0; i < r; ++i) s += (i ? "," : "") + random_tuple(rng, depth - 1);
  return s + ")";
}

std::string random_call(std::mt19937_64& rng, int depth) {
  static const std::vector<std::string> names = calculator_functions();
  std::string s = names[static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(names.size()) - 1))] + "(";
  int n = static_cast<int>(uniform(rng, 0, 3));
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + random_arg(rng, depth - 1);
  return s + ")";
}

std::string random_arg(std::mt19937_64& rng, int depth) {
  switch (uniform(rng, 0, 5)) {
    case 0:
      return random_tuple(rng, 2);
    case 1:
      return depth > 0 ? random_call(rng, depth) : random_tuple(rng, 1);
    case 2:
      return "<" + random_tuple(rng, 1) + ":" + random_tuple(rng, 1) + "," + random_tuple(rng, 1) + ">";
    case 3:
      return "Sw<" + std::to_string(uniform(rng, 0, 4)) + ",3," + std::to_string(uniform(rng, -4, 4)) + ">";
    default: {
      Shape s = random_shape(rng, 3, 2);
      return to_string(s) + ":" + to_string(transform_leaf(s, [&](const Int&) {
               return Int(pick(rng, {0, 1, 2, 4, 8}));
             }));
    }
  }
}

}  // namespace

TEST_CASE("calculator: random calls give a result or a tessel::Error, nothing else") {
  TESSEL_RNG(rng);
  int results = 0, errors = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string expr = random_call(rng, 3);
    if (uniform(rng, 0, 9) == 0 && !expr.empty())
      expr.erase(static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(expr.size()) - 1)), 1);
    INFO(expr);
    try {
      std::string out = calculate(expr);
      CHECK(out.find('\n') == std::string::npos);
      ++results;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      FAIL("unexpected " << typeid(e).name() << ": " << e.what());
    }
  }
  MESSAGE(results << " results, " << errors << " errors");
  CHECK(results > 400);
}
