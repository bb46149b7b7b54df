// elementwise_test.cpp: the elementwise kernels on the CPU: every listed configuration assembles
// with ptxas (no spills) and uses ld/st.global.v4 where its vector path applies; the host side's
// normal form, kernel choice and refusals. (The f16/bf16 conversions behind the host reference:
// tests/codegen/number_format_test.cpp.)
#include "tessel/kernels/elementwise.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "algebra/support.hpp"
#include "codegen/ptxas.hpp"
#include "kernels/listed.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/testing/elementwise_check.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

ElementwiseArguments binary(ElementwiseOp op, TensorView a, TensorView b, TensorView c) { return {op, a, b, c}; }

}  // namespace

TEST_CASE("kernels: every elementwise configuration assembles with ptxas, vector paths in v4") {
  const auto configs = test::listed_of("elementwise");
  CHECK(configs.size() >= 66);  // every op x dtype at least
  for (const test::Listed& l : configs) {
    const ElementwiseConfig c = elementwise_config(l.options);
    const codegen::Module m = l.kernel->generate();
    const std::string ptx = codegen::print_ptx(m);
    INFO(l.label);
    CHECK(codegen::target_name(codegen::requirement(m)) == "sm_80");
    // The full-tile path moves every unit-stride operand in 16-byte vectors (v4 of b32/f32,
    // v2 of f64); each input of `rows` vectors, C likewise.
    if (c.vector * codegen::bytes(c.dtype) == 16) {
      const size_t loads = count(ptx, "ld.global.v4.") + count(ptx, "ld.global.nc.v4.") + count(ptx, "ld.global.v2.f64") +
                           count(ptx, "ld.global.nc.v2.f64");
      const size_t stores = count(ptx, "st.global.v4.") + count(ptx, "st.global.v2.f64");
      const int inputs = (c.unit[0] ? 1 : 0) + (is_unary(c.op) ? 0 : (c.unit[1] ? 1 : 0));
      CHECK(loads == static_cast<size_t>(inputs * c.rows));
      CHECK(stores == static_cast<size_t>(c.unit[2] ? c.rows : 0));
    }
    if (c.nc) CHECK(count(ptx, "ld.global.nc") > 0);
    if (test::ptxas_path().empty()) continue;
    const test::PtxasResult r = test::run_ptxas(ptx, "sm_80");
    INFO(r.log);
    CHECK(r.ok);
    CHECK(r.log.find(" 0 bytes spill stores") != std::string::npos);
  }
  if (test::ptxas_path().empty()) std::printf("TESSEL_SKIP: ptxas not found\n");
}

TEST_CASE("kernels: elementwise normal form sorts by C's strides, drops extent 1, merges contiguous modes") {
  // Row-major 2-D, all three alike: one mode.
  auto p = normalize_elementwise(binary(ElementwiseOp::Add, row_major(0x100000, Type::F32, {30, 40}),
                                        row_major(0x200000, Type::F32, {30, 40}), row_major(0x300000, Type::F32, {30, 40})));
  CHECK(p.shape == std::vector<int64_t>{1200});
  CHECK(p.args.C.stride == std::vector<int64_t>{1});
  // Padded rows (pitch 48) in C only: two modes, C's contiguous one first.
  TensorView c{0x300000, Type::F32, {30, 40}, {48, 1}};
  p = normalize_elementwise(binary(ElementwiseOp::Add, row_major(0x100000, Type::F32, {30, 40}),
                                   row_major(0x10000, Type::F32, {30, 40}), c));
  CHECK(p.shape == std::vector<int64_t>{40, 30});
  CHECK(p.args.C.stride == std::vector<int64_t>{1, 48});
  CHECK(p.args.A.stride == std::vector<int64_t>{1, 40});
  // Column-major 4-D with extent-1 modes: one mode again.
  p = normalize_elementwise(binary(ElementwiseOp::Mul, column_major(0x1000, Type::BF16, {5, 1, 7, 1}),
                                   column_major(0x2000, Type::BF16, {5, 1, 7, 1}),
                                   column_major(0x3000, Type::BF16, {5, 1, 7, 1})));
  CHECK(p.shape == std::vector<int64_t>{35});
  // A zero extent is an empty problem, not an error (and needs no pointers).
  p = normalize_elementwise(binary(ElementwiseOp::Add, row_major(0, Type::F32, {0, 7}), row_major(0, Type::F32, {0, 7}),
                                   row_major(0, Type::F32, {0, 7})));
  CHECK(p.empty());
  CHECK(elementwise_plan(p.args).grid[0] == 1);  // the default LaunchPlan: nothing to launch
  CHECK(elementwise_plan(p.args).kernel.empty());
}

