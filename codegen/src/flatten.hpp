// flatten.hpp (private): the walk behind for_each_legalized (legalize.hpp), a template over the
// visitor so that the printer calls its own directly (a std::function call per instruction showed
// in the printer's profile); legalize.cpp instantiates it for std::function.
#pragma once

#include <string>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ir.hpp"

namespace tessel::codegen::detail {

// Checks a kernel (each instruction's operands against its row's signature, registers,
// predicates) and flattens structured control flow (if/else, while loops) into labels and
// branches, handing each instruction to `out` in order.
template <class Visit>
struct Flattener {
  const Kernel& k;
  Visit& out;
  // k.regs.size(), read once: the checks ask it for every register operand, and through k the
  // compiler reloaded the vector's ends each time (the visitor may change memory it cannot see).
  const size_t n_regs;
  int labels = 0;
  // The label and branch instructions handed to `out`, made once and changed in place (a list
  // and an interned name made for each one showed in profiles).
  Instr label_instr, branch_instr;

  Flattener(const Kernel& kernel, Visit& visit) : k(kernel), out(visit), n_regs(kernel.regs.size()) {
    label_instr.op = Op::Label;
    label_instr.set_ops(Operand::label("$L_0"));
    branch_instr.op = Op::Bra;
    branch_instr.set_ops(Operand::label("$L_0"));
  }

  // The name of label n, `$L_n`: interned once per n for the thread (kernels reuse the numbers).
  static const OperandName& label_name(int n) {
    thread_local std::vector<OperandName> names;
    while (static_cast<int>(names.size()) <= n) names.emplace_back("$L_" + std::to_string(names.size()));
    return names[static_cast<size_t>(n)];
  }
  int label() { return ++labels; }

  [[noreturn, gnu::cold]] void bad_reg(int id, const char* what) const {
    fail("codegen: " + k.name + ": " + what + " names register " + std::to_string(id) + ", which was never made");
  }
  void check_reg(int id, const char* what) const {
    if (id < 0 || static_cast<size_t>(id) >= n_regs) [[unlikely]]
      bad_reg(id, what);
  }
  void check_pred(int id, const char* what) const {
    check_reg(id, what);
    if (k.regs[id].type != Type::Pred) [[unlikely]] {
      fail("codegen: " + k.name + ": " + what + " is a " + ptx_name(k.regs[id].type) + " register, not a pred");
    }
  }
  void check_operand(const Operand& o) const {
    if (o.kind == Operand::Kind::Reg) check_reg(o.reg, "an operand");
    for (const Operand& e : o.elems) check_operand(e);
  }
  // The operands against the signature in the instruction's row (op_table.hpp); the message is
  // spelled only for an instruction that does not fit.
  void check_signature(const Instr& i) const {
    if (operands_fit(i)) [[likely]]
      return;
    fail("codegen: " + k.name + ": " + operand_mismatch(i));
  }

  // Whether o's elements (and theirs) name only registers that were made: check_operand()
  // without its refusal.
  bool elems_made(const Operand& o) const {
    for (const Operand& e : o.elems) {
      if (e.kind == Operand::Kind::Reg && static_cast<size_t>(e.reg) >= n_regs) return false;
      if (!e.elems.empty() && !elems_made(e)) return false;
    }
    return true;
  }
  // Whether i passes check_signature() and every operand register check, in one pass over its
  // operands (the two checks walked them twice, a fifth of the walk's own instructions). Where it
  // does not, check_instr() runs them in their order, for the same refusal as before.
  bool instr_ok(const Instr& i) const {
    const Signature& s = op_info(i.op).signature;
    const size_t n = i.ops.size();
    if (n < s.required || n > s.count) return false;
    for (size_t j = 0; j < n; ++j) {
      const Operand& o = i.ops[j];
      const OperandKind kind = s.kinds[j];
      if (o.kind == Operand::Kind::Reg) {
        if (static_cast<size_t>(o.reg) >= n_regs) return false;  // a negative id too
        if (kind != OperandKind::Dst && kind != OperandKind::Src && !operand_fits(kind, o)) return false;
      } else if (!operand_fits(kind, o) || (!o.elems.empty() && !elems_made(o))) {
        return false;
      }
    }
    return true;
  }
  // The checks one by one: the first that fails refuses i (instr_ok() said one will).
  void check_instr(const Instr& i) const {
    check_signature(i);
    for (const Operand& o : i.ops) {
      if (o.kind == Operand::Kind::Reg) {
        check_reg(o.reg, "an operand");
      } else if (!o.elems.empty()) {
        check_operand(o);
      }
    }
  }

  void emit_label(int n) {
    label_instr.ops[0].name = label_name(n);
    out(label_instr);
  }
  void emit_branch(int target, int pred, bool negated) {
    branch_instr.flags = pred < 0 ? uint32_t{kUni} : 0u;
    branch_instr.guard = pred;
    branch_instr.guard_negated = negated;
    branch_instr.ops[0].name = label_name(target);
    out(branch_instr);
  }

  void block(const Block& b) {
    for (const Stmt& s : b) {
      switch (s.kind) {
        case Stmt::Kind::Instr:
          if (!instr_ok(s.instr)) [[unlikely]]
            check_instr(s.instr);
          if (s.instr.guard >= 0) check_pred(s.instr.guard, "a guard");
          out(s.instr);
          break;
        case Stmt::Kind::If: {
          const IfStmt& f = *s.if_;
          check_pred(f.pred, "an if condition");
          const int skip = label();
          // Branch around `then` when the condition does not hold.
          emit_branch(skip, f.pred, !f.negated);
          block(f.then_block);
          if (f.else_block.empty()) {
            emit_label(skip);
          } else {
            const int end = label();
            emit_branch(end, -1, false);
            emit_label(skip);
            block(f.else_block);
            emit_label(end);
          }
          break;
        }
        case Stmt::Kind::Loop: {
          const LoopStmt& l = *s.loop_;
          check_pred(l.cond, "a loop condition");
          const int head = label(), end = label();
          emit_label(head);
          block(l.cond_block);
          emit_branch(end, l.cond, true);
          block(l.body);
          emit_branch(head, -1, false);
          emit_label(end);
          break;
        }
      }
    }
  }
};


// for_each_legalized with any visitor callable as visit(const Instr&).
template <class Visit>
void flatten(const Kernel& k, Visit& visit) {
  Flattener<Visit> f(k, visit);
  f.block(k.body);
}

}  // namespace tessel::codegen::detail
