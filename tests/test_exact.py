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
    ("Q 1-d", _with(0, lambda Q: Q[0]), {}, ValueError, r"Q must have at least 2 dimensions \(…, L_q, d\)"),
    ("Q 0-d", _with(0, np.float64(1.0)), {}, ValueError, "Q must have at least 2 dimensions"),
    ("K 1-d", _with(1, lambda K: K[0]), {}, ValueError, "K must have at least 2 dimensions"),
    ("batch mismatch", [np.stack([a] * n) for a, n in zip(_q(), (2, 3, 3))], {}, ValueError,
     r"the batch axes of Q, K(, V)? do not broadcast: Q \(2,\), K \(3,\)"),
    ("K NaN", _with(1, lambda K: np.where(K > 0, np.nan, K)), {}, ValueError, "K contains NaN"),
    ("Q -inf", _with(0, lambda Q: np.where(Q > 0, -np.inf, Q)), {}, ValueError, "Q contains NaN or inf"),
    ("V inf", _with(2, lambda V: np.full_like(V, np.inf)), {}, ValueError, "V contains NaN or inf"),
    ("empty d", [np.zeros((4, 0)), np.zeros((6, 0)), np.zeros((6, 2))], {}, ValueError, "Q must have positive"),
    ("empty L_k", [np.zeros((4, 3)), np.zeros((0, 3)), np.zeros((0, 2))], {}, ValueError, "K must have positive"),
    ("empty d_v", _with(2, np.zeros((6, 0))), {}, ValueError, "V must have positive"),
    ("mask and causal", _with(0, lambda Q: Q), dict(causal=True, mask=np.ones((4, 6), bool)), ValueError,
     "give mask or causal=True, not both"),
    ("mask shape", _with(0, lambda Q: Q), dict(mask=np.ones((4, 5), bool)), ValueError,
     r"mask of shape \(4, 5\) does not broadcast to \(…, L_q, L_k\) = \(…, 4, 6\)"),
    ("mask NaN", _with(0, lambda Q: Q), dict(mask=np.full((4, 6), np.nan)), ValueError, "mask contains NaN or \\+inf"),
    ("mask +inf", _with(0, lambda Q: Q), dict(mask=np.full((4, 6), np.inf)), ValueError, "mask contains NaN or \\+inf"),
    ("mask complex", _with(0, lambda Q: Q), dict(mask=np.ones((4, 6), complex)), TypeError, "mask must be a boolean"),
    ("mask str", _with(0, lambda Q: Q), dict(mask="yes"), TypeError, "mask must be"),
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
    for k, (got, want) in enumerate(pairs):
        assert isinstance(got, type(sQ)) and str(got.dtype) == f"array_api_strict.{dtype}"
        if k < 2:
            np.testing.assert_array_equal(np.from_dlpack(got), want)
        else:  # NumPy's blocked fast path folds beta and the row shift into the score product: equal to rounding
            np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-5 if dtype == "float32" else 1e-13,
                                       atol=1e-6 if dtype == "float32" else 1e-14)
    big = xs.asarray((Q * (1e20 if dtype == "float32" else 1e160)))
    out = np.from_dlpack(attention_blocked(big, big, sV, causal=causal, block=4))
    np.testing.assert_allclose(out, attention(np.from_dlpack(big), np.from_dlpack(big), V, causal=causal))


