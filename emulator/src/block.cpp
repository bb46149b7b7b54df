// block.cpp: the interpreter loop of one thread, the scheduler of a block, barriers, warp
// collectives and the checked memory accesses.
#include "block.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "alu.hpp"
#include "fault.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::emu::detail {

using namespace codegen;

namespace {

inline uint64_t value(const uint64_t* R, const Src& s) { return s.imm ? s.value : R[s.slot]; }

// Collectives, by emulator class (codegen/op_table.hpp): the lanes of a membermask together
// (shfl.sync, elect.sync), or every thread of the warp (ldmatrix, stmatrix) or of the warpgroup
// (wgmma), the aligned ones.
bool is_collective(EmulatorClass c) {
  return c == EmulatorClass::WarpShuffle || c == EmulatorClass::WarpMatrix || c == EmulatorClass::Wgmma;
}
bool is_aligned_collective(EmulatorClass c) { return c == EmulatorClass::WarpMatrix || c == EmulatorClass::Wgmma; }
// The threads an aligned collective takes: a warpgroup for wgmma, else a warp.
uint32_t aligned_size(EmulatorClass c) { return c == EmulatorClass::Wgmma ? 128 : 32; }

std::string triple(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

uint32_t special_value(Special s, uint32_t t, const std::array<unsigned, 3>& block,
                       const std::array<unsigned, 3>& ctaid, const LaunchPlan& plan) {
  const auto& g = plan.grid;
  const auto& c = plan.cluster;
  const unsigned tx = t % block[0], ty = (t / block[0]) % block[1], tz = t / (block[0] * block[1]);
  switch (s) {
    case Special::TidX:
      return tx;
    case Special::TidY:
      return ty;
    case Special::TidZ:
      return tz;
    case Special::NtidX:
      return block[0];
    case Special::NtidY:
      return block[1];
    case Special::NtidZ:
      return block[2];
    case Special::CtaidX:
      return ctaid[0];
    case Special::CtaidY:
      return ctaid[1];
    case Special::CtaidZ:
      return ctaid[2];
    case Special::NctaidX:
      return g[0];
    case Special::NctaidY:
      return g[1];
    case Special::NctaidZ:
      return g[2];
    case Special::LaneId:
      return t % 32;
    case Special::WarpId:
      return t / 32;
    case Special::ClusterCtaRank:
      return ctaid[0] % c[0] + (ctaid[1] % c[1]) * c[0] + (ctaid[2] % c[2]) * c[0] * c[1];
    case Special::ClusterCtaidX:
      return ctaid[0] % c[0];
    case Special::ClusterCtaidY:
      return ctaid[1] % c[1];
    case Special::ClusterCtaidZ:
      return ctaid[2] % c[2];
    case Special::ClusterIdX:
      return ctaid[0] / c[0];
    case Special::ClusterIdY:
      return ctaid[1] / c[1];
    case Special::ClusterIdZ:
      return ctaid[2] / c[2];
    case Special::NclusterIdX:
      return g[0] / c[0];
    case Special::SmId:
      return 0;
    case Special::DynamicSmemSize:
      return plan.dynamic_shared_bytes;
  }
  return 0;
}

const char* space_word(Space s) {
  switch (s) {
    case Space::Global:
      return "global";
    case Space::Shared:
      return "shared";
    case Space::Param:
      return "param";
    default:
      return "generic";
  }
}

}  // namespace

BlockRunner::BlockRunner(Launch& launch) : L_(launch) {
  block_ = L_.plan.block;
  nthreads_ = block_[0] * block_[1] * block_[2];
  threads_.resize(nthreads_);
  regs_.resize(size_t{nthreads_} * L_.program.nslots);
}

std::string BlockRunner::thread_name(uint32_t t) const {
  return triple(t % block_[0], (t / block_[0]) % block_[1], t / (block_[0] * block_[1]));
}

std::string BlockRunner::where(uint32_t t, uint32_t pc) const {
  const Program& P = L_.program;
  std::string s =
      "kernel " + P.kernel->name + ", block " + triple(ctaid_[0], ctaid_[1], ctaid_[2]) + ", thread " + thread_name(t);
  if (pc < P.code.size()) s += ", instruction `" + P.text(P.code[pc]) + "`";
  return s;
}

void BlockRunner::start(std::array<unsigned, 3> ctaid, Cluster& cluster, uint32_t rank) {
  const Program& P = L_.program;
  ctaid_ = ctaid;
  cluster_ = &cluster;
  rank_ = rank;
  std::fill(threads_.begin(), threads_.end(), Thread{});
  std::fill(regs_.begin(), regs_.end(), 0);
  for (uint32_t t = 0; t < nthreads_; ++t) {
    uint64_t* R = regs(t);
    for (size_t i = 0; i < P.specials.size(); ++i)
      R[P.nregs + i] = special_value(P.specials[i], t, block_, ctaid_, L_.plan);
  }
  for (Barrier& b : barriers_) b = Barrier{};
  bulk_.assign(nthreads_, BulkGroups{});
  copies_.assign(nthreads_, CopyGroups{});
  wgmma_.assign((nthreads_ + 127) / 128, WgmmaGroups{});
  wgmma_commits_.assign(nthreads_, 0);
  shared_.reset(P, block_, L_.options.check_uninitialized_shared, L_.options.check_shared_races);
  mbarriers_.reset();
}

// Passes over the threads in order (run.cpp alternates the cluster's blocks); a pass of the
// cluster in which nothing can run while some thread waits is a deadlock (barriers and
// collectives complete as their last participant arrives).
bool BlockRunner::pass(bool& ran) {
  for (uint32_t t = 0; t < nthreads_; ++t) {
    if (threads_[t].state == State::Ready) {
      run_thread(t);
      ran = true;
    }
  }
  return waiting();
}

bool BlockRunner::waiting() const {
  for (const Thread& th : threads_) {
    if (th.state != State::Exited) return true;
  }
  return false;
}

void BlockRunner::run_thread(uint32_t t) {
  Thread& th = threads_[t];
  uint32_t pc = th.pc;
  try {
    execute(t, pc);
    th.pc = pc;
    if (th.state == State::AtBarrier) arrive(t);
    if (th.state == State::AtCollective && is_aligned_collective(L_.program.code[th.pc].cls)) try_aligned(t);
    if (th.state != State::Ready) try_collectives(t / 32);
  } catch (const Fault& f) {
    throw EmulationError("emulator: " + f.kind + ": " + where(t, pc) + ": " + f.what);
  }
}

void BlockRunner::execute(uint32_t t, uint32_t& pc) {
  const Program& P = L_.program;
  const Decoded* code = P.code.data();
  const uint32_t n = static_cast<uint32_t>(P.code.size());
  const uint64_t* mask = P.slot_mask.data();
  uint64_t* R = regs(t);
  Thread& th = threads_[t];
  auto put = [&](int32_t slot, uint64_t v, Type rt) {
    if (slot >= 0) R[slot] = extend(v, rt) & mask[slot];
  };
  for (;;) {
    if (pc >= n) {
      th.state = State::Exited;
      cp_async_wait(t, 0, true);
      bulk_wait(t, 0);
      wgmma_wait(t, 0);
      return;
    }
    if (L_.steps_left == 0) {
      fault("step budget exhausted",
            std::to_string(L_.options.max_steps) +
                " instructions executed (RunOptions::max_steps): an infinite loop, or a launch "
                "larger than the budget");
    }
    --L_.steps_left;
    const Decoded& d = code[pc];
    if (d.guard >= 0 && ((R[d.guard] & 1) != 0) == d.guard_negated) {
      ++pc;
      continue;
    }
    if (d.exec != Exec::Normal) {
      if (d.exec == Exec::Nop) {
        ++pc;
        continue;
      }
      fault("not emulated yet: " + mnemonic(P.instrs[d.index]), "the emulator does not run this instruction yet");
    }
    if (is_collective(d.cls)) {  // performed when its last participant arrives (try_collectives, try_aligned)
      th.state = State::AtCollective;
      return;
    }
    switch (d.op) {
      case Op::Bra:
        pc = d.target;
        continue;
      case Op::Ret:
        th.state = State::Exited;
        cp_async_wait(t, 0, true);
        bulk_wait(t, 0);
        wgmma_wait(t, 0);
        return;
      case Op::BarSync:
        th.state = State::AtBarrier;
        return;
      case Op::MbarInit:
      case Op::MbarArrive:
      case Op::MbarArriveExpectTx:
        mbarrier(t, d, R);
        break;
      case Op::MbarTryWait:
        if (!try_wait(t, d, R)) return;  // parked at this instruction
        break;
      case Op::Mapa:
        put(d.dst[0], mapa(d, R), d.type);
        break;
      case Op::TmaLoad:
        tma_load(t, d, R);
        break;
      case Op::TmaStore:
        tma_store(t, d, R);
        break;
      case Op::BulkCommit:
        bulk_commit(t);
        break;
      case Op::CpAsync:
        cp_async(t, d, R);
        break;
      case Op::CpAsyncCommit:
        cp_async_commit(t);
        break;
      case Op::CpAsyncWait:  // Decoded::n: the groups left pending; -1: wait_all
        cp_async_wait(t, d.n);
        break;
      case Op::CpAsyncMbarArrive:
        cp_async_mbarrier_arrive(t, d, R);
        break;
      case Op::WgmmaCommit:
        wgmma_commit(t);
        break;
      case Op::WgmmaWait:
        wgmma_wait(t, static_cast<uint64_t>(d.n));
        break;
      case Op::FenceProxyAsync:  // .global alone orders no shared memory
        if (d.space != Space::Global) shared_.proxy_fence(t);
        break;
      case Op::BulkWait:  // .read or not: the emulator performs the whole store
        bulk_wait(t, static_cast<size_t>(d.n));
        break;
      case Op::BarrierClusterArrive:
      case Op::BarrierClusterWait:
        // The wait is the barrier of every thread of the cluster (the arrive before it a no-op:
        // the emulator has no work to overlap with the barrier); in a cluster of one CTA, a
        // barrier of the whole block.
        if (d.op == Op::BarrierClusterWait) {
          th.state = State::AtBarrier;
          return;
        }
        break;
      case Op::Mov: {
        const int w = d.type == Type::Pred ? 1 : bits(d.type);
        if (d.pack) {  // mov.bN d, {a, b, ...}: the first source in the low bits
          const int ew = w / d.nsrc;
          uint64_t v = 0;
          for (int j = 0; j < d.nsrc; ++j) v |= (value(R, d.src[j]) & width_mask(ew)) << (j * ew);
          put(d.dst[0], v, d.type);
        } else if (d.ndst > 1) {  // mov.bN {a, b, ...}, s
          const int ew = w / d.ndst;
          const uint64_t v = value(R, d.src[0]);
          for (int j = 0; j < d.ndst; ++j) put(d.dst[j], (v >> (j * ew)) & width_mask(ew), Type::B64);
        } else {
          put(d.dst[0], value(R, d.src[0]) & width_mask(w), d.type);
        }
        break;
      }
      case Op::Ld:
        load(t, d, R);
        break;
      case Op::St:
        store(t, d, R);
        break;
      case Op::Atom:
      case Op::Red:
        atomic(t, d, R);
        break;
      case Op::Setp: {
        const bool p = compare(d.cmp, d.type, value(R, d.src[0]), value(R, d.src[1]));
        put(d.dst[0], p, Type::Pred);
        if (d.ndst > 1) put(d.dst[1], !p, Type::Pred);
        break;
      }
      case Op::Selp:
        put(d.dst[0], (value(R, d.src[2]) & 1) ? value(R, d.src[0]) : value(R, d.src[1]), d.type);
        break;
      case Op::Cvt:
        put(d.dst[0], convert(d, value(R, d.src[0])), d.type);
        break;
      case Op::Cvta: {
        const uint64_t a = value(R, d.src[0]);
        uint64_t v = a;
        const uint64_t window = d.space == Space::Shared ? kSharedWindow : d.space == Space::Param ? kParamWindow : 0;
        if (window && d.has(kToGeneric)) {
          v = (a & 0xffffffff) + window;
        } else if (window) {
          if (a < window || a >= window + kWindowSize) {
            fault("invalid generic address", "converts " + hex(a) + " to the " + space_word(d.space) +
                                                 " space, but it is not in that space's window [" + hex(window) + ", " +
                                                 hex(window + kWindowSize) + ")");
          }
          v = a - window;
        }
        put(d.dst[0], v & width_mask(bits(d.type)), d.type);
        break;
      }
      default:
        put(d.dst[0],
            arith(d, value(R, d.src[0]), d.nsrc > 1 ? value(R, d.src[1]) : 0, d.nsrc > 2 ? value(R, d.src[2]) : 0),
            d.rtype);
        break;
    }
    ++pc;
  }
}

// --- Memory -------------------------------------------------------------------------------------

void BlockRunner::access(uint32_t t, const Decoded& d, uint64_t addr, void* data, uint32_t n, bool write,
                         bool is_atomic) {
  Space s = d.space;
  const char* verb = write ? "writes" : "reads";
  if (s == Space::Generic || s == Space::None) {
    if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
      s = Space::Shared;
      addr -= kSharedWindow;
    } else if (addr >= kParamWindow && addr < kParamWindow + kWindowSize) {
      s = Space::Param;
      addr -= kParamWindow;
    } else {
      s = Space::Global;
    }
  }
  if (addr % n != 0) {
    fault("misaligned address", std::string(verb) + " " + std::to_string(n) + " bytes at " + space_word(s) +
                                    " address " + hex(addr) + ", which is not a multiple of " + std::to_string(n) +
                                    " (an access of " + std::to_string(n) + " bytes needs that alignment)");
  }
  switch (s) {
    case Space::Global: {
      Memory::Buffer* b = L_.memory.find(addr, n);
      if (!b) {
        fault("out-of-bounds global access", std::string(verb) + " " + std::to_string(n) + " bytes at global address " +
                                                 hex(addr) + ", " + L_.memory.describe(addr));
      }
      std::byte* p = b->data.data() + (addr - b->addr);
      if (is_atomic) {
        // atomic(): GlobalOrder::atomic, once per read-modify-write
      } else if (write) {
        L_.order.store(linear_block(), addr, n);
      } else {
        L_.order.load(linear_block(), addr, n);
      }
      write ? std::memcpy(p, data, n) : std::memcpy(data, p, n);
      return;
    }
    case Space::Shared:
      if (addr > 0xffffffff) {
        fault("out-of-bounds shared access",
              std::string(verb) + " " + std::to_string(n) + " bytes at shared address " + hex(addr) + " (past 4 GiB)");
      }
      write ? shared_.store(static_cast<uint32_t>(addr), data, n, t, is_atomic)
            : shared_.load(static_cast<uint32_t>(addr), data, n, t, is_atomic);
      return;
    case Space::Param:
      if (write)
        fault("write to a kernel parameter", "writes " + std::to_string(n) + " bytes at param address " + hex(addr));
      if (addr + n > L_.params.size()) {
        fault("out-of-bounds param access", "reads " + std::to_string(n) + " bytes at param address " + hex(addr) +
                                                ", past the " + std::to_string(L_.params.size()) +
                                                " bytes of the kernel's parameters");
      }
      std::memcpy(data, L_.params.data() + addr, n);
      return;
    default:
      fault("not emulated yet", std::string("accesses to the ") + short_name(s) + " space");
  }
}

