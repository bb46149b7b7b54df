// support.hpp: shared helpers of the algebra tests: a seeded random source (fresh each run,
// reproducible with TESSEL_SEED=N), random layouts, and evaluation of static layouts.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <vector>

#include "tessel/algebra.hpp"

namespace tessel::test {

inline uint64_t seed() {
  static const uint64_t s = [] {
    if (const char* e = std::getenv("TESSEL_SEED")) return parse_unsigned("TESSEL_SEED", e);
    return static_cast<uint64_t>(std::random_device{}());
  }();
  return s;
}

// One generator per test case, from the run's seed and the case name, so a failure reproduces
// with TESSEL_SEED alone.
inline std::mt19937_64 make_rng(const char* test_name) {
  std::seed_seq seq{seed(), static_cast<uint64_t>(std::hash<std::string>{}(test_name))};
  return std::mt19937_64(seq);
}

#define TESSEL_STR2(x) #x
#define TESSEL_STR(x) TESSEL_STR2(x)
// A generator for this test case; failures print the seed that reproduces them.
#define TESSEL_RNG(name)                                                   \
  auto name = ::tessel::test::make_rng(__FILE__ ":" TESSEL_STR(__LINE__)); \
  INFO("reproduce with TESSEL_SEED=" << ::tessel::test::seed())

inline int64_t pick(std::mt19937_64& rng, std::initializer_list<int64_t> choices) {
  std::vector<int64_t> v(choices);
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

inline int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A random shape of rank 1..max_rank, nested up to `depth`, extents from `extents`.
inline Shape random_shape(std::mt19937_64& rng, int max_rank, int depth,
                          std::initializer_list<int64_t> extents = {1, 2, 2, 3, 4, 4, 5, 6, 8}) {
  if (depth == 0 || uniform(rng, 0, 2) == 0) return Int(pick(rng, extents));
  std::vector<IntTuple> modes;
  int r = static_cast<int>(uniform(rng, 1, max_rank));
  for (int i = 0; i < r; ++i) modes.push_back(random_shape(rng, max_rank, depth - 1, extents));
  return IntTuple::tuple(std::move(modes));
}

// A random layout of at most 2048 elements: a permuted compact layout (injective), or one with
// a gap in its strides (still injective), or, sometimes, arbitrary strides.
inline Layout random_layout(std::mt19937_64& rng, int max_rank = 3, int depth = 2, bool injective = false) {
  Shape s = random_shape(rng, max_rank, depth);
  while (product(s).value() > 2048) s = random_shape(rng, max_rank, depth);
  if (injective || uniform(rng, 0, 3) != 0) {
    std::vector<Int> leaves = flatten_leaves(s);
    std::vector<int64_t> order(leaves.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    std::shuffle(order.begin(), order.end(), rng);
    size_t k = 0;
    IntTuple ord = transform_leaf(s, [&](const Int&) { return Int(order[k++]); });
    Layout l = make_ordered_layout(s, ord);
    if (!injective && uniform(rng, 0, 2) == 0) {  // scale or gap the strides: still injective
      int64_t gap = pick(rng, {2, 3});
      k = 0;
      size_t target = static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(leaves.size()) - 1));
      IntTuple d = transform_leaf(l.stride(), [&](const Int& x) { return k++ == target ? x * gap : x; });
      return Layout(s, d);
    }
    return l;
  }
  IntTuple d = transform_leaf(s, [&](const Int&) { return Int(pick(rng, {0, 1, 2, 3, 4, 6, 8, 12, 16})); });
  return Layout(s, d);
}

inline int64_t at(const Layout& l, int64_t i) { return l(Int(i)).leaf().value(); }
inline int64_t at(const ComposedLayout& l, int64_t i) { return l(Int(i)).leaf().value(); }
inline int64_t n(const Int& x) { return x.value(); }

inline std::vector<int64_t> values(const Layout& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < size(l).value(); ++i) v.push_back(at(l, i));
  return v;
}

inline bool same_function(const Layout& a, const Layout& b) { return size(a) == size(b) && values(a) == values(b); }

inline bool injective(const Layout& l) {
  std::vector<int64_t> v = values(l);
  return std::set<int64_t>(v.begin(), v.end()).size() == v.size();
}

// Whether an operation built from complement and composition was refused by one of them (a
// precondition of a part: an operand not injective, strides that do not nest or divide).
inline bool refused_by_a_part(const Error& e) {
  std::string m = e.what();
  return m.rfind("complement", 0) == 0 || m.rfind("composition", 0) == 0;
}

}  // namespace tessel::test
