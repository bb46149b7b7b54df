// gemm_moved_launches_test.cpp: the one-call GEMM's launches moved to other addresses
// (kernels/src/gemm/bound.hpp) against the launches made from scratch for those addresses, byte for
// byte, on the stand-in driver: every kind of step and parameter that holds an address (TMA
// descriptors of A, B, out and C, C's views in lines, copies through the workspace, split-K's and
// stream-K's workspace, the CUDA-core kernel's pointers), and the cases that must be made again.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "algebra/support.hpp"
#include "emulated_gemm.hpp"
#include "gemm/bound.hpp"
#include "stand_in.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::Bound;
using kernels::GemmArguments;
using kernels::matrix_view;
using kernels::TensorView;
using test::StandIn;

namespace {

// Buffers for the operands of `layout`, each at its own allocation plus `residue` bytes (the
// residue of the layout's own address: the shape key's), so that each call has new addresses.
struct Placed {
  std::vector<rt::DeviceBuffer> buffers;
  GemmArguments args;
};
Placed place(const GemmArguments& layout, bool own_c, std::mt19937_64& rng) {
  Placed p;
  p.args = layout;
  // Whole granules of slack before each operand: an address 16 * j further keeps its residue.
  auto put = [&](TensorView& v) {
    const uint64_t residue = v.data % 16, slack = 16 * (rng() % 64);
    p.buffers.emplace_back(static_cast<size_t>(v.span_bytes()) + 16 + slack);
    v.data = p.buffers.back().ptr() + slack + residue;
  };
  put(p.args.A);
  put(p.args.B);
  put(p.args.out);
  if (own_c) put(*p.args.C);
  else if (p.args.C) p.args.C->data = p.args.out.data;
  return p;
}

// The parameters of `launches` as the stand-in records them when they are queued.
std::vector<std::vector<std::vector<std::byte>>> recorded(const std::vector<kernels::ReadyLaunch>& launches) {
  StandIn& s = StandIn::get();
  s.reset();
  for (const kernels::ReadyLaunch& l : launches) kernels::launch_ready(l);
  std::vector<std::vector<std::vector<std::byte>>> params;
  for (const TesselStandInLaunch& l : s.launches()) params.push_back(StandIn::params(l));
  return params;
}

struct Case {
  const char* what;
  GemmArguments layout;  // addresses: only their residues count
  bool own_c = false;    // C a tensor of its own (else out, where given)
};

GemmArguments with_c(GemmArguments g, TensorView c, double alpha, double beta) {
  g.C = std::move(c);
  g.alpha = alpha;
  g.beta = beta;
  return g;
}

std::vector<Case> cases() {
  auto gemm = [](TensorView a, TensorView b, TensorView o) { return kernels::make_gemm_arguments(a, b, o); };
  std::vector<Case> c;
  c.push_back({"bf16, A and B K-major, row-major out (A, B and out by the TMA)",
               gemm(matrix_view(Type::BF16, 0, 256, 256, true), matrix_view(Type::BF16, 0, 256, 256, false),
                    matrix_view(Type::BF16, 0, 256, 256, true))});
  c.push_back({"A's rows 1554 bytes apart (A copied into the workspace, then the GEMM)",
               gemm(matrix_view(Type::BF16, 0, 1000, 777, true), matrix_view(Type::BF16, 0, 777, 3000, false),
                    matrix_view(Type::BF16, 0, 1000, 3000, true))});
  c.push_back({"out's rows odd (out through the workspace and copied back)",
               gemm(matrix_view(Type::BF16, 0, 300, 128, true), matrix_view(Type::BF16, 0, 128, 301, false),
                    matrix_view(Type::BF16, 0, 300, 301, true))});
  c.push_back({"issue 18's row 28: column-major out, a row-major C of its own read in lines (G = 2)",
               with_c(gemm(matrix_view(Type::BF16, 0, 2000, 1000, true), matrix_view(Type::BF16, 0, 1000, 1500, false),
                           matrix_view(Type::BF16, 0, 2000, 1500, false)),
                      matrix_view(Type::BF16, 0, 2000, 1500, true), 0.5, 2.0),
               true});
  {
    TensorView cv = matrix_view(Type::BF16, 0, 200, 300, true, 303);
    cv.data = 6;  // 6 bytes past a granule, rows 606 bytes apart: G = 8 views
    c.push_back({"a C 6 bytes past a granule with odd rows (8 views in lines)",
                 with_c(gemm(matrix_view(Type::BF16, 0, 200, 64, true), matrix_view(Type::BF16, 0, 64, 300, false),
                             matrix_view(Type::BF16, 0, 200, 300, true)),
                        cv, 1.0, 1.0),
                 true});
  }
  {
    GemmArguments g = gemm(matrix_view(Type::BF16, 0, 256, 4096, true), matrix_view(Type::BF16, 0, 4096, 256, false),
                           matrix_view(Type::BF16, 0, 256, 256, true));
    g.split_k = 3;
    c.push_back({"split-K x 3 (partial tiles in the workspace)", g});
  }
  {
    GemmArguments g = gemm(matrix_view(Type::BF16, 0, 512, 1024, true), matrix_view(Type::BF16, 0, 1024, 640, false),
                           matrix_view(Type::BF16, 0, 512, 640, true));
    g.stream_k_workers = 132;
    c.push_back({"stream-K on 132 CTAs", g});
  }
  c.push_back({"f64 on the CUDA cores (pointer parameters only)",
               gemm(matrix_view(Type::F64, 0, 64, 48, true), matrix_view(Type::F64, 0, 48, 80, true),
                    matrix_view(Type::F64, 0, 64, 80, true))});
  c.push_back({"3 batches of A against one B (B's batch stride 0)",
               gemm(matrix_view(Type::BF16, 3, 128, 64, true), matrix_view(Type::BF16, 3, 64, 192, false, 0, 0),
                    matrix_view(Type::BF16, 3, 128, 192, true))});
  c.push_back({"tf32 with an M-major A (through registers), column-major out, beta 1",
               with_c(gemm(matrix_view(Type::F32, 0, 256, 128, false), matrix_view(Type::F32, 0, 128, 192, false),
                           matrix_view(Type::F32, 0, 256, 192, false)),
                      matrix_view(Type::F32, 0, 256, 192, false), 1.0, 1.0),
               true});
  return c;
}

}  // namespace