TEST_CASE("kernels: elementwise picks the widest vector the pointers and strides allow") {
  // Addresses 2^40 apart (A), 2^41 (B), 2^42 (C) plus the given offsets: never overlapping.
  auto choose = [](uint64_t a, uint64_t b, uint64_t c, Type t, std::vector<int64_t> shape) {
    TensorView va = row_major((1ull << 40) + a, t, shape), vb = row_major((2ull << 40) + b, t, shape),
               vc = row_major((4ull << 40) + c, t, shape);
    return choose_elementwise_config(normalize_elementwise(binary(ElementwiseOp::Add, va, vb, vc)));
  };
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::F32, {1 << 20}).vector == 4);
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::BF16, {1 << 20}).vector == 8);
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::S8, {1 << 20}).vector == 16);
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::F64, {1 << 20}).vector == 2);
  CHECK(choose(0x1004, 0x2000, 0x3000, Type::F32, {1 << 20}).vector == 1);  // A misaligned by 4 bytes
  CHECK(choose(0x1008, 0x2000, 0x3000, Type::F32, {1 << 20}).vector == 2);
  CHECK(choose(0x1000, 0x2000, 0x3002, Type::BF16, {1 << 20}).vector == 1);
  // 16 bytes of each input in flight per thread: one 16-byte vector, or more narrower ones.
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::BF16, {1 << 20}).rows == 1);
  CHECK(choose(0x1004, 0x2000, 0x3000, Type::F32, {1 << 20}).rows == 4);
  CHECK(choose(0x1008, 0x2000, 0x3000, Type::F32, {1 << 20}).rows == 2);
  CHECK(choose(0x1000, 0x2000, 0x3002, Type::BF16, {1 << 20}).rows == 8);
  CHECK(choose(0x1001, 0x2000, 0x3000, Type::S8, {1 << 20}).rows == 8);  // 16 one-byte vectors would be too many
  // A GEMM's copy of rows 1501 or 1500 f16 apart into rows 128 bytes apart: 2- and 8-byte vectors.
  auto copy_rows = [](int64_t ld, int rows) {
    ElementwiseOptions o;
    o.rows = rows;
    return choose_elementwise_config(normalize_elementwise(ElementwiseArguments{
                                         ElementwiseOp::Copy, TensorView{0x100000, Type::F16, {2000, 1500}, {ld, 1}},
                                         TensorView{0x100000, Type::F16, {2000, 1500}, {ld, 1}},
                                         TensorView{0x10000000, Type::F16, {2000, 1500}, {1536, 1}}}),
                                     o);
  };
  CHECK(copy_rows(1501, 0).vector == 1);
  CHECK(copy_rows(1501, 0).rows == 8);
  CHECK(copy_rows(1500, 0).vector == 4);
  CHECK(copy_rows(1500, 0).rows == 2);
  CHECK(copy_rows(1501, 3).rows == 3);  // given, not chosen
  CHECK_THROWS_AS(elementwise_kernel(copy_rows(1501, -1)), Error);  // refused, not taken as "choose"
  // Padded rows of 1002 f32: a pitch that is a multiple of 2 only.
  TensorView c{0x1000, Type::F32, {8, 1000}, {1002, 1}};
  auto cfg = choose_elementwise_config(normalize_elementwise(binary(ElementwiseOp::Add, c, c, c)));
  CHECK(cfg.vector == 2);
  CHECK(cfg.rows == 2);
  CHECK(cfg.rank == 2);
  CHECK(cfg.major == 0);
  CHECK(!cfg.nc);  // in place: C is A and B
  // A transposed input is staged through shared memory (32 rows of the tile: 4 warps x 8 rows);
  // the others keep their vectors. A problem this small (64 x 64) narrows the tile to vector 1
  // for more blocks (the tile's choice: the next test case).
  TensorView at{0x100000, Type::F32, {64, 64}, {1, 64}};
  cfg = choose_elementwise_config(normalize_elementwise(
      binary(ElementwiseOp::Add, at, row_major(0x200000, Type::F32, {64, 64}), row_major(0x300000, Type::F32, {64, 64}))));
  CHECK(cfg.unit == std::array<bool, 3>{false, true, true});
  CHECK(cfg.staged == std::array<bool, 3>{true, false, false});
  CHECK(cfg.rows == 8);
  CHECK(cfg.vector == 1);
  CHECK(cfg.nc);
  CHECK(cfg.name().find("_r2_m0_tuu_v1_r8_") != std::string::npos);
  // Narrow types load 4-byte words along the staged mode where the address and strides allow.
  auto staged_s8 = [](uint64_t a, int64_t ld) {
    return choose_elementwise_config(normalize_elementwise(ElementwiseArguments{
        ElementwiseOp::Copy, TensorView{a, Type::S8, {64, 200}, {1, ld}}, TensorView{a, Type::S8, {64, 200}, {1, ld}},
        row_major(0x300000, Type::S8, {64, 200})}));
  };
  CHECK(staged_s8(0x100000, 64).stage_vector == 4);
  CHECK(staged_s8(0x100000, 64).name().find("_r2_m0_tuu_w4_v4_r8_") != std::string::npos);  // 200 < 256: v4
  CHECK(staged_s8(0x100002, 64).stage_vector == 2);  // the address allows 2 bytes
  CHECK(staged_s8(0x100000, 66).stage_vector == 2);  // and so does a column pitch of 66
  CHECK(staged_s8(0x100000, 65).stage_vector == 1);
  // Fewer than 32 elements along the transposed input's unit stride: element by element, as the
  // staged tile would leave most of its rows empty.
  TensorView narrow{0x100000, Type::F32, {20, 64}, {1, 20}};
  cfg = choose_elementwise_config(normalize_elementwise(binary(
      ElementwiseOp::Add, narrow, row_major(0x200000, Type::F32, {20, 64}), row_major(0x300000, Type::F32, {20, 64}))));
  CHECK(cfg.unit == std::array<bool, 3>{false, true, true});
  CHECK(cfg.staged == std::array<bool, 3>{false, false, false});
  CHECK(cfg.rows == 1);
  // Spans past 2^31 bytes take 64-bit offsets.
  CHECK(choose(0x1000, 0x2000, 0x3000, Type::F32, {1 << 29}).wide_index);
  CHECK(!choose(0x1000, 0x2000, 0x3000, Type::F32, {1 << 28}).wide_index);
}

