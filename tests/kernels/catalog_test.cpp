// catalog_test.cpp: the catalog on the CPU: the built-in entries and their metadata, filters,
// get_kernels, supports() reasons, registration (names unique, from outside the library),
// compile without a GPU, launch plans, and the PTX of every entry assembled by ptxas.
#include "tessel/kernels/catalog.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "cli_support.hpp"
#include "codegen/ptxas.hpp"
#include "kernels/gemm_problem.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/simt_gemm.hpp"
#include "tessel/runtime.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

const MetadataFilter simt = metadata_filter("class", "simt_gemm");

GemmArguments row_major_gemm(Type t, int64_t L, int64_t M, int64_t N, int64_t K) {
  return make_gemm_arguments(row_major(0x10000, t, {L, M, K}), row_major(0x20000, t, {L, K, N}),
                             row_major(0x30000, t, {L, M, N}));
}

// A minimal user kernel class: one kernel whose name the caller picks.
class DummyClass : public KernelClass {
 public:
  DummyClass(std::string cls, std::string kernel) : cls_(std::move(cls)), kernel_(std::move(kernel)) {}
  std::string name() const override { return cls_; }
  std::string description() const override { return "test"; }
  std::vector<KernelPtr> generate_kernels(const MetadataFilter& f, std::optional<Epilogue> e,
                                          std::optional<int> cc) const override {
    struct K : Kernel {
      using Kernel::Kernel;
      Status supports(const Arguments&) const override { return Status::failure("never"); }
      codegen::Module generate(const Arguments&) const override { return {}; }
      codegen::LaunchPlan plan(const Arguments&, const Artifact&, const LaunchTarget&) const override { return {}; }
    };
    KernelMetadata md;
    md.name = kernel_;
    md.kernel_class = cls_;
    md.min_cc = 90;
    if (!admits(md, f, e, cc)) return {};
    return {std::make_shared<K>(md)};
  }

 private:
  std::string cls_, kernel_;
};

}  // namespace

TEST_CASE("catalog: the built-in simt_gemm entries and their metadata") {
  const std::vector<KernelPtr> all = list_kernels(simt);
  CHECK(all.size() == 5 * 3 * 9);  // dtypes x tiles x (8 row/col majors + all-any)
  std::set<std::string> names;
  for (const KernelPtr& k : list_kernels()) CHECK(names.insert(k->name()).second);  // unique over the catalog
  const KernelPtr kernel = find_kernel("tessel_simt_gemm_f16_f32_128x128x8_t8x8_rcr");
  const KernelMetadata& md = kernel->metadata();
  CHECK(md.kernel_class == "simt_gemm");
  CHECK(md.operation == Operation::Gemm);
  CHECK(md.operand("A").dtype == Type::F16);
  CHECK(md.operand("A").major == Major::Row);
  CHECK(md.operand("B").major == Major::Column);
  CHECK(md.operand("out").major == Major::Row);
  CHECK(md.accumulator == Type::F32);
  CHECK(md.design.tile == std::array<int, 3>{128, 128, 8});
  CHECK(md.design.cluster == std::array<int, 3>{1, 1, 1});
  CHECK(md.design.threads == 256);
  CHECK(md.min_cc == 80);
  CHECK(md.epilogue == Epilogue::LinearCombination);
  CHECK_THROWS_WITH_AS(md.operand("C"), doctest::Contains("has no operand 'C' (it has A, B, out)"), Error);
  CHECK_THROWS_WITH_AS(find_kernel("nope"), doctest::Contains("no kernel called 'nope'"), Error);
}