// The stand-in's memory and descriptors are the emulator's here, as in the other GEMM host-path
// tests: the one-call GEMM's workspace, which any of them may grow, stays in one kind of memory.
TEST_CASE("host path: a GEMM's launches moved to new addresses are the launches made for them") {
  StandIn::get();
  const StandIn::Emulated hooks(test::EmulatedGemm::memory());
  TESSEL_RNG(rng);
  for (const Case& k : cases()) {
    INFO(std::string(k.what));
    const Placed first = place(k.layout, k.own_c, rng);
    CHECK(first.args.distinct_c() == k.own_c);
    const kernels::GemmChoice& choice = kernels::gemm(first.args);
    INFO(choice.describe());
    rt::DeviceBuffer w0(std::max<size_t>(choice.workspace_bytes, 1)), w1(std::max<size_t>(choice.workspace_bytes, 1));
    const uint64_t ws0 = choice.workspace_bytes ? w0.ptr() : 0, ws1 = choice.workspace_bytes ? w1.ptr() : 0;
    const std::shared_ptr<const Bound> bound = kernels::bind_gemm(choice, first.args, ws0);
    REQUIRE(bound->relocations != nullptr);
    CHECK(!bound->relocations->moves.empty());
    for (int round = 0; round < 3; ++round) {
      const Placed next = place(k.layout, k.own_c, rng);
      const std::shared_ptr<const Bound> moved = kernels::move_gemm(*bound, next.args, round % 2 ? ws0 : ws1);
      REQUIRE(moved != nullptr);
      const uint64_t ws = round % 2 ? ws0 : ws1;
      const auto fresh = recorded(kernels::ready_gemm_launches(choice, next.args, ws));
      const auto got = recorded(moved->launches);
      const std::vector<kernels::GemmStep> steps = kernels::gemm_steps(choice, next.args, ws);
      REQUIRE(got.size() == fresh.size());
      REQUIRE(got.size() == steps.size());
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("launch " << i << ": " << steps[i].what);
        const kernels::Artifact& a = steps[i].kernel->artifact_for(steps[i].args);
        const auto entry = std::find_if(a.module.kernels.begin(), a.module.kernels.end(),
                                        [&](const codegen::Kernel& e) { return e.name == a.kernel; });
        REQUIRE(entry != a.module.kernels.end());
        REQUIRE(got[i].size() == fresh[i].size());
        REQUIRE(got[i].size() == entry->params.size());
        for (size_t j = 0; j < got[i].size(); ++j) {
          INFO("parameter " << j << ": " << entry->params[j].name);
          // Split-K's and stream-K's launch id: each plan draws its own (the counters' tag).
          if (entry->params[j].name != "launch") CHECK(got[i][j] == fresh[i][j]);
        }
      }
    }
  }
}

