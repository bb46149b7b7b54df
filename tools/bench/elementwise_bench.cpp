// elementwise_bench.cpp: effective bandwidth of tessel's elementwise add (bytes read + written over
// time; CUDA events, median of many runs after warm-up) for f32 and bf16 from 2^20 to 2^28
// elements, contiguous and strided (rows padded), side by side in one process with a device-to-
// device copy of the same bytes (cuMemcpyDtoD) and, when given its PTX, the plain CUDA C++ peer
// (peer_add.cu, compiled by nvcc on the machine). A measuring tool, not a test; needs a GPU.
//
//   tessel_elementwise_bench [--peer peer_add.ptx] [--reps N] [--only TYPE:LAYOUT:LOG2] [--transpose]
// (--transpose: only the copies into the other major, staged and unstaged: f32, f16 and s8 from 2^20 to
//  2^26 elements, then shapes that are not powers of two: a GEMM's 2000 x 1500 bf16 C into
//  column-major, 4096^2 s8 (fp8 operands), 1000 x 3000 and 4095 x 4097 f32, 7 x 333 x 555 f16)
// (--only: one row, e.g. bf16:contiguous:20, or with --transpose bf16:2000x1500 or f16:7x333x555,
//  for a profiler: each variant 5 warm-up runs, then --reps)
// (--pitched: only the copies a GEMM makes of an operand whose rows the TMA cannot read: rows at an
//  odd pitch into rows 128 bytes apart, the same major, with the default options and with 1, 2 and 4
//  vectors per thread, a persistent grid, against a device-to-device copy of the bytes)
// Built with TESSEL_WITH_LLVM=ON, TESSEL_BACKEND=llvm measures the kernels through LLVM's road.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/runtime.hpp"
#if defined(TESSEL_BENCH_WITH_LLVM)
#include "tessel/codegen_llvm.hpp"
#endif

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

int reps = 30;

