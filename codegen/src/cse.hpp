// cse.hpp (private): the common-subexpression table's find and insert (KernelBuilder::CseTable,
// builder.hpp), inline for lower.cpp and memory.cpp, which probe it for every node they lower
// (out of line, the calls cost more than the probes); the rest is in cse.cpp.
#pragma once

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// The slot of hash h, or the free slot where it would go (slots_ is not empty and never full).
inline size_t KernelBuilder::CseTable::probe(uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  size_t j = h & mask;
  while (slots_[j].head != -2 && slots_[j].hash != h) j = (j + 1) & mask;
  return j;
}

inline Value KernelBuilder::CseTable::find(const Int& x, int tag, Probe& p) const {
  // hash_value(x), without its call for the common case: a node's hash is its value's.
  p.hash = x.is_dynamic() && !x.has_basis() ? x.expr()->hash : hash_value(x);
  if (slots_.empty()) return {};
  p.slot = probe(p.hash);
  for (int i = slots_[p.slot].head; i >= 0; i = entries_[static_cast<size_t>(i)].prev) {
    const Entry& e = entries_[static_cast<size_t>(i)];
    if (e.tag == tag && e.is(x)) return Value(b_, e.reg, e.type);
  }
  return {};
}

inline void KernelBuilder::CseTable::insert(const Int& x, int tag, Value v, const Probe& p) {
  if (scopes_.empty()) [[unlikely]]
    fail("codegen: a common subexpression outside every scope");
  if (x.has_basis()) [[unlikely]]
    fail("codegen: a common subexpression of a basis element " + to_string(x));
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

}  // namespace tessel::codegen
