// gemm_command.cpp: `tessel gemm`: a GEMM problem through the one-call API (kernels/gemm.hpp): the
// choice and its reasons (--explain, no GPU needed with --cc and --sms), or a run on fresh random
// data on the GPU (tessel::gemm itself) or the CPU emulator (the same steps), checked against
// the f64 host reference.
#include "gemm_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "gemm_bench.hpp"
#include "printable.hpp"
#include "progress.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/kernels/tuning_cache.hpp"
#include "tessel/runtime.hpp"
#include "tessel/testing/gemm_check.hpp"
#include "tessel/testing/kernel_run.hpp"
#include "tessel/testing/machine.hpp"

namespace tessel::cli {

void print_gemm_help(std::ostream& out) {
  out << "usage: tessel gemm --m M --n N --k K [--l L] [--dtype T] [--out T] [--a-major k|m] [--b-major k|n]\n"
         "                   [--out-major n|m] [--lda N] [--ldb N] [--ldc N] [--pad-ld] [--alpha X] [--beta X]\n"
         "                   [--c-major n|m] [--broadcast a,b,c]\n"
         "                   [--schedule data-parallel|split-k|stream-k] [--splits S]\n"
         "                   [--explain [--cc N --sms N [--dram-gbs G]] | --emulate] [--seed S]\n"
         "\n"
         "out (L,M,N) = alpha * A (L,M,K) @ B (L,K,N) + beta * C (C is out itself unless --c-major gives\n"
         "it a tensor of its own) through the one-call API (tessel::gemm): it ranks the catalog's\n"
         "kernels with a cost model, copies operands the tensor cores cannot take as they lie into a\n"
         "workspace, and runs the best choice. Prints the choice, runs it on fresh random data (GPU in\n"
         "use, or --emulate) and checks every element against an f64 host reference.\n"
         "\n"
         "  --m, --n, --k, --l   the problem (L: a batch, rank 3 operands; default one matrix)\n"
         "  --dtype T            A's and B's type: bf16, f16, f32 (tf32), e4m3, e5m2, f64, s32 (default bf16)\n"
         "  --out T              out's type (default: the inputs' for 16-bit and wider, bf16 for fp8)\n"
         "  --a-major k|m        A's unit-stride mode (default k); --b-major k|n (default n);\n"
         "  --out-major n|m      out's (default n)\n"
         "  --lda, --ldb, --ldc  leading dimensions in elements of A, B and out (default: compact)\n"
         "  --pad-ld             the leading dimensions not given rounded up to a multiple of 16 bytes\n"
         "  --c-major n|m        a C of its own (out's type and shape, compact) with unit stride in N or\n"
         "                       M, read where beta != 0 (needs --beta)\n"
         "  --broadcast LIST     operands with a batch stride of 0, one matrix for all L batches (L >= 2):\n"
         "                       a, b, c, comma-separated (c needs --c-major)\n"
         "  --alpha, --beta      the epilogue's scalars (default 1 and 0)\n"
         "  --schedule S         only this schedule: data-parallel (each tile's whole K in one unit),\n"
         "                       split-k (units of a share of a tile's k-tiles, partials summed in a\n"
         "                       fixed order) or stream-k (the last tiles' k-tiles shared evenly by one\n"
         "                       CTA per SM, fixed up the same way); default: the cost model's choice\n"
         "  --splits S           split-K with S splits (2 to 32, at most the k-tiles), forcing split-k\n"
         "  --explain            print the ranked candidates, the reasons of the refused, and the\n"
         "                       choice, without running anything\n"
         "  --cc N, --sms N      with --explain: the device to choose for (default: the GPU in use)\n"
         "  --dram-gbs G         ... and its DRAM bandwidth in GB/s (default an H100 SXM's 3352;\n"
         "                       an H200: 4815)\n"
         "  --emulate            run in the CPU emulator (no GPU needed)\n"
         "  --seed S             the inputs' seed (default: a fresh one, printed)\n"
         "\n"
         "With TESSEL_TUNING_CACHE=PATH (written by `tessel tune`), a problem whose class the file holds\n"
         "runs the kernel measured fastest, and the choice says \"from the tuning cache PATH\" (unless\n"
         "--schedule or --splits forces one).\n";
}

namespace {

using codegen::Type;
using kernels::TensorView;

struct Problem {
  int64_t m = 0, n = 0, k = 0, l = 0;  // l = 0: rank 2
  Type dtype = Type::BF16, out = Type::BF16;
  char a_major = 'k', b_major = 'n', out_major = 'n';
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool pad_ld = false;
  char c_major = 0;  // 0: C is out; 'n' or 'm': a C of its own
  bool broadcast_a = false, broadcast_b = false, broadcast_c = false;
  double alpha = 1, beta = 0;
};

Type parse_type_option(const std::string& option, const std::string& v) {
  static const std::map<std::string, Type> types = {{"bf16", Type::BF16}, {"f16", Type::F16}, {"f32", Type::F32},
                                                    {"e4m3", Type::E4M3}, {"e5m2", Type::E5M2}, {"f64", Type::F64},
                                                    {"s32", Type::S32}};
  auto it = types.find(v);
  if (it == types.end())
    throw Error(option + " '" + v + "' is not a type tessel gemm takes (valid: bf16, f16, f32, e4m3, e5m2, f64, s32)");
  return it->second;
}

char parse_major_option(const std::string& option, const std::string& v, const char* valid) {
  if (v.size() != 1 || !std::strchr(valid, v[0]))
    throw Error(option + " '" + v + "' is not a major (valid: " + std::string(1, valid[0]) + " or " +
                std::string(1, valid[1]) + ": the mode with unit stride)");
  return v[0];
}

}  // namespace

int gemm_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> v;
  std::set<std::string> flags;
  static const std::set<std::string> kValued = {"--m",   "--n",   "--k",     "--l",       "--dtype", "--out",
                                                "--a-major", "--b-major", "--out-major", "--lda", "--ldb",
                                                "--ldc", "--alpha", "--beta", "--cc",  "--sms",  "--dram-gbs", "--seed",
                                                "--schedule", "--splits", "--c-major", "--broadcast"};
  static const std::set<std::string> kFlags = {"--explain", "--emulate", "--pad-ld", "-h", "--help"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (kFlags.count(a)) {
      flags.insert(a);
      continue;
    }
    if (!kValued.count(a)) {
      std::cerr << "error: " << (a.rfind("-", 0) == 0 ? "unknown option '" : "unexpected argument '") << printable(a)
                << "'\nRun `tessel gemm --help` for the options.\n";
      return 2;
    }
    if (i + 1 >= args.size()) {
      std::cerr << "error: " << a << " needs a value\n";
      return 2;
    }
    if (v.count(a)) {
      std::cerr << "error: option " << a << " given twice\n";
      return 2;
    }
    v[a] = args[++i];
  }
  if (flags.count("-h") || flags.count("--help")) {
    print_gemm_help(std::cout);
    return 0;
  }
  Problem p;
  uint64_t seed = std::random_device{}();
  std::optional<kernels::GemmDevice> asked;
  kernels::GemmSchedule schedule = kernels::GemmSchedule::Any;
  int splits = 1;
  try {
    for (const char* required : {"--m", "--n", "--k"})
      if (!v.count(required)) throw Error("tessel gemm needs --m, --n and --k");
    const int64_t kMax = int64_t{1} << 20;
    p.m = parse_integer("--m", v["--m"], 1, kMax);
    p.n = parse_integer("--n", v["--n"], 1, kMax);
    p.k = parse_integer("--k", v["--k"], 1, kMax);
    if (v.count("--l")) p.l = parse_integer("--l", v["--l"], 1, 65535);
    if (v.count("--dtype")) p.dtype = parse_type_option("--dtype", v["--dtype"]);
    p.out = codegen::is_fp8(p.dtype) ? Type::BF16 : p.dtype;
    if (v.count("--out")) p.out = parse_type_option("--out", v["--out"]);
    if (v.count("--a-major")) p.a_major = parse_major_option("--a-major", v["--a-major"], "km");
    if (v.count("--b-major")) p.b_major = parse_major_option("--b-major", v["--b-major"], "kn");
    if (v.count("--out-major")) p.out_major = parse_major_option("--out-major", v["--out-major"], "nm");
    if (v.count("--lda")) p.lda = parse_integer("--lda", v["--lda"], 1, kMax);
    if (v.count("--ldb")) p.ldb = parse_integer("--ldb", v["--ldb"], 1, kMax);
    if (v.count("--ldc")) p.ldc = parse_integer("--ldc", v["--ldc"], 1, kMax);
    if (v.count("--alpha")) p.alpha = parse_finite("--alpha", v["--alpha"]);
    if (v.count("--beta")) p.beta = parse_finite("--beta", v["--beta"]);
    p.pad_ld = flags.count("--pad-ld") > 0;
    if (v.count("--c-major")) p.c_major = parse_major_option("--c-major", v["--c-major"], "nm");
    {  // --c-major's and --broadcast's rules, as tessel bench gemm has them
      gemm_bench::GemmCase c;
      c.c_major = p.c_major, c.beta = p.beta, c.l = std::max<int64_t>(p.l, 1);
      gemm_bench::check_epilogue_options(c, v.count("--broadcast") ? &v["--broadcast"] : nullptr, p.l > 0);
      p.broadcast_a = c.broadcast_a, p.broadcast_b = c.broadcast_b, p.broadcast_c = c.broadcast_c;
    }
    if (v.count("--seed")) seed = parse_unsigned("--seed", v["--seed"]);
    if (v.count("--schedule")) {
      const std::string& sc = v["--schedule"];
      if (sc == "data-parallel") schedule = kernels::GemmSchedule::DataParallel;
      else if (sc == "split-k") schedule = kernels::GemmSchedule::SplitK;
      else if (sc == "stream-k") schedule = kernels::GemmSchedule::StreamK;
      else throw Error("--schedule '" + sc + "' is not a schedule (valid: data-parallel, split-k, stream-k)");
    }
    if (v.count("--splits")) {
      splits = static_cast<int>(parse_integer("--splits", v["--splits"], 2, 32));
      if (schedule == kernels::GemmSchedule::DataParallel || schedule == kernels::GemmSchedule::StreamK)
        throw Error("--splits " + v["--splits"] + " is split-K's, which --schedule " + v["--schedule"] + " is not");
      schedule = kernels::GemmSchedule::SplitK;
    }
    if (v.count("--cc") != v.count("--sms")) throw Error("--cc and --sms go together (the device to choose for)");
    if (v.count("--cc")) {
      if (!flags.count("--explain")) throw Error("--cc and --sms choose for a device without running: use --explain");
      asked = kernels::GemmDevice{static_cast<int>(parse_integer("--cc", v["--cc"], 10, 1000)),
                                  static_cast<int>(parse_integer("--sms", v["--sms"], 1, 100000))};
    }
    if (v.count("--dram-gbs")) {
      if (!asked) throw Error("--dram-gbs is the bandwidth of the device that --cc and --sms name: give them too");
      asked->dram_gbs = static_cast<double>(parse_integer("--dram-gbs", v["--dram-gbs"], 1, 1000000));
    }
    if (flags.count("--explain") && flags.count("--emulate")) throw Error("--explain runs nothing: no --emulate with it");
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }

