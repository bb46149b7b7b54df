// lowering.hpp: the state of lowering one tessel kernel into one llvm::Function, shared by the
// files that lower each family of instructions (private to codegen_llvm).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen_llvm {

// Address spaces of LLVM's NVPTX target (NVPTX.h's AddressSpace).
enum AddrSpace : unsigned { kGeneric = 0, kGlobal = 1, kShared = 3, kConst = 4, kLocal = 5, kParam = 101, kSharedCluster = 7 };

struct KernelLowering {
  llvm::LLVMContext& ctx;
  llvm::Module& mod;
  const codegen::Kernel& k;
  llvm::Function* fn = nullptr;
  llvm::IRBuilder<> b;
  llvm::BasicBlock* entry = nullptr;         // holds the registers' allocas
  std::vector<llvm::AllocaInst*> regs;       // one per virtual register, of its class's type
  std::map<std::string, int> params;         // parameter name -> argument index
  std::map<std::string, llvm::GlobalVariable*> shared;  // shared array name -> its global
  std::set<std::string>& inline_asm;         // mnemonics lowered as inline PTX (the module's)
  std::string error_context;                 // the instruction being lowered, for errors

  KernelLowering(llvm::Module& m, const codegen::Kernel& kernel, std::set<std::string>& asm_used);

  // --- control_flow.cpp
  void lower_body();
  void block(const codegen::Block& blk);
  void instr(const codegen::Instr& i);  // the guard, then dispatch

  // --- values.cpp: registers live in allocas (SROA/mem2reg make them SSA values)
  llvm::Type* storage_type(codegen::RegClass c);
  llvm::Type* type_of(codegen::Type t);  // the LLVM type of a PTX value type (f16 -> half, u8 -> i8)
  llvm::Value* read(int reg, codegen::Type as);
  void write(int reg, llvm::Value* v, codegen::Type as);
  llvm::Value* coerce(llvm::Value* v, llvm::Type* to, bool is_signed);
  llvm::Value* src(const codegen::Operand& o, codegen::Type as);  // register, immediate, special, symbol
  void dst(const codegen::Operand& o, llvm::Value* v, codegen::Type as);  // register or sink
  llvm::Value* special(const std::string& name);                 // %tid.x -> its intrinsic
  llvm::Value* symbol_address(const std::string& name, codegen::Type as);
  // A pointer in `space` for the address operand [base+offset].
  llvm::Value* pointer(const codegen::Operand& addr, unsigned space);
  [[noreturn]] void refuse(const std::string& why) const;

  // --- arithmetic.cpp: returns false where the form has no native lowering
  bool arithmetic(const codegen::Instr& i);
  // --- memory.cpp
  bool memory(const codegen::Instr& i);
  // --- intrinsics.cpp
  bool intrinsic(const codegen::Instr& i);
  // --- inline_asm.cpp
  void wgmma(const codegen::Instr& i);
  void inline_ptx(const codegen::Instr& i);  // any instruction, spelled by codegen's mnemonic()
};

unsigned address_space(codegen::Space s);

}  // namespace tessel::codegen_llvm
