// elementwise/host.cpp: the host side of the elementwise kernels: argument checks, the problem's
// normal form (modes sorted by C's strides, extent-1 modes dropped, mergeable modes merged), the
// choice of kernel (vector width by alignment, index width by span, the read-only path when C
// overlaps no input), the launch plan. The one-call path and its caches: call.cpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <numeric>
#include <optional>

#include "elementwise/steps.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

namespace tessel::kernels {

using namespace codegen;
using namespace elementwise_steps;

namespace {

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + ")";
}

// The operands the operation reads or writes: A and C, and B for binary operations.
std::vector<int> operands(ElementwiseOp op) { return is_unary(op) ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2}; }

const TensorView& view(const ElementwiseArguments& a, int x) { return x == 0 ? a.A : x == 1 ? a.B : a.C; }
TensorView& view(ElementwiseArguments& a, int x) { return x == 0 ? a.A : x == 1 ? a.B : a.C; }

bool same_view(const TensorView& a, const TensorView& b) {
  if (a.data != b.data || a.shape != b.shape) return false;
  for (size_t k = 0; k < a.shape.size(); ++k)
    if (a.shape[k] > 1 && a.stride[k] != b.stride[k]) return false;
  return true;
}

// C's elements are distinct when, with its modes sorted by stride, each stride reaches past the
// modes below it. (A sufficient condition; interleavings that are still injective are refused.)
void check_output_distinct(const TensorView& c) {
  std::vector<std::pair<int64_t, int64_t>> modes;  // (stride, extent) of modes with extent > 1
  for (size_t k = 0; k < c.shape.size(); ++k)
    if (c.shape[k] > 1) modes.emplace_back(c.stride[k], c.shape[k]);
  std::sort(modes.begin(), modes.end());
  int64_t reach = 1;  // the span of the modes so far, in elements
  for (const auto& [s, e] : modes) {
    if (s < reach) {
      fail("elementwise: C " + tuple(c.shape) + ":" + tuple(c.stride) + " writes some elements twice (stride " +
           std::to_string(s) + " of the mode of extent " + std::to_string(e) +
           " falls inside the modes below it): an output needs distinct elements");
    }
    reach = s * (e - 1) + reach;
  }
}

// Whether 32-bit offsets may overflow: some operand spans, or some extent (a coordinate plus a
// tile's slack) reaches, past 2^31 less a margin.
int64_t offset_reach(const ElementwiseArguments& a, const std::vector<int64_t>& shape) {
  int64_t reach = 0;
  for (int x : operands(a.op)) reach = std::max(reach, view(a, x).span_bytes());
  for (int64_t e : shape) reach = std::max(reach, e);
  return reach;
}
bool needs_wide_index(int64_t reach) { return reach > (int64_t{1} << 31) - (int64_t{1} << 22); }

// A staged copy's tile is halved along mode 0 (its vector) while the grid has fewer blocks than
// this: about 8 per SM of a 132-SM H100 (there is no device query here). A 2000 x 1500 bf16 copy
// had 376 blocks of 256 x 32, under 3 per SM in one wave, each loading its tile, waiting at the
// barrier and storing it once (15.6 us, 0.77 TB/s, on an H100); at 64 x 32 it gets 1504.
constexpr int64_t kStagedTargetBlocks = 1024;

int64_t tiles_of(const ElementwiseConfig& c, const std::vector<int64_t>& shape) {
  const std::vector<int64_t> tile = c.tile();
  int64_t n = 1;
  for (size_t k = 0; k < shape.size(); ++k) n *= (shape[k] + tile[k] - 1) / tile[k];
  return n;
}

