// parse_number_test.cpp: numbers given as text are read whole, range checked, with one error form.
#include "support.hpp"

using namespace tessel;

TEST_CASE("parse_number: integers are read whole and range checked") {
  CHECK(parse_integer("--n", "42", 1, 100) == 42);
  CHECK(parse_integer("--n", "-7", -10, 10) == -7);
  CHECK(parse_integer("--n", "-9223372036854775808", INT64_MIN, INT64_MAX) == INT64_MIN);
  for (const char* bad : {"", " 4", "4 ", "+4", "4x", "0x10", "4.0", "1e3", "-", "101", "0"})
    CHECK_THROWS_WITH_AS(parse_integer("--n", bad, 1, 100),
                         (std::string("--n: '") + bad + "' is not an integer in [1, 100]").c_str(), Error);
  CHECK_THROWS_WITH_AS(parse_integer("--n", "9223372036854775808", INT64_MIN, INT64_MAX),
                       doctest::Contains("is not an integer in"), Error);
  // Bytes that are not printable are escaped, and a long text is cut.
  CHECK_THROWS_WITH_AS(parse_integer("--n", std::string("1\n2", 3), 0, 9), "--n: '1\\x0a2' is not an integer in [0, 9]",
                       Error);
  CHECK_THROWS_WITH_AS(parse_integer("--n", std::string(100, '7'), 0, 9), doctest::Contains("7777...'"), Error);
}

TEST_CASE("parse_number: unsigned values refuse a sign instead of wrapping around") {
  CHECK(parse_unsigned("--seed", "18446744073709551615") == UINT64_MAX);
  CHECK(parse_unsigned("--seed", "0") == 0);
  for (const char* bad : {"-1", "18446744073709551616", "12x", "", "+1"})
    CHECK_THROWS_WITH_AS(parse_unsigned("--seed", bad),
                         (std::string("--seed: '") + bad + "' is not an integer in [0, 18446744073709551615]").c_str(),
                         Error);
}

TEST_CASE("parse_number: finite numbers") {
  CHECK(parse_finite("--alpha", "0.5") == 0.5);
  CHECK(parse_finite("--alpha", "-2") == -2.0);
  CHECK(parse_finite("--alpha", "1e-3") == 1e-3);
  for (const char* bad : {"inf", "nan", "-inf", "1e999", "0.5x", "", " 1", "1,5"})
    CHECK_THROWS_WITH_AS(parse_finite("--alpha", bad), (std::string("--alpha: '") + bad + "' is not a finite number").c_str(),
                         Error);
}
