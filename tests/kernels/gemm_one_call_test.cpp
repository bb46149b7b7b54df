// gemm_one_call_test.cpp: the one-call GEMM's choice (kernels/gemm.hpp) and its runs in the
// emulator: problems the tensor cores cannot take as they lie (odd leading dimensions, tf32 and
// fp8 operands that are not K-major, an unaligned column-major out with beta, a distinct unaligned
// C, broadcast batches) reach a Hopper kernel through copies, and match the f64 reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "algebra/support.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/testing/kernel_run.hpp"

using namespace tessel;
using codegen::Type;
using kernels::TensorView;
using kernels::matrix_view;

namespace {

const kernels::GemmDevice kH100{90, 132};

// Arguments on these layouts at distinct 16-byte-aligned addresses (A, B, out, then C), as the
// caller's buffers would lie; alpha 1, beta 0.
kernels::GemmArguments placed(const TensorView& a, const TensorView& b, const TensorView& out,
                              const std::optional<TensorView>& c = std::nullopt) {
  kernels::GemmArguments g;
  g.A = a;
  g.B = b;
  g.out = out;
  g.C = c;
  g.A.data = uint64_t{1} << 32;
  g.B.data = uint64_t{2} << 32;
  g.out.data = uint64_t{3} << 32;
  if (g.C) g.C->data = uint64_t{4} << 32;
  return g;
}

kernels::GemmChoice best(const kernels::GemmArguments& g, const kernels::GemmDevice& dev = kH100) {
  const kernels::GemmRanking r = kernels::rank_gemm(g, dev);
  REQUIRE(!r.ranked.empty());
  return r.ranked.front();
}

}  // namespace

TEST_CASE("gemm: the one-call choice takes aligned operands as they lie, on the tensor cores") {
  const kernels::GemmArguments g = kernels::make_gemm_arguments(
      matrix_view(Type::BF16, 0, 4096, 4096, true, 4096), matrix_view(Type::BF16, 0, 4096, 4096, true, 4096),
      matrix_view(Type::BF16, 0, 4096, 4096, true, 4096));
  const kernels::GemmChoice c = best(g);
  INFO(c.describe() << ": " << c.terms);
  CHECK(c.kernel->metadata().kernel_class == "hopper_gemm");
  CHECK_FALSE(c.any_packed());
  CHECK(c.workspace_bytes == 0);
  // get_kernels ranks by the same model: the same kernel first.
  const std::vector<kernels::KernelPtr> found = kernels::get_kernels(g, {}, 90);
  REQUIRE(!found.empty());
  CHECK(found.front()->metadata().min_cc >= 90);
  // On an sm_80 device the CUDA-core kernel is what runs.
  CHECK(best(g, {80, 108}).kernel->metadata().kernel_class == "simt_gemm");
}

