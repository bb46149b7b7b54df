// stand_in_driver.hpp: the control interface of the stand-in CUDA driver (stand_in_driver.cpp), a
// libcuda look-alike with no GPU behind it: TESSEL_LIBCUDA=<path of libtessel_stand_in_cuda.so>
// makes tessel load it. It answers as one H100-like device (sm_90, 132 SMs), keeps "device"
// memory in host memory, accepts any PTX, and queues nothing: a launch is recorded, not run. CPU
// tests and the host-overhead benchmark use it to drive tessel's real host path (tessel::gemm,
// tessel::elementwise) end to end, counting every driver call the path makes.
//
// The functions below are exported with C linkage; a test reaches them by dlopen()ing the same
// path (the loader hands back the library the runtime already opened) and dlsym().
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// One recorded cuLaunchKernelEx: the entry's name, the geometry, and the parameter values packed
// one after the other in the entry's declaration order, each at its natural alignment as the PTX
// declares it (offsets[i] is parameter i's offset in `params`).
struct TesselStandInLaunch {
  char entry[256];
  uint64_t ptx_fnv1a;  // the 64-bit FNV-1a hash of the module's PTX text (which kernel ran)
  unsigned grid[3], block[3], cluster[3];
  unsigned shared_bytes;
  unsigned param_count;
  unsigned offsets[64];
  unsigned sizes[64];
  std::size_t param_bytes;
  unsigned char params[2048];
};

// The hash of ptx_fnv1a, for a test to compare with an artifact's PTX.
inline uint64_t tessel_stand_in_fnv1a(const char* text, std::size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(text[i])) * 0x100000001b3ull;
  return h;
}

// Encodes a TMA descriptor in place of the stand-in's own encoding (tests install one that writes
// the emulator's): the arguments of cuTensorMapEncodeTiled with the enums as ints.
using TesselStandInEncoder = int (*)(void* map, int type, unsigned rank, void* address, const uint64_t* dims,
                                     const uint64_t* strides, const unsigned* box, const unsigned* element_strides,
                                     int interleave, int swizzle, int l2, int oob);
// Allocates device memory in place of host memory (tests install the emulator's), and frees it.
using TesselStandInAlloc = uint64_t (*)(std::size_t bytes);
using TesselStandInFree = void (*)(uint64_t address);

// Calls of the entry point `name` ("cuLaunchKernelEx", "cuPointerGetAttribute", ...) since the last
// reset; every entry point tessel resolves is counted.
uint64_t tessel_stand_in_calls(const char* name);
// Calls of every entry point since the last reset.
uint64_t tessel_stand_in_all_calls();
// Zeroes the counters and forgets the recorded launches.
void tessel_stand_in_reset();
// Launches since the last reset, and the i-th most recent of the last 256 (0: the latest); returns
// 0 when there is no such launch.
uint64_t tessel_stand_in_launch_count();
int tessel_stand_in_launch(uint64_t back, TesselStandInLaunch* out);
// Installs (or, with null, removes) the hooks above.
void tessel_stand_in_set_encoder(TesselStandInEncoder encode);
void tessel_stand_in_set_allocator(TesselStandInAlloc alloc, TesselStandInFree free);
}
