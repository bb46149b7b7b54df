// values.cpp: arithmetic, comparisons and conversions on Values. Each helper picks the PTX
// spelling (mul.lo for integers, div.rn for floats, bN types for logic) so that the printer
// makes no choices.
#include <utility>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

namespace {

// The instruction as messages name it: its mnemonic root (op_table.hpp).
const char* op_word(Op op) { return op_info(op).root; }

bool is_logic(Op op) { return op == Op::And || op == Op::Or || op == Op::Xor; }

Type instr_type_other(Op op, Type t);

// The instruction type for `op` on values of type t (legal PTX forms only). The common case
// inline: 32- and 64-bit integers take every arithmetic op as they are, and logic and shl as bit
// types (out of line, this call was a fiftieth of generation).
inline Type instr_type(Op op, Type t) {
  if (t == Type::S32 || t == Type::U32) return is_logic(op) || op == Op::Shl ? Type::B32 : t;
  if (t == Type::S64 || t == Type::U64) return is_logic(op) || op == Op::Shl ? Type::B64 : t;
  return instr_type_other(op, t);
}

// The same for every other type, and the refusals.
[[gnu::noinline]] Type instr_type_other(Op op, Type t) {
  // The message is spelled only on failure: this runs for every instruction the builder makes.
  auto why = [&] { return std::string(op_word(op)) + " on " + ptx_name(t); };
  if (t == Type::Pred) {
    if (is_logic(op)) return Type::Pred;
    fail("codegen: " + why() + " (predicates take and/or/xor/not only)");
  }
  if (is_logic(op) || op == Op::Shl) {
    if (is_float(t) && t != Type::F16x2 && t != Type::BF16x2)
      fail("codegen: " + why() + " (bitwise operations take integer types)");
    return bits_type(bits(t) < 16 ? 16 : bits(t));
  }
  if (op == Op::Shr && !is_integer(t)) fail("codegen: " + why() + " (shifts take integer types)");
  if (op == Op::Rem && !is_integer(t)) fail("codegen: " + why() + " (rem takes integer types)");
  if (t == Type::B16 || t == Type::B32 || t == Type::B64)
    fail("codegen: " + why() + " (arithmetic needs a u/s/f type, not a bit type)");
  if (bits(t) == 8) fail("codegen: " + why() + " (PTX has no 8-bit arithmetic; widen first)");
  if (t == Type::TF32 || t == Type::E4M3 || t == Type::E5M2)
    fail("codegen: " + why() + " (a storage format; convert first)");
  return t;
}

void same_class(const char* what, Value a, Value b) {
  bool ok = a.type() == b.type() || (is_integer(a.type()) && is_integer(b.type()) && bits(a.type()) == bits(b.type()));
  if (!ok) {
    fail(std::string("codegen: ") + what + " of a " + ptx_name(a.type()) + " and a " + ptx_name(b.type()) +
         " (operands must have one type; convert with cvt)");
  }
}

uint32_t default_flags(Op op, Type t) {
  if (op == Op::Mul && is_integer(t)) return kLo;
  return 0;
}

Round default_round(Op op, Type t) {
  if (op == Op::Div && (t == Type::F32 || t == Type::F64)) return Round::Rn;
  return Round::None;
}

}  // namespace

Value KernelBuilder::binary(Op op, Value a, Value b, uint32_t flags) {
  if (op == Op::Shl || op == Op::Shr) {
    if (b.type() != Type::U32 && b.type() != Type::S32 && b.type() != Type::B32) {
      fail(std::string("codegen: shift amount must be a 32-bit integer, got ") + ptx_name(b.type()));
    }
  } else {
    same_class(op_word(op), a, b);
  }
  const Type it = instr_type(op, a.type());
  Value r = fresh(a.type());
  Instr& i = append();
  i.op = op;
  i.type = it;
  i.flags = flags | default_flags(op, a.type());
  i.rnd = default_round(op, a.type());
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_reg(b.id());
  return r;
}

Value KernelBuilder::binary(Op op, Value a, int64_t imm, uint32_t flags) {
  const Type it = instr_type(op, a.type());
  if (is_float(a.type())) {
    if (a.type() != Type::F32 && a.type() != Type::F64)
      fail(std::string("codegen: immediate operand for ") + ptx_name(a.type()));
    Value c = a.type() == Type::F32 ? constant_f32(static_cast<float>(imm)) : constant_f64(static_cast<double>(imm));
    return binary(op, a, c, flags);
  }
  Value r = fresh(a.type());
  Instr& i = append();
  i.op = op;
  i.type = it;
  i.flags = flags | default_flags(op, a.type());
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_imm(imm);
  return r;
}

