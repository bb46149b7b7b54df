// hopper_gemm_test.cpp: the Hopper GEMM on the CPU: configuration checks, every catalog
// configuration assembled by ptxas for sm_90a without spills, the PTX it must contain, supports()
// messages, and the launch plan (tensor-map specs, persistent grid, parameters).
#include "tessel/kernels/hopper_gemm.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <regex>

#include "codegen/ptxas.hpp"
#include "kernels/gemm_problem.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

// A problem laid out as the configuration asks, at made-up (16-byte aligned) addresses.
GemmArguments arguments_for(const HopperGemmConfig& c, int64_t L, int64_t M, int64_t N, int64_t K) {
  auto view = [&](Type t, bool cols_contiguous, int64_t rows, int64_t cols, uint64_t addr) {
    const int64_t align = 16 / codegen::bytes(t);
    const int64_t ld = ((cols_contiguous ? cols : rows) + align - 1) / align * align;
    const int64_t batch = ld * (cols_contiguous ? rows : cols);
    return cols_contiguous ? TensorView{addr, t, {L, rows, cols}, {batch, ld, 1}}
                           : TensorView{addr, t, {L, rows, cols}, {batch, 1, ld}};
  };
  GemmArguments g;
  g.A = view(c.ab, c.a_major == codegen::Major::K, M, K, 0x10000000);
  g.B = view(c.ab, c.b_major != codegen::Major::K, K, N, 0x20000000);
  g.out = view(c.out, c.out_major == Major::Row, M, N, 0x30000000);
  return g;
}

rt::TensorMap fake_encode(const rt::TensorMapSpec& s, uint64_t addr) {
  rt::validate_tensor_map(s, addr);
  rt::TensorMap m;
  m.words[0] = addr;
  return m;
}

// Configurations part, part + parts, ... of the catalog's row-major ones: two test cases, so that
// ctest -j assembles them in parallel.
void check_assemble(size_t part, size_t parts) {
  std::vector<HopperGemmConfig> rows;
  for (const HopperGemmConfig& c : HopperGemmClass::configurations())
    if (c.out_major == Major::Row) rows.push_back(c);
  CHECK(rows.size() > 60);
  if (test::ptxas_path().empty()) {
    test::check_assembles(hopper_gemm(rows.front()));  // prints the skip
    return;
  }
  for (size_t i = part; i < rows.size(); i += parts) {
    const codegen::Module m = hopper_gemm(rows[i]);
    CHECK(codegen::target_name(codegen::requirement(m)) == "sm_90a");
    const test::PtxasResult r = test::run_ptxas(codegen::print_ptx(m), "sm_90a");
    INFO(rows[i].name() << "\n" << r.log);
    REQUIRE(r.ok);
    CHECK(r.log.find(" 0 bytes spill stores, 0 bytes spill loads") != std::string::npos);
    CHECK(r.log.find("C7508") == std::string::npos);  // setmaxnreg ignored
  }
}

}  // namespace

TEST_CASE("hopper_gemm: every catalog configuration assembles for sm_90a without spills (1 of 2)") { check_assemble(0, 2); }
TEST_CASE("hopper_gemm: every catalog configuration assembles for sm_90a without spills (2 of 2)") { check_assemble(1, 2); }

// So the column-major ones need no ptxas of their own: each is a row-major catalog kernel, renamed.
TEST_CASE("hopper_gemm: a column-major out's kernel is the row-major B^T A^T kernel, renamed") {
  const std::vector<HopperGemmConfig> all = HopperGemmClass::configurations();
  int checked = 0;
  for (const HopperGemmConfig& c : all) {
    if (c.out_major != Major::Column) continue;
    const HopperGemmConfig r = kernel_config(c);
    const bool listed = std::any_of(all.begin(), all.end(), [&](const HopperGemmConfig& x) { return x.name() == r.name(); });
    INFO(c.name() << " -> " << r.name());
    REQUIRE(listed);
    const std::string col_ptx = codegen::print_ptx(hopper_gemm(c));
    const std::string row_ptx = std::regex_replace(codegen::print_ptx(hopper_gemm(r)), std::regex(r.name()), c.name());
    CHECK(col_ptx == row_ptx);
    ++checked;
  }
  CHECK(checked > 60);
}

