// elementwise_test.cpp: the elementwise kernels run in the emulator and match the host reference
// bit for bit: every listed configuration (every op x dtype, ranks, majors, static shapes, 64-bit
// indices) on a small random problem, and the host API's plans on strided, broadcast and
// misaligned views; a planted off-by-one (a plan whose tile count is one too many for a
// static-ragged problem) is caught as an out-of-bounds access.
#include <doctest/doctest.h>

#include "kernels/listed.hpp"
#include "tessel/testing/kernel_run.hpp"

#include <cstring>

#include "algebra/support.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/testing/elementwise_check.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

// Runs `plan_for(views at their buffers)` in the emulator on the case's data; returns the check.
template <class PlanFor>
std::string emulate(const ElementwiseCase& k, PlanFor plan_for) {
  emu::Memory mem;
  const bool unary = is_unary(k.args.op);
  const uint64_t a = mem.alloc(k.a.size());
  mem.write(a, k.a.data(), k.a.size());
  uint64_t b = a;
  if (!unary) {
    b = mem.alloc(k.b.size());
    mem.write(b, k.b.data(), k.b.size());
  }
  const size_t c_size = k.c_bytes + ElementwiseCase::kGuardBytes;
  const uint64_t c = mem.alloc(c_size);
  mem.fill(c, std::byte{ElementwiseCase::kPoison}, c_size);
  const codegen::LaunchPlan plan = plan_for(at_addresses(k.args, a, b, c));
  if (plan.kernel.empty()) return "nothing to launch";
  emu::run(plan, mem);
  return check_elementwise(k, mem.read<uint8_t>(c, c_size));
}

}  // namespace

TEST_CASE("emulator: every listed elementwise configuration matches the host reference") {
  auto rng = test::make_rng("emulator elementwise listed");
  const std::unique_ptr<Machine> emulator = emulator_machine();
  for (const test::Listed& l : test::listed_of("elementwise")) {
    const ElementwiseConfig c = elementwise_config(l.options);
    if (c.is_static()) continue;  // 1000x333x...: too large to emulate in CI time; the GPU test runs them
    // Through the catalog's kernel object (the entries dispatch on the arguments; the variants are
    // configured), as `tessel run --emulate` runs it.
    const DemoRun r = run_kernel(*l.kernel, *emulator, rng(), 3000);
    INFO(l.label << ": " << r.problem << ": " << r.result);
    CHECK(r.ok);
  }
}

TEST_CASE("emulator: the elementwise host API's plans on strided, broadcast and misaligned views") {
  auto rng = test::make_rng("emulator elementwise host");
  for (ElementwiseOp op : {ElementwiseOp::Add, ElementwiseOp::Div, ElementwiseOp::Axpby, ElementwiseOp::Abs}) {
    for (Type t : {Type::F32, Type::BF16, Type::F16, Type::F64, Type::S32, Type::S8}) {
      INFO(op_name(op) << " " << codegen::ptx_name(t));
      const uint64_t eb = static_cast<uint64_t>(codegen::bytes(t));
      auto run = [&](std::vector<int64_t> shape, std::vector<int64_t> sa, std::vector<int64_t> sb,
                     std::vector<int64_t> sc, uint64_t oa, uint64_t ob, uint64_t oc) {
        ElementwiseCase k;
        k.args = {op, TensorView{oa, t, shape, sa}, TensorView{ob, t, shape, sb}, TensorView{oc, t, shape, sc}};
        if (op == ElementwiseOp::Axpby) k.args.alpha = is_float(t) ? 1.25 : 3, k.args.beta = is_float(t) ? -0.5 : -2;
        fill_random(k, rng);
        ElementwiseOptions no_driver;
        no_driver.check_device_memory = false;
        return emulate(k, [&](const ElementwiseArguments& a) { return elementwise_plan(a, no_driver); });
      };
      CHECK(run({33, 101}, {101, 1}, {101, 1}, {101, 1}, 0, 0, 0) == "");                       // merged, ragged
      CHECK(run({7, 9, 3}, {27, 3, 1}, {3, 21, 1}, {1, 8, 72}, 0, 0, 0) == "");                 // permuted, padded
      CHECK(run({5, 70}, {0, 1}, {70, 1}, {72, 1}, 0, 0, 0) == "");                             // broadcast A
      CHECK(run({1000}, {1}, {1}, {1}, eb, 2 * eb, 3 * eb) == "");                             // misaligned
      // Transposed inputs, staged through shared memory: A column-major under a row-major C
      // (ragged in both modes); A and B both, batched, A misaligned.
      CHECK(run({40, 70}, {1, 40}, {70, 1}, {70, 1}, 0, 0, 0) == "");
      CHECK(run({3, 37, 50}, {1850, 1, 37}, {40 * 50, 1, 40}, {1850, 50, 1}, eb, 0, 0) == "");
    }
  }
}

