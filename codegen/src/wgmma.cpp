// wgmma.cpp: warpgroup MMA: matrix descriptors checked against the PTX ISA's canonical shared-
// memory layouts, the wgmma instructions and the accumulator fragment layout.
#include "tessel/codegen/wgmma.hpp"

#include <string>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

const char* to_string(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::None:
      return "none";
    case SmemSwizzle::B32:
      return "32B";
    case SmemSwizzle::B64:
      return "64B";
    case SmemSwizzle::B128:
      return "128B";
  }
  return "";
}

SmemSwizzle parse_smem_swizzle(const std::string& s) {
  for (SmemSwizzle m : {SmemSwizzle::None, SmemSwizzle::B32, SmemSwizzle::B64, SmemSwizzle::B128}) {
    if (s == to_string(m)) return m;
  }
  fail("unknown swizzle '" + s + "' (valid: none, 32B, 64B, 128B)");
}

int swizzle_bytes(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::None:
      return 16;
    case SmemSwizzle::B32:
      return 32;
    case SmemSwizzle::B64:
      return 64;
    case SmemSwizzle::B128:
      return 128;
  }
  return 16;
}

namespace {

int log2_bytes(Type elem) {
  switch (bytes(elem)) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 4:
      return 2;
  }
  fail(std::string("wgmma: operands are 1, 2 or 4 bytes wide, not ") + ptx_name(elem));
}

// PTX ISA, "Matrix Descriptor Format", bits 62-63.
uint64_t mode_bits(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::None:
      return 0;
    case SmemSwizzle::B128:
      return 1;
    case SmemSwizzle::B64:
      return 2;
    case SmemSwizzle::B32:
      return 3;
  }
  return 0;
}

}  // namespace

SmemSwizzle smem_swizzle(const Swizzle& s, Type elem) {
  if (s.is_identity()) return SmemSwizzle::None;
  const int base_bytes = s.base + log2_bytes(elem);
  if (base_bytes == 4 && s.shift == 3) {
    if (s.bits == 1) return SmemSwizzle::B32;
    if (s.bits == 2) return SmemSwizzle::B64;
    if (s.bits == 3) return SmemSwizzle::B128;
  }
  fail("wgmma: " + to_string(s) + " on " + ptx_name(elem) +
       " elements is no descriptor swizzle mode (in bytes it must be " + "Sw<1,4,3>, Sw<2,4,3> or Sw<3,4,3>; for " +
       ptx_name(elem) + " that is Sw<B," + std::to_string(4 - log2_bytes(elem)) + ",3>)");
}

Swizzle element_swizzle(SmemSwizzle mode, Type elem) {
  const int m = 4 - log2_bytes(elem);
  switch (mode) {
    case SmemSwizzle::None:
      return Swizzle();
    case SmemSwizzle::B32:
      return Swizzle(1, m, 3);
    case SmemSwizzle::B64:
      return Swizzle(2, m, 3);
    case SmemSwizzle::B128:
      return Swizzle(3, m, 3);
  }
  return Swizzle();
}

ComposedLayout canonical_operand_layout(SmemSwizzle mode, Major major, Type elem, int mn, int k, int64_t lbo,
                                        int64_t sbo) {
  const int64_t t = 16 / bytes(elem);          // elements in 16 bytes
  const int64_t w = swizzle_bytes(mode) / 16;  // 16-byte chunks per swizzle row
  auto need = [&](bool ok, const std::string& rule) {
    if (!ok) fail("wgmma: a " + std::to_string(mn) + "x" + std::to_string(k) + " " + ptx_name(elem) + " tile " + rule);
  };
  Layout l;
  if (major == Major::K) {
    need(mn % 8 == 0, "needs MN to be a multiple of 8 (core matrices have 8 rows)");
    need(k % t == 0, "needs K to be a multiple of " + std::to_string(t) + " (16 bytes)");
    need(mode == SmemSwizzle::None || k / t <= w,
         "is wider in K than the " + std::string(to_string(mode)) + " swizzle row");
    l = make_layout(IntTuple{IntTuple{8, mn / 8}, IntTuple{t, k / t}},
                    IntTuple{IntTuple{w * t, sbo}, IntTuple{1, mode == SmemSwizzle::None ? lbo : t}});
  } else {
    need(k % 8 == 0, "needs K to be a multiple of 8 (MN-major core matrices have 8 rows of K)");
    need(mn % (t * w) == 0, "needs MN to be a multiple of " + std::to_string(t * w) + " for the " +
                                std::string(to_string(mode)) + " swizzle");
    if (mode == SmemSwizzle::None) {
      l = make_layout(IntTuple{IntTuple{t, 1, mn / t}, IntTuple{8, k / 8}},
                      IntTuple{IntTuple{1, t, sbo}, IntTuple{t, lbo}});
    } else {
      l = make_layout(IntTuple{IntTuple{t, w, mn / (t * w)}, IntTuple{8, k / 8}},
                      IntTuple{IntTuple{1, t, lbo}, IntTuple{w * t, sbo}});
    }
  }
  return composition(element_swizzle(mode, elem), l);
}