TEST_CASE("kernels: a staged elementwise copy's tile follows the problem: shifted edge tiles, enough blocks") {
  // A (rows, cols) in one major copied into C in the other, as the GEMM packs an operand or C;
  // buffers 2^40 apart (never overlapping). Returns the configuration and its grid (tiles).
  struct Choice {
    ElementwiseConfig c;
    int64_t tiles;
  };
  auto choose = [](Type t, int64_t rows, int64_t cols, bool a_row_major, int64_t c_pitch = 0, uint64_t a_off = 0) {
    const TensorView a = a_row_major ? row_major((1ull << 40) + a_off, t, {rows, cols})
                                     : column_major((1ull << 40) + a_off, t, {rows, cols});
    TensorView c = a_row_major ? column_major(2ull << 40, t, {rows, cols}) : row_major(2ull << 40, t, {rows, cols});
    if (c_pitch > 0) c.stride = a_row_major ? std::vector<int64_t>{1, c_pitch} : std::vector<int64_t>{c_pitch, 1};
    const ElementwiseProblem p = normalize_elementwise(ElementwiseArguments{ElementwiseOp::Copy, a, a, c});
    const ElementwiseConfig cfg = choose_elementwise_config(p);
    const std::vector<int64_t> tile = cfg.tile();
    int64_t n = 1;
    for (size_t k = 0; k < p.shape.size(); ++k) n *= (p.shape[k] + tile[k] - 1) / tile[k];
    return Choice{cfg, n};
  };
  // The 2000 x 1500 bf16 C of a GEMM into column-major: 376 blocks of 256 x 32 before (under 3 per
  // SM of an H100); the vector halves to 2 (64 x 32 tiles): 1504 blocks, every tile whole.
  Choice x = choose(Type::BF16, 2000, 1500, true);
  CHECK(x.c.staged == std::array<bool, 3>{true, false, false});
  CHECK(x.c.shifted);
  CHECK(x.c.vector == 2);
  CHECK(x.c.stage_vector == 2);
  CHECK(x.c.tile() == std::vector<int64_t>{64, 32});
  CHECK(x.tiles == 1504);
  CHECK(x.c.name() == "tessel_elementwise_copy_bf16_r2_m0_tuu_w2_v2_r8_t128_i32_nc_ov");
  // 4096^2 s8 has 2048 blocks at its widest staged tile (8-byte vectors of C, 4-byte loads): kept.
  x = choose(Type::S8, 4096, 4096, false);
  CHECK(x.c.shifted);
  CHECK(x.c.vector == 8);
  CHECK(x.c.stage_vector == 4);
  CHECK(x.tiles == 2048);
  // 1000 x 3000 f32 into row-major: 768 tiles of 128 x 32, so 64 x 32: 1504.
  x = choose(Type::F32, 1000, 3000, false);
  CHECK(x.c.shifted);
  CHECK(x.c.vector == 2);
  CHECK(x.tiles == 1504);
  // Odd extents and pitches: 1-element vectors, still whole tiles (shifted).
  x = choose(Type::F32, 4095, 4097, false);
  CHECK(x.c.shifted);
  CHECK(x.c.vector == 1);
  CHECK(x.c.stage_vector == 1);
  CHECK(x.tiles == 129 * 128);
  // A large problem keeps the widest tile: 2^26 f32 (16384 x 4096), 16384 blocks of 128 x 32.
  x = choose(Type::F32, 16384, 4096, false);
  CHECK(x.c.vector == 4);
  CHECK(x.c.shifted);
  CHECK(x.tiles == 16384);
  // s8 stops at 4-byte vectors of C (vector 4): 300 x 200 keeps 3 x 7 tiles of 128 x 32.
  x = choose(Type::S8, 300, 200, true);
  CHECK(x.c.vector == 4);
  CHECK(x.c.shifted);
  // A padded C whose pitch allows 16 bytes but whose odd extent no vector of 2 or more divides:
  // the ragged path (vector 8 narrowed by the block target only, to 4-byte vectors).
  x = choose(Type::BF16, 1001, 300, true, 1008);
  CHECK(!x.c.shifted);
  CHECK(x.c.vector == 2);
  CHECK(x.c.name().find("_ov") == std::string::npos);
  // An extent below the narrowest tile (30 < 32 x 1 f32): the ragged path.
  x = choose(Type::F32, 64, 30, false);
  CHECK(x.c.staged[0]);
  CHECK(!x.c.shifted);
  // A misaligned A loads single elements (stage_vector 1) and still gets whole tiles.
  x = choose(Type::S8, 512, 640, false, 0, 1);
  CHECK(x.c.stage_vector == 1);
  CHECK(x.c.shifted);
  // In place (C is B) the overlap of edge tiles would read what a neighbour wrote: no shift.
  const TensorView at = column_major(1ull << 40, Type::F32, {100, 300});
  const TensorView bc = row_major(2ull << 40, Type::F32, {100, 300});
  const ElementwiseConfig in_place =
      choose_elementwise_config(normalize_elementwise(binary(ElementwiseOp::Add, at, bc, bc)));
  CHECK(in_place.staged[0]);
  CHECK(!in_place.nc);
  CHECK(!in_place.shifted);
  // The options still turn staging off (the element-by-element path, to compare against).
  ElementwiseOptions off;
  off.stage = false;
  const ElementwiseConfig unstaged =
      choose_elementwise_config(normalize_elementwise(ElementwiseArguments{ElementwiseOp::Copy, at, at, bc}), off);
  CHECK(unstaged.staged == std::array<bool, 3>{false, false, false});
  CHECK(!unstaged.shifted);
}