void BlockRunner::load(uint32_t t, const Decoded& d, uint64_t* R) {
  const uint32_t es = static_cast<uint32_t>(bytes(d.type)), n = es * d.ndst;
  std::byte buf[32];
  access(t, d, value(R, d.src[0]) + static_cast<uint64_t>(d.offset), buf, n, false, false);
  for (int j = 0; j < d.ndst; ++j) {
    uint64_t v = 0;
    std::memcpy(&v, buf + j * es, es);
    if (d.dst[j] >= 0) R[d.dst[j]] = extend(v, d.type) & L_.program.slot_mask[d.dst[j]];
  }
}

void BlockRunner::store(uint32_t t, const Decoded& d, const uint64_t* R) {
  const uint32_t es = static_cast<uint32_t>(bytes(d.type)), n = es * (d.nsrc - 1);
  std::byte buf[32];
  for (int j = 1; j < d.nsrc; ++j) {
    const uint64_t v = value(R, d.src[j]);
    std::memcpy(buf + (j - 1) * es, &v, es);
  }
  access(t, d, value(R, d.src[0]) + static_cast<uint64_t>(d.offset), buf, n, true, false);
}

uint32_t BlockRunner::linear_block() const {
  const auto& g = L_.plan.grid;
  return ctaid_[0] + g[0] * (ctaid_[1] + g[1] * ctaid_[2]);
}

