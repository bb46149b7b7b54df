// async_copy.hpp: asynchronous copies from global to shared memory and back: the per-thread
// cp.async of sm_80 with its async-groups, and the bulk tensor copies of sm_90 (TMA) with their
// mbarrier and bulk async-group completion.
//
// Shared addresses are u32 (KernelBuilder::shared_array) or 64-bit shared addresses; global
// addresses are u64 in the global window (KernelBuilder::global_pointer_param). Section numbers
// are those of the PTX ISA 9.0 reference (§9.7.9.25 Asynchronous copy).
#pragma once

#include <optional>
#include <vector>

#include "tessel/codegen/builder.hpp"

namespace tessel::codegen {

// --- sm_80: cp.async -------------------------------------------------------------------------------

// `cp.async.{ca,cg}.shared.global [dst], [src], bytes{, src_size}`: starts copying `bytes` bytes
// from global `src` to shared `dst`. With `src_size`, only that many bytes are read and the rest
// of the `bytes` are zero-filled (src_size 0 zero-fills all: the predicated-off form).
// PTX ISA 9.0 §9.7.9.25.3.1 cp.async: `cache` is Ca (cache at every level; bytes 4, 8 or 16) or
// Cg (L2 only; bytes 16); src_size is a 32-bit integer, at most `bytes` (larger is undefined
// behaviour); both addresses are aligned to `bytes`.
void cp_async(KernelBuilder& b, Value smem_dst, Value gmem_src, int bytes, Cache cache = Cache::Ca,
              std::optional<Value> src_size = {});

// `cp.async.commit_group`: closes an async-group of this thread's prior, uncommitted cp.async.
// PTX ISA 9.0 §9.7.9.25.3.2 cp.async.commit_group.
void cp_async_commit_group(KernelBuilder& b);

// `cp.async.wait_group n`: waits until at most the `n` most recent async-groups are pending.
// PTX ISA 9.0 §9.7.9.25.3.3 cp.async.wait_group / cp.async.wait_all: n is a non-negative integer
// constant.
void cp_async_wait_group(KernelBuilder& b, int n);
// `cp.async.wait_all`: commit, then wait for every group.
void cp_async_wait_all(KernelBuilder& b);

// `cp.async.mbarrier.arrive{.noinc}.shared::cta.b64 [mbar]`: an arrive-on operation on the
// mbarrier at `mbar`, triggered once every cp.async this thread issued before it has completed.
// Without .noinc the mbarrier's pending count is first incremented, so the arrival does not count
// toward the arrivals of its phase; with `noinc` it does (init the barrier with the producers'
// count). PTX ISA 9.0, cp.async.mbarrier.arrive (PTX ISA 7.0, sm_80; `.shared::cta` as written
// here needs PTX ISA 7.8).
void cp_async_mbarrier_arrive(KernelBuilder& b, Value mbar, bool noinc = true);

// --- sm_90: cp.async.bulk.tensor (TMA) ----------------------------------------------------------

// `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
//  [dst], [tensor_map, {c0, ..., cN-1}], [mbar]{, cta_mask}`: starts loading the box of the tensor
// map at `coords` (tile mode) into shared memory at `dst`; when the bytes have landed, the
// mbarrier at `mbar` (in the same CTA as `dst`) sees a complete-tx of that many bytes. With
// `cta_mask`, the box lands at the same offset in every CTA of the cluster whose
// %cluster_ctarank bit is set, and so does the complete-tx on each CTA's barrier at `mbar`.
// PTX ISA 9.0 §9.7.9.25.5.2 cp.async.bulk.tensor: the rank N = coords.size() is in [1, 5]; each
// coordinate is a 32-bit integer (.s32); `tensor_map` is the generic address (64-bit) of the
// descriptor (KernelBuilder::tensor_map_param); `cta_mask` is 16 bits (u16 or b16). Multicast
// is advised only on sm_90a (it may be slow on plain sm_90).
void tma_load(KernelBuilder& b, Value smem_dst, Value tensor_map, const std::vector<Value>& coords, Value mbar,
              std::optional<Value> cta_mask = {});

// `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [tensor_map, {c0, ..., cN-1}], [src]`:
// starts storing the box at shared `src` into the tensor at `coords`; completes through the bulk
// async-groups below. Write `src` from threads, then fence_proxy_async(b, Space::Shared) and a
// barrier before the store reads it (sync.hpp).
// PTX ISA 9.0 §9.7.9.25.5.2 cp.async.bulk.tensor: the same rules on rank, coordinates and map.
void tma_store(KernelBuilder& b, Value tensor_map, const std::vector<Value>& coords, Value smem_src);

// `cp.async.bulk.prefetch.tensor.Nd.L2.global.tile [tensor_map, {c0, ..., cN-1}]`: starts bringing
// the box of the tensor map at `coords` into the L2 cache; no shared memory, no completion to wait
// for (a hint: a later load of the box finds it in L2). PTX ISA 9.0, cp.async.bulk.prefetch.tensor
// (PTX ISA 8.0, sm_90; the `.tile` load mode): the same rules on rank, coordinates and map as the
// loads.
void tma_prefetch(KernelBuilder& b, Value tensor_map, const std::vector<Value>& coords);

// `cp.async.bulk.commit_group`: closes a bulk async-group of this thread's prior bulk copies.
// PTX ISA 9.0 §9.7.9.25.6.1 cp.async.bulk.commit_group.
void cp_async_bulk_commit_group(KernelBuilder& b);

// `cp.async.bulk.wait_group{.read} n`: waits until at most the `n` most recent bulk async-groups
// are pending; with `read`, only until their sources have been read (the shared memory of a
// TMA store may then be reused).
// PTX ISA 9.0 §9.7.9.25.6.2 cp.async.bulk.wait_group: n is a non-negative integer constant.
void cp_async_bulk_wait_group(KernelBuilder& b, int n, bool read = false);

}  // namespace tessel::codegen
