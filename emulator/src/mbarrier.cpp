// mbarrier.cpp: the phase, arrival and transaction-count rules of mbarrier (see mbarrier.hpp).
#include "mbarrier.hpp"

#include "fault.hpp"
#include "tessel/emulator/memory.hpp"

namespace tessel::emu::detail {

namespace {
constexpr int64_t kMaxCount = (int64_t{1} << 20) - 1;  // PTX ISA 9.0 §9.7.13.15.2: counts and tx-count
}

Mbarrier& Mbarriers::init(uint32_t addr, uint64_t count) {
  if (count < 1 || count > static_cast<uint64_t>(kMaxCount)) {
    fault("invalid mbarrier count", "mbarrier.init with " + std::to_string(count) + " arrivals (in [1, 2^20 - 1])");
  }
  for (const Mbarrier& b : bars_) {
    if (b.addr == addr) {
      fault("mbarrier initialized twice", "the mbarrier at shared address " + hex(addr) +
                                              " is already initialized (" + state(b) +
                                              "); mbarrier.init of a valid object is undefined");
    }
  }
  Mbarrier b;
  b.addr = addr;
  b.expected = static_cast<uint32_t>(count);
  b.pending = static_cast<int64_t>(count);
  bars_.push_back(b);
  return bars_.back();
}

Mbarrier& Mbarriers::get(uint32_t addr, const char* what) {
  for (Mbarrier& b : bars_) {
    if (b.addr == addr) return b;
  }
  fault("uninitialized mbarrier", std::string(what) + " on shared address " + hex(addr) +
                                      ", where no mbarrier was initialized (mbarrier.init)");
}

const Mbarrier* Mbarriers::overlapping(uint32_t addr, uint32_t n) const {
  for (const Mbarrier& b : bars_) {
    if (b.addr < uint64_t{addr} + n && addr < uint64_t{b.addr} + 8) return &b;
  }
  return nullptr;
}

std::string Mbarriers::state(const Mbarrier& b) {
  return "phase " + std::to_string(b.phase) + " (parity " + std::to_string(b.phase & 1) + "), " +
         std::to_string(b.pending) + " of " + std::to_string(b.expected) + " arrivals pending, tx-count " +
         std::to_string(b.tx);
}

bool Mbarriers::maybe_complete(Mbarrier& b) {
  if (b.pending != 0 || b.tx != 0) return false;
  ++b.phase;
  b.pending = b.expected;
  return true;
}

bool Mbarriers::arrive(Mbarrier& b) {
  if (b.pending == 0) {
    fault("mbarrier over-arrival", "arrives on the mbarrier at shared address " + hex(b.addr) + " (" + state(b) +
                                       "): every expected arrival of the current phase has already come");
  }
  --b.pending;
  return maybe_complete(b);
}

bool Mbarriers::expect_tx(Mbarrier& b, int64_t bytes) {
  b.tx += bytes;
  if (b.tx > kMaxCount) {
    fault("mbarrier tx-count overflow", "expect-tx of " + std::to_string(bytes) + " bytes on the mbarrier at shared address " +
                                            hex(b.addr) + " makes its tx-count " + std::to_string(b.tx) +
                                            " (at most 2^20 - 1)");
  }
  return maybe_complete(b);
}

bool Mbarriers::complete_tx(Mbarrier& b, int64_t bytes) {
  b.tx -= bytes;
  if (b.tx < -kMaxCount) {
    fault("mbarrier tx-count underflow", "complete-tx of " + std::to_string(bytes) +
                                             " bytes on the mbarrier at shared address " + hex(b.addr) +
                                             " makes its tx-count " + std::to_string(b.tx) + " (at least -(2^20 - 1))");
  }
  return maybe_complete(b);
}

}  // namespace tessel::emu::detail
