// demo_run.cpp: see demo_run.hpp. Inputs are random (bytes for the copies, multiples of 1/8 in
// [-2, 2] for the MMA, so that its f32 result is exact and compared bit for bit); outputs are
// filled with 0xFF first and guard bytes after them must stay 0xFF.
#include "tessel/kernels/launch.hpp"
#include "tessel/testing/demo_run.hpp"

#include <cstring>
#include <random>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/testing/elementwise_check.hpp"
#include "tessel/testing/gemm_check.hpp"
#include "tessel/kernels/tma.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

constexpr uint8_t kPoison = 0xFF;

rt::Function load(const Module& m) {
  // The cache keys modules by their text: a second run of one configuration loads nothing. The
  // road to PTX is the process's default backend (tessel run --backend, TESSEL_BACKEND).
  return rt::ModuleCache::global().get(emit_ptx(m, default_backend())).function(m.kernels.at(0).name);
}


double timed(const rt::Function& f, const rt::LaunchConfig& lc, const rt::ArgPack& args) {
  rt::Event start, stop;
  start.record();
  rt::launch(f, lc, args);
  stop.record();
  stop.synchronize();
  return rt::elapsed_ms(start, stop);
}

bool guard_intact(const std::vector<uint8_t>& out, size_t from) {
  for (size_t i = from; i < out.size(); ++i) {
    if (out[i] != kPoison) return false;
  }
  return true;
}

DemoRun run_vector_copy(const Options& o, std::mt19937_64& rng) {
  const VectorCopyConfig c = vector_copy_config(o);
  const Module m = vector_copy(c);
  use_device_for(m);
  const int eb = bytes(c.dtype);
  const int64_t n = c.vector() * std::uniform_int_distribution<int64_t>(1 << 18, 1 << 20)(rng);
  const size_t guard = 4096;
  std::vector<uint8_t> src(static_cast<size_t>(n * eb));
  for (auto& x : src) x = static_cast<uint8_t>(rng());
  rt::DeviceBuffer dsrc = rt::DeviceBuffer::from(src), ddst(src.size() + guard);
  ddst.fill(kPoison);
  rt::LaunchConfig lc;
  lc.grid.x = static_cast<unsigned>((n + c.elements_per_block() - 1) / c.elements_per_block());
  lc.block.x = static_cast<unsigned>(c.threads);
  DemoRun r;
  r.problem = "n=" + std::to_string(n);
  r.kernel_ms = timed(load(m), lc, rt::ArgPack(dsrc.ptr(), ddst.ptr(), int64_t{n}));
  r.bytes = 2.0 * static_cast<double>(src.size());
  const std::vector<uint8_t> out = ddst.to_vector<uint8_t>();
  const bool same = std::memcmp(out.data(), src.data(), src.size()) == 0, guarded = guard_intact(out, src.size());
  r.ok = same && guarded;
  r.result = std::string(same ? "all " + std::to_string(n) + " elements copied" : "copied elements differ") +
             (guarded ? ", guard zone intact" : ", GUARD ZONE WRITTEN");
  return r;
}

DemoRun run_tma_tile(const Options& o, std::mt19937_64& rng) {
  const TmaTileConfig c = tma_tile_config(o);
  const Module m = tma_tile(c);
  use_device_for(m);
  const int eb = bytes(c.dtype);
  // Ragged sizes: the last boxes hang over the edges (TMA fills them, the kernel must not write).
  const int64_t M = std::uniform_int_distribution<int64_t>(c.rows + 1, 3 * c.rows)(rng);
  const int64_t N = std::uniform_int_distribution<int64_t>(c.cols + 1, 3 * c.cols)(rng);
  const int64_t ld_in = (N * eb + 15) / 16 * 16 / eb + 16 / eb;  // padded rows, 16-byte strides
  const int64_t ld_out = N + 3;                                  // padding the kernel must not touch
  std::vector<uint8_t> in(static_cast<size_t>(M * ld_in * eb));
  for (auto& x : in) x = static_cast<uint8_t>(rng());
  rt::DeviceBuffer din = rt::DeviceBuffer::from(in), dout(static_cast<size_t>(M * ld_out * eb));
  dout.fill(kPoison);
  // The input as the algebra sees it, (N, M) : (1, ld_in) with the contiguous mode first.
  const rt::TensorMapSpec spec =
      make_tensor_map_spec(make_layout(IntTuple{N, M}, IntTuple{1, ld_in}), c.dtype, {c.cols, c.rows}, c.swizzle);
  const rt::TensorMap tmap = rt::encode_tensor_map(spec, din.ptr());
  rt::LaunchConfig lc;
  lc.grid.x = static_cast<unsigned>((N + c.cols - 1) / c.cols);
  lc.grid.y = static_cast<unsigned>((M + c.rows - 1) / c.rows);
  lc.block.x = static_cast<unsigned>(c.threads);
  DemoRun r;
  r.problem = "M=" + std::to_string(M) + " N=" + std::to_string(N);
  r.kernel_ms = timed(load(m), lc, rt::ArgPack(tmap, dout.ptr(), int32_t(M), int32_t(N), int32_t(ld_out)));
  r.bytes = 2.0 * static_cast<double>(M * N * eb);
  const std::vector<uint8_t> out = dout.to_vector<uint8_t>();
  int64_t wrong = 0, padding = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < ld_out; ++j) {
      const uint8_t* got = &out[static_cast<size_t>((i * ld_out + j) * eb)];
      if (j < N) {
        wrong += std::memcmp(got, &in[static_cast<size_t>((i * ld_in + j) * eb)], static_cast<size_t>(eb)) != 0;
      } else {
        for (int k = 0; k < eb; ++k) padding += got[k] != kPoison;
      }
    }
  }
  r.ok = wrong == 0 && padding == 0;
  r.result =
      (wrong == 0 ? "all " + std::to_string(M * N) + " elements match" : std::to_string(wrong) + " elements differ") +
      (padding == 0 ? ", row padding intact" : ", ROW PADDING WRITTEN");
  return r;
}

