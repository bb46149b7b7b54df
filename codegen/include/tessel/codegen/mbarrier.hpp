// mbarrier.hpp: the shared-memory mbarrier objects of sm_80/sm_90: init, arrive (local, and on a
// barrier of another CTA of the cluster), arrive with an expected transaction count (TMA), and
// the phase-parity wait.
//
// An mbarrier is a 64-bit object, 8-byte aligned, in shared memory; `addr` is its shared address
// (a u32 from KernelBuilder::shared_array, or a 64-bit shared address). Section numbers are those
// of the PTX ISA 9.0 reference (§9.7.13.15 mbarrier).
#pragma once

#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// `mbarrier.init.shared::cta.b64 [addr], count`: phase 0, `count` expected arrivals, tx-count 0.
// PTX ISA 9.0 §9.7.13.15.9 mbarrier.init: `count` is in [1, 2^20 - 1].
void mbarrier_init(KernelBuilder& b, Value addr, int64_t count);

// `mbarrier.arrive.shared::cta.b64 state, [addr]`: one arrival on a barrier of this CTA; returns
// the opaque state (b64) of the phase before the arrival.
// PTX ISA 9.0 §9.7.13.15.13 mbarrier.arrive.
Value mbarrier_arrive(KernelBuilder& b, Value addr);

// `mapa.shared::cluster.{u32,u64} d, addr, cta_rank`: the shared::cluster address of the same
// offset in the shared memory of CTA `cta_rank` of the cluster (d has addr's width).
// PTX ISA 9.0 §9.7.9.23 mapa: cta_rank is a 32-bit integer (an immediate here in [0, 15], the
// largest cluster having 16 CTAs).
Value mapa(KernelBuilder& b, Value addr, Value cta_rank);
Value mapa(KernelBuilder& b, Value addr, int cta_rank);

// One arrival on the barrier at the same offset `addr` in CTA `cta_rank` of the cluster (this CTA
// included): `mapa` then `mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote]`.
// PTX ISA 9.0 §9.7.13.15.13 mbarrier.arrive: an arrive on shared::cluster returns no state (the
// sink `_`), and .sem and .scope go together.
void mbarrier_arrive_cluster(KernelBuilder& b, Value addr, Value cta_rank);
void mbarrier_arrive_cluster(KernelBuilder& b, Value addr, int cta_rank);

// `mbarrier.arrive.expect_tx.shared::cta.b64 state, [addr], tx_bytes`: raises the phase's
// tx-count by `tx_bytes` (the bytes the TMA copies completing on this barrier will bring), then
// arrives once; returns the state.
// PTX ISA 9.0 §9.7.13.15.13 mbarrier.arrive (sm_90): tx_bytes is a 32-bit integer, an immediate
// here in [0, 2^20 - 1] (the range of tx-count, §9.7.13.15.2).
Value mbarrier_arrive_expect_tx(KernelBuilder& b, Value addr, int64_t tx_bytes);
Value mbarrier_arrive_expect_tx(KernelBuilder& b, Value addr, Value tx_bytes);

// `mbarrier.try_wait.parity.shared::cta.b64 done, [addr], parity`: a pred, true once the phase
// of parity `parity` (0 or 1: the current phase or the one before it) has completed; the thread
// may wait a while (a system-dependent time) before it returns false.
// PTX ISA 9.0 §9.7.13.15.16 mbarrier.test_wait / mbarrier.try_wait (sm_90): parity is a 32-bit
// integer, an immediate here 0 or 1.
Value mbarrier_try_wait_parity(KernelBuilder& b, Value addr, Value parity);
Value mbarrier_try_wait_parity(KernelBuilder& b, Value addr, int parity);

// Waits until the phase of parity `parity` has completed: a loop around try_wait.parity,
//   while (!try_wait.parity(addr, parity)) {}
void mbarrier_wait(KernelBuilder& b, Value addr, Value parity);
void mbarrier_wait(KernelBuilder& b, Value addr, int parity);

}  // namespace tessel::codegen
