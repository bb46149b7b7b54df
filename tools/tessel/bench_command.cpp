// bench_command.cpp: `tessel bench gemm`: for each problem, every catalog kernel that supports it
// (or the one --kernel names, or those of --class) and cuBLAS (cublasLt, tools/bench/cublas_peer)
// are timed on the same rotated buffers with CUDA events, and their outputs are compared. The
// problems, buffers and timing are shared with `tessel tune` (gemm_bench.hpp).
//
// Method (docs/performance.md says the same):
//   - inputs are random, drawn on the host from a printed seed: uniform in [-1, 1] for bf16, f16
//     and f32, multiples of 1/8 (e4m3) or 1/4 (e5m2) in [-2, 2] for fp8, and uploaded;
//   - the problem's buffers are repeated in `sets` copies at different addresses (same values),
//     enough that all of them together exceed twice the L2 cache (at least 2, at most what memory
//     holds); run i uses set i % sets, so its inputs are not in L2 from the run before;
//   - warm-up runs, then `iters` timed runs queued back to back on one stream with an event
//     between each two (the GPU never waits for the host between runs); the median interval;
//     tessel's kernel and cuBLAS alternate in rounds of 5 runs, so that both see the same clock;
//   - with several candidate kernels each is screened (3 warm-up, 10 runs) and the fastest timed;
//   - TFLOP/s = 2 * M * N * K * L / time; ratio = tessel / cuBLAS;
//   - the outputs of one run of each (out poisoned with NaN first when beta == 0) are compared:
//     max relative difference = max |t - c| / max |c| (normwise); and both are checked
//     against a double-precision host reference at 256 sampled elements.
#include "bench_command.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "cublas_peer.hpp"
#include "gemm_bench.hpp"
#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"

