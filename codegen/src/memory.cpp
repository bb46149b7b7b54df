// memory.cpp: loads, stores, atomics, tensors (pointer + space + layout) and the vectorizing
// copy. Element types without an ld/st spelling (f16, bf16, their pairs) move as bit types.
#include <cstdlib>
#include <numeric>
#include <span>
#include <utility>

#include "tessel/algebra/error.hpp"
#include "cse.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

namespace {

// ld/st accept b/u/s/f32/f64 types only (PTX ISA, ld: ".type"): 16-bit floats move as b16.
Type memory_type(Type t) {
  switch (t) {
    case Type::F16:
    case Type::BF16:
      return Type::B16;
    case Type::F16x2:
    case Type::BF16x2:
    case Type::TF32:
      return Type::B32;
    case Type::E4M3:
    case Type::E5M2:
      return Type::B8;
    case Type::Pred:
    case Type::None:
      fail(std::string("codegen: no load or store of ") + ptx_name(t));
    default:
      return t;
  }
}

void check_address(Space s, Value addr) {
  if (s == Space::Shared || s == Space::SharedCluster) {
    if (addr.type() != Type::U32 && addr.type() != Type::U64 && addr.type() != Type::B32) {
      fail(std::string("codegen: a shared-memory address is u32 or u64, got ") + ptx_name(addr.type()));
    }
  } else if (bits(addr.type()) != 64 || !is_integer(addr.type())) {
    fail(std::string("codegen: a ") + short_name(s) + " address is a 64-bit integer, got " + ptx_name(addr.type()));
  }
}

void check_vec(int vec, Type t) {
  if (vec != 1 && vec != 2 && vec != 4) fail("codegen: vector width " + std::to_string(vec) + " (1, 2 or 4)");
  if (vec * bytes(t) > 16) {
    fail("codegen: a vector of " + std::to_string(vec) + " " + ptx_name(t) + " is " + std::to_string(vec * bytes(t)) +
         " bytes (at most 16)");
  }
}

// The register type of a loaded or stored element: fp8 has no register type, so it moves as b16.
Type register_type(Type t) { return t == Type::E4M3 || t == Type::E5M2 ? Type::B16 : t; }

Operand data_operand(std::span<const Value> v) {
  if (v.size() == 1) return v[0].op();
  OperandList ops;
  for (const Value& x : v) ops.push_back(x.op());
  return Operand::vec(std::move(ops));
}

}  // namespace

std::vector<Value> KernelBuilder::load(Space s, Type t, Value addr, int64_t offset, int vec, LoadOptions o) {
  std::vector<Value> out;
  load_into(out, s, t, addr, offset, vec, o);
  return out;
}

void KernelBuilder::load_into(std::vector<Value>& out, Space s, Type t, Value addr, int64_t offset, int vec,
                              LoadOptions o) {
  check_vec(vec, t);
  const size_t first = out.size();
  for (int i = 0; i < vec; ++i) out.push_back(fresh(register_type(t)));
  emit_load(std::span<const Value>(out.data() + first, out.size() - first), s, t, addr, offset, o);
}

void KernelBuilder::load_to(const std::vector<Value>& dst, Space s, Type t, Value addr, int64_t offset,
                            LoadOptions o) {
  check_vec(static_cast<int>(dst.size()), t);
  for (const Value& v : dst)
    if (reg_class(v.type()) != reg_class(register_type(t)))
      fail(std::string("codegen: load of ") + ptx_name(t) + " into a " + ptx_name(v.type()) + " register");
  emit_load(dst, s, t, addr, offset, o);
}

void KernelBuilder::emit_load(std::span<const Value> dst, Space s, Type t, Value addr, int64_t offset,
                              LoadOptions o) {
  check_address(s, addr);
  if (o.nc && s != Space::Global) fail("codegen: ld.nc reads the global space only");
  const Type mt = memory_type(t);
  // Made in place at the end of the block (append()), as binary() makes its instruction: one
  // made aside and emitted was moved in, and loads and stores are a GEMM epilogue's bulk.
  Instr& i = append();
  i.op = Op::Ld;
  i.space = s;
  i.type = mt;
  i.vec = static_cast<uint8_t>(dst.size());
  i.cache = o.cache;
  if (o.nc) i.flags |= kNc;
  if (o.no_allocate_l1) i.flags |= kNoAllocL1;
  if (o.prefetch_l2) i.flags |= kL2Prefetch;
  i.set_ops(data_operand(dst), Operand::addr(addr.op(), offset));
}