TEST_CASE("kernels: a staged elementwise tile's shared-memory stores: every element once, no bank conflicts") {
  // Each staged store instruction (one value index, a warp's 32 lanes) writes 4-byte words in
  // distinct banks, lanes that share a word aside; and the block's stores cover the tile once.
  // (Before the values were interleaved along the major mode, s8's lanes met 4 to a bank, f16's 2.)
  for (Type t : {Type::F32, Type::F16, Type::BF16, Type::S8}) {
    const int eb = codegen::bytes(t);
    for (int threads : {128, 256}) {
      for (int vector = 1; vector * eb <= 8 && vector * (1024 / threads) <= 64; vector *= 2) {
        for (int w = std::max(1, 4 / eb); w >= 1; w /= 2) {
          ElementwiseConfig c;
          c.op = ElementwiseOp::Copy;
          c.dtype = t;
          c.rank = 2;
          c.unit = {false, true, true};
          c.staged = {true, false, false};
          c.threads = threads;
          c.rows = 32 / (threads / 32);
          c.vector = vector;
          c.stage_vector = w;
          if ((32 * vector) % (threads / 32 * w) != 0) continue;
          INFO(c.name());
          const std::vector<int64_t> off = staged_store_offsets(c);
          const int64_t nvals = int64_t{vector} * c.rows, tile_m = 32 * vector, pitch = tile_m + std::max(1, 4 / eb);
          REQUIRE(off.size() == static_cast<size_t>(threads * nvals));
          std::set<int64_t> all(off.begin(), off.end());
          CHECK(all.size() == off.size());  // every element once
          CHECK(*all.rbegin() == (31 * pitch + tile_m - 1) * eb);
          int worst = 1;
          for (int warp = 0; warp < threads / 32; ++warp)
            for (int64_t v = 0; v < nvals; ++v) {
              std::map<int64_t, std::set<int64_t>> words;  // bank -> words
              for (int lane = 0; lane < 32; ++lane) {
                const int64_t word = off[static_cast<size_t>((warp * 32 + lane) * nvals + v)] / 4;
                words[word % 32].insert(word);
              }
              for (const auto& [bank, w_in_bank] : words) worst = std::max(worst, static_cast<int>(w_in_bank.size()));
            }
          CHECK(worst == 1);
        }
      }
    }
  }
}

