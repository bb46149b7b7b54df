// gemm/gemm.cpp: the one-call GEMM (gemm.hpp): the steps of a choice, the process-wide cache of
// choices and workspaces; the launches themselves: bound.hpp.
#include "tessel/kernels/gemm.hpp"

#include <map>
#include <memory>
#include <unordered_map>
#include <mutex>
#include <sstream>

#include "gemm/bound.hpp"
#include "gemm/packing.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/kernels/tuning_cache.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/memory.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::kernels {

namespace {

// The elementwise copy that moves an element of `t` bit for bit (its size: s8, f16, s32, f64;
// f16 widens exactly to f32 and back).
codegen::Type copy_type(codegen::Type t) {
  switch (codegen::bytes(t)) {
    case 1:
      return codegen::Type::S8;
    case 2:
      return codegen::Type::F16;
    case 4:
      return codegen::Type::S32;
    default:
      return codegen::Type::F64;
  }
}

// The copy of `from` into `to` (same shape): one matrix where `to` broadcasts over the batch.
GemmStep copy_step(const TensorView& from, const TensorView& to, const std::string& what) {
  ElementwiseArguments e;
  e.op = ElementwiseOp::Copy;
  e.A = from;
  e.C = to;
  if (to.rank() == 3 && to.shape[0] > 1 && to.stride[0] == 0) {
    e.A.shape[0] = e.C.shape[0] = 1;
  }
  e.A.dtype = e.C.dtype = copy_type(from.dtype);
  e.B = e.A;
  static std::map<codegen::Type, KernelPtr> kernels;  // the catalog's entries: their artifacts are cached
  static std::mutex mutex;
  KernelPtr k;
  {
    std::lock_guard lock(mutex);
    KernelPtr& slot = kernels[e.C.dtype];
    if (!slot) slot = find_kernel(std::string("tessel_elementwise_copy_") + codegen::ptx_name(e.C.dtype));
    k = slot;
  }
  return {k, e, what};
}

std::string layout_text(const TensorView& v) {
  std::ostringstream s;
  s << v.to_string();
  return s.str();
}

}  // namespace

namespace {

// The GEMM's own arguments: split-K's count or stream-K's workers, and its workspace after the
// copies' regions.
GemmArguments with_split_k(const GemmChoice& choice, GemmArguments g, uint64_t workspace, std::size_t copies) {
  if (choice.splits > 1 || choice.workers > 0) {
    g.split_k = choice.splits;
    g.stream_k_workers = choice.workers;
    g.workspace = workspace + split_k_workspace_offset(copies);
  }
  return g;
}

}  // namespace

std::vector<GemmStep> gemm_steps(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace) {
  if (!choice.kernel) fail("gemm_steps: a choice without a kernel");
  std::vector<GemmStep> steps;
  if (!choice.any_packed()) {
    steps.push_back({choice.kernel, with_split_k(choice, args, workspace, 0), "gemm"});
    return steps;
  }
  const std::optional<Packing> p = plan_packing(choice.kernel->metadata(), args, workspace);
  if (!p || p->packed != choice.packed) fail("gemm_steps: the arguments are not those the choice was made for");
  if (p->packed[kPackA]) steps.push_back(copy_step(args.A, p->views[kPackA], "copy A into the workspace: " + layout_text(p->views[kPackA])));
  if (p->packed[kPackB]) steps.push_back(copy_step(args.B, p->views[kPackB], "copy B into the workspace: " + layout_text(p->views[kPackB])));
  if (p->packed[kPackC]) steps.push_back(copy_step(args.c(), p->views[kPackC], "copy C into the workspace: " + layout_text(p->views[kPackC])));
  steps.push_back({choice.kernel, with_split_k(choice, p->packed_args, workspace, p->workspace_bytes), "gemm"});
  if (p->packed[kPackOut]) steps.push_back(copy_step(p->views[kPackOut], args.out, "copy out back from the workspace"));
  return steps;
}

