// precompile_command.hpp: `tessel precompile`, which fills the compiled-kernel cache ahead of time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Runs `tessel precompile ARGS...`; returns 0 when every configuration is in the cache, 1 when a
// GPU, the cache or a compilation failed, 2 for misuse.
int precompile_command(const std::vector<std::string>& args);

void print_precompile_help(std::ostream& out);

}  // namespace tessel::cli