TEST_CASE("kernels: elementwise shifted edge tiles refuse what they cannot cover, naming the rule") {
  ElementwiseConfig c;
  c.op = ElementwiseOp::Copy;
  c.dtype = Type::F16;
  c.rank = 2;
  c.unit = {false, true, true};
  c.staged = {true, false, false};
  c.vector = 4;
  c.rows = 8;
  c.stage_vector = 2;
  c.shifted = true;
  CHECK_THROWS_WITH_AS(elementwise_kernel(c),
                       doctest::Contains("shifted edge tiles write the overlap twice: they need nc"), Error);
  c.nc = true;
  CHECK_NOTHROW(elementwise_kernel(c));
  CHECK(shifted_extent_refusal(c, {128, 32}) == "");
  CHECK(shifted_extent_refusal(c, {100, 40}) ==
        "shifted edge tiles need each extent at least the tile's: mode 0 has 100, the tile 128");
  CHECK(shifted_extent_refusal(c, {130, 40}) ==
        "shifted edge tiles need the major extent a multiple of the vector: mode 0 has 130, the vector 4");
  CHECK(shifted_extent_refusal(c, {132, 41}) ==
        "shifted edge tiles need the staged mode's extent a multiple of the stage vector: mode 1 has 41, the stage "
        "vector 2");
  // The plan of the configuration checks the views it is given.
  ElementwiseOptions no_driver;
  no_driver.check_device_memory = false;
  const TensorView a{0x100000, Type::F16, {130, 40}, {40, 1}};
  const TensorView out{0x200000, Type::F16, {130, 40}, {1, 132}};
  CHECK_THROWS_WITH_AS(elementwise_plan(c, ElementwiseArguments{ElementwiseOp::Copy, a, a, out}, no_driver),
                       doctest::Contains("need the major extent a multiple of the vector: mode 0 has 130"), Error);
  // A static configuration checks its own shape.
  ElementwiseConfig s = c;
  s.static_shape = {100, 40};
  s.static_stride = {std::vector<int64_t>{40, 1}, {}, std::vector<int64_t>{1, 100}};
  CHECK_THROWS_WITH_AS(elementwise_kernel(s), doctest::Contains("mode 0 has 100, the tile 128"), Error);
  // C must overlap neither input (the overlap of edge tiles is written twice).
  ElementwiseConfig add = c;
  add.op = ElementwiseOp::Add;
  const TensorView at = row_major(0x100000, Type::F16, {128, 32});
  const TensorView bc = column_major(0x200000, Type::F16, {128, 32});
  CHECK_THROWS_WITH_AS(elementwise_plan(add, binary(ElementwiseOp::Add, at, bc, bc), no_driver),
                       doctest::Contains("C must overlap no input; it overlaps B"), Error);
}

