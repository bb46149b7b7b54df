// gemm_command.hpp: `tessel gemm` (gemm_command.cpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

void print_gemm_help(std::ostream& out);
int gemm_command(const std::vector<std::string>& args);

}  // namespace tessel::cli
