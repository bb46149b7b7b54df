// memory.cpp: ld, st and cvta as LLVM loads, stores and address-space casts: parameters read from
// the function's arguments, global/shared/generic accesses through pointers of their address space
// (ld.global.nc as an invariant load, vectors as vector loads aligned to their size). Cache
// operators and atomics go to inline PTX.
#include <llvm/IR/MDBuilder.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"

namespace tessel::codegen_llvm {

using codegen::Instr;
using codegen::Op;
using codegen::Operand;
using codegen::Space;
using codegen::Type;

bool KernelLowering::memory(const Instr& i) {
  const Type t = i.type;
  switch (i.op) {
    case Op::Ld: {
      if (i.cache != codegen::Cache::None || i.has(codegen::kNoAllocL1) || i.has(codegen::kL2Prefetch)) return false;
      const Operand& to = i.ops.at(0);
      const Operand& addr = i.ops.at(1);
      if (i.space == Space::Param) {
        const Operand& base = addr.elems.at(0);
        auto p = params.find(base.name);
        if (base.kind != Operand::Kind::Symbol || p == params.end() || addr.imm != 0 || i.vec != 1)
          refuse("ld.param of something other than a whole parameter");
        llvm::Value* v = fn->getArg(p->second);
        if (v->getType()->isPointerTy()) v = b.CreatePtrToInt(v, b.getInt64Ty());
        dst(to, coerce(v, type_of(t), codegen::is_signed(t)), t);
        return true;
      }
      if (i.space != Space::Global && i.space != Space::Shared && i.space != Space::Generic && i.space != Space::Local)
        return false;
      llvm::Value* ptr = pointer(addr, address_space(i.space));
      llvm::Type* et = type_of(t);
      llvm::Type* lt = i.vec > 1 ? llvm::FixedVectorType::get(et, i.vec) : et;
      llvm::LoadInst* v = b.CreateAlignedLoad(lt, ptr, llvm::Align(codegen::bytes(t) * i.vec));
      if (i.has(codegen::kNc)) v->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
      if (i.vec == 1) {
        dst(to, v, t);
      } else {
        if (to.kind != Operand::Kind::Vec || to.elems.size() != i.vec) refuse("a vector load into a non-vector");
        for (unsigned j = 0; j < i.vec; ++j) dst(to.elems[j], b.CreateExtractElement(v, j), t);
      }
      return true;
    }
    case Op::St: {
      if (i.cache != codegen::Cache::None || i.has(codegen::kNoAllocL1)) return false;
      if (i.space != Space::Global && i.space != Space::Shared && i.space != Space::Generic && i.space != Space::Local)
        return false;
      llvm::Value* ptr = pointer(i.ops.at(0), address_space(i.space));
      const Operand& from = i.ops.at(1);
      llvm::Value* v = nullptr;
      if (i.vec == 1) {
        v = src(from, t);
      } else {
        if (from.kind != Operand::Kind::Vec || from.elems.size() != i.vec) refuse("a vector store of a non-vector");
        v = llvm::PoisonValue::get(llvm::FixedVectorType::get(type_of(t), i.vec));
        for (unsigned j = 0; j < i.vec; ++j) v = b.CreateInsertElement(v, src(from.elems[j], t), j);
      }
      b.CreateAlignedStore(v, ptr, llvm::Align(codegen::bytes(t) * i.vec));
      return true;
    }
    case Op::Cvta: {
      // The descriptor's address is already generic (symbol_address); cvta.param is the identity.
      llvm::Value* x = src(i.ops.at(1), t);
      if (i.space == Space::Param && i.has(codegen::kToGeneric)) {
        dst(i.ops.at(0), x, t);
        return true;
      }
      const unsigned from = i.has(codegen::kToGeneric) ? address_space(i.space) : kGeneric;
      const unsigned to = i.has(codegen::kToGeneric) ? kGeneric : address_space(i.space);
      const llvm::DataLayout& dl = mod.getDataLayout();
      llvm::Value* p = b.CreateIntToPtr(b.CreateZExtOrTrunc(x, b.getIntNTy(dl.getPointerSizeInBits(from))), b.getPtrTy(from));
      llvm::Value* q = b.CreateAddrSpaceCast(p, b.getPtrTy(to));
      dst(i.ops.at(0), b.CreatePtrToInt(q, type_of(t)), t);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace tessel::codegen_llvm
