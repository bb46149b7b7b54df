// program.cpp: decoding of a legalized kernel into the compact form the interpreter runs.
#include "program.hpp"

#include <bit>
#include <map>

#include "alu.hpp"
#include "float.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/legalize.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::emu::detail {

using namespace codegen;

std::string Program::text(const Decoded& d) const { return print_instr(*kernel, instrs.at(d.index)); }

namespace {

uint64_t class_mask(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return 1;
    case RegClass::B16:
      return 0xffff;
    case RegClass::B32:
    case RegClass::F32:
      return 0xffffffff;
    case RegClass::B64:
    case RegClass::F64:
      return ~uint64_t{0};
  }
  return ~uint64_t{0};
}

uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// What the emulator does with an instruction, from its emulator class (codegen/op_table.hpp).
// The Nop class: without a register allocator, register-count hints change nothing it models (nor
// does fence.mbarrier_init, the mbarriers being exact, nor wgmma.fence, wgmma reading its
// registers when its group is waited for, nor an L2 prefetch of a tensor box, the emulator having
// no caches). TMA loads complete when they are issued (legal: their
// results may only be used after the mbarrier says so); TMA stores and wgmma are held until their
// group is waited for (block.hpp). Memory accesses and address conversions are refused in the
// state spaces it does not model.
Exec exec_of(const Instr& i, EmulatorClass c) {
  switch (c) {
    case EmulatorClass::Nop:
      return Exec::Nop;
    case EmulatorClass::Unsupported:
      return Exec::Unsupported;
    case EmulatorClass::Memory:
    case EmulatorClass::Address:
      if (i.space == Space::Local || i.space == Space::Const || i.space == Space::SharedCluster) return Exec::Unsupported;
      return Exec::Normal;
    default:
      return Exec::Normal;
  }
}

struct Decoder {
  const Kernel& k;
  Program& p;
  std::map<std::string, uint32_t> labels;
  std::map<std::string, uint64_t> symbols;  // shared arrays and parameters -> their address

  [[noreturn]] void bad(const Instr& i, const std::string& why) {
    fail("emulator: " + k.name + ": cannot decode `" + print_instr(k, i) + "`: " + why);
  }

  uint32_t special_slot(const Instr& i, const std::string& name) {
    for (int s = 0; s <= static_cast<int>(Special::DynamicSmemSize); ++s) {
      if (name != ptx_name(static_cast<Special>(s))) continue;
      for (size_t j = 0; j < p.specials.size(); ++j) {
        if (p.specials[j] == static_cast<Special>(s)) return p.nregs + static_cast<uint32_t>(j);
      }
      p.specials.push_back(static_cast<Special>(s));
      return p.nregs + static_cast<uint32_t>(p.specials.size() - 1);
    }
    bad(i, "special register " + name + " is not emulated yet");
  }

  // An immediate of an instruction of type t: integers as they are, floats as t's bits.
  uint64_t immediate(const Operand& o, Type t) {
    if (o.kind == Operand::Kind::Imm) {
      if (!is_float(t)) return static_cast<uint64_t>(o.imm);
      return codegen::encode(number_format(t), static_cast<double>(o.imm));
    }
    // FImm: the literal is f32 or f64 bits; convert when the instruction's type differs.
    const double v = o.type == Type::F32 ? std::bit_cast<float>(static_cast<uint32_t>(o.imm))
                                         : std::bit_cast<double>(static_cast<uint64_t>(o.imm));
    if (t == o.type || !is_float(t)) return static_cast<uint64_t>(o.imm);
    return codegen::encode(number_format(t), v);
  }

  Src src(const Instr& i, const Operand& o, Type t) {
    Src s;
    switch (o.kind) {
      case Operand::Kind::Reg:
        s.slot = static_cast<uint32_t>(o.reg);
        return s;
      case Operand::Kind::Imm:
      case Operand::Kind::FImm:
        s.imm = true;
        s.value = immediate(o, t);
        return s;
      case Operand::Kind::Special:
        s.slot = special_slot(i, o.name);
        return s;
      case Operand::Kind::Symbol: {
        auto it = symbols.find(o.name);
        if (it == symbols.end()) bad(i, "symbol " + o.name + " is neither a parameter nor a shared array");
        s.imm = true;
        s.value = it->second;
        return s;
      }
      default:
        bad(i, "an operand of this kind cannot be read here");
    }
  }

