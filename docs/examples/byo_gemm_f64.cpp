// byo_gemm_f64.cpp: see byo_gemm_f64.hpp. Everything here is user code: it includes tessel's
// public headers only and registers its class with a static RegisterKernelClass object.
#include "byo_gemm_f64.hpp"

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"

namespace byo {

using namespace tessel;
using namespace tessel::codegen;
using kernels::Major;

namespace {

const char* letter(Major m) { return m == Major::Row ? "r" : "c"; }

// An operand's strides (L, rows, cols) as the kernel sees them: the major's stride is the static
// 1, the others are parameters (declared here, in this order: the host passes them the same way).
std::array<Int, 3> strides(KernelBuilder& b, const std::string& op, Major major) {
  auto param = [&](const char* mode) {
    const std::string name = "s" + op + "_" + mode;
    return b.symbol(name, b.param(name, Type::S64), 1, 0);
  };
  const Int l = param("l");
  if (major == Major::Row) return {l, param("r"), Int(1)};
  return {l, Int(1), param("c")};
}

}  // namespace

std::string GemmF64Config::name() const {
  return "byo_gemm_f64_" + std::to_string(tile_m) + "x" + std::to_string(tile_n) + "x1_" + letter(a) + letter(b) +
         letter(out);
}

Module byo_gemm_f64(const GemmF64Config& c) {
  KernelBuilder b(c.name());
  b.kernel().reqntid = std::array<int, 3>{c.tile_m * c.tile_n, 1, 1};
  Value pa = b.global_pointer_param("A"), pb = b.global_pointer_param("B"), po = b.global_pointer_param("out");
  Value vL = b.param("L", Type::S64), vM = b.param("M", Type::S64), vN = b.param("N", Type::S64),
        vK = b.param("K", Type::S64);
  const Int L = b.symbol("L", vL, 1, 1), M = b.symbol("M", vM, 1, 1), N = b.symbol("N", vN, 1, 1),
            K = b.symbol("K", vK, 1, 0);
  const std::array<Int, 3> sa = strides(b, "a", c.a), sb = strides(b, "b", c.b), so = strides(b, "o", c.out);
  Value alpha = b.param("alpha", Type::F64), beta = b.param("beta", Type::F64);

  // The operands as (rows, cols, L) tensors: modes in the order the tile divides them.
  const Tensor A(pa, Space::Global, Type::F64, make_layout(IntTuple{M, K, L}, IntTuple{sa[1], sa[2], sa[0]}));
  const Tensor B(pb, Space::Global, Type::F64, make_layout(IntTuple{K, N, L}, IntTuple{sb[1], sb[2], sb[0]}));
  const Tensor O(po, Space::Global, Type::F64, make_layout(IntTuple{M, N, L}, IntTuple{so[1], so[2], so[0]}));

  // Block (bm, bn, l) owns tile (bm, bn) of batch l; thread tid owns element (tm, tn) of the tile.
  const Tiler tile = Tiler::from_shape(IntTuple{c.tile_m, c.tile_n});
  const Coord t = idx2crd(b.thread_index(0), IntTuple{c.tile_m, c.tile_n});
  const Coord mine{t, IntTuple{b.block_index(0), b.block_index(1), b.block_index(2)}};
  // The same division of the identity layout gives the element's (m, n, l), for the ragged edges.
  const IntTuple mnl = zipped_divide(make_identity_layout(IntTuple{M, N, L}), tile)(mine);
  const Int m = mnl[0].leaf(), n = mnl[1].leaf(), l = mnl[2].leaf();
  Value inside = (b.lower(m, Type::S64) < vM) & (b.lower(n, Type::S64) < vN);

  b.if_(inside, [&] {
    const Tensor a_row = A(SliceCoord{m, _, l});  // (K): row m of A
    const Tensor b_col = B(SliceCoord{_, n, l});  // (K): column n of B
    Value acc = b.constant_f64(0.0);
    b.for_range(b.constant(0, Type::S64), vK, 1, [&](Value kv) {
      const Int k = b.symbol("k", kv, 1, 0);
      Value x = b.load(Space::Global, Type::F64, b.address(a_row, Coord{k}))[0];
      Value y = b.load(Space::Global, Type::F64, b.address(b_col, Coord{k}))[0];
      b.assign(acc, b.mad(x, y, acc));
    });
    Value result = alpha * acc;
    Value addr = b.address(O.zipped_divide(tile), mine);
    b.if_(beta != b.constant_f64(0.0), [&] {  // beta == 0: out is only written (it may hold NaNs)
      Value old = b.load(Space::Global, Type::F64, addr)[0];
      b.assign(result, b.mad(beta, old, result));
    });
    b.store(Space::Global, Type::F64, addr, {result});
  });
  Module mod;
  mod.kernels.push_back(b.finish());
  return mod;
}

// --- The catalog side: metadata, supports, the launch plan --------------------------------------

namespace {

kernels::KernelMetadata make_metadata(const GemmF64Config& c) {
  kernels::KernelMetadata md;
  md.name = c.name();
  md.kernel_class = "byo_gemm_f64";
  md.operation = kernels::Operation::Gemm;
  md.operands = {{"A", Type::F64, c.a, 1}, {"B", Type::F64, c.b, 1}, {"out", Type::F64, c.out, 1}};
  md.accumulator = Type::F64;
  md.design.tile = {c.tile_m, c.tile_n, 1};
  md.design.threads = c.tile_m * c.tile_n;
  md.min_cc = 80;
  md.epilogue = kernels::Epilogue::LinearCombination;
  return md;
}

class GemmF64 : public kernels::Kernel {
 public:
  explicit GemmF64(const GemmF64Config& c) : Kernel(make_metadata(c)), c_(c) {}

