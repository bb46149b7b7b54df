// gemm/ranking.cpp: the one-call GEMM's choice: which catalog kernels run the problem (as the
// operands lie, or after copies into the workspace) and the cost model that ranks them.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "gemm/packing.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

struct Extents {
  int64_t L = 1, M = 0, N = 0, K = 0;
};
Extents extents_of(const GemmArguments& g) {
  Extents e;
  const size_t r = g.out.shape.size(), ra = g.A.shape.size();
  if (r < 2 || ra < 2) return e;
  e.M = g.out.shape[r - 2];
  e.N = g.out.shape[r - 1];
  e.K = g.A.shape[ra - 1];
  e.L = r == 3 ? g.out.shape[0] : 1;
  return e;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Dense peak of one SM in FLOP per microsecond, from the H100 SXM's datasheet figures spread over
// its 132 SMs (the clock is the same on every Hopper part tessel targets, the SM count is not).
double peak_per_sm(Type ab, bool tensor_cores) {
  const double per_sm = 1e-6 / 132;
  if (!tensor_cores) {
    if (ab == Type::F64) return 34e12 * per_sm;
    if (ab == Type::S32) return 17e12 * per_sm;
    return 67e12 * per_sm;  // f32 FMA; f16 and bf16 are computed in f32
  }
  if (ab == Type::F32) return 495e12 * per_sm;  // tf32
  if (codegen::is_fp8(ab)) return 1979e12 * per_sm;
  return 989e12 * per_sm;  // bf16, f16
}

// The fraction of peak a tile reaches in its mainloop: larger tiles reuse each loaded byte more
// and keep more MMAs in flight (measured on an H100: 128x256 near 80%, docs/performance.md);
// ping-pong hides the epilogue behind the other warpgroup's MMAs.
double tile_efficiency(const KernelMetadata& md) {
  const double area = static_cast<double>(md.design.tile[0]) * md.design.tile[1];
  double eff = 0.82 - 0.06 * std::log2(std::max(1.0, 128.0 * 256.0 / area));
  if (md.options.count("schedule") && md.options.at("schedule") == "pingpong") eff += 0.03;
  return std::clamp(eff, 0.3, 0.85);
}

constexpr double kDramBytesPerUs = 3.0e6;    // about 90% of the H100's 3.35 TB/s
constexpr double kCopyBytesPerUs = 2.5e6;    // the elementwise copy, read and write counted
// A copy into another major (a transpose by the elementwise copy: one side's accesses strided)
// costs this many times a copy in the same major. An estimate, not a measurement: it breaks the
// tie between a kernel that needs the operand transposed and its twin that only needs its rows
// padded, in the padding copy's favour.
constexpr double kTransposeCopyFactor = 3.0;
constexpr double kStoreBytesPerUsPerSm = 2.0e4;  // an epilogue's share of the store bandwidth
constexpr double kLaunchUs = 3.0;
constexpr uint64_t kNominalWorkspace = uint64_t{1} << 40;  // where the ranking pretends the workspace is

int64_t bytes_of(const TensorView& v) { return v.size() * codegen::bytes(v.dtype); }

}  // namespace

double estimate_gemm_us(const KernelMetadata& md, const GemmArguments& g, const GemmDevice& dev) {
  const Extents e = extents_of(g);
  if (e.M == 0 || e.N == 0 || e.L == 0) return kLaunchUs;
  const bool tensor = md.min_cc >= 90;
  const int tm = std::max(md.design.tile[0], 1), tn = std::max(md.design.tile[1], 1),
            tk = std::max(md.design.tile[2], 1);
  const int cs = std::max(1, md.design.cluster[0] * md.design.cluster[1] * md.design.cluster[2]);
  const double rate = peak_per_sm(g.A.dtype, tensor) * (tensor ? tile_efficiency(md) : 0.6);
  const int64_t tiles = ceil_div(e.M, tm) * ceil_div(e.N, tn) * e.L;
  const int64_t ktiles = std::max<int64_t>(1, ceil_div(e.K, tk));
  const bool beta = g.beta != 0;
  double compute_us = 0;
  if (tensor) {
    // A persistent grid: each CTA takes ceil(tiles / CTAs) tiles, one after another.
    const int64_t ctas = std::max<int64_t>(cs, dev.sm_count / cs * cs);
    const int64_t rounds = ceil_div(tiles, ctas);
    const double mainloop = static_cast<double>(ktiles) * 2.0 * tm * tn * tk / rate;
    const bool pingpong = md.options.count("schedule") && md.options.at("schedule") == "pingpong";
    const double epilogue = static_cast<double>(tm) * tn * codegen::bytes(g.out.dtype) * (beta ? 2 : 1) /
                            kStoreBytesPerUsPerSm * (pingpong ? 0.15 : 0.5);
    compute_us = static_cast<double>(rounds) * (mainloop + epilogue) + 1.0;  // + the pipeline's first fill
  } else {
    // One block per tile, a few resident per SM: the whole grid shares the SMs' CUDA cores.
    const double flops = 2.0 * static_cast<double>(e.M) * e.N * e.K * e.L;
    compute_us = flops / (rate * dev.sm_count);
  }
  const double dram_us =
      static_cast<double>(bytes_of(g.A) + bytes_of(g.B) + bytes_of(g.out) * (beta ? 2 : 1)) / kDramBytesPerUs;
  return std::max(compute_us, dram_us) + kLaunchUs;
}