  void dst(const Instr& i, Decoded& d, const Operand& o) {
    switch (o.kind) {
      case Operand::Kind::Reg:
        d.dst[d.ndst++] = o.reg;
        return;
      case Operand::Kind::Sink:
        d.dst[d.ndst++] = -1;
        return;
      case Operand::Kind::Pair:
      case Operand::Kind::Vec:
        if (o.elems.size() > 4) bad(i, "more than 4 destinations");
        for (const Operand& e : o.elems) dst(i, d, e);
        return;
      default:
        bad(i, "a destination must be a register");
    }
  }

  void sources(const Instr& i, Decoded& d, size_t from, Type t) {
    for (size_t j = from; j < i.ops.size(); ++j) {
      const Operand& o = i.ops[j];
      if (o.kind == Operand::Kind::Vec) {
        for (const Operand& e : o.elems) add_src(i, d, e, t);
      } else {
        add_src(i, d, o, t);
      }
    }
  }

  void add_src(const Instr& i, Decoded& d, const Operand& o, Type t) {
    if (d.nsrc >= d.src.size()) bad(i, "more than " + std::to_string(d.src.size()) + " source operands");
    d.src[d.nsrc++] = src(i, o, t);
  }

  void address(const Instr& i, Decoded& d, const Operand& o) {
    if (o.kind != Operand::Kind::Addr || o.elems.size() != 1) bad(i, "a memory operand must be [base+offset]");
    add_src(i, d, o.elems[0], Type::U64);
    d.offset = o.imm;
  }

  // An address operand [base+offset] as one source: the offset folds into an immediate base; a
  // register base must come without an offset (codegen emits none on these instructions).
  void address_src(const Instr& i, Decoded& d, const Operand& o) {
    if (o.kind != Operand::Kind::Addr || o.elems.empty()) bad(i, "expected a memory operand [base]");
    add_src(i, d, o.elems[0], Type::U64);
    Src& s = d.src[d.nsrc - 1];
    if (o.imm != 0) {
      if (!s.imm) bad(i, "an offset on this address is not emulated");
      s.value += static_cast<uint64_t>(o.imm);
    }
  }

  // The tensor coordinates of [tensor_map, {c0, ...}]: rank Instr::n, s32 each.
  void coords(const Instr& i, Decoded& d, const Operand& o) {
    if (o.kind != Operand::Kind::Addr || o.elems.size() != 2 || o.elems[1].kind != Operand::Kind::Vec)
      bad(i, "the tensor operand must be [tensor_map, {c0, ...}]");
    const auto& c = o.elems[1].elems;
    if (c.size() != static_cast<size_t>(i.n) || c.empty() || c.size() > 5) bad(i, "the rank and the coordinates disagree");
    for (const Operand& e : c) add_src(i, d, e, Type::S32);
  }

