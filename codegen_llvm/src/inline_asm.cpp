// inline_asm.cpp: instructions LLVM has no intrinsic for, as inline PTX spelled by codegen's own
// mnemonic() (mnemonic.cpp, from the instruction table): wgmma.mma_async, whose accumulators are
// outputs tied to inputs of the same registers (as MLIR's NVVM dialect and Triton emit it), and
// any other form the native lowering declines. Predicates cross the asm boundary as 0/1 in a b32
// register (setp/selp inside a scoped block).
#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/Error.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen_llvm {

using codegen::Instr;
using codegen::Op;
using codegen::Operand;
using codegen::RegClass;
using codegen::Type;

namespace {

// The inline-asm constraint letter of a register class (NVPTX: h b16, r b32, l b64, f, d).
const char* constraint(RegClass c) {
  switch (c) {
    case RegClass::B16:
      return "h";
    case RegClass::B32:
    case RegClass::Pred:  // carried as 0/1 in a b32 register
      return "r";
    case RegClass::B64:
      return "l";
    case RegClass::F32:
      return "f";
    case RegClass::F64:
      return "d";
  }
  return "r";
}

std::string fimm(const Operand& o) {
  char buf[24];
  if (o.type == Type::F32) {
    std::snprintf(buf, sizeof buf, "0f%08X", static_cast<unsigned>(o.imm & 0xffffffffu));
  } else {
    std::snprintf(buf, sizeof buf, "0d%016llX", static_cast<unsigned long long>(o.imm));
  }
  return buf;
}

// Builds one asm statement: its text, its outputs and inputs with their constraints.
struct AsmBuilder {
  explicit AsmBuilder(KernelLowering& lowering) : l(lowering) {}
  KernelLowering& l;
  std::string prologue, body, epilogue;  // predicate conversions around the instruction
  std::vector<std::string> out_constraints, in_constraints;
  std::vector<const Operand*> outs;       // destination registers (or predicates)
  std::vector<llvm::Value*> ins;
  int preds = 0;

  // Outputs are numbered first; `$o<k>`/`$i<k>` placeholders are resolved once all are known.
  std::string output(const Operand& o) {
    const RegClass c = l.k.regs.at(o.reg).cls;
    outs.push_back(&o);
    out_constraints.push_back(std::string("=") + constraint(c));
    const std::string ref = "$o" + std::to_string(outs.size() - 1) + ";";
    if (c != RegClass::Pred) return ref;
    const std::string p = "%tp" + std::to_string(preds++);
    epilogue += "selp.u32 " + ref + ", 1, 0, " + p + ";\n";
    return p;
  }
  std::string input(llvm::Value* v, const char* cons) {
    ins.push_back(v);
    in_constraints.push_back(cons);
    return "$i" + std::to_string(ins.size() - 1) + ";";
  }
  std::string input_reg(int reg) {
    const RegClass c = l.k.regs.at(reg).cls;
    if (c != RegClass::Pred) return input(l.read(reg, Type::None), constraint(c));
    const std::string ref = input(l.b.CreateZExt(l.read(reg, Type::Pred), l.b.getInt32Ty()), "r");
    const std::string p = "%tp" + std::to_string(preds++);
    prologue += "setp.ne.u32 " + p + ", " + ref + ", 0;\n";
    return p;
  }
  std::string operand(const Operand& o, bool is_dst) {
    switch (o.kind) {
      case Operand::Kind::Reg:
        return is_dst ? output(o) : input_reg(o.reg);
      case Operand::Kind::Imm:
        return std::to_string(o.imm);
      case Operand::Kind::FImm:
        return fimm(o);
      case Operand::Kind::Special:
        return o.name;
      case Operand::Kind::Sink:
        return "_";
      case Operand::Kind::Symbol:
        if (l.shared.count(o.name)) return o.name;  // shared arrays keep their names in LLVM's PTX
        l.refuse("inline PTX naming the parameter " + o.name + " (LLVM renames parameters)");
      case Operand::Kind::Pair:
        return operand(o.elems.at(0), is_dst) + "|" + operand(o.elems.at(1), is_dst);
      case Operand::Kind::Vec: {
        std::string s = "{";
        for (size_t j = 0; j < o.elems.size(); ++j) s += (j ? ", " : "") + operand(o.elems[j], is_dst);
        return s + "}";
      }
      case Operand::Kind::Addr: {
        std::string s = "[" + operand(o.elems.at(0), false);
        if (o.elems.size() > 1) {
          s += ", " + operand(o.elems[1], false);
        } else if (o.imm != 0) {
          s += "+" + std::to_string(o.imm);
        }
        return s + "]";
      }
      case Operand::Kind::Label:
      case Operand::Kind::None:
        break;
    }
    l.refuse("an operand inline PTX cannot carry");
  }

