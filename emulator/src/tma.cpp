// tma.cpp: cp.async.bulk.tensor in tile mode, global -> shared (completing on an mbarrier) and
// shared -> global (bulk async-group, performed when its group is waited for: block.hpp). PTX ISA
// 9.0 §9.7.9.25.5.2 cp.async.bulk.tensor and §5.5 "Tensors" (tile mode, bounding box, traversal strides,
// out-of-bound access); the swizzle modes as in swizzle.hpp.
#include <cstring>

#include "block.hpp"
#include "fault.hpp"
#include "swizzle.hpp"
#include "tensor_map.hpp"

namespace tessel::emu::detail {

using namespace codegen;

namespace {

inline uint64_t value(const uint64_t* R, const Src& s) { return s.imm ? s.value : R[s.slot]; }

int swizzle_span(rt::TensorMapSwizzle s) {
  switch (s) {
    case rt::TensorMapSwizzle::B32:
      return 32;
    case rt::TensorMapSwizzle::B64:
      return 64;
    case rt::TensorMapSwizzle::B128:
      return 128;
    default:
      return 16;
  }
}

// The box of one copy: elements per dimension (box / traversal stride, rounded up) and the
// global coordinates of box element i.
struct Box {
  const TmaMap& m;
  std::array<int32_t, 5> start{};
  std::array<int, 5> count{};
  int64_t elements = 1;