TEST_CASE("gemm: the one-call choice copies what the tensor cores cannot read, and says so") {
  // Odd K: A's rows are 1554 bytes, not a multiple of 16.
  const kernels::GemmArguments odd = kernels::make_gemm_arguments(
      matrix_view(Type::BF16, 0, 1000, 777, true, 777), matrix_view(Type::BF16, 0, 777, 3000, true, 3000),
      matrix_view(Type::BF16, 0, 1000, 3000, true, 3000));
  kernels::GemmChoice c = best(odd);
  INFO(c.describe());
  CHECK(c.kernel->metadata().kernel_class == "hopper_gemm");
  CHECK(c.packed == std::array<bool, 4>{true, false, false, false});
  CHECK(c.describe().find("(through the workspace: A)") != std::string::npos);
  // An N-major B with 3000-byte rows: its rows are padded in its own major (a kernel that reads B
  // N-major), not transposed into a K-major copy, which reads across B's rows; both would run.
  const kernels::GemmArguments odd_b = kernels::make_gemm_arguments(
      matrix_view(Type::BF16, 0, 2000, 1000, true, 1000), matrix_view(Type::BF16, 0, 1000, 1500, true, 1500),
      matrix_view(Type::BF16, 0, 2000, 1500, false, 2000), 0.5, 2.0);
  c = best(odd_b);
  INFO(c.describe() << ": " << c.terms);
  CHECK(c.packed == std::array<bool, 4>{false, true, false, false});
  CHECK(c.kernel->metadata().operand("B").major == kernels::Major::Row);  // (K, N) row-major: N-major
  // tf32 with an N-major B: wgmma reads tf32 K-major only.
  const kernels::GemmArguments tf32 = kernels::make_gemm_arguments(
      matrix_view(Type::F32, 0, 3000, 3000, true, 3000), matrix_view(Type::F32, 0, 3000, 3000, true, 3000),
      matrix_view(Type::F32, 0, 3000, 3000, true, 3000));
  c = best(tf32);
  CHECK(c.kernel->metadata().kernel_class == "hopper_gemm");
  CHECK(c.packed[kernels::kPackB]);
  CHECK_FALSE(c.packed[kernels::kPackA]);
  // Integers have no tensor-core kernel here: the CUDA cores, and no copy.
  const kernels::GemmArguments s32 = kernels::make_gemm_arguments(
      matrix_view(Type::S32, 0, 64, 64, true, 64), matrix_view(Type::S32, 0, 64, 64, true, 64), matrix_view(Type::S32, 0, 64, 64, true, 64));
  CHECK(best(s32).kernel->metadata().kernel_class == "simt_gemm");
  // Nothing runs bf16 in with s32 out: every kernel refuses, with its reason.
  const kernels::GemmArguments none = kernels::make_gemm_arguments(
      matrix_view(Type::BF16, 0, 64, 64, true, 64), matrix_view(Type::BF16, 0, 64, 64, true, 64), matrix_view(Type::S32, 0, 64, 64, true, 64));
  const kernels::GemmRanking r = kernels::rank_gemm(none, kH100);
  CHECK(r.ranked.empty());
  CHECK(r.refused.size() > 400);
}

