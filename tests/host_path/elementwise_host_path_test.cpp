// elementwise_host_path_test.cpp: tessel::elementwise's cache of problem forms, on the stand-in
// driver: a repeated call asks the driver nothing but the launch (and the current context), the
// allocation check runs again only for a new address or after tessel freed memory, a call with new
// addresses or alpha/beta launches with them (the parameters of a fresh, uncached plan), and every
// check that reads addresses or values still refuses what it refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "stand_in.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

using namespace tessel;
using codegen::Type;
using kernels::ElementwiseArguments;
using kernels::ElementwiseOp;
using kernels::row_major;
using test::StandIn;

namespace {

// The recorded launch's parameters against those of a fresh plan of the same arguments (the full,
// uncached path: elementwise_plan).
void check_last_launch(const ElementwiseArguments& args) {
  const std::vector<TesselStandInLaunch> l = StandIn::get().launches();
  REQUIRE(!l.empty());
  kernels::ElementwiseOptions o;
  o.check_device_memory = false;
  const codegen::LaunchPlan fresh = kernels::elementwise_plan(args, o);  // the full path, no cache
  CHECK(std::string(l.back().entry) == fresh.kernel);
  CHECK(StandIn::params(l.back()) == fresh.params);
  CHECK(l.back().grid[0] == fresh.grid[0]);
}

}  // namespace

TEST_CASE("host path: a repeated tessel::elementwise only launches, and new addresses and values are launched with") {
  StandIn& s = StandIn::get();
  const int64_t n = 1 << 20;
  for (Type t : {Type::F32, Type::BF16}) {
    const int64_t eb = codegen::bytes(t);
    std::vector<rt::DeviceBuffer> b;
    for (int i = 0; i < 6; ++i) b.emplace_back(static_cast<size_t>(n * eb));
    const ElementwiseArguments a0{ElementwiseOp::Axpby, row_major(b[0].ptr(), t, {n}), row_major(b[1].ptr(), t, {n}),
                                  row_major(b[2].ptr(), t, {n}), 2.0, -1.0};
    ElementwiseArguments a1 = a0;
    a1.A.data = b[3].ptr();
    a1.B.data = b[4].ptr();
    a1.C.data = b[5].ptr();
    a1.alpha = 0.5;
    kernels::elementwise(a0);  // generation, load, the allocation check
    s.reset();
    for (int i = 0; i < 10; ++i) kernels::elementwise(a0);
    CHECK(s.calls("cuLaunchKernelEx") == 10);
    CHECK(s.calls("cuCtxGetCurrent") <= 10);
    CHECK(s.all_calls() - s.calls("cuLaunchKernelEx") - s.calls("cuCtxGetCurrent") == 0);
    check_last_launch(a0);
    // New addresses and alpha: the new allocations are confirmed with the driver (once), the launch
    // carries them.
    s.reset();
    kernels::elementwise(a1);
    CHECK(s.calls("cuPointerGetAttribute") > 0);
    check_last_launch(a1);
    s.reset();
    kernels::elementwise(a1);
    CHECK(s.calls("cuPointerGetAttribute") == 0);
    // In place (C is A): another form (no read-only loads), its own plan.
    ElementwiseArguments in_place = a0;
    in_place.C = in_place.A;
    kernels::elementwise(in_place);
    check_last_launch(in_place);
    kernels::elementwise(a0);
    check_last_launch(a0);
    // A free by tessel may hand an address to another allocation: the next call checks again.
    { rt::DeviceBuffer gone(256); }
    s.reset();
    kernels::elementwise(a0);
    CHECK(s.calls("cuPointerGetAttribute") > 0);
  }
}

