// arithmetic.cpp: the ALU instructions as LLVM instructions: integer and floating-point
// arithmetic, logic, shifts, moves (packing included), conversions, comparisons and selects.
// A form with a modifier LLVM has no instruction for (.sat, .ftz, .approx, a directed rounding)
// returns false and goes to inline PTX.
#include <llvm/IR/Intrinsics.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"

namespace tessel::codegen_llvm {

using codegen::Cmp;
using codegen::Instr;
using codegen::Op;
using codegen::Operand;
using codegen::Round;
using codegen::Type;

namespace {

bool is_fp(Type t) {
  return t == Type::F32 || t == Type::F64 || t == Type::F16 || t == Type::BF16 || t == Type::F16x2 ||
         t == Type::BF16x2;
}

// PTX float arithmetic without a rounding modifier may be contracted by ptxas (mul + add into
// fma); with `.rn` it may not. LLVM's `contract` flag says the same, and NVPTX prints `mul.f32`
// for a contractable multiply and `mul.rn.f32` otherwise, so the roads keep one meaning.
llvm::Value* contractable(llvm::Value* v, const Instr& i) {
  if (i.rnd == Round::None) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setHasAllowContract(true);
  }
  return v;
}

bool plain_rounding(const Instr& i) { return i.rnd == Round::None || i.rnd == Round::Rn; }

}  // namespace

