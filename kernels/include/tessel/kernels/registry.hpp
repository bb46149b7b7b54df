// registry.hpp: the kernel families tessel can emit, each with its options, for `tessel dump`
// (and, later, the catalog). A family turns a full set of option values into a PTX module.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::kernels {

using Options = std::map<std::string, std::string>;

struct OptionSpec {
  std::string name;                 // spelled --name on the command line
  std::vector<std::string> values;  // the accepted values; the first is the default
  std::string help;
};

struct KernelFamily {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  // The configurations `tessel dump --list` prints; empty means every combination of values.
  std::vector<Options> listed;
  std::function<codegen::Module(const Options&)> generate;
};

// The built-in families, in listing order.
const std::vector<KernelFamily>& kernel_families();
// The family called `name`; throws tessel::Error listing the valid names.
const KernelFamily& find_family(const std::string& name);
// The given options completed with defaults; throws naming an unknown option (and the valid
// ones) or an invalid value (and the accepted ones).
Options resolve_options(const KernelFamily& f, const Options& given);
// Every configuration to list: `listed`, or the product of all option values.
std::vector<Options> listed_configurations(const KernelFamily& f);
// `name --a x --b y`: the arguments of `tessel dump` that print this configuration.
std::string dump_arguments(const KernelFamily& f, const Options& o);

}  // namespace tessel::kernels