TEST_CASE("host path: tessel::elementwise keeps its address and value checks for a cached form") {
  StandIn::get();
  const int64_t n = 4096;
  rt::DeviceBuffer a(n * 4), b(n * 4), c(n * 4), big(2 * n * 4);
  const ElementwiseArguments ok{ElementwiseOp::Add, row_major(a.ptr(), Type::F32, {n}), row_major(b.ptr(), Type::F32, {n}),
                                row_major(c.ptr(), Type::F32, {n})};
  kernels::elementwise(ok);
  // The same layouts, alignment and aliasing (no operand shares an address): C half over A.
  ElementwiseArguments overlap = ok;
  overlap.A.data = big.ptr();
  overlap.C.data = big.ptr() + n * 2;
  CHECK_THROWS_WITH_AS(kernels::elementwise(overlap), doctest::Contains("overlaps A"), Error);
  // Inside an allocation the driver confirmed: no query; past its end: the query, and the error.
  StandIn& s = StandIn::get();
  ElementwiseArguments inside = ok;
  inside.C.data = big.ptr();
  kernels::elementwise(inside);
  inside.C.data = big.ptr() + 256;
  s.reset();
  kernels::elementwise(inside);
  CHECK(s.calls("cuPointerGetAttribute") == 0);
  ElementwiseArguments past = ok;
  past.C.data = big.ptr() + n * 4 + 256;
  CHECK_THROWS_WITH_AS(kernels::elementwise(past), doctest::Contains("past its allocation"), Error);
  CHECK(s.calls("cuPointerGetAttribute") > 0);
  // A null address.
  ElementwiseArguments null = ok;
  null.B.data = 0;
  CHECK_THROWS_WITH_AS(kernels::elementwise(null), doctest::Contains("B is a null pointer"), Error);
  // axpby on s32 takes integer alpha and beta: checked for every call's values.
  const ElementwiseArguments s32{ElementwiseOp::Axpby, row_major(a.ptr(), Type::S32, {n}), row_major(b.ptr(), Type::S32, {n}),
                                 row_major(c.ptr(), Type::S32, {n}), 2.0, 3.0};
  kernels::elementwise(s32);
  ElementwiseArguments half = s32;
  half.alpha = 0.5;
  CHECK_THROWS_WITH_AS(kernels::elementwise(half), doctest::Contains("integer alpha and beta"), Error);
  CHECK_NOTHROW(kernels::elementwise(ok));
}

TEST_CASE("host path: two threads calling tessel::elementwise on one form get their own launches") {
  StandIn& s = StandIn::get();
  const int64_t n = 1 << 16;
  std::vector<rt::DeviceBuffer> b;
  for (int i = 0; i < 12; ++i) b.emplace_back(static_cast<size_t>(n * 4));
  std::vector<ElementwiseArguments> sets;
  for (size_t i = 0; i < 4; ++i)
    sets.push_back({ElementwiseOp::Axpby, row_major(b[3 * i].ptr(), Type::F32, {n}), row_major(b[3 * i + 1].ptr(), Type::F32, {n}),
                    row_major(b[3 * i + 2].ptr(), Type::F32, {n}), 1.0 + static_cast<double>(i), -0.5});
  std::vector<std::vector<std::vector<std::byte>>> expected;
  kernels::ElementwiseOptions o;
  o.check_device_memory = false;
  for (const ElementwiseArguments& a : sets) expected.push_back(kernels::elementwise_plan(a, o).params);  // no cache
  kernels::elementwise(sets[0]);
  s.reset();
  const int rounds = 200;
  std::atomic<int> errors{0};
  auto worker = [&](size_t first) {
    rt::Context(0).make_current();
    try {
      for (int i = 0; i < rounds; ++i) kernels::elementwise(sets[first + static_cast<size_t>(i % 2)]);
    } catch (...) {
      ++errors;
    }
  };
  std::thread t1(worker, 0), t2(worker, 2);
  t1.join();
  t2.join();
  CHECK(errors == 0);
  CHECK(s.launch_count() == 2 * rounds);
  for (const TesselStandInLaunch& l : s.launches()) {
    const auto p = StandIn::params(l);
    CHECK(std::count(expected.begin(), expected.end(), p) == 1);
  }
}
