// common/tensor_view.cpp: see tensor_view.hpp.
#include "tessel/kernels/tensor_view.hpp"

#include <algorithm>
#include <cstdio>

namespace tessel::kernels {

int64_t TensorView::size() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

int64_t TensorView::span_bytes() const {
  if (size() == 0) return 0;
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < shape.size() && i < stride.size(); ++i) {
    const int64_t reach = (shape[i] - 1) * stride[i];
    (reach < 0 ? lo : hi) += reach;
  }
  return (hi - lo + 1) * codegen::bytes(dtype);
}

std::pair<uint64_t, uint64_t> TensorView::byte_range() const {
  int64_t lo = 0;
  for (size_t i = 0; i < shape.size() && i < stride.size(); ++i) lo += std::min<int64_t>(0, (shape[i] - 1) * stride[i]);
  const uint64_t first = data + static_cast<uint64_t>(lo * codegen::bytes(dtype));
  return {first, first + static_cast<uint64_t>(span_bytes())};
}

std::string TensorView::to_string() const {
  auto tuple = [](const std::vector<int64_t>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + ")";
  };
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(data));
  return std::string(codegen::ptx_name(dtype)) + " " + tuple(shape) + ":" + tuple(stride) + " at " + addr;
}

namespace {
TensorView contiguous(uint64_t data, codegen::Type dtype, std::vector<int64_t> shape, bool first_fastest) {
  TensorView v{data, dtype, std::move(shape), {}};
  v.stride.resize(v.shape.size());
  int64_t s = 1;
  for (size_t k = 0; k < v.shape.size(); ++k) {
    const size_t i = first_fastest ? k : v.shape.size() - 1 - k;
    v.stride[i] = s;
    s *= v.shape[i] > 0 ? v.shape[i] : 1;
  }
  return v;
}
}  // namespace

TensorView row_major(uint64_t data, codegen::Type dtype, std::vector<int64_t> shape) {
  return contiguous(data, dtype, std::move(shape), false);
}
TensorView column_major(uint64_t data, codegen::Type dtype, std::vector<int64_t> shape) {
  return contiguous(data, dtype, std::move(shape), true);
}

void append_layout_key(std::string& key, const TensorView& v) {
  const auto raw = [&](const auto& x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  raw(static_cast<int32_t>(v.dtype));
  raw(static_cast<int32_t>(v.shape.size()));
  raw(static_cast<int32_t>(v.stride.size()));
  for (int64_t e : v.shape) raw(e);
  for (int64_t s : v.stride) raw(s);
}

}  // namespace tessel::kernels