namespace tessel::cli {

namespace gemm_bench {  // shared with `tessel tune` (gemm_bench.hpp)

using codegen::is_fp8;
using codegen::Type;
using kernels::GemmArguments;
using kernels::TensorView;

// --- The problems -------------------------------------------------------------------------------

const char* const kDtypes = "bf16, f16, f32, e4m3, e5m2";
const char* const kOutTypes = "bf16, f16, f32";

std::optional<Type> parse_dtype(const std::string& s, bool output) {
  if (s == "bf16") return Type::BF16;
  if (s == "f16") return Type::F16;
  if (s == "f32") return Type::F32;
  if (!output && s == "e4m3") return Type::E4M3;
  if (!output && s == "e5m2") return Type::E5M2;
  return std::nullopt;
}

Type default_out(Type in) { return is_fp8(in) ? Type::BF16 : in; }

// The list of shapes.
std::vector<GemmCase> sweep_cases() {
  std::vector<GemmCase> v;
  auto bf16 = [&](int64_t m, int64_t n, int64_t k, bool pad = false) {
    GemmCase c;
    c.m = m, c.n = n, c.k = k, c.pad_ld = pad;
    for (const GemmCase& o : v)  // the K sweep repeats 8192^3
      if (o.m == m && o.n == n && o.k == k && o.dtype == Type::BF16) return;
    v.push_back(c);
  };
  bf16(8192, 8192, 8192);
  bf16(4096, 4096, 4096);
  bf16(2048, 2048, 2048);
  for (int64_t k : {1024, 2048, 4096, 8192, 16384}) bf16(8192, 8192, k);
  for (int64_t m : {128, 256, 512, 1024}) bf16(m, 8192, 8192);
  // Ragged extents (no tile divides them); leading dimensions padded to 16 bytes so that TMA can
  // describe the operands (its strides must be multiples of 16 bytes).
  bf16(8191, 8191, 8191, true);
  bf16(8193, 8193, 8193, true);
  for (int64_t s : {8192, 4096}) {
    GemmCase c;
    c.m = c.n = c.k = s;
    c.dtype = Type::E4M3;
    c.out = Type::BF16;
    c.a_major = 'k';
    c.b_major = 'k';
    v.push_back(c);
  }
  // Problems users bring that the tensor cores cannot take as they lie (issue 18): odd leading
  // dimensions, tf32 with an N-major B, a column-major out with beta, f16 in and f32 out batched.
  auto add = [&](int64_t l, int64_t m, int64_t n, int64_t k, Type t, Type out, char am, char bm, char om,
                 double alpha = 1, double beta = 0) {
    GemmCase c;
    c.l = l, c.m = m, c.n = n, c.k = k, c.dtype = t, c.out = out;
    c.a_major = am, c.b_major = bm, c.out_major = om, c.alpha = alpha, c.beta = beta;
    v.push_back(c);
  };
  add(1, 1000, 3000, 777, Type::BF16, Type::BF16, 'k', 'n', 'n');  // A's rows 1554 bytes
  add(1, 4095, 4097, 4093, Type::BF16, Type::BF16, 'k', 'n', 'n');  // odd everything
  add(1, 3000, 3000, 3000, Type::F32, Type::F32, 'k', 'n', 'n');    // tf32, B N-major
  add(1, 4096, 4096, 4096, Type::F32, Type::F32, 'm', 'k', 'n');    // tf32, A M-major
  add(1, 2000, 1500, 1000, Type::BF16, Type::BF16, 'k', 'k', 'm', 0.5, 2);
  add(1, 2000, 1500, 1000, Type::BF16, Type::BF16, 'k', 'n', 'm', 0.5, 2);
  add(7, 333, 555, 777, Type::F16, Type::F32, 'k', 'n', 'n');
  add(8, 1024, 1024, 1023, Type::F16, Type::F32, 'k', 'k', 'n');
  // Issue 18's other classes, after the rows above so that their --rows numbers stay valid: fp8
  // with an M-major A or an N-major B (where cuBLAS runs fp8 only in its TN form, its peer runs on
  // K-major copies), a C of its own (in out's major or the other), broadcast batches.
  add(1, 4096, 4096, 4096, Type::E4M3, Type::BF16, 'm', 'k', 'n');
  add(1, 8192, 8192, 4096, Type::E4M3, Type::BF16, 'm', 'k', 'n');
  add(1, 4096, 4096, 4096, Type::E4M3, Type::BF16, 'k', 'n', 'n');
  add(1, 4096, 4096, 4096, Type::E5M2, Type::BF16, 'm', 'n', 'n');  // a weight gradient's form
  auto own_c = [&](char major, bool broadcast = false) {
    v.back().c_major = major;
    v.back().broadcast_c = broadcast;
  };
  add(1, 2000, 1500, 1000, Type::BF16, Type::BF16, 'k', 'k', 'm', 0.5, 2);
  own_c('n');  // the column-major out above, its C row-major
  add(1, 4096, 4096, 4096, Type::BF16, Type::BF16, 'k', 'n', 'n', 1, 1);
  own_c('m');  // a residual stored in the other major
  add(1, 4096, 4096, 4096, Type::F16, Type::F32, 'k', 'k', 'n', 1, 1);
  own_c('n');  // C in out's major: cuBLAS takes it as it lies
  add(8, 1024, 1024, 1024, Type::BF16, Type::BF16, 'k', 'k', 'n');
  v.back().broadcast_b = true;  // one weight matrix for 8 batches
  add(16, 512, 4096, 4096, Type::F16, Type::F32, 'k', 'n', 'n');
  v.back().broadcast_a = true;
  add(8, 2048, 2048, 1024, Type::BF16, Type::BF16, 'k', 'k', 'n', 1, 1);
  own_c('n', true);  // one C for every batch, as a bias would be
  return v;
}

// The projections of two Llama-class models (hidden 4096 / 8192, FFN 14336 / 28672, 8 key-value
// heads of 128, vocabulary 128256: an 8B and a 70B model) for 1, 16, 128, 1024 and 8192 tokens T,
// bf16: the forward pass out (T, N) = x (T, K) @ W^T with the weights as stored, (N, K) row-major
// (B K-major), and the weight gradient dW (N, K) = dY^T (N, T) @ x (T, K): A M-major (dY is (T, N)
// row-major), B N-major, K = T.
std::vector<GemmCase> llama_cases(const std::string& only) {
  struct Model {
    const char* name;
    int64_t hidden, ffn, kv;
  };
  std::vector<GemmCase> v;
  for (const Model& m : {Model{"8b", 4096, 14336, 8 * 128}, Model{"70b", 8192, 28672, 8 * 128}}) {
    if (!only.empty() && only != m.name) continue;
    const std::array<std::array<int64_t, 2>, 5> projections = {{{m.hidden + 2 * m.kv, m.hidden},  // q, k, v
                                                                {m.hidden, m.hidden},             // o
                                                                {2 * m.ffn, m.hidden},            // gate, up
                                                                {m.hidden, m.ffn},                // down
                                                                {128256, m.hidden}}};             // lm head
    for (bool wgrad : {false, true})
      for (const auto& [n, k] : projections)
        for (int64_t tokens : {1, 16, 128, 1024, 8192}) {
          GemmCase c;
          if (wgrad) {
            c.m = n, c.n = k, c.k = tokens, c.a_major = 'm', c.b_major = 'n';
          } else {
            c.m = tokens, c.n = n, c.k = k, c.a_major = 'k', c.b_major = 'k';
          }
          v.push_back(c);
        }
  }
  return v;
}

// Problems as users bring them, drawn from `seed` (tessel bench gemm --random): each extent a few
// rows (1..64: decoding, a weight gradient of few tokens) an eighth of the time, else a round size
// (a multiple of 64) or any integer, log-uniform up to max_extent, so that leading dimensions are
// often unaligned; every major; each input type with its output types; beta 0, 1 or another
// value, a C of its own in either major; batches, with broadcast operands; the leading dimensions
// padded to 16 bytes a quarter of the time. Problems over max_flops (2 M N K L) have their
// largest extent halved until they fit.
std::vector<GemmCase> random_cases(int count, uint64_t seed, int64_t max_extent, double max_flops) {
  std::mt19937_64 rng(seed ^ 0x7e55e1ULL);
  auto u01 = [&] { return std::uniform_real_distribution<double>(0, 1)(rng); };
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto log_uniform = [&](int64_t lo, int64_t hi) {
    const double x = std::exp(std::log(static_cast<double>(lo)) + u01() * std::log(static_cast<double>(hi) / lo));
    return std::clamp<int64_t>(std::llround(x), lo, hi);
  };
  auto extent = [&] {
    const double r = u01();
    if (r < 0.12 || max_extent <= 64) return pick(1, std::min<int64_t>(64, max_extent));  // a few rows
    if (r < 0.52 && max_extent >= 128) return 64 * log_uniform(2, max_extent / 64);       // a round size
    return log_uniform(65, max_extent);
  };
  auto scalar = [&] {  // a nonzero multiple of 1/4 in [-2, 2]
    double s = 0;
    while (s == 0) s = static_cast<double>(pick(-8, 8)) / 4;
    return s;
  };
  std::vector<GemmCase> v;
  for (int i = 0; i < count; ++i) {
    GemmCase c;
    const double t = u01();
    c.dtype = t < 0.35 ? Type::BF16 : t < 0.6 ? Type::F16 : t < 0.75 ? Type::F32 : t < 0.9 ? Type::E4M3 : Type::E5M2;
    const double o = u01();
    if (c.dtype == Type::F32)
      c.out = Type::F32;
    else if (is_fp8(c.dtype))
      c.out = o < 0.5 ? Type::BF16 : o < 0.75 ? Type::F16 : Type::F32;
    else
      c.out = o < 0.65 ? c.dtype : Type::F32;
    c.m = extent(), c.n = extent(), c.k = extent();
    if (u01() < 0.25) c.l = pick(2, 12);
    while (2.0 * c.m * c.n * c.k * c.l > max_flops) {
      int64_t& largest = c.m >= c.n && c.m >= c.k ? c.m : c.n >= c.k ? c.n : c.k;
      if (largest > 1)
        largest = (largest + 1) / 2;
      else
        c.l = std::max<int64_t>(1, c.l / 2);
    }
    c.a_major = u01() < 0.6 ? 'k' : 'm';
    c.b_major = u01() < 0.5 ? 'k' : 'n';
    c.out_major = u01() < 0.75 ? 'n' : 'm';
    const double b = u01();
    c.beta = b < 0.5 ? 0.0 : b < 0.75 ? 1.0 : scalar();
    if (u01() < 0.3) c.alpha = scalar();
    if (c.beta != 0 && u01() < 0.4) c.c_major = u01() < 0.5 ? 'n' : 'm';
    c.pad_ld = u01() < 0.25;
    if (c.l > 1) {
      c.broadcast_a = u01() < 0.15;
      c.broadcast_b = !c.broadcast_a && u01() < 0.15;
      c.broadcast_c = c.c_major && u01() < 0.3;
    }
    v.push_back(c);
  }
  return v;
}

void print_cases(const BenchOptions& o) {
  std::printf("%4s  %-24s %-10s %-10s %-12s %s\n", "row", "shape MxNxK", "types", "majors", "alpha, beta",
              "as options");
  for (size_t i = 0; i < o.cases.size(); ++i) {
    const GemmCase& c = o.cases[i];
    const std::string types = std::string(codegen::ptx_name(c.dtype)) + "->" + codegen::ptx_name(c.out);
    char scalars[64];
    std::snprintf(scalars, sizeof scalars, "%g, %g", c.alpha, c.beta);
    std::printf("%4d  %-24s %-10s %-10s %-12s %s\n", o.first_row + static_cast<int>(i), case_shape(c).c_str(),
                types.c_str(), case_majors(c).c_str(), scalars, case_options(c).c_str());
  }
}

// --- Options ------------------------------------------------------------------------------------

// Numbers: tessel's strict readers (parse_number.hpp), their Error a ParseError here.
int64_t parse_int(const std::string& option, const std::string& value, int64_t lo, int64_t hi) {
  try {
    return parse_integer(option, value, lo, hi);
  } catch (const Error& e) {
    throw ParseError{e.what()};
  }
}

double parse_double(const std::string& option, const std::string& value) {
  try {
    return parse_finite(option, value);
  } catch (const Error& e) {
    throw ParseError{e.what()};
  }
}

void check_epilogue_options(GemmCase& c, const std::string* broadcast, bool l_given) {
  if (c.c_major && c.beta == 0)
    fail(std::string("--c-major ") + c.c_major +
         " gives C a tensor of its own, which only a nonzero --beta reads (out = alpha * A @ B + beta * C); got --beta 0");
  if (!broadcast) return;
  for (size_t at = 0; at <= broadcast->size();) {  // a comma-separated list of a, b, c
    const size_t comma = std::min(broadcast->find(',', at), broadcast->size());
    const std::string item = broadcast->substr(at, comma - at);
    bool* flag = item == "a" ? &c.broadcast_a : item == "b" ? &c.broadcast_b : item == "c" ? &c.broadcast_c : nullptr;
    if (!flag)
      fail("--broadcast '" + printable(item) +
           "' is not an operand that can broadcast (valid: a, b, c, as a comma-separated list)");
    if (*flag) fail("--broadcast names '" + item + "' twice");
    *flag = true;
    at = comma + 1;
  }
  if (c.l < 2)
    fail("--broadcast gives an operand a batch stride of 0 (one matrix for every batch); it needs --l 2 or more, got " +
         (l_given ? "--l " + std::to_string(c.l) : std::string("no --l")));
  if (c.broadcast_c && !c.c_major)
    fail("--broadcast c needs a C of its own (--c-major n|m): out itself cannot have a batch stride of 0 (its batches "
         "would be written to one matrix)");
}

BenchOptions parse_gemm_options(const std::vector<std::string>& args, bool& help, const char* command,
                                const std::set<std::string>& extra_valued) {
  BenchOptions o;
  std::map<std::string, std::string> v;
  bool sweep = false, llama = false;
  static const std::set<std::string> kValued = {
      "--m",         "--n",     "--k",    "--l",      "--dtype", "--out",   "--a-major", "--b-major",
      "--out-major", "--alpha", "--beta", "--kernel", "--class", "--iters", "--warmup",  "--seed", "--splits", "--llama-model",
      "--rows",      "--c-major", "--broadcast", "--random"};
  bool pad = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "-h" || a == "--help") {
      help = true;
      return o;
    }
    if (a == "--sweep") {
      sweep = true;
      continue;
    }
    if (a == "--llama") {
      llama = true;
      continue;
    }
    if (a == "--one-call") {
      o.one_call = true;
      continue;
    }
    if (a == "--each") {
      o.each = true;
      continue;
    }
    if (a == "--list") {
      o.list = true;
      continue;
    }
    if (a == "--pad-ld") {
      pad = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    if (!kValued.count(a) && !extra_valued.count(a)) {
      if (a.rfind("-", 0) == 0) throw ParseError{"unknown option '" + printable(a) + "'"};
      throw ParseError{"unexpected argument '" + printable(a) + "' (" + command + " takes options only)"};
    }
    if (!has_value) {
      if (i + 1 >= args.size()) throw ParseError{a + " needs a value"};
      value = args[++i];
    }
    (extra_valued.count(a) ? o.extra : v)[a] = value;
  }
  if (v.count("--splits")) {
    std::string list = v["--splits"];
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      o.splits.push_back(static_cast<int>(parse_int("--splits", list.substr(at, comma - at), 2, 32)));
      at = comma + 1;
    }
  }
  if (v.count("--iters")) o.iters = static_cast<int>(parse_int("--iters", v["--iters"], 1, 100000));
  if (v.count("--warmup")) o.warmup = static_cast<int>(parse_int("--warmup", v["--warmup"], 0, 100000));
  if (v.count("--seed")) {
    try {
      o.seed = parse_unsigned("--seed", v["--seed"]);
    } catch (const Error& e) {
      throw ParseError{e.what()};
    }
  } else {
    o.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  const kernels::KernelMetadata* md = nullptr;  // the --kernel's: the problem's defaults
  kernels::KernelPtr named;
  if (v.count("--kernel")) {
    o.kernel = v["--kernel"];
    try {
      named = kernels::find_kernel(o.kernel);
    } catch (const Error&) {
      throw ParseError{"--kernel: no catalog kernel is called '" + printable(o.kernel) +
                       "' (`tessel list --kind gemm` lists them)"};
    }
    md = &named->metadata();
    if (md->operation != kernels::Operation::Gemm)
      throw ParseError{"--kernel " + o.kernel + " is of operation " + kernels::operation_name(md->operation) +
                       "; tessel bench times GEMMs (`tessel run " + o.kernel + "` times one launch of it on the GPU)"};
    // The problem takes the kernel's types and majors unless the options say otherwise.
    auto letter = [](kernels::Major m, char row, char col) { return m == kernels::Major::Column ? col : row; };
    const kernels::OperandAttributes &a = md->operand("A"), &b = md->operand("B"), &out = md->operand("out");
    if (!parse_dtype(codegen::ptx_name(a.dtype), false) || !parse_dtype(codegen::ptx_name(out.dtype), true))
      throw ParseError{"--kernel " + o.kernel + " takes " + codegen::ptx_name(a.dtype) + " -> " +
                       codegen::ptx_name(out.dtype) + "; tessel bench gemm runs " + kDtypes + " inputs and " +
                       kOutTypes + " outputs (`tessel run " + o.kernel + "` times one launch of it on the GPU)"};
    if (!sweep && !v.count("--dtype")) v["--dtype"] = codegen::ptx_name(a.dtype);
    if (!sweep) {
      if (!v.count("--out")) v["--out"] = codegen::ptx_name(out.dtype);
      if (!v.count("--a-major") && a.major != kernels::Major::Any) v["--a-major"] = std::string(1, letter(a.major, 'k', 'm'));
      if (!v.count("--b-major") && b.major != kernels::Major::Any) v["--b-major"] = std::string(1, letter(b.major, 'n', 'k'));
      if (!v.count("--out-major") && out.major != kernels::Major::Any)
        v["--out-major"] = std::string(1, letter(out.major, 'n', 'm'));
      for (const char* extent : {"--m", "--n", "--k"})
        if (!v.count(extent)) v[extent] = "4096";
    }
  }
  if (v.count("--class")) {
    o.kernel_class = v["--class"];
    if (!kernels::Registry::global().find_class(o.kernel_class)) {
      std::string names;
      for (const auto& c : kernels::Registry::global().classes()) names += (names.empty() ? "" : ", ") + c->name();
      throw ParseError{"--class: no kernel class is called '" + printable(o.kernel_class) + "' (valid: " + names + ")"};
    }
  }
  if (o.one_call && (!o.kernel.empty() || !o.kernel_class.empty()))
    throw ParseError{"--one-call times tessel::gemm's own choice; it takes no --kernel or --class"};
  const bool random = v.count("--random") > 0;
  if (sweep + llama + random > 1)
    throw ParseError{"--sweep, --llama and --random are three lists of problems: one at a time"};
  if (v.count("--llama-model") && !llama) throw ParseError{"--llama-model picks one model of --llama; it needs --llama"};
  if (v.count("--rows") && !sweep && !llama && !random)
    throw ParseError{"--rows picks rows of --sweep, --llama or --random; it needs one of them"};
  if (sweep || llama || random) {
    const std::string list = sweep ? "--sweep" : llama ? "--llama" : "--random";
    for (const char* shape_option :
         {"--m", "--n", "--k", "--l", "--dtype", "--out", "--a-major", "--b-major", "--out-major", "--c-major",
          "--alpha", "--beta", "--broadcast"})
      if (v.count(shape_option))
        throw ParseError{list + " runs its own list of problems; it takes no " + shape_option};
    if (pad) throw ParseError{list + " runs its own list of problems; it takes no --pad-ld"};
    std::string model;
    if (v.count("--llama-model")) {
      model = v["--llama-model"];
      if (model != "8b" && model != "70b")
        throw ParseError{"--llama-model '" + printable(model) + "' is not a model of the list (valid: 8b, 70b)"};
    }
    if (random) {  // drawn from --seed, so that the printed seed reproduces the problems too
      const int count = static_cast<int>(parse_int("--random", v["--random"], 1, 10000));
      o.cases = random_cases(count, o.seed);
    } else {
      o.cases = sweep ? sweep_cases() : llama_cases(model);
    }
    if (v.count("--rows")) {  // FIRST-LAST, 1-based and inclusive: a list in parts, one device call each
      const std::string r = v["--rows"];
      const size_t dash = r.find('-');
      if (dash == std::string::npos)
        throw ParseError{"--rows '" + printable(r) + "' is not FIRST-LAST (e.g. 1-25: rows 1 to 25 of the list)"};
      const int64_t n = static_cast<int64_t>(o.cases.size());
      const int64_t first = parse_int("--rows", r.substr(0, dash), 1, n);
      const int64_t last = parse_int("--rows", r.substr(dash + 1), first, n);
      o.cases = std::vector<GemmCase>(o.cases.begin() + (first - 1), o.cases.begin() + last);
      o.first_row = static_cast<int>(first);
    }
    return o;
  }
  GemmCase c;
  if (v.count("--dtype")) {
    const auto t = parse_dtype(v["--dtype"], false);
    if (!t)
      throw ParseError{"--dtype '" + printable(v["--dtype"]) + "' is not a type the benchmark runs (valid: " + kDtypes +
                       ")"};
    c.dtype = *t;
  }
  c.out = default_out(c.dtype);
  if (v.count("--out")) {
    const auto t = parse_dtype(v["--out"], true);
    if (!t)
      throw ParseError{"--out '" + printable(v["--out"]) +
                       "' is not an output type the benchmark runs (valid: " + kOutTypes + ")"};
    c.out = *t;
  }
  auto major = [&](const std::string& option, const char* valid, char fallback) {
    if (!v.count(option)) return fallback;
    const std::string& s = v[option];
    if (s.size() != 1 || !std::strchr(valid, s[0]))
      throw ParseError{option + " '" + printable(s) + "' is not a major (valid: " + valid[0] + " or " + valid[1] +
                       ": the mode with unit stride)"};
    return s[0];
  };
  c.a_major = major("--a-major", "km", 'k');
  c.b_major = major("--b-major", "kn", is_fp8(c.dtype) ? 'k' : 'n');
  c.out_major = major("--out-major", "nm", 'n');
  // fp8 takes any majors: where cuBLAS runs only its TN form, its peer runs on K-major copies
  // (cublas_peer.hpp, plan_cublaslt_peer), made before timing.
  c.c_major = major("--c-major", "nm", 0);
  for (const char* required : {"--m", "--n", "--k"})
    if (!v.count(required)) throw ParseError{std::string(command) + " needs --m, --n and --k (or --sweep)"};
  const int64_t kMax = int64_t{1} << 20;
  c.m = parse_int("--m", v["--m"], 1, kMax);
  c.n = parse_int("--n", v["--n"], 1, kMax);
  c.k = parse_int("--k", v["--k"], 1, kMax);
  if (v.count("--l")) c.l = parse_int("--l", v["--l"], 1, 65535);
  if (v.count("--alpha")) c.alpha = parse_double("--alpha", v["--alpha"]);
  if (v.count("--beta")) c.beta = parse_double("--beta", v["--beta"]);
  try {
    check_epilogue_options(c, v.count("--broadcast") ? &v["--broadcast"] : nullptr, v.count("--l") > 0);
  } catch (const Error& e) {
    throw ParseError{e.what()};
  }
  c.pad_ld = pad;
  o.cases = {c};
  return o;
}

// --- Host data ----------------------------------------------------------------------------------

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// `count` random elements of type t (see the file's comment), in parallel chunks whose seeds come
// from (seed, stream, chunk): the same bytes whatever the number of threads.
std::vector<uint8_t> random_bytes(Type t, int64_t count, uint64_t seed, uint64_t stream) {
  const int eb = codegen::bytes(t);
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * eb);
  const int64_t chunk = int64_t{1} << 20;
  const int64_t chunks = (count + chunk - 1) / chunk;
  auto fill = [&](int64_t c) {
    uint64_t state = seed ^ (stream * 0xd1b54a32d192ed03ull) ^ (static_cast<uint64_t>(c) * 0x8cb92ba72f3d8dd7ull);
    splitmix64(state);
    const int64_t end = std::min(count, (c + 1) * chunk);
    for (int64_t i = c * chunk; i < end; ++i) {
      const uint64_t r = splitmix64(state);
      uint8_t* p = bytes.data() + i * eb;
      if (t == Type::E4M3) {
        *p = codegen::encode_e4m3((static_cast<int>(r % 33) - 16) / 8.0);
      } else if (t == Type::E5M2) {
        *p = codegen::encode_e5m2((static_cast<int>(r % 17) - 8) / 4.0);
      } else {
        const float x = static_cast<float>(static_cast<double>(r >> 40) * 0x1p-24 * 2.0 - 1.0);
        if (t == Type::F32) {
          std::memcpy(p, &x, 4);
        } else {
          const uint16_t h = t == Type::BF16 ? codegen::encode_bf16(x) : codegen::encode_f16(x);
          std::memcpy(p, &h, 2);
        }
      }
    }
  };
  const int64_t threads = std::max<int64_t>(1, std::min<int64_t>(chunks, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (int64_t c = w; c < chunks; c += threads) fill(c);
    });
  for (auto& th : pool) th.join();
  return bytes;
}