TEST_CASE("gemm: one-call choices through copies match the host in the emulator") {
  TESSEL_RNG(rng);
  const std::unique_ptr<kernels::Machine> emulator = kernels::emulator_machine();
  auto check = [&](const char* what, const TensorView& a, const TensorView& b, const TensorView& out,
                   std::optional<TensorView> c, double alpha, double beta, std::array<bool, 4> expect_packed,
                   uint64_t c_offset = 0) {
    INFO(what);
    const kernels::GemmProblem p = kernels::make_gemm_problem(a, b, out, c, alpha, beta, rng);
    // The choice for these layouts at aligned addresses (C's off them by c_offset), as tessel::gemm makes it.
    const kernels::GemmChoice choice = best(p.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32,
                                                        (uint64_t{4} << 32) + c_offset));
    INFO(choice.describe() << ": " << choice.terms);
    CHECK(choice.kernel->metadata().kernel_class == "hopper_gemm");
    CHECK(choice.packed == expect_packed);
    const kernels::DemoRun r = kernels::run_gemm_choice(choice, p, *emulator, {.c = c_offset});
    INFO(r.problem << ": " << r.result);
    CHECK(r.ok);
  };
  // bf16, odd K (A unaligned), rank 2.
  check("odd K", matrix_view(Type::BF16, 0, 150, 77, true, 77), matrix_view(Type::BF16, 0, 77, 136, true, 136),
        matrix_view(Type::BF16, 0, 150, 136, true, 136), std::nullopt, 1.0, 0.0, {true, false, false, false});
  // f16 in, f32 out, batched, every leading dimension odd: A and B copied, out stored element by
  // element as it lies.
  check("f16 -> f32 batched, odd leading dimensions", matrix_view(Type::F16, 3, 70, 45, true, 45),
        matrix_view(Type::F16, 3, 45, 90, true, 91), matrix_view(Type::F32, 3, 70, 90, true, 93), std::nullopt, 0.5, 0.0,
        {true, true, false, false});
  // tf32, B N-major: B copied K-major.
  check("tf32 with an N-major B", matrix_view(Type::F32, 0, 100, 64, true, 64), matrix_view(Type::F32, 0, 64, 72, true, 72),
        matrix_view(Type::F32, 0, 100, 72, true, 72), std::nullopt, 1.0, 0.0, {false, true, false, false});
  // fp8 with an M-major A (and a K-major B): A copied K-major.
  check("e4m3 with an M-major A", matrix_view(Type::E4M3, 0, 96, 160, false, 96),
        matrix_view(Type::E4M3, 0, 160, 80, false, 160), matrix_view(Type::BF16, 0, 96, 80, true, 80), std::nullopt, 1.0, 0.0,
        {true, false, false, false});
  // A unit mode of extent 1 (K = 1): the M-major A, strides (1, 106), has unit stride in K too, but
  // a K-major kernel's TMA would step 1 byte from row to row: copied, as B (N's stride 1).
  check("e4m3 with K = 1, A M-major", matrix_view(Type::E4M3, 0, 106, 1, false, 106),
        matrix_view(Type::E4M3, 0, 1, 157, false, 1), matrix_view(Type::F32, 0, 106, 157, true, 160), std::nullopt, 1.0,
        0.0, {true, true, false, false});
  // One row of a column-major out, strides (1, 1) (a transposed column): M-contiguous, with N's
  // stride never followed; read as C too (beta == 0 reads none of it, but its map is encoded).
  check("M = 1, column-major out, strides (1, 1)", matrix_view(Type::F32, 0, 1, 128, true, 128),
        matrix_view(Type::F32, 0, 128, 192, false, 128), matrix_view(Type::F32, 0, 1, 192, false, 1), std::nullopt, 1.0,
        0.0, {false, false, false, false});
  // A C of one column, strides (1, 1), 8 bytes off the granules: read in lines, one line a view,
  // whose pitch (never stepped) must still be 16 bytes.
  check("C of one column in lines", matrix_view(Type::F32, 0, 150, 64, true, 64),
        matrix_view(Type::F32, 0, 64, 1, false, 64), matrix_view(Type::F32, 0, 150, 1, true, 1),
        matrix_view(Type::F32, 0, 150, 1, true, 1), 1.0, 1.0, {false, false, false, false}, 8);
  // Issue 18's column-major out with beta and a K-major B, small: no copies (C, out itself, read by
  // the TMA ahead box by box, several tiles per CTA).
  check("column-major out with beta, K-major B", matrix_view(Type::BF16, 0, 150, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 140, false, 64), matrix_view(Type::BF16, 0, 150, 140, false, 152), std::nullopt, 0.5,
        2.0, {false, false, false, false});
  // An N-major B with unaligned rows under a column-major out with beta (issue 18's "B N-major"
  // row, small): B padded in its own major, out and C (out itself) as they lie.
  check("unaligned N-major B, column-major out with beta", matrix_view(Type::BF16, 0, 90, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 70, true, 70), matrix_view(Type::BF16, 0, 90, 70, false, 96), std::nullopt, 0.5,
        2.0, {false, true, false, false});
  // A column-major out with an odd leading dimension and beta: no copies; C (out itself) read line
  // by line as it lies, out stored element by element.
  check("column-major unaligned out with beta", matrix_view(Type::BF16, 0, 90, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 70, true, 72), matrix_view(Type::BF16, 0, 90, 70, false, 91), std::nullopt, 0.5, 2.0,
        {false, false, false, false});
  // A C of its own that TMA cannot read (odd leading dimension): read line by line, not copied.
  check("distinct unaligned C", matrix_view(Type::BF16, 0, 90, 64, true, 64), matrix_view(Type::BF16, 0, 64, 72, true, 72),
        matrix_view(Type::BF16, 0, 90, 72, true, 72), matrix_view(Type::BF16, 0, 90, 72, true, 73), 1.0, -1.0,
        {false, false, false, false});
  // Issue 18's row 28, small: a row-major C of its own with an odd leading dimension under a
  // column-major out (the kernel reads C M-contiguous through its transposed problem), by lines.
  check("distinct unaligned row-major C, column-major out", matrix_view(Type::BF16, 0, 90, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 72, false, 64), matrix_view(Type::BF16, 0, 90, 72, false, 96),
        matrix_view(Type::BF16, 0, 90, 72, true, 75), 0.5, 2.0, {false, false, false, false});
  // The same with C's rows 8 and 4 bytes past a granule (2 and 4 views): each line of a column
  // 8k on is found a step of 8k / G lines after the first (add_c_lines).
  for (const int64_t ldc : {76, 74})
    check(ldc == 76 ? "distinct row-major C, column-major out, 2 views"
                    : "distinct row-major C, column-major out, 4 views",
          matrix_view(Type::BF16, 0, 90, 64, true, 64), matrix_view(Type::BF16, 0, 64, 72, false, 64),
          matrix_view(Type::BF16, 0, 90, 72, false, 96), matrix_view(Type::BF16, 0, 90, 72, true, ldc), 0.5, 2.0,
          {false, false, false, false});
  // f32 out (lines of 32 elements, two per 64 rows of an M-contiguous C), batched, C's rows odd in
  // both majors, one C broadcast over the batch.
  check("f32 out, column-major unaligned C, batched", matrix_view(Type::F16, 2, 150, 40, true, 40),
        matrix_view(Type::F16, 2, 40, 136, false, 40), matrix_view(Type::F32, 2, 150, 136, true, 136),
        matrix_view(Type::F32, 2, 150, 136, false, 151), 0.5, 1.5, {false, false, false, false});
  // C's address off the granules: one view where its pitch is on them, eight where not.
  check("C's address 6 bytes past a granule (1 view)", matrix_view(Type::BF16, 0, 150, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 136, false, 64), matrix_view(Type::BF16, 0, 150, 136, false, 152),
        matrix_view(Type::BF16, 0, 150, 136, false, 160), 1.0, 0.5, {false, false, false, false}, 6);
  check("C's address 2 bytes and rows 2 past a granule (8 views)", matrix_view(Type::BF16, 0, 150, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 136, false, 64), matrix_view(Type::BF16, 0, 150, 136, true, 136),
        matrix_view(Type::BF16, 0, 150, 136, true, 137), 1.0, 0.5, {false, false, false, false}, 2);
  check("rows 8 bytes past a granule (2 views)", matrix_view(Type::BF16, 0, 150, 64, true, 64),
        matrix_view(Type::BF16, 0, 64, 136, false, 64), matrix_view(Type::BF16, 0, 150, 136, true, 136),
        matrix_view(Type::BF16, 0, 150, 136, true, 140), 1.0, 0.5, {false, false, false, false});
  check("f32 out, row-major unaligned C broadcast", matrix_view(Type::F16, 2, 150, 40, true, 40),
        matrix_view(Type::F16, 2, 40, 136, false, 40), matrix_view(Type::F32, 2, 150, 136, false, 152),
        matrix_view(Type::F32, 2, 150, 136, true, 137, 0), 0.5, 1.5, {false, false, false, false});
  // A broadcast over the batch with an odd leading dimension: one matrix copied.
  check("broadcast unaligned A", matrix_view(Type::BF16, 2, 80, 33, true, 33, 0), matrix_view(Type::BF16, 2, 33, 64, true, 64),
        matrix_view(Type::BF16, 2, 80, 64, true, 64), std::nullopt, 1.0, 0.0, {true, false, false, false});
}

