// cse.cpp: the builder's common-subexpression table (KernelBuilder::CseTable in builder.hpp).
// Entries are keyed by the structural hash every expression node carries from its construction
// (tessel::hash_value: equal expressions hash equal); a hit is confirmed by structural equality.
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// The slot of hash h, or the free slot where it would go (slots_ is not empty and never full).
size_t KernelBuilder::CseTable::probe(uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  size_t j = h & mask;
  while (slots_[j].head != -2 && slots_[j].hash != h) j = (j + 1) & mask;
  return j;
}

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

Value KernelBuilder::CseTable::find(const Int& x, int tag, Probe& p) const {
  p.hash = hash_value(x);
  if (slots_.empty()) return {};
  p.slot = probe(p.hash);
  for (int i = slots_[p.slot].head; i >= 0; i = entries_[static_cast<size_t>(i)].prev) {
    const Entry& e = entries_[static_cast<size_t>(i)];
    if (e.tag == tag && e.is(x)) return Value(b_, e.reg, e.type);
  }
  return {};
}

void KernelBuilder::CseTable::insert(const Int& x, int tag, Value v, const Probe& p) {
  if (scopes_.empty()) fail("codegen: a common subexpression outside every scope");
  if (x.has_basis()) fail("codegen: a common subexpression of a basis element " + to_string(x));
  // A taken slot holding x's hash is its hash's only one, whatever was inserted since the find.
  size_t j = p.slot;
  if (j >= slots_.size() || slots_[j].head == -2 || slots_[j].hash != p.hash) j = claim(p.hash);
  b_ = &v.builder();
  Entry& e = entries_.emplace_back();
  e.expr = x.expr();
  e.value = x.is_static() ? x.value() : 0;
  e.tag = tag;
  e.reg = v.id();
  e.type = v.type();
  e.hash = p.hash;
  e.prev = slots_[j].head;
  e.slot = static_cast<uint32_t>(j);
  slots_[j].head = static_cast<int>(entries_.size() - 1);
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