// The tile of a staged configuration (complete_staged_config's, the vector at most what the
// strides allow) for the problem's shape. Where C aliases no input, the vectors are narrowed until
// every extent fits shifted edge tiles (ElementwiseConfig::shifted: no ragged path, 32 registers
// instead of 165), down to 4-byte vectors of C; where none fit, the tile stays and its ragged
// path with it. Then the vector is halved, down to 4 bytes, while the grid has fewer than
// kStagedTargetBlocks blocks.
void choose_staged_tile(ElementwiseConfig& c, const std::vector<int64_t>& shape) {
  const int min_vector = std::max(1, 4 / bytes(c.dtype));
  const int warps = c.threads / 32;
  auto lanes_fit = [&](int v) { return (32 * v) % (warps * c.stage_vector) == 0; };
  if (c.nc) {
    ElementwiseConfig s = c;
    while (s.vector > min_vector && lanes_fit(s.vector / 2) &&
           (shape[0] % s.vector != 0 || shape[0] < 32 * int64_t{s.vector}))
      s.vector /= 2;
    while (s.stage_vector > 1 && shape[1] % s.stage_vector != 0) s.stage_vector /= 2;
    s.shifted = true;
    if (shifted_extent_refusal(s, shape).empty()) c = s;
  }
  while (c.vector > min_vector && lanes_fit(c.vector / 2) && tiles_of(c, shape) < kStagedTargetBlocks) c.vector /= 2;
}

}  // namespace

namespace elementwise_steps {

// The checks that read the addresses: no null operand, C overlapping no input but exactly (in
// place: each element is read before it is written, by the same thread). For a problem that is not
// empty, after the layout checks.
void check_addresses(const ElementwiseArguments& args) {
  const std::vector<int> ops = operands(args.op);
  const TensorView& C = args.C;
  for (int x : ops) {
    if (view(args, x).data == 0) fail(std::string("elementwise: ") + kOperandNames[x] + " is a null pointer");
  }
  for (int x : ops) {
    if (x == 2) continue;
    const TensorView& t = view(args, x);
    const uint64_t t_end = t.data + static_cast<uint64_t>(t.span_bytes());
    const uint64_t c_end = C.data + static_cast<uint64_t>(C.span_bytes());
    if (t.data < c_end && C.data < t_end && !same_view(t, C)) {
      fail(std::string("elementwise: C [") + hex(C.data) + ", " + hex(c_end) + ") overlaps " + kOperandNames[x] + " [" +
           hex(t.data) + ", " + hex(t_end) + ") without being the same view (in place is allowed, partial overlap is not)");
    }
  }
}

// axpby on integers takes integer alpha and beta (the values, not the layouts: checked every call).
void check_scalars(const ElementwiseArguments& args) {
  const Type dt = args.C.dtype;
  if (args.op != ElementwiseOp::Axpby || is_float(dt)) return;
  for (double v : {args.alpha, args.beta}) {
    if (v != std::floor(v) || v < INT32_MIN || v > INT32_MAX) {
      fail("elementwise: axpby on " + std::string(ptx_name(dt)) + " takes integer alpha and beta, got " +
           std::to_string(v));
    }
  }
}

}  // namespace elementwise_steps

bool ElementwiseProblem::empty() const {
  return std::any_of(shape.begin(), shape.end(), [](int64_t e) { return e == 0; });
}

