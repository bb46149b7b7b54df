// The doctest runner of tessel_tests. Test cases live in tests/<layer>/*.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
