// ptx.hpp: the PTX text printer. Identical modules print byte-identical text.
#pragma once

#include <string>

#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

struct PrintOptions {
  bool comments = false;             // print the notes naming the layout operation behind index arithmetic
  std::string generator = "tessel";  // the first header comment line
};

// The whole module: `.version`/`.target`/`.address_size` from the highest requirement of its
// instructions and kernels, shared arrays, then each kernel.
std::string print_ptx(const Module& m, const PrintOptions& o = {});

// One instruction's mnemonic, e.g. `ld.global.nc.v4.f32` (without guard or operands).
std::string mnemonic(const Instr& i);
// The same, appended to `out` (the printer's way: no string per instruction).
void append_mnemonic(std::string& out, const Instr& i);

// One instruction of kernel k as the printer writes it, guard and operands included, without the
// tab, `;` and newline: `@%p1 ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5]` (for error messages).
std::string print_instr(const Kernel& k, const Instr& i);

// A cache operator's suffix as mnemonics spell it: ".cg"; "" for none.
const char* ptx_suffix(Cache c);

// `8.0` for 80.
std::string ptx_version_string(int ptx);

}  // namespace tessel::codegen
