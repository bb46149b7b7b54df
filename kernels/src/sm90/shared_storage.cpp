// sm90/shared_storage.cpp: named regions of dynamic shared memory and their addresses.
#include "sm90/shared_storage.hpp"

#include <string>

#include "tessel/algebra/error.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

namespace {

bool is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

SmemRegion SharedStorageLayout::add(int count, int64_t stride, int64_t align) {
  if (!is_power_of_two(align)) fail("shared storage: alignment " + std::to_string(align) + " (a power of two)");
  if (count < 0 || stride < 0)
    fail("shared storage: a region of " + std::to_string(count) + " x " + std::to_string(stride) + " bytes");
  SmemRegion r;
  r.offset = (end_ + align - 1) & ~(align - 1);
  r.stride = stride;
  r.count = count;
  end_ = r.offset + r.bytes();
  if (align > align_) align_ = align;
  return r;
}

SharedStorage::SharedStorage(KernelBuilder& b, int64_t align)
    : base_((b.dynamic_shared("smem", static_cast<int>(align)) + (align - 1)) & ~(align - 1)) {}

Value SharedStorage::element(const SmemRegion& r, Value i) const {
  Value at = base_ + i * r.stride;
  return r.offset == 0 ? at : at + r.offset;
}

Value SharedStorage::element(const SmemRegion& r, int i) const { return base_ + (r.offset + i * r.stride); }

Value SharedStorage::mbarrier(const SmemRegion& r, Value i) const {
  if (r.stride != 8) fail("shared storage: mbarrier() on a region of " + std::to_string(r.stride) + "-byte elements");
  return base_ + (base_.builder().cvt(i, Type::U32) << 3) + r.offset;
}

}  // namespace tessel::kernels::sm90
