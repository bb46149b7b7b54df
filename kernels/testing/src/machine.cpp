// machine.cpp: see machine.hpp.
#include "tessel/testing/machine.hpp"

#include <chrono>
#include <list>

#include "tessel/emulator.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

Machine::~Machine() = default;

namespace {

class Gpu : public Machine {
 public:
  Gpu() { device_in_use(); }
  bool emulated() const override { return false; }
  uint64_t upload(const std::vector<uint8_t>& bytes) override {
    return buffers_.emplace_back(rt::DeviceBuffer::from(bytes)).ptr();
  }
  uint64_t poisoned(size_t n, uint8_t poison) override {
    rt::DeviceBuffer& b = buffers_.emplace_back(n);
    b.fill(poison);
    return b.ptr();
  }
  std::vector<uint8_t> download(uint64_t address, size_t n) const override {
    for (const rt::DeviceBuffer& b : buffers_) {
      if (address >= b.ptr() && address + n <= b.ptr() + b.size()) {
        std::vector<uint8_t> bytes(n);
        b.download(bytes.data(), n, address - b.ptr());
        return bytes;
      }
    }
    throw Error("gpu machine: no buffer holds " + std::to_string(n) + " bytes at " + std::to_string(address));
  }
  LaunchTarget target() const override { return {}; }
  double launch(const codegen::LaunchPlan& plan) override {
    use_device_for(plan.module);
    const rt::Function f = load_plan(plan);  // loaded before the clock starts
    return timed([&] { launch_plan(plan, f); });
  }
  double run(const Kernel& k, const Arguments& args) override {
    const Artifact a = k.compile(args);
    a.function();  // loaded before the clock starts
    return timed([&] { k.run(args, a); });
  }
  std::string stats() const override { return ""; }

 private:
  static double timed(const std::function<void()>& launch) {
    rt::Event start, stop;
    start.record();
    launch();
    stop.record();
    stop.synchronize();
    return rt::elapsed_ms(start, stop);
  }
  std::list<rt::DeviceBuffer> buffers_;  // stable addresses
};

class Emulator : public Machine {
 public:
  explicit Emulator(std::function<void(uint64_t, uint64_t)> progress) { options_.progress = std::move(progress); }
  bool emulated() const override { return true; }
  uint64_t upload(const std::vector<uint8_t>& bytes) override { return memory_.upload(bytes); }
  uint64_t poisoned(size_t n, uint8_t poison) override {
    const uint64_t a = memory_.alloc(n);
    memory_.fill(a, std::byte{poison}, n);
    return a;
  }
  std::vector<uint8_t> download(uint64_t address, size_t n) const override {
    return memory_.read<uint8_t>(address, n);
  }
  // Two persistent CTAs (clusters of them where the kernel clusters): every CTA walks several tiles.
  LaunchTarget target() const override { return {2, emu::encode_tensor_map}; }
  double launch(const codegen::LaunchPlan& plan) override {
    const auto t0 = std::chrono::steady_clock::now();
    stats_ = emu::run(plan, memory_, options_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  double run(const Kernel& k, const Arguments& args) override {
    LaunchTarget t = target();
    t.sm_count *= k.metadata().design.cluster[0] * k.metadata().design.cluster[1] * k.metadata().design.cluster[2];
    return launch(k.plan(args, k.compile(args), t));
  }
  std::string stats() const override {
    std::string s = std::to_string(stats_.steps) + " instructions emulated";
    if (stats_.tma_loads) s += ", " + std::to_string(stats_.tma_loads) + " TMA loads";
    if (stats_.wgmmas) s += ", " + std::to_string(stats_.wgmmas) + " wgmmas";
    return s;
  }

 private:
  emu::Memory memory_;
  emu::RunOptions options_;
  emu::RunStats stats_;
};

}  // namespace

std::unique_ptr<Machine> gpu_machine() { return std::make_unique<Gpu>(); }
std::unique_ptr<Machine> emulator_machine(std::function<void(uint64_t, uint64_t)> progress) {
  return std::make_unique<Emulator>(std::move(progress));
}

}  // namespace tessel::kernels
