// ptxas.hpp: running NVIDIA's ptxas from the CLI (`tessel dump --verify/--stats`).
#pragma once

#include <string>

namespace tessel::cli {

// $TESSEL_PTXAS, /usr/local/cuda/bin/ptxas, or ptxas on PATH; empty when none is found.
std::string find_ptxas();

struct PtxasRun {
  bool ok = false;
  std::string output;  // ptxas's messages: errors, or the -v resource report
};

// Assembles `ptx` for `target` with -v through a temporary file.
PtxasRun run_ptxas(const std::string& ptxas, const std::string& ptx, const std::string& target);

}  // namespace tessel::cli
