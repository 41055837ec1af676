"""Fuzz tests of the public core (softmax, logsumexp, attention_matrix, attention, attention_blocked).

Hypothesis draws shapes (L = 1 included), float32 and float64, logits up to ±1e4, ties, one-hot rows, masked
entries, inputs whose scores overflow the dtype and temperatures up to beta = ±1e300. Every draw must give finite
results, rows on the simplex, dense = blocked, and agree with a float64 reference (SciPy for softmax, the exact
hard-max/softmax of integer scores or a float64 recomputation for attention) within a tolerance derived from the
rounding of the logits, stated below. A table of bad inputs per function checks the exception type and that the
message names the caller's parameter. Sized to run in well under 30 s on two cores.
"""
import math

import numpy as np
import pytest
import scipy.special
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnlab import attention, attention_blocked, attention_matrix, logsumexp, softmax

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = st.sampled_from([np.float32, np.float64])


# --------------------------------------------------------------------------- softmax and logsumexp
@st.composite
def logits(draw):
    dtype = draw(DTYPES)
    shape = draw(st.tuples(st.integers(1, 5), st.integers(1, 17)))
    special = st.sampled_from([0.0, 1.0, 1e4, -1e4, -np.inf])  # ties, extremes, masks
    elem = st.one_of(st.floats(-1e4, 1e4, width=32 if dtype == np.float32 else 64), special)
    x = draw(arrays(dtype, shape, elements=elem))
    if draw(st.booleans()):  # one-hot rows: one large logit, the rest at the other extreme
        hot = draw(st.integers(0, shape[1] - 1))
        x[0] = -1e4
        x[0, hot] = 1e4
    axis = draw(st.sampled_from([0, 1, -1]))
    dead = np.all(x == -np.inf, axis=axis, keepdims=True)  # every slice needs one finite entry
    x = np.where(dead & (np.arange(x.shape[axis]).reshape((-1, 1) if axis == 0 else (1, -1)) == 0), 0.0, x)
    return x.astype(dtype), axis


@FUZZ
@given(logits())
def test_softmax_fuzz(case):
    x, axis = case
    eps = np.finfo(x.dtype).eps
    n = x.shape[axis]
    p = softmax(x, axis=axis)
    assert p.dtype == x.dtype and p.shape == x.shape
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    np.testing.assert_allclose(p.sum(axis=axis), 1.0, atol=4 * n * eps)
    # the inputs are exact in float64, so the reference differs only by float32/float64 rounding of exp(x - max):
    # |Δp_i| <= eps·(p_i·|x_i - max| + n + 1) <= eps·(n + 2)
    ref = scipy.special.softmax(x.astype(np.float64), axis=axis)
    np.testing.assert_allclose(p, ref, rtol=0, atol=10 * (n + 2) * eps)
    assert np.all(p[x == -np.inf] == 0)
    lse = logsumexp(x, axis=axis)
    ref = scipy.special.logsumexp(x.astype(np.float64), axis=axis)
    assert lse.dtype == x.dtype and np.isfinite(lse).all()
    assert np.all(np.abs(lse - ref) <= 4 * eps * (np.abs(ref) + math.log(n) + 1)), (lse, ref)


# --------------------------------------------------------------------------- attention: dense, blocked, matrix
BETAS = st.one_of(st.sampled_from([None, 0.0, 1.0, -2.5, 1e4, -1e4, 1e30, 1e300, -1e300, 1e-300]),
                  st.floats(-50, 50))