// A C that the TMA cannot read (rows off the 16-byte granules) is read line by line by every
// kernel with room for its lines: no copy, whichever majors.
TEST_CASE("gemm: an unaligned C is read as it lies, line by line") {
  for (bool c_row : {true, false}) {
    for (bool out_row : {true, false}) {
      for (int64_t m : {40, 2000}) {  // a few rows (a swapped kernel's) and issue 18 row 28's
        const TensorView a = matrix_view(Type::BF16, 0, m, 1000, true, 1000),
                         b = matrix_view(Type::BF16, 0, 1000, 1500, false, 1000);
        const TensorView out = matrix_view(Type::BF16, 0, m, 1500, out_row, out_row ? 1504 : m + 8);
        const TensorView c = matrix_view(Type::BF16, 0, m, 1500, c_row, c_row ? 1501 : m + 1);
        kernels::GemmArguments args = placed(a, b, out, c);
        args.beta = 1;
        const kernels::GemmChoice choice = best(args);
        INFO(choice.describe() << ", C " << (c_row ? "row" : "column") << "-major, out " << (out_row ? "row" : "column")
                               << "-major");
        CHECK(choice.kernel->metadata().c_alignment == 2);
        CHECK(!choice.packed[kernels::kPackC]);
        for (const kernels::GemmStep& step : kernels::gemm_steps(choice, args, uint64_t{5} << 32))
          CHECK(step.what.rfind("copy C", 0) != 0);
      }
    }
  }
  // 128 x 256 with 4 stages has no room for C's lines: such a C is copied for it.
  kernels::HopperGemmConfig full;
  full.tile_n = 256;
  CHECK(!kernels::hopper_gemm_c_lines(full));
  full.stages = 3;
  CHECK(kernels::hopper_gemm_c_lines(full));
}

