// tma_test.cpp: TMA descriptor specs from layouts (CPU only; encoding is tested on the GPU by
// the tma_tile kernel, whose host side uses make_tensor_map_spec).
#include "tessel/kernels/tma.hpp"

#include <doctest/doctest.h>

using namespace tessel;
using namespace tessel::kernels;
using codegen::SmemSwizzle;
using codegen::Type;

TEST_CASE("kernels: a layout and a box become a TMA spec the runtime accepts") {
  // A padded row-major M x N matrix seen as (N, M) : (1, ld), and a batch of them.
  rt::TensorMapSpec s =
      make_tensor_map_spec(make_layout(IntTuple{300, 200}, IntTuple{1, 320}), Type::BF16, {64, 32}, SmemSwizzle::B128);
  CHECK(s.type == rt::TensorMapDataType::BF16);
  CHECK(s.dims == std::vector<int64_t>{300, 200});
  CHECK(s.strides == std::vector<int64_t>{1, 320});
  CHECK(s.swizzle == rt::TensorMapSwizzle::B128);
  CHECK_NOTHROW(rt::validate_tensor_map(s));
  const Int M = Int::symbol("M"), L = Int::symbol("L");
  s = make_tensor_map_spec(make_layout(IntTuple{64, IntTuple{M, L}}, IntTuple{1, IntTuple{64, M * Int(64)}}), Type::F32,
                           {32, 16, 1}, SmemSwizzle::B128, {{"M", 100}, {"L", 3}});
  CHECK(s.dims == std::vector<int64_t>{64, 100, 3});
  CHECK(s.strides == std::vector<int64_t>{1, 64, 6400});
  CHECK_NOTHROW(rt::validate_tensor_map(s));
}

TEST_CASE("kernels: TMA specs refuse layouts TMA cannot describe, naming the rule") {
  CHECK_THROWS_WITH_AS(make_tensor_map_spec(make_layout(IntTuple{64, 32}, IntTuple{32, 1}), Type::F32, {16, 16}),
                       doctest::Contains("mode 0 has stride 32; TMA's first dimension is the contiguous one"), Error);
  CHECK_THROWS_WITH_AS(make_tensor_map_spec(make_layout(IntTuple{2, 2, 2, 2, 2, 2}), Type::F32, {1, 1, 1, 1, 1, 1}),
                       doctest::Contains("6 modes, TMA moves at most 5"), Error);
  CHECK_THROWS_WITH_AS(make_tensor_map_spec(make_layout(IntTuple{64, Int::symbol("N")}), Type::F32, {16, 16}),
                       doctest::Contains("mode 1 is dynamic"), Error);
  CHECK_THROWS_WITH_AS(make_tensor_map_spec(make_layout(IntTuple{64, 8}), Type::F32, {16}),
                       doctest::Contains("a box of 1 extents for 2 modes"), Error);
  CHECK_THROWS_WITH_AS(make_tensor_map_spec(make_layout(IntTuple{64}), Type::Pred, {16}),
                       doctest::Contains("no tensor-map data type for pred"), Error);
}