  Decoded instr(const Instr& i, uint32_t index) {
    Decoded d;
    d.op = i.op;
    d.type = i.type;
    d.type2 = i.type2;
    d.rtype = result_type(i);
    d.space = i.space;
    d.cmp = i.cmp;
    d.rnd = i.rnd;
    d.atom = i.atom;
    d.shfl = i.shfl;
    d.flags = i.flags;
    d.guard = i.guard;
    d.guard_negated = i.guard_negated;
    d.index = index;
    d.n = i.n;
    d.type3 = i.type3;
    // legalize() has checked the operands against the row's signature: their count and kinds.
    const OpInfo& row = op_info(i.op);
    d.cls = row.emulator;
    d.exec = exec_of(i, d.cls);
    if (d.exec != Exec::Normal) return d;
    switch (i.op) {
      case Op::Ld:
        dst(i, d, i.ops[0]);
        address(i, d, i.ops[1]);
        if (d.ndst != i.vec) bad(i, "the vector width and the destinations disagree");
        break;
      case Op::St:
        address(i, d, i.ops[0]);
        sources(i, d, 1, i.type);
        if (d.nsrc != 1 + i.vec) bad(i, "the vector width and the sources disagree");
        break;
      case Op::Atom:
        dst(i, d, i.ops[0]);
        address(i, d, i.ops[1]);
        sources(i, d, 2, i.type);
        break;
      case Op::Red:
        address(i, d, i.ops[0]);
        sources(i, d, 1, i.type);
        break;
      case Op::Mov:
        dst(i, d, i.ops[0]);
        d.pack = i.ops[1].kind == Operand::Kind::Vec;
        sources(i, d, 1, d.pack ? Type::B32 : i.type);
        break;
      case Op::Cvt:
        dst(i, d, i.ops[0]);
        sources(i, d, 1, i.type2);
        break;
      case Op::Shl:
      case Op::Shr:
        dst(i, d, i.ops[0]);
        add_src(i, d, i.ops[1], i.type);
        add_src(i, d, i.ops[2], Type::U32);
        break;
      case Op::Mul:
      case Op::Mad:
        dst(i, d, i.ops[0]);
        sources(i, d, 1, i.type);
        // mad.wide: c is as wide as the result.
        if (i.op == Op::Mad && i.has(kWide) && d.nsrc == 3 && d.src[2].imm) {
          d.src[2] = src(i, i.ops[3], is_signed(i.type) ? Type::S64 : Type::U64);
        }
        break;
      case Op::Selp:
        dst(i, d, i.ops[0]);
        add_src(i, d, i.ops[1], i.type);
        add_src(i, d, i.ops[2], i.type);
        add_src(i, d, i.ops[3], Type::Pred);
        break;
      case Op::Shfl:
        dst(i, d, i.ops[0]);
        sources(i, d, 1, Type::B32);
        break;
      case Op::ElectSync:
        dst(i, d, i.ops[0]);
        sources(i, d, 1, Type::B32);
        if (d.ndst != 2) bad(i, "elect.sync writes d|p");
        break;
      case Op::BarSync:
        sources(i, d, 0, Type::U32);
        break;
      case Op::WgmmaWait:  // N, an immediate
        if (i.ops[0].kind != Operand::Kind::Imm) bad(i, "the pending-group count is not an immediate");
        d.n = static_cast<int32_t>(i.ops[0].imm);
        break;
      case Op::BulkWait:  // N, an immediate (Decoded::n)
        break;
      case Op::CpAsync:  // [dst], [src], bytes{, src-size}: src = dst, src{, src-size}; n = bytes
        address_src(i, d, i.ops[0]);
        address_src(i, d, i.ops[1]);
        if (i.ops[2].kind != Operand::Kind::Imm) bad(i, "the copy size is not an immediate");
        d.n = static_cast<int32_t>(i.ops[2].imm);
        if (i.ops.size() > 3) add_src(i, d, i.ops[3], Type::U32);
        break;
      case Op::CpAsyncWait:  // wait_group N (an immediate) or wait_all (Instr::n = -1)
        if (i.n >= 0) {
          if (i.ops.empty() || i.ops[0].kind != Operand::Kind::Imm) bad(i, "the pending-group count is not an immediate");
          d.n = static_cast<int32_t>(i.ops[0].imm);
        }
        break;
      case Op::CpAsyncMbarArrive:  // [mbar]
        address(i, d, i.ops[0]);
        break;
      case Op::Bra: {
        auto it = labels.find(i.ops[0].name);
        if (it == labels.end()) bad(i, "label " + i.ops[0].name + " is never defined");
        d.target = it->second;
        break;
      }
      case Op::MbarInit:  // [addr], count
        address(i, d, i.ops[0]);
        add_src(i, d, i.ops[1], Type::U32);
        break;
      case Op::MbarArrive:  // state, [addr]
        dst(i, d, i.ops[0]);
        address(i, d, i.ops[1]);
        break;
      case Op::MbarArriveExpectTx:  // state, [addr], tx
      case Op::MbarTryWait:         // done, [addr], parity
        dst(i, d, i.ops[0]);
        address(i, d, i.ops[1]);
        add_src(i, d, i.ops[2], Type::U32);
        break;
      case Op::Mapa:  // d, addr, rank
        dst(i, d, i.ops[0]);
        add_src(i, d, i.ops[1], i.type);
        add_src(i, d, i.ops[2], Type::U32);
        break;
      case Op::TmaLoad:  // [dst], [tmap, {c...}], [mbar]{, cta_mask}: src = dst, tmap, mbar, c..., mask
        address_src(i, d, i.ops[0]);
        address_src(i, d, i.ops[1]);
        address_src(i, d, i.ops[2]);
        coords(i, d, i.ops[1]);
        if (i.has(kMulticast)) {
          if (i.ops.size() < 4) bad(i, "a multicast load needs its CTA mask");
          add_src(i, d, i.ops[3], Type::U16);
        }
        break;
      case Op::TmaStore:  // [tmap, {c...}], [src]: src = src, tmap, (unused), c...
        address_src(i, d, i.ops[1]);
        address_src(i, d, i.ops[0]);
        add_src(i, d, Operand::i(0), Type::U64);
        coords(i, d, i.ops[0]);
        break;
      case Op::Ldmatrix:  // {r...}, [addr]
        dst(i, d, i.ops[0]);
        address(i, d, i.ops[1]);
        if (d.ndst != i.n) bad(i, "the matrix count and the destinations disagree");
        break;
      case Op::Stmatrix:  // [addr], {r...}
        address(i, d, i.ops[0]);
        sources(i, d, 1, Type::B32);
        if (d.nsrc != 1 + i.n) bad(i, "the matrix count and the sources disagree");
        break;
      case Op::Wgmma: {
        // {d...}, a-desc | {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}
        // src = a-desc, b-desc, scale-d, scale-a, scale-b, trans-a, trans-b (absent ones: 0).
        if (i.ops[0].kind != Operand::Kind::Vec) bad(i, "the accumulators must be a vector");
        RegList list;
        for (const Operand& e : i.ops[0].elems) {
          if (e.kind != Operand::Kind::Reg) bad(i, "an accumulator must be a register");
          list.acc.push_back(e.reg);
        }
        const bool reg_a = i.has(kRegA);
        if (reg_a) {
          if (i.ops[1].kind != Operand::Kind::Vec || i.ops[1].elems.size() != 4) bad(i, "A from registers is 4 registers");
          for (const Operand& e : i.ops[1].elems) list.a.push_back(src(i, e, Type::B32));
          add_src(i, d, Operand::i(0), Type::U64);
        } else {
          add_src(i, d, i.ops[1], Type::U64);
        }
        add_src(i, d, i.ops[2], Type::U64);
        add_src(i, d, i.ops[3], Type::Pred);
        add_src(i, d, i.ops[4], Type::S32);
        add_src(i, d, i.ops[5], Type::S32);
        if (reg_a) add_src(i, d, Operand::i(0), Type::S32);
        for (size_t j = 6; j < i.ops.size(); ++j) add_src(i, d, i.ops[j], Type::S32);
        while (d.nsrc < 7) add_src(i, d, Operand::i(0), Type::S32);
        d.list = static_cast<uint32_t>(p.lists.size());
        p.lists.push_back(std::move(list));
        break;
      }
      default:
        if (row.signature.count == 0) break;  // nothing to read: fences, barriers, commits, ret
        // Arithmetic, logic, setp, cvta: destinations, then sources of the instruction type.
        if (d.cls != EmulatorClass::Alu && d.cls != EmulatorClass::Address) {
          bad(i, std::string("the decoder has no case for ") + row.name + " (emulator/src/program.cpp)");
        }
        dst(i, d, i.ops[0]);
        sources(i, d, 1, i.type);
        break;
    }
    return d;
  }
};

}  // namespace

