// listed.hpp: the kernels `tessel dump --list` lists, for the tests that walk them: each catalog
// kernel of a class, then the class's variants, with its options completed.
#pragma once

#include <string>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::test {

struct Listed {
  std::string label;            // the `tessel dump` line
  kernels::KernelPtr kernel;    // what that line dumps
  kernels::Options options;     // its class's options, complete (empty for a class without)
};

inline std::vector<Listed> listed_of(const kernels::KernelClass& c) {
  const std::vector<kernels::OptionSpec> specs = c.options();
  auto complete = [&](const kernels::Options& o) {
    return specs.empty() ? o : kernels::resolve_options(specs, o, c.name());
  };
  std::vector<Listed> out;
  for (const kernels::KernelPtr& k : c.generate_kernels())
    out.push_back({k->name(), k, complete(k->metadata().options)});
  for (const kernels::Options& v : c.variants()) {
    const kernels::Options o = complete(v);
    out.push_back({c.name() + " " + kernels::option_arguments(specs, o), c.configure(o), o});
  }
  return out;
}

inline std::vector<Listed> listed_of(const std::string& class_name) {
  const kernels::KernelClassPtr c = kernels::Registry::global().find_class(class_name);
  if (!c) throw Error("no kernel class " + class_name);
  return listed_of(*c);
}

}  // namespace tessel::test