uint64_t MatrixDescriptor::encode(uint32_t smem_address) const {
  const int64_t s = start.value("wgmma descriptor start offset");
  const uint64_t addr = (static_cast<uint64_t>(smem_address) + static_cast<uint64_t>(s)) & 0x3FFFF;
  return (addr >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) | (static_cast<uint64_t>(sbo >> 4) << 32) |
         (mode_bits(swizzle) << 62);
}

namespace {

// Spelled only for a message: a GEMM makes a descriptor per stage and operand.
std::string descriptor_of(const ComposedLayout& tile) { return "wgmma descriptor of " + to_string(tile); }

// A slice (_, c) of a divided layout keeps its tile as one mode: ((MN,K)) reads as (MN,K).
Layout tile_modes(const ComposedLayout& tile) {
  return tile.layout.rank() == 1 && tile.layout[0].rank() == 2 ? tile.layout[0] : tile.layout;
}

}  // namespace

MatrixDescriptor make_matrix_descriptor(const ComposedLayout& tile, Type elem, Major major) {
  auto what = [&] { return descriptor_of(tile); };
  const Layout l = tile_modes(tile);
  if (l.rank() != 2) fail(what() + ": the tile must have two modes (MN, K), it has " + std::to_string(l.rank()));
  const Int mn_i = size(l[0]), k_i = size(l[1]);
  if (!mn_i.is_static() || !k_i.is_static()) fail(what() + ": the tile's shape must be static");
  const int mn = static_cast<int>(mn_i.value()), k = static_cast<int>(k_i.value());
  const int eb = bytes(elem);
  if (k * eb != 32) {
    fail(what() + ": K of one wgmma is 32 bytes (" + std::to_string(32 / eb) + " " + ptx_name(elem) + "), the tile has " +
         std::to_string(k));
  }
  MatrixDescriptor d;
  d.swizzle = smem_swizzle(tile.swizzle, elem);
  const int64_t t = 16 / eb, w = swizzle_bytes(d.swizzle) / 16;
  // A layout is the sum of its modes' functions, f(m, kk) = f0(m) + f1(kk) with f(0,0) = 0, so
  // the tile equals the canonical layout everywhere iff each mode does: O(MN + K) checks.
  if (!is_static(l.stride())) fail(what() + ": the tile's layout must be static, got " + to_string(l));
  const std::vector<int64_t> f0 = static_indices(l[0]), f1 = static_indices(l[1]);
  auto f = [&](int m, int kk) { return f0[static_cast<size_t>(m)] + f1[static_cast<size_t>(kk)]; };
  // Read LBO and SBO off the tile (PTX ISA, "Strides": LBO and SBO per major and swizzle mode);
  // a repeat the tile does not have keeps the canonical packed value.
  int64_t lbo = 0, sbo = 0;
  if (major == Major::K) {
    sbo = mn > 8 ? f(8, 0) : 8 * w * t;
    lbo = d.swizzle == SmemSwizzle::None ? (k > t ? f(0, static_cast<int>(t)) : 8 * t) : 1;
  } else if (d.swizzle == SmemSwizzle::None) {
    sbo = mn > t ? f(static_cast<int>(t), 0) : 8 * t;
    lbo = k > 8 ? f(0, 8) : mn * 8;
  } else {
    lbo = mn > t * w ? f(static_cast<int>(t * w), 0) : 8 * w * t;
    sbo = k > 8 ? f(0, 8) : 8 * w * t;
  }
  const ComposedLayout canon = canonical_operand_layout(d.swizzle, major, elem, mn, k, lbo, sbo);
  const std::vector<int64_t> c0 = static_indices(canon.layout[0]), c1 = static_indices(canon.layout[1]);
  auto differs = [&](int m, int kk) {
    fail(what() + ": not a canonical " + std::string(major == Major::K ? "K" : "MN") + "-major " + to_string(d.swizzle) +
         " layout (PTX ISA, shared memory matrix layout): at (" + std::to_string(m) + "," + std::to_string(kk) +
         ") it gives offset " + std::to_string(f(m, kk)) + ", the canonical layout " + to_string(canon) + " gives " +
         std::to_string(c0[static_cast<size_t>(m)] + c1[static_cast<size_t>(kk)]));
  };
  for (int m = 0; m < mn; ++m) {
    if (f0[static_cast<size_t>(m)] != c0[static_cast<size_t>(m)]) differs(m, 0);
  }
  for (int kk = 0; kk < k; ++kk) {
    if (f1[static_cast<size_t>(kk)] != c1[static_cast<size_t>(kk)]) differs(0, kk);
  }
  d.lbo = (major == Major::K && d.swizzle != SmemSwizzle::None) ? 16 : lbo * eb;  // unused field: 1 (x16 bytes)
  d.sbo = sbo * eb;
  for (int64_t v : {d.lbo, d.sbo}) {
    if (v % 16 != 0 || v < 0 || (v >> 4) >= (1 << 14)) {
      fail(what() + ": a byte offset of " + std::to_string(v) +
           " does not fit the descriptor (a multiple of 16 below 2^18)");
    }
  }
  d.start = matrix_descriptor_start(tile, elem, d.swizzle);
  return d;
}

