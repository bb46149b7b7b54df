// demos_gpu_test.cpp: the demonstration kernels on the GPU: PTX from codegen, loaded by the
// runtime, launched on fresh random data, outputs poisoned (0xFF) with guard zones, compared with
// a host reference. Skipped, with the reason, where no GPU is usable.
#include <doctest/doctest.h>

#include <cstring>

#include "runtime/gpu.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/demos.hpp"

using namespace tessel;
using namespace tessel::codegen;
using tessel::kernels::Options;

namespace {

rt::Function load(const Module& m) {
  return rt::Module::load_ptx(print_ptx(m)).function(m.kernels.at(0).name);
}

// Host bit patterns of 16-bit floats for values that both formats hold exactly (multiples of
// 1/8 in [-4, 4]); enough for exact MMA checks.
uint16_t to_bf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}
uint16_t to_f16(float f) {
  if (f == 0.0f) return 0;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = (b >> 13) & 0x3ffu;
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | mant);
}

constexpr uint8_t kPoison = 0xFF;

}  // namespace

TEST_CASE("kernels: gpu vector_copy copies every element and nothing past n") {
  TESSEL_REQUIRE_GPU(80);
  auto rng = test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << test::gpu_seed());
  for (const char* dtype : {"f32", "bf16", "f64"}) {
    for (int threads : {128, 256}) {
      kernels::VectorCopyConfig c;
      c.dtype = parse_type(dtype);
      c.threads = threads;
      const int v = c.vector(), eb = bytes(c.dtype);
      // n: a ragged multiple of the vector (the kernel's contract), not a multiple of the block.
      const int64_t n = v * std::uniform_int_distribution<int64_t>(100000, 300000)(rng);
      const int64_t guard = 4096;
      std::vector<uint8_t> src(static_cast<size_t>(n * eb));
      for (auto& x : src) x = static_cast<uint8_t>(rng());
      rt::DeviceBuffer dsrc = rt::DeviceBuffer::from(src);
      rt::DeviceBuffer ddst(static_cast<size_t>(n * eb + guard));
      ddst.fill(kPoison);
      rt::Function f = load(kernels::vector_copy(c));
      rt::LaunchConfig lc;
      lc.grid.x = static_cast<unsigned>((n + c.elements_per_block() - 1) / c.elements_per_block());
      lc.block.x = static_cast<unsigned>(threads);
      rt::launch(f, lc, rt::ArgPack(rt::DevicePtr(dsrc.ptr()), rt::DevicePtr(ddst.ptr()), int64_t{n}));
      test::gpu_context().synchronize();
      std::vector<uint8_t> out = ddst.to_vector<uint8_t>();
      INFO(c.name() << " n=" << n);
      CHECK(std::memcmp(out.data(), src.data(), src.size()) == 0);
      bool guard_ok = true;
      for (int64_t i = n * eb; i < n * eb + guard; ++i) guard_ok = guard_ok && out[static_cast<size_t>(i)] == kPoison;
      CHECK(guard_ok);
    }
  }
}

TEST_CASE("kernels: gpu tma_tile loads swizzled boxes, ragged edges included") {
  TESSEL_REQUIRE_GPU(90);
  auto rng = test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << test::gpu_seed());
  const kernels::KernelFamily& fam = kernels::find_family("tma_tile");
  for (const Options& o : kernels::listed_configurations(fam)) {
    const Module m = fam.generate(o);
    kernels::TmaTileConfig c;
    c.dtype = parse_type(o.at("dtype"));
    c.rows = std::stoi(o.at("rows"));
    const std::string& s = o.at("swizzle");
    c.swizzle = s == "128B" ? SmemSwizzle::B128 : s == "64B" ? SmemSwizzle::B64 : s == "32B" ? SmemSwizzle::B32 : SmemSwizzle::None;
    c.cols = (c.swizzle == SmemSwizzle::None ? 128 : swizzle_bytes(c.swizzle)) / bytes(c.dtype);
    const int eb = bytes(c.dtype);
    // Ragged sizes: the last boxes hang over the edges (TMA fills them, the kernel must not write).
    const int64_t M = std::uniform_int_distribution<int64_t>(c.rows + 1, 3 * c.rows)(rng);
    const int64_t N = std::uniform_int_distribution<int64_t>(c.cols + 1, 3 * c.cols)(rng);
    const int64_t ld_in = (N * eb + 15) / 16 * 16 / eb + 16 / eb;  // padded rows, 16-byte strides
    const int64_t ld_out = N + 3;
    std::vector<uint8_t> in(static_cast<size_t>(M * ld_in * eb));
    for (auto& x : in) x = static_cast<uint8_t>(rng());
    rt::DeviceBuffer din = rt::DeviceBuffer::from(in);
    rt::DeviceBuffer dout(static_cast<size_t>(M * ld_out * eb));
    dout.fill(kPoison);
    rt::TensorMapSpec spec;
    spec.type = c.dtype == Type::BF16 ? rt::TensorMapDataType::BF16 : rt::TensorMapDataType::F32;
    spec.dims = {N, M};
    spec.strides = {1, ld_in};
    spec.box = {c.cols, c.rows};
    spec.swizzle = c.swizzle == SmemSwizzle::B128  ? rt::TensorMapSwizzle::B128
                   : c.swizzle == SmemSwizzle::B64 ? rt::TensorMapSwizzle::B64
                   : c.swizzle == SmemSwizzle::B32 ? rt::TensorMapSwizzle::B32
                                                   : rt::TensorMapSwizzle::None;
    rt::TensorMap tmap = rt::encode_tensor_map(spec, din.ptr());
    rt::Function f = rt::Module::load_ptx(print_ptx(m)).function(m.kernels[0].name);
    rt::LaunchConfig lc;
    lc.grid.x = static_cast<unsigned>((N + c.cols - 1) / c.cols);
    lc.grid.y = static_cast<unsigned>((M + c.rows - 1) / c.rows);
    lc.block.x = static_cast<unsigned>(c.threads);
    rt::launch(f, lc, rt::ArgPack(tmap, rt::DevicePtr(dout.ptr()), int32_t(M), int32_t(N), int32_t(ld_out)));
    test::gpu_context().synchronize();
    std::vector<uint8_t> out = dout.to_vector<uint8_t>();
    int64_t wrong = 0, touched_padding = 0;
    for (int64_t r = 0; r < M; ++r) {
      for (int64_t col = 0; col < ld_out; ++col) {
        const uint8_t* got = &out[static_cast<size_t>((r * ld_out + col) * eb)];
        if (col < N) {
          wrong += std::memcmp(got, &in[static_cast<size_t>((r * ld_in + col) * eb)], eb) != 0;
        } else {
          for (int byte = 0; byte < eb; ++byte) touched_padding += got[byte] != kPoison;
        }
      }
    }
    INFO(kernels::dump_arguments(fam, o) << " M=" << M << " N=" << N);
    CHECK(wrong == 0);
    CHECK(touched_padding == 0);
  }
}

