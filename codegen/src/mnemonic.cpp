// mnemonic.cpp: each instruction's mnemonic spelled from its fields, exactly as the PTX ISA
// writes it: the root and the spelling from its row of the instruction table (op_table.hpp), one
// case per Custom spelling here. The builder already chose every modifier.
#include <string>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen {

namespace {

const char* name(Cmp c) {
  switch (c) {
    case Cmp::None:
      return "";
    case Cmp::Eq:
      return ".eq";
    case Cmp::Ne:
      return ".ne";
    case Cmp::Lt:
      return ".lt";
    case Cmp::Le:
      return ".le";
    case Cmp::Gt:
      return ".gt";
    case Cmp::Ge:
      return ".ge";
    case Cmp::Lo:
      return ".lo";
    case Cmp::Ls:
      return ".ls";
    case Cmp::Hi:
      return ".hi";
    case Cmp::Hs:
      return ".hs";
  }
  return "";
}

const char* name(Round r) {
  switch (r) {
    case Round::None:
      return "";
    case Round::Rn:
      return ".rn";
    case Round::Rz:
      return ".rz";
    case Round::Rm:
      return ".rm";
    case Round::Rp:
      return ".rp";
    case Round::Rni:
      return ".rni";
    case Round::Rzi:
      return ".rzi";
    case Round::Rmi:
      return ".rmi";
    case Round::Rpi:
      return ".rpi";
  }
  return "";
}

const char* name(AtomOp a) {
  switch (a) {
    case AtomOp::None:
      return "";
    case AtomOp::Add:
      return ".add";
    case AtomOp::Min:
      return ".min";
    case AtomOp::Max:
      return ".max";
    case AtomOp::Inc:
      return ".inc";
    case AtomOp::Dec:
      return ".dec";
    case AtomOp::And:
      return ".and";
    case AtomOp::Or:
      return ".or";
    case AtomOp::Xor:
      return ".xor";
    case AtomOp::Exch:
      return ".exch";
    case AtomOp::Cas:
      return ".cas";
  }
  return "";
}

const char* name(ShflMode m) {
  switch (m) {
    case ShflMode::None:
      return "";
    case ShflMode::Up:
      return ".up";
    case ShflMode::Down:
      return ".down";
    case ShflMode::Bfly:
      return ".bfly";
    case ShflMode::Idx:
      return ".idx";
  }
  return "";
}

// The mnemonic is appended piece by piece to one string (the printer's output, for every
// instruction): Spell's << takes the pieces, and the small tags below spell a field.
struct Spell {
  std::string& s;
  Spell& operator<<(const char* x) {
    s += x;
    return *this;
  }
  Spell& operator<<(const std::string& x) {
    s += x;
    return *this;
  }
  Spell& operator<<(int x) {
    s += std::to_string(x);
    return *this;
  }
};
struct T {  // `.type`
  Type x;
};
struct Sp {  // `.space` as ld/st spell it
  Space x;
};
struct Vec {  // `.v2`, `.v4`, or nothing
  const Instr& i;
};
struct Mods {  // .lo .hi .wide .approx rounding .ftz .sat
  const Instr& i;
};
struct Sem {  // .acq_rel / .release / .acquire, then .cluster
  const Instr& i;
};
Spell& operator<<(Spell& o, T t) { return o << "." << ptx_name(t.x); }
Spell& operator<<(Spell& o, Sp sp) { return o << "." << short_name(sp.x); }
Spell& operator<<(Spell& o, Vec v) { return v.i.vec > 1 ? o << ".v" << static_cast<int>(v.i.vec) : o; }
Spell& operator<<(Spell& o, Mods m) {
  const Instr& i = m.i;
  if (i.has(kLo)) o << ".lo";
  if (i.has(kHi)) o << ".hi";
  if (i.has(kWide)) o << ".wide";
  if (i.has(kApprox)) o << ".approx";
  o << name(i.rnd);
  if (i.has(kFtz)) o << ".ftz";
  if (i.has(kSat)) o << ".sat";
  return o;
}
Spell& operator<<(Spell& o, Sem m) {
  const Instr& i = m.i;
  if (i.has(kRelease) && i.has(kAcquire)) o << ".acq_rel";  // atom's read-modify-write: both at once
  else if (i.has(kRelease)) o << ".release";
  else if (i.has(kAcquire)) o << ".acquire";
  if (i.has(kCluster)) o << ".cluster";
  return o;
}
// The K of an MMA shape: 32 bytes of A per row (PTX ISA, wgmma / mma "Matrix shape").
int mma_k(Type a) {
  switch (a) {
    case Type::TF32:
      return 8;
    case Type::E4M3:
    case Type::E5M2:
    case Type::S8:
    case Type::U8:
      return 32;
    case Type::F64:
      return 4;
    default:
      return 16;
  }
}

}  // namespace

const char* ptx_suffix(Cache c) {
  switch (c) {
    case Cache::None:
      return "";
    case Cache::Ca:
      return ".ca";
    case Cache::Cg:
      return ".cg";
    case Cache::Cs:
      return ".cs";
    case Cache::Lu:
      return ".lu";
    case Cache::Cv:
      return ".cv";
    case Cache::Wb:
      return ".wb";
    case Cache::Wt:
      return ".wt";
  }
  return "";
}

