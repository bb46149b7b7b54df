// cp_async.cpp: the per-thread asynchronous copies of sm_80 (PTX ISA 9.0 §9.7.9.25.3): cp.async
// (4, 8 or 16 bytes global -> shared, the rest of the bytes zero-filled past src-size), its
// async-groups (commit_group, wait_group, wait_all), and cp.async.mbarrier.arrive{.noinc}.
//
// A copy is performed (global read, shared write by its thread) at the latest moment the PTX
// allows: when a cp.async.wait_group or wait_all of its thread needs its group, when its thread
// arrives on an mbarrier through cp.async.mbarrier.arrive (the arrive-on is triggered once every
// prior cp.async of the thread has completed), or when the thread exits. A reader that skips the
// wait then reads the bytes before the copy (uninitialised, or stale: caught by the shared
// memory's checks or by the result).
#include <cstring>

#include "block.hpp"
#include "fault.hpp"

namespace tessel::emu::detail {

using namespace codegen;

namespace {
inline uint64_t value(const uint64_t* R, const Src& s) { return s.imm ? s.value : R[s.slot]; }
}  // namespace

// [dst], [src], bytes{, src-size}: src = dst, src{, src-size}; Decoded::n = bytes.
void BlockRunner::cp_async(uint32_t t, const Decoded& d, const uint64_t* R) {
  PendingCopy c;
  const uint64_t dst = value(R, d.src[0]);
  c.src = value(R, d.src[1]);
  c.bytes = static_cast<uint32_t>(d.n);
  c.src_bytes = d.nsrc > 2 ? static_cast<uint32_t>(value(R, d.src[2])) : c.bytes;
  const std::string what = "cp.async of " + std::to_string(c.bytes) + " bytes";
  if (dst > 0xffffffff) fault("out-of-bounds shared access", what + " to shared address " + hex(dst) + " (past 4 GiB)");
  c.dst = static_cast<uint32_t>(dst);
  // PTX ISA, cp.async: both addresses aligned to cp-size; src-size larger than cp-size is undefined.
  if (c.dst % c.bytes != 0 || c.src % c.bytes != 0) {
    fault("misaligned address", what + " from global " + hex(c.src) + " to shared " + hex(c.dst) +
                                    ": both addresses must be multiples of " + std::to_string(c.bytes));
  }
  if (c.src_bytes > c.bytes) {
    fault("invalid cp.async source size", what + " with src-size " + std::to_string(c.src_bytes) +
                                              " (at most the copy's size; larger is undefined)");
  }
  shared_.check(c.dst, c.bytes, "writes (cp.async)");
  if (c.src_bytes > 0 && !L_.memory.find(c.src, c.src_bytes)) {
    fault("out-of-bounds global access", what + " reads " + std::to_string(c.src_bytes) + " bytes at global address " +
                                             hex(c.src) + ", " + L_.memory.describe(c.src));
  }
  copies_[t].open.push_back(c);
}

void BlockRunner::cp_async_commit(uint32_t t) {
  CopyGroups& g = copies_[t];
  g.committed.push_back(std::move(g.open));
  g.open.clear();
}

// PTX ISA, cp.async.wait_group N: waits until at most N of the thread's most recent groups are
// pending (and every prior one has completed); wait_all (pending < 0 here) is commit_group then
// wait_group 0. The thread's exit, and cp.async.mbarrier.arrive, complete every copy (open too).
void BlockRunner::cp_async_wait(uint32_t t, int64_t pending, bool all_open) {
  CopyGroups& g = copies_[t];
  if (pending < 0) {
    cp_async_commit(t);
    pending = 0;
  }
  while (g.committed.size() > static_cast<size_t>(pending)) {
    for (const PendingCopy& c : g.committed.front()) perform_copy(t, c);
    g.committed.pop_front();
  }
  if (all_open) {
    for (const PendingCopy& c : g.open) perform_copy(t, c);
    g.open.clear();
  }
}

void BlockRunner::perform_copy(uint32_t t, const PendingCopy& c) {
  std::byte buf[16] = {};
  if (c.src_bytes > 0) {
    Memory::Buffer* b = L_.memory.find(c.src, c.src_bytes);
    if (!b) fault("out-of-bounds global access", "a cp.async's source at " + hex(c.src) + " is gone");
    std::memcpy(buf, b->data.data() + (c.src - b->addr), c.src_bytes);
  }
  shared_.store(c.dst, buf, c.bytes, t, false);
  ++L_.stats.cp_async_copies;
}

// [mbar]: every prior cp.async of the thread completes, then the arrive-on (a release of the
// thread's shared writes, the copies' included). Without .noinc the pending count is incremented
// first: the arrival does not count toward the phase.
void BlockRunner::cp_async_mbarrier_arrive(uint32_t t, const Decoded& d, const uint64_t* R) {
  cp_async_wait(t, 0, true);
  const auto [cta, addr] = mbarrier_address(d, R);
  Mbarrier& b = mbarriers_.get(addr, "cp.async.mbarrier.arrive");
  b.arrivals.emplace_back(t, shared_.arrive_epoch(t));
  if (!d.has(kNoinc)) return;  // + 1 then - 1
  if (mbarriers_.arrive(b)) completed(b);
}

}  // namespace tessel::emu::detail