void KernelBuilder::store(Space s, Type t, Value addr, const std::vector<Value>& values, int64_t offset, Cache cache) {
  check_address(s, addr);
  const int vec = static_cast<int>(values.size());
  check_vec(vec, t);
  for (const Value& v : values) {
    if (reg_class(v.type()) != reg_class(register_type(t))) {
      fail(std::string("codegen: store of a ") + ptx_name(v.type()) + " value as " + ptx_name(t));
    }
  }
  const Type mt = memory_type(t);
  Instr& i = append();  // in place, as load_into's
  i.op = Op::St;
  i.space = s;
  i.type = mt;
  i.vec = static_cast<uint8_t>(vec);
  i.cache = cache;
  i.set_ops(Operand::addr(addr.op(), offset), data_operand(values));
}

Value KernelBuilder::atom(Space s, AtomOp op, Type t, Value addr, Value v) {
  check_address(s, addr);
  Instr i;
  i.op = Op::Atom;
  i.space = s;
  i.atom = op;
  i.type = (op == AtomOp::And || op == AtomOp::Or || op == AtomOp::Xor || op == AtomOp::Exch) ? bits_type(bits(t)) : t;
  Value r = fresh(t);
  i.set_ops(r.op(), Operand::addr(addr.op()), v.op());
  emit(std::move(i));
  return r;
}

void KernelBuilder::red(Space s, AtomOp op, Type t, Value addr, Value v) {
  check_address(s, addr);
  if (op == AtomOp::Exch || op == AtomOp::Cas) fail("codegen: red has no exch or cas (use atom)");
  Instr i;
  i.op = Op::Red;
  i.space = s;
  i.atom = op;
  i.type = (op == AtomOp::And || op == AtomOp::Or || op == AtomOp::Xor) ? bits_type(bits(t)) : t;
  i.set_ops(Operand::addr(addr.op()), v.op());
  emit(std::move(i));
}

// --- Tensors ------------------------------------------------------------------------------------

Tensor::Tensor(Value b, Space s, Type e, Layout l, Type idx, int64_t align)
    : Tensor(b, s, e, composition(Swizzle(), l), idx, align) {}

Tensor::Tensor(Value b, Space s, Type e, ComposedLayout l, Type idx, int64_t align)
    : base(b), space(s), elem(e), layout(std::move(l)), index(idx), base_align(align ? align : bytes(e)) {}

Tensor Tensor::operator()(const SliceCoord& c) const {
  Tensor t = *this;
  t.offsets.reset();
  t.layout = slice(c, layout);
  return t;
}

Tensor Tensor::compose(const Layout& l) const {
  Tensor t = *this;
  t.offsets.reset();
  t.layout = composition(layout, l);
  return t;
}

Tensor Tensor::compose(const Tiler& tiler) const {
  Tensor t = *this;
  t.offsets.reset();
  t.layout = composition(layout, tiler);
  return t;
}

Tensor Tensor::zipped_divide(const Tiler& tiler) const {
  Tensor t = *this;
  t.offsets.reset();
  t.layout.layout = tessel::zipped_divide(layout.layout, tiler);
  return t;
}

Int Tensor::size() const { return tessel::size(layout); }

Tensor Tensor::at_base(Value b) const {
  Tensor t = *this;
  t.base = b;
  return t;
}

Tensor Tensor::memoized() const {
  Tensor t = *this;
  t.offsets = std::make_shared<ElementOffsets>();
  return t;
}

