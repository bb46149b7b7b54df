// list_command.hpp: `tessel list`, the kernel catalog, one line per kernel, filterable.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Runs `tessel list [--filter KEY=VALUE ...] [--KEY VALUE ...] [--cc N]`; returns 0 on success
// (also when nothing matches), 2 for misuse (an unknown key or a bad value: the message says which).
int list_command(const std::vector<std::string>& args);

void print_list_help(std::ostream& out);

}  // namespace tessel::cli
