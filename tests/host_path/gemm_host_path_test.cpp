// gemm_host_path_test.cpp: tessel::gemm's cache of choices and launches, on the stand-in driver:
// a repeated call generates, compiles and asks the driver nothing but the launch (and the current
// context); a call that changes only an address, a leading dimension, alpha or beta, or the
// zero-ness of beta gets launches made for it (run in the CPU emulator and checked against the f64
// host reference, so a stale plan shows as a wrong result); two threads share the cache.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "algebra/support.hpp"
#include "emulated_gemm.hpp"
#include "stand_in.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::GemmArguments;
using kernels::matrix_view;
using test::EmulatedGemm;
using test::other_calls;
using test::StandIn;

TEST_CASE("host path: a repeated tessel::gemm only launches, and a new address is encoded again") {
  StandIn& s = StandIn::get();
  const int64_t M = 256, N = 256, K = 256;
  rt::DeviceBuffer a(M * K * 2), b(K * N * 2), o(M * N * 2), a2(M * K * 2);
  const GemmArguments args = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, false),
                                                          matrix_view(Type::BF16, 0, M, N, true));
  GemmArguments g = args;
  g.A.data = a.ptr();
  g.B.data = b.ptr();
  g.out.data = o.ptr();
  const kernels::GemmChoice& first = gemm(g);  // choice, generation, load
  s.reset();
  for (int i = 0; i < 10; ++i) CHECK(&gemm(g) == &first);
  CHECK(s.calls("cuLaunchKernelEx") == 10);
  CHECK(s.calls("cuCtxGetCurrent") <= 10);  // one per call: the context keys the cache
  CHECK(other_calls(s) == 0);               // no module load, no encode, no attribute, no device query
  // Only A's address changes: A's descriptor is encoded (once; B's and out's are the cached ones),
  // nothing is loaded.
  GemmArguments moved = g;
  moved.A.data = a2.ptr();
  s.reset();
  gemm(moved);
  gemm(moved);
  CHECK(s.calls("cuLaunchKernelEx") == 2);
  CHECK(s.calls("cuTensorMapEncodeTiled") == 1);
  CHECK(s.calls("cuModuleLoadDataEx") + s.calls("cuModuleLoadData") + s.calls("cuLinkCreate") == 0);
  // Back to the first addresses: their descriptors are cached too.
  s.reset();
  gemm(g);
  CHECK(s.calls("cuTensorMapEncodeTiled") == 0);
  // Every launch carries what a fresh, uncached plan gives for its arguments.
  for (const GemmArguments* x : {&g, &moved}) {
    s.reset();
    gemm(*x);
    const std::vector<TesselStandInLaunch> l = s.launches();
    REQUIRE(l.size() == 1);
    const kernels::HopperGemmConfig config = kernels::hopper_gemm_config(first.kernel->metadata().options);
    const codegen::LaunchPlan fresh = kernels::hopper_gemm_launch(config, *x, 132, rt::encode_tensor_map);
    CHECK(StandIn::params(l[0]) == fresh.params);
    CHECK(l[0].grid[0] == fresh.grid[0]);
  }
}

TEST_CASE("host path: a changed address, leading dimension, alpha or beta is honoured (emulated results)") {
  StandIn::get();
  TESSEL_RNG(rng);
  EmulatedGemm e;
  const int64_t M = 70, N = 72, K = 64;
  auto problem = [&](int64_t lda, double alpha, double beta) {
    return kernels::make_gemm_problem(matrix_view(Type::BF16, 0, M, K, true, lda), matrix_view(Type::BF16, 0, K, N, false),
                                      matrix_view(Type::BF16, 0, M, N, true), std::nullopt, alpha, beta, rng);
  };
  SUBCASE("only the addresses and the values change") {
    e.run(problem(K, 1.0, 0.0), 1);
    e.run(problem(K, 1.0, 0.0), 1);  // same layouts: the cached choice, new addresses
    e.run(problem(K, 1.0, 0.0), 1);
  }
  SUBCASE("only A's leading dimension changes") {
    e.run(problem(K, 1.0, 0.0), 1);
    e.run(problem(K + 8, 1.0, 0.0), 1);  // still TMA-aligned: the same kernel, another ld
    e.run(problem(K + 1, 1.0, 0.0));     // not 16-byte aligned: A through the workspace
    e.run(problem(K, 1.0, 0.0), 1);
  }
  SUBCASE("only alpha, beta or beta's zero-ness changes") {
    e.run(problem(K, 1.0, 0.0), 1);
    e.run(problem(K, 0.5, 0.0), 1);
    e.run(problem(K, 0.5, 2.0), 1);   // beta != 0: C (out) read
    e.run(problem(K, -1.0, 0.25), 1);
    e.run(problem(K, 1.0, 0.0), 1);   // back to beta == 0
  }
  SUBCASE("a choice through the workspace, with new addresses") {
    e.run(problem(K + 1, 1.0, 0.0), 2);  // copy A, then the GEMM
    e.run(problem(K + 1, 2.0, 0.0), 2);
    e.run(problem(K + 1, 1.0, 1.0), 2);
  }
}

