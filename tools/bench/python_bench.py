#!/usr/bin/env python3
# python_bench.py: tessel called from Python against PyTorch (torch.matmul, torch.add) on the GPU,
# per call with its Python overhead included: each row times N back-to-back calls between CUDA
# events after a warm-up (compilation, module load and kernel selection happen there), and the
# host time of one call alone (the time to queue it). Prints a Markdown table (docs/performance.md).
#
#   PYTHONPATH=build/default/python python3 tools/bench/python_bench.py [--iters 50] [--host]
#
# --host prints instead where one call's host time goes, piece by piece (DLPack, stream, the call).
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


def host_us(fn, iters=500):
    """Host microseconds per call of `fn`, over `iters` calls queued back to back."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    dt = time.perf_counter() - t0
    torch.cuda.synchronize()
    return dt * 1e6 / iters


def host_breakdown():
    x = torch.randn(1 << 20, device="cuda")
    y, out = torch.randn_like(x), torch.empty_like(x)
    s = torch.cuda.current_stream().cuda_stream or 1  # DLPack spells the legacy default stream 1
    a = torch.randn((256, 256), device="cuda", dtype=torch.bfloat16)
    b = torch.randn((256, 256), device="cuda", dtype=torch.bfloat16).t()
    c = torch.empty((256, 256), device="cuda", dtype=torch.bfloat16)
    pieces = {
        "torch.cuda.current_stream()": lambda: torch.cuda.current_stream(),
        "x.__dlpack_device__()": lambda: x.__dlpack_device__(),
        "x.__dlpack__(stream=s)": lambda: x.__dlpack__(stream=s),
        "tessel.tensor_view(x)": lambda: tessel.tensor_view(x),
        "tessel.elementwise('add', x, y, out)": lambda: tessel.elementwise("add", x, y, out),
        "tessel.elementwise('add', x, y, out, stream=s)": lambda: tessel.elementwise("add", x, y, out, stream=s),
        "tessel.gemm(a, b, c) 256^3 bf16": lambda: tessel.gemm(a, b, c),
        "torch.add(x, y, out=out)": lambda: torch.add(x, y, out=out),
    }
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| host piece | us per call |")
    print("|---|---:|")
    for name, fn in pieces.items():
        print(f"| {name} | {host_us(fn):.1f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--host", action="store_true", help="where one call's host time goes")
    args = p.parse_args()
    if args.host:
        host_breakdown()
        return
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
    # Problems outside the square K-major family: other majors, odd extents, tf32 (torch on the
    # tensor cores too for f32: allow_tf32).
    allow_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    for label, m, n, k, dtype, a_major, b_major in (
        ("f16", 1000, 3000, 777, torch.float16, "k", "n"),
        ("bf16", 2048, 2048, 2048, torch.bfloat16, "m", "n"),
        ("f32 (tf32)", 4096, 4096, 4096, torch.float32, "k", "n"),
    ):
        a = torch.randn((m, k), device="cuda", dtype=dtype) if a_major == "k" else torch.randn((k, m), device="cuda", dtype=dtype).t()
        b = torch.randn((n, k), device="cuda", dtype=dtype).t() if b_major == "k" else torch.randn((k, n), device="cuda", dtype=dtype)
        out = torch.empty((m, n), device="cuda", dtype=dtype)
        t_ms, t_host = timed(lambda: tessel.gemm(a, b, out), args.iters)
        r_ms, r_host = timed(lambda: torch.matmul(a, b, out=out), args.iters)
        tflops = lambda ms: 2 * m * n * k / ms / 1e9
        rows.append((f"gemm {label} {m}x{n}x{k} A {a_major}-major B {b_major}-major", t_ms, tflops(t_ms), r_ms, tflops(r_ms), t_host, r_host))
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
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
