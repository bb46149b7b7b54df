// mnemonic.cpp: each instruction's mnemonic spelled from its fields, exactly as the PTX ISA
// writes it. One case per instruction root; the builder already chose every modifier.
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
  if (i.has(kRelease)) s += ".release";
  if (i.has(kAcquire)) s += ".acquire";
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

std::string mnemonic(const Instr& i) {
  switch (i.op) {
    case Op::Add:
      return "add" + mods(i) + t(i.type);
    case Op::Sub:
      return "sub" + mods(i) + t(i.type);
    case Op::Mul:
      return "mul" + mods(i) + t(i.type);
    case Op::Mad:
      return "mad" + mods(i) + t(i.type);
    case Op::Fma:
      return "fma" + mods(i) + t(i.type);
    case Op::Div:
      return "div" + mods(i) + t(i.type);
    case Op::Rem:
      return "rem" + t(i.type);
    case Op::Min:
      return "min" + mods(i) + t(i.type);
    case Op::Max:
      return "max" + mods(i) + t(i.type);
    case Op::Neg:
      return "neg" + mods(i) + t(i.type);
    case Op::Abs:
      return "abs" + mods(i) + t(i.type);
    case Op::And:
      return "and" + t(i.type);
    case Op::Or:
      return "or" + t(i.type);
    case Op::Xor:
      return "xor" + t(i.type);
    case Op::Not:
      return "not" + t(i.type);
    case Op::Shl:
      return "shl" + t(i.type);
    case Op::Shr:
      return "shr" + t(i.type);
    case Op::Mov:
      return "mov" + t(i.type);
    case Op::Cvt:
      return "cvt" + mods(i) + t(i.type) + t(i.type2);
    case Op::Cvta:
      return std::string("cvta") + (i.has(kToGeneric) ? "" : ".to") + sp(i.space) + t(i.type);
    case Op::Setp:
      return std::string("setp") + name(i.cmp) + t(i.type);
    case Op::Selp:
      return "selp" + t(i.type);
    case Op::Ld:
      return "ld" + sp(i.space) + ptx_suffix(i.cache) + (i.has(kNc) ? ".nc" : "") +
             (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") + (i.has(kL2Prefetch) ? ".L2::128B" : "") + vec(i) +
             t(i.type);
    case Op::St:
      return "st" + sp(i.space) + ptx_suffix(i.cache) + (i.has(kNoAllocL1) ? ".L1::no_allocate" : "") + vec(i) +
             t(i.type);
    case Op::Atom:
      return "atom" + sem(i) + sp(i.space) + name(i.atom) + t(i.type);
    case Op::Red:
      return "red" + sem(i) + sp(i.space) + name(i.atom) + t(i.type);
    case Op::BarSync:
      return "bar.sync";
    case Op::BarrierClusterArrive:
      return std::string("barrier.cluster.arrive") + (i.has(kRelease) ? ".release" : "") +
             (i.has(kAligned) ? ".aligned" : "");
    case Op::BarrierClusterWait:
      return std::string("barrier.cluster.wait") + (i.has(kAcquire) ? ".acquire" : "") +
             (i.has(kAligned) ? ".aligned" : "");
    case Op::FenceProxyAsync:
      return std::string("fence.proxy.async") + (i.space == Space::None ? "" : std::string(".") + ptx_name(i.space));
    case Op::FenceMbarrierInit:
      return "fence.mbarrier_init.release.cluster";
    case Op::CpAsync:
      return std::string("cp.async") + ptx_suffix(i.cache) + ".shared.global";
    case Op::CpAsyncCommit:
      return "cp.async.commit_group";
    case Op::CpAsyncWait:
      return i.n < 0 ? "cp.async.wait_all" : "cp.async.wait_group";
    case Op::TmaLoad:
      return "cp.async.bulk.tensor." + std::to_string(i.n) + "d.shared::cluster.global.mbarrier::complete_tx::bytes" +
             (i.has(kMulticast) ? ".multicast::cluster" : "");
    case Op::TmaStore:
      return "cp.async.bulk.tensor." + std::to_string(i.n) + "d.global.shared::cta.bulk_group";
    case Op::BulkCommit:
      return "cp.async.bulk.commit_group";
    case Op::BulkWait:
      return std::string("cp.async.bulk.wait_group") + (i.has(kRead) ? ".read" : "");
    case Op::MbarInit:
      return "mbarrier.init.shared::cta.b64";
    case Op::MbarArrive:
      return "mbarrier.arrive" + sem(i) + "." + ptx_name(i.space) + ".b64";
    case Op::MbarArriveExpectTx:
      return "mbarrier.arrive.expect_tx" + sem(i) + "." + ptx_name(i.space) + ".b64";
    case Op::MbarTryWait:
      return "mbarrier.try_wait.parity" + sem(i) + ".shared::cta.b64";
    case Op::Mapa:
      return "mapa.shared::cluster" + t(i.type);
    case Op::WgmmaFence:
      return "wgmma.fence.sync.aligned";
    case Op::Wgmma:
      return "wgmma.mma_async.sync.aligned.m64n" + std::to_string(i.n) + "k" + std::to_string(mma_k(i.type2)) +
             t(i.type) + t(i.type2) + t(i.type3);
    case Op::WgmmaCommit:
      return "wgmma.commit_group.sync.aligned";
    case Op::WgmmaWait:
      return "wgmma.wait_group.sync.aligned";
    case Op::Setmaxnreg:
      return std::string("setmaxnreg") + (i.has(kInc) ? ".inc" : ".dec") + ".sync.aligned.u32";
    case Op::Ldmatrix:
      return "ldmatrix.sync.aligned.m8n8.x" + std::to_string(i.n) + (i.has(kTrans) ? ".trans" : "") + ".shared.b16";
    case Op::Stmatrix:
      return "stmatrix.sync.aligned.m8n8.x" + std::to_string(i.n) + (i.has(kTrans) ? ".trans" : "") + ".shared.b16";
    case Op::MmaSync:
      return "mma.sync.aligned.m16n8k" + std::to_string(mma_k(i.type2)) + ".row.col" + t(i.type) + t(i.type2) +
             t(i.type3) + t(i.type4);
    case Op::ElectSync:
      return "elect.sync";
    case Op::Shfl:
      return std::string("shfl.sync") + name(i.shfl) + ".b32";
    case Op::Label:
      return "";
    case Op::Bra:
      return i.has(kUni) ? "bra.uni" : "bra";
    case Op::Ret:
      return "ret";
  }
  fail("codegen: no mnemonic for instruction root " + std::to_string(static_cast<int>(i.op)));
}

}  // namespace tessel::codegen
