// sync.cpp: barriers, fences, elect.sync, shfl.sync and setmaxnreg (see sync.hpp for the rules
// and the PTX ISA sections they follow).
#include "tessel/codegen/sync.hpp"

#include <string>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

namespace {

Instr make(Op op) {
  Instr i;
  i.op = op;
  return i;
}

// A 32-bit mask operand. It prints as a signed 32-bit integer (0xffffffff is -1), the form
// LLVM's NVPTX backend writes and ptxas reads for every .b32 immediate.
Operand mask_operand(uint32_t mask) { return Operand::i(static_cast<int32_t>(mask)); }

void check_mask(const char* fn, uint32_t mask) {
  if (mask == 0) fail(std::string(fn) + ": membermask 0 names no lane (the executing lane must be in it)");
}

bool is_int32(Type t) { return t == Type::U32 || t == Type::S32 || t == Type::B32; }

}  // namespace

void bar_sync(KernelBuilder& b, int id, int threads) {
  if (id < 0 || id > 15) fail("bar_sync: barrier " + std::to_string(id) + " is not in [0, 15]");
  if (threads != 0 && (threads % 32 != 0 || threads < 32 || threads > 1024)) {
    fail("bar_sync: thread count " + std::to_string(threads) + " is not a multiple of 32 in [32, 1024]");
  }
  Instr i = make(Op::BarSync);
  i.set_ops(Operand::i(id));
  if (threads != 0) i.ops.push_back(Operand::i(threads));
  b.emit(std::move(i));
}

void bar_sync(KernelBuilder& b, Value id, int threads) {
  if (threads % 32 != 0 || threads < 32 || threads > 1024) {
    fail("bar_sync: thread count " + std::to_string(threads) + " is not a multiple of 32 in [32, 1024]");
  }
  Instr i = make(Op::BarSync);
  i.set_ops(id.op(), Operand::i(threads));
  b.emit(std::move(i));
}

void barrier_cluster_arrive(KernelBuilder& b, bool aligned, bool relaxed) {
  Instr i = make(Op::BarrierClusterArrive);
  if (aligned) i.flags |= kAligned;
  if (relaxed) i.flags |= kRelaxed;
  b.emit(std::move(i));
}

void barrier_cluster_wait(KernelBuilder& b, bool aligned) {
  Instr i = make(Op::BarrierClusterWait);
  if (aligned) i.flags |= kAligned;
  b.emit(std::move(i));
}

void cluster_sync(KernelBuilder& b, bool aligned, bool relaxed_arrive) {
  barrier_cluster_arrive(b, aligned, relaxed_arrive);
  barrier_cluster_wait(b, aligned);
}

void fence_proxy_async(KernelBuilder& b, Space space) {
  if (space != Space::None && space != Space::Global && space != Space::Shared && space != Space::SharedCluster) {
    fail(std::string("fence_proxy_async: state space ") + short_name(space) +
         " is not one of none (every space), global, shared::cta, shared::cluster");
  }
  Instr i = make(Op::FenceProxyAsync);
  i.space = space;
  b.emit(std::move(i));
}

void fence_mbarrier_init(KernelBuilder& b) { b.emit(make(Op::FenceMbarrierInit)); }

Value elect_sync(KernelBuilder& b, uint32_t membermask) {
  check_mask("elect_sync", membermask);
  Value p = b.reg(Type::Pred);
  // The destination pair `_|p`: no lane id wanted, only the elected predicate.
  Instr i = make(Op::ElectSync);
  i.set_ops(Operand::pair(Operand::sink(), p.op()), mask_operand(membermask));
  b.emit(std::move(i));
  return p;
}

namespace {

Value shfl(KernelBuilder& b, ShflMode mode, Value v, Operand lane, int c, uint32_t membermask) {
  if (mode == ShflMode::None) fail("shfl_sync: a mode is needed (up, down, bfly or idx)");
  if (bits(v.type()) != 32) {
    fail(std::string("shfl_sync: a ") + ptx_name(v.type()) +
         " value is not 32 bits (shfl.sync.b32 moves 32-bit registers)");
  }
  if (c < 0 || (c & ~0x1f1f) != 0) {
    fail("shfl_sync: c operand " + std::to_string(c) +
         " is not (segment mask << 8) | clamp with both parts in [0, 31]");
  }
  check_mask("shfl_sync", membermask);
  Value d = b.reg(v.type());
  Instr i = make(Op::Shfl);
  i.shfl = mode;
  i.type = Type::B32;
  i.set_ops(d.op(), v.op(), std::move(lane), Operand::i(c), mask_operand(membermask));
  b.emit(std::move(i));
  return d;
}

}  // namespace

Value shfl_sync(KernelBuilder& b, ShflMode mode, Value v, Value lane, int c, uint32_t membermask) {
  if (!is_int32(lane.type())) {
    fail(std::string("shfl_sync: the lane operand is a ") + ptx_name(lane.type()) + " value (a 32-bit integer)");
  }
  return shfl(b, mode, v, lane.op(), c, membermask);
}

Value shfl_sync(KernelBuilder& b, ShflMode mode, Value v, int lane, int c, uint32_t membermask) {
  if (lane < 0 || lane > 31) fail("shfl_sync: lane operand " + std::to_string(lane) + " is not in [0, 31]");
  return shfl(b, mode, v, Operand::i(lane), c, membermask);
}

void setmaxnreg(KernelBuilder& b, bool increase, int regs) {
  if (regs % 8 != 0 || regs < 24 || regs > 256) {
    fail("setmaxnreg: " + std::to_string(regs) + " registers is not a multiple of 8 in [24, 256]");
  }
  Instr i = make(Op::Setmaxnreg);
  if (increase) i.flags |= kInc;
  i.n = regs;
  i.type = Type::U32;
  i.set_ops(Operand::i(regs));
  b.emit(std::move(i));
}

}  // namespace tessel::codegen
