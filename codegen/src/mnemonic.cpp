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

std::string t(Type x) { return std::string(".") + ptx_name(x); }
std::string sp(Space s) { return std::string(".") + short_name(s); }
std::string vec(const Instr& i) { return i.vec > 1 ? ".v" + std::to_string(i.vec) : ""; }
std::string mods(const Instr& i) {
  std::string s;
  if (i.has(kLo)) s += ".lo";
  if (i.has(kHi)) s += ".hi";
  if (i.has(kWide)) s += ".wide";
  if (i.has(kApprox)) s += ".approx";
  s += name(i.rnd);
  if (i.has(kFtz)) s += ".ftz";
  if (i.has(kSat)) s += ".sat";
  return s;
}
std::string sem(const Instr& i) {
  std::string s;
  if (i.has(kRelease) && i.has(kAcquire)) s += ".acq_rel";  // atom's read-modify-write: both at once
  else if (i.has(kRelease)) s += ".release";
  else if (i.has(kAcquire)) s += ".acquire";
  if (i.has(kCluster)) s += ".cluster";
  return s;
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
std::string custom(const Instr& i, const std::string& root) {
  switch (i.op) {
    case Op::Cvt:
      return root + mods(i) + t(i.type) + t(i.type2);
    case Op::Cvta:
      return root + (i.has(kToGeneric) ? "" : ".to") + sp(i.space) + t(i.type);
    case Op::Setp:
      return root + name(i.cmp) + t(i.type);
    case Op::Ld:
      return root + sp(i.space) + ptx_suffix(i.cache) + (i.has(kNc) ? ".nc" : "") +
             (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") + (i.has(kL2Prefetch) ? ".L2::128B" : "") + vec(i) +
             t(i.type);
    case Op::St:
      return root + sp(i.space) + ptx_suffix(i.cache) + (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") + vec(i) +
             t(i.type);
    case Op::Atom:
    case Op::Red:
      return root + sem(i) + sp(i.space) + name(i.atom) + t(i.type);
    case Op::BarrierClusterArrive:
      return root + (i.has(kRelease) ? ".release" : "") + (i.has(kAligned) ? ".aligned" : "");
    case Op::BarrierClusterWait:
      return root + (i.has(kAcquire) ? ".acquire" : "") + (i.has(kAligned) ? ".aligned" : "");
    case Op::FenceProxyAsync:
      return root + (i.space == Space::None ? "" : std::string(".") + ptx_name(i.space));
    case Op::CpAsync:
      return root + ptx_suffix(i.cache) + ".shared.global";
    case Op::CpAsyncMbarArrive:
      return root + (i.has(kNoinc) ? ".noinc" : "") + ".shared::cta.b64";
    case Op::CpAsyncWait:
      return root + (i.n < 0 ? ".wait_all" : ".wait_group");
    case Op::TmaLoad:
      return root + "." + std::to_string(i.n) + "d.shared::cluster.global.mbarrier::complete_tx::bytes" +
             (i.has(kMulticast) ? ".multicast::cluster" : "");
    case Op::TmaStore:
      return root + "." + std::to_string(i.n) + "d.global.shared::cta.bulk_group";
    case Op::TmaPrefetch:
      return root + "." + std::to_string(i.n) + "d.L2.global.tile";
    case Op::BulkWait:
      return root + (i.has(kRead) ? ".read" : "");
    case Op::MbarArrive:
    case Op::MbarArriveExpectTx:
      return root + sem(i) + "." + ptx_name(i.space) + ".b64";
    case Op::MbarTryWait:
      return root + sem(i) + ".shared::cta.b64";
    case Op::Wgmma:
      return root + ".m64n" + std::to_string(i.n) + "k" + std::to_string(mma_k(i.type2)) + t(i.type) + t(i.type2) +
             t(i.type3);
    case Op::Setmaxnreg:
      return root + (i.has(kInc) ? ".inc" : ".dec") + ".sync.aligned.u32";
    case Op::Ldmatrix:
    case Op::Stmatrix:
      return root + ".m8n8.x" + std::to_string(i.n) + (i.has(kTrans) ? ".trans" : "") + ".shared.b16";
    case Op::MmaSync:
      return root + ".m16n8k" + std::to_string(mma_k(i.type2)) + ".row.col" + t(i.type) + t(i.type2) + t(i.type3) +
             t(i.type4);
    case Op::Shfl:
      return root + name(i.shfl) + ".b32";
    case Op::Bra:
      return root + (i.has(kUni) ? ".uni" : "");
    default:
      break;
  }
  fail(std::string("codegen: the instruction table spells ") + op_info(i.op).name +
       " as Custom, but mnemonic.cpp has no case for it");
}

}  // namespace

std::string mnemonic(const Instr& i) {
  const OpInfo& row = op_info(i.op);
  switch (row.spelling) {
    case Spelling::Root:
      return row.root;
    case Spelling::RootType:
      return row.root + t(i.type);
    case Spelling::RootModsType:
      return row.root + mods(i) + t(i.type);
    case Spelling::Custom:
      return custom(i, row.root);
  }
  fail(std::string("codegen: no spelling for instruction root ") + row.name);
}

}  // namespace tessel::codegen