TEST_CASE("emulator: a staged input's tiles walked by one block: each tile's barriers hold") {
  // One block walks every tile (max_blocks 1), so that its shared tile is staged again for the
  // next one: without the barrier after the reads, the emulator's race check sees the overwrite.
  auto rng = test::make_rng("emulator elementwise staged persistent");
  for (Type t : {Type::F32, Type::BF16, Type::S8}) {
    INFO(codegen::ptx_name(t));
    ElementwiseCase k;
    k.args = {ElementwiseOp::Copy, TensorView{0, t, {70, 300}, {1, 70}}, TensorView{0, t, {70, 300}, {1, 70}},
              TensorView{0, t, {70, 300}, {300, 1}}};
    fill_random(k, rng);
    ElementwiseOptions one_block;
    one_block.check_device_memory = false;
    one_block.max_blocks = 1;
    CHECK(emulate(k, [&](const ElementwiseArguments& a) {
            const codegen::LaunchPlan p = elementwise_plan(a, one_block);
            CHECK(p.kernel.find("_tuu_") != std::string::npos);
            CHECK(p.grid[0] == 1);
            return p;
          }) == "");
  }
}

TEST_CASE(
    "emulator: staged elementwise copies through the host's tiles: shifted edge tiles, each type, batched, "
    "misaligned") {
  // Copies of A in one major into C in the other (a GEMM's packing), through the host's choice:
  // whole tiles shifted back at the edges where the extents allow (the name ends in _ov), the
  // ragged path where they do not; every element of C against the host reference, C's padding and
  // a guard zone still poisoned.
  auto rng = test::make_rng("emulator elementwise staged tiles");
  ElementwiseOptions no_driver;
  no_driver.check_device_memory = false;
  for (Type t : {Type::F32, Type::BF16, Type::F16, Type::S8, Type::S32, Type::F64}) {
    INFO(codegen::ptx_name(t));
    const uint64_t eb = static_cast<uint64_t>(codegen::bytes(t));
    auto run = [&](std::vector<int64_t> shape, std::vector<int64_t> sa, std::vector<int64_t> sc, uint64_t oa,
                   uint64_t oc) {
      ElementwiseCase k;
      k.args = {ElementwiseOp::Copy, TensorView{oa, t, shape, sa}, TensorView{oa, t, shape, sa},
                TensorView{oc, t, shape, sc}};
      fill_random(k, rng);
      std::string kernel;
      const std::string r = emulate(k, [&](const ElementwiseArguments& a) {
        const codegen::LaunchPlan p = elementwise_plan(a, no_driver);
        kernel = p.kernel;
        return p;
      });
      INFO(kernel);
      CHECK(kernel.find("_tuu_") != std::string::npos);  // staged
      return std::make_pair(r, kernel.find("_ov") != std::string::npos);
    };
    // Ragged in both modes (300 = 2 x 128 + 44 along C's rows, 70 = 2 x 32 + 6): shifted.
    auto r = run({70, 300}, {1, 70}, {300, 1}, 0, 0);
    CHECK(r.first == "");
    CHECK(r.second);
    // Edge tiles overlapping all but one row (33 = 32 + 1 in both modes).
    r = run({33, 33}, {1, 33}, {33, 1}, 0, 0);
    CHECK(r.first == "");
    CHECK(r.second);
    // Batched: three (45 x 77) matrices, A column-major in each, its batches padded apart.
    r = run({3, 45, 77}, {45 * 77 + 16, 1, 45}, {45 * 77, 77, 1}, 0, 0);
    CHECK(r.first == "");
    CHECK(r.second);
    // A misaligned by one element (single-element staged loads), then C (single-element vectors).
    r = run({70, 300}, {1, 70}, {300, 1}, eb, 0);
    CHECK(r.first == "");
    CHECK(r.second);
    r = run({70, 300}, {1, 70}, {300, 1}, 0, eb);
    CHECK(r.first == "");
    CHECK(r.second);
    // C's rows 30 wide, under the narrowest tile (32): the ragged path.
    r = run({64, 30}, {1, 64}, {30, 1}, 0, 0);
    CHECK(r.first == "");
    CHECK(!r.second);
    // A padded C (pitch 40) with an odd extent (33): 4-byte vectors of C cannot divide it for the
    // narrow types (ragged); f32, s32 and f64 take one-element vectors and whole tiles.
    r = run({33, 40}, {40, 1}, {1, 40}, 0, 0);
    CHECK(r.first == "");
    CHECK(r.second == (eb >= 4));
    // Binary, whole tiles: A staged, B unit-stride like C (its rows through pointers of their own)
    // or strided in both modes (element by element); subtraction tells A from B.
    for (const std::vector<int64_t>& sb : {std::vector<int64_t>{304, 1}, std::vector<int64_t>{600, 2}}) {
      ElementwiseCase k;
      k.args = {ElementwiseOp::Sub, TensorView{0, t, {70, 300}, {1, 70}}, TensorView{0, t, {70, 300}, sb},
                TensorView{0, t, {70, 300}, {300, 1}}};
      fill_random(k, rng);
      std::string kernel;
      CHECK(emulate(k, [&](const ElementwiseArguments& a) {
              const codegen::LaunchPlan p = elementwise_plan(a, no_driver);
              kernel = p.kernel;
              return p;
            }) == "");
      INFO(kernel);
      CHECK(kernel.find(sb[1] == 1 ? "_tuu_" : "_tsu_") != std::string::npos);
      CHECK(kernel.find("_ov") != std::string::npos);
    }
  }
}

