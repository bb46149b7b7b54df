// options.hpp: the options of a kernel class's command-line form (`tessel dump CLASS --tile-m 64`):
// names spelled with dashes, each with the values it accepts, the first being the default.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessel::kernels {

using Options = std::map<std::string, std::string>;  // option name (no dashes in front) -> value

struct OptionSpec {
  std::string name;                 // spelled --name on the command line, words joined by '-'
  std::vector<std::string> values;  // the accepted values; the first is the default
  std::string help;
};

// `given` completed with the defaults of `specs`; throws tessel::Error naming an unknown option
// (and the valid ones) or an invalid value (and the accepted ones). `who` names the class.
Options resolve_options(const std::vector<OptionSpec>& specs, const Options& given, const std::string& who);
// "--a x --b y": every option of `o` that `specs` declares, in their order.
std::string option_arguments(const std::vector<OptionSpec>& specs, const Options& o);
// Every combination of the specs' values (the product, the first option slowest).
std::vector<Options> all_combinations(const std::vector<OptionSpec>& specs);

}  // namespace tessel::kernels
