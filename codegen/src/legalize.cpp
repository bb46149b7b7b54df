// legalize.cpp: checks a kernel (each instruction's operands against its row's signature, registers,
// predicates) and flattens structured control flow (if/else, while loops) into labels and
// branches, the form the printer and the emulator read.
#include "tessel/codegen/legalize.hpp"

#include <functional>
#include <string>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

namespace {

struct Flattener {
  const Kernel& k;
  const std::function<void(const Instr&)>& out;
  int labels = 0;

  std::string label() { return "$L_" + std::to_string(++labels); }

  void check_reg(int id, const char* what) {
    if (id < 0 || id >= static_cast<int>(k.regs.size())) {
      fail("codegen: " + k.name + ": " + what + " names register " + std::to_string(id) + ", which was never made");
    }
  }
  void check_pred(int id, const char* what) {
    check_reg(id, what);
    if (k.regs[id].type != Type::Pred) {
      fail("codegen: " + k.name + ": " + what + " is a " + ptx_name(k.regs[id].type) + " register, not a pred");
    }
  }
  void check_operand(const Operand& o) {
    if (o.kind == Operand::Kind::Reg) check_reg(o.reg, "an operand");
    for (const Operand& e : o.elems) check_operand(e);
  }
  // The operands against the signature in the instruction's row (op_table.hpp).
  void check_signature(const Instr& i) {
    std::string why = operand_mismatch(i);
    if (!why.empty()) fail("codegen: " + k.name + ": " + why);
  }

  void emit_label(const std::string& name) {
    Instr l;
    l.op = Op::Label;
    l.set_ops(Operand::label(name));
    out(l);
  }
  void emit_branch(const std::string& target, int pred, bool negated) {
    Instr b;
    b.op = Op::Bra;
    if (pred < 0) b.flags = kUni;
    b.guard = pred;
    b.guard_negated = negated;
    b.set_ops(Operand::label(target));
    out(b);
  }

  void block(const Block& b) {
    for (const Stmt& s : b) {
      switch (s.kind) {
        case Stmt::Kind::Instr:
          check_signature(s.instr);
          for (const Operand& o : s.instr.ops) check_operand(o);
          if (s.instr.guard >= 0) check_pred(s.instr.guard, "a guard");
          out(s.instr);
          break;
        case Stmt::Kind::If: {
          const IfStmt& f = s.if_.at(0);
          check_pred(f.pred, "an if condition");
          const std::string skip = label();
          // Branch around `then` when the condition does not hold.
          emit_branch(skip, f.pred, !f.negated);
          block(f.then_block);
          if (f.else_block.empty()) {
            emit_label(skip);
          } else {
            const std::string end = label();
            emit_branch(end, -1, false);
            emit_label(skip);
            block(f.else_block);
            emit_label(end);
          }
          break;
        }
        case Stmt::Kind::Loop: {
          const LoopStmt& l = s.loop_.at(0);
          check_pred(l.cond, "a loop condition");
          const std::string head = label(), end = label();
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

}  // namespace

void for_each_legalized(const Kernel& k, const std::function<void(const Instr&)>& visit) {
  Flattener f{k, visit, 0};
  f.block(k.body);
}

std::vector<Instr> legalize(const Kernel& k) {
  std::vector<Instr> out;
  for_each_legalized(k, [&](const Instr& i) { out.push_back(i); });
  return out;
}

}  // namespace tessel::codegen
