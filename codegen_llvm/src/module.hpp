// module.hpp: lowering a whole tessel module into an llvm::Module (private to codegen_llvm).
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <set>
#include <string>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen_llvm {

// Every kernel of m, verified; `inline_asm` collects the mnemonics lowered as inline PTX.
std::unique_ptr<llvm::Module> lower_module(llvm::LLVMContext& ctx, const codegen::Module& m, const llvm::DataLayout& dl,
                                           const llvm::Triple& triple, std::set<std::string>& inline_asm);

}  // namespace tessel::codegen_llvm
