// values.cpp: registers, operands and addresses: each virtual register is an alloca of its class's
// LLVM type (i1, i16, i32, i64, float, double), read and written in the type an instruction names,
// as PTX reads a register of a class in any type of that width.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::codegen_llvm {

using codegen::Operand;
using codegen::RegClass;
using codegen::Type;

unsigned address_space(codegen::Space s) {
  switch (s) {
    case codegen::Space::Generic:
    case codegen::Space::None:
      return kGeneric;
    case codegen::Space::Global:
      return kGlobal;
    case codegen::Space::Shared:
      return kShared;
    case codegen::Space::SharedCluster:
      return kSharedCluster;
    case codegen::Space::Param:
      return kParam;
    case codegen::Space::Local:
      return kLocal;
    case codegen::Space::Const:
      return kConst;
  }
  return kGeneric;
}

void KernelLowering::refuse(const std::string& why) const {
  fail("codegen_llvm: " + k.name + ": " + why + (error_context.empty() ? "" : " (in `" + error_context + "`)"));
}

llvm::Type* KernelLowering::storage_type(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return b.getInt1Ty();
    case RegClass::B16:
      return b.getInt16Ty();
    case RegClass::B32:
      return b.getInt32Ty();
    case RegClass::B64:
      return b.getInt64Ty();
    case RegClass::F32:
      return b.getFloatTy();
    case RegClass::F64:
      return b.getDoubleTy();
  }
  refuse("no register class");
}

llvm::Type* KernelLowering::type_of(Type t) {
  switch (t) {
    case Type::Pred:
      return b.getInt1Ty();
    case Type::B8:
    case Type::U8:
    case Type::S8:
      return b.getInt8Ty();
    case Type::B16:
    case Type::U16:
    case Type::S16:
      return b.getInt16Ty();
    case Type::F16:
      return b.getHalfTy();
    case Type::BF16:
      return b.getBFloatTy();
    case Type::F16x2:
      return llvm::FixedVectorType::get(b.getHalfTy(), 2);
    case Type::BF16x2:
      return llvm::FixedVectorType::get(b.getBFloatTy(), 2);
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::TF32:
    case Type::E4M3:
    case Type::E5M2:
      return b.getInt32Ty();
    case Type::B64:
    case Type::U64:
    case Type::S64:
      return b.getInt64Ty();
    case Type::F32:
      return b.getFloatTy();
    case Type::F64:
      return b.getDoubleTy();
    case Type::None:
      break;
  }
  refuse(std::string("no LLVM type for PTX type ") + codegen::ptx_name(t));
}

// Between types of one width a bitcast; between integers a truncation or an extension (sign or
// zero by the PTX type, as ld and cvt fill a wider register).
llvm::Value* KernelLowering::coerce(llvm::Value* v, llvm::Type* to, bool is_signed) {
  llvm::Type* from = v->getType();
  if (from == to) return v;
  const unsigned fb = from->getPrimitiveSizeInBits(), tb = to->getPrimitiveSizeInBits();
  if (fb == tb) return b.CreateBitCast(v, to);
  if (from->isIntegerTy() && to->isIntegerTy()) 
    return is_signed ? b.CreateSExtOrTrunc(v, to) : b.CreateZExtOrTrunc(v, to);
  // A narrower value in a wider register class (f16 in b32 is not a tessel form, but i8 data is).
  llvm::Type* fi = b.getIntNTy(fb);
  llvm::Type* ti = b.getIntNTy(tb);
  llvm::Value* x = from->isIntegerTy() ? v : b.CreateBitCast(v, fi);
  x = is_signed ? b.CreateSExtOrTrunc(x, ti) : b.CreateZExtOrTrunc(x, ti);
  return to->isIntegerTy() ? x : b.CreateBitCast(x, to);
}

llvm::Value* KernelLowering::read(int reg, Type as) {
  if (reg < 0 || reg >= static_cast<int>(regs.size())) refuse("register " + std::to_string(reg) + " was never made");
  llvm::AllocaInst* a = regs[reg];
  llvm::Value* v = b.CreateLoad(a->getAllocatedType(), a);
  return coerce(v, type_of(as == Type::None ? k.regs[reg].type : as), codegen::is_signed(as));
}

void KernelLowering::write(int reg, llvm::Value* v, Type as) {
  if (reg < 0 || reg >= static_cast<int>(regs.size())) refuse("register " + std::to_string(reg) + " was never made");
  llvm::AllocaInst* a = regs[reg];
  b.CreateStore(coerce(v, a->getAllocatedType(), codegen::is_signed(as)), a);
}

llvm::Value* KernelLowering::src(const Operand& o, Type as) {
  llvm::Type* t = type_of(as);
  switch (o.kind) {
    case Operand::Kind::Reg:
      return read(o.reg, as);
    case Operand::Kind::Imm:
      if (t->isIntegerTy()) return llvm::ConstantInt::get(t, static_cast<uint64_t>(o.imm), true);
      refuse("an integer immediate where a " + std::string(codegen::ptx_name(as)) + " is read");
    case Operand::Kind::FImm: {
      llvm::Value* bits = o.type == Type::F32 ? b.getInt32(static_cast<uint32_t>(o.imm)) : b.getInt64(o.imm);
      return coerce(b.CreateBitCast(bits, o.type == Type::F32 ? b.getFloatTy() : b.getDoubleTy()), t, false);
    }
    case Operand::Kind::Special:
      return coerce(special(o.name), t, false);
    case Operand::Kind::Symbol:
      return symbol_address(o.name, as);
    default:
      refuse("an operand that is not a value where a value is read");
  }
}