// The persistent scheduler hands out whole clusters of tiles, so the model counts a grid padded to
// the cluster shape: issue 18's row 20 runs as out^T, 12 x 11 tiles of 128x192; a kernel-side 1x2
// cluster (`_c2x1` for this column-major out) makes 12 x 6 = 72 cluster tiles on 66 clusters, a
// second round (measured 32.9 us against 20.3 for the 2x1, session 35), the 2x1 66, one round.
TEST_CASE("gemm: the model counts the tiles a cluster pads the grid to") {
  kernels::GemmArguments g = placed(matrix_view(Type::BF16, 0, 2000, 1000, true, 1000),
                                    matrix_view(Type::BF16, 0, 1000, 1500, false, 1000),
                                    matrix_view(Type::BF16, 0, 2000, 1500, false, 2000));
  g.alpha = 0.5;
  g.beta = 2;
  const kernels::GemmRanking r = kernels::rank_gemm(g, kH100);
  auto estimate = [&](const std::string& suffix) {
    for (const kernels::GemmChoice& c : r.ranked)
      if (c.kernel->name() == "tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc" + suffix) return c.estimate_us;
    FAIL("no candidate 128x192x64_s4_kkc" << suffix);
    return 0.0;
  };
  const double padded = estimate("_c2x1"), whole = estimate("_c1x2"), alone = estimate("");
  CHECK(padded > whole);
  CHECK(padded > alone);  // a second round costs more than the multicast saves
}

