// legalize.hpp: the stage between the builder and the printer: checks a kernel and flattens its
// structured control flow into labels and branches.
#pragma once

#include <functional>
#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

// The kernel body as one list of instructions (Label and Bra included). Throws tessel::Error for
// operands that do not match the instruction's signature (op_table.hpp: their count or kinds), a
// register id out of range, a guard that is not a pred, a branch condition that is not a pred.
std::vector<Instr> legalize(const Kernel& k);

// The same instructions, each passed to `visit` in order as it is checked, none copied: the
// printer writes them as they come (copying every instruction into a list was a fifth of the
// printer's time on large kernels). Throws what legalize throws, possibly after some visits.
void for_each_legalized(const Kernel& k, const std::function<void(const Instr&)>& visit);

}  // namespace tessel::codegen