double element(const std::vector<uint8_t>& bytes, Type t, int64_t i) {
  switch (t) {
    case Type::E4M3:
      return codegen::decode_e4m3(bytes[i]);
    case Type::E5M2:
      return codegen::decode_e5m2(bytes[i]);
    case Type::F32: {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      return f;
    }
    default: {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      return t == Type::BF16 ? codegen::decode_bf16(h) : codegen::decode_f16(h);
    }
  }
}

// --- Layouts ------------------------------------------------------------------------------------

int64_t padded_ld(int64_t extent, Type t) {
  const int64_t q = std::max(1, 16 / codegen::bytes(t));
  return (extent + q - 1) / q * q;
}

// An operand's layout (gemm_bench.hpp); its leading dimension is the contiguous extent, rounded up
// to 16 bytes with pad_ld (padded_ld). `broadcast`: batch stride 0, one matrix for all l batches.
Layout make_layout(Type t, int64_t l, int64_t rows, int64_t cols, bool row_major, bool pad, bool broadcast = false) {
  const int64_t inner = row_major ? cols : rows, outer = row_major ? rows : cols;
  const int64_t ld = pad ? padded_ld(inner, t) : inner;
  const int64_t batch = broadcast ? 0 : outer * ld;
  Layout x;
  x.shape = {l, rows, cols};
  x.stride = row_major ? std::vector<int64_t>{batch, ld, 1} : std::vector<int64_t>{batch, 1, ld};
  x.elements = (broadcast ? 1 : l) * outer * ld;
  return x;
}

