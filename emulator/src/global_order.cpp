// global_order.cpp: release and acquire between the blocks of a launch (global_order.hpp).
#include "global_order.hpp"

#include <string>

#include "fault.hpp"

namespace tessel::emu::detail {

namespace {

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 16]);
    v /= 16;
  } while (v);
  return "0x" + s;
}

void join(std::map<uint32_t, uint64_t>& into, const std::map<uint32_t, uint64_t>& from) {
  for (const auto& [block, n] : from) {
    uint64_t& mine = into[block];
    if (n > mine) mine = n;
  }
}

}  // namespace

void GlobalOrder::store(uint32_t block, uint64_t addr, uint32_t n) {
  if (!enabled_) return;
  const uint64_t r = releases_[block];
  for (uint64_t w = addr / 4; w <= (addr + n - 1) / 4; ++w) words_[w] = Write{block, r};
}

void GlobalOrder::atomic(uint32_t block, uint64_t addr, uint32_t n, bool acquire, bool release) {
  if (!enabled_) return;
  const uint64_t first = addr / 4, last = (addr + n - 1) / 4;
  for (uint64_t w = first; w <= last; ++w) words_.erase(w);  // atomics are ordered among themselves
  Clock& here = published_[first];
  if (acquire) join(seen_[block], here);
  if (release) {
    const uint64_t r = ++releases_[block];
    join(here, seen_[block]);
    uint64_t& mine = here[block];
    if (r > mine) mine = r;
  }
}

void GlobalOrder::load(uint32_t block, uint64_t addr, uint32_t n) const {
  if (!enabled_) return;
  for (uint64_t w = addr / 4; w <= (addr + n - 1) / 4; ++w) {
    auto it = words_.find(w);
    if (it == words_.end() || it->second.block == block) continue;
    const Write& wr = it->second;
    uint64_t known = 0;
    if (auto s = seen_.find(block); s != seen_.end())
      if (auto k = s->second.find(wr.block); k != s->second.end()) known = k->second;
    if (known > wr.releases) continue;
    fault("unordered global read",
          "reads global address " + hex(w * 4) + ", which block " + std::to_string(wr.block) +
              " stored in this launch, with no release by that block after the store (an atom or red "
              ".release / .acq_rel) acquired by this block (an atom .acquire / .acq_rel reading what it wrote) "
              "before the read: the GPU may return the old value");
  }
}

}  // namespace tessel::emu::detail
