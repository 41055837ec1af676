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


def _q():
    return qkv(4, 6, 3, 2)


def _with(i, value):
    """Q, K, V with the i-th replaced."""
    Q, K, V = _q()
    args = [Q, K, V]
    args[i] = value(args[i]) if callable(value) else value
    return args


#: (name, args, kwargs, exception, pattern) for attention and attention_blocked (attention_matrix: the same
#: without V); every message names the caller's argument.
BAD = [
    ("d mismatch", _with(1, lambda K: K[:, :2]), {}, ValueError, "Q and K must have the same width"),
    ("rows mismatch", _with(2, lambda V: V[:5]), {}, ValueError, "K and V must have the same number of rows"),
    ("Q 1-d", _with(0, lambda Q: Q[0]), {}, ValueError, "Q must be 2-dimensional"),
    ("Q 0-d", _with(0, np.float64(1.0)), {}, ValueError, "Q must be 2-dimensional"),
    ("K 3-d", _with(1, lambda K: K[None]), {}, ValueError, "K must be 2-dimensional"),
    ("V 3-d", _with(2, lambda V: V[None]), {}, ValueError, "V must be 2-dimensional"),
    ("K NaN", _with(1, lambda K: np.where(K > 0, np.nan, K)), {}, ValueError, "K contains NaN"),
    ("Q -inf", _with(0, lambda Q: np.where(Q > 0, -np.inf, Q)), {}, ValueError, "Q contains NaN or inf"),
    ("V inf", _with(2, lambda V: np.full_like(V, np.inf)), {}, ValueError, "V contains NaN or inf"),
    ("empty d", [np.zeros((4, 0)), np.zeros((6, 0)), np.zeros((6, 2))], {}, ValueError, "Q must have positive"),
    ("empty L_k", [np.zeros((4, 3)), np.zeros((0, 3)), np.zeros((0, 2))], {}, ValueError, "K must have positive"),
    ("empty d_v", _with(2, np.zeros((6, 0))), {}, ValueError, "V must have positive"),
    ("causal L_q != L_k", _with(0, lambda Q: Q), dict(causal=True), ValueError, "causal=True needs as many"),
    ("causal not bool", _with(0, lambda Q: Q), dict(causal="yes"), TypeError, "causal must be True or False"),
    ("beta NaN", _with(0, lambda Q: Q), dict(beta=float("nan")), ValueError, "beta must be finite"),
    ("beta inf", _with(0, lambda Q: Q), dict(beta=float("inf")), ValueError, "beta must be finite"),
    ("beta -inf", _with(0, lambda Q: Q), dict(beta=-float("inf")), ValueError, "beta must be finite"),
    ("beta str", _with(0, lambda Q: Q), dict(beta="1"), TypeError, "beta must be a real number"),
    ("beta bool", _with(0, lambda Q: Q), dict(beta=True), TypeError, "beta must be a real number, not bool"),
    ("beta complex", _with(0, lambda Q: Q), dict(beta=1j), TypeError, "beta must be a real number"),
    ("Q complex", _with(0, lambda Q: Q.astype(complex)), {}, TypeError, "Q must be a real floating array"),
    ("K bool", _with(1, lambda K: K > 0), {}, TypeError, "K must be a real floating array"),
    ("V strings", _with(2, lambda V: V.astype(str)), {}, TypeError, "V must be a real floating array"),
    ("Q ragged", _with(0, [[1.0, 2.0, 3.0], [1.0]]), {}, TypeError, "Q must be an array"),
]


