// stream_k_gpu_test.cpp: the Hopper GEMM's stream-K schedule on the GPU (skipped with the reason
// where there is none): problems whose tiles leave the last round partly empty (square, skinny,
// batched, f16 -> f32, a column-major out with beta and a C of its own) through tessel::gemm
// with --schedule stream-k (its choice must be stream-K), then through the catalog kernel on
// other worker counts (a prime, fewer than the SMs, more than the SMs); every element against
// the f64 host reference (sampled on the largest), out poisoned, the same bits on every repeat.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/gpu.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::matrix_view;

TEST_CASE("stream-K: gpu partial-wave problems through tessel::gemm and other worker counts, the same bits every run") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  struct Case {
    int64_t l, m, n, k;
    Type ab, out;
    bool out_row;
    double beta;
    bool own_c;
  };
  const Case cases[] = {{0, 1000, 1000, 1000, Type::F16, Type::F16, true, 0, false},
                        {0, 1920, 1280, 2560, Type::BF16, Type::BF16, true, 0, false},
                        {7, 333, 555, 777, Type::F16, Type::F32, true, 0, false},
                        {0, 64, 4096, 4096, Type::BF16, Type::BF16, true, 1, false},
                        {0, 700, 1500, 1000, Type::BF16, Type::BF16, false, 2, true},
                        {0, 520, 1040, 1111, Type::F32, Type::F32, true, 0, false}};
  for (const Case& c : cases) {
    INFO(c.l << " x " << c.m << "x" << c.n << "x" << c.k << " " << codegen::ptx_name(c.ab) << " -> "
              << codegen::ptx_name(c.out));
    const std::optional<kernels::TensorView> C =
        c.own_c ? std::optional<kernels::TensorView>(matrix_view(c.out, c.l, c.m, c.n, c.out_row)) : std::nullopt;
    const kernels::GemmProblem p = kernels::make_gemm_problem(
        matrix_view(c.ab, c.l, c.m, c.k, true), matrix_view(c.ab, c.l, c.k, c.n, false),
        matrix_view(c.out, c.l, c.m, c.n, c.out_row), C, 0.5, c.beta, rng);
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    rt::DeviceBuffer cc = rt::DeviceBuffer::from(p.C ? p.C->bytes : std::vector<uint8_t>(16));
    kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr(), p.C ? cc.ptr() : 0);
    const kernels::GemmChoice& choice = tessel::gemm(g, {}, kernels::GemmSchedule::StreamK);
    INFO(choice.describe() << ": " << choice.terms);
    REQUIRE(choice.workers > 0);
    test::gpu_context().synchronize();
    const std::vector<uint8_t> first = o.to_vector<uint8_t>();
    CHECK(kernels::check_gemm(p, first) == "");
    for (int i = 0; i < 2; ++i) {
      o.upload(p.out.bytes.data(), p.out.bytes.size());  // poisoned again (or out's old values, for beta)
      tessel::gemm(g, {}, kernels::GemmSchedule::StreamK);
      test::gpu_context().synchronize();
      CHECK(o.to_vector<uint8_t>() == first);
    }
    if (choice.any_packed()) continue;  // the kernel alone needs the copies' layouts
    // The catalog kernel on other worker counts: fewer than the SMs, a prime, more than the SMs.
    for (int workers : {7, 131, 300}) {
      INFO(workers << " workers");
      g.stream_k_workers = workers;
      const size_t ws = choice.kernel->workspace_size(g);
      rt::DeviceBuffer w(std::max<size_t>(ws, 16));
      w.fill(0xFF);
      o.upload(p.out.bytes.data(), p.out.bytes.size());
      choice.kernel->run(g, {}, w.ptr());
      test::gpu_context().synchronize();
      const std::vector<uint8_t> got = o.to_vector<uint8_t>();
      CHECK(kernels::check_gemm(p, got) == "");
      o.upload(p.out.bytes.data(), p.out.bytes.size());
      choice.kernel->run(g, {}, w.ptr());
      test::gpu_context().synchronize();
      CHECK(o.to_vector<uint8_t>() == got);
    }
    g.stream_k_workers = 0;
  }
}
