// gemm.hpp: the one-call GEMM. tessel::gemm(args, stream) ranks the catalog's GEMM kernels for the
// problem and the device with a cost model (no timing), runs the best on the tensor cores where
// the hardware can, and remembers the choice: a repeated call with same-shaped arguments looks it
// up, builds parameters and launches.
//
// Where no tensor-core kernel takes the operands as they lie (a leading dimension or address that
// is not a multiple of 16 bytes, which TMA cannot describe; a tf32 or fp8 operand that is not
// K-major, which wgmma cannot read), the choice copies them first into a workspace in the layout
// the kernel takes (the elementwise copy kernel: any strides in, padded rows out), and an output
// the TMA cannot store is computed there and copied back. The cost model counts those copies, so
// a kernel that takes the operands as they are wins whenever one can.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::kernels {

// What the cost model knows of a device; by default an H100 SXM's.
struct GemmDevice {
  int cc = 90;
  int sm_count = 132;
  double dram_gbs = 3352;  // DRAM bandwidth, GB/s (rt::DeviceProperties::dram_gbs; an H200: 4815)
};
// A device's (its DRAM bandwidth the default where the driver does not report one).
GemmDevice gemm_device_of(const rt::DeviceProperties& props);
// The device in use (kernels::device_in_use); throws where there is no GPU.
GemmDevice gemm_device_in_use();

// The operands a choice copies into the workspace first (A, B, C) or computes there (out, then
// copied back).
enum GemmOperand : int { kPackA = 0, kPackB = 1, kPackC = 2, kPackOut = 3 };

// One way to run a problem.
struct GemmChoice {
  KernelPtr kernel;                       // the catalog's GEMM kernel
  std::array<bool, 4> packed{};           // by GemmOperand
  double estimate_us = 0;                 // the cost model's time, copies included
  double l2_us = 0;                       // the model's L2 floor of its mainloop (Hopper kernels)
  std::string terms;                      // the model's terms: tiles, waves, k-tiles, copies
  std::size_t workspace_bytes = 0;        // for the copies, then split-K's partial tiles
  int splits = 1;                         // split-K: the kernel's split_k (1: the whole K per tile)
  int workers = 0;                        // stream-K: the kernel's stream_k_workers (0: not stream-K)
  std::string source;                     // "": the cost model's; else where it came from ("the tuning cache PATH")
  bool any_packed() const { return packed[0] || packed[1] || packed[2] || packed[3]; }
  // "tessel_hopper_gemm_... (through the workspace: A)", and " (from the tuning cache PATH)"
  std::string describe() const;
  // The schedule: "data-parallel", "ping-pong", "split-K x 4" or "stream-K on 132 CTAs" (docs/gemm.md,
  // "Schedules").
  std::string schedule() const;
};

// Which schedules rank_gemm may choose (`tessel gemm --schedule`): any; data-parallel only (each
// output tile's whole K in one unit: the cooperative and ping-pong kernels); split-K only (its
// count chosen by the cost model unless the arguments' split_k forces one); stream-K only (on the
// device's SMs unless the arguments' stream_k_workers says how many CTAs).
enum class GemmSchedule { Any, DataParallel, SplitK, StreamK };
// The schedule a catalog GEMM kernel runs: SplitK or StreamK for those kernels (their "schedule"
// option), DataParallel for every other (ping-pong included).
GemmSchedule kernel_schedule(const KernelMetadata& md);

struct GemmRanking {
  std::vector<GemmChoice> ranked;                           // best first
  // A kernel's name and why it cannot run; the kernels that take A's type first.
  std::vector<std::pair<std::string, std::string>> refused;
  // The refusals grouped by reason ("12 kernels (e.g. NAME): REASON"), in the reasons' order.
  std::vector<std::string> refusal_groups() const;
  // The first `max_groups` of them in one line, "; " between, for an error message.
  std::string refusals(size_t max_groups = 8) const;
};

// Every catalog GEMM kernel that runs `args` on `device` (directly or after copies), ranked by the
// cost model, and the reasons of the others. Microseconds of host time; needs no GPU.
// With args.split_k > 1 only the split-K kernels rank, with that count; otherwise the cost model
// chooses each split-K kernel's count (and leaves it out where no count beats one split).
GemmRanking rank_gemm(const GemmArguments& args, const GemmDevice& device,
                      GemmSchedule schedule = GemmSchedule::Any);

// Split-K's count for a kernel of this metadata on `args` (split_k 1): the model's best from 2 up
// to min(32, k-tiles / 4) (every split keeps at least 4 k-tiles), or the fewest splits estimated
// within 2% of it; 1 where none beats the whole K per tile by 3% (or, with `force`, the best of
// them anyway, if any).
int choose_splits(const KernelMetadata& md, const GemmArguments& args, const GemmDevice& device, bool force = false);

// The cost model's estimate for a kernel on arguments it supports as they are, args.split_k
// included (get_kernels ranks its GEMM results with it).
double estimate_gemm_us(const KernelMetadata& md, const GemmArguments& args, const GemmDevice& device);

// The launches of a choice, in order: copies into the workspace (at `workspace`, at least
// choice.workspace_bytes), the GEMM, the copy back of out. Each is a catalog kernel and its
// arguments, so a GPU runs it with Kernel::run and the emulator with Kernel::plan.
struct GemmStep {
  KernelPtr kernel;
  Arguments args;
  std::string what;  // "copy A into the workspace (K-major, ld 784)", "gemm", "copy out back"
};
std::vector<GemmStep> gemm_steps(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace);

// The steps checked (each kernel's supports(), the checks that read addresses included), compiled
// (once per kernel and device), loaded in the current context and their parameters packed: each
// queued by launch_ready with one driver call (tessel::gemm's repeated calls, `tessel tune`'s
// timing). Throws tessel::Error naming a kernel that cannot run its step.
std::vector<ReadyLaunch> ready_gemm_launches(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace);

// The one call: out = alpha * A @ B + beta * C on `stream` (the device in use). Chooses on the
// first call for arguments of this shape (types, extents, strides, alignment, alpha's and beta's
// zero-ness) and context, compiles the kernels once per device, keeps a workspace per stream.
// A later call of the same shape with the same addresses, alpha and beta queues the launches it
// made last time (a current-context query and the launches: no check, plan, encode or
// allocation); with other addresses or scalars it checks and plans the launches again
// (docs/gemm.md). Returns the choice (a reference into the process-wide cache, valid for the
// process). Throws tessel::Error naming why nothing runs the arguments (every kernel's reason),
// or the rule new addresses break (C overlapping out). `schedule` limits the choice (rank_gemm);
// args.split_k > 1 forces split-K with that count. Otherwise, where the tuning cache
// (tuning_cache.hpp, $TESSEL_TUNING_CACHE) has an entry for the problem's class, its kernel runs.
const GemmChoice& gemm(const GemmArguments& args, rt::StreamRef stream = {}, GemmSchedule schedule = GemmSchedule::Any);

}  // namespace tessel::kernels

namespace tessel {
using kernels::gemm;
}  // namespace tessel