namespace {

// The instructions whose row says Spelling::Custom: the root, then modifiers the other spellings
// do not cover (spaces, vectors, shapes, cache operators, ...).
void custom(Spell& o, const Instr& i, const char* root) {
  switch (i.op) {
    case Op::Cvt:
      o << root << Mods{i} << T{i.type} << T{i.type2};
      return;
    case Op::Cvta:
      o << root << (i.has(kToGeneric) ? "" : ".to") << Sp{i.space} << T{i.type};
      return;
    case Op::Setp:
      o << root << name(i.cmp) << T{i.type};
      return;
    case Op::Ld:
      o << root << Sp{i.space} << ptx_suffix(i.cache) << (i.has(kNc) ? ".nc" : "")
        << (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") << (i.has(kL2Prefetch) ? ".L2::128B" : "") << Vec{i}
        << T{i.type};
      return;
    case Op::St:
      o << root << Sp{i.space} << ptx_suffix(i.cache) << (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") << Vec{i}
        << T{i.type};
      return;
    case Op::Atom:
    case Op::Red:
      o << root << Sem{i} << Sp{i.space} << name(i.atom) << T{i.type};
      return;
    case Op::BarrierClusterArrive:
      o << root << (i.has(kRelease) ? ".release" : "") << (i.has(kRelaxed) ? ".relaxed" : "")
        << (i.has(kAligned) ? ".aligned" : "");
      return;
    case Op::BarrierClusterWait:
      o << root << (i.has(kAcquire) ? ".acquire" : "") << (i.has(kAligned) ? ".aligned" : "");
      return;
    case Op::FenceProxyAsync:
      o << root;
      if (i.space != Space::None) o << "." << ptx_name(i.space);
      return;
    case Op::CpAsync:
      o << root << ptx_suffix(i.cache) << ".shared.global";
      return;
    case Op::CpAsyncMbarArrive:
      o << root << (i.has(kNoinc) ? ".noinc" : "") << ".shared::cta.b64";
      return;
    case Op::CpAsyncWait:
      o << root << (i.n < 0 ? ".wait_all" : ".wait_group");
      return;
    case Op::TmaLoad:
      o << root << "." << i.n << "d.shared::cluster.global.mbarrier::complete_tx::bytes"
        << (i.has(kMulticast) ? ".multicast::cluster" : "");
      return;
    case Op::TmaStore:
      o << root << "." << i.n << "d.global.shared::cta.bulk_group";
      return;
    case Op::TmaPrefetch:
      o << root << "." << i.n << "d.L2.global.tile";
      return;
    case Op::BulkWait:
      o << root << (i.has(kRead) ? ".read" : "");
      return;
    case Op::MbarArrive:
    case Op::MbarArriveExpectTx:
      o << root << Sem{i} << "." << ptx_name(i.space) << ".b64";
      return;
    case Op::MbarTryWait:
      o << root << Sem{i} << ".shared::cta.b64";
      return;
    case Op::Wgmma:
      o << root << ".m64n" << i.n << "k" << mma_k(i.type2) << T{i.type} << T{i.type2} << T{i.type3};
      return;
    case Op::Setmaxnreg:
      o << root << (i.has(kInc) ? ".inc" : ".dec") << ".sync.aligned.u32";
      return;
    case Op::Ldmatrix:
    case Op::Stmatrix:
      o << root << ".m8n8.x" << i.n << (i.has(kTrans) ? ".trans" : "") << ".shared.b16";
      return;
    case Op::MmaSync:
      o << root << ".m16n8k" << mma_k(i.type2) << ".row.col" << T{i.type} << T{i.type2} << T{i.type3}
        << T{i.type4};
      return;
    case Op::Shfl:
      o << root << name(i.shfl) << ".b32";
      return;
    case Op::Bra:
      o << root << (i.has(kUni) ? ".uni" : "");
      return;
    default:
      break;
  }
  fail(std::string("codegen: the instruction table spells ") + op_info(i.op).name +
       " as Custom, but mnemonic.cpp has no case for it");
}

}  // namespace

// Reads only op, type..type4, space, vec, cmp, rnd, cache, atom, shfl, flags and n: the printer
// spells each distinct combination once (MnemonicCache in print.cpp keys on exactly these; a
// field read here must go into that key too).
void append_mnemonic(std::string& out, const Instr& i) {
  const OpInfo& row = op_info(i.op);
  Spell o{out};
  switch (row.spelling) {
    case Spelling::Root:
      o << row.root;
      return;
    case Spelling::RootType:
      o << row.root << T{i.type};
      return;
    case Spelling::RootModsType:
      o << row.root << Mods{i} << T{i.type};
      return;
    case Spelling::Custom:
      custom(o, i, row.root);
      return;
  }
  fail(std::string("codegen: no spelling for instruction root ") + row.name);
}

std::string mnemonic(const Instr& i) {
  std::string s;
  append_mnemonic(s, i);
  return s;
}

}  // namespace tessel::codegen