TEST_CASE("hopper_gemm: the PTX has the pipeline's instructions") {
  HopperGemmConfig c;
  c.a_major = codegen::Major::MN;
  c.b_major = codegen::Major::MN;
  c.tile_n = 256;
  std::string ptx = codegen::print_ptx(hopper_gemm(c));
  ptx = std::regex_replace(ptx, std::regex("[ \t]+"), " ");
  for (const char* needle :
       {"cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes", "mbarrier.arrive.expect_tx",
        "mbarrier.try_wait.parity", "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "wgmma.wait_group.sync.aligned 1",
        "setmaxnreg.dec.sync.aligned.u32 40", "setmaxnreg.inc.sync.aligned.u32 232"}) {
    INFO(std::string(needle));
    CHECK(ptx.find(needle) != std::string::npos);
  }
  // M- and N-major operands: transposed wgmma (imm-trans-a = imm-trans-b = 1), two TMA boxes of
  // A (128 rows of M in 64-element chunks) and four of B per stage.
  CHECK(ptx.find(", 1, 1, 1, 1;") != std::string::npos);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = ptx.find(needle); at != std::string::npos; at = ptx.find(needle, at + 1)) ++n;
    return n;
  };
  // C's loads (beta != 0): per box one of a row-major C, one of a column-major 16-bit C (a
  // run-time choice, so both are in the PTX): boxes 0 and 1 at the tile's start, 2 and 3 during
  // boxes 1 and 2; each on the mbarrier of its staging box.
  CHECK(count("cp.async.bulk.tensor.3d.shared::cluster.global") == 2 + 4 + 2 * 256 / 64);
  // The producer's L2 prefetch of each tile's C (beta != 0), per 64 x 64 box of the 128 x 256
  // tile: row-major C in boxes of 64 columns x 64 rows, column-major in 64 rows x 64 columns.
  CHECK(count("cp.async.bulk.prefetch.tensor.3d.L2.global.tile") == 2 * (128 / 64) * (256 / 64));
  // The epilogue: a 256-wide bf16 slab leaves in four 64-column boxes, each written to swizzled
  // shared memory by stmatrix.x4 (16 x 16 elements per warp each), fenced for the async proxy,
  // and stored by the TMA.
  CHECK(count("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group") == 256 / 64);
  CHECK(count("fence.proxy.async.shared::cta") == 256 / 64);
  CHECK(count("stmatrix.sync.aligned.m8n8.x4.shared.b16") == 256 / 16);
  CHECK(count("st.shared") == 0);
  // Before each store but the slab's first (which waits for every store); C's loads wait for
  // every store: the tile's first two boxes at the tile's start (once), and box b + 1 at the
  // start of box b for b = 1 .. 2 (the box before's store has read the staging box); and every
  // box's element-by-element branch, which writes its staging box without a group of its own.
  CHECK(count("cp.async.bulk.wait_group.read 1") == 256 / 64 - 1);
  CHECK(count("cp.async.bulk.wait_group.read 0") == 1 + 1 + (256 / 64 - 2) + 256 / 64);
  CHECK(count("cp.async.bulk.wait_group 0") == 1);
  // A box across an N whose rows end inside a 16-byte granule (or of an out off the granules)
  // goes element by element instead, from its staging box.
  CHECK(count("st.global.b16") == 64 * 256 / 128);
  // An f32 out has no stmatrix (16-bit only): 8-byte pairs into 32-column boxes.
  c.out = Type::F32;
  ptx = std::regex_replace(codegen::print_ptx(hopper_gemm(c)), std::regex("[ \t]+"), " ");
  CHECK(count("stmatrix") == 0);
  CHECK(count("st.shared.v2.f32") == 64 * 256 / 128 / 2);
  CHECK(count("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group") == 256 / 32);
  // f32 C: 32 elements per 128-byte box row (row-major: 2 x 8 boxes; column-major: 4 x 8).
  CHECK(count("cp.async.bulk.prefetch.tensor.3d.L2.global.tile") == (128 / 64) * (256 / 32) + (128 / 32) * (256 / 32));
}