TEST_CASE("kernels: gpu wgmma_tile computes A*B^T exactly, for every swizzle and N") {
  TESSEL_REQUIRE_GPU(90);
  if (rt::device_properties(0).compute_capability() != 90) {
    test::skip("wgmma needs sm_90a (an H100/H200)");
    return;
  }
  auto rng = test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << test::gpu_seed());
  // Multiples of 1/8 in [-2, 2]: exact in bf16 and f16, and every product and sum of <= 64 of
  // them is exact in f32, so the result must match the host bit for bit.
  std::uniform_int_distribution<int> q(-16, 16);
  const kernels::KernelFamily& fam = kernels::find_family("wgmma_tile");
  for (const Options& o : kernels::listed_configurations(fam)) {
    kernels::WgmmaTileConfig c;
    c.dtype = parse_type(o.at("dtype"));
    c.n = std::stoi(o.at("n"));
    const std::string& s = o.at("swizzle");
    c.swizzle = s == "128B" ? SmemSwizzle::B128 : s == "64B" ? SmemSwizzle::B64 : s == "32B" ? SmemSwizzle::B32 : SmemSwizzle::None;
    const int k = c.k();
    std::vector<float> a(static_cast<size_t>(64 * k)), b(static_cast<size_t>(c.n * k));
    for (float& x : a) x = static_cast<float>(q(rng)) / 8.0f;
    for (float& x : b) x = static_cast<float>(q(rng)) / 8.0f;
    std::vector<uint16_t> ha(a.size()), hb(b.size());
    for (size_t i = 0; i < a.size(); ++i) ha[i] = c.dtype == Type::BF16 ? to_bf16(a[i]) : to_f16(a[i]);
    for (size_t i = 0; i < b.size(); ++i) hb[i] = c.dtype == Type::BF16 ? to_bf16(b[i]) : to_f16(b[i]);
    rt::DeviceBuffer da = rt::DeviceBuffer::from(ha), db = rt::DeviceBuffer::from(hb);
    rt::DeviceBuffer dd(static_cast<size_t>(64 * c.n) * 4 + 1024);
    dd.fill(kPoison);
    rt::Function f = load(kernels::wgmma_tile(c));
    rt::LaunchConfig lc;
    lc.block.x = 128;
    rt::launch(f, lc, rt::ArgPack(rt::DevicePtr(da.ptr()), rt::DevicePtr(db.ptr()), rt::DevicePtr(dd.ptr())));
    test::gpu_context().synchronize();
    std::vector<float> d = dd.to_vector<float>();
    int64_t wrong = 0;
    for (int m = 0; m < 64; ++m) {
      for (int n = 0; n < c.n; ++n) {
        double ref = 0;
        for (int kk = 0; kk < k; ++kk) ref += double(a[size_t(m * k + kk)]) * double(b[size_t(n * k + kk)]);
        wrong += d[size_t(m * c.n + n)] != static_cast<float>(ref);
      }
    }
    std::vector<uint8_t> tail = dd.to_vector<uint8_t>();
    bool guard_ok = true;
    for (size_t i = size_t(64 * c.n) * 4; i < tail.size(); ++i) guard_ok = guard_ok && tail[i] == kPoison;
    INFO(kernels::dump_arguments(fam, o));
    CHECK(wrong == 0);
    CHECK(guard_ok);
  }
}
