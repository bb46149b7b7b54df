// simt_gemm/host.cpp: the host side of the SIMT GEMM: what it supports, its launch plan, its
// metadata and its catalog class (the configurations it offers).
#include <cmath>
#include <limits>
#include <utility>

#include "common/gemm_c.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/kernels/simt_gemm.hpp"

namespace tessel::kernels {

using codegen::Type;

std::array<bool, 3> simt_gemm_dynamic_strides(Major major) {
  return {true, major != Major::Column, major != Major::Row};
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// A view as (L, rows, cols) with strides; rank 2 is one batch with a zero batch stride.
struct Matrix {
  std::array<int64_t, 3> shape{1, 1, 1}, stride{0, 0, 0};
};

Matrix as_matrix(const TensorView& v) {
  Matrix m;
  const int off = v.rank() == 2 ? 1 : 0;
  for (int i = 0; i < v.rank(); ++i) {
    m.shape[static_cast<size_t>(i + off)] = v.shape[static_cast<size_t>(i)];
    m.stride[static_cast<size_t>(i + off)] = v.stride[static_cast<size_t>(i)];
  }
  return m;
}

Status check_operand(const char* name, const TensorView& v, Type dtype, Major major, const char* row_name,
                     const char* col_name) {
  const std::string n = name;
  if (v.rank() != 2 && v.rank() != 3) {
    return Status::failure(n + " has rank " + str(v.rank()) + "; simt_gemm takes rank 3 (L, " + row_name + ", " +
                           col_name + ") or rank 2 (" + row_name + ", " + col_name + ")");
  }
  if (v.stride.size() != v.shape.size()) {
    return Status::failure(n + " has " + str(static_cast<int64_t>(v.stride.size())) + " strides for rank " +
                           str(v.rank()));
  }
  if (v.dtype != dtype) {
    return Status::failure(n + " is " + codegen::ptx_name(v.dtype) + "; this kernel takes " + codegen::ptx_name(dtype));
  }
  if (v.data % static_cast<uint64_t>(codegen::bytes(dtype)) != 0) {
    return Status::failure(n + " at " + v.to_string() + " is not aligned to its element size (" +
                           str(codegen::bytes(dtype)) + " bytes)");
  }
  const Matrix m = as_matrix(v);
  for (int i = 0; i < 3; ++i) {
    if (m.stride[static_cast<size_t>(i)] < 0) {
      return Status::failure(n + " has stride " + str(m.stride[static_cast<size_t>(i)]) + " in mode " + str(i) +
                             "; simt_gemm needs strides >= 0");
    }
  }
  // The major's mode has the static stride 1 in the kernel; an extent of 1 never multiplies it.
  const int unit = major == Major::Row ? 2 : major == Major::Column ? 1 : -1;
  if (unit >= 0 && m.shape[static_cast<size_t>(unit)] > 1 && m.stride[static_cast<size_t>(unit)] != 1) {
    return Status::failure(n + " has stride " + str(m.stride[static_cast<size_t>(unit)]) + " in " +
                           (unit == 2 ? col_name : row_name) + "; this kernel is " + major_name(major) + "-major for " +
                           n + " and needs stride 1 there (the simt_gemm kernels of major 'any' take any strides)");
  }
  return Status::success();
}

bool fits_accumulator(double v, Type acc) {
  if (acc != Type::S32) return std::isfinite(v);
  return v == std::floor(v) && v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

}  // namespace

Status simt_gemm_supports(const SimtGemmConfig& c, const GemmArguments& g) {
  if (g.split_k != 1)
    return Status::failure("split_k " + std::to_string(g.split_k) +
                           ": simt_gemm does not split K (1 only; the Hopper split-K kernels, named _sk, do)");
  if (g.stream_k_workers != 0)
    return Status::failure("stream_k_workers " + std::to_string(g.stream_k_workers) +
                           ": simt_gemm does not stream K (0 only; the Hopper stream-K kernels, named _streamk, do)");
  if (Status s = check_gemm_types(g, c.dtype, c.dtype); !s) return s;
  for (auto [name, view, major, r, cl] :
       {std::tuple{"A", &g.A, c.a_major, "M", "K"}, std::tuple{"B", &g.B, c.b_major, "K", "N"},
        std::tuple{"out", &g.out, c.out_major, "M", "N"}}) {
    if (Status s = check_operand(name, *view, c.dtype, major, r, cl); !s) return s;
  }
  // C: out's shape and type, any strides >= 0 (a batch stride of 0 broadcasts it, as for A and B).
  if (Status s = check_gemm_c(g, "simt_gemm"); !s) return s;
  if (Status s = check_operand("C", g.c(), c.dtype, Major::Any, "M", "N"); !s) return s;
  if (g.A.rank() != g.B.rank() || g.A.rank() != g.out.rank()) {
    return Status::failure("A, B and out have ranks " + str(g.A.rank()) + ", " + str(g.B.rank()) + " and " +
                           str(g.out.rank()) + "; simt_gemm needs one rank for all three");
  }
  const Matrix a = as_matrix(g.A), b = as_matrix(g.B), o = as_matrix(g.out);
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2], K = a.shape[2];
  if (a.shape[0] != L || b.shape[0] != L) {
    return Status::failure("batch sizes differ: A has L = " + str(a.shape[0]) + ", B " + str(b.shape[0]) + ", out " +
                           str(L));
  }
  if (a.shape[1] != M) return Status::failure("A has M = " + str(a.shape[1]) + ", out has M = " + str(M));
  if (b.shape[2] != N) return Status::failure("B has N = " + str(b.shape[2]) + ", out has N = " + str(N));
  if (b.shape[1] != K) return Status::failure("B has K = " + str(b.shape[1]) + ", A has K = " + str(K));
  if (L < 1 || M < 1 || N < 1 || K < 0) {
    return Status::failure("out is " + g.out.to_string() + "; simt_gemm needs L, M, N >= 1 and K >= 0");
  }
  for (int i = 1; i < 3; ++i) {
    if (o.shape[static_cast<size_t>(i)] > 1 && o.stride[static_cast<size_t>(i)] == 0) {
      return Status::failure("out has stride 0 in mode " + str(i) + " (extent " + str(o.shape[static_cast<size_t>(i)]) +
                             "): its elements would alias");
    }
  }
  if (L > 1 && o.stride[0] == 0)
    return Status::failure("out has batch stride 0 with L = " + str(L) + ": batches alias");
  if ((M + c.tile_m - 1) / c.tile_m > std::numeric_limits<int32_t>::max() || (N + c.tile_n - 1) / c.tile_n > 65535 ||
      L > 65535) {
    return Status::failure("the grid (ceil(M/" + str(c.tile_m) + "), ceil(N/" + str(c.tile_n) + "), L) for M = " +
                           str(M) + ", N = " + str(N) + ", L = " + str(L) + " exceeds (2^31-1, 65535, 65535)");
  }
  if (g.accumulator_type != c.accumulator()) {
    return Status::failure(std::string("accumulator ") + codegen::ptx_name(g.accumulator_type) +
                           " asked; this kernel accumulates in " + codegen::ptx_name(c.accumulator()));
  }
  if (!fits_accumulator(g.alpha, c.accumulator()) || !fits_accumulator(g.beta, c.accumulator())) {
    return Status::failure("alpha = " + std::to_string(g.alpha) + ", beta = " + std::to_string(g.beta) + ": " +
                           (c.accumulator() == Type::S32 ? "an s32 GEMM takes integer alpha and beta in int32"
                                                         : "alpha and beta must be finite"));
  }
  return Status::success();
}

codegen::LaunchPlan simt_gemm_plan(const SimtGemmConfig& c, const GemmArguments& g, codegen::Module module) {
  if (Status s = simt_gemm_supports(c, g); !s) fail(c.name() + " cannot run these arguments: " + s.reason);
  const Matrix a = as_matrix(g.A), b = as_matrix(g.B), o = as_matrix(g.out);
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2], K = a.shape[2];
  codegen::LaunchPlan p;
  p.module = std::move(module);
  p.kernel = c.name();
  p.grid = {static_cast<unsigned>((M + c.tile_m - 1) / c.tile_m), static_cast<unsigned>((N + c.tile_n - 1) / c.tile_n),
            static_cast<unsigned>(L)};
  p.block = {static_cast<unsigned>(c.threads()), 1, 1};
  const Matrix cm = as_matrix(g.c());
  p.arg(g.A.data).arg(g.B.data).arg(g.out.data).arg(g.c().data).arg(L).arg(M).arg(N).arg(K);
  // The order of the generator's parameters: each operand's (L, rows, cols) strides but the static
  // (C's are all parameters).
  for (auto [m, major] : {std::pair{&a, c.a_major}, std::pair{&b, c.b_major}, std::pair{&o, c.out_major},
                          std::pair{&cm, Major::Any}}) {
    const std::array<bool, 3> dyn = simt_gemm_dynamic_strides(major);
    for (size_t i = 0; i < 3; ++i) {
      if (dyn[i]) p.arg(m->stride[i]);
    }
  }
  switch (c.accumulator()) {
    case Type::F64:
      p.arg(g.alpha).arg(g.beta);
      break;
    case Type::F32:
      p.arg(static_cast<float>(g.alpha)).arg(static_cast<float>(g.beta));
      break;
    default:
      p.arg(static_cast<int32_t>(g.alpha)).arg(static_cast<int32_t>(g.beta));
      break;
  }
  return p;
}

