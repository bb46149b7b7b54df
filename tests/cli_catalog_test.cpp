// cli_catalog_test.cpp: the catalog's names on the command line, as a user types them: a random
// sample of `tessel list` (fresh each run; TESSEL_SEED reproduces it) through `tessel dump NAME`,
// assembled by ptxas for the kernel's target, and `tessel run --emulate NAME` on a random
// problem checked against the host reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "algebra/support.hpp"
#include "cli_support.hpp"
#include "codegen/ptxas.hpp"

namespace {

using tessel::test::CliRun;
using tessel::test::run_cli;

// The first column of `tessel list`: every kernel's name.
std::vector<std::string> catalog_names() {
  const CliRun list = run_cli({"list"});
  REQUIRE(list.status == 0);
  std::vector<std::string> names;
  for (const std::string& line : list.lines)
    if (!line.empty()) names.push_back(line.substr(0, line.find(' ')));
  return names;
}

// `count` names drawn without replacement, the same for both halves of one run's seed.
std::vector<std::string> sample(size_t count) {
  std::vector<std::string> names = catalog_names();
  REQUIRE(names.size() >= count);
  std::mt19937_64 rng = tessel::test::make_rng("cli catalog sample");
  std::shuffle(names.begin(), names.end(), rng);
  names.resize(count);
  return names;
}

void dump_and_emulate(size_t from, size_t to) {
  const std::vector<std::string> names = sample(50);
  const bool ptxas = !tessel::test::ptxas_path().empty();
  if (!ptxas) MESSAGE("TESSEL_SKIP: ptxas not found: the dumps are not assembled");
  for (size_t i = from; i < to; ++i) {
    const std::string& name = names[i];
    INFO(name << " (reproduce with TESSEL_SEED=" << tessel::test::seed() << ")");
    const CliRun dump = run_cli(ptxas ? std::vector<std::string>{"dump", name, "--verify"}
                                      : std::vector<std::string>{"dump", name});
    INFO(dump.err);
    CHECK(dump.status == 0);
    CHECK(dump.out.find(".visible .entry ") != std::string::npos);
    if (ptxas) CHECK(dump.err.find(": ok\n") != std::string::npos);
    // The emulator needs no driver: hide any there is.
    const CliRun run = run_cli({"run", name, "--emulate"}, "", {"TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"});
    INFO(run.out << run.err);
    CHECK(run.status == 0);
    CHECK(run.out.find("\nok    " + name + ": ") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("cli: 50 random names of tessel list dump, assemble and run in the emulator (1 of 2)") {
  dump_and_emulate(0, 25);
}

TEST_CASE("cli: 50 random names of tessel list dump, assemble and run in the emulator (2 of 2)") {
  dump_and_emulate(25, 50);
}