Int matrix_descriptor_start(const ComposedLayout& tile, Type elem, SmemSwizzle swizzle) {
  // The swizzle acts on absolute address bits, so the tile must start on a row of the swizzle
  // pattern (the descriptor's base offset stays 0): start mod 8W < W, where W is the row width.
  // L(0): the tile's origin, every coordinate 0.
  const Int start = (tile.offset + tile.layout(Int(0)).leaf()) * Int(bytes(elem));
  const int64_t period = 8 * swizzle_bytes(swizzle);
  if (swizzle != SmemSwizzle::None) {
    const Int phase = start % Int(period);
    const bool ok = phase.is_static() ? phase.value() < swizzle_bytes(swizzle) : provably_divides(Int(period), start);
    if (!ok) {
      fail(descriptor_of(tile) + ": the tile starts at byte " + expr_string(start) +
           ", not within the first row of a " + std::to_string(period) + "-byte swizzle period");
    }
  } else if (!provably_divides(Int(16), start)) {
    fail(descriptor_of(tile) + ": the tile starts at byte " + expr_string(start) + ", not a multiple of 16");
  }
  return start;
}

Value matrix_descriptor(KernelBuilder& b, Value smem, const MatrixDescriptor& d) {
  if (smem.type() != Type::U32)
    fail(std::string("wgmma: a descriptor's shared address is u32, got ") + ptx_name(smem.type()));
  const uint64_t hi = (static_cast<uint64_t>(d.lbo >> 4) << 16) | (static_cast<uint64_t>(d.sbo >> 4) << 32) |
                      (mode_bits(d.swizzle) << 62);
  Value addr = smem;
  if (!(d.start.is_static() && d.start.value() == 0)) addr = smem + b.lower(d.start, Type::U32);
  Value field = (addr & 0x3FFFF) >> 4;
  Value wide = b.cvt(field, Type::U64);
  Value c = b.lower(Int(static_cast<int64_t>(hi)), Type::U64);  // one register per distinct constant
  return b.binary(Op::Or, wide, c);
}

// --- Instructions -------------------------------------------------------------------------------

int WgmmaAtom::k() const { return 32 / bytes(a); }

int WgmmaAtom::accumulators() const { return d == Type::F32 ? n / 2 : n / 4; }

void WgmmaAtom::check() const {
  const std::string what =
      std::string("wgmma m64n") + std::to_string(n) + " " + ptx_name(d) + "." + ptx_name(a) + "." + ptx_name(b);
  if (n < 8 || n > 256 || n % 8 != 0) fail(what + ": N must be a multiple of 8 in [8, 256]");
  const bool fp8a = a == Type::E4M3 || a == Type::E5M2, fp8b = b == Type::E4M3 || b == Type::E5M2;
  if (fp8a != fp8b || (!fp8a && a != b)) fail(what + ": A and B must have one type (fp8 may mix e4m3 and e5m2)");
  if (a == Type::F16 || fp8a) {
    if (d != Type::F16 && d != Type::F32) fail(what + ": the accumulator must be f16 or f32");
  } else if (a == Type::BF16 || a == Type::TF32) {
    if (d != Type::F32) fail(what + ": the accumulator must be f32");
  } else {
    fail(what + ": inputs must be f16, bf16, tf32, e4m3 or e5m2");
  }
}

