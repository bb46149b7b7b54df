#!/usr/bin/env python3
# python_bench.py: tessel called from Python against PyTorch (torch.matmul, torch.add) on the GPU,
# per call with its Python overhead included: each row times N back-to-back calls between CUDA
# events after a warm-up (compilation, module load and kernel selection happen there), and the
# host time of one call alone (the time to queue it). Prints a Markdown table (docs/performance.md).
#
#   PYTHONPATH=build/default/python python3 tools/bench/python_bench.py [--iters 50]
import argparse
import time

import torch

import tessel


def timed(fn, iters):
    """(GPU ms per call over `iters` back-to-back calls, host us to queue one call)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    stop.record()
    stop.synchronize()
    t0 = time.perf_counter()
    fn()
    host = (time.perf_counter() - t0) * 1e6
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / iters, host


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    torch.manual_seed(0)
    rows = []
    for dtype in (torch.bfloat16, torch.float16):
        for m, n, k in ((256, 256, 256), (1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192)):
            a = torch.randn((m, k), device="cuda", dtype=dtype)
            b = torch.randn((n, k), device="cuda", dtype=dtype).t()  # K-major B, as cuBLAS's TN
            out = torch.empty((m, n), device="cuda", dtype=dtype)
            t_ms, t_host = timed(lambda: tessel.gemm(a, b, out), args.iters)
            r_ms, r_host = timed(lambda: torch.matmul(a, b, out=out), args.iters)
            tflops = lambda ms: 2 * m * n * k / ms / 1e9
            rows.append((f"gemm {str(dtype)[6:]} {m}x{n}x{k}", t_ms, tflops(t_ms), r_ms, tflops(r_ms), t_host, r_host))
    for dtype in (torch.float32, torch.bfloat16):
        for n in (1 << 10, 1 << 20, 1 << 26):
            x = torch.randn(n, device="cuda", dtype=dtype)
            y = torch.randn(n, device="cuda", dtype=dtype)
            out = torch.empty_like(x)
            t_ms, t_host = timed(lambda: tessel.elementwise("add", x, y, out), args.iters)
            r_ms, r_host = timed(lambda: torch.add(x, y, out=out), args.iters)
            gbs = lambda ms: 3 * n * x.element_size() / ms / 1e6
            rows.append((f"add {str(dtype)[6:]} {n}", t_ms, gbs(t_ms), r_ms, gbs(r_ms), t_host, r_host))
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, {args.iters} calls per row")
    print("| call | tessel ms | tessel TFLOP/s or GB/s | torch ms | torch TFLOP/s or GB/s | tessel host us | torch host us |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.4f} | {r[2]:.1f} | {r[3]:.4f} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.1f} |")


if __name__ == "__main__":
    main()
