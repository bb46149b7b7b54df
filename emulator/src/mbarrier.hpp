// mbarrier.hpp: the mbarrier objects of one block, kept beside its shared memory (PTX ISA 9.0
// §9.7.13.15 mbarrier). An mbarrier has a current phase, the arrivals it expects per phase, the
// arrivals still pending in the current phase and a transaction count (tx-count, in bytes):
//   init(count)     phase 0, pending = expected = count, tx-count 0 (§9.7.13.15.9)
//   expect-tx(n)    tx-count += n (§9.7.13.15.5)
//   complete-tx(n)  tx-count -= n (a TMA copy's bytes landed; §9.7.13.15.6)
//   arrive          pending -= 1 (§9.7.13.15.13)
// The current phase completes when pending reaches 0 and tx-count is 0; the next phase starts
// with pending = expected and tx-count 0 (§9.7.13.15.3, "Phase completion"). test_wait/try_wait
// with parity P are true once the phase of parity P has completed, i.e. while the current phase's
// parity differs from P (§9.7.13.15.16).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessel::emu::detail {

struct Mbarrier {
  uint32_t addr = 0;      // shared address
  uint32_t expected = 0;  // arrivals per phase
  int64_t pending = 0;    // arrivals missing in the current phase
  int64_t tx = 0;         // tx-count of the current phase
  uint32_t phase = 0;     // the current phase's number (= phases completed)
  std::vector<uint32_t> waiters;  // threads parked in try_wait on this barrier
  // (thread, its epoch after the arrival) of the current and of the last completed phase: a wait
  // that sees the phase complete is ordered after the arrivers' earlier shared writes.
  std::vector<std::pair<uint32_t, uint32_t>> arrivals, last_arrivals;
};

class Mbarriers {
 public:
  void reset() { bars_.clear(); }
  // init at addr: throws Fault for a count outside [1, 2^20 - 1] or a barrier already initialised.
  Mbarrier& init(uint32_t addr, uint64_t count);
  // The initialised barrier at addr; throws Fault naming `what` when there is none.
  Mbarrier& get(uint32_t addr, const char* what);
  // A barrier overlapping [addr, addr + n), if any.
  const Mbarrier* overlapping(uint32_t addr, uint32_t n) const;
  // Each returns true when the operation completed the current phase (the caller wakes waiters).
  bool arrive(Mbarrier& b);
  bool expect_tx(Mbarrier& b, int64_t bytes);
  bool complete_tx(Mbarrier& b, int64_t bytes);
  // "phase 3 (parity 1), 1 of 2 arrivals pending, tx-count 8192"
  static std::string state(const Mbarrier& b);

 private:
  bool maybe_complete(Mbarrier& b);
  std::vector<Mbarrier> bars_;
};

}  // namespace tessel::emu::detail