void BlockRunner::atomic(uint32_t t, const Decoded& d, uint64_t* R) {
  const uint32_t es = static_cast<uint32_t>(bytes(d.type));
  const uint64_t addr = value(R, d.src[0]) + static_cast<uint64_t>(d.offset);
  const uint64_t b = d.nsrc > 1 ? value(R, d.src[1]) : 0, c = d.nsrc > 2 ? value(R, d.src[2]) : 0;
  uint64_t old = 0;
  access(t, d, addr, &old, es, false, true);
  const uint64_t v = atomic_result(d.atom, d.type, old, b, c);
  access(t, d, addr, const_cast<uint64_t*>(&v), es, true, true);
  const bool global = d.space == Space::Global ||
                      ((d.space == Space::Generic || d.space == Space::None) &&
                       !(addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) &&
                       !(addr >= kParamWindow && addr < kParamWindow + kWindowSize));
  if (global) L_.order.atomic(linear_block(), addr, es, (d.flags & kAcquire) != 0, (d.flags & kRelease) != 0);
  if (d.op == Op::Atom && d.ndst > 0 && d.dst[0] >= 0) {
    R[d.dst[0]] = extend(old & width_mask(bits(d.type)), d.type) & L_.program.slot_mask[d.dst[0]];
  }
}