ElementwiseProblem normalize_elementwise(const ElementwiseArguments& args) {
  const std::vector<int> ops = operands(args.op);
  const TensorView& C = args.C;
  for (int x : ops) {
    const TensorView& t = view(args, x);
    const std::string n = kOperandNames[x];
    if (t.dtype != C.dtype) {
      fail("elementwise: " + n + " is " + ptx_name(t.dtype) + " but C is " + ptx_name(C.dtype) +
           " (A, B and C have one element type; convert first)");
    }
    if (t.stride.size() != t.shape.size()) {
      fail("elementwise: " + n + " has shape " + tuple(t.shape) + " but strides " + tuple(t.stride) +
           " (one stride per mode)");
    }
    if (t.shape != C.shape) fail("elementwise: " + n + " has shape " + tuple(t.shape) + " but C has " + tuple(C.shape));
    for (size_t k = 0; k < t.shape.size(); ++k) {
      if (t.shape[k] < 0) fail("elementwise: " + n + " has extent " + std::to_string(t.shape[k]) + " in mode " + std::to_string(k));
      if (t.stride[k] < 0) {
        fail("elementwise: " + n + " has stride " + std::to_string(t.stride[k]) + " in mode " + std::to_string(k) +
             " (strides are >= 0)");
      }
    }
  }
  const Type dt = C.dtype;
  if (dt != Type::F32 && dt != Type::F16 && dt != Type::BF16 && dt != Type::F64 && dt != Type::S32 && dt != Type::S8) {
    fail(std::string("elementwise: element type ") + ptx_name(dt) + " is not supported (f32, f16, bf16, f64, s32, s8)");
  }
  check_scalars(args);
  ElementwiseProblem p;
  p.args = args;
  p.shape = C.shape;
  if (p.empty()) return p;  // nothing to read or write: no further checks
  check_addresses(args);
  check_output_distinct(C);
  // Sort the modes by C's strides (a permutation of all three tensors' modes is the same problem),
  // drop extent-1 modes, and merge a mode into the one below it where every operand allows it.
  const size_t r = p.shape.size();
  std::vector<size_t> order(r);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return C.stride[i] < C.stride[j]; });
  std::vector<int64_t> shape;
  std::array<std::vector<int64_t>, 3> stride;
  for (size_t i : order) {
    const int64_t e = p.shape[i];
    if (e == 1) continue;
    bool merge = !shape.empty();
    for (int x : ops) {
      const TensorView& t = view(args, x);
      merge = merge && t.stride[i] == stride[x].back() * shape.back();
    }
    if (merge) {
      shape.back() *= e;
      continue;
    }
    shape.push_back(e);
    for (int x : ops) stride[x].push_back(view(args, x).stride[i]);
  }
  if (shape.empty()) {  // a single element
    shape.push_back(1);
    for (int x : ops) stride[x].push_back(1);
  }
  if (shape.size() > 4) {
    fail("elementwise: rank " + std::to_string(shape.size()) + " after merging contiguous modes: shape " +
         tuple(shape) + " (the kernels take rank 1 to 4)");
  }
  p.shape = shape;
  for (int x : ops) {
    view(p.args, x).shape = shape;
    view(p.args, x).stride = stride[x];
  }
  if (is_unary(args.op)) p.args.B = p.args.A;  // not read; keeps the views consistent
  return p;
}