@st.composite
def attention_case(draw):
    """Q, K, V and beta. kind "int": integer entries times a power of two, so that scores are exact and ties are
    real (the exponent reaches past the dtype's range: scores that overflow); kind "real": uniform entries with
    logits up to about ±1e4 (beta = None, or the drawn beta)."""
    dtype = draw(DTYPES)
    causal = draw(st.booleans())
    Lq = draw(st.integers(1, 9))
    Lk = Lq if causal else draw(st.integers(1, 9))
    d, dv = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["int", "real"]))
    beta = draw(BETAS)
    if kind == "int":
        top = 70 if dtype == np.float32 else 530
        eq, ek = draw(st.integers(-20, top)), draw(st.integers(-20, top))
        Qi, Ki = rng.integers(-3, 4, (Lq, d)), rng.integers(-3, 4, (Lk, d))
        Q, K = (Qi * 2.0**eq).astype(dtype), (Ki * 2.0**ek).astype(dtype)
        exact = (Qi @ Ki.T).astype(np.float64), eq + ek  # scores = exact · 2^(eq + ek)
    else:
        scale = draw(st.sampled_from([1e-3, 1.0, 30.0, 100.0]))  # 100² · d · beta=1/√d: logits up to ~1e4
        Q, K = (rng.uniform(-scale, scale, s).astype(dtype) for s in ((Lq, d), (Lk, d)))
        exact = None
    V = rng.standard_normal((Lk, dv)).astype(dtype)
    if draw(st.booleans()):
        V[0] = V[-1]  # repeated values
    return Q, K, V, beta, causal, exact


def reference(Q, K, V, beta, causal, exact):
    """Float64 softmax(beta·QKᵀ)V at any temperature (non-positive logit differences, overflow to -inf only), and
    a bound delta on the absolute error of the implementation's logits (its rounding: eps·|logit| per entry)."""
    d = Q.shape[1]
    beta = 1 / math.sqrt(d) if beta is None else beta
    eps = float(np.finfo(Q.dtype).eps)
    sign = -1.0 if beta < 0 else 1.0
    if exact is not None:
        S, e = exact
        log2F = (math.log2(abs(beta)) if beta else -math.inf) + e
        F = 2.0 ** log2F if log2F < 60 else math.inf  # beyond: integer gaps >= 1 give exp(-2^60) = 0
        scale_of_logits = F * max(np.abs(S).max(), 1.0) if F < math.inf else math.inf
    else:
        S = Q.astype(np.float64) @ K.astype(np.float64).T
        F = abs(beta)
        scale_of_logits = F * d * float(np.abs(Q).max()) * float(np.abs(K).max())
    u = sign * S
    if causal:
        u = np.where(np.tri(*u.shape, dtype=bool), u, -np.inf)
    z = u - u.max(axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        if F == math.inf:
            w = (z == 0).astype(np.float64)
        else:
            w = np.exp(np.where(z == -np.inf, -np.inf, np.nan_to_num(z * F, nan=0.0)))
    A = w / w.sum(axis=1, keepdims=True)
    delta = 4 * eps * (scale_of_logits + 1) * (d + 2)
    return A, A @ V.astype(np.float64), delta


@FUZZ
@given(attention_case(), st.integers(1, 10), st.sampled_from([1, 2]))
def test_attention_fuzz(case, block, threads):
    Q, K, V, beta, causal, exact = case
    A_ref, O_ref, delta = reference(Q, K, V, beta, causal, exact)
    eps = float(np.finfo(Q.dtype).eps)
    vmax = float(np.abs(V).max())
    # softmax is 1-Lipschitz from logits (sup norm, shifted) to rows (l1 / 2): |ΔO| <= 2·delta·max|V| + rounding
    tol = min(2 * delta, 2.0) * vmax + 20 * (K.shape[0] + 2) * eps * vmax
    A = attention_matrix(Q, K, beta=beta, causal=causal)
    assert A.dtype == Q.dtype and np.isfinite(A).all() and (A >= 0).all()
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=4 * (K.shape[0] + 1) * eps)
    if causal:
        assert np.all(np.triu(A, 1) == 0)
    np.testing.assert_allclose(A, A_ref, rtol=0, atol=min(2 * delta, 2.0) + 20 * (K.shape[0] + 2) * eps)
    dense = attention(Q, K, V, beta=beta, causal=causal)
    blocked = attention_blocked(Q, K, V, beta=beta, causal=causal, block=block, threads=threads)
    for out in (dense, blocked):
        assert out.dtype == Q.dtype and out.shape == (Q.shape[0], V.shape[1]) and np.isfinite(out).all()
        lo, hi = V.min(axis=0), V.max(axis=0)  # convex combinations of the rows of V
        assert np.all(out >= lo - 4 * eps * vmax) and np.all(out <= hi + 4 * eps * vmax)
        np.testing.assert_allclose(out, O_ref, rtol=0, atol=tol)
    np.testing.assert_allclose(blocked, dense, rtol=0, atol=tol)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Q", "K", "V"]), st.sampled_from([np.nan, np.inf, -np.inf]), st.integers(0, 2**32 - 1),
       st.booleans())