// --- Barriers and warp collectives ----------------------------------------------------------------

void BlockRunner::arrive(uint32_t t) {
  Thread& th = threads_[t];
  const Decoded& d = L_.program.code[th.pc];
  const uint64_t* R = regs(t);
  if (d.op == Op::BarrierClusterWait && cluster_size() > 1) {
    cluster_arrive(t);
    return;
  }
  // barrier.cluster.wait in a cluster of one CTA: barrier 16, which bar.sync cannot name.
  const bool cluster = d.op == Op::BarrierClusterWait;
  const uint64_t id = cluster ? kClusterBarrier : value(R, d.src[0]);
  if (id > 15 && !cluster) fault("invalid barrier", "barrier " + std::to_string(id) + " is not in [0, 15]");
  const uint64_t expected = d.nsrc > 1 ? value(R, d.src[1]) : nthreads_;
  if (d.nsrc > 1 && (expected == 0 || expected % 32 != 0)) {
    fault("invalid barrier", "thread count " + std::to_string(expected) + " is not a positive multiple of 32");
  }
  Barrier& b = barriers_[id];
  if (!b.arrived.empty() && b.expected != expected) {
    fault("barrier mismatch", "expects " + std::to_string(expected) + " threads at barrier " + std::to_string(id) +
                                  ", but thread " + thread_name(b.arrived.front()) + " arrived expecting " +
                                  std::to_string(b.expected));
  }
  b.expected = static_cast<uint32_t>(expected);
  b.arrived.push_back(t);
  if (b.arrived.size() < expected) return;
  for (uint32_t u : b.arrived) {
    threads_[u].state = State::Ready;
    ++threads_[u].pc;
  }
  shared_.barrier(b.arrived, b.arrived.size() == nthreads_);
  ++L_.stats.barriers;
  b.arrived.clear();
}