TEST_CASE("catalog: filters select by class, kind, dtype, major, tile and compute capability") {
  CHECK(list_kernels(all_of({simt, metadata_filter("dtype", "f64")})).size() == 27);
  for (const KernelPtr& k : list_kernels(metadata_filter("dtype", "bf16"))) {  // any operand's type
    const KernelMetadata& md = k->metadata();
    CHECK(std::any_of(md.operands.begin(), md.operands.end(), [](const auto& o) { return o.dtype == Type::BF16; }));
  }
  CHECK(list_kernels(all_of({simt, metadata_filter("major", "any")})).size() == 15);
  CHECK(list_kernels(all_of({simt, metadata_filter("tile-m", "32"), metadata_filter("dtype", "s32")})).size() == 9);
  CHECK(list_kernels(all_of({simt, metadata_filter("kind", "gemm")})).size() == list_kernels(simt).size());
  CHECK(list_kernels(metadata_filter("kind", "elementwise")).size() ==
        list_kernels([](const KernelMetadata& md) { return md.operation == Operation::Elementwise; }).size());
  CHECK(list_kernels(simt, 75).empty());  // every SIMT GEMM needs sm_80
  CHECK(list_kernels(simt, 80).size() == list_kernels(simt).size());
  CHECK(list_kernels(metadata_filter("name", "_f64_f64_32x32x8")).size() == 9);
  CHECK_THROWS_WITH_AS(metadata_filter("colour", "red"), doctest::Contains("unknown filter key 'colour'"), Error);
  CHECK_THROWS_WITH_AS(metadata_filter("tile-m", "big"), doctest::Contains("filter tile-m: 'big' is not an integer"), Error);
  CHECK_THROWS_WITH_AS(metadata_filter("major", "diagonal"), doctest::Contains("unknown major 'diagonal'"), Error);
  CHECK_THROWS_AS(metadata_filter("dtype", "f128"), Error);
}

TEST_CASE("catalog: get_kernels returns the kernels that run the arguments") {
  const GemmArguments g = row_major_gemm(Type::F32, 2, 100, 70, 33);
  const std::vector<KernelPtr> found = get_kernels(g, simt);
  CHECK(found.size() == 6);  // 3 tiles x (row-major, any strides)
  for (const KernelPtr& k : found) {
    CHECK(k->supports(g).ok);
    CHECK(k->metadata().operand("A").dtype == Type::F32);
    const Major a = k->metadata().operand("A").major;
    CHECK((a == Major::Row || a == Major::Any));
  }
  CHECK(get_kernels(g, simt, 70).empty());
  // A column-major A is served by the column-major-A entries and the any-stride ones.
  GemmArguments c = g;
  c.A = TensorView{0x10000, Type::F32, {2, 100, 33}, {3300, 1, 100}};
  for (const KernelPtr& k : get_kernels(c, simt)) CHECK(k->metadata().operand("A").major != Major::Row);
  CHECK(get_kernels(c, simt).size() == 6);
  // Non-unit strides everywhere: only the all-dynamic entries.
  GemmArguments s = g;
  s.A.stride = {20000, 66, 2};
  CHECK(get_kernels(s, simt).size() == 3);
  // Elementwise arguments find no GEMM.
  ElementwiseArguments e;
  e.A = e.B = e.C = row_major(0x1000, Type::F32, {16});
  CHECK(get_kernels(e, simt).empty());
}

TEST_CASE("catalog: simt_gemm supports() names the value and the rule") {
  const KernelPtr k = find_kernel("tessel_simt_gemm_f32_f32_64x64x8_t4x4_rrr");
  GemmArguments g = row_major_gemm(Type::F32, 2, 100, 70, 33);
  CHECK(k->supports(g).ok);
  auto reason = [&](const GemmArguments& x) { return k->supports(x).reason; };
  GemmArguments bad = g;
  bad.A = row_major(0x10000, Type::F32, {1, 2, 100, 33});
  CHECK(reason(bad) == "A has rank 4; simt_gemm takes rank 3 (L, M, K) or rank 2 (M, K)");
  bad = g;
  bad.B.dtype = Type::F16;
  CHECK(reason(bad) == "B is f16; this kernel takes f32");
  bad = g;
  bad.B = row_major(0x20000, Type::F32, {2, 34, 70});
  CHECK(reason(bad) == "B has K = 34, A has K = 33");
  bad = g;
  bad.out.stride = {7000, 1, 100};
  CHECK(reason(bad) ==
        "out has stride 100 in N; this kernel is row-major for out and needs stride 1 there (the "
        "simt_gemm kernels of major 'any' take any strides)");
  bad = g;
  bad.accumulator_type = Type::F64;
  CHECK(reason(bad) == "accumulator f64 asked; this kernel accumulates in f32");
  bad = g;
  bad.A.data = 0x10002;
  CHECK(reason(bad).find("is not aligned to its element size (4 bytes)") != std::string::npos);
  bad = g;
  bad.out.stride = {7000, 70, 0};
  CHECK(reason(bad).find("needs stride 1 there") != std::string::npos);
  GemmArguments rank2 =
      make_gemm_arguments(row_major(0x10000, Type::F32, {100, 33}), row_major(0x20000, Type::F32, {33, 70}),
                          row_major(0x30000, Type::F32, {100, 70}));
  CHECK(k->supports(rank2).ok);
  rank2.B = row_major(0x20000, Type::F32, {2, 33, 70});
  CHECK(reason(rank2) == "A, B and out have ranks 2, 3 and 2; simt_gemm needs one rank for all three");
  const KernelPtr ints = find_kernel("tessel_simt_gemm_s32_s32_64x64x8_t4x4_rrr");
  GemmArguments gi = row_major_gemm(Type::S32, 1, 10, 10, 10);
  gi.alpha = 0.5;
  CHECK(ints->supports(gi).reason.find("an s32 GEMM takes integer alpha and beta in int32") != std::string::npos);
  ElementwiseArguments e;
  CHECK(k->supports(e).reason == "tessel_simt_gemm_f32_f32_64x64x8_t4x4_rrr runs GEMM arguments, not elementwise");
}