  const bool emulate = flags.count("--emulate") > 0, explain = flags.count("--explain") > 0;
  std::mt19937_64 rng(seed);
  kernels::GemmProblem gp;
  try {
    // (rows, cols) in the major `row` says, its leading dimension and batch stride (0: broadcast).
    auto view = [&](Type t, int64_t rows, int64_t cols, bool row, int64_t ld, bool broadcast) {
      // The leading dimension given, else the compact one (0), or --pad-ld's.
      if (!ld && p.pad_ld) ld = gemm_bench::padded_ld(row ? cols : rows, t);
      return kernels::matrix_view(t, p.l, rows, cols, row, ld, broadcast ? 0 : -1);
    };
    const kernels::TensorView A = view(p.dtype, p.m, p.k, p.a_major == 'k', p.lda, p.broadcast_a),
                              B = view(p.dtype, p.k, p.n, p.b_major == 'n', p.ldb, p.broadcast_b),
                              out = view(p.out, p.m, p.n, p.out_major == 'n', p.ldc, false);
    std::optional<kernels::TensorView> C;
    if (p.c_major) C = view(p.out, p.m, p.n, p.c_major == 'n', 0, p.broadcast_c);
    // --explain runs nothing: the shapes only (random inputs were most of its time).
    gp = explain ? kernels::gemm_problem_shapes(A, B, out, C, p.alpha, p.beta)
                 : kernels::make_gemm_problem(A, B, out, C, p.alpha, p.beta, rng);
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  rt::phase(explain ? "gemm: problem's shapes" : "gemm: random inputs and their f64 reference's operands");

  // The device to choose for: asked, the GPU in use, or (emulating, or explaining without a GPU)
  // an H100's.
  kernels::GemmDevice dev;
  try {
    if (asked) dev = *asked;
    else if (!emulate && (!explain || kernels::device_cc_if_any())) dev = kernels::gemm_device_in_use();
  } catch (const Error& e) {
    std::cerr << "error: tessel gemm needs a GPU (or --emulate, or --explain with --cc and --sms): "
              << printable(e.what()) << "\n";
    return 1;
  }

  if (explain) {
    // Addresses made up, 256-byte aligned: the choice depends on their alignment only.
    kernels::GemmArguments a = gp.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32, uint64_t{4} << 32);
    a.split_k = splits;
    const kernels::GemmRanking r = kernels::rank_gemm(a, dev, schedule);
    std::cout << "device: sm_" << dev.cc << ", " << dev.sm_count << " SMs, " << std::lround(dev.dram_gbs)
              << " GB/s DRAM\nproblem: " << gp.describe() << "\n";
    std::cout << r.ranked.size() << " candidates, best first:\n";
    for (size_t i = 0; i < r.ranked.size() && i < 12; ++i)
      std::cout << "  " << r.ranked[i].describe() << ": " << r.ranked[i].terms << "\n";
    if (r.ranked.size() > 12) std::cout << "  (" << r.ranked.size() - 12 << " more)\n";
    std::cout << r.refused.size() << " refused:\n";
    for (const std::string& group : r.refusal_groups()) std::cout << "  " << printable(group) << "\n";
    if (r.ranked.empty()) {
      std::cout << "choice: none\n";
      return 1;
    }
    // The tuning cache's entry for the problem, where there is one, as tessel::gemm would take it.
    const std::optional<kernels::GemmChoice> tuned =
        schedule == kernels::GemmSchedule::Any && splits == 1 ? kernels::tuned_choice(a, dev) : std::nullopt;
    const kernels::GemmChoice& choice = tuned ? *tuned : r.ranked.front();
    std::cout << "choice: " << choice.describe() << "\nschedule: " << choice.schedule() << "\n";
    if (tuned) std::cout << "  " << tuned->terms << "\n";
    return 0;
  }

