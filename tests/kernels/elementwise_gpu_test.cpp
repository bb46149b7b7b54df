// elementwise_gpu_test.cpp: the elementwise kernels on the GPU, on fresh random data, C poisoned
// and guarded, against the host reference: every listed configuration (every op x dtype, ranks,
// majors, static shapes, 64-bit indices), and the host API on the layouts users pass (permuted,
// padded, column-major, transposed, broadcast, in place, misaligned pointers, ragged shapes). Skipped, with
// the reason, where no GPU is usable.
#include <doctest/doctest.h>

#include "kernels/listed.hpp"
#include "tessel/testing/kernel_run.hpp"

#include "runtime/gpu.hpp"
#include "tessel/testing/elementwise_check.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

// Runs tessel::elementwise on views whose `data` are byte offsets into fresh buffers; in_place
// makes C share A's buffer (C's view must then be A's).
std::string run_host_api(ElementwiseCase& k, bool in_place = false) {
  const bool unary = is_unary(k.args.op);
  rt::DeviceBuffer da(k.a.size() + ElementwiseCase::kGuardBytes);
  rt::DeviceBuffer db(unary ? 1 : k.b.size());
  rt::DeviceBuffer dc(k.c_bytes + ElementwiseCase::kGuardBytes);
  if (in_place) {
    std::vector<uint8_t> a = k.a;
    a.resize(k.c_bytes + ElementwiseCase::kGuardBytes, ElementwiseCase::kPoison);
    da.upload(a.data(), a.size());
  } else {
    da.upload(k.a.data(), k.a.size());
    dc.fill(ElementwiseCase::kPoison);
  }
  if (!unary) db.upload(k.b.data(), k.b.size());
  const ElementwiseArguments args = at_addresses(k.args, da.ptr(), db.ptr(), in_place ? da.ptr() : dc.ptr());
  tessel::kernels::elementwise(args);
  rt::Context(0).synchronize();
  std::vector<uint8_t> out = (in_place ? da : dc).to_vector<uint8_t>();
  out.resize(k.c_bytes + ElementwiseCase::kGuardBytes);
  if (in_place) {  // bytes of A that are not C's elements keep A's values, not the poison
    std::vector<uint8_t> ref(out.size(), ElementwiseCase::kPoison);
    std::copy(k.a.begin(), k.a.end(), ref.begin());
    elementwise_reference(k.args, k.a, k.b, ref);
    return ref == out ? "" : "in-place result differs from the host reference";
  }
  return check_elementwise(k, out);
}

ElementwiseCase host_case(ElementwiseOp op, Type t, std::vector<int64_t> shape, std::vector<int64_t> sa,
                          std::vector<int64_t> sb, std::vector<int64_t> sc, uint64_t offa, uint64_t offb, uint64_t offc,
                          std::mt19937_64& rng) {
  ElementwiseCase k;
  k.args = {op, TensorView{offa, t, shape, sa}, TensorView{offb, t, shape, sb}, TensorView{offc, t, shape, sc}};
  if (op == ElementwiseOp::Axpby) k.args.alpha = is_float(t) ? 1.5 : 3, k.args.beta = is_float(t) ? -0.75 : -2;
  fill_random(k, rng);
  return k;
}

}  // namespace

TEST_CASE("kernels: gpu elementwise runs every listed configuration exactly") {
  TESSEL_REQUIRE_GPU(80);
  uint64_t seed = test::gpu_seed();
  const std::unique_ptr<Machine> gpu = gpu_machine();
  for (const test::Listed& l : test::listed_of("elementwise")) {
    const DemoRun r = run_kernel(*l.kernel, *gpu, seed++);
    INFO(l.label << ": " << r.problem << ": " << r.result << " (TESSEL_SEED=" << test::gpu_seed() << ")");
    CHECK(r.ok);
  }
}

TEST_CASE("kernels: gpu elementwise host API on permuted, padded, broadcast, misaligned and in-place views") {
  TESSEL_REQUIRE_GPU(80);
  std::mt19937_64 rng(test::gpu_seed());
  INFO("TESSEL_SEED=" << test::gpu_seed());
  const ElementwiseOp ops[] = {ElementwiseOp::Add, ElementwiseOp::Div, ElementwiseOp::Axpby, ElementwiseOp::Relu};
  const Type types[] = {Type::F32, Type::BF16, Type::F16, Type::F64, Type::S32, Type::S8};
  for (ElementwiseOp op : ops) {
    for (Type t : types) {
      INFO(op_name(op) << " " << codegen::ptx_name(t));
      const int64_t eb = codegen::bytes(t);
      // Contiguous, ragged: one merged mode, widest vectors, a ragged tail.
      auto k = host_case(op, t, {333, 1001}, {1001, 1}, {1001, 1}, {1001, 1}, 0, 0, 0, rng);
      CHECK(run_host_api(k) == "");
      // Column-major C with padded columns, row-major A, permuted rank-3 B.
      k = host_case(op, t, {37, 45, 3}, {45 * 3, 3, 1}, {3, 111, 1}, {1, 40, 40 * 45}, 0, 0, 0, rng);
      CHECK(run_host_api(k) == "");
      // Broadcast A along mode 0 (stride 0), a rank-4 problem.
      k = host_case(op, t, {4, 5, 6, 70}, {0, 6 * 70, 70, 1}, {5 * 6 * 70, 6 * 70, 70, 1}, {5 * 6 * 72, 6 * 72, 72, 1},
                    0, 0, 0, rng);
      CHECK(run_host_api(k) == "");
      // Misaligned pointers: each operand one element past a 16-byte boundary.
      k = host_case(op, t, {1 << 16}, {1}, {1}, {1}, static_cast<uint64_t>(eb), 2 * static_cast<uint64_t>(eb),
                    3 * static_cast<uint64_t>(eb), rng);
      CHECK(run_host_api(k) == "");
      // In place: C is A.
      k = host_case(op, t, {129, 257}, {260, 1}, {257, 1}, {260, 1}, 0, 0, 0, rng);
      CHECK(run_host_api(k, true) == "");
      // Transposed inputs (staged through shared memory): A column-major under a row-major C,
      // ragged; then a batch with A and B both transposed and A one element off 16 bytes.
      k = host_case(op, t, {300, 1000}, {1, 300}, {1000, 1}, {1000, 1}, 0, 0, 0, rng);
      CHECK(run_host_api(k) == "");
      k = host_case(op, t, {5, 77, 130}, {77 * 130, 1, 77}, {80 * 130, 1, 80}, {77 * 130, 130, 1},
                    static_cast<uint64_t>(eb), 0, 0, rng);
      CHECK(run_host_api(k) == "");
    }
  }
}

TEST_CASE("kernels: gpu elementwise refuses host memory and views past their allocation") {
  TESSEL_REQUIRE_GPU(80);
  std::vector<float> host(1024);
  const uint64_t h = reinterpret_cast<uint64_t>(host.data());
  rt::DeviceBuffer d(1024 * sizeof(float));
  const TensorView dv = row_major(d.ptr(), Type::F32, {1024});
  CHECK_THROWS_WITH_AS(tessel::elementwise(ElementwiseOp::Add, row_major(h, Type::F32, {1024}), dv,
                                           row_major(d.ptr() + 8192 * 4, Type::F32, {1024})),
                       doctest::Contains("not device memory"), Error);
  // In place, so that no overlap check comes first: one element past the 1024 allocated.
  const TensorView past = row_major(d.ptr(), Type::F32, {1025});
  CHECK_THROWS_WITH_AS(tessel::elementwise(ElementwiseOp::Add, past, past, past),
                       doctest::Contains("past its allocation"), Error);
}
