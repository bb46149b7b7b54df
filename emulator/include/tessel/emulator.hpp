// emulator.hpp: everything of tessel's CPU emulator of the kernel IR: emulated global memory,
// run(plan, memory) and its errors.
#pragma once

#include "tessel/emulator/error.hpp"
#include "tessel/emulator/memory.hpp"
#include "tessel/emulator/run.hpp"
#include "tessel/emulator/tensor_map.hpp"