Program decode(const Kernel& k, unsigned dynamic_shared_bytes) {
  Program p;
  p.kernel = &k;
  p.instrs = legalize(k);
  p.nregs = static_cast<uint32_t>(k.regs.size());

  // Parameters, each at its natural alignment (a TMA descriptor at 64), in declaration order.
  Decoder dec{k, p, {}, {}};
  uint32_t at = 0;
  for (const Param& q : k.params) {
    const uint32_t bytes = q.kind == Param::Kind::TensorMap ? 128
                           : q.kind == Param::Kind::Pointer ? 8
                                                            : codegen::bytes(q.type);
    const uint32_t align = q.kind == Param::Kind::TensorMap ? 64 : bytes;
    at = align_up(at, align);
    p.params.push_back(ParamSlot{q.name, at, bytes});
    dec.symbols[q.name] = at;
    at += bytes;
  }
  p.param_bytes = at;

  // Shared arrays: the static ones in declaration order, then the dynamic one.
  uint32_t end = kSharedBase;
  for (int pass = 0; pass < 2; ++pass) {
    for (const SharedAlloc& a : k.shared) {
      if (a.dynamic != (pass == 1)) continue;
      end = align_up(end, static_cast<uint32_t>(std::max(a.align, 1)));
      const uint32_t bytes = a.dynamic ? dynamic_shared_bytes : static_cast<uint32_t>(a.bytes);
      p.shared.push_back(SharedArray{a.name, end, bytes, a.dynamic});
      dec.symbols[a.name] = end;
      end += bytes;
    }
  }
  p.shared_end = end;

  uint32_t n = 0;
  for (const Instr& i : p.instrs) {
    if (i.op == Op::Label) {
      dec.labels[i.ops.at(0).name] = n;
    } else {
      ++n;
    }
  }
  for (uint32_t j = 0; j < p.instrs.size(); ++j) {
    if (p.instrs[j].op != Op::Label) p.code.push_back(dec.instr(p.instrs[j], j));
  }
  p.nslots = p.nregs + static_cast<uint32_t>(p.specials.size());
  p.slot_mask.resize(p.nslots, 0xffffffff);
  for (uint32_t r = 0; r < p.nregs; ++r) p.slot_mask[r] = class_mask(k.regs[r].cls);
  return p;
}

}  // namespace tessel::emu::detail