void BlockRunner::cluster_arrive(uint32_t t) {
  Cluster& c = *cluster_;
  c.arrived.emplace_back(rank_, t);
  if (c.arrived.size() < size_t{nthreads_} * c.ctas.size()) return;
  for (uint32_t r = 0; r < c.ctas.size(); ++r) {
    BlockRunner& cta = *c.ctas[r];
    std::vector<uint32_t> mine;
    for (const auto& [rank, u] : c.arrived) {
      if (rank != r) continue;
      cta.threads_[u].state = State::Ready;
      ++cta.threads_[u].pc;
      mine.push_back(u);
    }
    cta.shared_.barrier(mine, true);
  }
  ++L_.stats.barriers;
  c.arrived.clear();
}

namespace {
uint32_t membermask(const Decoded& d, const uint64_t* R) {
  return static_cast<uint32_t>(value(R, d.op == Op::Shfl ? d.src[3] : d.src[0]));
}
}  // namespace

void BlockRunner::try_collectives(uint32_t warp) {
  const Program& P = L_.program;
  const uint32_t first = warp * 32, last = std::min(first + 32, nthreads_);
  for (uint32_t l = first; l < last; ++l) {
    if (threads_[l].state != State::AtCollective) continue;
    const uint32_t pc = threads_[l].pc;
    const Decoded& d = P.code[pc];
    if (is_aligned_collective(d.cls)) continue;
    const uint32_t mask = membermask(d, regs(l));
    auto fail_at = [&](uint32_t u, const std::string& kind, const std::string& what) {
      throw EmulationError("emulator: " + kind + ": " + where(u, threads_[u].pc) + ": " + what);
    };
    if (!((mask >> (l - first)) & 1)) {
      fail_at(l, "invalid membermask", "lane " + std::to_string(l - first) + " is not in its membermask " + hex(mask));
    }
    std::vector<uint32_t> group;
    bool ready = true;
    for (uint32_t k = 0; k < 32; ++k) {
      const uint32_t u = first + k;
      if (!((mask >> k) & 1) || u >= last || threads_[u].state == State::Exited) continue;
      if (threads_[u].state == State::AtCollective && threads_[u].pc == pc) {
        const uint32_t other = membermask(d, regs(u));
        if (other != mask) {
          fail_at(u, "membermask mismatch",
                  "lane " + std::to_string(k) + " gives membermask " + hex(other) + ", lane " +
                      std::to_string(l - first) + " gives " + hex(mask));
        }
        group.push_back(u);
      } else {
        ready = false;
      }
    }
    if (ready) perform(d, group, warp);
  }
}

