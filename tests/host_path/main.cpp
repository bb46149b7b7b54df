// The doctest runner of tessel_host_path_tests: tessel's host path on the stand-in driver
// (tests/stand_in_driver). The driver is chosen before anything opens it, and the on-disk
// compiled-kernel cache is off (the stand-in's "machine code" is not worth keeping).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("TESSEL_LIBCUDA", TESSEL_STAND_IN_DRIVER, 1);
  setenv("TESSEL_CACHE", "0", 1);
  doctest::Context context(argc, argv);
  return context.run();
}