DemoRun run_wgmma_tile(const Options& o, std::mt19937_64& rng) {
  const WgmmaTileConfig c = wgmma_tile_config(o);
  const Module m = wgmma_tile(c);
  use_device_for(m);
  const int k = c.k();
  std::uniform_int_distribution<int> q(-16, 16);
  std::vector<float> a(static_cast<size_t>(64 * k)), b(static_cast<size_t>(c.n * k));
  for (float& x : a) x = static_cast<float>(q(rng)) / 8.0f;
  for (float& x : b) x = static_cast<float>(q(rng)) / 8.0f;
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ha[i] = c.dtype == Type::BF16 ? encode_bf16(a[i]) : encode_f16(a[i]);
  for (size_t i = 0; i < b.size(); ++i) hb[i] = c.dtype == Type::BF16 ? encode_bf16(b[i]) : encode_f16(b[i]);
  const size_t out_bytes = static_cast<size_t>(64 * c.n) * 4;
  rt::DeviceBuffer da = rt::DeviceBuffer::from(ha), db = rt::DeviceBuffer::from(hb), dd(out_bytes + 1024);
  dd.fill(kPoison);
  rt::LaunchConfig lc;
  lc.block.x = 128;
  DemoRun r;
  r.problem = "M=64 N=" + std::to_string(c.n) + " K=" + std::to_string(k);
  r.kernel_ms = timed(load(m), lc, rt::ArgPack(da.ptr(), db.ptr(), dd.ptr()));
  r.bytes = static_cast<double>((ha.size() + hb.size()) * 2 + out_bytes);
  const std::vector<uint8_t> raw = dd.to_vector<uint8_t>();
  std::vector<float> d(static_cast<size_t>(64 * c.n));
  std::memcpy(d.data(), raw.data(), out_bytes);
  int64_t wrong = 0;
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < c.n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < k; ++kk) ref += double(a[size_t(i * k + kk)]) * double(b[size_t(j * k + kk)]);
      wrong += d[size_t(i * c.n + j)] != static_cast<float>(ref);
    }
  }
  const bool guarded = guard_intact(raw, out_bytes);
  r.ok = wrong == 0 && guarded;
  r.result = (wrong == 0 ? "all " + std::to_string(64 * c.n) + " products exact"
                         : std::to_string(wrong) + " products differ") +
             (guarded ? ", guard zone intact" : ", GUARD ZONE WRITTEN");
  return r;
}

}  // namespace

DemoRun run_demo(const std::string& family, const Options& options, uint64_t seed) {
  const KernelFamily& f = find_family(family);
  const Options o = resolve_options(f, options);
  std::mt19937_64 rng(seed);
  if (f.name == "elementwise") return run_elementwise(o, rng);
  if (f.name == "hopper_gemm") return run_hopper_gemm(o, rng);
  if (f.name == "vector_copy") return run_vector_copy(o, rng);
  if (f.name == "tma_tile") return run_tma_tile(o, rng);
  if (f.name == "wgmma_tile") return run_wgmma_tile(o, rng);
  fail("run_demo: no host side for kernel " + f.name);
}

}  // namespace tessel::kernels