Value KernelBuilder::unary(Op op, Value a) {
  Instr i;
  i.op = op;
  if (op == Op::Not) {
    i.type = a.type() == Type::Pred ? Type::Pred : bits_type(bits(a.type()) < 16 ? 16 : bits(a.type()));
  } else if (op == Op::Neg || op == Op::Abs) {
    if (!is_signed(a.type()) && !is_float(a.type()))
      fail(std::string("codegen: neg/abs of a ") + ptx_name(a.type()) + " (signed or float types)");
    i.type = a.type();
  } else {
    fail("codegen: unary takes not, neg or abs");
  }
  Value r = fresh(a.type());
  i.add_reg(r.id());
  i.add_reg(a.id());
  emit(std::move(i));
  return r;
}

Value KernelBuilder::mad(Value a, Value b, Value c) {
  Value r = fresh(a.type());
  emit_mad(r, a, b, c);
  return r;
}

void KernelBuilder::mad_to(Value dst, Value a, Value b, Value c) {
  same_class("mad", dst, a);
  emit_mad(dst, a, b, c);
}

void KernelBuilder::emit_mad(Value r, Value a, Value b, Value c) {
  same_class("mad", a, b);
  same_class("mad", a, c);
  const Type mul_type = is_float(a.type()) ? a.type() : instr_type(Op::Mul, a.type());
  Instr& i = append();
  if (is_float(a.type())) {
    i.op = Op::Fma;
    i.rnd = Round::Rn;
    i.type = a.type();
  } else {
    i.op = Op::Mad;
    i.flags = kLo;
    i.type = mul_type;
  }
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_reg(b.id());
  i.add_reg(c.id());
}

Value KernelBuilder::mul_wide(Value a, Value b) {
  same_class("mul.wide", a, b);
  if (bits(a.type()) != 32 || !is_integer(a.type()))
    fail(std::string("codegen: mul.wide takes 32-bit integers, got ") + ptx_name(a.type()));
  Instr i;
  i.op = Op::Mul;
  i.flags = kWide;
  i.type = is_signed(a.type()) ? Type::S32 : Type::U32;
  Value r = fresh(is_signed(a.type()) ? Type::S64 : Type::U64);
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_reg(b.id());
  emit(std::move(i));
  return r;
}

Value KernelBuilder::mul_wide(Value a, int64_t b) {
  if (bits(a.type()) != 32 || !is_integer(a.type()))
    fail(std::string("codegen: mul.wide takes 32-bit integers, got ") + ptx_name(a.type()));
  Instr i;
  i.op = Op::Mul;
  i.flags = kWide;
  i.type = is_signed(a.type()) ? Type::S32 : Type::U32;
  Value r = fresh(is_signed(a.type()) ? Type::S64 : Type::U64);
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_imm(b);
  emit(std::move(i));
  return r;
}

Value KernelBuilder::min(Value a, Value b) { return binary(Op::Min, a, b); }
Value KernelBuilder::max(Value a, Value b) { return binary(Op::Max, a, b); }

namespace {
// Unsigned integers compare with lo/ls/hi/hs (PTX ISA, setp: "unsigned integer comparisons").
Cmp spell(Cmp c, Type t) {
  if (!is_integer(t) || is_signed(t)) return c;
  switch (c) {
    case Cmp::Lt:
      return Cmp::Lo;
    case Cmp::Le:
      return Cmp::Ls;
    case Cmp::Gt:
      return Cmp::Hi;
    case Cmp::Ge:
      return Cmp::Hs;
    default:
      return c;
  }
}
Type compare_type(Type t) {
  if (t == Type::Pred || bits(t) == 8 || t == Type::TF32 || t == Type::E4M3 || t == Type::E5M2) {
    fail(std::string("codegen: comparison of ") + ptx_name(t) + " values");
  }
  return t;
}
}  // namespace

Value KernelBuilder::compare(Cmp c, Value a, Value b) {
  same_class("setp", a, b);
  const Type t = compare_type(a.type());
  Value p = fresh(Type::Pred);
  Instr& i = append();
  i.op = Op::Setp;
  i.type = t;
  i.cmp = spell(c, a.type());
  i.add_reg(p.id());
  i.add_reg(a.id());
  i.add_reg(b.id());
  return p;
}

Value KernelBuilder::compare(Cmp c, Value a, int64_t b) {
  if (is_float(a.type()))
    return compare(c, a, a.type() == Type::F64 ? constant_f64(double(b)) : constant_f32(float(b)));
  const Type t = compare_type(a.type());
  Value p = fresh(Type::Pred);
  Instr& i = append();
  i.op = Op::Setp;
  i.type = t;
  i.cmp = spell(c, a.type());
  i.add_reg(p.id());
  i.add_reg(a.id());
  i.add_imm(b);
  return p;
}

Value KernelBuilder::select(Value pred, Value a, Value b) {
  if (pred.type() != Type::Pred) fail(std::string("codegen: selp needs a pred selector, got ") + ptx_name(pred.type()));
  same_class("selp", a, b);
  // selp has no .pred form (PTX ISA, selp: .b16 to .f64): between predicates, and/or.
  if (a.type() == Type::Pred) return (pred & a) | (!pred & b);
  Instr i;
  i.op = Op::Selp;
  i.type = a.type();
  if (reg_class(a.type()) == RegClass::B16 && is_float(a.type())) i.type = Type::B16;
  if (a.type() == Type::F16x2 || a.type() == Type::BF16x2) i.type = Type::B32;
  Value r = fresh(a.type());
  i.add_reg(r.id());
  i.add_reg(a.id());
  i.add_reg(b.id());
  i.add_reg(pred.id());
  emit(std::move(i));
  return r;
}