TEST_CASE("hopper_gemm: configuration errors name the value and the rule") {
  auto error_of = [](const HopperGemmConfig& c) {
    try {
      c.check();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  HopperGemmConfig c;
  c.ab = Type::E4M3;
  c.a_major = codegen::Major::MN;
  CHECK(error_of(c).find("M/N-major operands need bf16 or f16") != std::string::npos);
  // tf32: only the kernel's A M-major (through registers): A under a row-major out, B under a
  // column-major one; 1x1 and not stream-K.
  c = HopperGemmConfig{};
  c.ab = c.out = Type::F32;
  c.a_major = codegen::Major::MN;
  CHECK(error_of(c) == "");
  CHECK(a_from_registers(c));
  c.b_major = codegen::Major::MN;
  CHECK(error_of(c).find("or tf32 with only the operand on the kernel's A side M-major") != std::string::npos);
  c.a_major = codegen::Major::K;
  c.out_major = Major::Column;
  CHECK(error_of(c) == "");
  CHECK(a_from_registers(c));
  c.cluster_m = 2;
  CHECK(error_of(c).find("tf32 with an M/N-major operand (A through registers) in a cluster (not implemented)") !=
        std::string::npos);
  c.cluster_m = 1;
  c.stream_k = true;
  CHECK(error_of(c).find("with stream-K (not implemented)") != std::string::npos);
  c = HopperGemmConfig{};
  CHECK(!a_from_registers(c));
  c.tile_n = 96;
  CHECK(error_of(c).find("tile_n 96 (64, 128, 192 or 256; 8, 16 or 32 only swapped)") != std::string::npos);
  c.tile_n = 16;
  CHECK(error_of(c).find("tile_n 16 (64, 128, 192 or 256; 8, 16 or 32 only swapped)") != std::string::npos);
  // Swapped (out^T = B^T A^T, for a few rows of A): tile_n spans M, 8 to 64; cooperative or
  // split-K, no cluster; the kernel's B (A^T) K-major below 64 columns.
  c.swap_ab = true;
  CHECK(error_of(c) == "");
  CHECK(c.name() == "tessel_hopper_gemm_bf16_bf16_128x16x64_s4_kkr_swap");
  c.tile_n = 128;
  CHECK(error_of(c).find("tile_n 128 swapped (8, 16, 32 or 64: the few rows of A)") != std::string::npos);
  c.tile_n = 8;
  c.pingpong = true;
  CHECK(error_of(c).find("a swapped kernel (swap_ab) with ping-pong (not implemented") != std::string::npos);
  c.pingpong = false;
  c.cluster_m = 2;
  CHECK(error_of(c).find("a swapped kernel (swap_ab) in a cluster") != std::string::npos);
  c.cluster_m = 1;
  c.a_major = codegen::Major::MN;
  CHECK(error_of(c).find("an M-major A with tile_n 8 (the kernel's B, A^T, M/N-major needs tile_n a multiple of 64") !=
        std::string::npos);
  c.tile_n = 64;
  CHECK(error_of(c) == "");
  c = HopperGemmConfig{};
  c.stages = 9;
  c.tile_n = 256;
  CHECK(error_of(c).find("bytes of shared memory") != std::string::npos);
  c = HopperGemmConfig{};
  c.out = Type::S32;
  CHECK(error_of(c).find("output type s32") != std::string::npos);
  c = HopperGemmConfig{};
  c.cluster_m = c.cluster_n = 2;
  CHECK(error_of(c).find("cluster 2x2 (1x1, 2x1 or 1x2: at most 2 CTAs per cluster)") != std::string::npos);
  c = HopperGemmConfig{};
  c.cluster_n = 4;
  CHECK(error_of(c).find("cluster_n 4 (1 or 2)") != std::string::npos);
  // A cluster's share of an M/N-major operand is whole 64-element (128-byte) boxes.
  c = HopperGemmConfig{};
  c.tile_m = 64;
  c.cluster_n = 2;
  c.a_major = codegen::Major::MN;
  CHECK(error_of(c).find("an M-major A with cluster_n 2 needs tile_m a multiple of 128") != std::string::npos);
  c = HopperGemmConfig{};
  c.tile_n = 64;
  c.cluster_m = 2;
  c.b_major = codegen::Major::MN;
  CHECK(error_of(c).find("an N-major B with cluster_m 2 needs tile_n a multiple of 128") != std::string::npos);
  c.b_major = codegen::Major::K;  // a K-major share is rows of 128 bytes: any half tile
  CHECK(error_of(c) == "");
  // A column-major out runs as out^T = B^T A^T: A's share then spans tile_n, B's tile_m (these
  // passed the row-major rule and hung: the emulator, running clusters, found the deadlock).
  c = HopperGemmConfig{};
  c.tile_n = 64;
  c.cluster_n = 2;
  c.a_major = codegen::Major::MN;
  c.out_major = Major::Column;
  CHECK(error_of(c).find("an M-major A with cluster_n 2 needs tile_n a multiple of 128 (each CTA multicasts tile_n / "
                         "cluster_n rows of A, in 64-element boxes, as the kernel of out^T = B^T A^T runs it)") !=
        std::string::npos);
  c.out_major = Major::Row;
  CHECK(error_of(c) == "");
  c = HopperGemmConfig{};
  c.tile_m = 64;
  c.cluster_m = 2;
  c.b_major = codegen::Major::MN;
  c.out_major = Major::Column;
  CHECK(error_of(c).find("an N-major B with cluster_m 2 needs tile_m a multiple of 128") != std::string::npos);
  c = HopperGemmConfig{};
  c.pingpong = true;
  CHECK(error_of(c) == "");  // 128 x 128
  c.tile_n = 256;
  CHECK(error_of(c).find("ping-pong with a 128 x 256 tile (at most 128 x 128: one warpgroup holds") != std::string::npos);
  c.tile_m = 64;
  CHECK(error_of(c) == "");
  c.cluster_m = 2;
  CHECK(error_of(c).find("ping-pong in a cluster (not implemented") != std::string::npos);
}

TEST_CASE("hopper_gemm: ping-pong consumers take turns") {
  HopperGemmConfig c;
  c.tile_m = 64;
  c.tile_n = 256;
  c.stages = 4;
  c.pingpong = true;
  CHECK(c.name() == "tessel_hopper_gemm_bf16_bf16_64x256x64_s4_kkr_pp");
  CHECK(c.threads() == 384);
  std::string ptx = std::regex_replace(codegen::print_ptx(hopper_gemm(c)), std::regex("[ \t]+"), " ");
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = ptx.find(needle); at != std::string::npos; at = ptx.find(needle, at + 1)) ++n;
    return n;
  };
  // Per stage a full and an empty barrier, the two turn barriers of the mainloops, and a C barrier
  // per staging box of each consumer warpgroup: three boxes each (of the tile's four, what fits).
  CHECK(count("mbarrier.init") == 2 * 4 + 2 + 2 * 3);
  // Each warpgroup's epilogue has its own named barrier: the id is a register (1 + warpgroup).
  CHECK(std::regex_search(ptx, std::regex("bar\\.sync %r[0-9]+, 128;")));
  CHECK(ptx.find("setmaxnreg.inc.sync.aligned.u32 232") != std::string::npos);
  // One 64-row slab per tile: the whole tile's 64 x 256 wgmma, four 64-column boxes.
  CHECK(count("wgmma.mma_async.sync.aligned.m64n256k16") == 4);
  CHECK(count("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group") == 4);
  // The epilogue buffers of both warpgroups and 16 bytes of turn barriers fit with 4 stages.
  // (Each staging box as 64 lines of 144 bytes: room to read a C off the granules in lines; a
  // fourth box per warpgroup would pass the 227 KiB.)
  REQUIRE(hopper_gemm_c_lines(c));
  CHECK(c.shared_bytes() == 4 * (8192 + 32768 + 16) + 2 * 3 * 9216 + 16 + 2 * 3 * 8 + 1024);
  // A 128 x 128 tile per warpgroup: both 64-row slabs, two wgmmas per k-block, two 64-column boxes
  // per slab; each slab's first box waits for all of the warpgroup's stores, its second for one.
  c.tile_m = 128;
  c.tile_n = 128;
  ptx = std::regex_replace(codegen::print_ptx(hopper_gemm(c)), std::regex("[ \t]+"), " ");
  CHECK(count("wgmma.mma_async.sync.aligned.m64n128k16") == 2 * 4);
  CHECK(count("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group") == 2 * 2);
  // Four staging boxes a warpgroup (the tile's boxes across its two slabs): C's four boxes all
  // load at the tile's start, after one wait for every store; each slab's first box waits too, and
  // each of the four boxes' element-by-element branch.
  CHECK(count("mbarrier.init") == 2 * 4 + 2 + 2 * 4);
  CHECK(count("cp.async.bulk.wait_group.read 0") == 1 + 2 + 4);
  CHECK(count("cp.async.bulk.wait_group.read 1") == 2);
}