ElementwiseConfig choose_elementwise_config(const ElementwiseProblem& p, const ElementwiseOptions& o) {
  const ElementwiseArguments& a = p.args;
  const std::vector<int> ops = operands(a.op);
  ElementwiseConfig c;
  c.op = a.op;
  c.dtype = a.C.dtype;
  c.rank = static_cast<int>(p.shape.size());
  c.major = 0;  // normalize_elementwise sorted C's smallest stride first
  c.threads = o.threads;
  c.nc = a.C.data != a.A.data && (is_unary(a.op) || a.C.data != a.B.data);  // C aliases no input
  const int64_t eb = bytes(c.dtype);
  for (int x : ops) c.unit[x] = view(a, x).stride[0] == 1 || p.shape[0] == 1;
  if (is_unary(a.op)) c.unit[1] = true;
  // The widest vector every unit-stride operand allows: its address and its other strides
  // multiples of the vector. A misaligned pointer gets a narrower vector, not a fault.
  int64_t v = 16 / eb;
  auto fits = [&](int64_t w) {
    for (int x : ops) {
      const TensorView& t = view(a, x);
      if (!c.unit[x]) continue;
      if (t.data % static_cast<uint64_t>(w * eb) != 0) return false;
      for (size_t k = 1; k < t.stride.size(); ++k)
        if (t.stride[k] % w != 0) return false;
    }
    return true;
  };
  while (v > 1 && !fits(v)) v /= 2;
  c.vector = static_cast<int>(v);
  // Unless given, a narrow vector keeps as many bytes in flight per thread as a 16-byte one, in
  // more vectors: with one 2-byte vector a thread a GEMM's packing copies moved 0.54-0.81 TB/s on
  // an H200, with eight 1.33-3.10 (docs/performance.md, session 40). A negative `rows` is passed on
  // for the configuration's check to refuse.
  c.rows = o.rows != 0 ? o.rows : static_cast<int>(std::clamp<int64_t>(16 / (v * eb), 1, 8));
  // An input unit-stride in mode 1 instead (a transposed input, as a GEMM operand packed into
  // another major) is staged through shared memory: its tile read with the lanes along mode 1, so
  // that neither its reads nor C's writes cross rows element by element. Where mode 1 has at
  // least the 32 elements of the staged tile's extent there, and C moves in vectors along mode 0.
  const int warps = c.threads / 32;
  if (o.stage && c.rank >= 2 && c.unit[2] && p.shape[1] >= 32 && warps >= 2 && 32 % warps == 0) {
    for (int x : ops)
      if (x != 2 && !c.unit[x] && view(a, x).stride[1] == 1) c.staged[static_cast<size_t>(x)] = true;
    if (c.staged[0] || c.staged[1]) {
      complete_staged_config(c, [&](int x, int w) {
        const TensorView& t = view(a, x);
        if (t.data % static_cast<uint64_t>(w * eb) != 0) return false;
        for (size_t k = 0; k < t.stride.size(); ++k)
          if (k != 1 && t.stride[k] % w != 0) return false;
        return true;
      });
      choose_staged_tile(c, p.shape);
    }
  }
  // 32-bit offsets while every byte offset (and coordinate, with a tile's slack) fits.
  c.wide_index = needs_wide_index(offset_reach(a, p.shape));
  return c;
}

