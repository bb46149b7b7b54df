// sm90/pipeline.hpp: the mbarrier protocols of a warp-specialized sm_90 kernel: the TMA pipeline
// of a ring of shared-memory stages (CuTe DSL's PipelineTmaAsync), its (stage, phase) state, and
// the ordered turns of two consumer groups (CUTLASS's OrderedSequenceBarrier).
//
// Each stage has a "full" mbarrier (one producer arrival with the stage's transaction bytes,
// completed by the TMA loads) and an "empty" one (one arrival per consumer warp of the cluster
// once the MMAs reading the stage have finished). PTX ISA 9.0 §9.7.13.15 mbarrier.
#pragma once

#include <cstdint>

#include "sm90/shared_storage.hpp"
#include "tessel/codegen/builder.hpp"

namespace tessel::kernels::sm90 {

// Where a producer or consumer is in the ring: stage `index` (u32) in its pass of parity `phase`
// (u32, 0 or 1). Both start at 0 (make_pipeline_state).
struct PipelineState {
  codegen::Value index, phase;
  int stages = 0;

  // The next stage; past the last, stage 0 of the next pass (the phase flips).
  void advance();
  // `count` (s32) stages on at once, e.g. over another consumer's k-tiles.
  void advance(codegen::Value count);
};

class PipelineTmaAsync {
 public:
  struct Params {
    SmemRegion full, empty;     // `stages` mbarriers each
    int64_t tx_bytes = 0;       // what the TMA loads of one stage bring (A and B)
    int consumer_arrivals = 0;  // arrivals that empty a stage: one per consumer warp of the cluster
    int cluster_size = 1;       // CTAs whose consumers read a stage (multicast)
  };
  PipelineTmaAsync(const SharedStorage& smem, const Params& p);

  // One thread, before anything uses the barriers (then fence_mbarrier_init and a CTA or cluster
  // barrier). The full and empty barrier of each stage in turn.
  void init() const;
  PipelineState make_state() const;

  // The producer (one thread): waits until the consumers have released the stage, then arms its
  // full barrier with the stage's transaction bytes (the thread's one arrival). Returns that
  // barrier, which the stage's TMA loads complete on.
  codegen::Value producer_acquire(const PipelineState& s) const;
  // Nothing to emit for TMA: the loads' complete_tx on the full barrier is the commit. (A
  // cp.async producer would arrive here; it is named so that the producer reads like the DSL's.)
  void producer_commit(const PipelineState&) const {}
  // In a cluster, a producer may not exit while the peer's consumers can still arrive on its
  // barriers: it waits until every stage has been released once more. Nothing in a single CTA.
  void producer_tail(PipelineState& s) const;

  // A consumer: waits until the stage's TMA loads have landed.
  void consumer_wait(const PipelineState& s) const;
  // One arrival (call from one lane per warp) on stage `index`'s empty barrier, in every CTA that
  // multicasts into it.
  void consumer_release(codegen::Value index) const;

 private:
  void wait_empty(const PipelineState& s) const;
  codegen::Value full(codegen::Value index) const { return smem_.mbarrier(p_.full, index); }
  codegen::Value empty(codegen::Value index) const { return smem_.mbarrier(p_.empty, index); }

  codegen::KernelBuilder& b_;
  const SharedStorage& smem_;
  Params p_;
};

// Two groups (the ping-pong consumer warpgroups, 0 and 1) taking turns: group g waits until the
// other has passed it the turn, works, then passes it back; group 0 goes first. Each barrier
// expects `arrivals` arrivals (one per warp of the passing group).
class OrderedSequenceBarrier {
 public:
  OrderedSequenceBarrier(const SharedStorage& smem, SmemRegion bars, int arrivals);
  void init() const;  // one thread, with the pipeline's init

  // A group's side: its index (u32) and the count of turns it has taken (u32, from 0).
  struct State {
    codegen::Value group, taken;
  };
  State make_state(codegen::Value group) const;
  void wait(const State& s) const;
  // Passes the turn to the other group (`lane0`: one lane per warp arrives) and counts it.
  void arrive(State& s, codegen::Value lane0) const;

 private:
  codegen::KernelBuilder& b_;
  const SharedStorage& smem_;
  SmemRegion bars_;
  int arrivals_;
};

}  // namespace tessel::kernels::sm90
