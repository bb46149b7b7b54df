// demo_run.cpp: see demo_run.hpp. Inputs are random (bytes for the copies, multiples of 1/8 in
// [-2, 2] for the MMA, so that its f32 result is exact and compared bit for bit); outputs are
// filled with 0xFF first and guard bytes after them must stay 0xFF.
#include "tessel/testing/demo_run.hpp"

#include <cstring>
#include <random>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/kernels/tma.hpp"
#include "tessel/testing/machine.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

constexpr uint8_t kPoison = 0xFF;

bool guard_intact(const std::vector<uint8_t>& out, size_t from) {
  for (size_t i = from; i < out.size(); ++i) {
    if (out[i] != kPoison) return false;
  }
  return true;
}

// A plan of `m` with the whole kernel's launch shape; the caller adds the parameters.
codegen::LaunchPlan plan_of(const Module& m, std::array<unsigned, 3> grid, unsigned threads) {
  codegen::LaunchPlan p;
  p.module = m;
  p.kernel = m.kernels.at(0).name;
  p.grid = grid;
  p.block = {threads, 1, 1};
  return p;
}

DemoRun run_vector_copy(const Options& o, Machine& machine, std::mt19937_64& rng) {
  const VectorCopyConfig c = vector_copy_config(o);
  const int eb = bytes(c.dtype);
  // About a million elements on a GPU; a few blocks' worth (and a ragged last one) in the emulator.
  const int64_t blocks = machine.emulated() ? 3 : (1 << 20) / c.elements_per_block();
  const int64_t n = c.vector() * std::uniform_int_distribution<int64_t>(blocks * c.threads / 4, blocks * c.threads)(rng);
  const size_t guard = 4096;
  std::vector<uint8_t> src(static_cast<size_t>(n * eb));
  for (auto& x : src) x = static_cast<uint8_t>(rng());
  const uint64_t dsrc = machine.upload(src), ddst = machine.poisoned(src.size() + guard, kPoison);
  codegen::LaunchPlan p = plan_of(vector_copy(c), {static_cast<unsigned>((n + c.elements_per_block() - 1) / c.elements_per_block()), 1, 1},
                                  static_cast<unsigned>(c.threads));
  p.arg(dsrc).arg(ddst).arg(int64_t{n});
  DemoRun r;
  r.problem = "n=" + std::to_string(n);
  r.kernel_ms = machine.launch(p);
  r.bytes = 2.0 * static_cast<double>(src.size());
  const std::vector<uint8_t> out = machine.download(ddst, src.size() + guard);
  const bool same = std::memcmp(out.data(), src.data(), src.size()) == 0, guarded = guard_intact(out, src.size());
  r.ok = same && guarded;
  r.result = std::string(same ? "all " + std::to_string(n) + " elements copied" : "copied elements differ") +
             (guarded ? ", guard zone intact" : ", GUARD ZONE WRITTEN");
  return r;
}

DemoRun run_tma_tile(const Options& o, Machine& machine, std::mt19937_64& rng) {
  const TmaTileConfig c = tma_tile_config(o);
  const int eb = bytes(c.dtype);
  // Ragged sizes: the last boxes hang over the edges (TMA fills them, the kernel must not write).
  const int64_t M = std::uniform_int_distribution<int64_t>(c.rows + 1, 3 * c.rows)(rng);
  const int64_t N = std::uniform_int_distribution<int64_t>(c.cols + 1, 3 * c.cols)(rng);
  const int64_t ld_in = (N * eb + 15) / 16 * 16 / eb + 16 / eb;  // padded rows, 16-byte strides
  const int64_t ld_out = N + 3;                                  // padding the kernel must not touch
  std::vector<uint8_t> in(static_cast<size_t>(M * ld_in * eb));
  for (auto& x : in) x = static_cast<uint8_t>(rng());
  const size_t out_bytes = static_cast<size_t>(M * ld_out * eb);
  const uint64_t din = machine.upload(in), dout = machine.poisoned(out_bytes, kPoison);
  // The input as the algebra sees it, (N, M) : (1, ld_in) with the contiguous mode first.
  const rt::TensorMapSpec spec =
      make_tensor_map_spec(make_layout(IntTuple{N, M}, IntTuple{1, ld_in}), c.dtype, {c.cols, c.rows}, c.swizzle);
  const LaunchTarget target = machine.target();
  const rt::TensorMap tmap = target.encode ? target.encode(spec, din) : rt::encode_tensor_map(spec, din);
  codegen::LaunchPlan p = plan_of(tma_tile(c),
                                  {static_cast<unsigned>((N + c.cols - 1) / c.cols),
                                   static_cast<unsigned>((M + c.rows - 1) / c.rows), 1},
                                  static_cast<unsigned>(c.threads));
  p.arg(tmap).arg(dout).arg(int32_t(M)).arg(int32_t(N)).arg(int32_t(ld_out));
  DemoRun r;
  r.problem = "M=" + std::to_string(M) + " N=" + std::to_string(N);
  r.kernel_ms = machine.launch(p);
  r.bytes = 2.0 * static_cast<double>(M * N * eb);
  const std::vector<uint8_t> out = machine.download(dout, out_bytes);
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

DemoRun run_wgmma_tile(const Options& o, Machine& machine, std::mt19937_64& rng) {
  const WgmmaTileConfig c = wgmma_tile_config(o);
  const int k = c.k();
  std::uniform_int_distribution<int> q(-16, 16);
  std::vector<float> a(static_cast<size_t>(64 * k)), b(static_cast<size_t>(c.n * k));
  for (float& x : a) x = static_cast<float>(q(rng)) / 8.0f;
  for (float& x : b) x = static_cast<float>(q(rng)) / 8.0f;
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ha[i] = c.dtype == Type::BF16 ? encode_bf16(a[i]) : encode_f16(a[i]);
  for (size_t i = 0; i < b.size(); ++i) hb[i] = c.dtype == Type::BF16 ? encode_bf16(b[i]) : encode_f16(b[i]);
  const size_t out_bytes = static_cast<size_t>(64 * c.n) * 4;
  auto as_bytes = [](const std::vector<uint16_t>& v) {
    std::vector<uint8_t> b(v.size() * 2);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const uint64_t da = machine.upload(as_bytes(ha)), db = machine.upload(as_bytes(hb)),
                 dd = machine.poisoned(out_bytes + 1024, kPoison);
  codegen::LaunchPlan p = plan_of(wgmma_tile(c), {1, 1, 1}, 128);
  p.arg(da).arg(db).arg(dd);
  DemoRun r;
  r.problem = "M=64 N=" + std::to_string(c.n) + " K=" + std::to_string(k);
  r.kernel_ms = machine.launch(p);
  r.bytes = static_cast<double>((ha.size() + hb.size()) * 2 + out_bytes);
  const std::vector<uint8_t> raw = machine.download(dd, out_bytes + 1024);
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

DemoRun run_demo(const Kernel& k, Machine& machine, std::mt19937_64& rng) {
  const KernelMetadata& md = k.metadata();
  if (md.kernel_class == "vector_copy") return run_vector_copy(md.options, machine, rng);
  if (md.kernel_class == "tma_tile") return run_tma_tile(md.options, machine, rng);
  if (md.kernel_class == "wgmma_tile") return run_wgmma_tile(md.options, machine, rng);
  fail("run_demo: " + k.name() + " of class " + md.kernel_class + " is not a demonstration kernel");
}

}  // namespace tessel::kernels
