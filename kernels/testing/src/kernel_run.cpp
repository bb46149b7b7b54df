// kernel_run.cpp: see kernel_run.hpp. One check per operation, written against Machine, so that a
// GPU run and an emulated one differ only in the problem's size.
#include "tessel/testing/kernel_run.hpp"

#include <algorithm>

#include "tessel/testing/elementwise_check.hpp"
#include "tessel/testing/gemm_check.hpp"

namespace tessel::kernels {

namespace {

// A static elementwise shape bakes its size into the kernel: past this many elements (about a
// second of emulation at rank 2) an emulated run is refused unless `size` allows it.
constexpr int64_t kStaticElements = int64_t{1} << 20;

// A GEMM: ragged M and N over a few tiles, K over a few k-tiles (fewer in the emulator), a batch,
// beta = 0 half the time (out poisoned then), every element against the f64 reference.
DemoRun run_gemm(const Kernel& k, Machine& machine, std::mt19937_64& rng) {
  const KernelMetadata& md = k.metadata();
  const int tile_k = std::max(md.design.tile[2], 1);
  const GemmProblem p = machine.emulated() ? make_gemm_problem(md, rng, false, 3 * tile_k, 2)
                                           : make_gemm_problem(md, rng, false, 5 * tile_k, 3);
  const uint64_t a = machine.upload(p.A.bytes), b = machine.upload(p.B.bytes), out = machine.upload(p.out.bytes);
  GemmArguments args = p.arguments(a, b, out);
  // A split-K kernel splits (up to 3 ways, as the k-tiles allow) into a poisoned workspace.
  const auto schedule = md.options.find("schedule");
  if (schedule != md.options.end() && schedule->second == "split-k") {
    args.split_k = static_cast<int>(std::min<int64_t>(3, (args.A.shape.back() + tile_k - 1) / tile_k));
    args.split_k = std::max(args.split_k, 1);
    if (const size_t ws = k.workspace_size(args)) args.workspace = machine.poisoned(ws, 0xFF);
  }
  DemoRun r;
  r.kernel_ms = machine.run(k, args);
  const std::string stats = machine.stats();
  r.problem = p.describe() + (args.split_k > 1 ? ", split_k " + std::to_string(args.split_k) : "") +
              (stats.empty() ? "" : ", " + stats);
  r.bytes = static_cast<double>(p.A.bytes.size() + p.B.bytes.size() + 2 * p.out.bytes.size());
  const std::string diff = check_gemm(p, machine.download(out, p.out.bytes.size()));
  r.ok = diff.empty();
  r.result = r.ok ? "every element matches the host reference, bytes between them intact" : diff;
  return r;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t e : shape) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

// An elementwise kernel: a random problem of the form it generates for (its configuration's
// rank, majors, vector alignment; the static shape when static), each operand on its own buffer.
DemoRun run_elementwise(const Kernel& k, Machine& machine, std::mt19937_64& rng, int64_t size) {
  const std::optional<ElementwiseConfig> c = elementwise_config_of(k);
  if (!c) throw RunRefused(k.name() + ": no random problem for an elementwise kernel of class " + k.metadata().kernel_class);
  const int64_t max_elements = machine.emulated() ? size : int64_t{1} << 20;
  if (machine.emulated() && c->is_static()) {  // refused up front, not after minutes of emulation
    int64_t n = 1;
    for (int64_t e : c->static_shape) n *= e;
    if (n > std::max(kStaticElements, size))
      throw RunRefused("its static shape " + shape_text(c->static_shape) + " (" + std::to_string(n) +
                       " elements) is more than the emulator runs in seconds (" + std::to_string(kStaticElements) +
                       "); --shape dynamic runs a random shape of --size elements, --size " + std::to_string(n) +
                       " this one anyway");
  }
  const ElementwiseCase ec = random_elementwise_case(*c, rng, max_elements);
  const bool unary = is_unary(c->op);
  const uint64_t a = machine.upload(ec.a), b = unary ? a : machine.upload(ec.b);
  const size_t c_size = ec.c_bytes + ElementwiseCase::kGuardBytes;
  const uint64_t cbuf = machine.poisoned(c_size, ElementwiseCase::kPoison);
  const ElementwiseArguments args = at_addresses(ec.args, a, b, cbuf);
  DemoRun r;
  r.kernel_ms = machine.run(k, args);
  const std::string stats = machine.stats();
  r.problem = "shape " + shape_text(ec.args.C.shape) + (stats.empty() ? "" : ", " + stats);
  const int64_t n = ec.args.C.size();
  r.bytes = static_cast<double>(n * codegen::bytes(c->dtype) * (unary ? 2 : 3));
  const std::string diff = check_elementwise(ec, machine.download(cbuf, c_size));
  r.ok = diff.empty();
  r.result = r.ok ? "all " + std::to_string(n) + " elements match the host, padding and guard intact" : diff;
  return r;
}

}  // namespace

DemoRun run_gemm_choice(const GemmChoice& choice, const GemmProblem& p, Machine& machine, const GemmOffsets& at) {
  // Each operand's bytes after `offset` bytes of poison; the address of its first byte.
  auto place = [&](const std::vector<uint8_t>& bytes, uint64_t offset) {
    std::vector<uint8_t> padded(offset, 0xFF);
    padded.insert(padded.end(), bytes.begin(), bytes.end());
    return machine.upload(padded) + offset;
  };
  const uint64_t a = place(p.A.bytes, at.a), b = place(p.B.bytes, at.b), o = place(p.out.bytes, at.out);
  const uint64_t c = p.C ? place(p.C->bytes, at.c) : 0;
  const uint64_t ws = choice.workspace_bytes ? machine.poisoned(choice.workspace_bytes, 0xFF) : 0;
  DemoRun r;
  std::string steps;
  for (const GemmStep& s : gemm_steps(choice, p.arguments(a, b, o, c), ws)) {
    r.kernel_ms += machine.run(*s.kernel, s.args);
    steps += (steps.empty() ? "" : "; ") + s.what + " (" + s.kernel->name() + ")";
  }
  r.problem = p.describe() + ": " + steps;
  std::string diff = check_gemm(p, machine.download(o, p.out.bytes.size()));
  if (diff.empty() && at.out && machine.download(o - at.out, at.out) != std::vector<uint8_t>(at.out, 0xFF))
    diff = "bytes before out were written";
  if (diff.empty() && p.C) {
    std::vector<uint8_t> c_bytes(at.c, 0xFF);
    c_bytes.insert(c_bytes.end(), p.C->bytes.begin(), p.C->bytes.end());
    if (machine.download(c - at.c, c_bytes.size()) != c_bytes) diff = "C was written";
  }
  r.ok = diff.empty();
  r.result = r.ok ? "every element matches the host reference, bytes between them intact" : diff;
  return r;
}

DemoRun run_kernel(const Kernel& k, Machine& machine, uint64_t seed, int64_t size) {
  std::mt19937_64 rng(seed);
  switch (k.metadata().operation) {
    case Operation::Gemm:
      return run_gemm(k, machine, rng);
    case Operation::Elementwise:
      return run_elementwise(k, machine, rng, size);
    case Operation::Demo:
      return run_demo(k, machine, rng);
  }
  fail("run_kernel: " + k.name() + " has an unknown operation");
}

}  // namespace tessel::kernels