TensorView view(uint64_t ptr, Type t, const Layout& x, bool rank2) {
  TensorView v;
  v.data = ptr;
  v.dtype = t;
  v.shape = x.shape;
  v.stride = x.stride;
  if (rank2) {
    v.shape.erase(v.shape.begin());
    v.stride.erase(v.stride.begin());
  }
  return v;
}

// --- Timing -------------------------------------------------------------------------------------

// The times of `iters` runs in ms, after `warmup` runs: back to back, an event between each two.
// `first` numbers the runs (so that consecutive calls rotate through the buffer sets).
std::vector<double> times_ms(const RunFn& run, int first, int warmup, int iters, rt::Stream& stream) {
  int i = first;
  for (int w = 0; w < warmup; ++w) run(i++);
  std::vector<rt::Event> events(static_cast<size_t>(iters) + 1);
  events[0].record(stream);
  for (int t = 0; t < iters; ++t) {
    run(i++);
    events[t + 1].record(stream);
  }
  events.back().synchronize();
  std::vector<double> ms;
  for (int t = 0; t < iters; ++t) ms.push_back(rt::elapsed_ms(events[t], events[t + 1]));
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string no_gpu_reason() {
  const rt::DriverProbe& driver = rt::driver_status();
  if (!driver.available) return driver.reason;
  if (rt::device_count() == 0) return "the CUDA driver sees no device";
  return "";
}

double median_ms(const RunFn& run, int warmup, int iters, rt::Stream& stream) {
  return median(times_ms(run, 0, warmup, iters, stream));
}

namespace {

// "a,c" for a broadcast A and C (--broadcast's list); empty where nothing broadcasts.
std::string broadcast_names(const GemmCase& c) {
  std::string names;
  for (const auto& [flag, name] : {std::pair{c.broadcast_a, "a"}, {c.broadcast_b, "b"}, {c.broadcast_c, "c"}})
    if (flag) names += (names.empty() ? "" : ",") + std::string(name);
  return names;
}

}  // namespace

std::string case_shape(const GemmCase& c) {
  const std::string bcast = broadcast_names(c);
  return (c.l > 1 ? std::to_string(c.l) + "*" : std::string()) + std::to_string(c.m) + "x" + std::to_string(c.n) +
         "x" + std::to_string(c.k) + (c.pad_ld ? " pad" : "") + (bcast.empty() ? "" : " bcast " + bcast);
}

std::string case_majors(const GemmCase& c) {
  return std::string{c.a_major, ',', c.b_major, ',', c.out_major} + (c.c_major ? std::string(" C:") + c.c_major : "");
}

std::string case_options(const GemmCase& c) {
  std::ostringstream s;
  if (c.l > 1) s << "--l " << c.l << " ";
  s << "--m " << c.m << " --n " << c.n << " --k " << c.k << " --dtype " << codegen::ptx_name(c.dtype) << " --out "
    << codegen::ptx_name(c.out) << " --a-major " << c.a_major << " --b-major " << c.b_major << " --out-major "
    << c.out_major;
  if (c.c_major) s << " --c-major " << c.c_major;
  if (c.alpha != 1) s << " --alpha " << c.alpha;
  if (c.beta != 0) s << " --beta " << c.beta;
  if (const std::string bcast = broadcast_names(c); !bcast.empty()) s << " --broadcast " << bcast;
  if (c.pad_ld) s << " --pad-ld";
  return s.str();
}

namespace {

// The problem's layouts: A, B, out and the tensor beta scales (a distinct C's, else out's).
struct CaseLayouts {
  Layout a, b, o, c;
};
CaseLayouts case_layouts(const GemmCase& c) {
  CaseLayouts x;
  x.a = make_layout(c.dtype, c.l, c.m, c.k, c.a_major == 'k', c.pad_ld, c.broadcast_a);
  x.b = make_layout(c.dtype, c.l, c.k, c.n, c.b_major == 'n', c.pad_ld, c.broadcast_b);
  x.o = make_layout(c.out, c.l, c.m, c.n, c.out_major == 'n', c.pad_ld);
  x.c = c.c_major ? make_layout(c.out, c.l, c.m, c.n, c.c_major == 'n', c.pad_ld, c.broadcast_c) : x.o;
  return x;
}

GemmArguments arguments(const GemmCase& c, const CaseLayouts& x, uint64_t a, uint64_t b, uint64_t out, uint64_t cc,
                        bool rank2) {
  GemmArguments g;
  g.A = view(a, c.dtype, x.a, rank2);
  g.B = view(b, c.dtype, x.b, rank2);
  g.out = view(out, c.out, x.o, rank2);
  if (c.c_major) g.C = view(cc, c.out, x.c, rank2);
  g.accumulator_type = Type::F32;
  g.alpha = c.alpha;
  g.beta = c.beta;
  return g;
}

}  // namespace

GemmArguments case_arguments(const GemmCase& c) { return arguments(c, case_layouts(c), 0, 0, 0, 0, false); }

GemmArguments ProblemBuffers::args_for(const GemmCase& c, size_t s, bool rank2) const {
  return arguments(c, {la, lb, lo, lc}, A[s].ptr(), B[s].ptr(), O[s].ptr(), C.empty() ? 0 : C[s].ptr(), rank2);
}

ProblemBuffers make_buffers(const GemmCase& c, const rt::DeviceProperties& props, uint64_t seed,
                            std::vector<std::string>& notes, size_t extra_set_bytes) {
  ProblemBuffers pb;
  const CaseLayouts x = case_layouts(c);
  pb.la = x.a;
  pb.lb = x.b;
  pb.lo = x.o;
  pb.lc = x.c;
  pb.ba = pb.la.elements * codegen::bytes(c.dtype);
  pb.bb = pb.lb.elements * codegen::bytes(c.dtype);
  pb.bo = pb.lo.elements * codegen::bytes(c.out);
  pb.bc = c.c_major ? pb.lc.elements * codegen::bytes(c.out) : 0;
  const size_t set_bytes = pb.ba + pb.bb + pb.bo + pb.bc;

  // Sets: more than twice the L2 in all, at least 2, as many as memory holds beside the check
  // buffer, the caller's memory per set and a margin for workspaces (cuBLAS's 32 MiB included).
  const size_t l2 = static_cast<size_t>(std::max(props.l2_cache_bytes, 1));
  const size_t free_bytes = rt::memory_info().free;
  const size_t reserve = pb.bo + (size_t{512} << 20);
  const size_t fit = free_bytes > reserve ? (free_bytes - reserve) / (set_bytes + extra_set_bytes) : 0;
  if (fit < 1)
    fail("one set of buffers (" + std::to_string((set_bytes + extra_set_bytes) >> 20) + " MiB) does not fit in " +
         std::to_string(free_bytes >> 20) + " MiB of free device memory");
  size_t sets = std::max<size_t>(2, 2 * l2 / set_bytes + 1);
  if (sets > fit) {
    notes.push_back("only " + std::to_string(fit) + " buffer sets fit in memory (" + std::to_string(sets) +
                    " would exceed twice the L2)");
    sets = fit;
  }
  pb.sets = std::min<size_t>(sets, 64);

  // Host inputs (one stream of random numbers per operand and problem), uploaded to every set.
  pb.ha = random_bytes(c.dtype, pb.la.elements, seed, 1);
  pb.hb = random_bytes(c.dtype, pb.lb.elements, seed, 2);
  if (c.beta != 0 || c.c_major) pb.hc = random_bytes(c.out, pb.lc.elements, seed, 3);
  for (size_t s = 0; s < pb.sets; ++s) {
    pb.A.emplace_back(pb.ba);
    pb.B.emplace_back(pb.bb);
    pb.O.emplace_back(pb.bo);
    pb.A.back().upload(pb.ha.data(), pb.ba);
    pb.B.back().upload(pb.hb.data(), pb.bb);
    if (c.c_major) {  // out is not read: C is
      pb.C.emplace_back(pb.bc);
      pb.C.back().upload(pb.hc.data(), pb.bc);
      pb.O.back().fill(0);
    } else if (c.beta != 0) {
      pb.O.back().upload(pb.hc.data(), pb.bo);
    } else {
      pb.O.back().fill(0);
    }
  }
  return pb;
}

}  // namespace gemm_bench