namespace {

// What a choice and its launches depend on, as raw bytes: the context (hence the device), the
// types, extents and strides of A, B and out (and of C where it is a tensor of its own), each
// address modulo 16 bytes, the accumulator type, whether alpha and beta are 0, the split count
// asked for and the schedule. Written into
// `key` (reused: no allocation once it has grown).
void shape_key(std::string& key, const GemmArguments& g, void* context, GemmSchedule schedule) {
  key.clear();
  const auto raw = [&](const auto& x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  raw(context);
  const bool distinct = g.distinct_c();
  for (const TensorView* v : {&g.A, &g.B, &g.out, distinct ? &*g.C : nullptr}) {
    if (!v) continue;
    append_layout_key(key, *v);
    raw(static_cast<uint8_t>(v->data % 16));
  }
  raw(static_cast<uint8_t>(distinct));
  raw(static_cast<uint8_t>(g.C.has_value()));
  raw(static_cast<int32_t>(g.accumulator_type));
  raw(static_cast<uint8_t>((g.alpha != 0) | (g.beta != 0) << 1));
  raw(static_cast<int32_t>(g.split_k));
  raw(static_cast<int32_t>(g.stream_k_workers));
  raw(static_cast<int32_t>(schedule));
}

// One shape key's choice and the launches of the last arguments it ran.
struct Entry {
  GemmChoice choice;
  std::mutex mutex;                    // guards bound
  std::shared_ptr<const Bound> bound;  // shared: a launch in flight keeps its copy
};

struct Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries;  // never erased: references stay valid
  std::map<std::pair<void*, void*>, rt::DeviceBuffer> workspaces;   // by (context, stream)
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: launches may outlive static destruction order
  return *c;
}

}  // namespace

const GemmChoice& gemm(const GemmArguments& args, rt::StreamRef stream, GemmSchedule schedule) {
  void* context = rt::current_context();
  if (!context) {  // device 0's primary context, made current for the process (device_in_use)
    device_in_use();
    context = rt::current_context();
  }
  thread_local std::string key;
  shape_key(key, args, context, schedule);
  Cache& c = cache();
  Entry* entry = nullptr;
  {
    std::lock_guard lock(c.mutex);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) entry = it->second.get();
  }
  if (!entry) {
    const GemmDevice dev = gemm_device_in_use();
    GemmRanking r = rank_gemm(args, dev, schedule);
    if (r.ranked.empty())
      fail("tessel::gemm: no kernel of the catalog runs these arguments on sm_" + std::to_string(dev.cc) + ": " +
           r.refusals());
    auto fresh = std::make_unique<Entry>();
    // The tuning cache's kernel for the problem's class, unless a schedule or split count is forced.
    std::optional<GemmChoice> tuned;
    if (schedule == GemmSchedule::Any && args.split_k == 1 && args.stream_k_workers == 0) tuned = tuned_choice(args, dev);
    fresh->choice = tuned ? std::move(*tuned) : std::move(r.ranked.front());
    std::lock_guard lock(c.mutex);
    entry = c.entries.emplace(key, std::move(fresh)).first->second.get();  // a racing thread's entry wins
  }
  const GemmChoice& choice = entry->choice;
  uint64_t workspace = 0;
  if (choice.workspace_bytes > 0) {
    std::lock_guard lock(c.mutex);
    rt::DeviceBuffer& w = c.workspaces[{context, stream.native()}];
    if (w.size() < choice.workspace_bytes) {
      rt::Event queued(false);  // the old buffer may still be read by work queued on this stream
      queued.record(stream);
      queued.synchronize();
      w = rt::DeviceBuffer(choice.workspace_bytes);
    }
    workspace = w.ptr();
  }
  std::shared_ptr<const Bound> bound;
  {
    std::lock_guard lock(entry->mutex);
    bound = entry->bound;
  }
  if (!bound || !bound->same(args, workspace)) {  // other addresses, alpha or beta
    std::shared_ptr<const Bound> moved = bound ? move_gemm(*bound, args, workspace) : nullptr;
    bound = moved ? std::move(moved) : bind_gemm(choice, args, workspace);
    std::lock_guard lock(entry->mutex);
    entry->bound = bound;
  }
  for (const ReadyLaunch& l : bound->launches) launch_ready(l, stream);
  return choice;
}

}  // namespace tessel::kernels