TEST_CASE("kernels: elementwise refuses bad arguments with the value and the rule") {
  const TensorView a = row_major(0x10000, Type::F32, {4, 8});
  const TensorView b = row_major(0x20000, Type::F32, {4, 8});
  const TensorView c = row_major(0x30000, Type::F32, {4, 8});
  auto refuses = [](const ElementwiseArguments& args, const std::string& what) {
    CHECK_THROWS_WITH_AS(normalize_elementwise(args), doctest::Contains(what.c_str()), Error);
  };
  refuses(binary(ElementwiseOp::Add, a, row_major(0x20000, Type::F32, {4, 9}), c), "B has shape (4,9) but C has (4,8)");
  refuses(binary(ElementwiseOp::Add, a, row_major(0x20000, Type::F16, {4, 8}), c), "B is f16 but C is f32");
  refuses(binary(ElementwiseOp::Add, row_major(0x10000, Type::U16, {4}), row_major(0x20000, Type::U16, {4}),
                 row_major(0x30000, Type::U16, {4})),
          "element type u16 is not supported");
  refuses(binary(ElementwiseOp::Add, TensorView{0, Type::F32, {4, 8}, {8, 1}}, b, c), "A is a null pointer");
  refuses(binary(ElementwiseOp::Add, a, b, TensorView{0x30000, Type::F32, {4, 8}, {0, 1}}), "writes some elements twice");
  refuses(binary(ElementwiseOp::Add, a, b, TensorView{0x30000, Type::F32, {4, 8}, {4, 1}}), "writes some elements twice");
  refuses(binary(ElementwiseOp::Add, a, b, TensorView{0x10000 + 8, Type::F32, {4, 8}, {8, 1}}), "overlaps A");
  refuses(binary(ElementwiseOp::Add, a, b, TensorView{0x10000, Type::F32, {4, 8}, {1, 4}}), "overlaps A");
  refuses(binary(ElementwiseOp::Add, a, TensorView{0x20000, Type::F32, {4, 8}, {-8, 1}}, c), "stride -8 in mode 0");
  refuses(binary(ElementwiseOp::Add, a, TensorView{0x20000, Type::F32, {4, 8}, {8}}, c), "one stride per mode");
  ElementwiseArguments ax = binary(ElementwiseOp::Axpby, row_major(0x10000, Type::S32, {4}),
                                   row_major(0x20000, Type::S32, {4}), row_major(0x30000, Type::S32, {4}));
  ax.alpha = 0.5;
  refuses(ax, "integer alpha and beta, got 0.5");
  // Rank 5 that no merge reduces (every mode padded in C).
  TensorView c5{0x40000, Type::F32, {2, 2, 2, 2, 2}, {1, 3, 7, 15, 31}};
  TensorView a5{0x80000, Type::F32, {2, 2, 2, 2, 2}, {1, 2, 4, 8, 16}};
  refuses(binary(ElementwiseOp::Add, a5, a5, c5), "rank 5 after merging");
  // In place (C is A) and broadcast inputs (stride 0) are fine.
  CHECK_NOTHROW(normalize_elementwise(binary(ElementwiseOp::Add, a, b, a)));
  CHECK_NOTHROW(normalize_elementwise(binary(ElementwiseOp::Add, TensorView{0x10000, Type::F32, {4, 8}, {0, 1}}, b, c)));
}