TEST_CASE("hopper_gemm: a cluster of two multicasts the shared operand's halves") {
  for (std::array<int, 2> cl : {std::array<int, 2>{2, 1}, {1, 2}}) {
    for (Major om : {Major::Row, Major::Column}) {
      HopperGemmConfig c;
      c.cluster_m = cl[0];
      c.cluster_n = cl[1];
      c.out_major = om;
      c.b_major = codegen::Major::MN;
      INFO(c.name());
      CHECK(c.name().find(cl[0] == 2 ? "_c2x1" : "_c1x2") != std::string::npos);
      CHECK(hopper_gemm_metadata(c).design.cluster == std::array<int, 3>{cl[0], cl[1], 1});
      // The kernel's own problem: for a column-major out, B^T A^T with the cluster's M and N swapped.
      const HopperGemmConfig k = kernel_config(c);
      CHECK(k.cluster_m == (om == Major::Row ? cl[0] : cl[1]));
      std::string ptx = codegen::print_ptx(hopper_gemm(c));
      ptx = std::regex_replace(ptx, std::regex("[ \t]+"), " ");
      CHECK(ptx.find(".reqnctapercluster 2, 1, 1") != std::string::npos);
      auto count = [&](const std::string& needle) {
        size_t n = 0;
        for (size_t at = ptx.find(needle); at != std::string::npos; at = ptx.find(needle, at + 1)) ++n;
        return n;
      };
      // One TMA load of the shared operand's half (64 rows: one box, K- or M/N-major), multicast;
      // the other operand whole: one box if K-major, two 64-element boxes if M/N-major.
      const bool a_shared = k.cluster_n == 2;
      const bool a_mn = k.a_major == codegen::Major::MN, b_mn = k.b_major == codegen::Major::MN;
      const size_t own_loads = (a_shared ? b_mn : a_mn) ? 2 : 1;
      CHECK(count(".multicast::cluster") == 1);
      // C's loads: per box of 128 bytes of out, one for a row-major C and 64 rows / (128 bytes of
      // M) for a column-major one.
      const int ob = codegen::bytes(k.out), boxes = k.tile_n * ob / 128;
      // In lines (these kernels have room), one more per view (16 / ob of them) and load site.
      REQUIRE(hopper_gemm_c_lines(c));
      const size_t c_loads = static_cast<size_t>(boxes * (1 + 64 * ob / 128) * (1 + 16 / ob));
      CHECK(count("cp.async.bulk.tensor.3d.shared::cluster.global") == 1 + own_loads + c_loads);
      // Every consumer warp releases a stage on both CTAs' barriers, at the default semantics
      // (.release.cta: a cluster-scope release puts a GPU-wide memory barrier before each).
      CHECK(count("mbarrier.arrive.shared::cluster.b64") == 2 * 2);
      CHECK(count("mbarrier.arrive.release.cluster") == 0);
      // The tensor maps: the shared operand's box is half the tile.
      const GemmArguments g = arguments_for(c, 2, 1000, 700, 333);
      const HopperGemmTensorMaps maps = hopper_gemm_tensor_maps(c, g);
      const rt::TensorMapSpec& shared = a_shared ? maps.a : maps.b;
      INFO(rt::to_string(maps.a) << " | " << rt::to_string(maps.b));
      CHECK(shared.box == std::vector<int64_t>{64, 64, 1});  // (k, 64 rows) or (64 of M/N, k)
      const rt::TensorMapSpec& own = a_shared ? maps.b : maps.a;
      CHECK(own.box == (a_shared ? (b_mn ? std::vector<int64_t>{64, 64, 1} : std::vector<int64_t>{64, 128, 1})
                                 : (a_mn ? std::vector<int64_t>{64, 64, 1} : std::vector<int64_t>{64, 128, 1})));
      // The grid: clusters of 2 over the cluster tiles, ceil(1000/256) x ceil(700/128) x 2 = 48 (or
      // with M and N exchanged, ceil(700/256) x ceil(1000/128) x 2 = 48), at most 132 CTAs.
      const codegen::LaunchPlan p = hopper_gemm_plan(c, g, hopper_gemm(c), 132, fake_encode);
      CHECK(p.cluster == std::array<unsigned, 3>{2, 1, 1});
      CHECK(p.grid == std::array<unsigned, 3>{96, 1, 1});
      const codegen::LaunchPlan few = hopper_gemm_plan(c, g, hopper_gemm(c), 3, fake_encode);
      CHECK(few.grid == std::array<unsigned, 3>{2, 1, 1});
    }
  }
}

