// common/options.cpp: resolution and printing of a kernel class's options (options.hpp).
#include "tessel/kernels/options.hpp"

#include "tessel/algebra/error.hpp"

namespace tessel::kernels {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

Options resolve_options(const std::vector<OptionSpec>& specs, const Options& given, const std::string& who) {
  Options out;
  for (const auto& [name, value] : given) {
    const OptionSpec* spec = nullptr;
    std::vector<std::string> names;
    for (const OptionSpec& s : specs) {
      names.push_back("--" + s.name);
      if (s.name == name) spec = &s;
    }
    if (!spec) {
      std::string hint;
      if (name.find('_') != std::string::npos) {  // the old spelling: say the new one
        std::string dashed = name;
        for (char& c : dashed) c = c == '_' ? '-' : c;
        for (const OptionSpec& s : specs)
          if (s.name == dashed) hint = "; options are spelled with dashes: --" + dashed;
      }
      fail("unknown option --" + name + " for " + who + " (valid: " + (names.empty() ? "none" : join(names)) + ")" +
           hint);
    }
    bool ok = false;
    for (const std::string& v : spec->values) ok = ok || v == value;
    if (!ok) fail("invalid value '" + value + "' for " + who + " --" + name + " (valid: " + join(spec->values) + ")");
    out[name] = value;
  }
  for (const OptionSpec& s : specs) {
    if (!out.count(s.name)) out[s.name] = s.values.at(0);
  }
  return out;
}

std::string option_arguments(const std::vector<OptionSpec>& specs, const Options& o) {
  std::string s;
  for (const OptionSpec& spec : specs) {  // in the class's option order
    auto it = o.find(spec.name);
    if (it != o.end()) s += (s.empty() ? "--" : " --") + spec.name + " " + it->second;
  }
  return s;
}

std::vector<Options> all_combinations(const std::vector<OptionSpec>& specs) {
  std::vector<Options> out = {Options{}};
  for (const OptionSpec& s : specs) {
    std::vector<Options> next;
    for (const Options& o : out) {
      for (const std::string& v : s.values) {
        Options p = o;
        p[s.name] = v;
        next.push_back(std::move(p));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace tessel::kernels
