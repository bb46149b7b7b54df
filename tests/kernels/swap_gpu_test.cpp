// swap_gpu_test.cpp: every swapped Hopper GEMM of the catalog (the _swap entries, for a few rows of
// A) on the GPU (skipped with the reason where there is none): M = 1..64, ragged N and K around
// the stage ring, a batch of 2, beta 0 (out poisoned) or not, split-K entries at 3 splits; every
// element against the f64 host reference, the bytes between out's elements untouched, the same
// bits on a second run. Then decode-sized problems through tessel::gemm.
#include <doctest/doctest.h>

#include "runtime/gpu.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::matrix_view;

namespace {

// The entry's operands as its metadata lays them out, out row-major with a padded row.
kernels::GemmProblem swap_problem(const kernels::KernelMetadata& md, std::mt19937_64& rng, int64_t m, int64_t n,
                                  int64_t k, double beta) {
  const Type ab = md.operand("A").dtype, ot = md.operand("out").dtype;
  const bool b_row = md.operand("B").major == kernels::Major::Row;  // N-major B
  const int64_t ao = 16 / codegen::bytes(ab), oo = 16 / codegen::bytes(ot);
  auto pad = [](int64_t x, int64_t a) { return (x + a - 1) / a * a + a; };
  return kernels::make_gemm_problem(matrix_view(ab, 2, m, k, true, pad(k, ao)),
                                    matrix_view(ab, 2, k, n, b_row, pad(b_row ? n : k, ao)),
                                    matrix_view(ot, 2, m, n, true, pad(n, oo)), std::nullopt, 1.5, beta, rng);
}

}  // namespace

TEST_CASE("swap: gpu every _swap entry on M = 1..64 with ragged N and K, the same bits every run") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  const std::vector<kernels::KernelPtr> all = kernels::list_kernels(
      [](const kernels::KernelMetadata& md) { return md.name.ends_with("_swap"); }, 90);
  REQUIRE(all.size() >= 50);
  int i = 0;
  for (const kernels::KernelPtr& kernel : all) {
    const kernels::KernelMetadata& md = kernel->metadata();
    const int64_t tk = md.design.tile[2];
    const int64_t m = 1 + static_cast<int64_t>(rng() % 64), n = 100 + static_cast<int64_t>(rng() % 600);
    const int64_t k = (md.design.stages + 3 + static_cast<int64_t>(rng() % 5)) * tk - static_cast<int64_t>(rng() % 7);
    const double beta = i++ % 2 == 0 ? 0.0 : 0.5;
    const kernels::GemmProblem p = swap_problem(md, rng, m, n, k, beta);
    INFO(kernel->name() << ": " << p.describe() << " (TESSEL_SEED=" << test::gpu_seed() << ")");
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr());
    if (md.name.find("_sk_") != std::string::npos) g.split_k = 3;
    const kernels::Status s = kernel->supports(g);
    REQUIRE_MESSAGE(s.ok, s.reason);
    rt::DeviceBuffer w(std::max<size_t>(1, kernel->workspace_size(g)));
    w.fill(0xFF);
    kernel->run(g, {}, w.ptr());
    test::gpu_context().synchronize();
    const std::vector<uint8_t> first = o.to_vector<uint8_t>();
    CHECK(kernels::check_gemm(p, first) == "");
    o.upload(p.out.bytes.data(), p.out.bytes.size());
    kernel->run(g, {}, w.ptr());
    test::gpu_context().synchronize();
    CHECK(o.to_vector<uint8_t>() == first);
  }
}

TEST_CASE("swap: gpu decode-sized problems through tessel::gemm match the host") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  struct Case {
    int64_t m, n, k;
    Type out;
    double beta;
  };
  for (const Case& c : {Case{1, 4096, 4096, Type::BF16, 0}, Case{16, 4096, 1000, Type::F32, 1},
                        Case{5, 1027, 777, Type::BF16, 0}, Case{64, 2048, 4096, Type::BF16, 0.5}}) {
    const kernels::GemmProblem p = kernels::make_gemm_problem(
        matrix_view(Type::BF16, 0, c.m, c.k, true), matrix_view(Type::BF16, 0, c.k, c.n, false),
        matrix_view(c.out, 0, c.m, c.n, true), std::nullopt, 1, c.beta, rng);
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    const kernels::GemmChoice& choice = tessel::gemm(p.arguments(a.ptr(), b.ptr(), o.ptr()), {});
    INFO(c.m << "x" << c.n << "x" << c.k << ": " << choice.describe() << ": " << choice.terms
             << " (TESSEL_SEED=" << test::gpu_seed() << ")");
    test::gpu_context().synchronize();
    CHECK(kernels::check_gemm(p, o.to_vector<uint8_t>()) == "");
  }
}