def test_dense_and_blocked_raise_the_same_error(which, bad, seed, causal):
    rng = np.random.default_rng(seed)
    L = int(rng.integers(1, 6))
    args = dict(Q=rng.standard_normal((L, 3)), K=rng.standard_normal((L, 3)), V=rng.standard_normal((L, 2)))
    args[which][rng.integers(0, L), rng.integers(0, args[which].shape[1])] = bad
    errors = []
    for fn in (attention, lambda Q, K, V, **kw: attention_blocked(Q, K, V, block=2, **kw)):
        with pytest.raises(ValueError) as info:
            fn(args["Q"], args["K"], args["V"], causal=causal)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and errors[0].startswith(f"{which} contains")


# --------------------------------------------------------------------------- bad input: type and parameter named
def _qkv():
    rng = np.random.default_rng(0)
    return dict(Q=rng.standard_normal((3, 2)), K=rng.standard_normal((4, 2)), V=rng.standard_normal((4, 2)))


#: parameter -> bad values with the exception each must raise, per function family.
ARRAY_BAD = [(np.array(1.0), ValueError), (np.zeros((2, 2, 3)), ValueError), (np.array([[np.nan, 0.0]]), ValueError),
             (np.array([[1 + 1j, 0]]), TypeError), (np.array([[True, False]]), TypeError), ("abc", TypeError)]
TABLE = {
    "softmax/logsumexp": [("x", v, e) for v, e in [(np.array(1.0), ValueError), (np.array([np.nan]), ValueError),
                                                   (np.array([np.inf]), ValueError), (np.array([1j]), TypeError),
                                                   (np.array([True]), TypeError), (np.zeros(0), ValueError)]]
    + [("axis", v, e) for v, e in [(5, ValueError), (-6, ValueError), (1.5, TypeError), (True, TypeError),
                                   ("1", TypeError), (np.float64(0.0), TypeError)]],
    "attention": [(p, v, e) for p in ("Q", "K", "V") for v, e in ARRAY_BAD]
    + [("beta", v, e) for v, e in [(math.nan, ValueError), (math.inf, ValueError), (-math.inf, ValueError),
                                   ("2", TypeError), (False, TypeError), (1j, TypeError), (np.ones(1), TypeError)]]
    + [("causal", v, e) for v, e in [(1, TypeError), ("True", TypeError), (None, TypeError)]],
    "attention_blocked": [("block", v, e) for v, e in [(0, ValueError), (-1, ValueError), (1.5, TypeError),
                                                       (True, TypeError), (np.float32(4), TypeError)]]
    + [("threads", v, e) for v, e in [(0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError)]],
}


def _call(family, param, value, fn):
    if family == "softmax/logsumexp":
        kw = dict(x=np.zeros((2, 3)), axis=-1)
        kw[param] = value
        return fn(kw["x"], axis=kw["axis"])
    kw = _qkv()
    kw[param] = value
    if fn is attention_matrix:
        return fn(kw["Q"], kw["K"], **{k: v for k, v in kw.items() if k in ("beta", "causal")})
    Q, K, V = kw.pop("Q"), kw.pop("K"), kw.pop("V")
    return fn(Q, K, V, **kw)


CASES = [(fam, fn, p, v, e) for fam, rows in TABLE.items() for p, v, e in rows
         for fn in {"softmax/logsumexp": (softmax, logsumexp),
                    "attention": (attention, attention_blocked, attention_matrix),
                    "attention_blocked": (attention_blocked,)}[fam]
         if not (fn is attention_matrix and p == "V")]


@pytest.mark.parametrize("family, fn, param, value, exc", CASES,
                         ids=[f"{c[1].__name__}-{c[2]}={c[3]!r}"[:60] for c in CASES])
def test_bad_input_names_the_parameter(family, fn, param, value, exc):
    with pytest.raises(exc) as info:
        _call(family, param, value, fn)
    assert param in str(info.value), f"{fn.__name__}: message {str(info.value)!r} does not name {param}"
