# test_gpu.py: tessel.gemm and tessel.elementwise on PyTorch CUDA tensors against torch, on fresh
# random data and on a non-default stream: contiguous, transposed, sliced, batched operands in
# f16, bf16, f32 and fp8. Skipped, with the reason, where there is no PyTorch or no GPU.
import pytest

import tessel

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the GPU tests compare against it)")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU visible to PyTorch", allow_module_level=True)


@pytest.fixture
def gen(rng):
    g = torch.Generator(device="cuda")
    g.manual_seed(int(rng.integers(2**63)))
    return g


def randn(shape, dtype, gen):
    return torch.randn(shape, device="cuda", generator=gen).to(dtype)


# Each dtype's tolerance: the inputs' and output's rounding (f16: 11 bits, bf16: 8 bits; f32 runs
# on the tensor cores as tf32, whose inputs keep 11 bits like f16) of sums of K products.
TOL = {torch.float32: 2e-2, torch.float16: 2e-2, torch.bfloat16: 6e-2}
# Elementwise results differ from torch's by at most the output's one rounding.
EW_TOL = {torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 1e-2}


def layouts(t):
    """The operand `t` (M,K)-shaped, as four kinds of view of the same values."""
    m, k = t.shape
    big = torch.zeros((m + 3, 2 * k + 5), dtype=t.dtype, device=t.device)
    big[3:, 5:5 + 2 * k:2] = t
    return {
        "contiguous": t.contiguous(),
        "transposed": t.t().contiguous().t(),
        "sliced": big[3:, 5:5 + 2 * k:2],
    }


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_gemm_layouts(gen, dtype):
    m, n, k = 256, 192, 128
    a0, b0 = randn((m, k), dtype, gen), randn((k, n), dtype, gen)
    want = a0.float() @ b0.float()
    for an, a in layouts(a0).items():
        for bn, b in layouts(b0).items():
            try:
                out = tessel.gemm(a, b)
            except tessel.Error as e:
                if "no kernel of the catalog" in str(e) and an == "sliced":
                    continue  # an odd stride no kernel takes; the message says so
                raise
            torch.cuda.synchronize()
            assert out.dtype == dtype and out.shape == (m, n)
            assert torch.allclose(out.float(), want, rtol=TOL[dtype], atol=TOL[dtype] * k**0.5), (an, bn)


def test_gemm_batched_alpha_beta_on_a_stream(gen):
    l, m, n, k = 3, 128, 256, 64
    a, b = randn((l, m, k), torch.bfloat16, gen), randn((l, k, n), torch.bfloat16, gen)
    out = randn((l, m, n), torch.float32, gen)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        want = 2.0 * (a.float() @ b.float()) + 0.5 * out
        tessel.gemm(a, b, out, alpha=2.0, beta=0.5)  # queued on s, torch's current stream
    s.synchronize()
    assert torch.allclose(out, want, rtol=6e-2, atol=6e-2 * k**0.5)


def test_gemm_f16_in_f32_out_distinct_c_odd_extents(gen):
    # Issue 18's problem class: a batch in f16 with an f32 result, extents whose rows are not
    # 16-byte multiples, and a distinct C (column-major) with alpha and beta.
    l, m, n, k = 3, 333, 55, 77
    a, b = randn((l, m, k), torch.float16, gen), randn((l, k, n), torch.float16, gen)
    c = randn((l, n, m), torch.float32, gen).transpose(1, 2)
    out = torch.full((l, m, n), float("nan"), device="cuda")
    tessel.gemm(a, b, out, c=c, alpha=0.5, beta=2.0)
    torch.cuda.synchronize()
    want = 0.5 * (a.double() @ b.double()) + 2.0 * c.double()
    assert torch.allclose(out.double(), want, rtol=2e-3, atol=2e-3 * k**0.5)


@pytest.mark.parametrize("fp8", ["float8_e4m3fn", "float8_e5m2"])
def test_gemm_fp8(gen, fp8):
    if not tessel.dlpack_has_fp8:
        pytest.skip(f"this build's DLPack header ({tessel.dlpack_version}) has no fp8 codes (DLPack >= 1.1 has)")
    dt = getattr(torch, fp8)
    m, n, k = 128, 256, 128
    a = randn((m, k), torch.float32, gen).to(dt)
    b = randn((n, k), torch.float32, gen).to(dt).t()  # K-major B
    out = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
    try:
        tessel.gemm(a, b, out)
    except BufferError as e:
        pytest.skip(f"this PyTorch cannot export {fp8} through DLPack: {e}")
    torch.cuda.synchronize()
    want = a.float() @ b.float()
    assert torch.allclose(out.float(), want, rtol=6e-2, atol=6e-2 * k**0.5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_elementwise(gen, dtype):
    x = randn((4, 300, 257), dtype, gen)  # batched, an odd inner extent
    y = randn((4, 300, 257), dtype, gen)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        got = {
            "add": tessel.elementwise("add", x, y),
            "mul sliced": tessel.elementwise("mul", x[:, 1:, ::2], y[:, :-1, ::2]),
            "relu transposed": tessel.elementwise("relu", x.transpose(1, 2)),
            "axpby": tessel.elementwise("axpby", x, y, alpha=2.0, beta=-1.0),
        }
        want = {
            "add": x + y,
            "mul sliced": x[:, 1:, ::2] * y[:, :-1, ::2],
            "relu transposed": torch.relu(x.transpose(1, 2)),
            "axpby": 2.0 * x.float() - y.float(),
        }
    s.synchronize()
    for k in got:
        tol = EW_TOL[dtype]
        assert torch.allclose(got[k].float(), want[k].float(), rtol=tol, atol=tol), k


def test_explicit_stream_orders_after_torch(gen):
    # stream= another stream than torch's current one: the operands come through DLPack, whose
    # handshake orders that stream after torch's (the values written just before are seen).
    x = randn((1 << 20,), torch.float32, gen)
    y = torch.empty_like(x)
    side = torch.cuda.Stream()
    for _ in range(3):
        y.copy_(x * 2)  # queued on torch's current stream
        out = tessel.elementwise("add", x, y, stream=side)
        side.synchronize()
        assert torch.equal(out, x + 2 * x)


def test_gpu_errors(gen):
    a = randn((64, 64), torch.float32, gen)
    with pytest.raises(tessel.Error, match="emulate=True runs the kernel on the CPU emulator"):
        tessel.gemm(a, a, emulate=True)
    with pytest.raises(tessel.Error, match="CPU array"):
        tessel.gemm(a.cpu(), a)
    with pytest.raises(tessel.Error, match="stride|no kernel"):
        tessel.elementwise("add", a, a, out=torch.empty((64, 1), device="cuda").expand(64, 64))  # C broadcast
    if torch.cuda.device_count() > 1:
        with pytest.raises(tessel.Error, match="cuda:1"):
            tessel.elementwise("add", a.to("cuda:1"), a.to("cuda:1"))