  kernels::Status supports(const kernels::Arguments& args) const override {
    using kernels::Status;
    const auto* g = std::get_if<kernels::GemmArguments>(&args);
    if (!g) return Status::failure("byo_gemm_f64 runs GEMM arguments");
    const std::tuple<const char*, const kernels::TensorView*, Major, const char*> ops[] = {
        {"A", &g->A, c_.a, "(L, M, K)"}, {"B", &g->B, c_.b, "(L, K, N)"}, {"out", &g->out, c_.out, "(L, M, N)"}};
    for (const auto& [name, v, major, modes] : ops) {
      const std::string n = name;
      if (v->rank() != 3 || v->stride.size() != 3) {
        return Status::failure(n + " has rank " + std::to_string(v->rank()) + "; this kernel needs rank 3 " + modes);
      }
      if (v->dtype != Type::F64) return Status::failure(n + " is " + ptx_name(v->dtype) + "; this kernel takes f64");
      for (int64_t s : v->stride) {
        if (s < 0) return Status::failure(n + " has a negative stride; this kernel needs strides >= 0");
      }
      const size_t unit = major == Major::Row ? 2 : 1;
      if (v->shape[unit] > 1 && v->stride[unit] != 1) {
        return Status::failure(n + " has stride " + std::to_string(v->stride[unit]) + " in mode " +
                               std::to_string(unit) + "; this kernel is " + kernels::major_name(major) +
                               "-major there and needs stride 1");
      }
    }
    const auto &a = g->A.shape, &b = g->B.shape, &o = g->out.shape;
    if (a[0] != o[0] || b[0] != o[0] || a[1] != o[1] || b[2] != o[2] || a[2] != b[1]) {
      return Status::failure("shapes A " + g->A.to_string() + ", B " + g->B.to_string() + ", out " +
                             g->out.to_string() + " are not (L, M, K) x (L, K, N) -> (L, M, N)");
    }
    if (o[0] < 1 || o[1] < 1 || o[2] < 1 || o[0] > 65535 || (o[2] + c_.tile_n - 1) / c_.tile_n > 65535) {
      return Status::failure("out " + g->out.to_string() + ": L, M, N >= 1, L and N / tile_n <= 65535");
    }
    if (g->accumulator_type != Type::F64) return Status::failure("this kernel accumulates in f64");
    // This kernel reads C from out's memory: a C of its own (GemmArguments::C) would be ignored.
    if (g->distinct_c() && g->beta != 0)
      return Status::failure("C " + g->C->to_string() + " is not out; this kernel adds beta * out (C == out only)");
    return Status::success();
  }

  Module generate(const kernels::Arguments&) const override { return byo_gemm_f64(c_); }

  LaunchPlan plan(const kernels::Arguments& args, const kernels::Artifact& artifact,
            const kernels::LaunchTarget&) const override {
    const auto& g = std::get<kernels::GemmArguments>(args);
    const int64_t L = g.out.shape[0], M = g.out.shape[1], N = g.out.shape[2], K = g.A.shape[2];
    LaunchPlan p;
    p.module = artifact.module;
    p.kernel = name();
    p.grid = {unsigned((M + c_.tile_m - 1) / c_.tile_m), unsigned((N + c_.tile_n - 1) / c_.tile_n), unsigned(L)};
    p.block = {unsigned(c_.tile_m * c_.tile_n), 1, 1};
    p.arg(g.A.data).arg(g.B.data).arg(g.out.data).arg(L).arg(M).arg(N).arg(K);
    // The strides in the order strides() declared them: L, then the one the major leaves dynamic.
    for (auto [v, major] : {std::pair{&g.A, c_.a}, std::pair{&g.B, c_.b}, std::pair{&g.out, c_.out}}) {
      p.arg(v->stride[0]).arg(v->stride[major == Major::Row ? 1 : 2]);
    }
    p.arg(g.alpha).arg(g.beta);
    return p;
  }

 private:
  GemmF64Config c_;
};

}  // namespace

std::vector<kernels::KernelPtr> GemmF64Class::generate_kernels(const kernels::MetadataFilter& filter,
                                                               std::optional<kernels::Epilogue> epilogue,
                                                               std::optional<int> cc) const {
  std::vector<kernels::KernelPtr> out;
  for (int tile : {32, 16}) {
    for (Major a : {Major::Row, Major::Column}) {
      for (Major b : {Major::Row, Major::Column}) {
        for (Major o : {Major::Row, Major::Column}) {
          const GemmF64Config c{tile, tile, a, b, o};
          if (kernels::admits(make_metadata(c), filter, epilogue, cc)) out.push_back(std::make_shared<GemmF64>(c));
        }
      }
    }
  }
  return out;
}

// Registration from user code: discovered by get_kernels like tessel's own kernels.
static const tessel::kernels::RegisterKernelClass<GemmF64Class> registered;

}  // namespace byo
