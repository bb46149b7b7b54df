// block.hpp: runs the blocks of a launch, one at a time: every thread of the block with its own
// register file, scheduled deterministically. A thread runs until it reaches a bar.sync, a warp
// collective (shfl.sync, elect.sync) or its end; a collective completes when every lane of its
// membermask that has not exited waits at it, a barrier when the threads it counts have arrived;
// when nothing can run and some thread still waits, the block is deadlocked (an error).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "program.hpp"
#include "shared_memory.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/emulator/run.hpp"

namespace tessel::emu::detail {

// What all blocks of a launch share.
struct Launch {
  const Program& program;
  const codegen::LaunchPlan& plan;
  Memory& memory;
  const RunOptions& options;
  std::vector<std::byte> params;  // the parameter space, laid out as Program::params
  RunStats stats;
  uint64_t steps_left = 0;
};

class BlockRunner {
 public:
  explicit BlockRunner(Launch& launch);
  void run(std::array<unsigned, 3> ctaid);

 private:
  enum class State : uint8_t { Ready, AtBarrier, AtCollective, Exited };
  struct Thread {
    uint32_t pc = 0;
    State state = State::Ready;
  };
  struct Barrier {
    uint32_t expected = 0;
    std::vector<uint32_t> arrived;
  };

  void run_thread(uint32_t t);
  void execute(uint32_t t, uint32_t& pc);  // runs t from pc until it blocks or exits
  void arrive(uint32_t t);
  void try_collectives(uint32_t warp);
  void perform(const Decoded& d, const std::vector<uint32_t>& lanes, uint32_t warp);
  [[noreturn]] void deadlock();

  // Memory accesses of thread t (registers R); throw Fault.
  void load(uint32_t t, const Decoded& d, uint64_t* R);
  void store(uint32_t t, const Decoded& d, const uint64_t* R);
  void atomic(uint32_t t, const Decoded& d, uint64_t* R);
  void access(uint32_t t, const Decoded& d, uint64_t addr, void* data, uint32_t n, bool write, bool is_atomic);

  uint64_t* regs(uint32_t t) { return regs_.data() + size_t{t} * L_.program.nslots; }
  std::string thread_name(uint32_t t) const;
  std::string where(uint32_t t, uint32_t pc) const;  // "kernel K, block (x,y,z), thread (x,y,z), instruction `...`"

  Launch& L_;
  std::array<unsigned, 3> block_{}, ctaid_{};
  uint32_t nthreads_ = 0;
  std::vector<Thread> threads_;
  std::vector<uint64_t> regs_;
  std::array<Barrier, 16> barriers_;
  SharedMemory shared_;
};

}  // namespace tessel::emu::detail