namespace {

// Splits x into a dynamic part and a static addend: x = d + c.
std::pair<Int, int64_t> split_constant(const Int& x) {
  if (x.is_static()) return {Int(0), x.value()};
  const Expr& e = *x.expr();
  if (e.op == tessel::ExprOp::Add && e.b.is_static()) {
    auto [d, c] = split_constant(e.a);
    return {d, checked_add(c, e.b.value())};
  }
  if (e.op == tessel::ExprOp::Add && e.a.is_static()) {
    auto [d, c] = split_constant(e.b);
    return {d, checked_add(c, e.a.value())};
  }
  if (e.op == tessel::ExprOp::Add) {  // both dynamic: an addend deeper in either side, (a + (b + 1)) -> (a + b) + 1
    auto [da, ca] = split_constant(e.a);
    auto [db, cb] = split_constant(e.b);
    if (ca != 0 || cb != 0) return {da + db, checked_add(ca, cb)};
  }
  if (e.op == tessel::ExprOp::Mul && (e.a.is_static() || e.b.is_static())) {
    const int64_t f = e.a.is_static() ? e.a.value() : e.b.value();
    auto [d, c] = split_constant(e.a.is_static() ? e.b : e.a);
    if (c != 0) return {d * Int(f), checked_mul(c, f)};
  }
  return {x, 0};
}

// The byte offset of `coord` in t: a dynamic part and a static addend (the algebra; no code).
std::pair<Int, int64_t> byte_offset_parts(const Tensor& t, const Coord& coord) {
  IntTuple idx = t.layout.layout(coord);
  if (!idx.is_leaf() || idx.leaf().has_basis()) fail("codegen: address of a tensor whose layout is not an index map");
  const Swizzle& sw = t.layout.swizzle;
  const Int pre = t.layout.offset + idx.leaf();
  Int elem_offset = sw(pre);
  if (!sw.is_identity() && !elem_offset.is_static()) {
    // An addend that is a multiple of 2^k, k past every bit the swizzle reads or writes, passes
    // through it: sw(x + hi) = sw(x) + hi for any x (the addition leaves bits below k alone). So
    // the elements of one row of swizzle atoms share sw(x), and hi becomes an immediate.
    auto [d, c] = split_constant(pre);
    const int k = sw.base + sw.bits + std::abs(sw.shift);
    const int64_t hi = c & ~((int64_t{1} << k) - 1);
    if (hi != 0) elem_offset = sw(d + Int(c - hi)) + Int(hi);
  }
  Int byte_offset = elem_offset * Int(bytes(t.elem));
  return split_constant(byte_offset);
}

// The same through the tensor's kept offsets where it has them and coord is one static index.
std::pair<Int, int64_t> kept_byte_offset_parts(const Tensor& t, const Coord& coord) {
  if (!t.offsets || !coord.is_leaf() || !coord.leaf().is_static() || coord.leaf().value() < 0)
    return byte_offset_parts(t, coord);
  auto& at = t.offsets->at;
  const auto i = static_cast<size_t>(coord.leaf().value());
  if (i >= at.size()) at.resize(i + 1);
  if (!at[i]) at[i] = byte_offset_parts(t, coord);
  return *at[i];
}

}  // namespace

std::pair<Value, int64_t> KernelBuilder::address_parts(const Tensor& t, const Coord& coord) {
  auto [dyn, c] = kept_byte_offset_parts(t, coord);
  Value base = t.base;
  if (!(dyn.is_static() && dyn.value() == 0)) {
    // One sum per distinct offset expression and base: copies of several values share it. The
    // tag keeps these apart from plain lowered values (negative, from the base register).
    const int tag = -1 - base.id();
    CseTable::Probe probe;
    Value hit = cse_.find(dyn, tag, probe);
    if (!hit.valid()) {
      Type it = t.index;
      const bool shared = t.space == Space::Shared || t.space == Space::SharedCluster;
      if (shared && bits(base.type()) == 32) it = Type::S32;
      Value off = lower(dyn, it);
      if (bits(off.type()) != bits(base.type())) off = cvt(off, bits(base.type()) == 64 ? Type::S64 : Type::S32);
      hit = binary(Op::Add, base, off);
      cse_.insert(dyn, tag, hit, probe);
    }
    base = hit;
  }
  return {base, c};
}

Value KernelBuilder::address(const Tensor& t, const Coord& coord) {
  auto [base, c] = address_parts(t, coord);
  return c == 0 ? base : binary(Op::Add, base, c);
}

Value KernelBuilder::address(const Tensor& t) { return address(t, Coord(0)); }