namespace {

using namespace gemm_bench;
using codegen::is_fp8;
using codegen::Type;
using kernels::GemmArguments;
using kernels::TensorView;

// tessel's and the peer's median times, measured in alternation: both warmed up, then rounds of
// up to 5 runs of one and 5 of the other (one untimed run first in each round, so that no timed
// run follows the other kernel), until each has `iters` timed runs. The GPU's clock and
// temperature drift over seconds; in alternation both see the same drift, one after the other
// they would not (an 8192^3 GEMM measured first in a sweep varied by 7%, cuBLAS after it by 0.1%).
std::array<double, 2> alternating_median_ms(const std::array<RunFn, 2>& runs, int warmup, int iters,
                                            rt::Stream& stream) {
  constexpr int kRound = 5;
  std::array<std::vector<double>, 2> ms;
  std::array<int, 2> next{};
  for (size_t k = 0; k < 2; ++k) {
    for (int w = 0; w < warmup; ++w) runs[k](next[k]++);
  }
  for (int done = 0; done < iters; done += kRound) {
    const int n = std::min(kRound, iters - done);
    for (size_t k = 0; k < 2; ++k) {
      const std::vector<double> t = times_ms(runs[k], next[k], 1, n, stream);
      next[k] += 1 + n;
      ms[k].insert(ms[k].end(), t.begin(), t.end());
    }
  }
  return {median(ms[0]), median(ms[1])};
}

// --- One problem --------------------------------------------------------------------------------

struct Row {
  std::string shape, types, majors, kernel = "-";
  std::optional<double> tessel_tflops, cublas_tflops, max_rel;
  int sets = 0;
  std::vector<std::string> notes;
  bool error = false;
};

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

struct Device {
  rt::DeviceProperties props;
  int cc = 0;
  bool cublas = false;
};

// --- The cuBLAS peer -----------------------------------------------------------------------------

// The elementwise type that moves an element of `t` bit for bit (as tessel::gemm's packing copies
// choose theirs, kernels/src/gemm/gemm.cpp): fp8 as s8, 16-bit types as f16, f32 as s32.
Type bit_copy_type(Type t) {
  switch (codegen::bytes(t)) {
    case 1:
      return Type::S8;
    case 2:
      return Type::F16;
    default:
      return Type::S32;
  }
}

// Bytes of a plan's copies (one buffer set's).
size_t copy_bytes(const bench::LtPeerPlan& p) {
  size_t bytes = 0;
  for (const bench::LtCopy& cp : p.copies) bytes += static_cast<size_t>(cp.elements) * codegen::bytes(cp.to.dtype);
  return bytes;
}

bool has_broadcast(const GemmArguments& g) {
  if (g.out.rank() != 3 || g.out.shape[0] < 2) return false;
  return g.A.stride[0] == 0 || g.B.stride[0] == 0 || (g.C && g.C->rank() == 3 && g.C->stride[0] == 0);
}

// cuBLAS as the peer of one problem: the prepared GEMM and, per buffer set, the addresses of the A,
// B and C it reads: the problem's own, or copies of the operands that cublasLt does not take as they
// lie (bench::plan_cublaslt_peer), made here for every set before anything is timed. C's address is
// 0 where C is out.
struct Peer {
  std::unique_ptr<bench::CublasLtGemm> gemm;
  std::vector<rt::DeviceBuffer> copies;
  std::vector<std::array<uint64_t, 3>> abc;  // per set
  std::vector<std::string> notes;            // one per copy: what and why

