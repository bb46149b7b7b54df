// host_bench.cpp: the host time of repeated one-call launches: tessel::gemm and tessel::elementwise
// called N times with same-shaped arguments (the same buffers, and alternating between two sets of
// buffers), as ns of host time per call (the wall clock around the N calls, which only queue work).
// On a GPU it also times the N calls with CUDA events (device time per call, back to back) and
// compares elementwise add with cuMemcpyDtoD of the same bytes, called the same way. Without a GPU,
// run it on the stand-in driver (tests/stand_in_driver): the host path is the same code, and no
// launch costs device time.
//
//   tessel_host_bench [--calls N] [--quick]
//   TESSEL_LIBCUDA=build/default/tests/stand_in_driver/libtessel_stand_in_cuda.so tessel_host_bench
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/runtime/tensor_map.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/runtime.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

int calls = 1000;
bool stand_in = false;

struct Timing {
  double host_us = 0;    // per call: wall clock around the N calls (queueing only)
  double device_us = 0;  // per call: events around the N calls (0 on the stand-in)
};

// fn(i) called `n` times after 3 warm-up calls; the median of 5 repetitions.
Timing time_calls(int n, const std::function<void(int)>& fn) {
  for (int i = 0; i < 3; ++i) fn(i);
  rt::Context(0).synchronize();
  std::vector<double> host, device;
  for (int rep = 0; rep < 5; ++rep) {
    rt::Event start, stop;
    start.record();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) fn(i);
    const auto t1 = std::chrono::steady_clock::now();
    stop.record();
    stop.synchronize();
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    device.push_back(stand_in ? 0.0 : rt::elapsed_ms(start, stop) * 1e3 / n);
  }
  std::sort(host.begin(), host.end());
  std::sort(device.begin(), device.end());
  return {host[2], device[2]};
}

// A problem's arguments on buffer set `set`'s A, B, out and C (each as large as any operand).
using MakeGemm = std::function<GemmArguments(const std::array<uint64_t, 4>& ptrs)>;

void gemm_row(const std::string& label, int64_t m, int64_t n, int64_t k, Type t, const MakeGemm& make) {
  const int64_t eb = codegen::bytes(t);
  std::vector<rt::DeviceBuffer> buffers;
  for (int i = 0; i < 8; ++i) buffers.emplace_back(static_cast<size_t>(std::max({m * k, k * n, m * n}) * eb));
  auto args = [&](int set) {
    std::array<uint64_t, 4> p{};
    for (size_t j = 0; j < 4; ++j) p[j] = buffers[4 * static_cast<size_t>(set) + j].ptr();
    return make(p);
  };
  const GemmArguments a0 = args(0), a1 = args(1);
  const auto f0 = std::chrono::steady_clock::now();
  const GemmChoice& c = gemm(a0);
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
  // Few calls for a large problem: the launch queue must not fill (it would block the host).
  const int nc = m * n * k > (int64_t{1} << 30) ? std::min(calls, 100) : calls;
  const Timing same = time_calls(nc, [&](int) { gemm(a0); });
  const Timing alt = time_calls(nc, [&](int i) { gemm(i % 2 ? a1 : a0); });
  std::printf("%-23s | %8.1f ms | %9.2f %9.2f | %9.2f %9.2f | %s\n", label.c_str(), first_ms, same.host_us,
              same.device_us, alt.host_us, alt.device_us, c.describe().c_str());
}

// Row-major A, column-major B (both K-major), row-major out.
void gemm_rows(int64_t m, int64_t n, int64_t k, Type t) {
  gemm_row("gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + codegen::ptx_name(t), m,
           n, k, t, [&](const std::array<uint64_t, 4>& p) {
             return make_gemm_arguments(row_major(p[0], t, {m, k}), column_major(p[1], t, {k, n}),
                                        row_major(p[2], t, {m, n}));
           });
}

// Issue 18's rows 20 and 28: 2000 x 1500 x 1000 bf16, out column-major, alpha 0.5, beta 2; C = out,
// or (row 28) a row-major C of its own, its rows 3000 bytes apart (read in lines: 8 TMA views).
void gemm_column_out_rows() {
  const int64_t m = 2000, n = 1500, k = 1000;
  for (const bool own_c : {false, true}) {
    gemm_row(own_c ? "row 28 (C rows 3000 B)" : "row 20 (out col, beta)", m, n, k, Type::BF16,
             [&](const std::array<uint64_t, 4>& p) {
               GemmArguments g = make_gemm_arguments(row_major(p[0], Type::BF16, {m, k}),
                                                     column_major(p[1], Type::BF16, {k, n}),
                                                     column_major(p[2], Type::BF16, {m, n}));
               g.alpha = 0.5;
               g.beta = 2;
               if (own_c) g.C = row_major(p[3], Type::BF16, {m, n});
               return g;
             });
  }
}

