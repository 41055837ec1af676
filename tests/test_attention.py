import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab import attention, attention_blocked, attention_matrix
from conftest import gpu


def reference(Q, K, V, beta=None, causal=False):
    """Independent dense formula in float64 via SciPy."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    beta = 1 / np.sqrt(Q.shape[1]) if beta is None else beta
    S = beta * Q @ K.T
    if causal:
        S = np.where(np.tri(*S.shape, dtype=bool), S, -np.inf)
    return scipy.special.softmax(S, axis=1) @ V


def qkv(Lq, Lk, d, dv, seed=0, scale=1.0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((Lq, d)) * scale).astype(dtype), (rng.standard_normal((Lk, d)) * scale).astype(
        dtype), rng.standard_normal((Lk, dv)).astype(dtype)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("L, block", [(1, 1), (7, 3), (100, 1024), (1000, 128), (1025, 256), (513, 512)])
def test_blocked_matches_dense_to_1e12(L, block, causal):
    Q, K, V = qkv(L, L, 16, 5, seed=L)
    dense = attention(Q, K, V, causal=causal)
    np.testing.assert_allclose(dense, reference(Q, K, V, causal=causal), rtol=1e-12, atol=1e-14)
    for threads in (1, 2, 3):
        blocked = attention_blocked(Q, K, V, causal=causal, block=block, threads=threads)
        rel = np.abs(blocked - dense).max() / np.abs(dense).max()
        assert rel <= 1e-12, (L, block, threads, rel)


def test_rectangular_and_beta():
    Q, K, V = qkv(37, 91, 8, 3, seed=2)
    for beta in (0.0, 0.5, -2.0, 300.0):
        np.testing.assert_allclose(attention(Q, K, V, beta=beta), reference(Q, K, V, beta), rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(attention_blocked(Q, K, V, beta=beta, block=10), reference(Q, K, V, beta),
                                   rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_any_temperature_logits_1e4(dtype):
    Q, K, V = qkv(64, 64, 8, 4, seed=3, dtype=dtype)
    beta = 1e4 / np.abs(Q @ K.T).max()  # largest logit magnitude 1e4
    ref = reference(Q, K, V, beta)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for out in (attention(Q, K, V, beta=beta), attention_blocked(Q, K, V, beta=beta, block=16)):
        assert out.dtype == dtype and np.isfinite(out).all()
        np.testing.assert_allclose(out, ref, atol=tol * np.abs(V).max())


def test_attention_matrix_rows():
    Q, K, _ = qkv(5, 5, 3, 1)
    A = attention_matrix(Q, K, causal=True)
    np.testing.assert_allclose(A.sum(1), 1)
    assert np.all(np.triu(A, 1) == 0)


def test_returns_common_dtype():
    Q, K, V = qkv(4, 4, 2, 2)
    assert attention(Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32)).dtype == np.float32
    assert attention(Q.astype(np.float32), K, V).dtype == np.float64


@pytest.mark.parametrize("fn", [attention, attention_blocked])
def test_bad_input(fn):
    Q, K, V = qkv(4, 6, 3, 2)
    with pytest.raises(ValueError, match="same width"):
        fn(Q, K[:, :2], V)
    with pytest.raises(ValueError, match="same number of rows"):
        fn(Q, K, V[:5])
    with pytest.raises(ValueError, match="Q must be 2-dimensional"):
        fn(Q[0], K, V)
    with pytest.raises(ValueError, match="K contains NaN"):
        fn(Q, np.where(K > 0, np.nan, K), V)
    with pytest.raises(ValueError, match="V contains NaN or inf"):
        fn(Q, K, np.full_like(V, np.inf))
    with pytest.raises(ValueError, match="causal"):
        fn(Q, K, V, causal=True)
    with pytest.raises(ValueError, match="beta"):
        fn(Q, K, V, beta=float("nan"))
    with pytest.raises(ValueError, match="positive dimensions"):
        fn(Q[:, :0], K[:, :0], V)


def test_bad_block():
    Q, K, V = qkv(4, 4, 3, 2)
    with pytest.raises(ValueError, match="block must be >= 1"):
        attention_blocked(Q, K, V, block=0)
    with pytest.raises(TypeError, match="block must be an integer"):
        attention_blocked(Q, K, V, block=2.5)
    with pytest.raises(ValueError, match="threads must be >= 1"):
        attention_blocked(Q, K, V, threads=0)


@settings(max_examples=200, deadline=None)
@given(L=st.integers(1, 40), Lk=st.integers(1, 40), d=st.integers(1, 6), block=st.integers(1, 50),
       scale=st.sampled_from([0.1, 1.0, 30.0]), seed=st.integers(0, 2**31), causal=st.booleans())
def test_property_blocked_equals_reference(L, Lk, d, block, scale, seed, causal):
    if causal:
        Lk = L
    Q, K, V = qkv(L, Lk, d, 3, seed=seed, scale=scale)
    out = attention_blocked(Q, K, V, block=block, causal=causal)
    np.testing.assert_allclose(out, reference(Q, K, V, causal=causal), rtol=1e-10, atol=1e-12)
    assert np.all(out <= V.max(0) + 1e-12) and np.all(out >= V.min(0) - 1e-12)  # convex combinations


@gpu
def test_cupy_blocked():
    import cupy

    Q, K, V = qkv(300, 300, 8, 4)
    out = attention_blocked(*(cupy.asarray(a) for a in (Q, K, V)), block=64, causal=True)
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_allclose(out.get(), reference(Q, K, V, causal=True), rtol=1e-12, atol=1e-13)