namespace {

int64_t abs_div(const Int& x) {
  if (x.is_static()) return x.value() < 0 ? -x.value() : x.value();
  return x.divisibility();
}

// The elements a vector access may cover in tensor t: a run of the coalesced layout's first mode
// (stride 1, static extent), aligned in elements by the offset and the other modes' strides, in
// bytes by the base, and inside the swizzle's unchanged low bits.
int64_t widest_vector(const Tensor& t, int64_t limit) {
  const int64_t eb = bytes(t.elem);
  Layout c = coalesce(t.layout.layout);
  Layout first = c.rank() > 1 ? c[0] : c;
  const Int& s0 = first.shape().is_leaf() ? first.shape().leaf() : first.shape()[0].leaf();
  const Int& d0 = first.stride().is_leaf() ? first.stride().leaf() : first.stride()[0].leaf();
  if (!s0.is_static() || !d0.is_static() || d0.value() != 1) return 1;
  int64_t g = abs_div(t.layout.offset);
  for (int m = 1; m < c.rank(); ++m) g = std::gcd(g, abs_div(c[m].stride().leaf()));
  int64_t v = 1;
  while (v * 2 <= limit && s0.value() % (v * 2) == 0 && (g == 0 || g % (v * 2) == 0) &&
         t.base_align % (v * 2 * eb) == 0 &&
         (t.layout.swizzle.is_identity() || v * 2 <= (int64_t{1} << t.layout.swizzle.base))) {
    v *= 2;
  }
  return v;
}

// The same, kept by a tensor with kept offsets (its layout and so its answer shared by its copies
// at other bases).
int64_t max_vector(const Tensor& t, int64_t limit) {
  if (!t.offsets) return widest_vector(t, limit);
  Tensor::ElementOffsets::Vector& kept = t.offsets->vector;
  if (kept.limit != limit || kept.base_align != t.base_align) kept = {limit, t.base_align, widest_vector(t, limit)};
  return kept.width;
}

}  // namespace

void KernelBuilder::copy(const Tensor& src, const Tensor& dst, Value guard) {
  if (src.elem != dst.elem)
    fail(std::string("codegen: copy from ") + ptx_name(src.elem) + " to " + ptx_name(dst.elem) + " (convert first)");
  const Int n = src.size();
  if (!n.is_static())
    fail("codegen: copy of a tensor of dynamic size " + to_string(n) + " (per-thread copies have a static size)");
  if (!(dst.size() == n)) fail("codegen: copy of " + to_string(n) + " elements into " + to_string(dst.size()));
  const int64_t eb = bytes(src.elem);
  const int64_t v = std::min(max_vector(src, 16 / eb), max_vector(dst, 16 / eb));
  // Move v elements as `count` units: b32 words for sub-word elements, else the elements.
  Type unit = memory_type(src.elem);
  int count = static_cast<int>(v);
  if (v * eb >= 4 && eb < 4) {
    unit = Type::B32;
    count = static_cast<int>(v * eb / 4);
  }
  for (int64_t g = 0; g < n.value(); g += v) {
    auto [sa, so] = address_parts(src, Coord(Int(g)));
    std::vector<Value> vals = load(src.space, unit, sa, so, count, {});
    if (guard.valid()) current().back().instr.guard = guard.id();
    auto [da, dof] = address_parts(dst, Coord(Int(g)));
    store(dst.space, unit, da, vals, dof);
    if (guard.valid()) current().back().instr.guard = guard.id();
  }
}

namespace {
// Units of a vector of v elements: b32 words for sub-word elements (when v covers a word), else
// the elements themselves.
std::pair<Type, int> vector_units(Type elem, int64_t v) {
  const int64_t eb = bytes(elem);
  if (v * eb >= 4 && eb < 4) return {Type::B32, static_cast<int>(v * eb / 4)};
  return {memory_type(elem), static_cast<int>(v)};
}
}  // namespace