  std::cout << "seed " << seed << "\n";
  try {
    if (emulate) {
      kernels::GemmArguments a = gp.arguments(uint64_t{1} << 32, uint64_t{2} << 32, uint64_t{3} << 32, uint64_t{4} << 32);
      a.split_k = splits;
      const kernels::GemmRanking r = kernels::rank_gemm(a, dev, schedule);
      if (r.ranked.empty())
        throw Error("no kernel of the catalog runs these arguments with this schedule: " + r.refusals());
      const std::optional<kernels::GemmChoice> tuned =
          schedule == kernels::GemmSchedule::Any && splits == 1 ? kernels::tuned_choice(a, dev) : std::nullopt;
      const kernels::GemmChoice& choice = tuned ? *tuned : r.ranked.front();
      std::cout << "kernel: " << choice.describe() << "\nschedule: " << choice.schedule() << "\n  " << choice.terms
                << "\n";
      std::unique_ptr<kernels::Machine> m = kernels::emulator_machine(progress_printer());
      const kernels::DemoRun run = kernels::run_gemm_choice(choice, gp, *m);
      std::cout << (run.ok ? "ok    " : "FAIL  ") << run.problem << ": " << run.result << " (" << std::fixed
                << std::setprecision(3) << run.kernel_ms << " ms in the emulator)\n";
      return run.ok ? 0 : 1;
    }
    rt::phase("gemm: device " + std::to_string(dev.cc) + " chosen for");
    rt::DeviceBuffer a = rt::DeviceBuffer::from(gp.A.bytes), b = rt::DeviceBuffer::from(gp.B.bytes),
                     o = rt::DeviceBuffer::from(gp.out.bytes);
    std::optional<rt::DeviceBuffer> c;
    if (gp.C) c = rt::DeviceBuffer::from(gp.C->bytes);
    kernels::GemmArguments ga = gp.arguments(a.ptr(), b.ptr(), o.ptr(), c ? c->ptr() : 0);
    ga.split_k = splits;
    rt::Stream stream;
    rt::phase("gemm: buffers uploaded, stream made");
    const auto t0 = std::chrono::steady_clock::now();
    const kernels::GemmChoice& choice = tessel::gemm(ga, stream, schedule);  // chooses, compiles, runs
    const auto t1 = std::chrono::steady_clock::now();
    rt::phase("gemm: first call returned");
    stream.synchronize();
    rt::phase("gemm: first call finished on the GPU");
    std::cout << "kernel: " << choice.describe() << "\nschedule: " << choice.schedule() << "\n  " << choice.terms
              << "\n";
    std::string diff = kernels::check_gemm(gp, o.to_vector<uint8_t>());
    if (diff.empty() && c && c->to_vector<uint8_t>() != gp.C->bytes) diff = "C was written";
    rt::phase("gemm: checked against the f64 host reference");
    // Timed calls after the first (inputs unchanged; beta != 0 accumulates, which the check above
    // has already seen): the host's time per call and the GPU's.
    constexpr int kCalls = 20;
    rt::Event start, stop;
    const auto h0 = std::chrono::steady_clock::now();
    start.record(stream);
    for (int i = 0; i < kCalls; ++i) tessel::gemm(ga, stream, schedule);
    stop.record(stream);
    const auto h1 = std::chrono::steady_clock::now();
    stop.synchronize();
    const double gpu_ms = rt::elapsed_ms(start, stop) / kCalls;
    rt::phase("gemm: timed calls");
    const double flops = 2.0 * p.m * p.n * p.k * std::max<int64_t>(p.l, 1);
    std::cout << (diff.empty() ? "ok    " : "FAIL  ") << gp.describe() << ": "
              << (diff.empty() ? "every element matches the host reference" : diff) << "\n"
              << std::fixed << std::setprecision(1) << "first call " << std::chrono::duration<double, std::milli>(t1 - t0).count()
              << " ms (choice and compile); then " << std::setprecision(3) << gpu_ms << " ms per call on the GPU ("
              << std::setprecision(1) << flops / (gpu_ms * 1e9) << " TFLOP/s), "
              << std::chrono::duration<double, std::micro>(h1 - h0).count() / kCalls << " us of host time per call\n";
    return diff.empty() ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  }
}

}  // namespace tessel::cli