void elementwise_rows(int lg, Type t) {
  const int64_t n = int64_t{1} << lg, eb = codegen::bytes(t);
  std::vector<rt::DeviceBuffer> buffers;
  for (int i = 0; i < 6; ++i) buffers.emplace_back(static_cast<size_t>(n * eb * 3 / 2));
  auto args = [&](int set) {
    auto v = [&](int b) { return row_major(buffers[static_cast<size_t>(3 * set + b)].ptr(), t, {n}); };
    return ElementwiseArguments{ElementwiseOp::Add, v(0), v(1), v(2)};
  };
  const ElementwiseArguments a0 = args(0), a1 = args(1);
  elementwise(a0);
  const int nc = std::min(calls, 500);  // the launch queue must not fill (it would block the host)
  const Timing same = time_calls(nc, [&](int) { elementwise(a0); });
  const Timing alt = time_calls(nc, [&](int i) { elementwise(i % 2 ? a1 : a0); });
  // The copy of the same bytes (1.5x the tensor: as many bytes read + written as the add).
  const size_t copy_bytes = static_cast<size_t>(n * eb * 3 / 2);
  const Timing copy = time_calls(nc, [&](int) { rt::copy_d2d(buffers[2].ptr(), buffers[0].ptr(), copy_bytes, {}); });
  const double pct = same.device_us > 0 ? 100.0 * copy.device_us / same.device_us : 0.0;
  std::printf("add 2^%d %-4s        |            | %9.2f %9.2f | %9.2f %9.2f | copy %9.2f us, add at %5.1f%% of its bandwidth\n",
              lg, codegen::ptx_name(t), same.host_us, same.device_us, alt.host_us, alt.device_us, copy.device_us, pct);
}

// What one TMA descriptor costs to make (rt::encode_tensor_map: the rule checks and
// cuTensorMapEncodeTiled; the one-call GEMM caches them by spec and address).
void encode_row() {
  rt::DeviceBuffer b(4096 * 4096 * 2);
  rt::TensorMapSpec s;
  s.type = rt::TensorMapDataType::BF16;
  s.dims = {4096, 4096, 1};
  s.strides = {1, 4096, 4096 * 4096};
  s.box = {64, 128, 1};
  s.swizzle = rt::TensorMapSwizzle::B128;
  const int n = 10000;
  rt::TensorMap sink;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) sink = rt::encode_tensor_map(s, b.ptr() + static_cast<uint64_t>(i % 64) * 16);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("encode one TMA descriptor (rt::encode_tensor_map, uncached): %.3f us of host time (word 0: %llx)\n", us,
              static_cast<unsigned long long>(sink.words[0] & 0xf));
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--calls" && i + 1 < argc) calls = static_cast<int>(parse_integer("--calls", argv[++i], 1, 1000000));
      else if (a == "--quick") quick = true;
      else {
        std::fprintf(stderr, "usage: tessel_host_bench [--calls N] [--quick]\n");
        return 2;
      }
    }
    rt::Context ctx(0);
    const rt::DeviceProperties props = rt::device_properties(0);
    stand_in = props.name.find("stand-in") != std::string::npos;
    std::printf("device: %s%s\ncalls: %d per timing (at most 100 for 4096^3, 500 for add; median of 5)\n", rt::to_string(props).c_str(),
                stand_in ? " (host time only: the stand-in driver runs nothing)" : "", calls);
    encode_row();
    std::printf("\n%-23s | %11s | %9s %9s | %9s %9s |\n", "", "first call", "same", "ptrs", "other", "ptrs");
    std::printf("%-23s | %11s | %9s %9s | %9s %9s |\n", "problem", "", "host us", "device us", "host us", "device us");
    gemm_rows(256, 256, 256, Type::BF16);
    if (!quick) gemm_rows(4096, 4096, 4096, Type::BF16);
    gemm_rows(1000, 3000, 777, Type::BF16);  // A's rows are 1554 bytes: copied into the workspace first
    gemm_column_out_rows();
    for (int lg : {20, 22, 24}) {
      for (Type t : {Type::F32, Type::BF16}) {
        if (quick && lg > 20) continue;
        elementwise_rows(lg, t);
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