void BlockRunner::perform(const Decoded& d, const std::vector<uint32_t>& group, uint32_t warp) {
  const uint32_t first = warp * 32;
  const uint64_t* mask = L_.program.slot_mask.data();
  bool member[32] = {};
  for (uint32_t u : group) member[u - first] = true;
  if (d.op == Op::ElectSync) {
    const uint32_t leader = group.front() - first;  // the lowest lane of the group
    for (uint32_t u : group) {
      uint64_t* R = regs(u);
      if (d.dst[0] >= 0) R[d.dst[0]] = leader & mask[d.dst[0]];
      if (d.dst[1] >= 0) R[d.dst[1]] = (u - first) == leader;
    }
  } else {
    // PTX ISA, shfl.sync: the source lane j from b (lane or offset) and c (clamp | segment mask << 8).
    std::vector<std::pair<uint64_t, bool>> out;
    for (uint32_t u : group) {
      const uint64_t* R = regs(u);
      const int lane = static_cast<int>(u - first);
      const int b = static_cast<int>(value(R, d.src[1]) & 31);
      const uint32_t c = static_cast<uint32_t>(value(R, d.src[2]));
      const int clamp = static_cast<int>(c & 31), seg = static_cast<int>((c >> 8) & 31);
      const int max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
      int j = lane;
      bool in = false;
      switch (d.shfl) {
        case ShflMode::Up:
          j = lane - b;
          in = j >= max_lane;
          break;
        case ShflMode::Down:
          j = lane + b;
          in = j <= max_lane;
          break;
        case ShflMode::Bfly:
          j = lane ^ b;
          in = j <= max_lane;
          break;
        case ShflMode::Idx:
          j = min_lane | (b & ~seg);
          in = j <= max_lane;
          break;
        case ShflMode::None:
          break;
      }
      if (!in) j = lane;
      if (!member[j]) {
        const uint32_t src = first + static_cast<uint32_t>(j);
        const std::string why = src >= nthreads_                       ? "which the block does not have"
                                : threads_[src].state == State::Exited ? "which has exited"
                                                                       : "which is not in the membermask";
        throw EmulationError("emulator: shfl from an inactive lane: " + where(u, threads_[u].pc) + ": lane " +
                             std::to_string(lane) + " reads lane " + std::to_string(j) + ", " + why +
                             " (the value is undefined)");
      }
      out.emplace_back(value(regs(first + static_cast<uint32_t>(j)), d.src[0]) & 0xffffffff, in);
    }
    for (size_t i = 0; i < group.size(); ++i) {
      uint64_t* R = regs(group[i]);
      if (d.dst[0] >= 0) R[d.dst[0]] = out[i].first & mask[d.dst[0]];
      if (d.ndst > 1 && d.dst[1] >= 0) R[d.dst[1]] = out[i].second;
    }
  }
  for (uint32_t u : group) {
    threads_[u].state = State::Ready;
    ++threads_[u].pc;
  }
  ++L_.stats.collectives;
}

void BlockRunner::try_aligned(uint32_t t) {
  const uint32_t pc = threads_[t].pc;
  const Decoded& d = L_.program.code[pc];
  const uint32_t size = aligned_size(d.cls), first = t / size * size;
  const char* unit = size == 128 ? "warpgroup" : "warp";
  if (first + size > nthreads_) {
    fault("incomplete " + std::string(unit), "the block has " + std::to_string(nthreads_) + " threads, so the " + unit +
                                                 " of threads " + std::to_string(first) + ".." +
                                                 std::to_string(first + size - 1) + " is not whole");
  }
  for (uint32_t u = first; u < first + size; ++u) {
    if (threads_[u].state == State::Exited) {
      fault("collective with an exited thread", "thread " + thread_name(u) + " of the " + unit +
                                                    " has exited, and every thread of it must execute this instruction");
    }
    if (threads_[u].state != State::AtCollective || threads_[u].pc != pc) return;
  }
  d.cls == EmulatorClass::Wgmma ? wgmma(d, first) : matrix(d, first);
  for (uint32_t u = first; u < first + size; ++u) {
    threads_[u].state = State::Ready;
    ++threads_[u].pc;
  }
  ++L_.stats.collectives;
}