// The median time of fn over `reps` runs, after 5 warm-up runs, each timed with events.
double median_ms(const std::function<void()>& fn) {
  for (int i = 0; i < 5; ++i) fn();
  rt::Context(0).synchronize();
  std::vector<double> t;
  rt::Event start, stop;
  for (int i = 0; i < reps; ++i) {
    start.record();
    fn();
    stop.record();
    stop.synchronize();
    t.push_back(rt::elapsed_ms(start, stop));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void fill_random_bytes(rt::DeviceBuffer& b, std::mt19937_64& rng) {
  // Random small floats (never zero) in the leading bytes pattern: upload a 1 MiB random block
  // repeatedly, so that the data are not zeros and the upload stays fast.
  std::vector<uint16_t> block(1 << 19);
  for (auto& v : block) v = static_cast<uint16_t>(0x3c00u | (rng() & 0x3ffu));  // in [1, 2) as f16/bf16-ish
  for (size_t off = 0; off < b.size(); off += block.size() * 2)
    b.upload(block.data(), std::min(block.size() * 2, b.size() - off), off);
}

}  // namespace

int main(int argc, char** argv) {
  std::string peer_path, only;  // only: one row, "TYPE:LAYOUT:LOG2" (e.g. bf16:contiguous:20), for ncu
  bool transpose = false;       // only the table of transposing copies
  bool pitched = false;         // only the table of pitched copies (a GEMM's packing)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--peer" && i + 1 < argc) peer_path = argv[++i];
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--transpose") transpose = true;
    else if (a == "--pitched") pitched = true;
    else if (a == "--reps" && i + 1 < argc) {
      try {
        reps = static_cast<int>(tessel::parse_integer("--reps", argv[++i], 1, 1000000));
      } catch (const tessel::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: tessel_elementwise_bench [--peer peer_add.ptx] [--reps N] [--only TYPE:LAYOUT:LOG2] [--transpose] [--pitched]\n");
      return 2;
    }
  }
  try {
#if defined(TESSEL_BENCH_WITH_LLVM)
    codegen_llvm::enable();
#endif
    std::printf("backend: %s\n", codegen::backend_name(codegen::default_backend()));
    rt::Context ctx(0);
    const rt::DeviceProperties props = rt::device_properties(0);
    std::printf("device: %s\n", rt::to_string(props).c_str());
    rt::Module peer;
    if (!peer_path.empty()) {
      std::ifstream in(peer_path);
      std::stringstream ss;
      ss << in.rdbuf();
      peer = rt::Module::load_ptx(ss.str());
    }
    std::mt19937_64 rng(std::random_device{}());
    const int64_t max_n = int64_t{1} << 28;
    // The buffers hold the largest case: f32 rows of 4096 + 64 padding, or the copy's 1.5x.
    const size_t bytes = static_cast<size_t>(std::max(max_n / 4096 * 4160 * 4, max_n * 4 * 3 / 2));
    rt::DeviceBuffer A(bytes), B(bytes), C(bytes);
    fill_random_bytes(A, rng);
    fill_random_bytes(B, rng);
    if (pitched) {
      // A GEMM's copy of an operand whose rows lie at a pitch the TMA cannot take (gemm/packing:
      // the same major, rows padded to 128 bytes), as tessel::gemm's copy step moves it (2-byte
      // elements as f16, 4-byte as s32).
      struct Row {
        Type t;
        int64_t rows, cols, ld;
      };
      const Row table[] = {{Type::F16, 2000, 1500, 1500}, {Type::F16, 2000, 1500, 1501}, {Type::F16, 1000, 777, 777},
                           {Type::F16, 4096, 3001, 3001}, {Type::F16, 4096, 3002, 3002}, {Type::S32, 3001, 4096, 4097},
                           {Type::F16, 8192, 4095, 4095}};
      std::printf("\n%-5s %16s | %8s %8s %8s %8s %8s | %8s | %s\n", "dtype", "rows x cols (ld)", "default", "rows 1",
                  "rows 2", "rows 4", "persist", "copy", "kernel (default), its time");
      for (const Row& r : table) {
        const int64_t eb = codegen::bytes(r.t), per = 128 / eb, pitch = (r.cols + per - 1) / per * per;
        const TensorView a{A.ptr(), r.t, {r.rows, r.cols}, {r.ld, 1}};
        const TensorView c{C.ptr(), r.t, {r.rows, r.cols}, {pitch, 1}};
        const ElementwiseArguments args{ElementwiseOp::Copy, a, a, c};
        ElementwiseOptions def, r1, r2, r4, persist;
        r1.rows = 1;
        r2.rows = 2;
        r4.rows = 4;
        persist.max_blocks = props.sm_count * 16;
        const codegen::LaunchPlan plan = elementwise_launch_plan(args, def);
        const size_t moved = static_cast<size_t>(r.rows * r.cols * eb);
        auto gbps = [&](double ms) { return 2.0 * static_cast<double>(moved) / (ms * 1e6); };
        const double t_def = median_ms([&] { elementwise(args, {}, def); });
        const double t_r2 = median_ms([&] { elementwise(args, {}, r2); });
        const double t_r4 = median_ms([&] { elementwise(args, {}, r4); });
        const double t_r1 = median_ms([&] { elementwise(args, {}, r1); });
        const double t_pe = median_ms([&] { elementwise(args, {}, persist); });
        const double t_copy = median_ms([&] { rt::copy_d2d(C.ptr(), A.ptr(), moved); });
        const std::string shape = std::to_string(r.rows) + "x" + std::to_string(r.cols) + " (" + std::to_string(r.ld) + ")";
        std::printf("%-5s %16s | %8.0f %8.0f %8.0f %8.0f %8.0f | %8.0f | %s, %.2f us\n", codegen::ptx_name(r.t),
                    shape.c_str(), gbps(t_def), gbps(t_r1), gbps(t_r2), gbps(t_r4), gbps(t_pe), gbps(t_copy),
                    plan.kernel.c_str(), t_def * 1e3);
      }
      std::printf("\nGB/s: bytes read + written over the median time (CUDA events around one launch).\n");
      return 0;
    }
    if (transpose) {
      // A copy into the other major (a GEMM operand packed K-major from M-major, or its C into
      // column-major): A (batch, rows, cols) in one major into C in the other, staged through
      // shared memory (the default) and element by element across A's rows (stage off), against
      // a device-to-device copy of the same bytes.
      struct Row {
        Type t;
        int64_t batch, rows, cols;
        bool a_row_major;  // A row-major into a column-major C (else the other way round)
      };
      std::vector<Row> table;
      for (Type t : {Type::F32, Type::F16, Type::S8})
        for (int lg = 20; lg <= 26; lg += 2) table.push_back({t, 1, (int64_t{1} << lg) / 4096, 4096, false});
      table.push_back({Type::BF16, 1, 2000, 1500, true});
      table.push_back({Type::S8, 1, 4096, 4096, false});
      table.push_back({Type::F32, 1, 1000, 3000, false});
      table.push_back({Type::F32, 1, 4095, 4097, false});
      table.push_back({Type::F16, 7, 333, 555, false});
      std::printf("\n%-5s %14s | %9s %9s %9s | %7s %7s | %8s %s\n", "dtype", "shape", "staged", "unstaged", "copy",
                  "%copy", "speedup", "blocks", "kernel (staged)");
      for (const Row& r : table) {
        const int64_t eb = codegen::bytes(r.t), n = r.batch * r.rows * r.cols;
        const std::string shape = (r.batch > 1 ? std::to_string(r.batch) + "x" : std::string()) +
                                  std::to_string(r.rows) + "x" + std::to_string(r.cols);
        if (!only.empty() && only != std::string(codegen::ptx_name(r.t)) + ":" + shape) continue;
        const std::vector<int64_t> dims{r.batch, r.rows, r.cols};
        const std::vector<int64_t> row{r.rows * r.cols, r.cols, 1}, col{r.rows * r.cols, 1, r.rows};
        const TensorView a{A.ptr(), r.t, dims, r.a_row_major ? row : col};
        const TensorView c{C.ptr(), r.t, dims, r.a_row_major ? col : row};
        const ElementwiseArguments args{ElementwiseOp::Copy, a, a, c};
        ElementwiseOptions staged, unstaged;
        unstaged.stage = false;
        const codegen::LaunchPlan plan = elementwise_launch_plan(args, staged);
        const double t_s = median_ms([&] { elementwise(args, {}, staged); });
        const double t_u = median_ms([&] { elementwise(args, {}, unstaged); });
        const size_t copy_bytes = static_cast<size_t>(n * eb);
        const double t_copy = median_ms([&] { rt::copy_d2d(C.ptr(), A.ptr(), copy_bytes); });
        auto gbps = [&](double ms) { return 2.0 * static_cast<double>(copy_bytes) / (ms * 1e6); };
        std::printf("%-5s %14s | %9.0f %9.0f %9.0f | %6.1f%% %6.2fx | %8u %s (%.2f us)\n", codegen::ptx_name(r.t),
                    shape.c_str(), gbps(t_s), gbps(t_u), gbps(t_copy), 100.0 * gbps(t_s) / gbps(t_copy), t_u / t_s,
                    plan.grid[0], plan.kernel.c_str(), t_s * 1e3);
      }
      std::printf("\nGB/s: bytes read + written over the median time; staged: tessel::elementwise's default.\n");
      return 0;
    }
    std::printf("\n%-5s %-10s %10s | %9s %9s %9s %9s | %9s %9s | %7s %7s\n", "dtype", "layout", "elements",
                "tessel", "r4", "r2", "persist", "copy", "cuda C++", "%copy", "%peer");
    std::printf("%-5s %-10s %10s | %9s %9s %9s %9s | %9s %9s | %7s %7s\n", "", "", "", "GB/s", "GB/s", "GB/s", "GB/s",
                "GB/s", "GB/s", "", "");
    for (Type t : {Type::F32, Type::BF16}) {
      const int64_t eb = codegen::bytes(t);
      for (bool strided : {false, true}) {
        for (int lg = 20; lg <= 28; lg += 2) {
          const int64_t n = int64_t{1} << lg;
          if (!only.empty() && only != std::string(codegen::ptx_name(t)) + (strided ? ":pitched:" : ":contiguous:") +
                                           std::to_string(lg))
            continue;
          const int64_t cols = 4096, rows = n / cols, pitch = strided ? cols + 64 : cols;
          auto view = [&](const rt::DeviceBuffer& b) {
            return strided ? TensorView{b.ptr(), t, {rows, cols}, {pitch, 1}} : row_major(b.ptr(), t, {n});
          };
          const ElementwiseArguments args{ElementwiseOp::Add, view(A), view(B), view(C)};
          const double moved = 3.0 * static_cast<double>(n * eb);  // two reads and a write
          auto gbps = [&](double ms) { return moved / (ms * 1e6); };
          // tessel, default options and three variants (rows 1 and 2; a persistent grid).
          ElementwiseOptions def, r4, r2, persist;
          r4.rows = 4;
          r2.rows = 2;
          persist.max_blocks = props.sm_count * 8;
          const double t_def = median_ms([&] { elementwise(args, {}, def); });
          const double t_r4 = median_ms([&] { elementwise(args, {}, r4); });
          const double t_r2 = median_ms([&] { elementwise(args, {}, r2); });
          const double t_pe = median_ms([&] { elementwise(args, {}, persist); });
          // The copy of the same bytes: 1.5x the tensor from A into C moves as many bytes (read
          // + write) as the add; bandwidth = bytes read + written over time.
          const size_t copy_bytes = static_cast<size_t>(n * eb * 3 / 2);
          const double t_copy = median_ms([&] { rt::copy_d2d(C.ptr(), A.ptr(), copy_bytes); });
          const double copy_gbps = 2.0 * static_cast<double>(copy_bytes) / (t_copy * 1e6);
          double peer_gbps = 0;
          if (!peer_path.empty()) {
            rt::LaunchConfig lc;
            lc.block.x = 256;
            lc.grid.x = static_cast<unsigned>(props.sm_count * 8);
            rt::Function f;
            rt::ArgPack pack;
            if (strided && t == Type::F32) {
              f = peer.function("peer_add2d_f32");
              pack = rt::ArgPack(A.ptr(), B.ptr(), C.ptr(), static_cast<long long>(rows), static_cast<long long>(cols),
                                 static_cast<long long>(pitch));
            } else if (!strided) {
              f = peer.function(t == Type::F32 ? "peer_add_f32" : "peer_add_bf16");
              pack = rt::ArgPack(A.ptr(), B.ptr(), C.ptr(), static_cast<long long>(n * eb / 16));
            }
            if (f.native()) peer_gbps = gbps(median_ms([&] { rt::launch(f, lc, pack); }));
          }
          std::printf("%-5s %-10s %10lld | %9.0f %9.0f %9.0f %9.0f | %9.0f %9.0f | %6.1f%% %6.1f%%\n",
                      codegen::ptx_name(t), strided ? "pitched" : "contiguous", static_cast<long long>(n), gbps(t_def),
                      gbps(t_r4), gbps(t_r2), gbps(t_pe), copy_gbps, peer_gbps, 100.0 * gbps(t_def) / copy_gbps,
                      peer_gbps > 0 ? 100.0 * gbps(t_def) / peer_gbps : 0.0);
        }
      }
    }
    std::printf("\ntessel: default options (one 16-byte vector per operand and thread, one block per tile); "
                "r4/r2: 4/2 vectors per thread; persist: a grid of 8 blocks per SM walking the tiles. %%copy and "
                "%%peer compare the default with the copy and the CUDA C++ peer.\n");
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
