// codegen_llvm.hpp: the second road from tessel's IR to PTX: IR -> LLVM IR (IRBuilder) -> LLVM's
// optimization pipeline -> the NVPTX backend. No LLVM header is needed to use it.
#pragma once

#include <string>
#include <vector>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen_llvm {

// The passes run on the lowered module before instruction selection.
enum class Pipeline : uint8_t {
  Tessel,  // SROA (registers become SSA values), early CSE, simplifycfg, GVN, ADCE: no LICM and no
           // instcombine, which made ptxas spill (docs/llvm.md, findings 1 and 2)
  O3,      // LLVM's default O3 pipeline
  None,    // none: the allocas stay (the NVPTX backend's own passes still run)
};

struct CompileOptions {
  bool optimize = true;          // run `pipeline` before instruction selection
  Pipeline pipeline = Pipeline::Tessel;
  bool keep_llvm_ir = false;     // fill Compiled::llvm_ir (the module as the NVPTX backend gets it)
  std::string generator = "tessel (llvm)";  // the first header comment line of the PTX
};

struct Compiled {
  std::string ptx;
  std::string llvm_ir;                    // when keep_llvm_ir
  std::string target;                     // sm_90a: the module's own target (codegen::requirement)
  std::vector<std::string> inline_asm;    // the mnemonics lowered as inline PTX, once each, sorted
};

// Lowers every kernel of m (before legalize: structured control flow becomes basic blocks) and
// compiles it for the module's own target. Throws tessel::Error naming the kernel and the
// instruction it cannot lower, or LLVM's message when the module does not verify.
Compiled compile(const codegen::Module& m, const CompileOptions& o = {});

// compile(m).ptx, with the printer's header comment; the signature of codegen::PtxRoad.
std::string print_ptx(const codegen::Module& m, const codegen::PrintOptions& o = {});

// Registers this road as codegen::Backend::Llvm (codegen/backend.hpp). Idempotent.
void enable();

}  // namespace tessel::codegen_llvm
