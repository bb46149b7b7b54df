// tune_command.cpp: `tessel tune`: for each problem, the one-call GEMM's cost model ranks the
// catalog (rank_gemm); its best `--candidates` choices and its best split-K and stream-K choices are each timed
// on the GPU the way `tessel bench gemm` times a kernel (gemm_bench.hpp: random inputs in rotated
// buffer sets, warm-up runs, the median of back-to-back runs between CUDA events), and the fastest
// goes into the tuning cache (--out-file, or $TESSEL_TUNING_CACHE), merged with its other entries.
#include "tune_command.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>

#include "gemm_bench.hpp"
#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/kernels/tuning_cache.hpp"
#include "tessel/runtime.hpp"

namespace tessel::cli {

namespace {

using namespace gemm_bench;

struct Candidate {
  kernels::GemmChoice choice;
  std::string rank;  // in the cost model's ranking: "1", "2", ...; split-K's: "split 1", ...
  double ms = -1;    // < 0: not timed (the note says why)
};

// Times the candidates of one problem and returns its entry; prints the table.
std::optional<std::pair<std::string, kernels::TuningEntry>> tune_case(const GemmCase& c, const BenchOptions& o,
                                                                      int limit, const rt::DeviceProperties& props,
                                                                      const kernels::GemmDevice& dev,
                                                                      rt::Stream& stream, uint64_t seed) {
  std::vector<std::string> notes;
  const ProblemBuffers pb = make_buffers(c, props, seed, notes);
  // Rank 3, or rank 2 where nothing takes the batch of 1 (tessel bench gemm does the same).
  bool rank2 = false;
  kernels::GemmRanking model = kernels::rank_gemm(pb.args_for(c, 0, false), dev);
  if (model.ranked.empty() && c.l == 1) {
    model = kernels::rank_gemm(pb.args_for(c, 0, true), dev);
    rank2 = true;
  }
  const kernels::GemmArguments first = pb.args_for(c, 0, rank2);
  if (model.ranked.empty())
    fail("no kernel of the catalog runs this problem on sm_" + std::to_string(dev.cc) + ": " + model.refusals());
  const kernels::GemmRanking split = kernels::rank_gemm(first, dev, kernels::GemmSchedule::SplitK);
  std::vector<Candidate> cands;
  for (size_t i = 0; i < model.ranked.size() && static_cast<int>(i) < limit; ++i)
    cands.push_back({model.ranked[i], std::to_string(i + 1)});
  const int split_limit = std::max(1, limit / 4);
  for (size_t i = 0; i < split.ranked.size() && static_cast<int>(i) < split_limit; ++i)
    cands.push_back({split.ranked[i], "split " + std::to_string(i + 1)});
  // --splits: the best split-K kernels at each count given too (the model's count is one guess).
  int split_rank = static_cast<int>(std::min<size_t>(split.ranked.size(), static_cast<size_t>(split_limit)));
  for (const int count : o.splits) {
    kernels::GemmArguments forced = first;
    forced.split_k = count;
    const kernels::GemmRanking at = kernels::rank_gemm(forced, dev, kernels::GemmSchedule::SplitK);
    for (size_t i = 0; i < at.ranked.size() && static_cast<int>(i) < split_limit; ++i) {
      const std::string name = at.ranked[i].describe();
      if (std::none_of(cands.begin(), cands.end(), [&](const Candidate& c) { return c.choice.describe() == name; }))
        cands.push_back({at.ranked[i], "split " + std::to_string(++split_rank)});
    }
  }
  const kernels::GemmRanking streamed = kernels::rank_gemm(first, dev, kernels::GemmSchedule::StreamK);
  for (size_t i = 0; i < streamed.ranked.size() && static_cast<int>(i) < split_limit; ++i)
    cands.push_back({streamed.ranked[i], "stream " + std::to_string(i + 1)});

  const double flops = 2.0 * static_cast<double>(c.m) * c.n * c.k * c.l;
  std::printf("\n%s %s->%s majors %s%s: %zu candidates\n", case_shape(c).c_str(), codegen::ptx_name(c.dtype),
              codegen::ptx_name(c.out), case_majors(c).c_str(), c.beta != 0 ? " beta != 0" : "", cands.size());
  std::printf("  %-10s %-90s %10s %9s\n", "model rank", "candidate", "ms", "TFLOP/s");
  const Candidate* best = nullptr;
  for (Candidate& cand : cands) {
    try {
      // Every set's launches made first (checked, compiled, parameters packed): the timed runs
      // queue launches only, as tessel::gemm's repeated calls do.
      rt::DeviceBuffer workspace =
          cand.choice.workspace_bytes ? rt::DeviceBuffer(cand.choice.workspace_bytes) : rt::DeviceBuffer();
      const uint64_t ws = cand.choice.workspace_bytes ? workspace.ptr() : 0;  // as tessel::gemm passes it
      std::vector<std::vector<kernels::ReadyLaunch>> launches;
      for (size_t s = 0; s < pb.sets; ++s)
        launches.push_back(kernels::ready_gemm_launches(cand.choice, pb.args_for(c, s, rank2), ws));
      const RunFn run = [&](int i) {
        for (const kernels::ReadyLaunch& l : launches[static_cast<size_t>(i) % pb.sets])
          kernels::launch_ready(l, stream);
      };
      cand.ms = median_ms(run, o.warmup, o.iters, stream);
      if (!best || cand.ms < best->ms) best = &cand;
      std::printf("  %-10s %-90s %10.4f %9.1f\n", cand.rank.c_str(), cand.choice.describe().c_str(), cand.ms,
                  flops / (cand.ms * 1e9));
    } catch (const Error& e) {
      std::printf("  %-10s %-90s %10s %9s\n", cand.rank.c_str(), cand.choice.describe().c_str(), "-", "-");
      notes.push_back(cand.choice.describe() + " failed: " + printable(e.what()));
    }
    std::fflush(stdout);
  }
  for (const std::string& n : notes) std::printf("    %s\n", n.c_str());
  if (!best) {
    std::printf("  no candidate ran: nothing written for this problem\n");
    return std::nullopt;
  }
  const Candidate& pick = cands.front();  // the cost model's choice
  kernels::TuningEntry e;
  e.kernel = best->choice.kernel->name();
  e.splits = best->choice.splits;
  e.ms = best->ms;
  e.heuristic_kernel = pick.choice.kernel->name();
  e.heuristic_splits = pick.choice.splits;
  e.heuristic_ms = pick.ms;
  if (pick.ms >= 0 && best->ms > 0)
    std::printf("  fastest: %s, %.3fx the cost model's pick\n", best->choice.describe().c_str(), pick.ms / best->ms);
  else if (pick.ms >= 0)
    std::printf("  fastest: %s\n", best->choice.describe().c_str());
  else
    std::printf("  fastest: %s (the cost model's pick did not run)\n", best->choice.describe().c_str());
  return std::make_pair(kernels::tuning_key(first, dev), e);
}

}  // namespace

void print_tune_help(std::ostream& out) {
  out << "usage: tessel tune --m M --n N --k K [--l L] [--dtype T] [--out T] [--a-major k|m] [--b-major k|n]\n"
         "                   [--out-major n|m] [--c-major n|m] [--alpha X] [--beta X] [--broadcast a,b,c]\n"
         "                   [--pad-ld] [--candidates N]\n"
         "                   [--out-file PATH] [--splits LIST] [--iters N] [--warmup N] [--seed S]\n"
         "       tessel tune --sweep|--llama|--random N [--rows FIRST-LAST] [--candidates N] [--out-file PATH]\n"
         "                   [--iters N] [--warmup N] [--seed S]\n"
         "\n"
         "Times the one-call GEMM's candidates for each problem on GPU 0 and writes the fastest into the\n"
         "tuning cache, which tessel::gemm (and `tessel gemm`, `tessel bench gemm`) then run for problems\n"
         "of the same class when TESSEL_TUNING_CACHE names the file (docs/gemm.md, \"Tuning\").\n"
         "\n"
         "  --m, --n, --k, --l, --dtype, --out, --a-major, --b-major, --out-major, --c-major, --alpha,\n"
         "  --beta, --broadcast,\n"
         "  --pad-ld             the problem, as `tessel bench gemm` takes it (`tessel bench --help`)\n"
         "  --sweep, --llama, --random N, --rows FIRST-LAST\n"
         "                       the lists of `tessel bench gemm` (--random: drawn from --seed)\n"
         "  --candidates N       time the cost model's N best choices (default 8) and its N/4 best\n"
         "                       split-K and stream-K choices each (at least 1)\n"
         "  --splits LIST        also the N/4 best split-K choices at each of these counts (e.g. 2,3,4)\n"
         "  --out-file PATH      the tuning cache to write (default: $TESSEL_TUNING_CACHE); its entries\n"
         "                       for other problems stay, written atomically (temporary file, rename)\n"
         "  --iters N            timed runs per candidate, the median kept (default 20)\n"
         "  --warmup N           untimed runs first (default 5)\n"
         "  --seed S             the inputs' seed (default: a fresh one, printed)\n";
}

int tune_command(const std::vector<std::string>& args) {
  BenchOptions o;
  int limit = 8;
  std::string path;
  try {
    bool help = false;
    o = parse_gemm_options(args, help, "tessel tune", {"--candidates", "--out-file"});
    if (help) {
      print_tune_help(std::cout);
      return 0;
    }
    if (!o.kernel.empty() || !o.kernel_class.empty())
      throw ParseError{
          "tessel tune times the cost model's candidates; it takes no --kernel or --class "
          "(`tessel bench gemm --kernel NAME` times one kernel)"};
    if (o.list)
      throw ParseError{"tessel tune takes no --list (`tessel bench gemm --sweep --list` prints the problems)"};
    if (o.one_call || o.each)
      throw ParseError{std::string("tessel tune takes no ") + (o.one_call ? "--one-call" : "--each") +
                       ": it times the cost model's candidates and keeps the fastest (`tessel bench gemm " +
                       (o.one_call ? "--one-call` times tessel::gemm's own choice)" : "--each` prints every candidate's time)")};
    if (o.extra.count("--candidates"))
      limit = static_cast<int>(parse_integer("--candidates", o.extra["--candidates"], 1, 64));
    if (o.extra.count("--out-file"))
      path = o.extra["--out-file"];
    else if (const char* env = std::getenv("TESSEL_TUNING_CACHE"))
      path = env;
    if (path.empty())
      throw ParseError{"tessel tune needs a file to write: --out-file PATH, or TESSEL_TUNING_CACHE=PATH"};
  } catch (const ParseError& e) {
    std::cerr << "error: " << e.message << "\nRun `tessel tune --help` for the options.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\nRun `tessel tune --help` for the options.\n";
    return 2;
  }

  bool any_error = false;
  try {
    if (const std::string why = gemm_bench::no_gpu_reason(); !why.empty()) {
      std::cerr << "error: tessel tune needs a GPU: no GPU found (" << printable(why) << ")\n";
      return 1;
    }
    rt::Context context(0);
    const rt::DeviceProperties props = rt::device_properties(0);
    const kernels::GemmDevice dev = kernels::gemm_device_of(props);
    std::printf("device: %s\n", rt::to_string(props).c_str());
    std::printf("seed: %llu (--seed %llu reproduces the inputs)\n", static_cast<unsigned long long>(o.seed),
                static_cast<unsigned long long>(o.seed));
    std::printf(
        "method: each candidate's median of %d runs after %d warm-up runs, CUDA events between back-to-back "
        "runs on one stream, buffer sets rotated (together > 2x the L2)\n",
        o.iters, o.warmup);
    rt::Stream stream;
    kernels::TuningCache fresh;
    for (size_t i = 0; i < o.cases.size(); ++i) {
      try {
        const auto entry = tune_case(o.cases[i], o, limit, props, dev, stream, o.seed + i * 0x100);
        if (entry)
          fresh.entries[entry->first] = entry->second;
        else
          any_error = true;
      } catch (const Error& e) {
        std::printf("\n%s: error: %s\n", case_shape(o.cases[i]).c_str(), printable(e.what()).c_str());
        any_error = true;
      }
      std::fflush(stdout);
    }
    if (!fresh.entries.empty()) {
      const std::string problem = kernels::merge_into_tuning_cache(path, fresh);
      if (!problem.empty()) std::cerr << "warning: " << printable(problem) << "\n";
      std::printf("\nwrote %zu entr%s into the tuning cache %s (TESSEL_TUNING_CACHE=%s makes tessel::gemm read it)\n",
                  fresh.entries.size(), fresh.entries.size() == 1 ? "y" : "ies", path.c_str(), path.c_str());
    }
  } catch (const Error& e) {
    std::fflush(stdout);
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  }
  return any_error ? 1 : 0;
}

}  // namespace tessel::cli