  // Emits the call; `tied` outputs also read their register's value (wgmma's accumulators).
  void emit(bool side_effects, bool memory, bool tied) {
    std::string text = prologue + body + epilogue;
    if (preds > 0) text = "{\n.reg .pred %tp<" + std::to_string(preds) + ">;\n" + text + "}";
    // Resolve the placeholders: outputs are $0.., inputs follow them.
    const size_t n_out = outs.size();
    std::vector<llvm::Value*> args = ins;
    std::vector<std::string> cons = out_constraints;
    for (const std::string& c : in_constraints) cons.push_back(c);
    if (tied) {
      for (size_t j = 0; j < n_out; ++j) {
        args.push_back(l.read(outs[j]->reg, Type::None));
        cons.push_back(std::to_string(j));
      }
    }
    std::string resolved;
    for (size_t p = 0; p < text.size(); ++p) {
      if (text[p] == '$' && p + 1 < text.size() && (text[p + 1] == 'o' || text[p + 1] == 'i')) {
        const size_t semi = text.find(';', p);
        const size_t k = std::stoul(text.substr(p + 2, semi - p - 2));
        resolved += "$" + std::to_string(text[p + 1] == 'o' ? k : n_out + k);
        p = semi;
      } else {
        resolved += text[p];
      }
    }
    if (memory) cons.push_back("~{memory}");
    std::string joined;
    for (size_t j = 0; j < cons.size(); ++j) joined += (j ? "," : "") + cons[j];
    std::vector<llvm::Type*> out_types, in_types;
    for (const Operand* o : outs) {
      const RegClass c = l.k.regs.at(o->reg).cls;
      out_types.push_back(c == RegClass::Pred ? l.b.getInt32Ty() : l.storage_type(c));
    }
    for (llvm::Value* a : args) in_types.push_back(a->getType());
    llvm::Type* ret = out_types.empty() ? l.b.getVoidTy()
                      : out_types.size() == 1 ? out_types[0]
                                              : llvm::StructType::get(l.ctx, out_types);
    auto* fty = llvm::FunctionType::get(ret, in_types, false);
    if (llvm::Error e = llvm::InlineAsm::verify(fty, joined)) {
      l.refuse("inline PTX with invalid constraints " + joined + ": " + llvm::toString(std::move(e)));
    }
    llvm::CallInst* r = l.b.CreateCall(llvm::InlineAsm::get(fty, resolved, joined, side_effects), args);
    // Convergent, like the NVVM intrinsics: a .sync.aligned instruction (wgmma, and whatever else
    // comes this way) must not be moved into or duplicated across divergent control flow.
    if (side_effects) r->addFnAttr(llvm::Attribute::Convergent);
    for (size_t j = 0; j < n_out; ++j) {
      llvm::Value* v = n_out == 1 ? static_cast<llvm::Value*>(r) : l.b.CreateExtractValue(r, static_cast<unsigned>(j));
      const int reg = outs[j]->reg;
      if (l.k.regs.at(reg).cls == RegClass::Pred) v = l.b.CreateICmpNE(v, l.b.getInt32(0));
      l.write(reg, v, Type::None);
    }
  }
};

}  // namespace

void KernelLowering::wgmma(const Instr& i) {
  // d, a (descriptor or registers), b descriptor, scale-d (a predicate or immediate), imm-scale-a,
  // imm-scale-b[, imm-trans-a, imm-trans-b]: the accumulators are read and written in place.
  const Operand& d = i.ops.at(0);
  if (d.kind != Operand::Kind::Vec) refuse("wgmma accumulators that are not a {vector}");
  AsmBuilder a(*this);
  std::string text = codegen::mnemonic(i) + " " + a.operand(d, true);
  for (size_t j = 1; j < i.ops.size(); ++j) text += ", " + a.operand(i.ops[j], false);
  a.body = text + ";\n";
  inline_asm.insert(codegen::mnemonic(i));
  a.emit(true, true, true);
}

void KernelLowering::inline_ptx(const Instr& i) {
  const codegen::OpInfo& row = codegen::op_info(i.op);
  const codegen::Signature& sig = row.signature;
  AsmBuilder a(*this);
  std::string text = codegen::mnemonic(i);
  for (size_t j = 0; j < i.ops.size(); ++j) {
    const bool is_dst = j < sig.count && sig.kinds[j] == codegen::OperandKind::Dst;
    text += (j ? ", " : " ") + a.operand(i.ops[j], is_dst);
  }
  a.body = text + ";\n";
  inline_asm.insert(codegen::mnemonic(i));
  const bool pure = row.emulator == codegen::EmulatorClass::Alu;
  a.emit(!pure, !pure, false);
}

}  // namespace tessel::codegen_llvm
