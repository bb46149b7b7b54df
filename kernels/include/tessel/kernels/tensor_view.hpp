// tensor_view.hpp: an operand as a caller passes it to a kernel's host side: a device address, an
// element type, and a shape and strides in elements (any rank, any strides). Views own nothing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessel/codegen/types.hpp"

namespace tessel::kernels {

struct TensorView {
  uint64_t data = 0;  // a device address (CUdeviceptr), or an emulator address
  codegen::Type dtype = codegen::Type::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;  // in elements; the same rank as shape

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t size() const;  // the number of elements (1 for rank 0)
  // Bytes from the lowest to one past the highest element addressed (negative strides allowed),
  // for range and overlap checks. 0 bytes when size() == 0.
  int64_t span_bytes() const;
  // [lowest, one past the highest) byte addressed: span_bytes() from the lowest element's address.
  std::pair<uint64_t, uint64_t> byte_range() const;
  // "bf16 (4,8):(8,1) at 0x7f0000000000"
  std::string to_string() const;
};

// A contiguous view, the first mode the slowest (row-major for rank 2).
// Appends the view's element type, rank, extents and strides (not its address) to `key` as raw
// bytes: what the caches of the one-call paths (tessel::gemm, tessel::elementwise) key their
// choices and plans on, with the addresses' alignment added by the caller.
void append_layout_key(std::string& key, const TensorView& v);

TensorView row_major(uint64_t data, codegen::Type dtype, std::vector<int64_t> shape);
// A contiguous view, the first mode the fastest (column-major for rank 2).
TensorView column_major(uint64_t data, codegen::Type dtype, std::vector<int64_t> shape);

}  // namespace tessel::kernels
