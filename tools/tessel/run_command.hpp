// run_command.hpp: `tessel run`, a kernel configuration on the GPU with a check against the host.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Runs `tessel run ARGS...`; 0 when every check passed, 1 when one failed or the kernel cannot
// run here (the message says why: no driver, no device, an older device), 2 for misuse.
int run_command(const std::vector<std::string>& args);

void print_run_help(std::ostream& out);

}  // namespace tessel::cli
