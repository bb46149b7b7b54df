// mbarrier.cpp: mbarrier init, arrive, arrive.expect_tx, try_wait.parity and the wait loop, and
// mapa for arrivals on other CTAs of a cluster (see mbarrier.hpp for the rules).
#include "tessel/codegen/mbarrier.hpp"

#include <string>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

namespace {

constexpr int64_t kMaxCount = (int64_t{1} << 20) - 1;  // PTX ISA 9.0 §9.7.13.15.2

void check_address(const char* fn, Value addr) {
  const Type t = addr.type();
  if (t != Type::U32 && t != Type::B32 && t != Type::U64 && t != Type::B64) {
    fail(std::string(fn) + ": the mbarrier address is a " + ptx_name(t) + " value (a shared address is u32 or u64)");
  }
}

void check_int32(const char* fn, const char* what, Value v) {
  if (v.type() != Type::U32 && v.type() != Type::S32 && v.type() != Type::B32) {
    fail(std::string(fn) + ": " + what + " is a " + ptx_name(v.type()) + " value (a 32-bit integer)");
  }
}

void check_rank(const char* fn, int cta_rank) {
  if (cta_rank < 0 || cta_rank > 15)
    fail(std::string(fn) + ": CTA rank " + std::to_string(cta_rank) + " is not in [0, 15]");
}

void check_parity(const char* fn, int parity) {
  if (parity != 0 && parity != 1) fail(std::string(fn) + ": parity " + std::to_string(parity) + " is not 0 or 1");
}

Instr make(Op op, Space space, Operand state, Value addr) {
  Instr i;
  i.op = op;
  i.space = space;
  i.type = Type::B64;
  i.set_ops(std::move(state), Operand::addr(addr.op()));
  return i;
}

Value mapa_operand(KernelBuilder& b, Value addr, Operand rank) {
  Instr i;
  i.op = Op::Mapa;
  i.type = bits(addr.type()) == 64 ? Type::U64 : Type::U32;
  Value d = b.reg(addr.type());
  i.set_ops(d.op(), addr.op(), std::move(rank));
  b.emit(std::move(i));
  return d;
}

// The arrive on a barrier of any CTA of the cluster: no state comes back (the sink `_`). The
// default semantics (.release at CTA scope), as CUTLASS's ClusterBarrier::arrive(cta_id) has it:
// `.release.cluster` made ptxas put a MEMBAR.ALL.GPU and two error barriers before every arrive,
// and the consumers of a clustered GEMM then spent 62% of their stall samples there (ncu on an
// H100, 2026-11-24: the 2x1-cluster kernel 2.3x slower than its tile without a cluster). What the
// arrive orders is the consumers' reads of a stage (wgmma, finished by its wait) before the peer's
// TMA overwrites it; no data flows through it.
void arrive_remote(KernelBuilder& b, Value remote) {
  Instr i = make(Op::MbarArrive, Space::SharedCluster, Operand::sink(), remote);
  b.emit(std::move(i));
}

Value try_wait(KernelBuilder& b, Value addr, Operand parity) {
  Value done = b.reg(Type::Pred);
  Instr i = make(Op::MbarTryWait, Space::Shared, done.op(), addr);
  i.ops.push_back(std::move(parity));
  b.emit(std::move(i));
  return done;
}

}  // namespace

void mbarrier_init(KernelBuilder& b, Value addr, int64_t count) {
  check_address("mbarrier_init", addr);
  if (count < 1 || count > kMaxCount) {
    fail("mbarrier_init: arrival count " + std::to_string(count) + " is not in [1, 2^20 - 1]");
  }
  Instr i;
  i.op = Op::MbarInit;
  i.space = Space::Shared;
  i.type = Type::B64;
  i.set_ops(Operand::addr(addr.op()), Operand::i(count));
  b.emit(std::move(i));
}

Value mbarrier_arrive(KernelBuilder& b, Value addr) {
  check_address("mbarrier_arrive", addr);
  Value state = b.reg(Type::B64);
  b.emit(make(Op::MbarArrive, Space::Shared, state.op(), addr));
  return state;
}

Value mapa(KernelBuilder& b, Value addr, Value cta_rank) {
  check_address("mapa", addr);
  check_int32("mapa", "the CTA rank", cta_rank);
  return mapa_operand(b, addr, cta_rank.op());
}

Value mapa(KernelBuilder& b, Value addr, int cta_rank) {
  check_address("mapa", addr);
  check_rank("mapa", cta_rank);
  return mapa_operand(b, addr, Operand::i(cta_rank));
}

void mbarrier_arrive_cluster(KernelBuilder& b, Value addr, Value cta_rank) {
  check_address("mbarrier_arrive_cluster", addr);
  check_int32("mbarrier_arrive_cluster", "the CTA rank", cta_rank);
  arrive_remote(b, mapa_operand(b, addr, cta_rank.op()));
}

void mbarrier_arrive_cluster(KernelBuilder& b, Value addr, int cta_rank) {
  check_address("mbarrier_arrive_cluster", addr);
  check_rank("mbarrier_arrive_cluster", cta_rank);
  arrive_remote(b, mapa_operand(b, addr, Operand::i(cta_rank)));
}

Value mbarrier_arrive_expect_tx(KernelBuilder& b, Value addr, int64_t tx_bytes) {
  check_address("mbarrier_arrive_expect_tx", addr);
  if (tx_bytes < 0 || tx_bytes > kMaxCount) {
    fail("mbarrier_arrive_expect_tx: transaction count " + std::to_string(tx_bytes) + " bytes is not in [0, 2^20 - 1]");
  }
  Value state = b.reg(Type::B64);
  Instr i = make(Op::MbarArriveExpectTx, Space::Shared, state.op(), addr);
  i.ops.push_back(Operand::i(tx_bytes));
  b.emit(std::move(i));
  return state;
}

Value mbarrier_arrive_expect_tx(KernelBuilder& b, Value addr, Value tx_bytes) {
  check_address("mbarrier_arrive_expect_tx", addr);
  check_int32("mbarrier_arrive_expect_tx", "the transaction count", tx_bytes);
  Value state = b.reg(Type::B64);
  Instr i = make(Op::MbarArriveExpectTx, Space::Shared, state.op(), addr);
  i.ops.push_back(tx_bytes.op());
  b.emit(std::move(i));
  return state;
}

Value mbarrier_try_wait_parity(KernelBuilder& b, Value addr, Value parity) {
  check_address("mbarrier_try_wait_parity", addr);
  check_int32("mbarrier_try_wait_parity", "the parity", parity);
  return try_wait(b, addr, parity.op());
}

Value mbarrier_try_wait_parity(KernelBuilder& b, Value addr, int parity) {
  check_address("mbarrier_try_wait_parity", addr);
  check_parity("mbarrier_try_wait_parity", parity);
  return try_wait(b, addr, Operand::i(parity));
}

void mbarrier_wait(KernelBuilder& b, Value addr, Value parity) {
  check_address("mbarrier_wait", addr);
  check_int32("mbarrier_wait", "the parity", parity);
  b.while_([&] { return !try_wait(b, addr, parity.op()); }, [] {});
}

void mbarrier_wait(KernelBuilder& b, Value addr, int parity) {
  check_address("mbarrier_wait", addr);
  check_parity("mbarrier_wait", parity);
  b.while_([&] { return !try_wait(b, addr, Operand::i(parity)); }, [] {});
}

}  // namespace tessel::codegen