  // out = alpha * A @ B + beta * C for set s into `out` (C is `out` itself where C is out).
  void run(size_t s, uint64_t out, rt::Stream& stream) const {
    const std::array<uint64_t, 3>& p = abc[s];
    gemm->run(p[0], p[1], p[2] ? p[2] : out, out, stream);
  }
};

std::unique_ptr<Peer> make_peer(const std::vector<GemmArguments>& args, int cc, bool zero_batch_stride,
                                rt::Stream& stream) {
  auto peer = std::make_unique<Peer>();
  for (size_t s = 0; s < args.size(); ++s) {
    bench::LtPeerPlan plan = bench::plan_cublaslt_peer(args[s], cc, zero_batch_stride);
    for (bench::LtCopy& cp : plan.copies) {
      peer->copies.emplace_back(static_cast<size_t>(cp.elements) * codegen::bytes(cp.to.dtype));
      cp.to.data = peer->copies.back().ptr();
      (cp.operand == 'A' ? plan.args.A : cp.operand == 'B' ? plan.args.B : *plan.args.C).data = cp.to.data;
      kernels::ElementwiseArguments e;
      e.op = kernels::ElementwiseOp::Copy;
      e.A = cp.from;
      e.C = cp.to;
      if (e.C.rank() == 3 && e.C.shape[0] > 1 && e.C.stride[0] == 0) e.A.shape[0] = e.C.shape[0] = 1;  // one matrix
      e.A.dtype = e.C.dtype = bit_copy_type(cp.from.dtype);
      e.B = e.A;
      kernels::elementwise(e, stream);
      if (s == 0)
        peer->notes.push_back("cuBLAS runs on a copy of " + std::string(1, cp.operand) + ": " + cp.why +
                              " (copied once before timing; the copy is not counted in cuBLAS's time)");
    }
    peer->abc.push_back({plan.args.A.data, plan.args.B.data, plan.args.C ? plan.args.C->data : 0});
    if (s == 0) peer->gemm = std::make_unique<bench::CublasLtGemm>(plan.args);
  }
  stream.synchronize();
  return peer;
}

Row run_case(const GemmCase& c, const BenchOptions& o, const Device& dev, rt::Stream& stream, int index) {
  Row row;
  row.shape = case_shape(c);
  row.types = std::string(codegen::ptx_name(c.dtype)) + "->" + codegen::ptx_name(c.out);
  row.majors = case_majors(c);
  const uint64_t seed = o.seed + static_cast<uint64_t>(index) * 0x100;
  ProblemBuffers pb;
  try {
    // The peer's copies count against memory (the larger of its two plans: see the peer below).
    size_t peer_bytes = 0;
    if (dev.cublas) {
      const GemmArguments shape = case_arguments(c);
      peer_bytes = std::max(copy_bytes(bench::plan_cublaslt_peer(shape, dev.cc, true)),
                            copy_bytes(bench::plan_cublaslt_peer(shape, dev.cc, false)));
    }
    pb = make_buffers(c, dev.props, seed, row.notes, peer_bytes);
  } catch (const Error& e) {
    row.error = true;
    row.notes.push_back(std::string("error: ") + e.what());
    return row;
  }
  const Layout &la = pb.la, &lb = pb.lb, &lo = pb.lo, &lc = pb.lc;
  const size_t sets = pb.sets, bo = pb.bo;
  row.sets = static_cast<int>(sets);
  const std::vector<uint8_t>&ha = pb.ha, &hb = pb.hb, &hc = pb.hc;
  std::vector<rt::DeviceBuffer>& O = pb.O;
  rt::DeviceBuffer check(bo);  // cuBLAS's output for the comparison

  auto args_for = [&](size_t s, bool rank2) { return pb.args_for(c, s, rank2); };
  const double flops = 2.0 * static_cast<double>(c.m) * c.n * c.k * c.l;
  auto tflops = [&](double ms) { return flops / (ms * 1e9); };

  // --- tessel: the catalog's kernels for these arguments (rank 3; rank 2 when none takes L = 1).
  const kernels::MetadataFilter filter = [&](const kernels::KernelMetadata& md) {
    return (o.kernel.empty() || md.name == o.kernel) && (o.kernel_class.empty() || md.kernel_class == o.kernel_class);
  };
  bool rank2 = false;
  std::vector<kernels::KernelPtr> found = kernels::get_kernels(args_for(0, false), filter, dev.cc);
  if (found.empty() && c.l == 1) {
    found = kernels::get_kernels(args_for(0, true), filter, dev.cc);
    rank2 = !found.empty();
  }
  std::vector<GemmArguments> args;
  for (size_t s = 0; s < sets; ++s) args.push_back(args_for(s, rank2));
  if (found.empty()) {
    // Say why, with one kernel's reason (the one named, or the first of the wanted ones that takes
    // A's type: the others' reason, the type, is no news).
    std::string why = "no catalog kernel";
    if (!o.kernel_class.empty()) why += " of class " + o.kernel_class;
    why += " takes the operands as they lie on sm_" + std::to_string(dev.cc);
    std::vector<kernels::KernelPtr> wanted = kernels::list_kernels(filter);
    std::stable_partition(wanted.begin(), wanted.end(), [&](const kernels::KernelPtr& k) {
      const auto& ops = k->metadata().operands;
      return !ops.empty() && ops.front().dtype == args[0].A.dtype;
    });
    for (const kernels::KernelPtr& k : wanted) {
      if (k->metadata().operation != kernels::Operation::Gemm) continue;
      const kernels::Status s = k->supports(args[0]);
      if (!s) {
        why += "; e.g. " + k->name() + ": " + s.reason;
        break;
      }
      if (k->metadata().min_cc > dev.cc) {
        why += "; e.g. " + k->name() + " needs sm_" + std::to_string(k->metadata().min_cc);
        break;
      }
    }
    row.notes.push_back(why);
  }
  struct Candidate {
    kernels::KernelPtr kernel;  // null: the one-call API, tessel::gemm (its own choice and copies)
    kernels::Artifact artifact;
    std::shared_ptr<rt::DeviceBuffer> workspace;
    double ms = 0;
    int splits = 1;   // a split-K kernel: the count the cost model chooses for it (GemmArguments::split_k)
    int workers = 0;  // a stream-K kernel: one CTA per SM (GemmArguments::stream_k_workers)
    std::string name() const {
      return kernel ? kernel->name() + (splits > 1 ? " (split-K x " + std::to_string(splits) + ")" : "") +
                          (workers > 0 ? " (stream-K on " + std::to_string(workers) + " CTAs)" : "")
                    : "tessel::gemm";
    }
  };
  std::vector<Candidate> candidates;
  // The one-call API on the same buffers (with neither --kernel nor --class): what a user's call
  // runs, copies through its workspace included.
  std::string one_call;
  if (o.kernel.empty() && o.kernel_class.empty()) {
    try {
      one_call = kernels::gemm(args[0], stream).describe();  // chooses and compiles here, untimed
      stream.synchronize();
      candidates.push_back(Candidate{nullptr, {}, nullptr, 0});
    } catch (const Error& e) {
      row.notes.push_back(std::string("tessel::gemm: ") + e.what());
    }
  }
  const kernels::GemmDevice gemm_dev{dev.cc, dev.props.sm_count};
  for (const kernels::KernelPtr& k : found) {
    if (o.one_call) break;  // tessel::gemm's choice only
    try {
      // A split-K kernel runs with the count the one-call model would give it; where it gives
      // none, the kernel would only repeat its data-parallel twin.
      // (--splits: each count given, where the kernel takes it.)
      const kernels::GemmSchedule schedule = kernels::kernel_schedule(k->metadata());
      std::vector<int> counts = {kernels::choose_splits(k->metadata(), args[0], gemm_dev)};
      if (schedule == kernels::GemmSchedule::SplitK && !o.splits.empty()) counts = o.splits;
      for (const int splits : counts) {
        if (schedule == kernels::GemmSchedule::SplitK && splits < 2) continue;
        GemmArguments split_args = args[0];
        split_args.split_k = splits;
        split_args.stream_k_workers = schedule == kernels::GemmSchedule::StreamK ? dev.props.sm_count : 0;
        if (!k->supports(split_args)) continue;  // e.g. more splits than k-tiles
        Candidate cand{k, k->compile(split_args, dev.cc), nullptr, 0, splits, split_args.stream_k_workers};
        if (const size_t ws = k->workspace_size(split_args)) cand.workspace = std::make_shared<rt::DeviceBuffer>(ws);
        candidates.push_back(std::move(cand));
      }
    } catch (const Error& e) {
      row.notes.push_back(k->name() + " did not compile: " + e.what());
    }
  }
  auto tessel_run = [&](const Candidate& cand) {
    return [&, cand_ptr = &cand](int i) {
      const size_t s = static_cast<size_t>(i) % sets;
      if (!cand_ptr->kernel) {
        kernels::gemm(args[s], stream);
        return;
      }
      if (cand_ptr->splits > 1 || cand_ptr->workers > 0) {
        GemmArguments g = args[s];
        g.split_k = cand_ptr->splits;
        g.stream_k_workers = cand_ptr->workers;
        cand_ptr->kernel->run(g, cand_ptr->artifact, stream, cand_ptr->workspace ? cand_ptr->workspace->ptr() : 0);
        return;
      }
      cand_ptr->kernel->run(args[s], cand_ptr->artifact, stream, cand_ptr->workspace ? cand_ptr->workspace->ptr() : 0);
    };
  };
  const Candidate* best = nullptr;
  if (candidates.size() > 1) {
    const Candidate* fastest_kernel = nullptr;
    const Candidate* api = nullptr;
    for (Candidate& cand : candidates) {
      try {
        // 3 warm-up and 10 timed runs: with fewer, a 30-microsecond problem picked a slower tile on noise.
        cand.ms = median_ms(tessel_run(cand), 3, 10, stream);
        if (!best || cand.ms < best->ms) best = &cand;
        if (!cand.kernel) api = &cand;
        else if (!fastest_kernel || cand.ms < fastest_kernel->ms) fastest_kernel = &cand;
      } catch (const Error& e) {
        row.notes.push_back(cand.name() + " failed: " + e.what());
      }
    }
    if (o.each)
      for (const Candidate& cand : candidates)
        if (cand.ms > 0) row.notes.push_back(fmt("%9.4f ms  ", cand.ms) + cand.name());
    if (best) row.notes.push_back("fastest of " + std::to_string(candidates.size()) + " candidates");
    // The one-call choice against the fastest catalog kernel that takes the operands as they lie.
    if (api && fastest_kernel)
      row.notes.push_back("one-call choice " + one_call + ": " + fmt("%.3f", fastest_kernel->ms / api->ms) +
                          "x the fastest catalog kernel (" + fastest_kernel->name() + ")");
  } else if (candidates.size() == 1) {
    best = &candidates[0];
  }
  // --- cuBLAS on the same buffers (or on copies of what cublasLt does not take as it lies: an fp8
  // operand that is not K-major, a distinct C in the other major), timed in alternation with
  // tessel's kernel. A batch stride of 0 goes to cublasLt as it is; only where its heuristic finds
  // no algorithm for it does the peer run on the broadcast operand written out for every batch.
  std::unique_ptr<Peer> peer;
  if (dev.cublas) {
    try {
      peer = make_peer(args, dev.cc, true, stream);
      if (!peer->gemm->supported() && has_broadcast(args[0])) {
        const std::string refused = peer->gemm->reason();
        peer.reset();  // its copies freed first
        peer = make_peer(args, dev.cc, false, stream);
        peer->notes.insert(peer->notes.begin(), "cuBLAS with a batch stride of 0: " + refused);
      }
      if (!peer->gemm->supported()) {
        row.notes.push_back(peer->gemm->reason());
        peer.reset();
      } else {
        row.notes.insert(row.notes.end(), peer->notes.begin(), peer->notes.end());
      }
    } catch (const Error& e) {
      row.error = true;
      row.notes.push_back(std::string("error: cuBLAS: ") + e.what());
      peer.reset();
    }
  }
  const RunFn peer_run = [&](int i) {
    const size_t s = static_cast<size_t>(i) % sets;
    peer->run(s, O[s].ptr(), stream);
  };
  // Each alone first (one run, waited for): an error is then the one side's.
  auto probe = [&](const RunFn& run) {
    run(0);
    stream.synchronize();
  };
  if (best) {
    try {
      probe(tessel_run(*best));
    } catch (const Error& e) {
      row.error = true;
      row.notes.push_back("error: " + best->name() + ": " + e.what());
      best = nullptr;
    }
  }
  if (peer) {
    try {
      probe(peer_run);
    } catch (const Error& e) {
      row.error = true;
      row.notes.push_back(std::string("error: cuBLAS: ") + e.what());
      peer.reset();
    }
  }
  try {
    if (best && peer) {
      const std::array<double, 2> ms = alternating_median_ms({tessel_run(*best), peer_run}, o.warmup, o.iters, stream);
      row.tessel_tflops = tflops(ms[0]);
      row.cublas_tflops = tflops(ms[1]);
    } else if (best) {
      row.tessel_tflops = tflops(median_ms(tessel_run(*best), o.warmup, o.iters, stream));
    } else if (peer) {
      row.cublas_tflops = tflops(median_ms(peer_run, o.warmup, o.iters, stream));
    }
    if (best) row.kernel = best->kernel ? best->name() : "tessel::gemm: " + one_call;
  } catch (const Error& e) {
    row.error = true;
    row.notes.push_back(std::string("error while timing: ") + e.what());
  }

  // --- Correctness: one run of each from the same out (C0 where C is out and beta != 0, else NaN:
  // then out is never read, and every element must be written).
  if (best || peer) {
    try {
      for (rt::DeviceBuffer* b : {&O[0], &check}) {
        if (c.beta != 0 && !c.c_major)
          b->upload(hc.data(), bo);
        else
          b->fill(0xff);
      }
      if (best) tessel_run (*best)(0);
      if (peer) peer->run(0, check.ptr(), stream);
      stream.synchronize();
      const std::vector<uint8_t> t = best ? O[0].to_vector<uint8_t>() : std::vector<uint8_t>();
      const std::vector<uint8_t> p = peer ? check.to_vector<uint8_t>() : std::vector<uint8_t>();
      auto out_index = [&](int64_t l, int64_t m, int64_t n) {
        return l * lo.stride[0] + m * lo.stride[1] + n * lo.stride[2];
      };
      if (best && peer) {
        double max_c = 0;
        for (int64_t l = 0; l < c.l; ++l)
          for (int64_t m = 0; m < c.m; ++m)
            for (int64_t n = 0; n < c.n; ++n) {
              const double v = std::fabs(element(p, c.out, out_index(l, m, n)));
              if (std::isfinite(v)) max_c = std::max(max_c, v);
            }
        double worst = 0;
        for (int64_t l = 0; l < c.l; ++l)
          for (int64_t m = 0; m < c.m; ++m)
            for (int64_t n = 0; n < c.n; ++n) {
              const int64_t i = out_index(l, m, n);
              const double tv = element(t, c.out, i), cv = element(p, c.out, i);
              // Normwise: an element near zero after cancellation differs in relative terms by
              // the rounding of its partial sums, which says nothing about either kernel.
              const double d = std::fabs(tv - cv) / std::max(max_c, 1e-30);
              worst = std::isfinite(d) ? std::max(worst, d) : INFINITY;  // a NaN or an infinity on either side
            }
        row.max_rel = worst;
        if (!(worst <= 1e-2))
          row.notes.push_back("warning: tessel's and cuBLAS's outputs differ: max relative difference " +
                              fmt("%.3g", worst) + " exceeds 1e-2");
      }
      // Both against a double-precision host reference at 256 sampled elements, relative to
      // |alpha| * sum |a b| + |beta c|.
      std::mt19937_64 pick(seed ^ 0x5eed);
      double err_t = 0, err_p = 0;
      for (int s = 0; s < 256; ++s) {
        const int64_t l = static_cast<int64_t>(pick() % c.l), m = static_cast<int64_t>(pick() % c.m),
                      n = static_cast<int64_t>(pick() % c.n);
        double acc = 0, mag = 0;
        for (int64_t k = 0; k < c.k; ++k) {
          const double x = element(ha, c.dtype, l * la.stride[0] + m * la.stride[1] + k * la.stride[2]) *
                           element(hb, c.dtype, l * lb.stride[0] + k * lb.stride[1] + n * lb.stride[2]);
          acc += x;
          mag += std::fabs(x);
        }
        const int64_t i = out_index(l, m, n);
        const double c0 =
            c.beta != 0 ? element(hc, c.out, l * lc.stride[0] + m * lc.stride[1] + n * lc.stride[2]) : 0;
        const double want = c.alpha * acc + c.beta * c0;
        const double scale = std::fabs(c.alpha) * mag + std::fabs(c.beta * c0) + 1e-30;
        auto err = [&](const std::vector<uint8_t>& got) {
          const double e = std::fabs(element(got, c.out, i) - want) / scale;
          return std::isfinite(e) ? e : INFINITY;
        };
        if (best) err_t = std::max(err_t, err(t));
        if (peer) err_p = std::max(err_p, err(p));
      }
      // bf16/f16 outputs round at 2^-9 / 2^-12 of the value; tf32 inputs at 2^-11.
      const double tolerance = 1e-2;
      if (best && !(err_t <= tolerance))
        row.notes.push_back("warning: tessel's output is off the host reference by " + fmt("%.3g", err_t) +
                            " (relative to sum |alpha a b| + |beta c|, 256 sampled elements)");
      if (peer && !(err_p <= tolerance))
        row.notes.push_back("warning: cuBLAS's output is off the host reference by " + fmt("%.3g", err_p) +
                            " (the peer's mapping is suspect: " + peer->gemm->mapping().to_string() + ")");
    } catch (const Error& e) {
      row.error = true;
      row.notes.push_back(std::string("error: while checking the outputs: ") + e.what());
    }
  }
  return row;
}

void print_header() {
  std::printf("%-24s %-10s %-10s %-54s %10s %10s %7s %12s %5s\n", "shape MxNxK", "types", "majors", "tessel kernel",
              "tessel", "cuBLAS", "ratio", "max rel diff", "sets");
  std::printf("%-24s %-10s %-10s %-54s %10s %10s %7s %12s %5s\n", "", "", "A,B,out C", "", "TFLOP/s", "TFLOP/s", "",
              "", "");
}

void print_row(const Row& r) {
  auto num = [](const std::optional<double>& x, const char* f) { return x ? fmt(f, *x) : std::string("-"); };
  std::optional<double> ratio;
  if (r.tessel_tflops && r.cublas_tflops && *r.cublas_tflops > 0) ratio = *r.tessel_tflops / *r.cublas_tflops;
  std::printf("%-24s %-10s %-10s %-54s %10s %10s %7s %12s %5d\n", r.shape.c_str(), r.types.c_str(), r.majors.c_str(),
              r.kernel.c_str(), num(r.tessel_tflops, "%.1f").c_str(), num(r.cublas_tflops, "%.1f").c_str(),
              num(ratio, "%.3f").c_str(), num(r.max_rel, "%.2e").c_str(), r.sets);
  for (const std::string& n : r.notes) std::printf("    %s\n", printable(n).c_str());
  std::fflush(stdout);
}

}  // namespace