@pytest.mark.parametrize("fn", [attention, attention_blocked])
@pytest.mark.parametrize("name, args, kwargs, exc, msg", BAD, ids=[b[0] for b in BAD])
def test_bad_input(fn, name, args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(*args, **kwargs)


@pytest.mark.parametrize("name, args, kwargs, exc, msg",
                         [b for b in BAD if not b[0].startswith(("rows", "V ", "empty d_v"))],
                         ids=lambda v: v if isinstance(v, str) and " " in v else None)
def test_bad_input_attention_matrix(name, args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        attention_matrix(*args[:2], **kwargs)


def test_mixed_libraries_rejected():
    xs = pytest.importorskip("array_api_strict")
    Q, K, V = _q()
    with pytest.raises(TypeError, match="Q, K, V must be arrays of one library"):
        attention(Q, xs.asarray(K), V)
    with pytest.raises(TypeError, match="Q, K must be arrays of one library"):
        attention_matrix(xs.asarray(Q), K)


@pytest.mark.parametrize("kwargs, exc, msg", [
    (dict(block=0), ValueError, "block must be >= 1"),
    (dict(block=-3), ValueError, "block must be >= 1"),
    (dict(block=2.5), TypeError, "block must be an integer"),
    (dict(block=2.0), TypeError, "block must be an integer"),
    (dict(block=True), TypeError, "block must be an integer"),
    (dict(block=None), TypeError, "block must be an integer"),
    (dict(threads=0), ValueError, "threads must be >= 1"),
    (dict(threads=-1), ValueError, "threads must be >= 1"),
    (dict(threads=1.5), TypeError, "threads must be an integer"),
    (dict(threads=False), TypeError, "threads must be an integer"),
])
def test_bad_block_and_threads(kwargs, exc, msg):
    Q, K, V = qkv(4, 4, 3, 2)
    with pytest.raises(exc, match=msg):
        attention_blocked(Q, K, V, **kwargs)


def test_dtype_policy():
    """float16 is computed (and returned) in float32, integers in float64, mixed floats in the wider dtype."""
    Q, K, V = qkv(5, 6, 3, 2)
    for fn in (attention, lambda *a: attention_blocked(*a, block=2)):
        half = fn(*(a.astype(np.float16) for a in (Q, K, V)))
        assert half.dtype == np.float32
        ref = reference(*(a.astype(np.float16) for a in (Q, K, V)))
        np.testing.assert_allclose(half, ref, rtol=1e-5, atol=1e-6)
        ints = [np.rint(a * 3).astype(np.int64) for a in (Q, K, V)]
        assert fn(*ints).dtype == np.float64
        np.testing.assert_allclose(fn(*ints), reference(*ints), rtol=1e-12)
    assert attention_matrix(Q.astype(np.float16), K.astype(np.float32)).dtype == np.float32


def hardmax_limit(Q, K, V, sign=1.0, causal=False):
    """The zero-temperature limit: the average of V over each row's arg-max keys (scores in float64: exact for
    small integer inputs)."""
    S = sign * (Q.astype(np.float64) @ K.astype(np.float64).T)
    if causal:
        S = np.where(np.tri(*S.shape, dtype=bool), S, -np.inf)
    top = S == S.max(axis=1, keepdims=True)
    return (top @ V.astype(np.float64)) / top.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True])