void KernelLowering::dst(const Operand& o, llvm::Value* v, Type as) {
  if (o.kind == Operand::Kind::Sink) return;
  if (o.kind != Operand::Kind::Reg) refuse("a destination that is not a register");
  write(o.reg, v, as);
}

llvm::Value* KernelLowering::special(const std::string& name) {
  using namespace llvm;
  static const std::map<std::string, Intrinsic::ID> ids = {
      {"%tid.x", Intrinsic::nvvm_read_ptx_sreg_tid_x},
      {"%tid.y", Intrinsic::nvvm_read_ptx_sreg_tid_y},
      {"%tid.z", Intrinsic::nvvm_read_ptx_sreg_tid_z},
      {"%ntid.x", Intrinsic::nvvm_read_ptx_sreg_ntid_x},
      {"%ntid.y", Intrinsic::nvvm_read_ptx_sreg_ntid_y},
      {"%ntid.z", Intrinsic::nvvm_read_ptx_sreg_ntid_z},
      {"%ctaid.x", Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
      {"%ctaid.y", Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
      {"%ctaid.z", Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
      {"%nctaid.x", Intrinsic::nvvm_read_ptx_sreg_nctaid_x},
      {"%nctaid.y", Intrinsic::nvvm_read_ptx_sreg_nctaid_y},
      {"%nctaid.z", Intrinsic::nvvm_read_ptx_sreg_nctaid_z},
      {"%laneid", Intrinsic::nvvm_read_ptx_sreg_laneid},
      {"%warpid", Intrinsic::nvvm_read_ptx_sreg_warpid},
      {"%cluster_ctarank", Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank},
      {"%cluster_ctaid.x", Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_x},
      {"%cluster_ctaid.y", Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_y},
      {"%cluster_ctaid.z", Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_z},
      {"%clusterid.x", Intrinsic::nvvm_read_ptx_sreg_clusterid_x},
      {"%clusterid.y", Intrinsic::nvvm_read_ptx_sreg_clusterid_y},
      {"%clusterid.z", Intrinsic::nvvm_read_ptx_sreg_clusterid_z},
      {"%nclusterid.x", Intrinsic::nvvm_read_ptx_sreg_nclusterid_x},
      {"%smid", Intrinsic::nvvm_read_ptx_sreg_smid},
      {"%dynamic_smem_size", Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size},
  };
  auto it = ids.find(name);
  if (it == ids.end()) refuse("no intrinsic for the special register " + name);
  return b.CreateIntrinsic(it->second, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
}

// A shared array's address (u32: shared pointers are 32-bit, the short-pointer option) or a
// parameter's (a TMA descriptor: the generic address of the grid-constant byval argument).
llvm::Value* KernelLowering::symbol_address(const std::string& name, Type as) {
  if (auto s = shared.find(name); s != shared.end()) return b.CreatePtrToInt(s->second, type_of(as));
  if (auto p = params.find(name); p != params.end()) {
    const codegen::Param& param = k.params.at(p->second);
    if (param.kind != codegen::Param::Kind::TensorMap)
      refuse("the address of the scalar parameter " + name + " (only a TMA descriptor's is taken)");
    return b.CreatePtrToInt(fn->getArg(p->second), type_of(as));
  }
  refuse("the symbol " + name + " is neither a parameter nor a shared array");
}

llvm::Value* KernelLowering::pointer(const Operand& addr, unsigned space) {
  if (addr.kind != Operand::Kind::Addr || addr.elems.size() != 1) refuse("an operand that is not an address [base+offset]");
  const Operand& base = addr.elems[0];
  llvm::Type* ptr_ty = b.getPtrTy(space);
  llvm::Value* p = nullptr;
  if (base.kind == Operand::Kind::Symbol) {
    if (auto s = shared.find(base.name); s != shared.end()) {
      p = s->second;
      if (space != kShared) p = b.CreateAddrSpaceCast(p, ptr_ty);
    } else {
      refuse("an address of the symbol " + base.name + " outside ld.param");
    }
  } else {
    llvm::Value* v = base.kind == Operand::Kind::Reg ? read(base.reg, Type::None) : src(base, Type::U64);
    if (!v->getType()->isIntegerTy()) refuse("an address register that is not an integer");
    const unsigned bits = mod.getDataLayout().getPointerSizeInBits(space);
    p = b.CreateIntToPtr(b.CreateZExtOrTrunc(v, b.getIntNTy(bits)), ptr_ty);
  }
  if (addr.imm != 0) p = b.CreateGEP(b.getInt8Ty(), p, b.getInt64(addr.imm));
  return p;
}

}  // namespace tessel::codegen_llvm
