// kernel_args.cpp: see kernel_args.hpp.
#include "kernel_args.hpp"

#include <iostream>

#include "printable.hpp"

namespace tessel::cli {

bool parse_kernel_args(const std::vector<std::string>& args, const std::set<std::string>& flags,
                       const std::set<std::string>& valued, KernelArgs& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (flags.count(a)) {
      out.flags.insert(a);
    } else if (valued.count(a) || (a.rfind("--", 0) == 0 && a.size() > 2)) {
      if (i + 1 >= args.size()) {
        std::cerr << "error: option " << printable(a) << " needs a value\n";
        return false;
      }
      auto& map = valued.count(a) ? out.values : out.options;
      const std::string key = valued.count(a) ? a : a.substr(2);
      if (map.count(key)) {
        std::cerr << "error: option " << printable(a) << " given twice\n";
        return false;
      }
      map[key] = args[++i];
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "error: unknown option '" << printable(a) << "'\n";
      return false;
    } else if (out.name.empty()) {
      out.name = a;
    } else {
      std::cerr << "error: unexpected argument '" << printable(a) << "' (one kernel name per call)\n";
      return false;
    }
  }
  return true;
}

}  // namespace tessel::cli