namespace elementwise_steps {

template <class T>
std::vector<std::byte> bytes_of(T v) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// alpha or beta as the kernel takes it (f64 for f64, f32 for the other floats, else s32), written
// to `out` (8 bytes at most); returns its size.
size_t write_scalar(Type t, double v, void* out) {
  if (t == Type::F64) {
    std::memcpy(out, &v, sizeof v);
    return sizeof v;
  }
  if (is_float(t)) {
    const float f = static_cast<float>(v);
    std::memcpy(out, &f, sizeof f);
    return sizeof f;
  }
  const int32_t i = static_cast<int32_t>(v);
  std::memcpy(out, &i, sizeof i);
  return sizeof i;
}
std::vector<std::byte> scalar_param(Type t, double v) {
  std::byte b[8];
  return std::vector<std::byte>(b, b + write_scalar(t, v, b));
}

// The grid and the parameter values of config `c` for problem `a` (shape `shape`), after checking
// that the problem meets what the kernel assumes.
Prepared prepare_for(const ElementwiseConfig& c, const ElementwiseArguments& a, const ElementwiseOptions& o) {
  Prepared r;
  r.config = c;
  const std::vector<int64_t>& shape = a.C.shape;
  const std::string kernel = "elementwise: kernel " + c.name() + ": ";
  if (a.op != c.op) fail(kernel + "computes " + op_name(c.op) + ", the arguments ask for " + op_name(a.op));
  if (a.C.dtype != c.dtype) fail(kernel + "takes " + ptx_name(c.dtype) + ", the arguments are " + ptx_name(a.C.dtype));
  if (static_cast<int>(shape.size()) != c.rank)
    fail(kernel + "takes rank " + std::to_string(c.rank) + ", the arguments have rank " + std::to_string(shape.size()));
  if (c.is_static() && shape != c.static_shape)
    fail(kernel + "is static for shape " + tuple(c.static_shape) + ", the arguments have " + tuple(shape));
  const int64_t eb = bytes(c.dtype);
  for (int x : operands(a.op)) {
    const TensorView& t = view(a, x);
    const std::string n = kOperandNames[x];
    if (c.is_static() && t.stride != c.static_stride[x])
      fail(kernel + "is static for " + n + " strides " + tuple(c.static_stride[x]) + ", got " + tuple(t.stride));
    if (c.staged[static_cast<size_t>(x)]) {
      const size_t s = static_cast<size_t>(c.second());
      if (t.stride[s] != 1 && shape[s] > 1)
        fail(kernel + "stages " + n + " through shared memory along mode " + std::to_string(c.second()) +
             " and needs stride 1 there, got " + tuple(t.stride));
      const int w = c.stage_vector;
      if (t.data % static_cast<uint64_t>(w * eb) != 0)
        fail(kernel + "stages " + n + " in " + std::to_string(w * eb) + "-byte vectors; its address " + hex(t.data) +
             " is not aligned to them");
      for (size_t k = 0; k < t.stride.size(); ++k)
        if (k != s && t.stride[k] % w != 0)
          fail(kernel + "stages " + n + " in vectors of " + std::to_string(w) + "; its stride " +
               std::to_string(t.stride[k]) + " in mode " + std::to_string(k) + " is not a multiple");
    }
    if (!c.unit[x]) continue;
    if (t.stride[c.major] != 1 && shape[c.major] > 1)
      fail(kernel + "needs stride 1 in mode " + std::to_string(c.major) + " of " + n + ", got " + tuple(t.stride));
    if (t.data % static_cast<uint64_t>(c.vector * eb) != 0)
      fail(kernel + "moves " + n + " in " + std::to_string(c.vector * eb) + "-byte vectors; its address " + hex(t.data) +
           " is not aligned to them");
    for (size_t k = 0; k < t.stride.size(); ++k) {
      if (static_cast<int>(k) != c.major && t.stride[k] % c.vector != 0)
        fail(kernel + "moves " + n + " in vectors of " + std::to_string(c.vector) + "; its stride " +
             std::to_string(t.stride[k]) + " in mode " + std::to_string(k) + " is not a multiple");
    }
  }
  if (c.shifted) {
    const std::string why = shifted_extent_refusal(c, shape);
    if (!why.empty()) fail(kernel + why + " " + tuple(shape));
    for (int x : operands(a.op)) {
      if (x == 2) continue;
      const TensorView& t = view(a, x);
      if (t.data < a.C.data + static_cast<uint64_t>(a.C.span_bytes()) &&
          a.C.data < t.data + static_cast<uint64_t>(t.span_bytes()))
        fail(kernel + "writes its shifted edge tiles' overlap twice, so C must overlap no input; it overlaps " +
             kOperandNames[x]);
    }
  }
  const int64_t reach = offset_reach(a, shape);
  if (!c.wide_index && needs_wide_index(reach))
    fail(kernel + "uses 32-bit offsets; the operands span " + std::to_string(reach) + " bytes");
  const int64_t ntiles = tiles_of(c, shape);
  int64_t blocks = std::min<int64_t>(ntiles, INT32_MAX);
  if (o.max_blocks > 0) blocks = std::min<int64_t>(blocks, o.max_blocks);
  r.grid = {static_cast<unsigned>(blocks), 1, 1};
  r.block = {static_cast<unsigned>(c.threads), 1, 1};
  auto integer = [&](int64_t v) {
    return c.wide_index ? bytes_of<int64_t>(v) : bytes_of<int32_t>(static_cast<int32_t>(v));
  };
  for (int x : operands(a.op)) {
    r.values[kOperandNames[x]] = bytes_of<uint64_t>(view(a, x).data);
    for (size_t k = 0; k < shape.size(); ++k)
      r.values[std::string("s") + kOperandNames[x] + std::to_string(k)] = integer(view(a, x).stride[k]);
  }
  for (size_t k = 0; k < shape.size(); ++k) r.values["M" + std::to_string(k)] = integer(shape[k]);
  r.values["ntiles"] = integer(ntiles);
  r.values["alpha"] = scalar_param(c.dtype, a.alpha);
  r.values["beta"] = scalar_param(c.dtype, a.beta);
  return r;
}

Prepared prepare(const ElementwiseArguments& args, const ElementwiseOptions& o) {
  const ElementwiseProblem p = normalize_elementwise(args);
  if (p.empty()) return Prepared{};
  return prepare_for(choose_elementwise_config(p, o), p.args, o);
}

// Generated modules by configuration name: generation runs once per configuration and process.
const Module& module_for(const ElementwiseConfig& c) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Module>> modules;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& m = modules[c.name()];
  if (!m) m = std::make_unique<Module>(elementwise_kernel(c));
  return *m;
}