// The DRAM term is the device's: a weight gradient of 16 tokens (one k-tile a tile, every output
// byte written once) is bound by its stores, and on an H200's 4815 GB/s every candidate's estimate
// falls towards 3352 / 4815 of an H100's; a 4096^3 GEMM is bound by its tensor cores and keeps its
// estimate within the tenth of the smaller term that shows.
TEST_CASE("gemm: the model's DRAM term scales with the device's bandwidth") {
  const kernels::GemmDevice h200{90, 132, 4815};
  auto ratio = [&](const kernels::GemmArguments& g) {
    const kernels::GemmChoice h = best(g, h200), o = best(g);
    INFO(o.kernel->name() << " " << o.estimate_us << " us, on an H200 " << h.kernel->name() << " " << h.estimate_us);
    return h.estimate_us / o.estimate_us;
  };
  const double store_bound = ratio(placed(matrix_view(Type::BF16, 0, 128256, 16, false, 128256),
                                          matrix_view(Type::BF16, 0, 16, 4096, true, 4096),
                                          matrix_view(Type::BF16, 0, 128256, 4096, true, 4096)));
  CHECK(store_bound < 0.8);
  CHECK(store_bound > 3352.0 / 4815 * 0.95);
  const double compute_bound = ratio(placed(matrix_view(Type::BF16, 0, 4096, 4096, true, 4096),
                                            matrix_view(Type::BF16, 0, 4096, 4096, true, 4096),
                                            matrix_view(Type::BF16, 0, 4096, 4096, true, 4096)));
  CHECK(compute_bound > 0.97);
  CHECK(compute_bound <= 1.0);
}

// A near tie (0.5%) between swapped kernels: up to 128 rows of out the smallest tile (it pads the
// fewest rows: 64x8 over 64x16 over 64x32 on decode rows), above them the largest, as between
// unswapped kernels (512^3: 64x64 5.8 us, 64x32 6.8 us, both 7.9 us in the model).
TEST_CASE("gemm: a near tie between swapped kernels goes to the smaller tile on few rows, else the larger") {
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{8, 4096, 4096}, std::array<int64_t, 3>{512, 512, 512}}) {
    const kernels::GemmRanking r = kernels::rank_gemm(
        placed(matrix_view(Type::BF16, 0, m, k, true, k), matrix_view(Type::BF16, 0, k, n, true, n),
               matrix_view(Type::BF16, 0, m, n, true, n)),
        kH100);
    REQUIRE(!r.ranked.empty());
    const kernels::KernelMetadata& pick = r.ranked.front().kernel->metadata();
    auto area = [](const kernels::KernelMetadata& md) { return md.design.tile[0] * md.design.tile[1]; };
    auto swapped = [](const kernels::KernelMetadata& md) { return md.name.ends_with("_swap"); };
    INFO(m << " rows: " << pick.name << " " << r.ranked.front().estimate_us << " us");
    REQUIRE(swapped(pick));
    const double best = std::min_element(r.ranked.begin(), r.ranked.end(), [](const auto& a, const auto& b) {
                          return a.estimate_us < b.estimate_us;
                        })->estimate_us;
    int tied = 0;
    for (const kernels::GemmChoice& c : r.ranked) {
      const kernels::KernelMetadata& md = c.kernel->metadata();
      if (&md == &pick || !swapped(md) || c.splits > 1 || c.estimate_us > best * 1.005) continue;
      INFO(md.name << " " << c.estimate_us << " us");
      CHECK((m <= 128 ? area(pick) <= area(md) : area(pick) >= area(md)));
      ++tied;
    }
    CHECK(tied > 0);  // the rule decided something
  }
}