TEST_CASE("host path: a changed address still gets every check (C overlapping out)") {
  StandIn::get();
  const int64_t M = 128, N = 128, K = 64;
  rt::DeviceBuffer a(M * K * 2), b(K * N * 2), o(2 * M * N * 2);
  GemmArguments g = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, false),
                                                 matrix_view(Type::BF16, 0, M, N, true), matrix_view(Type::BF16, 0, M, N, true),
                                                 1.0, 1.0);
  g.A.data = a.ptr();
  g.B.data = b.ptr();
  g.out.data = o.ptr();
  g.C->data = o.ptr() + M * N * 2;  // a C of its own, beside out
  CHECK_NOTHROW(gemm(g));
  g.C->data = o.ptr() + 64 * N * 2;  // the same layouts and alignment, half over out
  CHECK_THROWS_WITH_AS(gemm(g), doctest::Contains("overlap"), Error);
}

TEST_CASE("host path: two threads calling tessel::gemm on one shape get their own launches") {
  StandIn& s = StandIn::get();
  const int64_t M = 192, N = 128, K = 128;
  std::vector<rt::DeviceBuffer> buffers;
  for (int i = 0; i < 4; ++i) {
    buffers.emplace_back(M * K * 2);
    buffers.emplace_back(K * N * 2);
    buffers.emplace_back(M * N * 2);
  }
  std::vector<GemmArguments> sets;
  for (size_t i = 0; i < 4; ++i) {
    GemmArguments g = kernels::make_gemm_arguments(
        matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, false), matrix_view(Type::BF16, 0, M, N, true),
        i == 3 ? 0.5 : 1.0, i == 2 ? 1.0 : 0.0);
    g.A.data = buffers[3 * i].ptr();
    g.B.data = buffers[3 * i + 1].ptr();
    g.out.data = buffers[3 * i + 2].ptr();
    sets.push_back(g);
  }
  const kernels::GemmChoice& choice = gemm(sets[0]);
  const kernels::HopperGemmConfig config = kernels::hopper_gemm_config(choice.kernel->metadata().options);
  std::vector<std::vector<std::vector<std::byte>>> expected;
  for (const GemmArguments& g : sets) expected.push_back(kernels::hopper_gemm_launch(config, g, 132, rt::encode_tensor_map).params);
  s.reset();
  const int rounds = 200;
  std::atomic<int> errors{0};
  auto worker = [&](size_t first) {
    rt::Context(0).make_current();
    try {
      for (int i = 0; i < rounds; ++i) gemm(sets[first + static_cast<size_t>(i % 2)]);
    } catch (...) {
      ++errors;
    }
  };
  std::thread t1(worker, 0), t2(worker, 2);
  t1.join();
  t2.join();
  CHECK(errors == 0);
  CHECK(s.launch_count() == 2 * rounds);
  // Every recorded launch (the last 256) is exactly one argument set's fresh plan.
  for (const TesselStandInLaunch& l : s.launches()) {
    const auto p = StandIn::params(l);
    CHECK(std::count(expected.begin(), expected.end(), p) == 1);
  }
}

TEST_CASE("host path: a repeated Kernel::run of catalog kernels only launches") {
  StandIn& s = StandIn::get();
  const int64_t M = 256, N = 128, K = 64;
  rt::DeviceBuffer a(M * K * 2), b(K * N * 2), o(M * N * 2);
  GemmArguments g = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, M, K, true), matrix_view(Type::BF16, 0, K, N, false),
                                                 matrix_view(Type::BF16, 0, M, N, true));
  g.A.data = a.ptr();
  g.B.data = b.ptr();
  g.out.data = o.ptr();
  const kernels::ElementwiseArguments e{kernels::ElementwiseOp::Copy, kernels::row_major(a.ptr(), Type::F16, {M * K}),
                                        kernels::row_major(a.ptr(), Type::F16, {M * K}),
                                        kernels::row_major(o.ptr(), Type::F16, {M * K})};
  for (const kernels::Arguments& args : {kernels::Arguments(g), kernels::Arguments(e)}) {
    const std::vector<kernels::KernelPtr> found = kernels::get_kernels(args);
    REQUIRE(!found.empty());
    const kernels::Kernel& k = *found.front();
    INFO(k.name());
    k.run(args);  // compile, load
    s.reset();
    for (int i = 0; i < 5; ++i) k.run(args);
    CHECK(s.calls("cuLaunchKernelEx") == 5);
    CHECK(other_calls(s) == 0);
  }
}
