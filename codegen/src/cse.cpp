// cse.cpp: the builder's common-subexpression table (KernelBuilder::CseTable in builder.hpp).
// Entries are keyed by the structural hash every expression node carries from its construction
// (tessel::hash_value: equal expressions hash equal); a hit is confirmed by structural equality.
#include "tessel/algebra/error.hpp"
#include "cse.hpp"

namespace tessel::codegen {

size_t KernelBuilder::CseTable::claim(uint64_t h) {
  if (2 * (taken_ + 1) > slots_.size()) {  // keep at most half the slots taken: short probes
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 256 : 2 * old.size(), Slot{});
    for (const Slot& s : old) {
      if (s.head != -2) slots_[probe(s.hash)] = s;
    }
    for (Entry& e : entries_) e.slot = static_cast<uint32_t>(probe(e.hash));
  }
  const size_t j = probe(h);
  Slot& s = slots_[j];
  if (s.head == -2) {
    s.hash = h;
    s.head = -1;
    ++taken_;
  }
  return j;
}

void KernelBuilder::CseTable::open() { scopes_.push_back(entries_.size()); }

void KernelBuilder::CseTable::close() {
  if (scopes_.empty()) fail("codegen: a scope closed that was not opened");
  const size_t start = scopes_.back();
  scopes_.pop_back();
  while (entries_.size() > start) {
    const Entry& e = entries_.back();
    // The entry is its hash's newest: the slot's chain goes back to the one before it.
    slots_[e.slot].head = e.prev;
    entries_.pop_back();
  }
}

}  // namespace tessel::codegen
