// catalog_gpu_test.cpp: every catalog entry on the GPU: a fresh random ragged problem laid out as
// its metadata asks, out poisoned (NaN where beta == 0) with gaps between its elements that must
// stay untouched, compared with a double-precision host reference (tests/kernels/gemm_problem.hpp).
// Skipped, with the reason, where no GPU is usable.
#include <doctest/doctest.h>

#include "kernels/gemm_problem.hpp"
#include "runtime/gpu.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/testing/elementwise_check.hpp"
#include "tessel/kernels/launch.hpp"

#include <thread>

using namespace tessel;

namespace {

struct Buffers {
  rt::DeviceBuffer a, b, o;
  explicit Buffers(const test::GemmProblem& p)
      : a(rt::DeviceBuffer::from(p.A.bytes)),
        b(rt::DeviceBuffer::from(p.B.bytes)),
        o(rt::DeviceBuffer::from(p.out.bytes)) {}
  kernels::Arguments args(const test::GemmProblem& p) const { return p.arguments(a.ptr(), b.ptr(), o.ptr()); }
};

// Runs `kernel` on one random problem; returns "" or what differed.
std::string run_one(const kernels::Kernel& kernel, std::mt19937_64& rng, bool rank2, std::string& problem) {
  const test::GemmProblem p = test::make_gemm_problem(kernel.metadata(), rng, rank2);
  problem = p.describe();
  Buffers buf(p);
  const kernels::Arguments args = buf.args(p);
  if (const kernels::Status s = kernel.supports(args); !s) return "supports() refused its own layout: " + s.reason;
  kernel.run(args);  // compiles on first use
  test::gpu_context().synchronize();
  return test::check_gemm(p, buf.o.to_vector<uint8_t>());
}

// An elementwise entry on a padded, ragged 2-D problem (B column-major), through Kernel::run.
std::string run_elementwise_entry(const kernels::Kernel& kernel, std::mt19937_64& rng, std::string& problem) {
  using kernels::TensorView;
  const kernels::OperandAttributes& c = kernel.metadata().operand("C");
  // The entry's name is tessel_elementwise_<op>_<dtype>.
  const std::string n = kernel.name(), prefix = "tessel_elementwise_";
  const kernels::ElementwiseOp op = kernels::parse_elementwise_op(n.substr(prefix.size(), n.rfind('_') - prefix.size()));
  kernels::ElementwiseCase k;
  k.args = {op, TensorView{0, c.dtype, {77, 301}, {304, 1}}, TensorView{0, c.dtype, {77, 301}, {1, 77}},
            TensorView{0, c.dtype, {77, 301}, {308, 1}}};
  if (k.args.op == kernels::ElementwiseOp::Axpby) k.args.alpha = 2, k.args.beta = -1;
  kernels::fill_random(k, rng);
  problem = "C " + k.args.C.to_string();
  const bool unary = kernels::is_unary(k.args.op);
  rt::DeviceBuffer da = rt::DeviceBuffer::from(k.a), db(unary ? 1 : k.b.size());
  if (!unary) db.upload(k.b.data(), k.b.size());
  rt::DeviceBuffer dc(k.c_bytes + kernels::ElementwiseCase::kGuardBytes);
  dc.fill(kernels::ElementwiseCase::kPoison);
  const kernels::Arguments args = kernels::at_addresses(k.args, da.ptr(), db.ptr(), dc.ptr());
  if (const kernels::Status s = kernel.supports(args); !s) return "supports() refused: " + s.reason;
  kernel.run(args);
  test::gpu_context().synchronize();
  return kernels::check_elementwise(k, dc.to_vector<uint8_t>());
}

// Entries part, part + parts, ...: four test cases, so that ctest -j runs them in parallel
// processes (the driver's PTX -> SASS compile of each Hopper GEMM, about a second, dominates).
void check_entries(size_t part, size_t parts) {
  std::mt19937_64 rng = test::gpu_rng();
  const int cc = rt::device_properties(0).compute_capability();
  // The GEMMs and elementwise entries (the demonstrations, which take no catalog arguments, run
  // in demos_gpu_test.cpp).
  const std::vector<kernels::KernelPtr> all = kernels::list_kernels(
      [](const kernels::KernelMetadata& md) { return md.operation != kernels::Operation::Demo; }, cc);
  REQUIRE(all.size() > parts);
  for (size_t i = part; i < all.size(); i += parts) {
    const kernels::KernelPtr& k = all[i];
    std::string problem;
    const std::string diff = k->metadata().operation == kernels::Operation::Elementwise
                                 ? run_elementwise_entry(*k, rng, problem)
                                 : run_one(*k, rng, false, problem);
    INFO(k->name() << ": " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(diff == "");
  }
}

}  // namespace

TEST_CASE("catalog: gpu every catalog entry matches the host reference on a ragged batched problem (1 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  check_entries(0, 4);
}
TEST_CASE("catalog: gpu every catalog entry matches the host reference on a ragged batched problem (2 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  check_entries(1, 4);
}
TEST_CASE("catalog: gpu every catalog entry matches the host reference on a ragged batched problem (3 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  check_entries(2, 4);
}
TEST_CASE("catalog: gpu every catalog entry matches the host reference on a ragged batched problem (4 of 4)") {
  TESSEL_REQUIRE_GPU(80);
  check_entries(3, 4);
}

TEST_CASE("catalog: gpu rank-2 operands run as one batch") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng = test::gpu_rng();
  for (const kernels::KernelPtr& k : kernels::list_kernels(kernels::metadata_filter("class", "simt_gemm"))) {
    if (k->metadata().design.tile[0] != 32) continue;  // one tile is enough for the rank-2 path
    std::string problem;
    const std::string diff = run_one(*k, rng, true, problem);
    INFO(k->name() << ": " << problem << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(diff == "");
  }
}

TEST_CASE("catalog: gpu one artifact runs many problems, on a stream") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng = test::gpu_rng();
  const kernels::KernelPtr k = kernels::find_kernel("tessel_simt_gemm_f32_f32_64x64x8_t4x4_aaa");
  const kernels::KernelMetadata& md = k->metadata();
  const test::GemmProblem first = test::make_gemm_problem(md, rng);
  Buffers b1(first);
  const kernels::Artifact artifact = k->compile(b1.args(first), 80);
  rt::Stream stream;
  for (int i = 0; i < 3; ++i) {
    const test::GemmProblem p = i == 0 ? first : test::make_gemm_problem(md, rng);
    Buffers buf(p);
    k->run(buf.args(p), artifact, stream);
    stream.synchronize();
    INFO("run " << i << ": " << p.describe() << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(test::check_gemm(p, buf.o.to_vector<uint8_t>()) == "");
  }
}

TEST_CASE("catalog: gpu get_kernels finds a kernel for plain row-major arguments and it runs") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng = test::gpu_rng();
  kernels::KernelMetadata want;  // row-major bf16, the way a user would describe the problem
  want.design.tile = {64, 64, 8};
  want.accumulator = codegen::Type::F32;
  want.operands = {{"A", codegen::Type::BF16, kernels::Major::Row, 1},
                   {"B", codegen::Type::BF16, kernels::Major::Row, 1},
                   {"out", codegen::Type::BF16, kernels::Major::Row, 1}};
  const test::GemmProblem p = test::make_gemm_problem(want, rng);
  Buffers buf(p);
  const std::vector<kernels::KernelPtr> found =
      kernels::get_kernels(buf.args(p), {}, rt::device_properties(0).compute_capability());
  REQUIRE(!found.empty());
  found.front()->run(buf.args(p));
  test::gpu_context().synchronize();
  INFO(found.front()->name() << ": " << p.describe() << " (reproduce with TESSEL_SEED=" << test::gpu_seed() << ")");
  CHECK(test::check_gemm(p, buf.o.to_vector<uint8_t>()) == "");
}

