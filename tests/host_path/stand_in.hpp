// stand_in.hpp: the host-path tests' handle on the stand-in driver (tests/stand_in_driver): its
// counters and recorded launches, and hooks that make its "device" the CPU emulator's memory and
// its TMA descriptors the emulator's, so that a recorded launch runs in the emulator.
#pragma once

#include <dlfcn.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "stand_in_driver.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/launch.hpp"

namespace tessel::test {

class StandIn {
 public:
  // The driver's handle; every test starts by asking for it (it makes a context current).
  static StandIn& get() {
    static StandIn s;
    kernels::device_in_use();
    return s;
  }
  uint64_t calls(const char* name) const { return calls_(name); }
  uint64_t all_calls() const { return all_(); }
  void reset() const { reset_(); }
  uint64_t launch_count() const { return count_(); }
  // The launches since the last reset, oldest first (at most the last 256).
  std::vector<TesselStandInLaunch> launches() const {
    std::vector<TesselStandInLaunch> out;
    TesselStandInLaunch l;
    for (uint64_t back = count_(); back-- > 0;)
      if (launch_(back, &l)) out.push_back(l);
    return out;
  }
  // The recorded parameters as a LaunchPlan's (one byte vector per parameter).
  static std::vector<std::vector<std::byte>> params(const TesselStandInLaunch& l) {
    std::vector<std::vector<std::byte>> p;
    for (unsigned i = 0; i < l.param_count; ++i) {
      const auto* b = reinterpret_cast<const std::byte*>(l.params + l.offsets[i]);
      p.emplace_back(b, b + l.sizes[i]);
    }
    return p;
  }

  // "Device" memory in `memory` and descriptors in the emulator's encoding, until the guard ends.
  struct Emulated {
    explicit Emulated(emu::Memory& memory) {
      StandIn& s = StandIn::get();
      emulated_memory() = &memory;
      s.set_allocator_(
          [](std::size_t bytes) { return last_allocation() = emulated_memory()->alloc(bytes); }, [](uint64_t) {});
      s.set_encoder_(encode);
    }
    ~Emulated() {
      StandIn& s = StandIn::get();
      s.set_allocator_(nullptr, nullptr);
      s.set_encoder_(nullptr);
      emulated_memory() = nullptr;
    }
    // The address of the last allocation made through the driver while a guard was alive.
    static uint64_t& last_allocation() {
      static uint64_t a = 0;
      return a;
    }
    Emulated(const Emulated&) = delete;
    Emulated& operator=(const Emulated&) = delete;
  };

 private:
  StandIn() {
    void* h = dlopen(TESSEL_STAND_IN_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(h, "cannot open the stand-in driver " TESSEL_STAND_IN_DRIVER);
    auto sym = [&](const char* n) {
      void* p = dlsym(h, n);
      REQUIRE_MESSAGE(p, "the stand-in driver has no " << n);
      return p;
    };
    calls_ = reinterpret_cast<decltype(calls_)>(sym("tessel_stand_in_calls"));
    all_ = reinterpret_cast<decltype(all_)>(sym("tessel_stand_in_all_calls"));
    reset_ = reinterpret_cast<decltype(reset_)>(sym("tessel_stand_in_reset"));
    count_ = reinterpret_cast<decltype(count_)>(sym("tessel_stand_in_launch_count"));
    launch_ = reinterpret_cast<decltype(launch_)>(sym("tessel_stand_in_launch"));
    set_encoder_ = reinterpret_cast<decltype(set_encoder_)>(sym("tessel_stand_in_set_encoder"));
    set_allocator_ = reinterpret_cast<decltype(set_allocator_)>(sym("tessel_stand_in_set_allocator"));
    kernels::device_in_use();  // device 0's primary context current on this thread, as a GPU program has
  }
  static emu::Memory*& emulated_memory() {
    static emu::Memory* m = nullptr;
    return m;
  }
  // cuTensorMapEncodeTiled's arguments as a TensorMapSpec (byte strides of dims 1.. back to
  // elements), encoded by the emulator; non-zero on a refusal.
  static int encode(void* map, int type, unsigned rank, void* address, const uint64_t* dims, const uint64_t* strides,
                    const unsigned* box, const unsigned* element_strides, int interleave, int swizzle, int l2, int oob) {
    rt::TensorMapSpec s;
    s.type = static_cast<rt::TensorMapDataType>(type);
    s.interleave = static_cast<rt::TensorMapInterleave>(interleave);
    s.swizzle = static_cast<rt::TensorMapSwizzle>(swizzle);
    s.l2_promotion = static_cast<rt::TensorMapL2Promotion>(l2);
    s.oob_fill = static_cast<rt::TensorMapOobFill>(oob);
    const int64_t esize = rt::element_bytes(s.type);
    for (unsigned d = 0; d < rank; ++d) {
      s.dims.push_back(static_cast<int64_t>(dims[d]));
      s.strides.push_back(d == 0 ? 1 : static_cast<int64_t>(strides[d - 1]) / esize);
      s.box.push_back(box[d]);
      s.element_strides.push_back(element_strides[d]);
    }
    try {
      const rt::TensorMap m = emu::encode_tensor_map(s, reinterpret_cast<uint64_t>(address));
      std::memcpy(map, m.words.data(), sizeof m.words);
      return 0;
    } catch (const std::exception&) {
      return 1;
    }
  }

  uint64_t (*calls_)(const char*) = nullptr;
  uint64_t (*all_)() = nullptr;
  void (*reset_)() = nullptr;
  uint64_t (*count_)() = nullptr;
  int (*launch_)(uint64_t, TesselStandInLaunch*) = nullptr;
  void (*set_encoder_)(TesselStandInEncoder) = nullptr;
  void (*set_allocator_)(TesselStandInAlloc, TesselStandInFree) = nullptr;
};

}  // namespace tessel::test