TEST_CASE("emulator: an elementwise copy moves the bits: every f16 pattern, NaNs included, staged and not") {
  // The GEMM copies bf16 operands as f16: a bf16 near the top of its range is an f16 NaN, which a
  // widening to f32 and back turned into 0x7fff. Every 16-bit pattern once, in a 256 x 256 A.
  ElementwiseOptions no_driver;
  no_driver.check_device_memory = false;
  for (bool transposed : {false, true}) {
    INFO(std::string(transposed ? "staged" : "contiguous"));
    ElementwiseCase k;
    const TensorView a = transposed ? column_major(0, Type::F16, {256, 256}) : row_major(0, Type::F16, {256, 256});
    k.args = {ElementwiseOp::Copy, a, a, row_major(0, Type::F16, {256, 256})};
    k.a.resize(2 * 65536);
    for (uint32_t i = 0; i < 65536; ++i) {
      const uint16_t v = static_cast<uint16_t>(i);
      std::memcpy(k.a.data() + 2 * i, &v, 2);
    }
    k.c_bytes = 2 * 65536;
    emu::Memory mem;
    const uint64_t pa = mem.alloc(k.a.size());
    mem.write(pa, k.a.data(), k.a.size());
    const uint64_t pc = mem.alloc(k.c_bytes);
    const codegen::LaunchPlan plan = elementwise_plan(at_addresses(k.args, pa, pa, pc), no_driver);
    CHECK((plan.kernel.find("_tuu_") != std::string::npos) == transposed);
    emu::run(plan, mem);
    const std::vector<uint8_t> c = mem.read<uint8_t>(pc, k.c_bytes);
    size_t wrong = 0;
    for (int64_t i = 0; i < 256; ++i)
      for (int64_t j = 0; j < 256; ++j) {
        const int64_t from = transposed ? i + 256 * j : 256 * i + j, to = 256 * i + j;
        wrong += std::memcmp(k.a.data() + 2 * from, c.data() + 2 * to, 2) != 0;
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("emulator: a launch of one tile too many for a ragged problem stays inside (predicates hold)") {
  // The kernel must stay in bounds whatever grid it is given: extra blocks find no tile.
  ElementwiseConfig c;
  c.vector = 4;
  auto rng = test::make_rng("emulator elementwise extra blocks");
  const ElementwiseCase k = random_elementwise_case(c, rng, 3000);
  CHECK(emulate(k, [&](const ElementwiseArguments& a) {
          codegen::LaunchPlan p = elementwise_plan(c, a);
          p.grid[0] += 3;
          return p;
        }) == "");
  // A lie about the tile count (one more than there is) is caught: out of bounds, named.
  CHECK_THROWS_WITH_AS(emulate(k,
                               [&](const ElementwiseArguments& a) {
                                 codegen::LaunchPlan p = elementwise_plan(c, a);
                                 const auto& names = p.entry().params;
                                 for (size_t i = 0; i < names.size(); ++i) {
                                   if (names[i].name != "M0") continue;
                                   int32_t m;
                                   std::memcpy(&m, p.params[i].data(), 4);
                                   m += 1;  // the planted off-by-one: an extent one past the data
                                   std::memcpy(p.params[i].data(), &m, 4);
                                 }
                                 return p;
                               }),
                       doctest::Contains("out-of-bounds global access"), Error);
}

TEST_CASE("emulator: the catalog's elementwise entries are found, refuse clearly, and run their plans") {
  auto rng = test::make_rng("emulator elementwise catalog");
  ElementwiseCase k;
  k.args = {ElementwiseOp::Max, TensorView{0, Type::BF16, {9, 130}, {136, 1}}, TensorView{0, Type::BF16, {9, 130}, {1, 9}},
            TensorView{0, Type::BF16, {9, 130}, {130, 1}}};
  fill_random(k, rng);
  const Arguments args = at_addresses(k.args, 1ull << 40, 2ull << 40, 3ull << 40);  // (not null)
  const std::vector<KernelPtr> found = get_kernels(args);
  REQUIRE(found.size() == 1);
  const Kernel& kernel = *found[0];
  CHECK(kernel.name() == "tessel_elementwise_max_bf16");
  CHECK(kernel.metadata().operation == Operation::Elementwise);
  ElementwiseArguments wrong = std::get<ElementwiseArguments>(args);
  wrong.op = ElementwiseOp::Min;
  CHECK(kernel.supports(Arguments{wrong}).reason == "computes max, the arguments ask for min");
  wrong = std::get<ElementwiseArguments>(args);
  wrong.B.shape = {9, 131};
  CHECK(kernel.supports(Arguments{wrong}).reason.find("B has shape (9,131) but C has (9,130)") != std::string::npos);
  const Artifact art = kernel.compile(args, 90);
  CHECK(art.ptx.find(".entry tessel_elementwise_max_bf16(") != std::string::npos);
  CHECK(emulate(k, [&](const ElementwiseArguments& a) { return kernel.plan(Arguments{a}, art); }) == "");
}