TEST_CASE("hopper_gemm: supports() explains what it refuses") {
  HopperGemmConfig c;
  GemmArguments g = arguments_for(c, 2, 300, 200, 100);
  CHECK(hopper_gemm_supports(c, g).ok);
  SUBCASE("a leading dimension that is not a multiple of 16 bytes") {
    g.A.stride = {300 * 104, 101, 1};
    const Status s = hopper_gemm_supports(c, g);
    CHECK(!s.ok);
    CHECK(s.reason.find("202 bytes is not a multiple of 16") != std::string::npos);
  }
  SUBCASE("a misaligned address") {
    g.B.data += 8;
    CHECK(hopper_gemm_supports(c, g).reason.find("is not 16-byte aligned") != std::string::npos);
  }
  SUBCASE("the other major") {
    g.A.stride = {300 * 104, 1, 304};
    CHECK(hopper_gemm_supports(c, g).reason.find("needs stride 1 there") != std::string::npos);
  }
  SUBCASE("another type") {
    g.out.dtype = Type::F16;
    CHECK(hopper_gemm_supports(c, g).reason.find("out is f16; this kernel takes bf16") != std::string::npos);
  }
  SUBCASE("broadcast batches: A, B and C may, out may not") {
    g.A.stride[0] = 0;
    CHECK(hopper_gemm_supports(c, g).ok);
    g.out.stride[0] = 0;
    CHECK(hopper_gemm_supports(c, g).reason.find("(out's batches may not alias)") != std::string::npos);
  }
  SUBCASE("a C of its own") {
    g.beta = 1;
    TensorView cv = g.out;
    cv.data = 0x900000;
    g.C = cv;
    CHECK(hopper_gemm_supports(c, g).ok);
    SUBCASE("column-major, broadcast") {
      g.C->stride = {0, 1, g.C->shape[1]};
      g.C->stride[2] = (g.C->shape[1] + 7) / 8 * 8;
      CHECK(hopper_gemm_supports(c, g).ok);
    }
    SUBCASE("neither major") {
      g.C->stride = {g.C->stride[0], 2 * g.C->stride[1], 2};
      CHECK(hopper_gemm_supports(c, g).reason.find("has stride 1 in neither M nor N") != std::string::npos);
    }
    SUBCASE("misaligned: read in lines where the kernel has room, else refused") {
      g.C->data += 2;
      REQUIRE(hopper_gemm_c_lines(c));
      CHECK(hopper_gemm_supports(c, g).ok);
      g.C->data += 1;  // not even an element's alignment
      CHECK(hopper_gemm_supports(c, g).reason.find("is not 2-byte aligned") != std::string::npos);
      g.C->data -= 1;
      HopperGemmConfig full = c;  // 128 x 256 with 4 stages: no room for the lines
      full.tile_n = 256;
      full.stages = 4;
      REQUIRE(!hopper_gemm_c_lines(full));
      CHECK(hopper_gemm_supports(full, g).reason.find("no room to read C in lines") != std::string::npos);
      if (g.C->shape[0] > 1 && g.C->stride[0] != 0) {  // batches 2 bytes apart more: off the granules
        g.C->stride[0] += 1;
        CHECK(hopper_gemm_supports(c, g).reason.find("batches must lie a multiple of 16 bytes apart") != std::string::npos);
        g.C->stride[0] -= 1;
      }
      g.beta = 0;  // never read: its alignment does not matter
      CHECK(hopper_gemm_supports(full, g).ok);
    }
    SUBCASE("another type") {
      g.C->dtype = Type::F32;
      CHECK(hopper_gemm_supports(c, g).reason.find("needs C of out's element type") != std::string::npos);
    }
    SUBCASE("overlapping out") {
      g.C->data = g.out.data + 64;
      CHECK(hopper_gemm_supports(c, g).reason.find("partial overlap is not") != std::string::npos);
    }
  }
  SUBCASE("mismatched K") {
    g.B.shape[1] = 99;
    CHECK(hopper_gemm_supports(c, g).reason.find("B has K = 99, A has K = 100") != std::string::npos);
  }
  SUBCASE("an s32 accumulator") {
    g.accumulator_type = Type::S32;
    CHECK(hopper_gemm_supports(c, g).reason.find("accumulates in f32") != std::string::npos);
  }
  SUBCASE("infinite alpha") {
    g.alpha = 1.0 / 0.0;
    CHECK(hopper_gemm_supports(c, g).reason.find("must be finite") != std::string::npos);
  }
}

