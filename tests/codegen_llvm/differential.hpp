// differential.hpp: comparing the two roads' PTX of one module: what ptxas reports of each
// (registers, shared memory, spills), each entry's parameter list, and calls out of the module.
#pragma once

#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::test {

struct PtxasReport {
  bool ok = false;
  std::string log;
  int registers = -1;     // "Used N registers"
  int shared_bytes = 0;   // "N bytes smem"
  int spill_stores = -1;  // "N bytes spill stores"
  int spill_loads = -1;
  int stack_bytes = -1;   // "N bytes stack frame"
};

// ptxas -v for `target`, its report read (one kernel per module, as `tessel dump` makes them).
PtxasReport assemble(const std::string& ptx, const std::string& target);

// Each `.param` of the `.entry` as its width and size, names dropped (LLVM names parameters
// KERNEL_param_N) and scalar types read as their width (LLVM spells an s32 parameter .u32; the
// bytes passed are the same): ".b64", ".b32", ".align 64 .b8 [128]". LLVM's pointer annotations
// (`.ptr .global .align N`) are dropped too: they are hints, not part of the ABI.
std::vector<std::string> entry_params(const std::string& ptx);

// Why the PTX calls out of itself (`.extern .func`, a `call` to a function it does not define),
// or "" when it does not.
std::string external_calls(const std::string& ptx);

}  // namespace tessel::test