def test_scores_that_overflow_give_the_right_answer(dtype, causal):
    """Finite inputs with beta·QKᵀ beyond the dtype: the answer is the softmax at that temperature (here the hard
    max, ties averaged), never NaN or inf, and the same for dense and blocked."""
    rng = np.random.default_rng(4)
    big = 2.0 ** 66 if dtype == np.float32 else 2.0 ** 532  # about 7e19 and 1.4e160: ties stay exact
    Q = rng.integers(-3, 4, (9, 3)).astype(dtype) * big
    K = rng.integers(-3, 4, (9, 3)).astype(dtype) * big
    V = rng.standard_normal((9, 2)).astype(dtype)
    for beta, sign in ((1.0, 1.0), (-1.0, -1.0)):
        ref = hardmax_limit(Q / big, K / big, V, sign, causal)  # exact integer scores
        outs = [attention(Q, K, V, beta=beta, causal=causal)]
        outs += [attention_blocked(Q, K, V, beta=beta, causal=causal, block=b, threads=t)
                 for b in (1, 4) for t in (1, 2)]
        for out in outs:
            assert out.dtype == dtype and np.isfinite(out).all()
            np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
    A = attention_matrix(Q, K, causal=causal)
    assert np.isfinite(A).all()
    np.testing.assert_allclose(A.sum(1), 1, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_and_tiny_beta(dtype):
    Q, K, V = qkv(20, 30, 4, 3, seed=5, dtype=dtype)
    for beta, sign in ((1e300, 1.0), (-1e300, -1.0), (1e30, 1.0)):
        ref = hardmax_limit(Q, K, V, sign)
        for out in (attention(Q, K, V, beta=beta), attention_blocked(Q, K, V, beta=beta, block=7)):
            assert np.isfinite(out).all()
            np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
    for beta in (0.0, 1e-300):
        for out in (attention(Q, K, V, beta=beta), attention_blocked(Q, K, V, beta=beta, block=7)):
            np.testing.assert_allclose(out, np.broadcast_to(V.mean(0), out.shape), rtol=1e-5, atol=1e-6)


def test_values_near_the_largest_float():
    """Weighted sums of values near the dtype's maximum do not overflow (the output lies in V's column range)."""
    for dtype in (np.float32, np.float64):
        top = np.finfo(dtype).max
        V = np.array([[top], [top], [-top], [top * 0.5]], dtype=dtype)
        Q, K, _ = qkv(4, 4, 2, 1, seed=6, dtype=dtype)
        ref = reference(Q, K, V.astype(np.float64) / top) * top
        for out in (attention(Q, K, V), attention_blocked(Q, K, V, block=3), attention(Q, K, V, beta=0.0)):
            assert np.isfinite(out).all() and out.dtype == dtype
        np.testing.assert_allclose(attention(Q, K, V), ref, rtol=1e-5)
        np.testing.assert_allclose(attention_blocked(Q, K, V, block=3), ref, rtol=1e-5)
        assert np.all(attention(np.zeros((2, 1), dtype), np.zeros((4, 1), dtype), np.full((4, 1), top, dtype)) == top)


def test_negative_beta_is_attention_to_minus_k():
    Q, K, V = qkv(6, 8, 3, 2, seed=7)
    np.testing.assert_allclose(attention(Q, K, V, beta=-0.7), attention(Q, -K, V, beta=0.7), rtol=1e-13)
    np.testing.assert_allclose(attention_blocked(Q, K, V, beta=-0.7, block=3), attention(Q, -K, V, beta=0.7),
                               rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("beta", [None, -1.5, 1e300])
def test_array_api_strict_matches_numpy(dtype, causal, beta):
    """One array-API path: on array_api_strict (which rejects anything outside the standard) every function gives
    the NumPy result."""
    xs = pytest.importorskip("array_api_strict")
    Q, K, V = qkv(11, 11, 4, 3, seed=8, dtype=dtype)
    sQ, sK, sV = (xs.asarray(a) for a in (Q, K, V))
    pairs = [(attention_matrix(sQ, sK, beta=beta, causal=causal), attention_matrix(Q, K, beta=beta, causal=causal)),
             (attention(sQ, sK, sV, beta=beta, causal=causal), attention(Q, K, V, beta=beta, causal=causal)),
             (attention_blocked(sQ, sK, sV, beta=beta, causal=causal, block=4),
              attention_blocked(Q, K, V, beta=beta, causal=causal, block=4, threads=1))]
    for got, want in pairs:
        assert isinstance(got, type(sQ)) and str(got.dtype) == f"array_api_strict.{dtype}"
        np.testing.assert_array_equal(np.from_dlpack(got), want)
    big = xs.asarray((Q * (1e20 if dtype == "float32" else 1e160)))
    out = np.from_dlpack(attention_blocked(big, big, sV, causal=causal, block=4))
    np.testing.assert_allclose(out, attention(np.from_dlpack(big), np.from_dlpack(big), V, causal=causal))


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