// The kernel's parameters, in its declaration order, from the prepared values by name.
std::vector<std::vector<std::byte>> ordered_params(const Kernel& k, const Prepared& p) {
  std::vector<std::vector<std::byte>> out;
  for (const Param& prm : k.params) out.push_back(p.values.at(prm.name));
  return out;
}

// Allocations the driver confirmed (cuPointerGetAttribute), for the epoch they were confirmed in
// (rt::allocation_epoch: tessel freed nothing since). A view inside one needs no driver query.
struct KnownAllocations {
  std::mutex mutex;
  uint64_t epoch = ~uint64_t{0};
  std::vector<rt::Allocation> known;  // at most kMax, the latest last
  static constexpr size_t kMax = 64;

  bool holds(uint64_t start, uint64_t end, uint64_t now) {
    std::lock_guard lock(mutex);
    if (epoch != now) return false;
    for (const rt::Allocation& a : known)
      if (start >= a.start && end <= a.start + a.bytes) return true;
    return false;
  }
  void add(const rt::Allocation& a, uint64_t now) {
    std::lock_guard lock(mutex);
    if (epoch != now) {
      known.clear();
      epoch = now;
    }
    if (known.size() == kMax) known.erase(known.begin());
    known.push_back(a);
  }
};

// Each operand's span inside one device allocation. The driver is asked about an address only
// when no allocation confirmed since tessel last freed memory holds the whole span.
void check_in_allocation(const ElementwiseArguments& args) {
  static auto* confirmed = new KnownAllocations;  // never destroyed
  const uint64_t epoch = rt::allocation_epoch();  // read first: a free during the checks shows next time
  for (int x : operands(args.op)) {
    const TensorView& t = view(args, x);
    const uint64_t end = t.data + static_cast<uint64_t>(t.span_bytes());
    if (confirmed->holds(t.data, end, epoch)) continue;
    const rt::Allocation al = rt::device_allocation(t.data);  // throws for host memory
    if (end > al.start + al.bytes) {
      fail(std::string("elementwise: ") + kOperandNames[x] + " " + t.to_string() + " ends at " + hex(end) +
           ", past its allocation [" + hex(al.start) + ", " + hex(al.start + al.bytes) + ")");
    }
    confirmed->add(al, epoch);
  }
}

}  // namespace elementwise_steps

namespace elementwise_steps {

LaunchPlan plan_of(const Prepared& p, bool with_module) {
  LaunchPlan plan;
  if (p.grid[0] == 0) return plan;
  const Module& m = module_for(p.config);
  if (with_module) plan.module = m;
  plan.kernel = p.config.name();
  plan.grid = p.grid;
  plan.block = p.block;
  plan.params = ordered_params(m.kernels.at(0), p);
  return plan;
}

}  // namespace elementwise_steps

LaunchPlan elementwise_plan(const ElementwiseArguments& args, const ElementwiseOptions& o) {
  return plan_of(prepare(args, o));
}

LaunchPlan elementwise_plan(const ElementwiseConfig& c, const ElementwiseArguments& args, const ElementwiseOptions& o) {
  const ElementwiseProblem p = normalize_elementwise(args);  // the argument checks, not the normal form
  if (p.empty()) return LaunchPlan{};
  return plan_of(prepare_for(c, args, o));
}

}  // namespace tessel::kernels
