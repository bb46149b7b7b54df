// fault.hpp: the interpreter's internal error: what went wrong in one instruction, thrown where
// it is found and turned into an EmulationError by the block runner, which adds the kernel,
// block, thread and instruction.
#pragma once

#include <string>

namespace tessel::emu::detail {

struct Fault {
  std::string kind;  // "out-of-bounds", "misaligned address", "shared-memory race", ...
  std::string what;  // the rest: "ld.global reads 16 bytes at 0x7f0000001000, ..."
};

[[noreturn]] inline void fault(std::string kind, std::string what) { throw Fault{std::move(kind), std::move(what)}; }

}  // namespace tessel::emu::detail
