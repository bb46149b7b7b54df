// layout_command.hpp: `tessel layout`, the layout-algebra calculator and its pictures.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Runs `tessel layout ARGS...` (the arguments after `layout`) and returns the exit status:
// 0 when every expression succeeded, 1 when one failed (or --svg could not be written),
// 2 for an unknown option.
int layout_command(const std::vector<std::string>& args);

void print_layout_help(std::ostream& out);

}  // namespace tessel::cli