KernelMetadata simt_gemm_metadata(const SimtGemmConfig& c) {
  KernelMetadata md;
  md.name = c.name();
  md.kernel_class = "simt_gemm";
  md.operation = Operation::Gemm;
  md.operands = {{"A", c.dtype, c.a_major, 1}, {"B", c.dtype, c.b_major, 1}, {"out", c.dtype, c.out_major, 1}};
  md.accumulator = c.accumulator();
  md.design.tile = {c.tile_m, c.tile_n, c.tile_k};
  md.design.threads = c.threads();
  md.min_cc = 80;
  md.epilogue = Epilogue::LinearCombination;
  md.options = simt_gemm_options(c);
  return md;
}

namespace {

class SimtGemm : public Kernel {
 public:
  explicit SimtGemm(const SimtGemmConfig& c) : SimtGemm(c, simt_gemm_metadata(c)) {}
  SimtGemm(const SimtGemmConfig& c, KernelMetadata md) : Kernel(std::move(md)), config_(c) {}

  Status supports(const Arguments& args) const override {
    const auto* g = std::get_if<GemmArguments>(&args);
    if (!g) return Status::failure(name() + " runs GEMM arguments, not " + operation_name(operation_of(args)));
    return simt_gemm_supports(config_, *g);
  }
  codegen::Module generate(const Arguments&) const override { return simt_gemm(config_); }
  codegen::Module generate() const override { return simt_gemm(config_); }
  codegen::LaunchPlan plan(const Arguments& args, const Artifact& artifact, const LaunchTarget&) const override {
    const auto* g = std::get_if<GemmArguments>(&args);
    if (!g) fail(name() + " runs GEMM arguments, not " + operation_name(operation_of(args)));
    return simt_gemm_plan(config_, *g, artifact.module);
  }
  codegen::LaunchPlan plan_for_launch(const Arguments& args, const Artifact&, const LaunchTarget&) const override {
    const auto* g = std::get_if<GemmArguments>(&args);
    if (!g) fail(name() + " runs GEMM arguments, not " + operation_name(operation_of(args)));
    return simt_gemm_plan(config_, *g, codegen::Module{});
  }

