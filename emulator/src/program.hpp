// program.hpp: a kernel decoded for interpretation: the legalized instruction list with labels
// resolved to indices, registers and special registers to slots of a per-thread register file,
// symbols (parameters, shared arrays) to addresses, and the parameter and shared-memory layouts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/ir.hpp"

namespace tessel::emu::detail {

// Generic addresses of the shared and parameter windows (global addresses are generic as they
// are; see Memory::kBase). A generic address in [window, window + 2^32) maps to that space.
inline constexpr uint64_t kSharedWindow = uint64_t{1} << 40;
inline constexpr uint64_t kParamWindow = uint64_t{2} << 40;
inline constexpr uint64_t kWindowSize = uint64_t{1} << 32;
// The first shared-memory address: below it nothing is allocated, so a shared offset used as an
// address (a forgotten array base) is caught. sm_90 reserves the first 1 KiB the same way.
inline constexpr uint32_t kSharedBase = 1024;

// An operand read by an instruction: a slot of the register file, or an immediate (a resolved
// symbol's address included).
struct Src {
  uint32_t slot = 0;
  bool imm = false;
  uint64_t value = 0;
};

// What an instruction does, beyond its codegen::Op: the ops the emulator runs as no-ops, and the
// ones it does not run yet (from its emulator class, program.cpp).
enum class Exec : uint8_t { Normal, Nop, Unsupported };

struct Decoded {
  codegen::Op op = codegen::Op::Mov;
  codegen::EmulatorClass cls = codegen::EmulatorClass::Alu;  // its row's (codegen/op_table.hpp)
  Exec exec = Exec::Normal;
  codegen::Type type = codegen::Type::None, type2 = codegen::Type::None;
  codegen::Type rtype = codegen::Type::None;  // the type of what it writes (alu.hpp: result_type)
  codegen::Space space = codegen::Space::None;
  codegen::Cmp cmp = codegen::Cmp::None;
  codegen::Round rnd = codegen::Round::None;
  codegen::AtomOp atom = codegen::AtomOp::None;
  codegen::ShflMode shfl = codegen::ShflMode::None;
  uint32_t flags = 0;
  int32_t guard = -1;  // slot of the guard predicate
  bool guard_negated = false;
  uint8_t ndst = 0, nsrc = 0;
  bool pack = false;             // mov.bN d, {a, b, ...}: sources joined into one value
  std::array<int32_t, 4> dst{};  // slots; -1 for the sink `_`
  std::array<Src, 10> src{};     // memory ops: src[0] is the address base, then the data
  int64_t offset = 0;            // memory ops: the address's byte offset
  int32_t n = 0;                 // Instr::n (wgmma N, tensor rank, matrix count)
  codegen::Type type3 = codegen::Type::None;  // wgmma: B's type
  uint32_t list = 0;             // wgmma: index in Program::lists of its accumulator and A slots
  uint32_t target = 0;           // bra: the instruction index to go to
  uint32_t index = 0;            // the instruction in Program::instrs (for messages)
  bool has(uint32_t f) const { return (flags & f) != 0; }
};

// The register lists of a wgmma (its accumulators are read and written, up to 128 per thread).
struct RegList {
  std::vector<int32_t> acc;  // accumulator slots
  std::vector<Src> a;        // A from registers: 4 b32 sources (empty: A from a descriptor)
};

struct SharedArray {
  std::string name;
  uint32_t addr = 0, bytes = 0;
  bool dynamic = false;
};

struct ParamSlot {
  std::string name;
  uint32_t offset = 0, bytes = 0;
};

struct Program {
  const codegen::Kernel* kernel = nullptr;
  std::vector<codegen::Instr> instrs;      // legalized
  std::vector<Decoded> code;               // instrs without labels
  uint32_t nregs = 0;                      // slots [0, nregs) are the IR's registers
  std::vector<codegen::Special> specials;  // slot nregs + i holds specials[i]
  uint32_t nslots = 0;
  std::vector<uint64_t> slot_mask;  // the register's width as a mask (pred: 1)
  std::vector<SharedArray> shared;  // in address order
  uint32_t shared_end = kSharedBase;
  std::vector<RegList> lists;     // wgmma operands (Decoded::list)
  std::vector<ParamSlot> params;  // in declaration order
  uint32_t param_bytes = 0;

  std::string text(const Decoded& d) const;  // the instruction as PTX
};

// Decodes plan's kernel. Throws tessel::Error for IR the emulator cannot read (an operand of a
// kind an instruction does not take, a label never defined).
Program decode(const codegen::Kernel& k, unsigned dynamic_shared_bytes);

}  // namespace tessel::emu::detail
