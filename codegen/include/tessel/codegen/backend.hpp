// backend.hpp: the two roads from tessel's IR to PTX: the printer (ptx.hpp) and, where the
// optional layer codegen_llvm is linked and enabled, LLVM's NVPTX backend; which one a kernel takes.
#pragma once

#include <string>

#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen {

enum class Backend : uint8_t {
  Ptx,   // tessel's own printer (print_ptx)
  Llvm,  // IR -> LLVM IR -> NVPTX (codegen_llvm; needs TESSEL_WITH_LLVM=ON and codegen_llvm::enable())
};

const char* backend_name(Backend b);       // "ptx", "llvm"
Backend parse_backend(const std::string& name);  // throws naming the valid names

// The backend used where none is asked for: set_default_backend's, else $TESSEL_BACKEND (ptx or
// llvm), else Ptx. Read once; an invalid $TESSEL_BACKEND throws naming it.
Backend default_backend();
void set_default_backend(Backend b);

// A road from a module to PTX text (codegen_llvm registers the LLVM one).
using PtxRoad = std::string (*)(const Module& m, const PrintOptions& o);
void register_backend(Backend b, PtxRoad road);
bool backend_available(Backend b);

// The module's PTX through backend b (PrintOptions::comments applies to the printer only: LLVM's
// PTX carries no notes). Throws tessel::Error when b is not available (the LLVM road
// without codegen_llvm), saying how to get it.
std::string emit_ptx(const Module& m, Backend b, const PrintOptions& o = {});

}  // namespace tessel::codegen