TEST_CASE("hopper_gemm: the plan's tensor maps, persistent grid and parameters") {
  for (codegen::Major am : {codegen::Major::K, codegen::Major::MN}) {
    for (codegen::Major bm : {codegen::Major::K, codegen::Major::MN}) {
      HopperGemmConfig c;
      c.a_major = am;
      c.b_major = bm;
      const GemmArguments g = arguments_for(c, 3, 1000, 700, 333);
      const HopperGemmTensorMaps maps = hopper_gemm_tensor_maps(c, g);
      const rt::TensorMapSpec &sa = maps.a, &sb = maps.b;
      INFO(c.name() << ": " << rt::to_string(sa) << " | " << rt::to_string(sb) << " | " << rt::to_string(maps.out));
      // Dimension 0 is the contiguous one; the box covers one 128-byte swizzle row of it.
      CHECK(sa.dims == (am == codegen::Major::K ? std::vector<int64_t>{333, 1000, 3} : std::vector<int64_t>{1000, 333, 3}));
      CHECK(sb.dims == (bm == codegen::Major::K ? std::vector<int64_t>{333, 700, 3} : std::vector<int64_t>{700, 333, 3}));
      CHECK(sa.box == (am == codegen::Major::K ? std::vector<int64_t>{64, 128, 1} : std::vector<int64_t>{64, 64, 1}));
      CHECK(sa.swizzle == rt::TensorMapSwizzle::B128);
      // The epilogue's boxes: 64 rows x 128 bytes of the row-major out.
      CHECK(maps.out.dims == std::vector<int64_t>{700, 1000, 3});
      CHECK(maps.out.box == std::vector<int64_t>{64, 64, 1});
      CHECK(maps.out.swizzle == rt::TensorMapSwizzle::B128);
      const codegen::LaunchPlan p = hopper_gemm_plan(c, g, hopper_gemm(c), 132, fake_encode);
      // ceil(1000/128) * ceil(700/128) * 3 = 8 * 6 * 3 = 144 tiles on at most 132 CTAs.
      CHECK(p.grid == std::array<unsigned, 3>{132, 1, 1});
      CHECK(p.block == std::array<unsigned, 3>{384, 1, 1});
      CHECK(p.dynamic_shared_bytes == static_cast<unsigned>(c.shared_bytes()));
      // tmap_a, tmap_b, tmap_out, tmap_c, tmap_c1 .. tmap_c7 (C in lines: 16-bit out), out, M, N,
      // K, L, ld_out, batch_stride_out, alpha, beta, flags, c_offsets.
      REQUIRE(hopper_gemm_c_lines(c));
      REQUIRE(p.params.size() == 22);
      for (int i = 0; i < 11; ++i) CHECK(p.params[static_cast<size_t>(i)].size() == 128);
      int32_t m = 0;
      std::memcpy(&m, p.params[12].data(), 4);
      CHECK(m == 1000);
      uint32_t flags = 1;
      std::memcpy(&flags, p.params[20].data(), 4);
      CHECK(flags == 0);  // no broadcast; C (out) row-major, through the TMA
    }
  }
  HopperGemmConfig col;
  col.out = Type::F32;
  col.out_major = Major::Column;
  // A column-major out is the kernel's row-major out^T: (M contiguous, N, L), 32 f32 per box row.
  const HopperGemmTensorMaps t = hopper_gemm_tensor_maps(col, arguments_for(col, 3, 1000, 700, 333));
  CHECK(t.out.dims == std::vector<int64_t>{1000, 700, 3});
  CHECK(t.out.box == std::vector<int64_t>{32, 64, 1});
  CHECK(t.c.dims == t.out.dims);  // C is out
  // A row-major C of a column-major out is column-major in the kernel's problem: (N contiguous,
  // M, L) with boxes of 128 bytes of the kernel's M (32 f32) by a box's 32 columns; broadcast:
  // one batch.
  GemmArguments with_c = arguments_for(col, 3, 1000, 700, 333);
  with_c.beta = 2;
  with_c.C = TensorView{0x900000, Type::F32, {3, 1000, 700}, {0, 704, 1}};
  REQUIRE(hopper_gemm_supports(col, with_c));
  const HopperGemmTensorMaps tc = hopper_gemm_tensor_maps(col, with_c);
  CHECK(tc.c.dims == std::vector<int64_t>{700, 1000, 1});
  CHECK(tc.c.box == std::vector<int64_t>{32, 32, 1});
  CHECK(hopper_gemm_flags(with_c.B, with_c.A, TensorView{0, Type::F32, {3, 700, 1000}, {0, 1, 704}}) ==
        (kHopperGemmBroadcastC | kHopperGemmColumnMajorC));
  HopperGemmConfig c;
  const codegen::LaunchPlan small = hopper_gemm_plan(c, arguments_for(c, 1, 100, 100, 10), hopper_gemm(c), 132, fake_encode);
  CHECK(small.grid[0] == 1);
}