TEST_CASE("kernels: an elementwise plan checks the arguments against its configuration") {
  ElementwiseConfig cfg;  // add f32, rank 1, unit strides, vector 1
  cfg.vector = 4;
  const TensorView a = row_major(0x100000, Type::F32, {5000});
  CHECK_THROWS_WITH_AS(elementwise_plan(cfg, binary(ElementwiseOp::Add, TensorView{0x10004, Type::F32, {5000}, {1}}, a, a)),
                       doctest::Contains("moves A in 16-byte vectors; its address 0x10004 is not aligned"), Error);
  CHECK_THROWS_WITH_AS(elementwise_plan(cfg, binary(ElementwiseOp::Sub, a, a, a)),
                       doctest::Contains("computes add, the arguments ask for sub"), Error);
  const codegen::LaunchPlan plan = elementwise_plan(cfg, binary(ElementwiseOp::Add, a, a, a));
  CHECK(plan.kernel == cfg.name());
  CHECK(plan.params.size() == plan.entry().params.size());
  CHECK(plan.grid[0] == 10);  // 5000 elements, tiles of 128 threads x 4 elements x 1 row
  CHECK(plan.block[0] == 128);
}

TEST_CASE("kernels: a staged elementwise configuration is checked, and so are the views it is given") {
  ElementwiseConfig cfg;
  cfg.op = ElementwiseOp::Copy;
  cfg.rank = 2;
  cfg.vector = 4;
  cfg.unit = {false, true, true};
  cfg.staged = {true, false, false};
  cfg.rows = 4;  // 4 warps x 4 rows: 16, not the staged tile's 32
  CHECK_THROWS_WITH_AS(elementwise_kernel(cfg), doctest::Contains("A staged through shared memory needs warps x rows = 32 (the tile's extent along its unit-stride mode), got 4 x 4"), Error);
  cfg.rows = 8;
  CHECK_NOTHROW(elementwise_kernel(cfg));
  ElementwiseConfig out = cfg;
  out.staged[2] = true;
  CHECK_THROWS_WITH_AS(elementwise_kernel(out), doctest::Contains("only the inputs A and B can be staged"), Error);
  ElementwiseConfig both = cfg;
  both.unit[0] = true;
  CHECK_THROWS_WITH_AS(elementwise_kernel(both), doctest::Contains("unit-stride in the major mode too"), Error);
  // A view that is not unit-stride along mode 1 does not fit the staged kernel.
  const TensorView c = row_major(0x300000, Type::F32, {64, 64});
  const TensorView a{0x100000, Type::F32, {64, 64}, {2, 128}};
  CHECK_THROWS_WITH_AS(elementwise_plan(cfg, ElementwiseArguments{ElementwiseOp::Copy, a, a, TensorView{0x300000, Type::F32, {64, 64}, {1, 64}}}),
                       doctest::Contains("stages A through shared memory along mode 1 and needs stride 1 there, got (2,128)"), Error);
  CHECK_NOTHROW(elementwise_plan(cfg, ElementwiseArguments{ElementwiseOp::Copy, TensorView{0x100000, Type::F32, {64, 64}, {64, 1}}, c,
                                                           TensorView{0x300000, Type::F32, {64, 64}, {1, 64}}}));
  // Staged loads of 2 elements: the address and the other strides must allow them.
  ElementwiseConfig pairs = cfg;
  pairs.stage_vector = 2;
  const TensorView cc{0x300000, Type::F32, {64, 64}, {1, 64}};
  CHECK_THROWS_WITH_AS(elementwise_plan(pairs, ElementwiseArguments{ElementwiseOp::Copy, TensorView{0x100004, Type::F32, {64, 64}, {64, 1}}, c, cc}),
                       doctest::Contains("stages A in 8-byte vectors; its address 0x100004 is not aligned"), Error);
  CHECK_THROWS_WITH_AS(elementwise_plan(pairs, ElementwiseArguments{ElementwiseOp::Copy, TensorView{0x100000, Type::F32, {64, 64}, {65, 1}}, c, cc}),
                       doctest::Contains("stages A in vectors of 2; its stride 65 in mode 0 is not a multiple"), Error);
  pairs.stage_vector = 3;
  CHECK_THROWS_WITH_AS(elementwise_kernel(pairs), doctest::Contains("stage vector of 3 f32 elements"), Error);
}

