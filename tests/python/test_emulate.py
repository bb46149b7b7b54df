# test_emulate.py: tessel.gemm and tessel.elementwise with emulate=True: the catalog's kernels run on
# numpy arrays by the CPU emulator, against numpy on fresh random data; and every refusal of a call.
import numpy as np
import pytest

import tessel


def close(x, want, dtype, scale=None):
    """f16 outputs round each result once to 11 bits. f32 GEMMs run on the tensor cores as tf32,
    whose inputs keep 10 explicit mantissa bits: each product is then off by at most 2^-9 of its
    size, so the error is bounded by 2^-8 * `scale` (sum of |alpha * products| + |beta * c|)."""
    if dtype == np.float32 and scale is not None:
        return bool(np.all(np.abs(x.astype(np.float64) - want) <= 2.0**-8 * scale + 1e-5))
    tol = 2e-2 if dtype == np.float16 else 1e-4
    return np.allclose(x.astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_gemm(rng, dtype):
    m, n, k = (int(x) for x in rng.integers(1, 80, size=3))
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    out = tessel.gemm(a, b, emulate=True)
    assert out.shape == (m, n) and out.dtype == dtype
    assert close(out, want, dtype, scale=np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


def test_gemm_hopper_kernel_on_the_emulator(rng):
    # A K-major B (column-major (K,N)) suits the Hopper kernels: wgmma and TMA, emulated.
    m, n, k = 96, 72, 64
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = np.asfortranarray(rng.standard_normal((k, n)).astype(np.float16))
    name = "tessel_hopper_gemm_f16_f16_128x256x64_s4_kkr"
    out = tessel.gemm(a, b, emulate=True, kernel=name)
    assert close(out, a.astype(np.float64) @ b.astype(np.float64), np.float16)


def test_gemm_batched_strided_alpha_beta(rng):
    l, m, n, k = 3, 20, 12, 9
    a = rng.standard_normal((l, k, m)).astype(np.float32).transpose(0, 2, 1)  # M-major A
    b = rng.standard_normal((l, k, 2 * n)).astype(np.float32)[:, :, ::2]  # every other column
    out = rng.standard_normal((l, m, n)).astype(np.float32)
    want = 1.5 * (a.astype(np.float64) @ b) - 0.5 * out
    scale = 1.5 * (np.abs(a.astype(np.float64)) @ np.abs(b)) + 0.5 * np.abs(out)
    got = tessel.gemm(a, b, out, alpha=1.5, beta=-0.5, emulate=True)
    assert got is out
    assert close(out, want, np.float32, scale)


@pytest.mark.parametrize("c_major", ["row", "column"])
def test_gemm_distinct_c(rng, c_major):
    # out = alpha * a @ b + beta * c with c another array (either major), out left unread: the
    # one-call choice on the emulator, copies into its workspace included (odd extents: rows of
    # 2 * k bytes that TMA cannot describe).
    m, n, k = (int(x) for x in rng.integers(3, 70, size=3))
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    if c_major == "column":
        c = np.asfortranarray(c)
    out = np.full((m, n), np.nan, np.float32)
    got = tessel.gemm(a, b, out, c=c, alpha=0.5, beta=2.0, emulate=True)
    assert got is out
    want = 0.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 2.0 * c
    assert close(out, want, np.float32)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "max", "min", "axpby"])
def test_elementwise_binary(rng, op):
    shape = tuple(int(x) for x in rng.integers(1, 50, size=2))
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    want = {"add": a + b, "sub": a - b, "mul": a * b, "max": np.maximum(a, b), "min": np.minimum(a, b),
            "axpby": 2.0 * a - 3.0 * b}[op]
    got = tessel.elementwise(op, a, b, alpha=2.0, beta=-3.0, emulate=True)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["neg", "abs", "relu", "copy"])
def test_elementwise_unary_strided(rng, op):
    a = rng.standard_normal((33, 40)).astype(np.float16)[::3, 1::2]  # non-contiguous
    want = {"neg": -a, "abs": np.abs(a), "relu": np.maximum(a, 0), "copy": a}[op]
    out = np.full((20, 11), np.nan, np.float16).T  # a transposed output
    tessel.elementwise(op, a, out=out, emulate=True)
    assert np.array_equal(out, want)


def test_elementwise_in_place_and_types(rng):
    a = rng.integers(-100, 100, (64, 64)).astype(np.int32)
    b = rng.integers(-100, 100, (64, 64)).astype(np.int32)
    want = a + b
    tessel.elementwise("add", a, b, out=a, emulate=True)
    assert np.array_equal(a, want)
    x = rng.standard_normal(1000)
    assert np.allclose(tessel.elementwise("mul", x, x, emulate=True), x * x)


def test_call_errors(rng):
    a = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal((4, 8)).astype(np.float32)
    with pytest.raises(tessel.Error, match="CPU array: tessel runs on the GPU.*emulate=True"):
        tessel.gemm(a, b)
    with pytest.raises(tessel.Error, match=r"a is \(8,4\) and b is \(8,\)"):
        tessel.gemm(a, b[0], emulate=True)
    with pytest.raises(tessel.Error, match="no kernel of the catalog runs"):
        tessel.gemm(a, b.astype(np.float16), emulate=True)  # mixed input types
    with pytest.raises(tessel.Error, match="needs positive strides|stride -"):
        h = np.zeros((64, 64), np.float16)  # rows of 128 bytes: a[::-1] stays 16-byte aligned
        tessel.gemm(h[::-1], np.asfortranarray(h), emulate=True,
                    kernel="tessel_hopper_gemm_f16_f16_128x256x64_s4_kkr")
    with pytest.raises(tessel.Error, match="reads out"):
        tessel.gemm(a, b, beta=1.0, emulate=True)
    with pytest.raises(tessel.Error, match="no kernel|shape"):
        tessel.gemm(a, b, c=np.ones((8, 9), np.float32), beta=1.0, emulate=True)  # c is not out's shape
    with pytest.raises(tessel.Error, match="unknown elementwise op|valid"):
        tessel.elementwise("pow", a, a, emulate=True)
    with pytest.raises(tessel.Error, match="is unary"):
        tessel.elementwise("neg", a, a, emulate=True)
    with pytest.raises(tessel.Error, match="is binary"):
        tessel.elementwise("add", a, emulate=True)
    with pytest.raises(tessel.Error, match="no kernel"):
        tessel.elementwise("add", a, a[:4], emulate=True)  # shapes differ
    with pytest.raises(tessel.Error, match="no streams"):
        tessel.elementwise("add", a, a, emulate=True, stream=0)
    with pytest.raises(TypeError, match="not a DLPack tensor"):
        tessel.elementwise("add", a, [1.0], emulate=True)
    with pytest.raises(tessel.Error, match="unknown kernel 'nope'"):
        tessel.gemm(a, b, emulate=True, kernel="nope")
    with pytest.raises(tessel.Error, match="cannot run"):
        tessel.gemm(a, b, emulate=True, kernel="tessel_elementwise_add_f32")
