// run.hpp: runs one launch (a codegen::LaunchPlan) on the CPU against emulated global memory.
#pragma once

#include <cstdint>
#include <functional>

#include "tessel/codegen/launch_plan.hpp"
#include "tessel/emulator/error.hpp"
#include "tessel/emulator/memory.hpp"

namespace tessel::emu {

struct RunOptions {
  // Instructions executed over the whole launch (all threads) before the run stops with an
  // EmulationError: an infinite loop ends, it never hangs.
  uint64_t max_steps = uint64_t{1} << 32;
  // A read of a shared-memory byte that no thread has written is an error.
  bool check_uninitialized_shared = true;
  // A read of a shared-memory byte that another thread wrote since the last barrier both passed
  // is an error (the missing bar.sync).
  bool check_shared_races = true;
  // The clusters in reverse linear order: for kernels whose result must not depend on which block
  // runs last (split-K's and stream-K's fix-ups: another block then arrives last at each tile).
  bool reverse_order = false;
  // Called after each cluster of blocks with the blocks run so far and the grid's total, so that a
  // long emulation can report progress (tessel run --emulate prints it every few seconds).
  std::function<void(uint64_t blocks_done, uint64_t blocks_total)> progress;
};

struct RunStats {
  uint64_t steps = 0;        // instructions executed (guarded-off ones included), all threads
  uint64_t blocks = 0;       // blocks run
  uint64_t barriers = 0;     // barrier completions, all blocks
  uint64_t collectives = 0;  // warp and warpgroup collectives (shfl.sync, elect.sync, ldmatrix, stmatrix, wgmma)
  uint64_t mbarrier_phases = 0;  // mbarrier phase completions, all blocks
  uint64_t tma_loads = 0;        // cp.async.bulk.tensor global -> shared
  uint64_t tma_stores = 0;       // cp.async.bulk.tensor shared -> global
  uint64_t wgmmas = 0;           // wgmma.mma_async instructions (one per warpgroup)
  uint64_t cp_async_copies = 0;  // cp.async copies performed (global -> shared, per thread)
};

// Executes plan.entry() for every block of plan.grid and every thread of plan.block, one block
// (cluster) after the other in linear order (reversed with options.reverse_order), with plan.params as the kernel's parameters (pointers are
// addresses of `mem`). The result lands in `mem`. Deterministic: the same plan and memory give
// the same memory. Throws EmulationError for what the kernel does wrong (see error.hpp) and
// tessel::Error for a plan that does not fit the kernel (parameter count or sizes, block shape
// against .reqntid, a block of more than 1024 threads, a grid not divisible by the cluster).
RunStats run(const codegen::LaunchPlan& plan, Memory& mem, const RunOptions& options = {});

}  // namespace tessel::emu
