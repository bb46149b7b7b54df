// emulate.cpp: see emulate.hpp.
#include "emulate.hpp"

#include <algorithm>
#include <cstring>

#include <pybind11/pybind11.h>

#include "tessel/algebra/error.hpp"
#include "tessel/emulator.hpp"

namespace tessel::python {

namespace {

using kernels::TensorView;

// The host bytes a view addresses: [lo, hi), negative strides included (empty for no elements).
struct Span {
  uint64_t lo = 0, hi = 0;
};
Span span_of(const TensorView& v) {
  if (v.size() == 0) return {v.data, v.data};
  const int64_t elem = codegen::bytes(v.dtype);
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < v.rank(); ++i) {
    const int64_t reach = (v.shape[i] - 1) * v.stride[i] * elem;
    (reach < 0 ? lo : hi) += reach;
  }
  return {v.data + static_cast<uint64_t>(lo), v.data + static_cast<uint64_t>(hi + elem)};
}

// The views of one set of arguments, in a fixed order (inputs and outputs alike).
std::vector<TensorView*> views_of(kernels::Arguments& args) {
  if (auto* g = std::get_if<kernels::GemmArguments>(&args)) {
    std::vector<TensorView*> v{&g->A, &g->B, &g->out};
    if (g->C) v.push_back(&*g->C);
    return v;
  }
  auto& e = std::get<kernels::ElementwiseArguments>(args);
  return {&e.A, &e.B, &e.C};
}

// One emulator buffer holding a union of overlapping host spans.
struct Region {
  Span host;
  uint64_t device = 0;  // the emulator address of host.lo
};

}  // namespace

void run_emulated(kernels::Arguments args, const std::vector<const TensorView*>& outputs, size_t workspace_bytes,
                  const EmulatedLaunches& launches) {
  std::vector<TensorView*> views = views_of(args);
  // Merge the host spans that overlap (or touch) into regions.
  std::vector<Span> spans;
  for (const TensorView* v : views) {
    if (v->size() > 0) spans.push_back(span_of(*v));
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  std::vector<Region> regions;
  for (const Span& s : spans) {
    if (!regions.empty() && s.lo <= regions.back().host.hi) {
      regions.back().host.hi = std::max(regions.back().host.hi, s.hi);
    } else {
      regions.push_back({s, 0});
    }
  }
  emu::Memory memory;
  for (Region& r : regions) {
    const size_t n = r.host.hi - r.host.lo, skew = r.host.lo % 256;
    r.device = memory.alloc(n + skew, 256) + skew;
    memory.write(r.device, reinterpret_cast<const void*>(r.host.lo), n);
  }
  const auto region_of = [&](uint64_t host) -> const Region* {
    for (const Region& r : regions)
      if (host >= r.host.lo && host < r.host.hi) return &r;
    return nullptr;
  };
  // The views' addresses, now in emulator memory; the outputs' original spans for the copy back.
  std::vector<Span> out_spans;
  for (const TensorView* o : outputs) {
    if (o->size() > 0) out_spans.push_back(span_of(*o));
  }
  for (TensorView* v : views) {
    if (v->size() == 0) continue;
    const Region* r = region_of(span_of(*v).lo);
    check(r != nullptr, "emulate: a view outside every region");
    v->data = r->device + (v->data - r->host.lo);
  }

  const uint64_t workspace = workspace_bytes > 0 ? memory.alloc(workspace_bytes, 256) : 0;
  std::vector<codegen::LaunchPlan> plans;
  for (const auto& [k, step_args] : launches(args, workspace)) {
    const kernels::KernelMetadata& md = k->metadata();
    // Two persistent CTAs (clusters of them where the kernel clusters), as `tessel run --emulate`.
    kernels::LaunchTarget target{2 * md.design.cluster[0] * md.design.cluster[1] * md.design.cluster[2],
                                 emu::encode_tensor_map};
    plans.push_back(k->plan(step_args, k->compile(step_args, kEmulatorCc), target));
  }
  {
    pybind11::gil_scoped_release release;  // the host arrays are not touched while it runs
    for (const codegen::LaunchPlan& plan : plans) emu::run(plan, memory);
  }
  for (const Span& s : out_spans) {
    const Region* r = region_of(s.lo);
    check(r != nullptr, "emulate: an output outside every region");
    memory.read(r->device + (s.lo - r->host.lo), reinterpret_cast<void*>(s.lo), s.hi - s.lo);
  }
}

void run_emulated(const kernels::KernelPtr& k, const kernels::Arguments& args, const std::vector<const TensorView*>& outputs) {
  run_emulated(args, outputs, 0, [&](const kernels::Arguments& a, uint64_t) {
    return std::vector<std::pair<kernels::KernelPtr, kernels::Arguments>>{{k, a}};
  });
}

}  // namespace tessel::python
