// gemm/gemm.cpp: the one-call GEMM (gemm.hpp): the steps of a choice, the process-wide cache of
// choices and workspaces, and the launches.
#include "tessel/kernels/gemm.hpp"

#include <map>
#include <mutex>
#include <sstream>

#include "gemm/packing.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/launch.hpp"
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

// The GEMM's own arguments: split-K's count, and its workspace after the copies' regions.
GemmArguments with_split_k(const GemmChoice& choice, GemmArguments g, uint64_t workspace, std::size_t copies) {
  if (choice.splits > 1) {
    g.split_k = choice.splits;
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

// What a choice depends on: the device, the types, extents, strides, alignment of each address
// (mod 16 bytes), beta's being 0, and whether C is out.
std::string shape_key(const GemmArguments& g, const GemmDevice& d) {
  std::ostringstream s;
  s << d.cc << '/' << d.sm_count;
  auto view = [&](const TensorView& v) {
    s << '|' << static_cast<int>(v.dtype) << ':' << (v.data % 16);
    for (int64_t e : v.shape) s << ',' << e;
    s << ':';
    for (int64_t e : v.stride) s << ',' << e;
  };
  view(g.A);
  view(g.B);
  view(g.out);
  if (g.distinct_c()) view(*g.C);
  s << '|' << static_cast<int>(g.accumulator_type) << (g.beta != 0 ? 'b' : '0') << g.split_k;
  return s.str();
}

struct Cache {
  std::mutex mutex;
  std::map<std::string, GemmChoice> choices;                     // never erased: references stay valid
  std::map<std::pair<void*, void*>, rt::DeviceBuffer> workspaces;  // by (context, stream)
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: launches may outlive static destruction order
  return *c;
}

}  // namespace

const GemmChoice& gemm(const GemmArguments& args, rt::StreamRef stream, GemmSchedule schedule) {
  const GemmDevice dev = gemm_device_in_use();
  const std::string key = shape_key(args, dev) + '|' + std::to_string(static_cast<int>(schedule));
  Cache& c = cache();
  const GemmChoice* choice = nullptr;
  {
    std::lock_guard lock(c.mutex);
    auto it = c.choices.find(key);
    if (it != c.choices.end()) choice = &it->second;
  }
  if (!choice) {
    GemmRanking r = rank_gemm(args, dev, schedule);
    if (r.ranked.empty()) {
      std::string why;
      for (size_t i = 0; i < r.refused.size() && i < 6; ++i)
        why += "\n  " + r.refused[i].first + ": " + r.refused[i].second;
      if (r.refused.size() > 6) why += "\n  (and " + std::to_string(r.refused.size() - 6) + " more)";
      fail("tessel::gemm: no kernel of the catalog runs these arguments on sm_" + std::to_string(dev.cc) + ":" + why);
    }
    std::lock_guard lock(c.mutex);
    choice = &c.choices.emplace(key, std::move(r.ranked.front())).first->second;
  }
  uint64_t workspace = 0;
  if (choice->workspace_bytes > 0) {
    std::lock_guard lock(c.mutex);
    rt::DeviceBuffer& w = c.workspaces[{rt::current_context(), stream.native()}];
    if (w.size() < choice->workspace_bytes) {
      rt::Event queued(false);  // the old buffer may still be read by work queued on this stream
      queued.record(stream);
      queued.synchronize();
      w = rt::DeviceBuffer(choice->workspace_bytes);
    }
    workspace = w.ptr();
  }
  for (const GemmStep& s : gemm_steps(*choice, args, workspace)) s.kernel->run(s.args, stream);
  return *choice;
}

}  // namespace tessel::kernels
