// legalize.hpp: the stage between the builder and the printer: checks a kernel and flattens its
// structured control flow into labels and branches.
#pragma once

#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

// The kernel body as one list of instructions (Label and Bra included). Throws tessel::Error for
// operands that do not match the instruction's signature (op_table.hpp: their count or kinds), a
// register id out of range, a guard that is not a pred, a branch condition that is not a pred.
std::vector<Instr> legalize(const Kernel& k);

}  // namespace tessel::codegen
