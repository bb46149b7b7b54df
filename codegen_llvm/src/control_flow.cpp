// control_flow.cpp: a kernel body before legalize, as basic blocks: each if/else and loop of the
// structured IR becomes the blocks and branches legalize would write as labels, a guarded
// instruction a branch around it, `ret` a return (what follows it is unreachable).
#include "lowering.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen_llvm {

using codegen::Instr;
using codegen::Op;

KernelLowering::KernelLowering(llvm::Module& m, const codegen::Kernel& kernel, std::set<std::string>& asm_used)
    : ctx(m.getContext()), mod(m), k(kernel), b(m.getContext()), inline_asm(asm_used) {}

void KernelLowering::lower_body() {
  entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  b.SetInsertPoint(entry);
  regs.reserve(k.regs.size());
  for (const codegen::RegInfo& r : k.regs) regs.push_back(b.CreateAlloca(storage_type(r.cls)));
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx, "body", fn);
  b.CreateBr(body);
  b.SetInsertPoint(body);
  block(k.body);
  if (!b.GetInsertBlock()->getTerminator()) b.CreateRetVoid();
}

void KernelLowering::block(const codegen::Block& blk) {
  for (const codegen::Stmt& s : blk) {
    switch (s.kind) {
      case codegen::Stmt::Kind::Instr:
        instr(s.instr);
        break;
      case codegen::Stmt::Kind::If: {
        const codegen::IfStmt& f = *s.if_;
        llvm::Value* c = read(f.pred, codegen::Type::Pred);
        if (f.negated) c = b.CreateNot(c);
        llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx, "then", fn);
        llvm::BasicBlock* else_bb = f.else_block.empty() ? nullptr : llvm::BasicBlock::Create(ctx, "else", fn);
        llvm::BasicBlock* end = llvm::BasicBlock::Create(ctx, "endif", fn);
        b.CreateCondBr(c, then_bb, else_bb ? else_bb : end);
        b.SetInsertPoint(then_bb);
        block(f.then_block);
        b.CreateBr(end);
        if (else_bb) {
          b.SetInsertPoint(else_bb);
          block(f.else_block);
          b.CreateBr(end);
        }
        b.SetInsertPoint(end);
        break;
      }
      case codegen::Stmt::Kind::Loop: {
        const codegen::LoopStmt& l = *s.loop_;
        llvm::BasicBlock* head = llvm::BasicBlock::Create(ctx, "loop", fn);
        llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx, "loop.body", fn);
        llvm::BasicBlock* end = llvm::BasicBlock::Create(ctx, "loop.end", fn);
        b.CreateBr(head);
        b.SetInsertPoint(head);
        block(l.cond_block);
        b.CreateCondBr(read(l.cond, codegen::Type::Pred), body, end);
        b.SetInsertPoint(body);
        block(l.body);
        b.CreateBr(head);
        b.SetInsertPoint(end);
        break;
      }
    }
  }
}

void KernelLowering::instr(const Instr& i) {
  error_context = codegen::print_instr(k, i);
  llvm::BasicBlock* after = nullptr;
  if (i.guard >= 0) {
    llvm::Value* g = read(i.guard, codegen::Type::Pred);
    if (i.guard_negated) g = b.CreateNot(g);
    llvm::BasicBlock* guarded = llvm::BasicBlock::Create(ctx, "guarded", fn);
    after = llvm::BasicBlock::Create(ctx, "unguarded", fn);
    b.CreateCondBr(g, guarded, after);
    b.SetInsertPoint(guarded);
  }
  if (i.op == Op::Ret) {
    b.CreateRetVoid();
    // What follows a return is unreachable; it still needs a block to be lowered into.
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "after.ret", fn));
  } else if (i.op == Op::Label || i.op == Op::Bra) {
    refuse("a label or branch: codegen_llvm lowers the IR before legalize (structured control flow)");
  } else if (i.op == Op::Wgmma) {
    wgmma(i);
  } else if (!arithmetic(i) && !memory(i) && !intrinsic(i)) {
    inline_ptx(i);
  }
  if (after) {
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }
  error_context.clear();
}

}  // namespace tessel::codegen_llvm
