// ptxas.hpp: assembling PTX text with NVIDIA's ptxas in tests (CPU only: no GPU needed).
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "tessel/codegen/ptx.hpp"

namespace tessel::test {

// The ptxas to use: $TESSEL_PTXAS, /usr/local/cuda/bin/ptxas, or ptxas on PATH; empty if none.
std::string ptxas_path();

struct PtxasResult {
  bool ok = false;
  std::string log;  // ptxas's messages (errors, or the -v resource report)
};

// Assembles `ptx` for `target` (e.g. sm_90a) with -v and `flags` (e.g. "-c": relocatable code, as
// the driver's linker compiles); the text goes through a temporary file.
PtxasResult run_ptxas(const std::string& ptx, const std::string& target, const std::string& flags = "");

// Assembles the module for the target its requirements name; fails the test with ptxas's log.
// Without ptxas it prints `TESSEL_SKIP: ptxas not found ...` (CTest reports the test skipped)
// and returns false.
bool check_assembles(const codegen::Module& m);

}  // namespace tessel::test
