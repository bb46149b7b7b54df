// shared_memory.cpp: bounds, uninitialised-read and race checks of one block's shared memory.
#include "shared_memory.hpp"

#include <algorithm>
#include <cstring>

#include "fault.hpp"
#include "tessel/emulator/memory.hpp"

namespace tessel::emu::detail {

void SharedMemory::reset(const Program& p, std::array<unsigned, 3> block, bool check_uninitialized, bool check_races) {
  p_ = &p;
  block_ = block;
  nthreads_ = block[0] * block[1] * block[2];
  uninit_ = check_uninitialized;
  races_ = check_races;
  bytes_.assign(p.shared_end, Memory::kPoison);
  if (uninit_ || races_) {
    shadow_.assign(p.shared_end, Shadow{});
  } else {
    shadow_.clear();
  }
  epoch_.assign(nthreads_, 0);
  if (races_) {
    fences_.assign(nthreads_, 0);
  } else {
    fences_.clear();
  }
  full_ = 0;
  pair_.clear();
  seen_.assign(nthreads_, {});
}

uint32_t SharedMemory::seen_phases(uint32_t t, uint32_t mbar) const {
  for (const auto& [a, n] : seen_[t]) {
    if (a == mbar) return n;
  }
  return 0;
}

void SharedMemory::observe(uint32_t t, uint32_t mbar, uint32_t completed) {
  for (auto& [a, n] : seen_[t]) {
    if (a == mbar) {
      n = std::max(n, completed);
      return;
    }
  }
  seen_[t].emplace_back(mbar, completed);
}

void SharedMemory::acquire(uint32_t r, const std::vector<std::pair<uint32_t, uint32_t>>& arrivals) {
  if (!races_ || arrivals.empty()) return;
  if (pair_.empty()) pair_.assign(size_t{nthreads_} * nthreads_, 0);
  for (const auto& [w, e] : arrivals) {
    uint32_t& p = pair_[size_t{r} * nthreads_ + w];
    p = std::max(p, e);
  }
}

void SharedMemory::append_ordered_before(uint32_t t, std::vector<std::pair<uint32_t, uint32_t>>& arrivals) const {
  if (!races_ || pair_.empty()) return;
  for (uint32_t w = 0; w < nthreads_; ++w) {
    const uint32_t e = pair_[size_t{t} * nthreads_ + w];
    if (w != t && e > 0) arrivals.emplace_back(w, e);
  }
}

void SharedMemory::async_store(uint32_t addr, const void* src, uint32_t n, uint32_t mbar, uint32_t phase,
                               int32_t issuer) {
  check_range(addr, n, "writes");
  if (races_ && issuer >= 0 && !shadow_.empty()) {
    const uint32_t p = static_cast<uint32_t>(issuer);
    for (uint32_t b = addr; b < addr + n; ++b) {
      const Shadow& s = shadow_[b];
      if (s.reader < 0 || static_cast<uint32_t>(s.reader) == p || full_ > s.rfull) continue;
      if (!pair_.empty() && pair_[size_t{p} * nthreads_ + static_cast<uint32_t>(s.reader)] > s.repoch) continue;
      fault("shared-memory race", "a TMA load overwrites byte " + describe(b) + ", which thread " +
                                      thread_name(static_cast<uint32_t>(s.reader)) +
                                      " read with nothing ordering that read before this load (write-after-read): "
                                      "no mbarrier arrive by the reader after its read that the issuing thread "
                                      "waited on, and no barrier both passed (a stage released too early?)");
    }
  }
  std::memcpy(bytes_.data() + addr, src, n);
  if (!shadow_.empty()) std::fill(shadow_.begin() + addr, shadow_.begin() + addr + n, Shadow{kAsync, mbar, phase, 0});
}

std::string SharedMemory::thread_name(uint32_t t) const {
  const unsigned x = t % block_[0], y = (t / block_[0]) % block_[1], z = t / (block_[0] * block_[1]);
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

const SharedArray* SharedMemory::array_of(uint32_t addr, uint32_t n) const {
  for (const SharedArray& a : p_->shared) {
    if (addr >= a.addr && uint64_t{addr} + n <= uint64_t{a.addr} + a.bytes) return &a;
  }
  return nullptr;
}

std::string SharedMemory::describe(uint32_t addr) const {
  for (const SharedArray& a : p_->shared) {
    if (addr >= a.addr && addr < a.addr + a.bytes) {
      return hex(addr) + " (offset " + std::to_string(addr - a.addr) + " of " + a.name + ")";
    }
  }
  return hex(addr);
}

void SharedMemory::check_range(uint32_t addr, uint32_t n, const char* what) const {
  if (array_of(addr, n)) return;
  std::string arrays;
  for (const SharedArray& a : p_->shared) {
    arrays += (arrays.empty() ? "" : ", ") + a.name + " [" + hex(a.addr) + ", " + hex(uint64_t{a.addr} + a.bytes) + ")";
  }
  fault("out-of-bounds shared access", std::string(what) + " " + std::to_string(n) + " bytes at shared address " +
                                           hex(addr) + ", outside every shared array (" +
                                           (arrays.empty() ? "the kernel has none" : arrays) + ")");
}

void SharedMemory::load(uint32_t addr, void* dst, uint32_t n, uint32_t t, bool atomic) {
  check_range(addr, n, "reads");
  if (!shadow_.empty()) {
    for (uint32_t b = addr; b < addr + n; ++b) {
      const Shadow& s = shadow_[b];
      if (s.writer == -1) {
        if (uninit_) {
          fault("uninitialized shared read", "reads " + std::to_string(n) + " bytes at shared address " +
                                                 describe(addr) + ", and byte " + describe(b) +
                                                 " was never written by any thread");
        }
        continue;
      }
      if (s.writer == kAsync) {
        if (!races_ || seen_phases(t, s.epoch) > s.full) continue;
        fault("shared-memory race", "reads " + std::to_string(n) + " bytes at shared address " + describe(addr) +
                                        ", and byte " + describe(b) +
                                        " was written by a TMA load that completes on the mbarrier at " + describe(s.epoch) +
                                        " in its phase " + std::to_string(s.full) +
                                        ", which this thread has not waited for (mbarrier.try_wait), itself or "
                                        "through a barrier with a thread that did");
      }
      if (!races_ || static_cast<uint32_t>(s.writer) == t || (atomic && s.atomic) || full_ > s.full) continue;
      if (!pair_.empty() && pair_[size_t{t} * nthreads_ + s.writer] > s.epoch) continue;
      fault("shared-memory race", "reads " + std::to_string(n) + " bytes at shared address " + describe(addr) +
                                      ", and byte " + describe(b) + " was written by thread " + thread_name(s.writer) +
                                      " with no barrier between that write and this read that both threads passed "
                                      "(a missing bar.sync?)");
    }
  }
  if (races_ && !shadow_.empty()) {
    for (uint32_t b = addr; b < addr + n; ++b) {
      Shadow& s = shadow_[b];
      s.reader = static_cast<int32_t>(t);
      s.repoch = epoch_[t];
      s.rfull = full_;
    }
  }
  std::memcpy(dst, bytes_.data() + addr, n);
}

void SharedMemory::store(uint32_t addr, const void* src, uint32_t n, uint32_t t, bool atomic) {
  check_range(addr, n, "writes");
  std::memcpy(bytes_.data() + addr, src, n);
  if (!shadow_.empty()) {
    const Shadow s{static_cast<int32_t>(t), epoch_[t], full_, atomic ? 1u : 0u, fences_.empty() ? 0u : fences_[t]};
    std::fill(shadow_.begin() + addr, shadow_.begin() + addr + n, s);
  }
}

void SharedMemory::check_async_read(uint32_t addr, uint32_t n, const char* who) const {
  if (fences_.empty() || shadow_.empty()) return;
  for (uint32_t b = addr; b < addr + n; ++b) {
    const Shadow& s = shadow_[b];
    if (s.writer < 0 || fences_[static_cast<uint32_t>(s.writer)] > s.fence) continue;
    fault("missing proxy fence", std::string(who) + " reads byte " + describe(b) + ", which thread " +
                                     thread_name(static_cast<uint32_t>(s.writer)) +
                                     " wrote through the generic proxy (st.shared, stmatrix) with no "
                                     "fence.proxy.async after the write: the async proxy may not see it");
  }
}

void SharedMemory::barrier(const std::vector<uint32_t>& threads, bool all) {
  for (uint32_t t : threads) ++epoch_[t];
  // What one participant has seen of mbarrier phases, all have seen after the barrier.
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (uint32_t t : threads) {
    for (const auto& [a, n] : seen_[t]) {
      auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& e) { return e.first == a; });
      if (it == merged.end()) {
        merged.emplace_back(a, n);
      } else {
        it->second = std::max(it->second, n);
      }
    }
  }
  if (!merged.empty()) {
    for (uint32_t t : threads) seen_[t] = merged;
  }
  if (all) {
    ++full_;
    return;
  }
  if (!races_) return;
  if (pair_.empty()) pair_.assign(size_t{nthreads_} * nthreads_, 0);
  for (uint32_t r : threads) {
    for (uint32_t w : threads) pair_[size_t{r} * nthreads_ + w] = epoch_[w];
  }
}

}  // namespace tessel::emu::detail
