// sync.hpp: barriers, fences and warp-synchronous lane operations: bar.sync, barrier.cluster,
// fence.proxy.async, fence.mbarrier_init, elect.sync, shfl.sync and setmaxnreg.
//
// Section numbers are those of the PTX ISA 9.0 reference (the ISA of the CUDA 13.0 ptxas).
#pragma once

#include <cstdint>

#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// `bar.sync id{, threads}`: waits until `threads` threads of the CTA (all of them when 0) have
// arrived at the named barrier `id`. Every thread of a warp must execute it (bar.sync is
// barrier.sync.aligned).
// PTX ISA 9.0 §9.7.13.1 bar, barrier: `id` is in [0, 15]; a thread count is a multiple of the warp
// size (32), here in [32, 1024] (the most threads a CTA has).
void bar_sync(KernelBuilder& b, int id = 0, int threads = 0);
// The same with the barrier's id in a register (u32, in [0, 15] when it runs; warp-uniform).
void bar_sync(KernelBuilder& b, Value id, int threads);

// `barrier.cluster.arrive{.relaxed}{.aligned}` / `barrier.cluster.wait{.aligned}`: the cluster-wide
// barrier, split in two so that work can go between the halves. The default semantics apply
// (.release on arrive, .acquire on wait) unless `relaxed`: an arrive that orders none of the
// thread's earlier memory accesses (on an H100 the release arrive is a GPU-scope memory barrier
// in every thread: the pair after mbarrier.init uses fence.mbarrier_init.release.cluster in the
// initializing thread and the relaxed arrive, as the PTX ISA pairs them). `aligned`: every thread
// of the warp executes the same instruction.
// PTX ISA 9.0 §9.7.13.3 barrier.cluster (sm_90; .relaxed: PTX ISA 8.0).
void barrier_cluster_arrive(KernelBuilder& b, bool aligned = true, bool relaxed = false);
void barrier_cluster_wait(KernelBuilder& b, bool aligned = true);
// Arrive then wait: every thread of the cluster has arrived when it returns.
void cluster_sync(KernelBuilder& b, bool aligned = true, bool relaxed_arrive = false);

// `fence.proxy.async{.space}`: orders this thread's generic-proxy accesses with the async proxy
// (TMA, the bulk copies), e.g. after st.shared and before a TMA store reads that memory.
// PTX ISA 9.0 §9.7.13.4 membar / fence: `.proxykind` is .async, .async.global,
// .async.shared::cta or .async.shared::cluster, so `space` is None (every state space), Global,
// Shared (shared::cta) or SharedCluster.
void fence_proxy_async(KernelBuilder& b, Space space = Space::None);

// `fence.mbarrier_init.release.cluster`: makes this thread's prior mbarrier.init visible to the
// cluster (before other CTAs arrive on the barriers, or before TMA completes on them).
// PTX ISA 9.0 §9.7.13.4 membar / fence (`.op_restrict = .mbarrier_init`, sm_90).
void fence_mbarrier_init(KernelBuilder& b);

// `elect.sync _|p, membermask`: a pred that is true in exactly one lane of `membermask` (the same
// lane every time for the same mask). Every lane of the mask must execute it.
// PTX ISA 9.0 §9.7.13.14 elect.sync (sm_90): the mask is a 32-bit integer naming at least the
// executing lane, so it is not 0.
Value elect_sync(KernelBuilder& b, uint32_t membermask = 0xffffffffu);

// `shfl.sync.mode.b32 d, v, lane, c, membermask`: d is v from the source lane that `mode`
// selects with `lane` (a lane index for Idx, a delta for Up/Down, an xor mask for Bfly).
// PTX ISA 9.0 §9.7.9.6 shfl.sync: v is a 32-bit register (b32, u32, s32, f32, f16x2, bf16x2);
// `lane` is a 32-bit integer or an immediate in [0, 31]; `c` packs the segment mask and the
// clamp value as (segmask << 8) | clamp, both in [0, 31] (31 for a whole warp with Idx, Down and
// Bfly, 0 with Up); the membermask is not 0. d has v's type.
Value shfl_sync(KernelBuilder& b, ShflMode mode, Value v, Value lane, int c, uint32_t membermask = 0xffffffffu);
Value shfl_sync(KernelBuilder& b, ShflMode mode, Value v, int lane, int c, uint32_t membermask = 0xffffffffu);

// `setmaxnreg.{inc,dec}.sync.aligned.u32 regs`: asks for (`increase`) or releases registers so
// that each thread of the warp owns at most `regs`. Every warp of a warpgroup executes the same
// one. PTX ISA 9.0 §9.7.19.5 setmaxnreg (sm_90a): `regs` is a multiple of 8 in [24, 256]. ptxas
// ignores it (its note C7508) unless it knows the register count at entry: give the kernel a
// .maxntid and .minnctapersm (Kernel::maxntid, Kernel::minnctapersm).
void setmaxnreg(KernelBuilder& b, bool increase, int regs);

}  // namespace tessel::codegen
