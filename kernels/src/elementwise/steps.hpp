// elementwise/steps.hpp: the steps of an elementwise launch that host.cpp makes and call.cpp's
// one-call path reuses (internal to the kernels library).
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels::elementwise_steps {

// The operands' names, as the kernels' parameters and the error messages spell them.
inline constexpr const char* kOperandNames[3] = {"A", "B", "C"};

// A launch's grid and parameter values by name, for one configuration.
struct Prepared {
  ElementwiseConfig config;
  std::array<unsigned, 3> grid{0, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::map<std::string, std::vector<std::byte>> values;  // parameter name -> bytes
};

// Every check, the normal form and the choice of kernel; an empty problem gives grid[0] == 0.
Prepared prepare(const ElementwiseArguments& args, const ElementwiseOptions& o);
// The launch plan of `p` (its module only when asked).
codegen::LaunchPlan plan_of(const Prepared& p, bool with_module = true);
// The configuration's module, generated once per process.
const codegen::Module& module_for(const ElementwiseConfig& c);
// alpha or beta as the kernel takes it (f64 for f64, f32 for the other floats, else s32), written
// to `out` (8 bytes at most); returns its size.
size_t write_scalar(codegen::Type t, double v, void* out);
// The checks that read addresses and values, not layouts (run again for a known form).
void check_addresses(const ElementwiseArguments& args);
void check_scalars(const ElementwiseArguments& args);
// Each operand inside one device allocation (asks the driver only about spans not known).
void check_in_allocation(const ElementwiseArguments& args);

}  // namespace tessel::kernels::elementwise_steps
