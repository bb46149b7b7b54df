// bench_command.hpp: `tessel bench gemm`: tessel's GEMM kernels (found through the catalog) timed
// side by side with cuBLAS in one process, on the same buffers, with their outputs compared.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tessel::cli {

void print_bench_help(std::ostream& out);
// args: what follows `tessel bench` (`gemm ...`). Exit status: 0 done, 1 a problem could not be
// run (no GPU, an error on the GPU), 2 misuse (a bad option; the message names the valid values).
int bench_command(const std::vector<std::string>& args);

}  // namespace tessel::cli