TEST_CASE("catalog: registration checks names, and a registry holds user classes beside the built-ins") {
  Registry r;
  register_builtin_kernel_classes(r);
  r.add(std::make_shared<DummyClass>("mine", "my_kernel"));
  CHECK(r.find_class("mine") != nullptr);
  CHECK(r.kernels([](const KernelMetadata& md) { return md.kernel_class == "mine"; }).size() == 1);
  CHECK(r.kernels([](const KernelMetadata& md) { return md.kernel_class == "mine"; }, {}, 80).empty());  // needs 90
  CHECK_THROWS_WITH_AS(r.add(std::make_shared<DummyClass>("mine", "other")),
                       doctest::Contains("a kernel class called 'mine' is registered already"), Error);
  CHECK_THROWS_WITH_AS(r.add(std::make_shared<DummyClass>("thief", "tessel_simt_gemm_f32_f32_64x64x8_t4x4_rrr")),
                       doctest::Contains("a name the catalog has already (kernel names are unique)"), Error);
  CHECK(r.find_class("thief") == nullptr);
  CHECK(Registry::global().find_class("mine") == nullptr);  // a local registry stays local
}

TEST_CASE("catalog: compile needs no GPU, run needs one and says so") {
  const KernelPtr k = find_kernel("tessel_simt_gemm_bf16_f32_32x32x8_t2x2_ccc");
  std::mt19937_64 rng(std::random_device{}());
  const GemmArguments g = test::fitting_arguments(k->metadata(), rng);
  const Artifact a = k->compile(g, 90);
  CHECK(a.kernel == k->name());
  CHECK(a.target_sm == 80);
  CHECK(a.ptx.find(".entry " + k->name()) != std::string::npos);
  CHECK_THROWS_WITH_AS(k->compile(g, 75), doctest::Contains("needs compute capability 80, asked to compile for 75"),
                       Error);
  GemmArguments bad = g;
  bad.A.dtype = Type::F32;
  CHECK_THROWS_WITH_AS(k->compile(bad), doctest::Contains("cannot run these arguments: A is f32"), Error);
  if (rt::driver_status().available) return;  // the rest is about machines without a driver
  CHECK_THROWS_WITH_AS(k->run(g, a), doctest::Contains("no CUDA driver found"), Error);
  CHECK_THROWS_WITH_AS(k->run(g), doctest::Contains("no CUDA driver found"), Error);
}