Layout wgmma_accumulator_layout(int n) {
  if (n < 8 || n % 8 != 0) fail("wgmma accumulator layout: N must be a multiple of 8, got " + std::to_string(n));
  // (T128, V n/2) -> (M64, N): T = (t%4, (t%32)/4, t/32), V = (i%2, (i/2)%2, i/4).
  return make_layout(IntTuple{IntTuple{4, 8, 4}, IntTuple{2, 2, n / 8}},
                     IntTuple{IntTuple{128, 1, 16}, IntTuple{64, 8, 512}});
}

std::vector<Value> wgmma_accumulators(KernelBuilder& b, const WgmmaAtom& atom) {
  atom.check();
  std::vector<Value> acc;
  for (int i = 0; i < atom.accumulators(); ++i) acc.push_back(b.reg(atom.d == Type::F32 ? Type::F32 : Type::B32));
  return acc;
}

namespace {
Instr simple(Op op) {
  Instr i;
  i.op = op;
  return i;
}

Operand acc_operand(const WgmmaAtom& atom, const std::vector<Value>& acc) {
  if (static_cast<int>(acc.size()) != atom.accumulators()) {
    fail("wgmma m64n" + std::to_string(atom.n) + ": " + std::to_string(atom.accumulators()) +
         " accumulator registers, got " + std::to_string(acc.size()));
  }
  OperandList ops;
  for (const Value& v : acc) ops.push_back(v.op());
  return Operand::vec(std::move(ops));
}

void check_major(const WgmmaAtom& atom, Major major, const char* which) {
  if (major == Major::MN && atom.a != Type::F16 && atom.a != Type::BF16) {
    fail(std::string("wgmma: operand ") + which + " of " + ptx_name(atom.a) +
         " must be K-major (only f16/bf16 transpose)");
  }
}
}  // namespace

void wgmma_fence(KernelBuilder& b) { b.emit(simple(Op::WgmmaFence)); }
void wgmma_commit_group(KernelBuilder& b) { b.emit(simple(Op::WgmmaCommit)); }
void wgmma_wait_group(KernelBuilder& b, int pending) {
  if (pending < 0 || pending > 7) fail("wgmma.wait_group: " + std::to_string(pending) + " pending groups (0 to 7)");
  Instr i = simple(Op::WgmmaWait);
  i.set_ops(Operand::i(pending));
  b.emit(std::move(i));
}

void wgmma(KernelBuilder& b, const WgmmaAtom& atom, const std::vector<Value>& acc, Value desc_a, Value desc_b,
           Value scale_d, Major major_a, Major major_b) {
  atom.check();
  check_major(atom, major_a, "A");
  check_major(atom, major_b, "B");
  if (scale_d.type() != Type::Pred) fail("wgmma: scale-d is a pred");
  Instr i = simple(Op::Wgmma);
  i.n = atom.n;
  i.type = atom.d;
  i.type2 = atom.a;
  i.type3 = atom.b;
  i.set_ops(acc_operand(atom, acc), desc_a.op(), desc_b.op(), scale_d.op(), Operand::i(1), Operand::i(1));
  if (atom.a == Type::F16 || atom.a == Type::BF16) {
    i.ops.push_back(Operand::i(major_a == Major::MN ? 1 : 0));
    i.ops.push_back(Operand::i(major_b == Major::MN ? 1 : 0));
  }
  b.emit(std::move(i));
}

void wgmma_reg_a(KernelBuilder& b, const WgmmaAtom& atom, const std::vector<Value>& acc, const std::vector<Value>& a,
                 Value desc_b, Value scale_d, Major major_b) {
  atom.check();
  check_major(atom, major_b, "B");
  if (a.size() != 4) fail("wgmma: A from registers is 4 b32 registers per thread, got " + std::to_string(a.size()));
  if (scale_d.type() != Type::Pred) fail("wgmma: scale-d is a pred");
  Instr i = simple(Op::Wgmma);
  i.n = atom.n;
  i.type = atom.d;
  i.type2 = atom.a;
  i.type3 = atom.b;
  i.flags = kRegA;
  OperandList av;
  for (const Value& v : a) av.push_back(v.op());
  i.set_ops(acc_operand(atom, acc), Operand::vec(av), desc_b.op(), scale_d.op(), Operand::i(1), Operand::i(1));
  if (atom.a == Type::F16 || atom.a == Type::BF16) i.ops.push_back(Operand::i(major_b == Major::MN ? 1 : 0));
  b.emit(std::move(i));
}

}  // namespace tessel::codegen