TEST_CASE("catalog: gpu a kernel runs on the context current on the thread, or device 0's where there is none") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng = test::gpu_rng();
  kernels::KernelMetadata want;
  want.design.tile = {64, 64, 8};
  want.accumulator = codegen::Type::F32;
  want.operands = {{"A", codegen::Type::F32, kernels::Major::Row, 1},
                   {"B", codegen::Type::F32, kernels::Major::Row, 1},
                   {"out", codegen::Type::F32, kernels::Major::Row, 1}};
  const test::GemmProblem p = test::make_gemm_problem(want, rng);
  Buffers buf(p);
  // Without a cc, get_kernels asks the device: the same kernels as with its cc given.
  const int cc = rt::device_properties(0).compute_capability();
  const std::vector<kernels::KernelPtr> found = kernels::get_kernels(buf.args(p));
  REQUIRE(!found.empty());
  CHECK(found.size() == kernels::get_kernels(buf.args(p), {}, cc).size());
  CHECK(kernels::device_cc_if_any() == std::optional<int>(cc));
  // The caller's current context is the one used: the device and the loaded function are its.
  rt::Context& ctx = test::gpu_context();
  CHECK(rt::current_device() == 0);
  CHECK(kernels::device_in_use().ordinal == 0);
  const kernels::Artifact artifact = found.front()->compile(buf.args(p));
  found.front()->run(buf.args(p), artifact);
  CHECK(rt::current_context() == ctx.native());
  ctx.synchronize();
  CHECK(test::check_gemm(p, buf.o.to_vector<uint8_t>()) == "");
  // A thread with no context of its own: device 0's primary context becomes current there, and the
  // artifact's function (loaded per context) runs.
  std::string error;
  void* seen = nullptr;
  buf.o.upload(p.out.bytes.data(), p.out.bytes.size());  // out as it was (beta reads it)
  std::thread([&] {
    try {
      CHECK(rt::current_context() == nullptr);
      found.front()->run(buf.args(p), artifact);
      seen = rt::current_context();
      rt::Context(0).synchronize();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  CHECK(error == "");
  CHECK(seen == ctx.native());  // the primary context is one per device
  CHECK(test::check_gemm(p, buf.o.to_vector<uint8_t>()) == "");
}