def test_rectangular_causal_is_top_left_aligned():
    """causal=True with L_q != L_k: query i sees keys j <= i (SDPA's is_causal)."""
    for Lq, Lk in ((5, 9), (9, 5)):
        Q, K, V = qkv(Lq, Lk, 4, 3, seed=Lq)
        ref = reference(Q, K, V, causal=True)
        np.testing.assert_allclose(attention(Q, K, V, causal=True), ref, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(attention_blocked(Q, K, V, causal=True, block=2), ref, rtol=1e-12, atol=1e-14)
        A = attention_matrix(Q, K, causal=True)
        assert np.all(A[np.triu_indices(Lq, 1, Lk)] == 0)


def test_batch_axes_broadcast_as_loops():
    """Leading axes: every batch element is the 2-d call on its slices; broadcasting as NumPy's."""
    rng = np.random.default_rng(12)
    Q = rng.standard_normal((2, 3, 7, 4))
    K = rng.standard_normal((1, 3, 9, 4))
    V = rng.standard_normal((9, 2))
    mask = rng.random((2, 1, 7, 9)) < 0.7
    mask[..., 0] = True
    for kw in (dict(), dict(causal=True), dict(mask=mask), dict(beta=1e300)):
        want = np.empty((2, 3, 7, 2))
        for b in range(2):
            for h in range(3):
                one = {k: (v[b, 0] if k == "mask" else v) for k, v in kw.items()}
                want[b, h] = attention(Q[b, h], K[0, h], V, **one)
        for fn in (attention, lambda *a, **k: attention_blocked(*a, block=3, **k),
                   lambda *a, **k: attention_blocked(*a, block=4, threads=1, **k)):
            np.testing.assert_allclose(fn(Q, K, V, **kw), want, rtol=1e-12, atol=1e-14)
    assert attention_matrix(Q, K, mask=mask).shape == (2, 3, 7, 9)


def test_2d_results_unchanged_by_the_mask_machinery():
    """An all-True boolean mask and an all-zero additive mask give the unmasked result."""
    Q, K, V = qkv(13, 17, 4, 3, seed=13)
    base = attention(Q, K, V)
    for mask in (np.ones((13, 17), bool), np.zeros((17,)), np.zeros((1, 1))):
        np.testing.assert_allclose(attention(Q, K, V, mask=mask), base, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(attention_blocked(Q, K, V, mask=mask, block=4), base, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masks_bool_and_additive(dtype):
    """A boolean mask equals the additive mask 0 / -inf; an additive mask equals shifting the scores; fully masked
    rows are 0 with log-sum-exp -inf in both functions."""
    rng = np.random.default_rng(14)
    Q, K, V = qkv(9, 11, 4, 3, seed=14, dtype=dtype)
    keep = rng.random((9, 11)) < 0.5
    keep[2] = False
    add = rng.standard_normal((9, 11)).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    S = Q.astype(np.float64) @ K.T.astype(np.float64) / 2 + np.where(keep, add, -np.inf)
    live = keep.any(1)
    want = np.zeros((9, 3))
    want[live] = scipy.special.softmax(S[live], axis=1) @ V
    want_lse = np.where(live, scipy.special.logsumexp(np.where(live[:, None], S, 0), axis=1), -np.inf)
    for fn in (attention, lambda *a, **k: attention_blocked(*a, block=4, **k)):
        got, lse = fn(Q, K, V, mask=np.where(keep, add, -np.inf).astype(dtype), return_lse=True)
        assert got.dtype == dtype and lse.dtype == dtype and lse.shape == (9,)
        np.testing.assert_allclose(got, want, **tol)
        np.testing.assert_allclose(lse, want_lse, **tol)
        assert np.all(got[2] == 0) and lse[2] == -np.inf
        b = fn(Q, K, V, mask=keep)
        np.testing.assert_allclose(b, fn(Q, K, V, mask=np.where(keep, 0, -np.inf).astype(dtype)), **tol)
        assert np.all(b[2] == 0)
    A = attention_matrix(Q, K, mask=keep)
    assert np.all(A[2] == 0) and np.all(A[~keep] == 0)
    np.testing.assert_allclose(A[live].sum(1), 1, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masks_at_any_temperature(dtype):
    """Logits ±1e4, beta 1e300 and overflowing scores with a mask (finite, finfo.min and -inf entries): finite, and
    the softmax at that temperature (the hard max over the kept keys in the limit)."""
    rng = np.random.default_rng(15)
    Q, K, V = qkv(16, 16, 4, 2, seed=15, dtype=dtype)
    keep = rng.random((16, 16)) < 0.6
    keep[:, 0] = True
    for fill in (-np.inf, np.finfo(dtype).min):
        mask = np.where(keep, 0, fill).astype(dtype)
        beta = float(1e4 / np.abs(Q.astype(np.float64) @ K.T.astype(np.float64)).max())
        S = beta * (Q.astype(np.float64) @ K.T.astype(np.float64))
        want = scipy.special.softmax(np.where(keep, S, -np.inf), axis=1) @ V.astype(np.float64)
        tol = 2e-3 if dtype == np.float32 else 1e-9
        for fn in (attention, lambda *a, **k: attention_blocked(*a, block=5, **k)):
            got = fn(Q, K, V, beta=beta, mask=mask)
            assert np.isfinite(got).all()
            np.testing.assert_allclose(got, want, atol=tol)
            hard = fn(Q, K, V, beta=1e300, mask=mask)
            # exact arithmetic: at beta = 1e300 (scores of order 1e300) float32's finfo.min (-3.4e38) is negligible,
            # float64's (-1.8e308) decides
            ignored = fill > -np.inf and dtype == np.float32
            top = np.where(keep | ignored, Q.astype(np.float64) @ K.T.astype(np.float64), -np.inf)
            arg = top == top.max(1, keepdims=True)
            np.testing.assert_allclose(hard, (arg @ V.astype(np.float64)) / arg.sum(1, keepdims=True), atol=1e-6)
    big = 2.0 ** 66 if dtype == np.float32 else 2.0 ** 532
    Qi = rng.integers(-3, 4, (9, 3)).astype(dtype)
    Ki = rng.integers(-3, 4, (9, 3)).astype(dtype)
    Vi = rng.standard_normal((9, 2)).astype(dtype)
    keep9 = keep[:9, :9]
    S = np.where(keep9, Qi.astype(np.float64) @ Ki.T.astype(np.float64), -np.inf)
    arg = S == S.max(1, keepdims=True)
    ref = (arg @ Vi.astype(np.float64)) / arg.sum(1, keepdims=True)
    for fn in (attention, lambda *a, **k: attention_blocked(*a, block=4, **k)):
        for mask in (keep9, np.where(keep9, 1.0, -np.inf).astype(dtype)):
            out = fn(Qi * big, Ki * big, Vi, beta=1.0, mask=mask)
            assert np.isfinite(out).all()
            np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_beta_zero_with_additive_mask_is_softmax_of_the_mask():
    Q, K, V = qkv(5, 7, 3, 2, seed=16)
    mask = np.random.default_rng(16).standard_normal((5, 7))
    want = scipy.special.softmax(mask, axis=1) @ V
    for s in (1.0, 1e200):
        for fn in (attention, lambda *a, **k: attention_blocked(*a, block=3, **k)):
            np.testing.assert_allclose(fn(Q * s, K * s, V, beta=0.0, mask=mask), want, rtol=1e-12, atol=1e-14)


def test_lse_without_mask():
    Q, K, V = qkv(20, 30, 4, 3, seed=17)
    S = Q @ K.T / 2
    for fn in (attention, lambda *a, **k: attention_blocked(*a, block=7, **k)):
        O, lse = fn(Q, K, V, return_lse=True)
        np.testing.assert_allclose(lse, scipy.special.logsumexp(S, axis=1), rtol=1e-13)
        np.testing.assert_array_equal(O, fn(Q, K, V))
    with pytest.raises(TypeError, match="return_lse must be True or False"):
        attention(Q, K, V, return_lse=1)


def test_fast_path_falls_back_on_growing_scores():
    """Scores that grow along the keys (each tile's maximum far above the first's): the fast path's check sends
    the tiles back to the standard step; the result is still exact."""
    L = 64
    Q = np.ones((L, 1))
    K = np.linspace(0, 400, L)[:, None]
    V = np.random.default_rng(18).standard_normal((L, 2))
    for causal in (False, True):
        np.testing.assert_allclose(attention_blocked(Q, K, V, beta=1.0, block=8, causal=causal),
                                   reference(Q, K, V, 1.0, causal), rtol=1e-12, atol=1e-14)


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
