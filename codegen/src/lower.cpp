// lower.cpp: lowering of the algebra's symbolic integers into instructions. Static parts were
// folded by the algebra already; here each expression node becomes one instruction (or none when
// a scope already computed it), with powers of two as shifts and masks where the operand is
// known non-negative.
#include "tessel/algebra/error.hpp"
#include "cse.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

namespace {

std::optional<int> log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return std::nullopt;
  int k = 0;
  while ((int64_t{1} << k) != v) ++k;
  return k;
}

bool non_negative(const Int& x) {
  if (x.is_static()) return x.value() >= 0;
  auto lo = x.lower_bound();
  return lo && *lo >= 0;
}

void check_index_type(Type t) {
  if (t != Type::S32 && t != Type::U32 && t != Type::S64 && t != Type::U64) {
    fail(std::string("codegen: integers lower to s32, u32, s64 or u64, not ") + ptx_name(t));
  }
}

}  // namespace

Value KernelBuilder::lower(const Int& x, Type t) {
  check_index_type(t);
  if (x.has_basis())
    fail("codegen: lower of a basis element " + to_string(x) + " (evaluate the coordinate's modes separately)");
  return lower_expr(x, t);
}

Value KernelBuilder::lower_expr(const Int& x, Type t) {
  const int tag = static_cast<int>(t);
  CseTable::Probe probe;
  if (Value hit = cse_.find(x, tag, probe); hit.valid()) return hit;
  Value r;
  if (x.is_static()) {
    r = constant(x.value(), t);
  } else {
    const Expr& e = *x.expr();
    auto operand = [&](const Int& v) { return lower_expr(v, t); };
    // Emits a op b, with b as an immediate when it is static.
    auto bin = [&](Op op, const Int& a, const Int& b) {
      Value va = operand(a);
      return b.is_static() ? binary(op, va, b.value()) : binary(op, va, operand(b));
    };
    switch (e.op) {
      case tessel::ExprOp::Symbol: {
        Value v;
        for (auto it = bound_.rbegin(); it != bound_.rend() && !v.valid(); ++it) {
          auto f = it->find(e.name);
          if (f != it->end()) v = f->second;
        }
        if (!v.valid()) {
          fail("codegen: symbol " + e.name + " is not bound to a value (KernelBuilder::bind or symbol)");
        }
        r = v.type() == t ? v : cvt(v, t);
        break;
      }
      case tessel::ExprOp::Add:
        if (e.a.is_static()) {  // the simplifier may put the constant first
          r = binary(Op::Add, operand(e.b), e.a.value());
        } else {
          r = bin(Op::Add, e.a, e.b);
        }
        break;
      case tessel::ExprOp::Sub:
        r = e.a.is_static() ? binary(Op::Sub, constant(e.a.value(), t), operand(e.b)) : bin(Op::Sub, e.a, e.b);
        break;
      case tessel::ExprOp::Mul: {
        const Int& s = e.a.is_static() ? e.a : e.b;
        const Int& d = e.a.is_static() ? e.b : e.a;
        if (s.is_static()) {
          if (auto k = log2_exact(s.value())) {
            r = binary(Op::Shl, operand(d), *k);
          } else {
            r = binary(Op::Mul, operand(d), s.value());
          }
        } else {
          r = bin(Op::Mul, e.a, e.b);
        }
        break;
      }
      case tessel::ExprOp::Div:
        if (e.b.is_static() && non_negative(e.a) && log2_exact(e.b.value())) {
          r = binary(Op::Shr, operand(e.a), *log2_exact(e.b.value()));
        } else {
          r = bin(Op::Div, e.a, e.b);
        }
        break;
      case tessel::ExprOp::Mod:
        if (e.b.is_static() && non_negative(e.a) && log2_exact(e.b.value())) {
          r = binary(Op::And, operand(e.a), e.b.value() - 1);
        } else {
          r = bin(Op::Rem, e.a, e.b);
        }
        break;
      case tessel::ExprOp::CeilDiv:
        // ceil_div(a, b) = (a + b - 1) / b for a >= 0, b > 0: the algebra's ceil_div takes extents.
        if (e.b.is_static()) {
          Int num = e.a + Int(e.b.value() - 1);
          r = lower_expr(num / e.b, t);
        } else {
          Value b = operand(e.b);
          Value num = binary(Op::Sub, binary(Op::Add, operand(e.a), b), 1);
          r = binary(Op::Div, num, b);
        }
        break;
      case tessel::ExprOp::Min:
        r = bin(Op::Min, e.a, e.b);
        break;
      case tessel::ExprOp::Max:
        r = bin(Op::Max, e.a, e.b);
        break;
      case tessel::ExprOp::And:
        r = bin(Op::And, e.a, e.b);
        break;
      case tessel::ExprOp::Xor:
        r = bin(Op::Xor, e.a, e.b);
        break;
      case tessel::ExprOp::Shr:
      case tessel::ExprOp::Shl: {
        Op op = e.op == tessel::ExprOp::Shr ? Op::Shr : Op::Shl;
        if (e.b.is_static()) {
          r = binary(op, operand(e.a), e.b.value());
        } else {
          Value amount = lower_expr(e.b, Type::U32);
          r = binary(op, operand(e.a), amount);
        }
        break;
      }
    }
  }
  cse_.insert(x, tag, r, probe);
  return r;
}

}  // namespace tessel::codegen
