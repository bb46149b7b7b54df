// progress.hpp: the emulator's progress on standard error every two seconds of a long run
// (`tessel run --emulate`, `tessel gemm --emulate`).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>

namespace tessel::cli {

inline std::function<void(uint64_t, uint64_t)> progress_printer() {
  const auto start = std::chrono::steady_clock::now();
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(start);
  return [start, last](uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::seconds(2)) return;
    *last = now;
    std::cerr << "  emulating: " << done << " of " << total << " blocks ("
              << static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)) << "%), "
              << static_cast<int>(std::chrono::duration<double>(now - start).count()) << " s\n";
  };
}


}  // namespace tessel::cli
