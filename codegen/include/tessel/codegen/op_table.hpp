// op_table.hpp: the instruction table: one row per PTX instruction root (`Op`) declaring its
// mnemonic root, how the printer spells the rest, its operand signature, its minimum PTX ISA
// version and target, and its emulator class. The `Op` enum is made from the rows, so an Op
// without a row cannot exist; the IR's checks (legalize), the requirement floors (ir.cpp), the
// mnemonics (mnemonic.cpp) and the emulator's classification (emulator/src/program.cpp) read it.
//
// Adding an instruction is adding a row (docs/codegen.md, "The instruction table, and adding an instruction"); what stays
// per instruction elsewhere is behaviour: a Custom spelling's modifiers, how the emulator runs it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessel::codegen {

struct Instr;
struct Operand;

// The minimum PTX ISA version (major*10 + minor) and target an instruction needs.
struct Requirement {
  int ptx = 70;                // .version 7.0
  int sm = 80;                 // sm_80
  bool arch_specific = false;  // the `a` targets: sm_90a
  const char* what = "";       // the feature that raised the requirement, for error messages
};

// How mnemonic() spells an instruction from its root (ptx.hpp).
enum class Spelling : uint8_t {
  Root,          // the root alone: `bar.sync`, `wgmma.fence.sync.aligned`
  RootType,      // root + `.type`: `and.b32`, `mov.u64`
  RootModsType,  // root + modifiers (.lo .hi .wide .approx rounding .ftz .sat) + `.type`: `mul.lo.s32`
  Custom,        // spelled by its own case in mnemonic.cpp (spaces, vectors, shapes, ...)
};

// How the CPU emulator (emulator/) runs an instruction; its decoder and scheduler dispatch on it.
enum class EmulatorClass : uint8_t {
  Alu,          // a value from registers in one thread: arithmetic, logic, mov, cvt, setp, selp
  Address,      // an address moved between state spaces in one thread: cvta, mapa
  Memory,       // a checked access of one state space: ld, st, atom, red
  Barrier,      // the thread waits for its block or cluster: bar.sync, barrier.cluster
  Fence,        // orders the generic and async proxies: fence.proxy.async
  Mbarrier,     // transaction-counting barriers in shared memory
  Tma,          // asynchronous copies: bulk tensor copies (cp.async.bulk.tensor), cp.async
  AsyncGroup,   // commit and wait of bulk and wgmma groups
  WarpShuffle,  // the lanes of a membermask together: shfl.sync, elect.sync
  WarpMatrix,   // every lane of the warp together: ldmatrix, stmatrix
  Wgmma,        // every thread of the warpgroup together: wgmma.mma_async
  Control,      // label, bra, ret
  Nop,          // run as no-ops: what they order or hint at, the emulator's exact model has no use for
  Unsupported,  // not emulated yet: refused with the instruction's text when reached
};

// The kinds of operand a signature names, each one letter:
//   d  a destination: a register, the sink `_`, a {vector} of them or a pair `a|b`
//   s  a source: a register, an immediate, a special register, a symbol, or a {vector} of them
//   a  an address [base] or [base+offset]
//   t  a tensor operand [tensorMap, {c0, ...}]
//   i  an integer immediate
//   l  a label
enum class OperandKind : uint8_t { Dst, Src, Addr, Tensor, Imm, Label };
inline constexpr std::string_view kOperandLetters = "dsatil";  // indexed by OperandKind

// An operand signature: the kinds in order; the operands after `required` may be left off (the
// table writes them in brackets: "d a s [s]").
struct Signature {
  std::array<OperandKind, 8> kinds{};
  uint8_t count = 0;     // the most operands
  uint8_t required = 0;  // the fewest
};