TEST_CASE("catalog: a simt_gemm plan has the grid, block and parameters of the kernel") {
  SimtGemmConfig c;
  c.dtype = Type::F16;
  c.a_major = Major::Column;
  c.out_major = Major::Any;
  const GemmArguments g = make_gemm_arguments(TensorView{0x1000, Type::F16, {3, 130, 20}, {2600, 1, 130}},
                                              row_major(0x2000, Type::F16, {3, 20, 65}),
                                              TensorView{0x3000, Type::F16, {3, 130, 65}, {9000, 65, 2}}, 2.0, 0.5);
  REQUIRE(simt_gemm_supports(c, g).ok);
  const codegen::LaunchPlan p = simt_gemm_plan(c, g, simt_gemm(c));
  CHECK(p.grid == std::array<unsigned, 3>{3, 2, 3});  // ceil(130/64), ceil(65/64), L
  CHECK(p.block == std::array<unsigned, 3>{256, 1, 1});
  REQUIRE(p.params.size() == p.entry().params.size());
  // A, B, out, C, L, M, N, K, then A's (L, K) strides, B's (L, K), out's (L, M, N), C's (L, M, N),
  // alpha, beta.
  CHECK(p.params.size() == 4 + 4 + 2 + 2 + 3 + 3 + 2);
  int64_t v = 0;
  std::memcpy(&v, p.params[3].data(), 8);
  CHECK(v == 0x3000);  // C is out
  std::memcpy(&v, p.params[5].data(), 8);
  CHECK(v == 130);
  std::memcpy(&v, p.params[14].data(), 8);
  CHECK(v == 2);  // out's column stride
  std::memcpy(&v, p.params[17].data(), 8);
  CHECK(v == 2);  // C's column stride (C is out)
  float beta = 0;
  REQUIRE(p.params.back().size() == 4);
  std::memcpy(&beta, p.params.back().data(), 4);
  CHECK(beta == 0.5f);
}

TEST_CASE("catalog: the PTX of every catalog entry assembles with ptxas") {
  std::mt19937_64 rng(std::random_device{}());
  for (const KernelPtr& k : list_kernels()) {
    if (k->metadata().operation != Operation::Gemm) continue;  // other operations test their own
    if (k->metadata().kernel_class == "hopper_gemm") continue;  // hopper_gemm_test assembles each entry
    INFO(k->name());
    const Artifact a = k->compile(test::fitting_arguments(k->metadata(), rng));
    if (!test::check_assembles(a.module)) return;  // no ptxas: reported skipped
  }
}

TEST_CASE("catalog: tessel list prints the catalog and filters it") {
  const test::CliRun all = test::run_cli({"list"});
  test::check_exit(all, 0);
  Registry builtins;  // the CLI has tessel's own classes only (this binary also has the example's)
  register_builtin_kernel_classes(builtins);
  CHECK(std::count(all.out.begin(), all.out.end(), '\n') == static_cast<long>(builtins.kernels().size()));
  const test::CliRun f64 = test::run_cli({"list", "--dtype", "f64", "--filter", "tile-m=32", "--class", "simt_gemm"});
  test::check_exit(f64, 0);
  CHECK(std::count(f64.out.begin(), f64.out.end(), '\n') == 9);
  CHECK(f64.out.find("tessel_simt_gemm_f64_f64_32x32x8_t2x2_rcr  gemm  f64,f64->f64 acc f64  row,col,row  32x32x8  "
                     "1x1x1  sm_80\n") != std::string::npos);
  const test::CliRun none = test::run_cli({"list", "--cc", "75"});
  test::check_exit(none, 0);
  CHECK(none.out.empty());
  const test::CliRun bad = test::run_cli({"list", "--filter", "colour=red"});
  test::check_exit(bad, 2);
  CHECK(bad.err.find("unknown filter key 'colour'") != std::string::npos);
}

// Issue 21: a program that calls get_kernels(args)[0].run(args) in a loop compiles once: the
// catalog hands out the same instances (and so the same artifact caches) on every call.
TEST_CASE("catalog: the same configuration is the same kernel instance, however it is found") {
  const GemmArguments g = make_gemm_arguments(row_major(0x10000, Type::F32, {2, 64, 32}),
                                              row_major(0x20000, Type::F32, {2, 32, 48}),
                                              row_major(0x30000, Type::F32, {2, 64, 48}));
  const std::vector<KernelPtr> first = get_kernels(g, {}, 90), second = get_kernels(g, {}, 90);
  REQUIRE(!first.empty());
  REQUIRE(first.size() == second.size());
  for (size_t i = 0; i < first.size(); ++i) CHECK(first[i].get() == second[i].get());
  const KernelPtr k = first.front();
  CHECK(find_kernel(k->name()).get() == k.get());
  CHECK(resolve_kernel(k->name()).get() == k.get());
  // The class form of a listed configuration is the listed instance too.
  CHECK(resolve_kernel(kernel_arguments(*k).substr(0, kernel_arguments(*k).find(' ')),
                       k->metadata().options).get() == k.get());
  CHECK(list_kernels([&](const KernelMetadata& md) { return md.name == k->name(); }).front().get() == k.get());
}
