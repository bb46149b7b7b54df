// load_bench.cpp: the driver's PTX -> SASS time at first load (cuModuleLoadDataEx), per kernel
// configuration, next to the time tessel takes to generate the PTX. Needs a GPU; run on the
// device machine: build/<preset>/bin/tessel_load_bench. Each load is a fresh text (a comment
// with a counter is appended) so that no driver cache can answer it; median of 5.
//   tessel_load_bench [--per-family N]   (the first N kernels of each catalog class; all by
//   default: the 418 Hopper GEMMs alone take the driver about 25 minutes)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/runtime.hpp"

using namespace tessel;

int main(int argc, char** argv) {
  size_t per_family = static_cast<size_t>(-1);
  if (argc == 3 && std::string(argv[1]) == "--per-family") {
    try {
      per_family = static_cast<size_t>(parse_integer("--per-family", argv[2], 1, INT32_MAX));
    } catch (const Error& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: tessel_load_bench [--per-family N]  (N a positive count)\n");
    return 2;
  }
  try {
    rt::Context ctx(0);
    const rt::DeviceProperties p = rt::device_properties(0);
    std::printf("device: %s (sm_%d), driver %d\n", p.name.c_str(), p.compute_capability(), rt::driver_version());
    std::printf("%-50s %12s %14s\n", "kernel", "generate us", "driver load ms");
    int counter = 0;
    for (const kernels::KernelClassPtr& c : kernels::Registry::global().classes()) {
      size_t done = 0;
      for (const kernels::KernelPtr& k : c->generate_kernels()) {
        if (done++ == per_family) break;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string ptx = codegen::print_ptx(k->generate());
        const auto t1 = std::chrono::steady_clock::now();
        const int cc = p.compute_capability();
        if (ptx.find(".target sm_90") != std::string::npos && cc != 90) continue;
        std::vector<double> ms;
        for (int r = 0; r < 5; ++r) {
          const std::string fresh = ptx + "// load " + std::to_string(counter++) + "\n";
          const auto a = std::chrono::steady_clock::now();
          rt::Module m = rt::Module::load_ptx(fresh);
          const auto b = std::chrono::steady_clock::now();
          ms.push_back(std::chrono::duration<double, std::milli>(b - a).count());
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%-50s %12.1f %14.2f\n", k->name().c_str(),
                    std::chrono::duration<double, std::micro>(t1 - t0).count(), ms[2]);
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
