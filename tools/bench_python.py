"""bench_python.py: tessel from Python against PyTorch, called the way a user calls them.

Each row times N back-to-back calls from Python (the call's host work included: DLPack import,
the choice lookup, the launch) with CUDA events on torch's current stream, after a warm-up that
compiles; and separately the host time of one call (the loop's wall clock without waiting for the
GPU, divided by N, on a problem small enough that the GPU keeps up). Prints a Markdown table.
Usage (device machine): PYTHONPATH=build/<dir>/python python3 tools/bench_python.py
"""
import time

import torch

import tessel


def gpu_us(fn, iters=50, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / iters


def host_us(fn, iters=200):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    dt = time.perf_counter() - t
    torch.cuda.synchronize()
    return dt * 1e6 / iters


def main():
    torch.manual_seed(int(time.time()))
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| call | problem | tessel us | torch us | torch/tessel | tessel host us/call | torch host us/call |")
    print("|---|---|---:|---:|---:|---:|---:|")
    gemms = [
        ("bf16", 4096, 4096, 4096, torch.bfloat16, "k", "k"),
        ("bf16", 8192, 8192, 8192, torch.bfloat16, "k", "k"),
        ("f16", 1000, 3000, 777, torch.float16, "k", "n"),
        ("bf16", 2048, 2048, 2048, torch.bfloat16, "m", "n"),
        ("f32 (tf32)", 4096, 4096, 4096, torch.float32, "k", "n"),
        ("bf16", 256, 256, 256, torch.bfloat16, "k", "n"),
    ]
    tf32 = torch.backends.cuda.matmul.allow_tf32
    for name, m, n, k, dt, amaj, bmaj in gemms:
        a = torch.randn((m, k), device="cuda").to(dt) if amaj == "k" else torch.randn((k, m), device="cuda").to(dt).t()
        b = torch.randn((n, k), device="cuda").to(dt).t() if bmaj == "k" else torch.randn((k, n), device="cuda").to(dt)
        out = torch.empty((m, n), device="cuda", dtype=dt)
        torch.backends.cuda.matmul.allow_tf32 = True  # torch on the tensor cores for f32, as tessel
        t_us = gpu_us(lambda: tessel.gemm(a, b, out))
        p_us = gpu_us(lambda: torch.matmul(a, b, out=out))
        th, ph = host_us(lambda: tessel.gemm(a, b, out)), host_us(lambda: torch.matmul(a, b, out=out))
        torch.backends.cuda.matmul.allow_tf32 = tf32
        problem = f"{m}x{n}x{k} {name}, A {amaj.upper()}-major, B {bmaj.upper()}-major"
        print(f"| gemm | {problem} | {t_us:.1f} | {p_us:.1f} | {p_us / t_us:.2f} | {th:.1f} | {ph:.1f} |")
    for n, dt in [(1 << 20, torch.float32), (1 << 24, torch.float32), (1 << 20, torch.bfloat16), (1 << 24, torch.bfloat16)]:
        x, y = torch.randn(n, device="cuda").to(dt), torch.randn(n, device="cuda").to(dt)
        out = torch.empty_like(x)
        t_us = gpu_us(lambda: tessel.elementwise("add", x, y, out))
        p_us = gpu_us(lambda: torch.add(x, y, out=out))
        th, ph = host_us(lambda: tessel.elementwise("add", x, y, out)), host_us(lambda: torch.add(x, y, out=out))
        print(f"| add | 2^{n.bit_length() - 1} {str(dt).split('.')[1]} | {t_us:.1f} | {p_us:.1f} | {p_us / t_us:.2f} | {th:.1f} | {ph:.1f} |")


def host_breakdown():
    """Where one call's host time goes, piece by piece (microseconds per piece)."""
    x = torch.randn(1 << 20, device="cuda")
    y, out = torch.randn_like(x), torch.empty_like(x)
    s = torch.cuda.current_stream().cuda_stream
    pieces = {
        "torch.cuda.current_stream()": lambda: torch.cuda.current_stream(),
        "torch.cuda.is_available()": lambda: torch.cuda.is_available(),
        "x.__dlpack_device__()": lambda: x.__dlpack_device__(),
        "x.__dlpack__(stream=s)": lambda: x.__dlpack__(stream=s),
        "tessel.tensor_view(x)": lambda: tessel.tensor_view(x),
        "tessel.elementwise(add, x, y, out)": lambda: tessel.elementwise("add", x, y, out),
        "tessel.elementwise(add, ..., stream=s)": lambda: tessel.elementwise("add", x, y, out, stream=s),
    }
    print("| host piece | us per call |")
    print("|---|---:|")
    for name, fn in pieces.items():
        print(f"| {name} | {host_us(fn, 500):.1f} |")


if __name__ == "__main__":
    import sys
    host_breakdown() if "--host" in sys.argv else main()
