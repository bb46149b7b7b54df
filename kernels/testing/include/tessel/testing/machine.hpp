// machine.hpp: where a check runs a kernel: the GPU in use, or the CPU emulator. Each check
// (kernel_run.hpp) is written once against this: buffers, TMA descriptors, launches.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessel/codegen/launch_plan.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::kernels {

class Machine {
 public:
  virtual ~Machine();
  virtual bool emulated() const = 0;
  // A buffer holding `bytes`; a buffer of `n` bytes filled with `poison`; a buffer's bytes.
  virtual uint64_t upload(const std::vector<uint8_t>& bytes) = 0;
  virtual uint64_t poisoned(size_t n, uint8_t poison) = 0;
  virtual std::vector<uint8_t> download(uint64_t address, size_t n) const = 0;
  // Where catalog plans go (the emulator's TMA encoder and a small persistent grid, or the GPU's).
  virtual LaunchTarget target() const = 0;
  // Runs `plan` to completion; its time in milliseconds (CUDA events, or the emulator's wall clock).
  virtual double launch(const codegen::LaunchPlan& plan) = 0;
  // One run of a catalog kernel on `args` (compiled here): Kernel::run on a GPU, its plan() in the
  // emulator; the time in milliseconds (on a GPU, one launch after the module is loaded).
  virtual double run(const Kernel& k, const Arguments& args) = 0;
  // "123 instructions emulated, 4 TMA loads", or "" on a GPU: what the last run did.
  virtual std::string stats() const = 0;
};

// The GPU in use (kernels::device_in_use; throws where there is no driver or device). The
// emulator, printing `progress` (blocks done, of total) on long runs when set.
std::unique_ptr<Machine> gpu_machine();
std::unique_ptr<Machine> emulator_machine(std::function<void(uint64_t, uint64_t)> progress = {});

}  // namespace tessel::kernels
