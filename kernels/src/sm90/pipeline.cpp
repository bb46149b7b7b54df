// sm90/pipeline.cpp: the TMA pipeline's mbarrier protocol and the ordered turns of two groups.
#include "sm90/pipeline.hpp"

#include "tessel/codegen/mbarrier.hpp"

namespace tessel::kernels::sm90 {

using namespace codegen;

void PipelineState::advance() {
  KernelBuilder& b = index.builder();
  b.assign(index, index + 1);
  b.if_(index == stages, [&] {
    b.assign(index, 0);
    b.assign(phase, phase ^ b.constant(1, Type::U32));
  });
}

void PipelineState::advance(Value count) {
  KernelBuilder& b = index.builder();
  Value next = index + b.cvt(count, Type::U32);
  b.assign(phase, phase ^ ((next / static_cast<int64_t>(stages)) & 1));
  b.assign(index, next % static_cast<int64_t>(stages));
}

PipelineTmaAsync::PipelineTmaAsync(const SharedStorage& smem, const Params& p)
    : b_(smem.base().builder()), smem_(smem), p_(p) {}

void PipelineTmaAsync::init() const {
  for (int s = 0; s < p_.full.count; ++s) {
    mbarrier_init(b_, smem_.element(p_.full, s), 1);
    mbarrier_init(b_, smem_.element(p_.empty, s), p_.consumer_arrivals);
  }
}

PipelineState PipelineTmaAsync::make_state() const {
  PipelineState s;
  s.index = b_.constant(0, Type::U32);
  s.phase = b_.constant(0, Type::U32);
  s.stages = p_.full.count;
  return s;
}

void PipelineTmaAsync::wait_empty(const PipelineState& s) const {
  KernelBuilder& b = b_;
  // A fresh barrier's preceding phase counts as complete: the first pass does not wait.
  mbarrier_wait(b, empty(s.index), s.phase ^ b.constant(1, Type::U32));
}

Value PipelineTmaAsync::producer_acquire(const PipelineState& s) const {
  wait_empty(s);
  Value bar = full(s.index);
  mbarrier_arrive_expect_tx(b_, bar, p_.tx_bytes);
  return bar;
}

void PipelineTmaAsync::producer_tail(PipelineState& s) const {
  if (p_.cluster_size == 1) return;
  b_.note("producer tail: stay until every consumer of the cluster has released every stage");
  b_.unrolled(s.stages, [&](int) {
    wait_empty(s);
    s.advance();
  });
}

void PipelineTmaAsync::consumer_wait(const PipelineState& s) const { mbarrier_wait(b_, full(s.index), s.phase); }

void PipelineTmaAsync::consumer_release(Value index) const {
  if (p_.cluster_size == 1) {
    mbarrier_arrive(b_, empty(index));
    return;
  }
  // A stage is free once every CTA that multicasts into it knows: arrive on each one's barrier.
  for (int r = 0; r < p_.cluster_size; ++r) mbarrier_arrive_cluster(b_, empty(index), r);
}

OrderedSequenceBarrier::OrderedSequenceBarrier(const SharedStorage& smem, SmemRegion bars, int arrivals)
    : b_(smem.base().builder()), smem_(smem), bars_(bars), arrivals_(arrivals) {}

void OrderedSequenceBarrier::init() const {
  for (int g = 0; g < bars_.count; ++g) mbarrier_init(b_, smem_.element(bars_, g), arrivals_);
}

OrderedSequenceBarrier::State OrderedSequenceBarrier::make_state(Value group) const {
  return State{group, b_.constant(0, Type::U32)};
}

void OrderedSequenceBarrier::wait(const State& s) const {
  KernelBuilder& b = b_;
  // Group 0's first wait is for parity 1, which a fresh barrier passes: it goes first.
  mbarrier_wait(b, smem_.mbarrier(bars_, s.group), (s.taken & 1) ^ (s.group ^ b.constant(1, Type::U32)));
}

void OrderedSequenceBarrier::arrive(State& s, Value lane0) const {
  KernelBuilder& b = b_;
  b.if_(lane0, [&] { mbarrier_arrive(b, smem_.mbarrier(bars_, s.group ^ b.constant(1, Type::U32))); });
  b.assign(s.taken, s.taken + 1);
}

}  // namespace tessel::kernels::sm90