void BlockRunner::deadlock() {
  const Program& P = L_.program;
  for (const Thread& th : threads_) {
    if (th.state == State::AtMbarrier) mbarrier_deadlock();
  }
  uint32_t t = 0;
  while (t < nthreads_ && threads_[t].state == State::Exited) ++t;
  auto doing_in = [&](const BlockRunner& cta, uint32_t u) -> std::string {
    if (cta.threads_[u].state == State::Exited) return "exited without reaching it";
    return "waits at `" + P.text(P.code[cta.threads_[u].pc]) + "`";
  };
  auto doing = [&](uint32_t u) { return doing_in(*this, u); };
  const Decoded& d = P.code[threads_[t].pc];
  if (threads_[t].state == State::AtBarrier && d.op == Op::BarrierClusterWait && cluster_size() > 1) {
    std::string missing;
    for (uint32_t r = 0; r < cluster_->ctas.size() && missing.empty(); ++r) {
      const BlockRunner& cta = *cluster_->ctas[r];
      for (uint32_t u = 0; u < nthreads_ && missing.empty(); ++u) {
        const bool in = std::find(cluster_->arrived.begin(), cluster_->arrived.end(), std::make_pair(r, u)) !=
                        cluster_->arrived.end();
        if (!in) {
          missing = "thread " + cta.thread_name(u) + " of block " +
                    triple(cta.ctaid_[0], cta.ctaid_[1], cta.ctaid_[2]) + " " + doing_in(cta, u);
        }
      }
    }
    throw EmulationError("emulator: barrier deadlock: " + where(t, threads_[t].pc) +
                         ": barrier.cluster waits for every thread of the cluster's " +
                         std::to_string(cluster_->ctas.size()) + " blocks, " + std::to_string(cluster_->arrived.size()) +
                         " arrived and no other thread can run: " + missing);
  }
  if (threads_[t].state == State::AtBarrier) {
    const uint64_t id = d.op == Op::BarrierClusterWait ? kClusterBarrier : value(regs(t), d.src[0]);
    const Barrier& b = barriers_[id];
    std::string missing;
    for (uint32_t u = 0; u < nthreads_ && missing.empty(); ++u) {
      if (std::find(b.arrived.begin(), b.arrived.end(), u) == b.arrived.end()) {
        missing = "thread " + thread_name(u) + " " + doing(u);
      }
    }
    if (missing.empty()) missing = "the block has only " + std::to_string(nthreads_) + " threads";
    throw EmulationError("emulator: barrier deadlock: " + where(t, threads_[t].pc) + ": barrier " + std::to_string(id) +
                         " waits for " + std::to_string(b.expected) + " threads, " + std::to_string(b.arrived.size()) +
                         " arrived and no other thread can run: " + missing);
  }
  if (is_aligned_collective(d.cls)) {
    const uint32_t size = aligned_size(d.cls), group = t / size * size;
    std::string missing = "the block has only " + std::to_string(nthreads_) + " threads";
    for (uint32_t u = group; u < group + size && u < nthreads_; ++u) {
      if (threads_[u].state != State::AtCollective || threads_[u].pc != threads_[t].pc) {
        missing = "thread " + thread_name(u) + ", which " + doing(u);
        break;
      }
    }
    throw EmulationError("emulator: " + std::string(size == 128 ? "warpgroup" : "warp") +
                         " collective deadlock: " + where(t, threads_[t].pc) + ": every thread of the " +
                         (size == 128 ? "warpgroup (threads " : "warp (threads ") + std::to_string(group) + ".." +
                         std::to_string(group + size - 1) + ") must execute it, and it waits for " + missing);
  }
  const uint32_t first = t / 32 * 32;
  const uint32_t mask = membermask(d, regs(t));
  std::string missing;
  for (uint32_t k = 0; k < 32 && missing.empty(); ++k) {
    const uint32_t u = first + k;
    if (!((mask >> k) & 1) || u >= nthreads_ || threads_[u].state == State::Exited) continue;
    if (threads_[u].state != State::AtCollective || threads_[u].pc != threads_[t].pc) {
      missing = "lane " + std::to_string(k) + " (thread " + thread_name(u) + "), which " + doing(u);
    }
  }
  throw EmulationError("emulator: warp collective deadlock: " + where(t, threads_[t].pc) + ": membermask " + hex(mask) +
                       " waits for " + missing);
}

void BlockRunner::mbarrier_deadlock() {
  const Program& P = L_.program;
  uint32_t t = 0;
  while (threads_[t].state != State::AtMbarrier) ++t;
  const uint32_t addr = threads_[t].wait_addr, parity = threads_[t].wait_parity;
  uint32_t same = 0;
  std::string others;
  uint32_t exited = 0, listed = 0, unlisted = 0;
  for (uint32_t u = 0; u < nthreads_; ++u) {
    const Thread& th = threads_[u];
    if (th.state == State::AtMbarrier && th.wait_addr == addr && th.wait_parity == parity) {
      ++same;
    } else if (th.state == State::Exited) {
      ++exited;
    } else if (listed < 3) {
      others += std::string(listed++ ? "; " : "") + "thread " + thread_name(u) + " waits at `" +
                P.text(P.code[th.pc]) + "`" +
                (th.state == State::AtMbarrier ? " on the mbarrier at " + shared_.describe(th.wait_addr) +
                                                     " for parity " + std::to_string(th.wait_parity)
                                               : "");
    } else {
      ++unlisted;
    }
  }
  if (unlisted) others += "; and " + std::to_string(unlisted) + " more threads wait";
  if (exited) others += std::string(others.empty() ? "" : "; ") + std::to_string(exited) + " threads have exited";
  Mbarrier& b = mbarriers_.get(addr, "wait");
  throw EmulationError("emulator: mbarrier deadlock: " + where(t, threads_[t].pc) + ": thread " + thread_name(t) +
                       (same > 1 ? " and " + std::to_string(same - 1) + " other threads wait" : " waits") +
                       " for the phase of parity " + std::to_string(parity) + " of the mbarrier at shared address " +
                       shared_.describe(addr) + " to complete; the mbarrier is in " + Mbarriers::state(b) +
                       ", and no other thread can run (" + (others.empty() ? "there are none" : others) + ")");
}

// --- mbarriers ------------------------------------------------------------------------------------

unsigned BlockRunner::cluster_size() const { return L_.plan.cluster[0] * L_.plan.cluster[1] * L_.plan.cluster[2]; }

