// tune_command.hpp: `tessel tune`: the cost model's best candidates for GEMM problems timed on the
// GPU, the fastest written into the tuning cache that tessel::gemm reads (tuning_cache.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tessel::cli {

void print_tune_help(std::ostream& out);
// args: what follows `tessel tune`. Exit status: 0 done, 1 a problem could not be tuned (no GPU,
// an error on the GPU, no candidate), 2 misuse (a bad option; the message names the valid values).
int tune_command(const std::vector<std::string>& args);

}  // namespace tessel::cli