std::vector<Value> KernelBuilder::load_tensor(const Tensor& src, Value guard, LoadOptions o) {
  const Int n = src.size();
  if (!n.is_static()) fail("codegen: load_tensor of a tensor of dynamic size " + to_string(n));
  const int64_t eb = bytes(src.elem);
  const int64_t v = max_vector(src, 16 / eb);
  auto [unit, count] = vector_units(src.elem, v);
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(n.value()));
  std::vector<Value> words;
  for (int64_t g = 0; g < n.value(); g += v) {
    auto [a, off] = address_parts(src, Coord(Int(g)));
    words.clear();
    load_into(words, src.space, unit, a, off, count, o);
    if (guard.valid()) current().back().instr.guard = guard.id();
    if (unit != Type::B32 || eb >= 4) {
      for (Value w : words) out.push_back(unit == src.elem ? w : Value(this, w.id(), src.elem));
      continue;
    }
    for (Value w : words) {
      // Split each word into halves (mov.b32 {lo, hi}, w); a byte element is its half, or the
      // half shifted right by 8: users of 8-bit values read only a register's low byte.
      Value halves[2];
      OperandList parts;
      parts.reserve(2);
      for (Value& h : halves) {
        h = fresh(eb == 2 ? src.elem : Type::B16);
        parts.push_back(h.op());
      }
      Instr m;
      m.op = Op::Mov;
      m.type = Type::B32;
      m.set_ops(Operand::vec(std::move(parts)), w.op());
      emit(std::move(m));
      for (Value h : halves) {
        if (eb == 2) {
          out.push_back(h);
          continue;
        }
        out.push_back(Value(this, h.id(), src.elem));
        Value hi = fresh(src.elem);
        Instr sh;
        sh.op = Op::Shr;
        sh.type = Type::B16;
        sh.set_ops(hi.op(), h.op(), Operand::i(8));
        emit(std::move(sh));
        out.push_back(hi);
      }
    }
  }
  return out;
}

// (hi << 8) | (lo & 0xff) in a b16 register: two byte elements as one half-word.
Value KernelBuilder::join_bytes(Value lo, Value hi) {
  auto op16 = [&](Op op, Operand a, Operand b) {
    Value r = fresh(Type::B16);
    Instr i;
    i.op = op;
    i.type = Type::B16;
    i.set_ops(r.op(), std::move(a), std::move(b));
    emit(std::move(i));
    return r;
  };
  Value l = op16(Op::And, lo.op(), Operand::i(0xff));
  Value h = op16(Op::Shl, hi.op(), Operand::i(8));
  return op16(Op::Or, l.op(), h.op());
}

void KernelBuilder::store_tensor(const Tensor& dst, const std::vector<Value>& values, Value guard) {
  const Int n = dst.size();
  if (!n.is_static()) fail("codegen: store_tensor of a tensor of dynamic size " + to_string(n));
  if (static_cast<int64_t>(values.size()) != n.value()) {
    fail("codegen: store_tensor of " + std::to_string(values.size()) + " values into " + to_string(n) + " elements");
  }
  const int64_t eb = bytes(dst.elem);
  const int64_t v = max_vector(dst, 16 / eb);
  auto [unit, count] = vector_units(dst.elem, v);
  std::vector<Value> words;  // one list for every store (a list per store was an allocation each)
  words.reserve(static_cast<size_t>(count));
  for (int64_t g = 0; g < n.value(); g += v) {
    words.clear();
    if (unit == Type::B32 && eb < 4) {
      for (int w = 0; w < count; ++w) {  // join halves into a word: mov.b32 w, {lo, hi}
        OperandList parts;
        for (int64_t j = 0; j < 2; ++j) {
          const int64_t e = g + w * (4 / eb) + j * (2 / eb);
          parts.push_back(eb == 2 ? values[e].op() : join_bytes(values[e], values[e + 1]).op());
        }
        Value word = fresh(Type::B32);
        Instr m;
        m.op = Op::Mov;
        m.type = Type::B32;
        m.set_ops(word.op(), Operand::vec(parts));
        emit(std::move(m));
        words.push_back(word);
      }
    } else {
      for (int j = 0; j < count; ++j) words.push_back(values[g + j]);
    }
    auto [a, off] = address_parts(dst, Coord(Int(g)));
    store(dst.space, unit, a, words, off);
    if (guard.valid()) current().back().instr.guard = guard.id();
  }
}

void KernelBuilder::store_tensor(const Tensor& dst, const std::vector<Value>& values,
                                 const std::vector<Value>& guards) {
  const Int n = dst.size();
  if (!n.is_static() || static_cast<int64_t>(values.size()) != n.value() || guards.size() != values.size()) {
    fail("codegen: store_tensor of " + std::to_string(values.size()) + " values with " + std::to_string(guards.size()) +
         " guards into " + to_string(n) + " elements (one value and one guard per element)");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    auto [a, off] = address_parts(dst, Coord(Int(static_cast<int64_t>(i))));
    store(dst.space, memory_type(dst.elem), a, {values[i]}, off);
    if (guards[i].valid()) current().back().instr.guard = guards[i].id();
  }
}

}  // namespace tessel::codegen
