// kernel_args.hpp: the command line shared by `tessel dump` and `tessel run`: a kernel name,
// its options (--name value), and the command's own flags and valued options.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tessel/kernels/options.hpp"

namespace tessel::cli {

struct KernelArgs {
  std::string name;                           // empty when none was given
  kernels::Options options;                   // the kernel's options, as given
  std::set<std::string> flags;                // the command's flags that were given (e.g. "--verify")
  std::map<std::string, std::string> values;  // the command's valued options (e.g. "-o" -> FILE)
};

// Splits `args`: `flags` and `valued` name the command's own options; every other `--x v` is a
// kernel option. Returns false after printing `error: ...` to stderr for a malformed line.
bool parse_kernel_args(const std::vector<std::string>& args, const std::set<std::string>& flags,
                       const std::set<std::string>& valued, KernelArgs& out);

}  // namespace tessel::cli