std::pair<BlockRunner*, uint32_t> BlockRunner::mbarrier_address(const Decoded& d, const uint64_t* R) {
  uint64_t a = value(R, d.src[0]) + static_cast<uint64_t>(d.offset);
  BlockRunner* cta = this;
  if (d.space == Space::SharedCluster) std::tie(cta, a) = cluster_address(a, "an mbarrier operation");
  if (a > 0xffffffff) fault("out-of-bounds shared access", "an mbarrier at shared address " + hex(a) + " (past 4 GiB)");
  if (a % 8 != 0) {
    fault("misaligned address", "an mbarrier at shared address " + hex(a) + ", which is not a multiple of 8");
  }
  cta->shared_.check(static_cast<uint32_t>(a), 8, "accesses an mbarrier of");
  return {cta, static_cast<uint32_t>(a)};
}

void BlockRunner::completed(Mbarrier& b) {
  ++L_.stats.mbarrier_phases;
  b.last_arrivals = std::move(b.arrivals);
  b.arrivals.clear();
  for (uint32_t u : b.waiters) threads_[u].state = State::Ready;  // they run their try_wait again
  b.waiters.clear();
}

void BlockRunner::mbarrier(uint32_t t, const Decoded& d, uint64_t* R) {
  const auto [cta, addr] = mbarrier_address(d, R);
  if (cta != this) {
    // An arrive on a peer CTA's barrier (a shared::cluster address from mapa). It releases none
    // of this thread's shared writes: they are in another CTA's memory.
    if (d.op != Op::MbarArrive) fault("not emulated yet", "an mbarrier operation other than arrive on a peer CTA's barrier");
    Mbarrier& b = cta->mbarriers_.get(addr, "mbarrier.arrive.shared::cluster");
    if (cta->mbarriers_.arrive(b)) cta->completed(b);
    return;
  }
  if (d.op == Op::MbarInit) {
    mbarriers_.init(addr, value(R, d.src[1]));
    return;
  }
  Mbarrier& b = mbarriers_.get(addr, op_info(d.op).root);
  const uint64_t state = b.phase;  // the opaque state: the phase before the arrival
  if (d.op == Op::MbarArriveExpectTx && mbarriers_.expect_tx(b, static_cast<uint32_t>(value(R, d.src[1])))) {
    completed(b);
  }
  b.arrivals.emplace_back(t, shared_.arrive_epoch(t));  // release: t's earlier shared writes
  shared_.append_ordered_before(t, b.arrivals);         // and, cumulative, what barriers ordered before them
  if (mbarriers_.arrive(b)) completed(b);
  if (d.ndst > 0 && d.dst[0] >= 0) R[d.dst[0]] = state & L_.program.slot_mask[d.dst[0]];
}

bool BlockRunner::try_wait(uint32_t t, const Decoded& d, uint64_t* R) {
  const uint32_t addr = mbarrier_address(d, R).second;  // try_wait takes shared::cta addresses
  Mbarrier& b = mbarriers_.get(addr, "mbarrier.try_wait");
  const uint32_t parity = static_cast<uint32_t>(value(R, d.src[1]) & 1);
  // PTX ISA 9.0 §9.7.13.15.16: true once the phase of this parity has completed, i.e. while the
  // current phase has the other parity.
  if ((b.phase & 1) != parity) {
    shared_.observe(t, addr, b.phase);
    shared_.acquire(t, b.last_arrivals);  // acquire: the arrivers' writes before their arrival
    if (d.dst[0] >= 0) R[d.dst[0]] = 1;
    return true;
  }
  Thread& th = threads_[t];
  th.state = State::AtMbarrier;
  th.wait_addr = addr;
  th.wait_parity = parity;
  b.waiters.push_back(t);
  return false;
}

uint64_t BlockRunner::mapa(const Decoded& d, const uint64_t* R) {
  const uint64_t rank = value(R, d.src[1]) & 0xffffffff;
  if (rank >= cluster_size()) {
    fault("invalid cluster rank", "mapa to CTA rank " + std::to_string(rank) + " of a cluster of " +
                                      std::to_string(cluster_size()) + " CTAs");
  }
  const uint64_t a = cluster_address(value(R, d.src[0]), "mapa's address").second;
  if (cluster_size() == 1) return a;  // in a cluster of one CTA, shared::cluster addresses are its shared::cta ones
  return (rank + 1) << 24 | a;
}

std::pair<BlockRunner*, uint32_t> BlockRunner::cluster_address(uint64_t a, const char* what) {
  const uint64_t tag = a >> 24;
  if (tag == 0) return {this, static_cast<uint32_t>(a)};
  if (tag > cluster_size()) {
    fault("out-of-bounds shared access", std::string(what) + " at shared::cluster address " + hex(a) +
                                             ", which names no CTA of this cluster of " +
                                             std::to_string(cluster_size()) + " (mapa gives the addresses of peers)");
  }
  return {cluster_->ctas[tag - 1], static_cast<uint32_t>(a & 0xffffff)};
}

}  // namespace tessel::emu::detail
