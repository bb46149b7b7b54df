// demos/demo_class.hpp: one catalog class for each demonstration kernel: a kernel per combination
// of its options, of operation `demo` (they take no catalog arguments: `tessel run` gives each its
// own problem, testing/demo_run.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

struct DemoSpec {
  std::string name, description;
  std::vector<OptionSpec> options;
  int min_cc = 80;
  // From a complete option set: the kernel's entry name, its operands (name, type) and its IR.
  std::function<std::string(const Options&)> kernel_name;
  std::function<std::vector<OperandAttributes>(const Options&)> operands;
  std::function<codegen::Module(const Options&)> generate;
};

KernelClassPtr make_demo_class(DemoSpec spec);

}  // namespace tessel::kernels
