// sm90/shared_storage.hpp: a kernel's dynamic shared memory as named regions (operand stages,
// mbarriers, epilogue staging), their offsets and alignments derived in one place, and the
// addresses of their elements at generation time. CuTe DSL's `@cute.struct SharedStorage`.
#pragma once

#include <cstdint>

#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

// `count` elements of `stride` bytes each, at `offset` bytes from the storage's base.
struct SmemRegion {
  int64_t offset = 0;
  int64_t stride = 0;
  int count = 0;
  int64_t bytes() const { return stride * count; }
};

// Lays regions out in the order they are added, each at the next multiple of its alignment.
// @post add(n, s, a).offset % a == 0, and it starts at or after the end of every earlier region
// @post bytes() is the end of the last region; align() the largest alignment asked for
class SharedStorageLayout {
 public:
  SmemRegion add(int count, int64_t stride, int64_t align);
  int64_t bytes() const { return end_; }
  int64_t align() const { return align_; }

 private:
  int64_t end_ = 0;
  int64_t align_ = 1;
};

// The regions at generation time: the dynamic shared base rounded up to the layout's alignment
// (the driver promises only 16 bytes, so the launch asks for align() bytes of slack), and the
// addresses (u32, shared) of the regions' elements.
class SharedStorage {
 public:
  SharedStorage(codegen::KernelBuilder& b, int64_t align);
  codegen::Value base() const { return base_; }

  // Element i of a buffer region: base + i * stride (+ offset, unless it is 0).
  codegen::Value element(const SmemRegion& r, codegen::Value i) const;
  // Element i, i static: base + (offset + i * stride), one add.
  codegen::Value element(const SmemRegion& r, int i) const;
  // Element i of a region of mbarriers (8 bytes each): base + (i << 3) + offset. A shift, where a
  // buffer's element multiplies: the kernels were written so, and the PTX stays byte-identical.
  codegen::Value mbarrier(const SmemRegion& r, codegen::Value i) const;

 private:
  codegen::Value base_;
};

}  // namespace tessel::kernels::sm90