// Two clusters of one tile that the model cannot tell apart (their L2 floors both under the
// compute term): the tie goes to the one whose multicast saves the L2 more. On 3000x2000x1000 bf16
// with an N-major B and a column-major out, A's K-major rows are 2000 bytes apart (an odd multiple
// of 16: each box row costs the L2 2.5 times); the cluster that multicasts A measured 32.9 us, the
// other 37.1 (session 35), and both ranked 28.3 us.
TEST_CASE("gemm: a near tie between two clusters goes to the one that multicasts the costlier operand") {
  kernels::GemmArguments g = placed(matrix_view(Type::BF16, 0, 3000, 1000, true, 1000),
                                    matrix_view(Type::BF16, 0, 1000, 2000, true, 2000),
                                    matrix_view(Type::BF16, 0, 3000, 2000, false, 3000));
  g.beta = 1;
  const kernels::GemmRanking r = kernels::rank_gemm(g, kH100);
  REQUIRE(r.ranked.size() >= 2);
  const kernels::GemmChoice& pick = r.ranked.front();
  INFO(pick.describe() << ": " << pick.terms);
  const kernels::Design& chosen = pick.kernel->metadata().design;
  auto cluster_size = [](const kernels::Design& d) { return d.cluster[0] * d.cluster[1]; };
  int tied = 0;
  for (const kernels::GemmChoice& c : r.ranked) {
    const kernels::Design& d = c.kernel->metadata().design;
    if (&c == &pick || d.tile != chosen.tile || cluster_size(d) != cluster_size(chosen) ||
        c.estimate_us > pick.estimate_us * 1.005)
      continue;
    INFO(c.describe() << ": " << c.terms);
    ++tied;
    CHECK(pick.l2_us < c.l2_us);
  }
  CHECK(tied > 0);  // the case this test is about: a tie to break
  // The pick multicasts A: its cluster spans the kernel's N, which is out^T's, so out's M.
  CHECK(pick.kernel->name().find("_c1x2") != std::string::npos);
}

// The epilogue's staging boxes where shared memory has room for more than two (hopper_gemm.md, "C
// through the TMA"): a 128x192 tile's three (every box of its slab loaded before the mainloop) and
// 64x256 ping-pong's three for its four boxes (the fourth loaded into the first box's buffer once
// that box's store has read it), each with a C of its own read in lines, ragged, in the emulator;
// and with beta 0, where the fourth box's store waits only for the first's (two stay pending).
TEST_CASE("gemm: three staging boxes take a C in lines, in the emulator") {
  TESSEL_RNG(rng);
  const std::unique_ptr<kernels::Machine> emulator = kernels::emulator_machine();
  struct Case {
    const char* kernel;
    bool out_row, c_row;
  };
  for (const Case& k : {Case{"tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkr", true, true},
                        Case{"tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkr", true, false},
                        Case{"tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc", false, true},
                        Case{"tessel_hopper_gemm_bf16_bf16_64x256x64_s4_kkr_pp", true, true},
                        Case{"tessel_hopper_gemm_bf16_bf16_64x256x64_s4_kkr_pp", true, false}}) {
    // M and N ragged; K past a k-tile and A's, B's and out's rows on the granules (what the TMA
    // reads as they lie): only C is off them.
    const int64_t m = test::uniform(rng, 130, 200), n = test::uniform(rng, 200, 300),
                  kk = 8 * test::uniform(rng, 9, 16);
    const TensorView a = matrix_view(Type::BF16, 0, m, kk, true, kk), b = matrix_view(Type::BF16, 0, kk, n, false, kk);
    const TensorView out = matrix_view(Type::BF16, 0, m, n, k.out_row, ((k.out_row ? n : m) / 8 + 1) * 8);
    // C's rows (columns) one element past the granules: 8 views of lines.
    const int64_t ldc = (k.c_row ? n : m) / 8 * 8 + 9;
    const TensorView c = matrix_view(Type::BF16, 0, m, n, k.c_row, ldc);
    for (const double beta : {1.5, 0.0}) {
      const kernels::GemmProblem p = kernels::make_gemm_problem(a, b, out, c, 0.5, beta, rng);
      const kernels::GemmRanking r = kernels::rank_gemm(
          p.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32, uint64_t{4} << 32), kH100);
      const kernels::GemmChoice* choice = nullptr;
      for (const kernels::GemmChoice& candidate : r.ranked)
        if (candidate.kernel->name() == k.kernel && !candidate.any_packed()) choice = &candidate;
      const std::string what = std::string(k.kernel) + ", out " + (k.out_row ? "row" : "column") + "-major, C " +
                               (k.c_row ? "row" : "column") + "-major, " + p.describe();
      INFO(what);
      REQUIRE(choice != nullptr);
      const kernels::DemoRun run = kernels::run_gemm_choice(*choice, p, *emulator);
      INFO(run.problem << ": " << run.result);
      CHECK(run.ok);
    }
  }
}