void print_bench_help(std::ostream& out) {
  out << "usage: tessel bench NAME [--m M --n N --k K ...]   (= tessel bench gemm --kernel NAME ...)\n"
         "       tessel bench gemm --m M --n N --k K [--l L] [--dtype T] [--out T] [--a-major k|m]\n"
         "                         [--b-major k|n] [--out-major n|m] [--c-major n|m] [--alpha X]\n"
         "                         [--beta X] [--broadcast a,b,c] [--pad-ld]\n"
         "                         [--kernel NAME | --class CLASS] [--splits LIST] [--each] [--iters N]\n"
         "                         [--warmup N] [--seed S]\n"
         "       tessel bench gemm --sweep|--llama|--random N [--llama-model M] [--rows FIRST-LAST] [--list]\n"
         "                         [--kernel NAME | --class CLASS | --one-call]\n"
         "                         [--iters N] [--warmup N] [--seed S]\n"
         "\n"
         "Times tessel's GEMM kernels (every catalog kernel that supports the problem, the fastest\n"
         "reported) side by side with cuBLAS (cublasLt) on GPU 0, in one process on the same buffers,\n"
         "and compares their outputs. out (L,M,N) = alpha * A (L,M,K) @ B (L,K,N) + beta * C, C being out\n"
         "itself unless --c-major gives it a tensor of its own.\n"
         "\n"
         "  --m, --n, --k, --l   the problem (L: the batch, default 1)\n"
         "  --dtype T            A's and B's type: bf16, f16, f32 (tf32 tensor cores), e4m3, e5m2\n"
         "                       (default bf16)\n"
         "  --out T              out's type: bf16, f16, f32 (default: the inputs' for 16-bit, bf16 for\n"
         "                       fp8, f32 for f32); accumulation is always f32\n"
         "  --a-major k|m        A's mode with unit stride (default k: row-major A)\n"
         "  --b-major k|n        B's (default n: row-major B; k for fp8)\n"
         "  --out-major n|m      out's (default n: row-major out)\n"
         "  --c-major n|m        a C of its own (out's type and shape) with this mode of unit stride,\n"
         "                       read where beta != 0 (needs --beta); default: C is out\n"
         "  --alpha, --beta      the epilogue's scalars (default 1 and 0)\n"
         "  --broadcast LIST     operands with a batch stride of 0, one matrix for all L batches (L >= 2):\n"
         "                       a, b, c, comma-separated (c needs --c-major)\n"
         "  --pad-ld             round leading dimensions up to a multiple of 16 bytes\n"
         "  --kernel NAME        only this catalog kernel (`tessel list --kind gemm`); the problem then\n"
         "                       takes its types and majors, and 4096 for a missing --m, --n or --k\n"
         "  --class CLASS        only kernels of this class (e.g. hopper_gemm, simt_gemm)\n"
         "  --iters N            timed runs, the median reported (default 20)\n"
         "  --warmup N           untimed runs first (default 5)\n"
         "  --seed S             the inputs' seed (default: a fresh one, printed)\n"
         "  --sweep              the standard list: 8192^3, 4096^3, 2048^3 bf16; M=N=8192 with K from\n"
         "                       1024 to 16384; M from 128 to 1024 with N=K=8192; ragged 8191^3 and\n"
         "                       8193^3 (leading dimensions padded to 16 bytes); 8192^3 and 4096^3 e4m3;\n"
         "                       the problems of issue 18 (odd leading dimensions, tf32 M/N-major, a\n"
         "                       column-major out with beta, f16 -> f32 batched); then, from row 24, fp8\n"
         "                       with an M-major A or N-major B, a C of its own, broadcast batches\n"
         "  --llama              a Llama-class model's projections (8B and 70B: q/k/v, o, gate/up, down,\n"
         "                       lm head) for 1, 16, 128, 1024 and 8192 tokens, forward (weights as\n"
         "                       stored, B K-major) and weight gradient (A M-major, B N-major, K = tokens)\n"
         "  --random N           N problems drawn from --seed as users bring them: extents from 1 to 8192\n"
         "                       (round sizes and a few rows common, so mostly unaligned leading\n"
         "                       dimensions), every input and output type, every major, beta 0, 1 or\n"
         "                       another, a C of its own, batches and broadcasts, padded leading\n"
         "                       dimensions; at most 5e11 FLOPs each (the largest extent halved)\n"
         "  --llama-model M      with --llama: only model M's rows (8b or 70b)\n"
         "  --rows FIRST-LAST    with --sweep, --llama or --random: only these rows of the list\n"
         "                       (1-based, after --llama-model), to run a long list in parts\n"
         "  --one-call           time tessel::gemm's own choice only (not every catalog kernel)\n"
         "  --list               print the problems, numbered as --rows takes them, each with the options\n"
         "                       that give it alone, and time nothing (needs no GPU)\n"
         "  --each               print every candidate's screening time (3 warm-up, 10 timed runs)\n"
         "  --splits LIST        time each split-K kernel at each of these counts (e.g. 2,4,8; default:\n"
         "                       the count the cost model gives it)\n"
         "\n"
         "cuBLAS is opened at run time: $TESSEL_CUBLASLT (a libcublasLt.so file or its folder) first,\n"
         "then libcublasLt.so.13, .so.12, .so. Without it tessel's kernels are still timed. What cublasLt\n"
         "does not take as it lies (fp8 A or B not K-major where cuBLAS runs fp8 only as TN, as on sm_90;\n"
         "a C of its own in the other major than out), cuBLAS runs on copies made before timing, not\n"
         "counted in its time; the row's notes say which.\n";
}

