# test_dlpack.py: what tessel reads from numpy arrays through DLPack (tessel.tensor_view): element
# types, shapes, strides in elements (NULL strides = row-major), byte offsets of slices, and refusals.
import numpy as np
import pytest

import tessel

DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "s32": np.int32, "s8": np.int8}


@pytest.mark.parametrize("name", DTYPES)
def test_dtypes(name):
    a = np.zeros((3, 5), DTYPES[name])
    v = tessel.tensor_view(a)
    assert v["dtype"] == name
    assert v["shape"] == (3, 5)
    assert v["stride"] == (5, 1)
    assert v["device"] == "cpu"
    assert v["data"] == a.ctypes.data


def test_strides_and_offsets(rng):
    m, n = (int(x) for x in rng.integers(3, 40, size=2))
    a = rng.standard_normal((m, n)).astype(np.float32)
    i, j = int(rng.integers(0, m - 1)), int(rng.integers(0, n - 1))
    cases = {
        "transposed": a.T,
        "sliced": a[i:, j:],
        "every other column": a[:, j::2],
        "reversed rows": a[::-1],
        "a column": a[:, j],
        "broadcast": np.lib.stride_tricks.as_strided(a[0], (m, n), (0, 4)),  # writable, unlike broadcast_to
        "batched": np.stack([a, a])[:, i:, :],
    }
    for what, view in cases.items():
        v = tessel.tensor_view(view)
        assert v["shape"] == view.shape, what
        assert v["stride"] == tuple(s // view.itemsize for s in view.strides), what
        assert v["data"] == view.ctypes.data, what  # element 0, byte_offset applied


def test_scalar_and_empty():
    assert tessel.tensor_view(np.array(3.0, np.float32))["shape"] == ()
    v = tessel.tensor_view(np.zeros((0, 4), np.float32))
    assert v["shape"] == (0, 4)


def test_refusals():
    with pytest.raises(tessel.Error, match="does not take DLPack element type uint16"):
        tessel.tensor_view(np.zeros(4, np.uint16))
    with pytest.raises(tessel.Error, match="complex64"):
        tessel.tensor_view(np.zeros(4, np.complex64))
    with pytest.raises(TypeError, match="not a DLPack tensor"):
        tessel.tensor_view([1.0, 2.0])
    if not tessel.dlpack_has_fp8:
        assert tessel.dlpack_version.startswith("0.") or tessel.dlpack_version == "1.0"


def test_the_array_stays_alive():
    # The capsule's deleter runs after the call; the array is not freed under it.
    import gc
    import weakref

    class Holder(np.ndarray):
        pass

    a = np.arange(16, dtype=np.float32).view(Holder)
    ref = weakref.ref(a)
    out = tessel.elementwise("neg", a, emulate=True)
    del a
    gc.collect()
    assert ref() is None  # released once the call is done: nothing leaks
    assert np.array_equal(out, -np.arange(16, dtype=np.float32))