// An out off the 16-byte granules (odd leading dimension, odd batch stride, an address a few bytes
// past a granule) in the kernel's major is stored by the kernel element by element, not computed
// in the workspace and copied back: every kind of kernel (swapped, ping-pong, split-K, stream-K) the
// ranking offers, in the emulator against the f64 reference, the bytes around out poisoned.
TEST_CASE("gemm: an out off the granules is stored element by element as it lies, by every kind of kernel") {
  TESSEL_RNG(rng);
  const std::unique_ptr<kernels::Machine> emulator = kernels::emulator_machine();
  struct Case {
    const char* what;
    TensorView a, b, out;
    double beta;
    uint64_t out_offset;
  };
  const Case cases[] = {
      {"bf16, row-major out, odd ldc", matrix_view(Type::BF16, 0, 150, 64, true, 64),
       matrix_view(Type::BF16, 0, 64, 75, true, 80), matrix_view(Type::BF16, 0, 150, 75, true, 75), 0.0, 0},
      {"f32 out, column-major, odd ldc, beta in place (C read in lines or copied)",
       matrix_view(Type::F16, 0, 99, 64, true, 64), matrix_view(Type::F16, 0, 64, 140, false, 64),
       matrix_view(Type::F32, 0, 99, 140, false, 99), 1.5, 0},
      {"bf16, batched, odd batch stride, out 6 bytes past a granule", matrix_view(Type::BF16, 3, 70, 64, true, 64),
       matrix_view(Type::BF16, 3, 64, 136, false, 64), matrix_view(Type::BF16, 3, 70, 136, true, 136), 0.0, 6},
      {"few rows, f32, ldc 13", matrix_view(Type::F32, 0, 13, 96, true, 96), matrix_view(Type::F32, 0, 96, 13, false, 96),
       matrix_view(Type::F32, 0, 13, 13, true, 13), 0.0, 4},
  };
  for (const Case& t : cases) {
    INFO(t.what);
    const kernels::GemmProblem p =
        kernels::make_gemm_problem(t.a, t.b, t.out, std::nullopt, 0.75, t.beta, rng);
    const kernels::GemmArguments args =
        p.arguments(uint64_t{1} << 32, uint64_t{2} << 32, (uint64_t{3} << 32) + t.out_offset, uint64_t{4} << 32);
    int ran = 0;
    for (const kernels::GemmSchedule s : {kernels::GemmSchedule::Any, kernels::GemmSchedule::SplitK,
                                          kernels::GemmSchedule::StreamK}) {
      // The best candidate of each kind: swapped or not, ping-pong or not, of each schedule.
      std::array<bool, 8> seen{};
      for (const kernels::GemmChoice& c : kernels::rank_gemm(args, kH100, s).ranked) {
        const kernels::KernelMetadata& md = c.kernel->metadata();
        if (md.kernel_class != "hopper_gemm" || c.packed[kernels::kPackOut]) continue;
        const bool swap = md.options.count("swap-ab") && md.options.at("swap-ab") == "yes";
        const bool pp = md.options.count("schedule") && md.options.at("schedule") == "pingpong";
        const size_t kind = static_cast<size_t>(swap) + 2 * pp + 4 * (s != kernels::GemmSchedule::Any);
        if (seen[kind]) continue;
        seen[kind] = true;
        INFO(c.describe());
        const kernels::DemoRun r = kernels::run_gemm_choice(c, p, *emulator, {.out = t.out_offset});
        INFO(r.problem << ": " << r.result);
        CHECK(r.ok);
        ++ran;
      }
    }
    CHECK(ran >= 3);  // at least a data-parallel, a split-K and a stream-K kernel
    // The first choice stores out itself.
    CHECK(!best(args).packed[kernels::kPackOut]);
  }
}