int bench_command(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "error: tessel bench needs a benchmark: gemm\nRun `tessel bench --help` for the options.\n";
    return 2;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    print_bench_help(std::cout);
    return 0;
  }
  // `tessel bench NAME ...` is `tessel bench gemm --kernel NAME ...` for a kernel of the catalog.
  std::vector<std::string> gemm_args(args.begin() + 1, args.end());
  if (args[0] != "gemm") {
    bool known = false;
    try {
      kernels::find_kernel(args[0]);
      known = true;
    } catch (const Error&) {
    }
    if (!known) {
      std::cerr << "error: unknown benchmark '" << printable(args[0])
                << "' (valid: gemm, or a kernel's name from `tessel list`)\n";
      return 2;
    }
    gemm_args.insert(gemm_args.begin(), {"--kernel", args[0]});
  }
  BenchOptions o;
  try {
    bool help = false;
    o = parse_gemm_options(gemm_args, help);
    if (help) {
      print_bench_help(std::cout);
      return 0;
    }
  } catch (const ParseError& e) {
    std::cerr << "error: " << e.message << "\nRun `tessel bench --help` for the options.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }

  if (o.list) {  // the problems only, numbered as --rows takes them
    print_cases(o);
    return 0;
  }
  // A GPU, then cuBLAS (optional).
  bool any_error = false;
  try {
    if (const std::string why = gemm_bench::no_gpu_reason(); !why.empty()) {
      std::cerr << "error: tessel bench gemm needs a GPU: " << printable(why) << "\n";
      return 1;
    }
    rt::Context context(0);
    Device dev;
    dev.props = rt::device_properties(0);
    dev.cc = dev.props.compute_capability();
    std::printf("device: %s\n", rt::to_string(dev.props).c_str());
    std::printf("seed: %llu (--seed %llu reproduces the inputs)\n", static_cast<unsigned long long>(o.seed),
                static_cast<unsigned long long>(o.seed));
    try {
      std::printf("cuBLAS: %s\n", bench::cublaslt_description().c_str());
      dev.cublas = true;
    } catch (const Error& e) {
      std::printf("cuBLAS: not available (%s); timing tessel only\n", printable(e.what()).c_str());
    }
    std::printf(
        "method: median of %d runs after %d warm-up runs, CUDA events between back-to-back runs on one "
        "stream, tessel and cuBLAS alternating in rounds of 5, buffer sets rotated (together > 2x the L2 of "
        "%d MiB)\n\n",
        o.iters, o.warmup, dev.props.l2_cache_bytes >> 20);
    rt::Stream stream;
    print_header();
    std::vector<double> ratios;
    for (size_t i = 0; i < o.cases.size(); ++i) {
      Row r;
      try {
        r = run_case(o.cases[i], o, dev, stream, static_cast<int>(i));
      } catch (const Error& e) {
        r.shape =
            std::to_string(o.cases[i].m) + "x" + std::to_string(o.cases[i].n) + "x" + std::to_string(o.cases[i].k);
        r.error = true;
        r.notes.push_back(std::string("error: ") + e.what());
      }
      print_row(r);
      any_error = any_error || r.error;
      if (r.tessel_tflops && r.cublas_tflops && *r.cublas_tflops > 0)
        ratios.push_back(*r.tessel_tflops / *r.cublas_tflops);
    }
    if (!ratios.empty()) {
      double log_sum = 0;
      for (double x : ratios) log_sum += std::log(x);
      std::printf("\ngeometric mean of tessel/cuBLAS over %zu problems: %.3f\n", ratios.size(),
                  std::exp(log_sum / static_cast<double>(ratios.size())));
    } else {
      std::printf("\ngeometric mean of tessel/cuBLAS: - (no problem ran on both)\n");
    }
  } catch (const Error& e) {
    std::fflush(stdout);
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  }
  return any_error ? 1 : 0;
}

}  // namespace tessel::cli