// Reads a signature as the table writes it: letters separated by spaces, the optional tail in
// one pair of brackets. consteval: a malformed signature in the table does not compile.
consteval Signature parse_signature(std::string_view text) {
  Signature s;
  bool optional = false, closed = false;
  for (size_t j = 0; j < text.size(); ++j) {
    const char c = text[j];
    if (c == ' ') continue;
    if (c == '[') {
      if (optional || closed) throw "signature: one optional tail, in one pair of brackets";
      optional = true;
      continue;
    }
    if (c == ']') {
      if (!optional || closed) throw "signature: ']' without '['";
      closed = true;
      continue;
    }
    if (closed) throw "signature: the optional tail must come last";
    if (s.count == s.kinds.size()) throw "signature: more than 8 operands";
    const size_t k = kOperandLetters.find(c);
    if (k == std::string_view::npos) throw "signature: an operand kind is one of d s a t i l";
    s.kinds[s.count++] = static_cast<OperandKind>(k);
    if (!optional) s.required = s.count;
  }
  if (optional && !closed) throw "signature: '[' without ']'";
  return s;
}

// The rows. ROW(Op, mnemonic root, spelling, operands, emulator class, ptx, sm, sm_XXa, what):
// ptx/sm/sm_XXa is the floor of every form of the instruction (kModifierFloors in op_table.cpp
// raises it for modifiers and types, e.g. bf16 add needs sm_90); `what` names it in refusals
// ("it needs sm_90a (wgmma)"). Rows with no floor of their own need what every kernel needs:
// PTX ISA 7.0 and sm_80. Each floor follows the PTX ISA's "PTX ISA Notes" / "Target ISA Notes".
// clang-format off
#define TESSEL_CODEGEN_OP_TABLE(ROW)                                                                                                                           \
  /*  Op                    root                                   spelling      operands             emulator     ptx sm  a      what */                      \
  /* integer and floating-point arithmetic */                                                                                                                  \
  ROW(Add,                  "add",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Sub,                  "sub",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Mul,                  "mul",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Mad,                  "mad",                                 RootModsType, "d s s s",           Alu,         70, 80, false, "")                          \
  ROW(Fma,                  "fma",                                 RootModsType, "d s s s",           Alu,         70, 80, false, "")                          \
  ROW(Div,                  "div",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Rem,                  "rem",                                 RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Min,                  "min",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Max,                  "max",                                 RootModsType, "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Neg,                  "neg",                                 RootModsType, "d s",               Alu,         70, 80, false, "")                          \
  ROW(Abs,                  "abs",                                 RootModsType, "d s",               Alu,         70, 80, false, "")                          \
  /* logic and shifts */                                                                                                                                       \
  ROW(And,                  "and",                                 RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Or,                   "or",                                  RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Xor,                  "xor",                                 RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Not,                  "not",                                 RootType,     "d s",               Alu,         70, 80, false, "")                          \
  ROW(Shl,                  "shl",                                 RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Shr,                  "shr",                                 RootType,     "d s s",             Alu,         70, 80, false, "")                          \
  /* moves, conversions, comparisons */                                                                                                                        \
  ROW(Mov,                  "mov",                                 RootType,     "d s",               Alu,         70, 80, false, "")                          \
  ROW(Cvt,                  "cvt",                                 Custom,       "d s",               Alu,         70, 80, false, "")                          \
  ROW(Cvta,                 "cvta",                                Custom,       "d s",               Address,     70, 80, false, "")                          \
  ROW(Setp,                 "setp",                                Custom,       "d s s",             Alu,         70, 80, false, "")                          \
  ROW(Selp,                 "selp",                                RootType,     "d s s s",           Alu,         70, 80, false, "")                          \
  /* memory */                                                                                                                                                 \
  ROW(Ld,                   "ld",                                  Custom,       "d a",               Memory,      70, 80, false, "")                          \
  ROW(St,                   "st",                                  Custom,       "a s",               Memory,      70, 80, false, "")                          \
  ROW(Atom,                 "atom",                                Custom,       "d a s [s]",         Memory,      70, 80, false, "")                          \
  ROW(Red,                  "red",                                 Custom,       "a s",               Memory,      70, 80, false, "")                          \
  /* synchronisation and fences */                                                                                                                             \
  ROW(BarSync,              "bar.sync",                            Root,         "s [s]",             Barrier,     70, 80, false, "")                          \
  ROW(BarrierClusterArrive, "barrier.cluster.arrive",              Custom,       "",                  Barrier,     78, 90, false, "barrier.cluster")           \
  ROW(BarrierClusterWait,   "barrier.cluster.wait",                Custom,       "",                  Barrier,     78, 90, false, "barrier.cluster")           \
  ROW(FenceProxyAsync,      "fence.proxy.async",                   Custom,       "",                  Fence,       80, 90, false, "fence.proxy.async")         \
  ROW(FenceMbarrierInit,    "fence.mbarrier_init.release.cluster", Root,         "",                  Nop,         80, 90, false, "fence.mbarrier_init")       \
  /* sm_80 asynchronous copies */                                                                                                                              \
  ROW(CpAsync,              "cp.async",                            Custom,       "a a i [s]",         Tma,         70, 80, false, "cp.async")                  \
  ROW(CpAsyncCommit,        "cp.async.commit_group",               Root,         "",                  AsyncGroup,  70, 80, false, "cp.async")                  \
  ROW(CpAsyncWait,          "cp.async",                            Custom,       "[i]",               AsyncGroup,  70, 80, false, "cp.async")                  \
  ROW(CpAsyncMbarArrive,    "cp.async.mbarrier.arrive",            Custom,       "a",                 Mbarrier,    78, 80, false, "cp.async.mbarrier.arrive")  \
  /* sm_90 tensor-memory accelerator (bulk tensor copies) and mbarriers */                                                                                     \
  ROW(TmaLoad,              "cp.async.bulk.tensor",                Custom,       "a t a [s]",         Tma,         80, 90, false, "cp.async.bulk.tensor")      \
  ROW(TmaStore,             "cp.async.bulk.tensor",                Custom,       "t a",               Tma,         80, 90, false, "cp.async.bulk.tensor")      \
  ROW(TmaPrefetch,          "cp.async.bulk.prefetch.tensor",       Custom,       "t",                 Nop,         80, 90, false, "cp.async.bulk.prefetch.tensor") \
  ROW(BulkCommit,           "cp.async.bulk.commit_group",          Root,         "",                  AsyncGroup,  80, 90, false, "cp.async.bulk.tensor")      \
  ROW(BulkWait,             "cp.async.bulk.wait_group",            Custom,       "i",                 AsyncGroup,  80, 90, false, "cp.async.bulk.tensor")      \
  ROW(MbarInit,             "mbarrier.init.shared::cta.b64",       Root,         "a s",               Mbarrier,    78, 80, false, "mbarrier on shared::cta")   \
  ROW(MbarArrive,           "mbarrier.arrive",                     Custom,       "d a",               Mbarrier,    78, 80, false, "mbarrier on shared::cta")   \
  ROW(MbarArriveExpectTx,   "mbarrier.arrive.expect_tx",           Custom,       "d a s",             Mbarrier,    80, 90, false, "mbarrier.arrive.expect_tx") \
  ROW(MbarTryWait,          "mbarrier.try_wait.parity",            Custom,       "d a s",             Mbarrier,    78, 90, false, "mbarrier.try_wait")         \
  ROW(Mapa,                 "mapa.shared::cluster",                RootType,     "d s s",             Address,     78, 90, false, "mapa")                      \
  /* warpgroup MMA */                                                                                                                                          \
  ROW(WgmmaFence,           "wgmma.fence.sync.aligned",            Root,         "",                  Nop,         80, 90, true,  "wgmma")                     \
  ROW(Wgmma,                "wgmma.mma_async.sync.aligned",        Custom,       "d s s s i i [i i]", Wgmma,       80, 90, true,  "wgmma")                     \
  ROW(WgmmaCommit,          "wgmma.commit_group.sync.aligned",     Root,         "",                  AsyncGroup,  80, 90, true,  "wgmma")                     \
  ROW(WgmmaWait,            "wgmma.wait_group.sync.aligned",       Root,         "i",                 AsyncGroup,  80, 90, true,  "wgmma")                     \
  ROW(Setmaxnreg,           "setmaxnreg",                          Custom,       "i",                 Nop,         80, 90, true,  "setmaxnreg")                \
  /* warp-level matrix and lane operations */                                                                                                                  \
  ROW(Ldmatrix,             "ldmatrix.sync.aligned",               Custom,       "d a",               WarpMatrix,  70, 80, false, "")                          \
  ROW(Stmatrix,             "stmatrix.sync.aligned",               Custom,       "a s",               WarpMatrix,  78, 90, false, "stmatrix")                  \
  ROW(MmaSync,              "mma.sync.aligned",                    Custom,       "d s s s",           Unsupported, 70, 80, false, "mma.sync")                  \
  ROW(ElectSync,            "elect.sync",                          Root,         "d s",               WarpShuffle, 80, 90, false, "elect.sync")                \
  ROW(Shfl,                 "shfl.sync",                           Custom,       "d s s s s",         WarpShuffle, 70, 80, false, "")                          \
  /* control flow (Label and Bra appear only after legalize) */                                                                                                \
  ROW(Label,                "",                                    Root,         "l",                 Control,     70, 80, false, "")                          \
  ROW(Bra,                  "bra",                                 Custom,       "l",                 Control,     70, 80, false, "")                          \
  ROW(Ret,                  "ret",                                 Root,         "",                  Control,     70, 80, false, "")
// clang-format on

// One PTX instruction root (its mnemonic's first part); the modifiers live in Instr's fields.
enum class Op : uint8_t {
#define TESSEL_CODEGEN_OP_ENUMERATOR(op, ...) op,
  TESSEL_CODEGEN_OP_TABLE(TESSEL_CODEGEN_OP_ENUMERATOR)
#undef TESSEL_CODEGEN_OP_ENUMERATOR
};

#define TESSEL_CODEGEN_OP_ONE(...) +1
inline constexpr size_t kOpCount = 0 TESSEL_CODEGEN_OP_TABLE(TESSEL_CODEGEN_OP_ONE);
#undef TESSEL_CODEGEN_OP_ONE

// One row of the table.
struct OpInfo {
  Op op;
  const char* name;      // the enumerator, "TmaLoad"
  const char* root;      // the mnemonic's fixed part, "cp.async.bulk.tensor" ("" for a label)
  Spelling spelling;     // how mnemonic() spells the rest
  const char* operands;  // the signature as the row writes it, "a t a [s]"
  Signature signature;   // the same, read
  EmulatorClass emulator;
  Requirement floor;  // the least any form of it needs
};

namespace detail {
extern const OpInfo* const op_rows;      // op_table.cpp's rows, row j for Op j
[[noreturn]] void no_op_row(size_t j);  // op_info's refusal
}  // namespace detail

// The row of op, and the whole table in Op order (row j is Op j). Inline: the printer and the
// builder ask for a row per instruction.
inline const OpInfo& op_info(Op op) {
  const auto j = static_cast<size_t>(op);
  if (j >= kOpCount) [[unlikely]]
    detail::no_op_row(j);
  return detail::op_rows[j];
}
std::span<const OpInfo> op_table();

// The requirement of i's root with its modifiers: the first of op_table.cpp's modifier floors
// that applies to i (bf16 add, multicast TMA, ...), else the row's floor. ir.hpp's requirement()
// adds what i's operands need. It reads i's op, type, type2, space and flags only (the printer
// keeps it per distinct mnemonic: print.cpp's MnemonicCache keys on a superset of these).
Requirement op_requirement(const Instr& i);

// Why i's operands do not match its row's signature, or "" when they do (legalize refuses them).
std::string operand_mismatch(const Instr& i);
// Whether operand o is of kind k (operands_fit, ir.hpp, asks this of each operand other than a
// register where a register goes).
bool operand_fits(OperandKind k, const Operand& o);

}  // namespace tessel::codegen
