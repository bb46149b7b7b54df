// gemm_one_call_gpu_test.cpp: tessel::gemm on the GPU (skipped with the reason where there is
// none): problems the tensor cores cannot take as they lie, through the one-call API's copies, on
// fresh random data against the f64 host reference, out poisoned where beta == 0, the bytes
// between its elements checked; a repeated call reuses its choice.
#include <doctest/doctest.h>

#include <vector>

#include "runtime/gpu.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::TensorView;
using kernels::matrix_view;

TEST_CASE("gemm: gpu tessel::gemm runs what the tensor cores cannot take as it lies, through copies") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  struct Case {
    const char* what;
    TensorView a, b, out;
    std::optional<TensorView> c;
    double alpha, beta;
    uint64_t c_offset = 0;  // C's bytes this far into their buffer: its address off the granules
  };
  const Case cases[] = {
      // Sizes keep the f64 host reference to seconds; the shapes are the issue's, smaller.
      {"odd K (issue 18)", matrix_view(Type::BF16, 0, 500, 777, true, 777), matrix_view(Type::BF16, 0, 777, 1000, true, 1000),
       matrix_view(Type::BF16, 0, 500, 1000, true, 1000), std::nullopt, 1, 0},
      {"tf32 with an N-major B", matrix_view(Type::F32, 0, 600, 600, true, 600), matrix_view(Type::F32, 0, 600, 600, true, 600),
       matrix_view(Type::F32, 0, 600, 600, true, 600), std::nullopt, 1, 0},
      {"column-major out with beta, B N-major", matrix_view(Type::BF16, 0, 700, 300, true, 300),
       matrix_view(Type::BF16, 0, 300, 500, true, 500), matrix_view(Type::BF16, 0, 700, 500, false, 700), std::nullopt, 0.5, 2},
      // As the TMA takes them (no copies): C loaded ahead box by box and prefetched into the L2.
      {"column-major out with beta, B K-major (issue 18's, smaller)", matrix_view(Type::BF16, 0, 1000, 300, true, 300),
       matrix_view(Type::BF16, 0, 300, 700, false, 300), matrix_view(Type::BF16, 0, 1000, 700, false, 1000), std::nullopt,
       0.5, 2},
      {"row-major out with a distinct column-major C", matrix_view(Type::BF16, 2, 600, 256, true, 256),
       matrix_view(Type::BF16, 2, 256, 512, true, 512), matrix_view(Type::BF16, 2, 600, 512, true, 512),
       matrix_view(Type::BF16, 2, 600, 512, false, 600), 1, 1.5},
      {"f16 -> f32 batched, odd sizes", matrix_view(Type::F16, 3, 333, 177, true, 177),
       matrix_view(Type::F16, 3, 177, 555, true, 555), matrix_view(Type::F32, 3, 333, 555, true, 555), std::nullopt, 1, 0},
      {"tf32 with an M-major A, batched, ragged (A through registers, or copied K-major)",
       matrix_view(Type::F32, 2, 300, 200, false, 300), matrix_view(Type::F32, 2, 200, 250, true, 250),
       matrix_view(Type::F32, 2, 300, 250, true, 250), std::nullopt, 1, 0},
      {"e4m3 with an M-major A", matrix_view(Type::E4M3, 0, 512, 384, false, 512),
       matrix_view(Type::E4M3, 0, 384, 256, false, 384), matrix_view(Type::BF16, 0, 512, 256, true, 256), std::nullopt, 1, 0},
      {"distinct unaligned C, broadcast A", matrix_view(Type::BF16, 3, 300, 129, true, 129, 0),
       matrix_view(Type::BF16, 3, 129, 256, true, 256), matrix_view(Type::BF16, 3, 300, 256, true, 256),
       matrix_view(Type::BF16, 3, 300, 256, true, 257), 1, -1},
      // C read in lines (not copied): rows 2, 4 and 8 granules' worth of offsets (G = 8, 4, 2).
      {"C in lines: issue 18's row 28, smaller (C's rows odd, column-major out)", matrix_view(Type::BF16, 0, 700, 300, true, 300),
       matrix_view(Type::BF16, 0, 300, 500, false, 300), matrix_view(Type::BF16, 0, 700, 500, false, 704),
       matrix_view(Type::BF16, 0, 700, 500, true, 501), 0.5, 2},
      {"C in lines: batched row-major C, rows 2 elements past a granule", matrix_view(Type::BF16, 2, 333, 256, true, 256),
       matrix_view(Type::BF16, 2, 256, 390, false, 256), matrix_view(Type::BF16, 2, 333, 390, true, 392),
       matrix_view(Type::BF16, 2, 333, 390, true, 394, 333 * 400), 1, 1},
      {"C in lines: f32 out, M-contiguous C, columns 2 elements past a granule", matrix_view(Type::F16, 0, 444, 192, true, 192),
       matrix_view(Type::F16, 0, 192, 300, false, 192), matrix_view(Type::F32, 0, 444, 300, true, 300),
       matrix_view(Type::F32, 0, 444, 300, false, 446), -1, 0.75},
      {"C in lines: C's address 6 bytes past a granule, rows 1 element past", matrix_view(Type::BF16, 0, 400, 128, true, 128),
       matrix_view(Type::BF16, 0, 128, 333, false, 128), matrix_view(Type::BF16, 0, 400, 333, true, 336),
       matrix_view(Type::BF16, 0, 400, 333, true, 337), 1, 1, 6},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const kernels::GemmProblem p = kernels::make_gemm_problem(c.a, c.b, c.out, c.c, c.alpha, c.beta, rng);
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    std::vector<uint8_t> c_bytes(c.c_offset, 0xFF);
    if (p.C) c_bytes.insert(c_bytes.end(), p.C->bytes.begin(), p.C->bytes.end());
    rt::DeviceBuffer cb = p.C ? rt::DeviceBuffer::from(c_bytes) : rt::DeviceBuffer();
    const kernels::GemmArguments g = p.arguments(a.ptr(), b.ptr(), o.ptr(), p.C ? cb.ptr() + c.c_offset : 0);
    const kernels::GemmChoice& first = tessel::gemm(g);
    INFO(first.describe() << ": " << first.terms);
    CHECK(first.kernel->metadata().kernel_class == "hopper_gemm");
    if (std::string(c.what).rfind("C in lines", 0) == 0) CHECK(!first.packed[kernels::kPackC]);
    test::gpu_context().synchronize();
    CHECK(kernels::check_gemm(p, o.to_vector<uint8_t>()) == "");
    if (p.C) CHECK(cb.to_vector<uint8_t>() == c_bytes);
    // Again on the same arguments: the same choice (the cached one), and out holds the same result
    // where beta == 0.
    if (c.beta == 0) {
      o.fill(0xFF);
      CHECK(&tessel::gemm(g) == &first);
      test::gpu_context().synchronize();
      CHECK(kernels::check_gemm(p, o.to_vector<uint8_t>()) == "");
    }
  }
}