bool KernelLowering::arithmetic(const Instr& i) {
  const Type t = i.type;
  const bool fp = is_fp(t);
  const bool sgn = codegen::is_signed(t);
  auto s = [&](size_t j) { return src(i.ops.at(j), t); };
  auto d = [&](llvm::Value* v) {
    dst(i.ops.at(0), v, t);
    return true;
  };
  const uint32_t exotic = codegen::kFtz | codegen::kSat | codegen::kApprox;
  switch (i.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul: {
      if (i.flags & exotic) return false;
      if (fp) {
        if (!plain_rounding(i)) return false;
        llvm::Value* v = i.op == Op::Add ? b.CreateFAdd(s(1), s(2)) : i.op == Op::Sub ? b.CreateFSub(s(1), s(2)) : b.CreateFMul(s(1), s(2));
        return d(contractable(v, i));
      }
      if (i.op == Op::Mul && (i.has(codegen::kWide) || i.has(codegen::kHi))) {
        llvm::Type* wide = b.getIntNTy(2 * type_of(t)->getIntegerBitWidth());
        llvm::Value* x = coerce(s(1), wide, sgn);
        llvm::Value* y = coerce(s(2), wide, sgn);
        llvm::Value* p = b.CreateMul(x, y);
        if (i.has(codegen::kWide)) {
          dst(i.ops.at(0), p, codegen::bits_type(2 * codegen::bits(t)));
          return true;
        }
        return d(b.CreateTrunc(b.CreateLShr(p, type_of(t)->getIntegerBitWidth()), type_of(t)));
      }
      return d(i.op == Op::Add ? b.CreateAdd(s(1), s(2)) : i.op == Op::Sub ? b.CreateSub(s(1), s(2)) : b.CreateMul(s(1), s(2)));
    }
    case Op::Mad:
    case Op::Fma:
      if (i.flags & (exotic | codegen::kHi | codegen::kWide)) return false;
      if (fp) {
        if (i.rnd != Round::Rn) return false;
        return d(b.CreateIntrinsic(llvm::Intrinsic::fma, {type_of(t)}, {s(1), s(2), s(3)}));
      }
      return d(b.CreateAdd(b.CreateMul(s(1), s(2)), s(3)));
    case Op::Div:
      if (i.flags & exotic) return false;
      if (fp) return i.rnd == Round::Rn && (t == Type::F32 || t == Type::F64) ? d(b.CreateFDiv(s(1), s(2))) : false;
      return d(sgn ? b.CreateSDiv(s(1), s(2)) : b.CreateUDiv(s(1), s(2)));
    case Op::Rem:
      if (fp) return false;
      return d(sgn ? b.CreateSRem(s(1), s(2)) : b.CreateURem(s(1), s(2)));
    case Op::Min:
    case Op::Max: {
      if (i.flags & exotic) return false;
      using llvm::Intrinsic::ID;
      const bool mn = i.op == Op::Min;
      const ID id = fp ? (mn ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum)
                       : sgn ? (mn ? llvm::Intrinsic::smin : llvm::Intrinsic::smax)
                             : (mn ? llvm::Intrinsic::umin : llvm::Intrinsic::umax);
      return d(b.CreateIntrinsic(id, {type_of(t)}, {s(1), s(2)}));
    }
    case Op::Neg:
      if (i.flags & exotic) return false;
      return d(fp ? b.CreateFNeg(s(1)) : b.CreateNeg(s(1)));
    case Op::Abs:
      if (i.flags & exotic) return false;
      if (fp) return d(b.CreateIntrinsic(llvm::Intrinsic::fabs, {type_of(t)}, {s(1)}));
      return d(b.CreateIntrinsic(llvm::Intrinsic::abs, {type_of(t)}, {s(1), b.getFalse()}));
    case Op::And:
      return d(b.CreateAnd(s(1), s(2)));
    case Op::Or:
      return d(b.CreateOr(s(1), s(2)));
    case Op::Xor:
      return d(b.CreateXor(s(1), s(2)));
    case Op::Not:
      return d(b.CreateNot(s(1)));
    case Op::Shl:
    case Op::Shr: {
      // PTX clamps a shift amount above the width (shl/shr.u give 0, shr.s the sign); LLVM calls
      // such a shift poison, so a register amount is clamped here. The amount is a u32.
      llvm::Type* ty = type_of(t);
      const unsigned w = ty->getIntegerBitWidth();
      const Operand& amount = i.ops.at(2);
      llvm::Value* n = coerce(src(amount, Type::U32), ty, false);
      llvm::Value* x = s(1);
      if (amount.kind == Operand::Kind::Imm) {
        if (amount.imm >= w) {
          if (i.op == Op::Shr && sgn) return d(b.CreateAShr(x, w - 1));
          return d(llvm::ConstantInt::get(ty, 0));
        }
        return d(i.op == Op::Shl ? b.CreateShl(x, n) : sgn ? b.CreateAShr(x, n) : b.CreateLShr(x, n));
      }
      llvm::Value* big = b.CreateICmpUGE(n, llvm::ConstantInt::get(ty, w));
      if (i.op == Op::Shr && sgn) {
        return d(b.CreateAShr(x, b.CreateSelect(big, llvm::ConstantInt::get(ty, w - 1), n)));
      }
      llvm::Value* v = i.op == Op::Shl ? b.CreateShl(x, n) : b.CreateLShr(x, n);
      return d(b.CreateSelect(big, llvm::ConstantInt::get(ty, 0), v));
    }
    case Op::Mov: {
      const Operand& to = i.ops.at(0);
      const Operand& from = i.ops.at(1);
      if (from.kind == Operand::Kind::Vec) {  // pack: mov.b32 %r, {%rs1, %rs2} (first element lowest)
        const unsigned n = static_cast<unsigned>(from.elems.size());
        const unsigned part = codegen::bits(t) / n;
        llvm::Value* v = llvm::ConstantInt::get(type_of(t), 0);
        for (unsigned j = 0; j < n; ++j) {
          llvm::Value* e = coerce(src(from.elems[j], codegen::bits_type(part)), type_of(t), false);
          v = b.CreateOr(v, j ? b.CreateShl(e, j * part) : e);
        }
        return d(v);
      }
      if (to.kind == Operand::Kind::Vec) {  // unpack: mov.b32 {%rs1, %rs2}, %r
        const unsigned n = static_cast<unsigned>(to.elems.size());
        const unsigned part = codegen::bits(t) / n;
        llvm::Value* v = s(1);
        for (unsigned j = 0; j < n; ++j) {
          llvm::Value* e = b.CreateTrunc(j ? b.CreateLShr(v, j * part) : v, b.getIntNTy(part));
          dst(to.elems[j], e, codegen::bits_type(part));
        }
        return true;
      }
      return d(s(1));
    }
    case Op::Selp:
      return d(b.CreateSelect(src(i.ops.at(3), Type::Pred), s(1), s(2)));
    case Op::Setp: {
      if (i.ops.at(0).kind != Operand::Kind::Reg || (i.flags & codegen::kFtz)) return false;
      llvm::Value* x = s(1);
      llvm::Value* y = s(2);
      llvm::Value* c = nullptr;
      using P = llvm::CmpInst::Predicate;
      if (fp) {
        // PTX's eq..ge are ordered comparisons: false where either operand is NaN.
        static const std::map<Cmp, P> f = {{Cmp::Eq, P::FCMP_OEQ}, {Cmp::Ne, P::FCMP_ONE}, {Cmp::Lt, P::FCMP_OLT},
                                           {Cmp::Le, P::FCMP_OLE}, {Cmp::Gt, P::FCMP_OGT}, {Cmp::Ge, P::FCMP_OGE}};
        auto it = f.find(i.cmp);
        if (it == f.end()) return false;
        c = b.CreateFCmp(it->second, x, y);
      } else {
        const bool s_cmp = sgn;
        P p;
        switch (i.cmp) {
          case Cmp::Eq: p = P::ICMP_EQ; break;
          case Cmp::Ne: p = P::ICMP_NE; break;
          case Cmp::Lt: p = s_cmp ? P::ICMP_SLT : P::ICMP_ULT; break;
          case Cmp::Le: p = s_cmp ? P::ICMP_SLE : P::ICMP_ULE; break;
          case Cmp::Gt: p = s_cmp ? P::ICMP_SGT : P::ICMP_UGT; break;
          case Cmp::Ge: p = s_cmp ? P::ICMP_SGE : P::ICMP_UGE; break;
          case Cmp::Lo: p = P::ICMP_ULT; break;
          case Cmp::Ls: p = P::ICMP_ULE; break;
          case Cmp::Hi: p = P::ICMP_UGT; break;
          case Cmp::Hs: p = P::ICMP_UGE; break;
          default: return false;
        }
        c = b.CreateICmp(p, x, y);
      }
      dst(i.ops.at(0), c, Type::Pred);
      return true;
    }
    case Op::Cvt: {
      if (i.flags & (codegen::kSat | codegen::kFtz)) return false;
      const Type from = i.type2;
      llvm::Value* x = src(i.ops.at(1), from);
      llvm::Type* ty = type_of(t);
      const bool from_fp = is_fp(from), to_fp = is_fp(t);
      if (!from_fp && !to_fp) {  // integer to integer: truncate or extend by the source's sign
        if (codegen::is_integer(t) && codegen::is_integer(from) && i.rnd == Round::None)
          return d(coerce(x, ty, codegen::is_signed(from)));
        return false;
      }
      if (from_fp && to_fp) {
        const unsigned fb = x->getType()->getPrimitiveSizeInBits(), tb = ty->getPrimitiveSizeInBits();
        if (x->getType()->isVectorTy() || ty->isVectorTy()) return false;
        if (tb > fb && i.rnd == Round::None) return d(b.CreateFPExt(x, ty));
        if (tb < fb && i.rnd == Round::Rn) return d(b.CreateFPTrunc(x, ty));
        return false;
      }
      if (from_fp) {  // float to integer: only the truncating form (.rzi) is fptosi/fptoui
        if (i.rnd != Round::Rzi || x->getType()->isVectorTy()) return false;
        return d(codegen::is_signed(t) ? b.CreateFPToSI(x, ty) : b.CreateFPToUI(x, ty));
      }
      if (i.rnd != Round::Rn || ty->isVectorTy()) return false;  // integer to float, round to nearest
      return d(codegen::is_signed(from) ? b.CreateSIToFP(x, ty) : b.CreateUIToFP(x, ty));
    }
    default:
      return false;
  }
}

}  // namespace tessel::codegen_llvm
