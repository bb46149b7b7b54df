// gemm_bench.hpp: what `tessel bench gemm` (bench_command.cpp) and `tessel tune`
// (tune_command.cpp) share: the problems and their options, the random inputs in rotated buffer
// sets, and the timing with CUDA events (bench_command.cpp defines them; its comment says how).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tessel/codegen/types.hpp"
#include "tessel/kernels/gemm_arguments.hpp"
#include "tessel/runtime.hpp"

namespace tessel::cli::gemm_bench {

struct GemmCase {
  int64_t m = 0, n = 0, k = 0, l = 1;
  codegen::Type dtype = codegen::Type::BF16, out = codegen::Type::BF16;
  char a_major = 'k', b_major = 'n', out_major = 'n';  // A: k|m, B: k|n, out: n|m
  // 0: beta scales out's own values (C is out); 'n' or 'm': a C of its own (out's type and shape)
  // with unit stride in N or M: out = alpha * A @ B + beta * C.
  char c_major = 0;
  double alpha = 1, beta = 0;
  bool pad_ld = false;  // leading dimensions rounded up to a multiple of 16 bytes
  // A batch stride of 0: one matrix for all L batches (C's needs a C of its own).
  bool broadcast_a = false, broadcast_b = false, broadcast_c = false;
};

struct BenchOptions {
  std::vector<GemmCase> cases;
  std::string kernel, kernel_class;
  bool one_call = false;  // time tessel::gemm only (its own choice), not every catalog kernel
  bool each = false;       // --each: every candidate's screening time in the row's notes
  std::vector<int> splits;  // --splits: time each split-K kernel at each count (empty: the model's count)
  int iters = 20, warmup = 5;
  uint64_t seed = 0;
  bool list = false;   // --list: print the problems, numbered, and time nothing (no GPU needed)
  int first_row = 1;   // the list's number of cases[0] (after --rows)
  std::map<std::string, std::string> extra;  // the caller's own valued options
};

struct ParseError {
  std::string message;
};

// The options of `command` ("tessel bench gemm"): the problem (--m --n --k [--l] --dtype --out
// --a-major --b-major --out-major --c-major --alpha --beta --pad-ld --broadcast, or --sweep),
// --kernel, --class,
// --iters, --warmup, --seed, and the caller's `extra_valued` options (into extra). Sets `help` on
// -h/--help. Throws ParseError naming the option and the valid values.
BenchOptions parse_gemm_options(const std::vector<std::string>& args, bool& help,
                                const char* command = "tessel bench gemm",
                                const std::set<std::string>& extra_valued = {});

// The epilogue's options of a problem, as tessel bench gemm, tune and gemm take them: checks that a
// C of its own (c.c_major) has a nonzero beta, and reads --broadcast's list (a, b, c,
// comma-separated; null: none) into c's flags, which need L >= 2 (`l_given`: whether --l was), and
// c a C of its own. Throws tessel::Error naming the option and the rule.
void check_epilogue_options(GemmCase& c, const std::string* broadcast, bool l_given);

// `tessel bench gemm --sweep`'s problems.
std::vector<GemmCase> sweep_cases();
// --list: one line per problem, numbered from o.first_row as --rows numbers them.
void print_cases(const BenchOptions& o);
// `tessel bench gemm --llama`'s: a Llama-class model's projections (issue 19).
// `only`: "8b" or "70b" for one model's rows; empty for both.
std::vector<GemmCase> llama_cases(const std::string& only = "");
// `tessel bench gemm --random N`'s: N problems as users bring them, drawn from `seed` (extents
// log-uniform in [1, max_extent], round and few-row ones common; every type, major, beta, a C of
// its own, batches, broadcasts, padded leading dimensions; at most max_flops = 2 M N K L each).
std::vector<GemmCase> random_cases(int count, uint64_t seed, int64_t max_extent = 8192, double max_flops = 5e11);

// "3072x768x12288" ("7*333x555x777" batched, " pad" with padded leading dimensions, " bcast a,b"
// with a batch stride of 0 for A and B).
std::string case_shape(const GemmCase& c);
// The majors of A, B and out, "k,n,m", then a distinct C's: "k,n,m C:n".
std::string case_majors(const GemmCase& c);
// The options that give this problem to `tessel bench gemm`, `tessel tune` or `tessel gemm`.
std::string case_options(const GemmCase& c);

// --pad-ld's leading dimension for rows of `extent` elements of type t: rounded up to 16 bytes.
int64_t padded_ld(int64_t extent, codegen::Type t);

// An (L, rows, cols) operand; `row_major`: cols has unit stride.
struct Layout {
  std::vector<int64_t> shape, stride;
  int64_t elements = 0;  // allocation, padding included
};

// A problem's random inputs and its operands in `sets` copies at different addresses (more than
// twice the L2 together, at least 2, as many as memory holds).
struct ProblemBuffers {
  Layout la, lb, lo;
  Layout lc;  // the tensor beta scales: a distinct C's layout, or lo where C is out
  size_t sets = 0;
  size_t ba = 0, bb = 0, bo = 0, bc = 0;  // bytes of A, B, out and a distinct C (0 where C is out)
  // Host inputs; hc: the values beta scales where beta != 0 (C's, or out's initial values), in lc.
  std::vector<uint8_t> ha, hb, hc;
  std::vector<rt::DeviceBuffer> A, B, O, C;  // C: empty where C is out
  // Set s's arguments (rank 2 with `rank2`, else rank 3).
  kernels::GemmArguments args_for(const GemmCase& c, size_t s, bool rank2) const;
};
// Throws tessel::Error where one set does not fit in free memory; notes what it had to give up.
// `extra_set_bytes`: memory the caller will allocate per set beside it (the cuBLAS peer's copies);
// it limits how many sets fit, not how many are wanted.
ProblemBuffers make_buffers(const GemmCase& c, const rt::DeviceProperties& props, uint64_t seed,
                            std::vector<std::string>& notes, size_t extra_set_bytes = 0);
// The problem's arguments at address 0 (rank 3): its layouts without buffers.
kernels::GemmArguments case_arguments(const GemmCase& c);

// Why there is no GPU to time on: the driver's reason, or that it sees no device; empty where
// there is one. Throws what the driver throws.
std::string no_gpu_reason();

// run(i) queues run i on the stream (it uses buffer set i % sets).
using RunFn = std::function<void(int)>;
// The median time in ms of `iters` runs after `warmup`: back to back, a CUDA event between each two.
double median_ms(const RunFn& run, int warmup, int iters, rt::Stream& stream);

}  // namespace tessel::cli::gemm_bench