GemmDevice gemm_device_in_use() {
  const rt::DeviceProperties& p = device_in_use();
  return {p.compute_capability(), p.sm_count};
}

std::string GemmChoice::describe() const {
  std::string s = kernel ? kernel->name() : "(none)";
  static const char* const names[] = {"A", "B", "C", "out"};
  std::string copies;
  for (int i = 0; i < 4; ++i)
    if (packed[static_cast<size_t>(i)]) copies += (copies.empty() ? "" : ", ") + std::string(names[i]);
  if (!copies.empty()) s += " (through the workspace: " + copies + ")";
  return s;
}

GemmRanking rank_gemm(const GemmArguments& args, const GemmDevice& dev) {
  GemmRanking r;
  const MetadataFilter gemms = [](const KernelMetadata& md) { return md.operation == Operation::Gemm; };
  const Extents e = extents_of(args);
  bool tensor_candidate = false;
  for (const KernelPtr& k : list_kernels(gemms, dev.cc)) {
    const KernelMetadata& md = k->metadata();
    GemmChoice c;
    c.kernel = k;
    const Status direct = k->supports(args);
    if (direct) {
      c.estimate_us = estimate_gemm_us(md, args, dev);
    } else {
      // Tensor-core kernels of the problem's types may take it after copies (packing.hpp).
      const std::optional<Packing> p = md.min_cc >= 90 ? plan_packing(md, args, kNominalWorkspace) : std::nullopt;
      if (!p) {
        r.refused.emplace_back(k->name(), direct.reason);
        continue;
      }
      const Status packed = k->supports(p->packed_args);
      if (!packed) {
        r.refused.emplace_back(k->name(), direct.reason + "; after copies into the workspace: " + packed.reason);
        continue;
      }
      c.packed = p->packed;
      c.workspace_bytes = p->workspace_bytes;
      c.estimate_us = estimate_gemm_us(md, p->packed_args, dev) +
                      static_cast<double>(p->copied_bytes + (kTransposeCopyFactor - 1) * p->transposed_bytes) * 2 /
                          kCopyBytesPerUs +
                      kLaunchUs * p->copies;
    }
    tensor_candidate = tensor_candidate || md.min_cc >= 90;
    std::ostringstream t;
    const int tm = md.design.tile[0], tn = md.design.tile[1], tk = std::max(md.design.tile[2], 1);
    t << ceil_div(e.M, std::max(tm, 1)) * ceil_div(e.N, std::max(tn, 1)) * e.L << " tiles of " << tm << "x" << tn
      << " on " << dev.sm_count << " SMs, " << ceil_div(e.K, tk) << " k-tiles each";
    if (c.any_packed()) t << ", " << c.workspace_bytes << " bytes copied through the workspace";
    t << ": about " << std::fixed;
    t.precision(1);
    t << c.estimate_us << " us";
    c.terms = t.str();
    r.ranked.push_back(std::move(c));
  }
  // The CUDA-core kernels never win on a device whose tensor cores take the types: they rank after
  // every tensor-core choice, whatever the model says (it is only a model).
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [&](const GemmChoice& a, const GemmChoice& b) {
    const bool ta = a.kernel->metadata().min_cc >= 90, tb = b.kernel->metadata().min_cc >= 90;
    if (tensor_candidate && ta != tb) return ta;
    return a.estimate_us < b.estimate_us;
  });
  return r;
}

}  // namespace tessel::kernels