 private:
  SimtGemmConfig config_;
};

}  // namespace

std::string SimtGemmClass::description() const {
  return "portable GEMM on CUDA cores: shared-memory tiles, a micro-tile per thread, any strides (sm_80)";
}

std::vector<SimtGemmConfig> SimtGemmClass::configurations() {
  struct Tile {
    int m, n, k, tm, tn;
  };
  const Tile tiles[] = {{128, 128, 8, 8, 8}, {64, 64, 8, 4, 4}, {32, 32, 8, 2, 2}};
  const Type types[] = {Type::F64, Type::F32, Type::F16, Type::BF16, Type::S32};
  std::vector<SimtGemmConfig> out;
  for (Type t : types) {
    for (const Tile& tile : tiles) {
      SimtGemmConfig c;
      c.dtype = t;
      c.tile_m = tile.m;
      c.tile_n = tile.n;
      c.tile_k = tile.k;
      c.thread_m = tile.tm;
      c.thread_n = tile.tn;
      for (Major a : {Major::Row, Major::Column}) {
        for (Major b : {Major::Row, Major::Column}) {
          for (Major o : {Major::Row, Major::Column}) {
            c.a_major = a;
            c.b_major = b;
            c.out_major = o;
            out.push_back(c);
          }
        }
      }
      c.a_major = c.b_major = c.out_major = Major::Any;
      out.push_back(c);
    }
  }
  return out;
}