TEST_CASE("host path: GEMM launches are made again where moving them would be wrong") {
  StandIn::get();
  const StandIn::Emulated hooks(test::EmulatedGemm::memory());
  const int64_t n = 256;
  rt::DeviceBuffer x(n * n * 2), y(n * n * 2), o(2 * n * n * 2), o2(n * n * 2);
  // A and B one buffer (X X^T), then two.
  GemmArguments g = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, n, n, true), matrix_view(Type::BF16, 0, n, n, false),
                                                 matrix_view(Type::BF16, 0, n, n, true));
  g.A.data = g.B.data = x.ptr();
  g.out.data = o.ptr();
  const kernels::GemmChoice& choice = kernels::gemm(g);
  const std::shared_ptr<const Bound> bound = kernels::bind_gemm(choice, g, 0);
  REQUIRE(bound->relocations != nullptr);
  GemmArguments apart = g;
  apart.B.data = y.ptr();
  CHECK(kernels::move_gemm(*bound, apart, 0) == nullptr);
  GemmArguments together = g;
  together.A.data = together.B.data = y.ptr();
  together.out.data = o2.ptr();
  CHECK(kernels::move_gemm(*bound, together, 0) != nullptr);
  // Another alpha.
  GemmArguments scaled = together;
  scaled.alpha = 0.5;
  CHECK(kernels::move_gemm(*bound, scaled, 0) == nullptr);
  // A C of its own that the new addresses put half over out: bound again, which refuses it.
  GemmArguments c = kernels::make_gemm_arguments(matrix_view(Type::BF16, 0, n, n, true), matrix_view(Type::BF16, 0, n, n, false),
                                                 matrix_view(Type::BF16, 0, n, n, true), matrix_view(Type::BF16, 0, n, n, true),
                                                 1.0, 1.0);
  c.A.data = x.ptr();
  c.B.data = y.ptr();
  c.out.data = o.ptr();
  c.C->data = o.ptr() + n * n * 2;
  const std::shared_ptr<const Bound> with_c = kernels::bind_gemm(kernels::gemm(c), c, 0);
  REQUIRE(with_c->relocations != nullptr);
  GemmArguments overlapping = c;
  overlapping.C->data = o.ptr() + n * 2 * 64;
  CHECK(kernels::move_gemm(*with_c, overlapping, 0) == nullptr);
  CHECK_THROWS_WITH_AS(kernels::gemm(overlapping), doctest::Contains("overlap"), Error);
}
