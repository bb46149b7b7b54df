// dump_command.hpp: `tessel dump`, the PTX of any kernel configuration tessel can emit.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Runs `tessel dump ARGS...`; returns 0 on success, 1 when generation or ptxas failed, 2 for
// misuse (unknown kernel, option or value: the message lists the valid ones).
int dump_command(const std::vector<std::string>& args);

void print_dump_help(std::ostream& out);

}  // namespace tessel::cli