std::vector<KernelPtr> SimtGemmClass::generate_kernels(const MetadataFilter& filter, std::optional<Epilogue> epilogue,
                                                       std::optional<int> cc) const {
  std::vector<KernelPtr> out;
  for (const SimtGemmConfig& c : configurations()) {
    KernelMetadata md = simt_gemm_metadata(c);  // once per configuration
    if (admits(md, filter, epilogue, cc)) out.push_back(std::make_shared<SimtGemm>(c, std::move(md)));
  }
  return out;
}

namespace {

// A major as an option value: the operand's unit-stride mode. A (M, K) row-major is K-major;
// B (K, N) row-major is N-major; out (M, N) row-major is N-major.
const char* major_option(Major m, const char* row, const char* col) {
  return m == Major::Row ? row : m == Major::Column ? col : "any";
}
Major parse_major_option(const std::string& v, const char* row) {
  return v == row ? Major::Row : v == "any" ? Major::Any : Major::Column;
}

}  // namespace

SimtGemmConfig simt_gemm_config(const Options& o) {
  SimtGemmConfig c;
  c.dtype = codegen::parse_type(o.at("dtype"));
  c.a_major = parse_major_option(o.at("a-major"), "k");
  c.b_major = parse_major_option(o.at("b-major"), "n");
  c.out_major = parse_major_option(o.at("out-major"), "n");
  c.tile_m = static_cast<int>(parse_integer("tile-m", o.at("tile-m"), 1, 1024));
  c.tile_n = static_cast<int>(parse_integer("tile-n", o.at("tile-n"), 1, 1024));
  c.tile_k = static_cast<int>(parse_integer("tile-k", o.at("tile-k"), 1, 1024));
  c.thread_m = static_cast<int>(parse_integer("thread-m", o.at("thread-m"), 1, 64));
  c.thread_n = static_cast<int>(parse_integer("thread-n", o.at("thread-n"), 1, 64));
  return c;
}

Options simt_gemm_options(const SimtGemmConfig& c) {
  return {{"dtype", codegen::ptx_name(c.dtype)},
          {"a-major", major_option(c.a_major, "k", "m")},
          {"b-major", major_option(c.b_major, "n", "k")},
          {"out-major", major_option(c.out_major, "n", "m")},
          {"tile-m", std::to_string(c.tile_m)},
          {"tile-n", std::to_string(c.tile_n)},
          {"tile-k", std::to_string(c.tile_k)},
          {"thread-m", std::to_string(c.thread_m)},
          {"thread-n", std::to_string(c.thread_n)}};
}

std::vector<OptionSpec> SimtGemmClass::options() const {
  return {{"dtype", {"f32", "f64", "f16", "bf16", "s32"}, "A, B and out (accumulated in f32, f64 or s32)"},
          {"a-major", {"k", "m", "any"}, "A's unit-stride mode: k (row-major A), m, or any (every stride a parameter)"},
          {"b-major", {"n", "k", "any"}, "B's unit-stride mode: n (row-major B), k, or any"},
          {"out-major", {"n", "m", "any"}, "out's unit-stride mode: n (row-major out), m, or any"},
          {"tile-m", {"64", "128", "32"}, "rows of out per block"},
          {"tile-n", {"64", "128", "32"}, "columns of out per block"},
          {"tile-k", {"8", "16", "4"}, "K per shared-memory step"},
          {"thread-m", {"4", "8", "2", "1"}, "rows of out per thread"},
          {"thread-n", {"4", "8", "2", "1"}, "columns of out per thread"}};
}

KernelPtr SimtGemmClass::configure(const Options& options) const {
  const SimtGemmConfig c = simt_gemm_config(options);
  c.check();
  return std::make_shared<SimtGemm>(c);
}

}  // namespace tessel::kernels