  Box(const TmaMap& map, const std::array<int32_t, 5>& at) : m(map), start(at) {
    for (int k = 0; k < 5; ++k) {
      count[k] = (m.box[k] + m.estride[k] - 1) / m.estride[k];
      elements *= count[k];
    }
  }
  Box(const TmaMap& map, const uint64_t* R, const Decoded& d) : Box(map, coordinates(map, R, d)) {}
  static std::array<int32_t, 5> coordinates(const TmaMap& m, const uint64_t* R, const Decoded& d) {
    std::array<int32_t, 5> at{};
    for (int k = 0; k < m.rank; ++k) at[k] = static_cast<int32_t>(static_cast<uint32_t>(value(R, d.src[3 + k])));
    return at;
  }
  // Calls f(shared byte offset, global address, in bounds) for each element, dimension 0 fastest.
  // `dim0_end` overrides the end of dimension 0 (the store's 16-byte granule, below).
  template <class F>
  void each(F&& f, int64_t dim0_end = -1) const {
    std::array<int, 5> i{};
    for (int64_t e = 0; e < elements; ++e) {
      bool inside = true;
      uint64_t addr = m.address;
      for (int k = 0; k < m.rank; ++k) {
        const int64_t g = int64_t{start[k]} + int64_t{i[k]} * m.estride[k];
        const int64_t end = k == 0 && dim0_end >= 0 ? dim0_end : static_cast<int64_t>(m.dims[k]);
        inside = inside && g >= 0 && g < end;
        addr += static_cast<uint64_t>(g) * m.strides[k];
      }
      f(static_cast<uint32_t>(e * m.esize), addr, inside);
      for (int k = 0; k < 5 && ++i[k] == count[k]; ++k) i[k] = 0;
    }
  }
  // The coordinates an H200 takes when the copy is issued (tools/probe/tma_granule.cu; Triton's
  // issue 7385 reports the first rule on loads); it raises an illegal instruction otherwise:
  // the box's first element on a 16-byte granule of the tensor (the address and the strides past
  // dimension 0 are 16-byte multiples already, so dimension 0's coordinate decides), and a store's
  // coordinates >= 0 in every dimension (a load there reads zeros; past the end both clip).
  void check_start(bool store) const {
    if ((int64_t{start[0]} * m.esize) % 16 != 0) {
      fault("misaligned address", "a TMA box at " + coords() + " starts " + std::to_string(int64_t{start[0]} * m.esize) +
                                      " bytes into dimension 0, which is not a multiple of 16 (the hardware's rule: "
                                      "dimension 0's coordinate times the element size)");
    }
    for (int k = 0; store && k < m.rank; ++k) {
      if (start[static_cast<size_t>(k)] < 0)
        fault("misaligned address", "a TMA store of the box at " + coords() + ": coordinate " + std::to_string(k) +
                                        " is negative (the hardware stores only from coordinates >= 0)");
    }
  }
  std::string coords() const {
    std::string s = "(";
    for (int k = 0; k < m.rank; ++k) s += (k ? "," : "") + std::to_string(start[k]);
    return s + ")";
  }
};

// The shared address of a box: 128-byte aligned (PTX ISA, cp.async.bulk.tensor), and for a
// swizzled box aligned to the swizzle's repeat of 8 rows: 256, 512, 1024 bytes for 32B, 64B, 128B
// (CUDA programming guide, "TMA Swizzle": the shared memory alignment of each swizzle mode).
uint32_t box_address(uint64_t a, const TmaMap& m, const char* what) {
  if (a > 0xffffffff) fault("out-of-bounds shared access", std::string(what) + " at shared address " + hex(a) + " (past 4 GiB)");
  const int span = swizzle_span(m.swizzle);
  const uint64_t align = span == 16 ? 128 : 8 * static_cast<uint64_t>(span);
  if (a % align != 0) {
    fault("misaligned address", std::string(what) + " at shared address " + hex(a) + ", which is not a multiple of " +
                                    std::to_string(align) +
                                    (span == 16 ? " (a TMA box in shared memory is 128-byte aligned)"
                                                : " (a box with the " + std::to_string(span) + "B swizzle is aligned to its 8-row repeat)"));
  }
  return static_cast<uint32_t>(a);
}

// Where a TMA store's dimension 0 ends. Out-of-bound elements are not written (the box is clipped
// to the tensor), except that the hardware writes whole 16-byte granules along dimension 0: past
// an inner extent that is not a multiple of 16 bytes, the rest of its last granule is written too
// (seen on an H100: a TMA-store epilogue overwrote the padding after each row; Triton's issue
// 11583 reports the same).
int64_t store_dim0_end(const TmaMap& m) {
  const int64_t granule = 16 / static_cast<int64_t>(m.esize);
  return (static_cast<int64_t>(m.dims[0]) + granule - 1) / granule * granule;
}

}  // namespace

std::array<uint64_t, 16> BlockRunner::read_tensor_map(uint32_t, const Decoded&, uint64_t addr) {
  std::array<uint64_t, 16> w{};
  if (addr % 64 != 0) {
    fault("misaligned address", "the tensor map at generic address " + hex(addr) + " is not 64-byte aligned");
  }
  if (addr >= kParamWindow && addr < kParamWindow + kWindowSize) {
    const uint64_t off = addr - kParamWindow;
    if (off + 128 > L_.params.size()) {
      fault("out-of-bounds param access", "the 128-byte tensor map at param address " + hex(off) + " runs past the " +
                                              std::to_string(L_.params.size()) + " bytes of the kernel's parameters");
    }
    std::memcpy(w.data(), L_.params.data() + off, 128);
    return w;
  }
  const Memory::Buffer* b = L_.memory.find(addr, 128);
  if (!b) {
    fault("out-of-bounds global access",
          "the 128-byte tensor map at " + hex(addr) + " is neither a kernel parameter nor in a buffer: " +
              L_.memory.describe(addr));
  }
  std::memcpy(w.data(), b->data.data() + (addr - b->addr), 128);
  return w;
}

void BlockRunner::tma_load(uint32_t t, const Decoded& d, const uint64_t* R) {
  const TmaMap m = decode_tensor_map(read_tensor_map(t, d, value(R, d.src[1])));
  if (m.rank != d.n) {
    fault("tensor map rank mismatch", "a " + std::to_string(d.n) + "-d copy with a tensor map of rank " + std::to_string(m.rank));
  }
  // The destination CTAs: this one, or with .multicast::cluster those of cta_mask, each receiving
  // the box at the same shared offset and a complete-tx on its mbarrier at the same offset.
  std::vector<BlockRunner*> to{this};
  if (d.has(kMulticast)) {
    const uint64_t mask = value(R, d.src[3 + d.n]) & 0xffff;
    if (mask == 0 || mask >> cluster_size() != 0) {
      fault("invalid multicast mask", "cta_mask " + hex(mask) + " names no CTA, or CTAs past the " +
                                          std::to_string(cluster_size()) + " of this cluster");
    }
    to.clear();
    for (unsigned r = 0; r < cluster_size(); ++r) {
      if ((mask >> r) & 1) to.push_back(cluster_->ctas[r]);
    }
  }
  const Box box(m, R, d);
  box.check_start(false);
  const uint32_t bytes = static_cast<uint32_t>(box.elements * m.esize);
  const uint32_t dst = cluster_address(box_address(value(R, d.src[0]), m, "the TMA load writes its box"), "the TMA load's box").second;
  // The mbarrier: 8-byte aligned, initialised in each destination CTA.
  const uint64_t ma = value(R, d.src[2]);
  if (ma > 0xffffffff || ma % 8 != 0) fault("misaligned address", "an mbarrier at shared address " + hex(ma));
  const uint32_t mbar = cluster_address(ma, "cp.async.bulk.tensor's mbarrier").second;
  for (BlockRunner* cta : to) {
    cta->shared_.check(dst, bytes, "writes (TMA box)");
    if (const Mbarrier* over = cta->mbarriers_.overlapping(dst, bytes)) {
      fault("TMA overwrites an mbarrier", "the box of " + std::to_string(bytes) + " bytes at shared address " +
                                              cta->shared_.describe(dst) + " covers the mbarrier at " +
                                              cta->shared_.describe(over->addr));
    }
  }
  std::vector<Mbarrier*> bars;  // each destination's barrier; the bytes complete in its current phase
  for (BlockRunner* cta : to) bars.push_back(&cta->mbarriers_.get(mbar, "cp.async.bulk.tensor's complete_tx"));
  const int sw = swizzle_bits(swizzle_span(m.swizzle));
  std::byte zero[8] = {};
  std::byte nan[8];
  std::memset(nan, 0xff, sizeof nan);
  const std::byte* fill = m.oob == rt::TensorMapOobFill::NanRequestZeroFma ? nan : zero;
  std::byte buf[8];
  box.each([&](uint32_t off, uint64_t addr, bool inside) {
    const std::byte* src = fill;
    if (inside) {
      const Memory::Buffer* b = L_.memory.find(addr, static_cast<size_t>(m.esize));
      if (!b) {
        fault("out-of-bounds global access", "the TMA load of the box at " + box.coords() + " reads " +
                                                 std::to_string(m.esize) + " bytes at global address " + hex(addr) +
                                                 ", " + L_.memory.describe(addr));
      }
      std::memcpy(buf, b->data.data() + (addr - b->addr), static_cast<size_t>(m.esize));
      src = buf;
    }
    for (size_t k = 0; k < to.size(); ++k)
      to[k]->shared_.async_store(swizzle_address(dst + off, sw), src, static_cast<uint32_t>(m.esize), mbar, bars[k]->phase,
                                 to[k] == this ? static_cast<int32_t>(t) : -1);
  });
  // PTX ISA 9.0 §9.7.9.25.5.2: complete-tx of the box's bytes (out-of-bound elements included).
  for (size_t k = 0; k < to.size(); ++k) {
    if (to[k]->mbarriers_.complete_tx(*bars[k], bytes)) to[k]->completed(*bars[k]);
  }
  ++L_.stats.tma_loads;
}

void BlockRunner::tma_store(uint32_t t, const Decoded& d, const uint64_t* R) {
  PendingStore p;
  p.map = decode_tensor_map(read_tensor_map(t, d, value(R, d.src[1])));
  if (p.map.rank != d.n) {
    fault("tensor map rank mismatch",
          "a " + std::to_string(d.n) + "-d copy with a tensor map of rank " + std::to_string(p.map.rank));
  }
  p.start = Box::coordinates(p.map, R, d);
  p.src = box_address(value(R, d.src[0]), p.map, "the TMA store reads its box");
  const Box box(p.map, p.start);
  box.check_start(true);
  shared_.check(p.src, static_cast<uint32_t>(box.elements * p.map.esize), "reads (TMA box)");
  // What the threads wrote into the box must be fenced for the async proxy before the issue.
  const int sw = swizzle_bits(swizzle_span(p.map.swizzle));
  box.each([&](uint32_t off, uint64_t, bool inside) {
    if (inside) shared_.check_async_read(swizzle_address(p.src + off, sw), static_cast<uint32_t>(p.map.esize), "the TMA store");
  }, store_dim0_end(p.map));
  bulk_[t].open.push_back(p);
  ++L_.stats.tma_stores;
}

// PTX ISA, cp.async.bulk.commit_group: the thread's uncommitted bulk operations become a new bulk
// async-group (here an empty one if there are none, which only defers more); wait_group N waits
// until at most N of the thread's most recent groups are pending.
void BlockRunner::bulk_commit(uint32_t t) {
  BulkGroups& g = bulk_[t];
  g.committed.push_back(std::move(g.open));
  g.open.clear();
}

void BlockRunner::bulk_wait(uint32_t t, size_t pending) {
  BulkGroups& g = bulk_[t];
  while (g.committed.size() > pending) {
    for (const PendingStore& s : g.committed.front()) perform_store(t, s);
    g.committed.pop_front();
  }
  if (pending == 0) {  // the thread's exit: uncommitted stores still happen
    for (const PendingStore& s : g.open) perform_store(t, s);
    g.open.clear();
  }
}

void BlockRunner::perform_store(uint32_t t, const PendingStore& p) {
  const TmaMap& m = p.map;
  const Box box(m, p.start);
  const int sw = swizzle_bits(swizzle_span(m.swizzle));
  std::byte buf[8];
  const int64_t dim0_end = store_dim0_end(m);
  box.each([&](uint32_t off, uint64_t addr, bool inside) {
    if (!inside) return;
    shared_.load(swizzle_address(p.src + off, sw), buf, static_cast<uint32_t>(m.esize), t, false);
    Memory::Buffer* b = L_.memory.find(addr, static_cast<size_t>(m.esize));
    if (!b) {
      fault("out-of-bounds global access", "the TMA store of the box at " + box.coords() + " writes " +
                                               std::to_string(m.esize) + " bytes at global address " + hex(addr) + ", " +
                                               L_.memory.describe(addr));
    }
    std::memcpy(b->data.data() + (addr - b->addr), buf, static_cast<size_t>(m.esize));
  }, dim0_end);
}

}  // namespace tessel::emu::detail