TEST_CASE("gemm: gpu repeated tessel::gemm calls with new buffers, leading dimensions, alpha and beta") {
  TESSEL_REQUIRE_GPU(90);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  // One shape key after another and back: every call's launches are made for its own addresses,
  // alpha and beta (kernels/gemm.hpp: the cache of launches), never a stale plan's.
  struct Call {
    int64_t lda;
    double alpha, beta;
  };
  const Call calls[] = {{256, 1, 0}, {256, 1, 0}, {256, 0.5, 0}, {264, 1, 0}, {257, 1, 0},
                        {256, 1, 2},  {256, -1, 0.5}, {256, 1, 0}, {257, 2, 1}};
  for (const Call& c : calls) {
    INFO("lda " << c.lda << " alpha " << c.alpha << " beta " << c.beta);
    const kernels::GemmProblem p =
        kernels::make_gemm_problem(matrix_view(Type::BF16, 0, 300, 256, true, c.lda), matrix_view(Type::BF16, 0, 256, 200, false),
                                   matrix_view(Type::BF16, 0, 300, 200, true), std::nullopt, c.alpha, c.beta, rng);
    rt::DeviceBuffer a = rt::DeviceBuffer::from(p.A.bytes), b = rt::DeviceBuffer::from(p.B.bytes),
                     o = rt::DeviceBuffer::from(p.out.bytes);
    tessel::gemm(p.arguments(a.ptr(), b.ptr(), o.ptr()));
    test::gpu_context().synchronize();
    CHECK(kernels::check_gemm(p, o.to_vector<uint8_t>()) == "");
  }
}
