// gpu_compare.hpp: runs one kernel on the emulator and on GPU 0 with the same buffers, so that a
// test can require the two to agree bit for bit (skipped, with the reason, without a GPU).
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "emulator/support.hpp"
#include "runtime/gpu.hpp"
#include "tessel/kernels/launch.hpp"

namespace tessel::test {

using Bytes = std::vector<uint8_t>;

template <class T>
Bytes as_bytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Every buffer's bytes after running kernel k (whose parameters are one pointer per buffer, in
// order), on the emulator (first) and on the GPU (second).
inline std::pair<std::vector<Bytes>, std::vector<Bytes>> run_both(const codegen::Kernel& k,
                                                                  std::array<unsigned, 3> grid,
                                                                  std::array<unsigned, 3> block,
                                                                  const std::vector<Bytes>& buffers) {
  auto plan_with = [&](const std::vector<uint64_t>& addresses) {
    codegen::LaunchPlan p;
    p.module.kernels.push_back(k);
    p.kernel = k.name;
    p.grid = grid;
    p.block = block;
    for (uint64_t a : addresses) p.arg(a);
    return p;
  };
  std::pair<std::vector<Bytes>, std::vector<Bytes>> out;
  {
    emu::Memory mem;
    std::vector<uint64_t> at;
    for (const Bytes& b : buffers) at.push_back(mem.upload(b));
    emu::run(plan_with(at), mem);
    for (size_t i = 0; i < buffers.size(); ++i) out.first.push_back(mem.read<uint8_t>(at[i], buffers[i].size()));
  }
  {
    std::vector<rt::DeviceBuffer> d;
    std::vector<uint64_t> at;
    for (const Bytes& b : buffers) {
      d.push_back(rt::DeviceBuffer::from(b));
      at.push_back(d.back().ptr());
    }
    kernels::launch_plan(plan_with(at));
    for (rt::DeviceBuffer& b : d) out.second.push_back(b.to_vector<uint8_t>());
  }
  return out;
}

// Whether an f64 element (8 bytes) is a NaN.
inline bool is_nan64(uint64_t v) { return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v << 12) != 0; }

// The elements (of `bytes` bytes) where the two runs differ, the first few reported. With
// `f64_nan_any`, two f64 NaNs count as equal whatever their sign and payload: the H100 gave
// 0xfff8... for NaN results of mul.f64/fma.f64 in one run where an earlier run had shown
// 0x7ff8... for others; which rule it follows is not settled (docs/emulator.md).
inline int count_differences(const Bytes& emu, const Bytes& gpu, int bytes, const std::string& what,
                             bool f64_nan_any = false) {
  int wrong = 0;
  for (size_t i = 0; i + bytes <= emu.size(); i += bytes) {
    if (std::memcmp(emu.data() + i, gpu.data() + i, bytes) == 0) continue;
    uint64_t e = 0, g = 0;
    std::memcpy(&e, emu.data() + i, bytes);
    std::memcpy(&g, gpu.data() + i, bytes);
    if (f64_nan_any && bytes == 8 && is_nan64(e) && is_nan64(g)) continue;
    if (++wrong <= 5)
      FAIL_CHECK(what << " element " << i / bytes << ": emulator " << emu::hex(e) << ", GPU " << emu::hex(g));
  }
  return wrong;
}

}  // namespace tessel::test