TEST_CASE("kernels: the elementwise host API refuses before launching anything") {
  // Without a driver the argument checks still come first.
  const TensorView a = row_major(0x10000, Type::F32, {4, 8});
  CHECK_THROWS_WITH_AS(tessel::elementwise(ElementwiseOp::Add, a, row_major(0x20000, Type::F32, {8, 4}), a),
                       doctest::Contains("B has shape (8,4) but C has (4,8)"), Error);
  CHECK_NOTHROW(tessel::elementwise(ElementwiseOp::Add, row_major(0, Type::F32, {0}), row_major(0, Type::F32, {0}),
                                    row_major(0, Type::F32, {0})));  // zero size: a no-op
}

TEST_CASE("kernels: the elementwise reference computes each op per coordinate of any strides") {
  // A 3x2 column-major A, a row-major B, a padded C: checked against direct arithmetic.
  ElementwiseCase k;
  k.args = {ElementwiseOp::Sub, TensorView{0, Type::S32, {3, 2}, {1, 3}}, TensorView{0, Type::S32, {3, 2}, {2, 1}},
            TensorView{4, Type::S32, {3, 2}, {4, 1}}};
  std::mt19937_64 rng(test::seed());
  fill_random(k, rng);
  std::vector<uint8_t> c(k.c_bytes + ElementwiseCase::kGuardBytes, ElementwiseCase::kPoison);
  elementwise_reference(k.args, k.a, k.b, c);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      int32_t x, y, z;
      std::memcpy(&x, &k.a[static_cast<size_t>(4 * (i + 3 * j))], 4);
      std::memcpy(&y, &k.b[static_cast<size_t>(4 * (2 * i + j))], 4);
      std::memcpy(&z, &c[static_cast<size_t>(4 + 4 * (4 * i + j))], 4);
      CHECK(z == x - y);
    }
  }
  CHECK(check_elementwise(k, c).empty());
  c[4] ^= 1;
  CHECK(check_elementwise(k, c).find("1 bytes differ: byte 4") == 0);
  c[4] ^= 1;
  c[k.c_bytes + 3] = 0;
  CHECK(check_elementwise(k, c).find("(guard)") != std::string::npos);
}
