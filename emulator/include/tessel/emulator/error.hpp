// error.hpp: EmulationError, what the emulator throws when a kernel breaks a rule while it runs.
#pragma once

#include "tessel/algebra/error.hpp"

namespace tessel::emu {

// A kernel did something a GPU would not do correctly: an access outside every buffer or
// misaligned, a read of shared memory nobody wrote or that another thread wrote with no barrier
// between them, a barrier or warp collective that can never complete, a step budget spent, or an
// instruction the emulator does not run yet. The message names the kernel, the block and thread
// (x,y,z), the instruction as PTX and, for memory, the address, as compute-sanitizer does.
// Misuse of the API itself (a plan whose parameters do not match the kernel) is a tessel::Error.
class EmulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace tessel::emu