Value KernelBuilder::cvt(Value v, Type to, Round rnd) {
  Type from = v.type();
  if (from == to) return v;
  if (from == Type::Pred || to == Type::Pred) fail("codegen: cvt to or from pred (use selp or setp)");
  if (rnd == Round::None) {
    // C semantics: integers to floats round to nearest, floats to integers truncate, and
    // narrowing between floats rounds to nearest (PTX requires a rounding mode in these cases).
    if (is_integer(from) && is_float(to))
      rnd = Round::Rn;
    else if (is_float(from) && is_integer(to))
      rnd = Round::Rzi;
    else if (is_float(from) && is_float(to) && bits(to) < bits(from))
      rnd = Round::Rn;
  }
  Value r = fresh(to);
  Instr& i = append();
  i.op = Op::Cvt;
  i.type = to;
  i.type2 = from;
  i.rnd = rnd;
  i.add_reg(r.id());
  i.add_reg(v.id());
  return r;
}

Value KernelBuilder::cvta_to_global(Value generic) {
  if (generic.type() != Type::U64 && generic.type() != Type::S64 && generic.type() != Type::B64) {
    fail(std::string("codegen: cvta.to.global takes a 64-bit address, got ") + ptx_name(generic.type()));
  }
  Instr i;
  i.op = Op::Cvta;
  i.space = Space::Global;
  i.type = Type::U64;
  Value r = fresh(Type::U64);
  i.add_reg(r.id());
  i.add_reg(generic.id());
  emit(std::move(i));
  return r;
}

// --- Operators ----------------------------------------------------------------------------------

Value operator+(Value a, Value b) { return a.builder().binary(Op::Add, a, b); }
Value operator-(Value a, Value b) { return a.builder().binary(Op::Sub, a, b); }
Value operator*(Value a, Value b) { return a.builder().binary(Op::Mul, a, b); }
Value operator/(Value a, Value b) { return a.builder().binary(Op::Div, a, b); }
Value operator%(Value a, Value b) { return a.builder().binary(Op::Rem, a, b); }
Value operator&(Value a, Value b) { return a.builder().binary(Op::And, a, b); }
Value operator|(Value a, Value b) { return a.builder().binary(Op::Or, a, b); }
Value operator^(Value a, Value b) { return a.builder().binary(Op::Xor, a, b); }
Value operator<<(Value a, Value b) { return a.builder().binary(Op::Shl, a, b); }
Value operator>>(Value a, Value b) { return a.builder().binary(Op::Shr, a, b); }
Value operator+(Value a, int64_t b) { return a.builder().binary(Op::Add, a, b); }
Value operator-(Value a, int64_t b) { return a.builder().binary(Op::Sub, a, b); }
Value operator*(Value a, int64_t b) { return a.builder().binary(Op::Mul, a, b); }
Value operator/(Value a, int64_t b) { return a.builder().binary(Op::Div, a, b); }
Value operator%(Value a, int64_t b) { return a.builder().binary(Op::Rem, a, b); }
Value operator&(Value a, int64_t b) { return a.builder().binary(Op::And, a, b); }
Value operator<<(Value a, int64_t b) { return a.builder().binary(Op::Shl, a, b); }
Value operator>>(Value a, int64_t b) { return a.builder().binary(Op::Shr, a, b); }
Value operator<(Value a, Value b) { return a.builder().compare(Cmp::Lt, a, b); }
Value operator<=(Value a, Value b) { return a.builder().compare(Cmp::Le, a, b); }
Value operator>(Value a, Value b) { return a.builder().compare(Cmp::Gt, a, b); }
Value operator>=(Value a, Value b) { return a.builder().compare(Cmp::Ge, a, b); }
Value operator==(Value a, Value b) { return a.builder().compare(Cmp::Eq, a, b); }
Value operator!=(Value a, Value b) { return a.builder().compare(Cmp::Ne, a, b); }
Value operator<(Value a, int64_t b) { return a.builder().compare(Cmp::Lt, a, b); }
Value operator<=(Value a, int64_t b) { return a.builder().compare(Cmp::Le, a, b); }
Value operator>(Value a, int64_t b) { return a.builder().compare(Cmp::Gt, a, b); }
Value operator>=(Value a, int64_t b) { return a.builder().compare(Cmp::Ge, a, b); }
Value operator==(Value a, int64_t b) { return a.builder().compare(Cmp::Eq, a, b); }
Value operator!=(Value a, int64_t b) { return a.builder().compare(Cmp::Ne, a, b); }
Value operator!(Value p) { return p.builder().unary(Op::Not, p); }
Value operator-(Value a) { return a.builder().unary(Op::Neg, a); }

}  // namespace tessel::codegen