// A C whose rows the TMA cannot describe, in lines: rows 1501 bf16 apart (3002 bytes, 10 past a
// granule) need G = 16 / gcd(16, 10) = 8 views, each every 8th row with a pitch of 8 rows (24016
// bytes), based at the granule of its first row and as wide as that row's offset in it plus N.
TEST_CASE("hopper_gemm: the views of a C read in lines") {
  HopperGemmConfig c;
  GemmArguments g = arguments_for(c, 2, 300, 200, 64);
  g.beta = 1;
  const uint64_t at = 0x900002;
  g.C = TensorView{at, Type::BF16, {2, 300, 200}, {300 * 1504, 1501, 1}};
  REQUIRE(hopper_gemm_supports(c, g));
  const HopperGemmTensorMaps maps = hopper_gemm_tensor_maps(c, g);
  const HopperGemmCViews& v = maps.c_views;
  CHECK(v.log_g == 3);
  CHECK(v.line_bytes == 3002);
  REQUIRE(v.specs.size() == 8);
  for (int j = 0; j < 8; ++j) {
    const uint64_t first = at + static_cast<uint64_t>(j) * 3002;
    const int64_t off = static_cast<int64_t>(first % 16);
    INFO("view " << j << ": " << rt::to_string(v.specs[static_cast<size_t>(j)]));
    CHECK(((v.offsets >> (4 * j)) & 15) == off);
    CHECK(v.specs[static_cast<size_t>(j)].dims == std::vector<int64_t>{off / 2 + 200, (300 - j + 7) / 8, 2});
    CHECK(v.specs[static_cast<size_t>(j)].box == std::vector<int64_t>{72, 8, 1});
    CHECK(v.specs[static_cast<size_t>(j)].strides == std::vector<int64_t>{1, 8 * 1501, 300 * 1504});
    CHECK(v.specs[static_cast<size_t>(j)].swizzle == rt::TensorMapSwizzle::None);
  }
  // At launch: the flags say lines and G's log2, view j is based at its granule, c_offsets last.
  std::vector<uint64_t> bases;
  const TensorMapEncoder record = [&](const rt::TensorMapSpec& s, uint64_t address) {
    bases.push_back(address);
    return fake_encode(s, address);
  };
  const codegen::LaunchPlan p = hopper_gemm_plan(c, g, hopper_gemm(c), 132, record);
  REQUIRE(p.params.size() == 22);
  REQUIRE(bases.size() >= 11);
  for (int j = 0; j < 8; ++j) CHECK(bases[static_cast<size_t>(3 + j)] == ((at + static_cast<uint64_t>(j) * 3002) & ~uint64_t{15}));
  uint32_t flags = 0, offsets = 0;
  std::memcpy(&flags, p.params[20].data(), 4);
  std::memcpy(&offsets, p.params[21].data(), 4);
  CHECK(flags == (kHopperGemmLinesC | (3u << kHopperGemmLogViewsShift)));
  CHECK(offsets == v.offsets);
}
