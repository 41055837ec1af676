"""attnlab's exact attention against PyTorch's ``torch.nn.functional.scaled_dot_product_attention`` (SDPA).

Same call, same answer: leading batch and head axes (broadcast), boolean and additive masks, ``is_causal`` (top-left
aligned, also with L_q != L_k), ``scale`` = ``beta``, float32 and float64, and the log-sum-exp of each row against
``torch.logsumexp`` of the logits. The one documented difference: a row in which no key takes part is NaN in SDPA
and zero here (log-sum-exp -inf).

torch is not a dependency of attnlab; requirements.txt (the tests' and the book's environment) installs its CPU wheel,
so these tests run with the suite and in CI, where a missing torch fails them (``CI`` set). Elsewhere they are
skipped, visibly, without torch.
"""
import os

import numpy as np
import pytest

from attnlab import attention, attention_blocked

if os.environ.get("CI"):
    import torch  # CI installs requirements.txt: the comparison must run there
else:
    torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with its SDPA is skipped")
F = torch.nn.functional

FUNCS = {"attention": attention,
         "blocked": lambda *a, **k: attention_blocked(*a, block=5, **k),
         "blocked-2threads": lambda *a, **k: attention_blocked(*a, block=3, threads=2, **k)}
TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}

#: (batch shape of Q, of K and V, L_q, L_k): plain, batched and headed, broadcast heads, rectangular.
SHAPES = [((), (), 7, 7), ((3,), (3,), 6, 11), ((2, 4), (2, 4), 9, 9), ((2, 3), (2, 1), 8, 13), ((2, 3), (), 12, 5)]


def _case(bq, bk, Lq, Lk, dtype, seed=0, d=4, dv=3):
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal(bq + (Lq, d)).astype(dtype)
    K = rng.standard_normal(bk + (Lk, d)).astype(dtype)
    V = rng.standard_normal(bk + (Lk, dv)).astype(dtype)
    return Q, K, V


def _sdpa(Q, K, V, **kw):
    t = [torch.from_numpy(np.ascontiguousarray(a)) for a in (Q, K, V)]
    if "attn_mask" in kw and isinstance(kw["attn_mask"], np.ndarray):
        kw["attn_mask"] = torch.from_numpy(kw["attn_mask"])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    t = [x.expand(batch + tuple(x.shape[-2:])) for x in t]  # SDPA's CPU kernels want explicit batch axes
    return F.scaled_dot_product_attention(*t, **kw).numpy()


def _lse_ref(Q, K, beta, mask=None, causal=False):
    S = beta * torch.from_numpy(Q) @ torch.from_numpy(K).transpose(-1, -2)
    if causal:
        S = S.masked_fill(~torch.ones(S.shape[-2:], dtype=torch.bool).tril(), -torch.inf)
    if mask is not None:
        m = torch.from_numpy(mask)
        S = S.masked_fill(~m, -torch.inf) if m.dtype == torch.bool else S + m
    return torch.logsumexp(S, dim=-1).numpy()


@pytest.mark.parametrize("fn", list(FUNCS), ids=list(FUNCS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("bq, bk, Lq, Lk", SHAPES, ids=[f"{s[0]}x{s[1]}-{s[2]}x{s[3]}" for s in SHAPES])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_plain_and_causal(fn, dtype, bq, bk, Lq, Lk, causal):
    Q, K, V = _case(bq, bk, Lq, Lk, dtype, seed=Lq * Lk)
    beta = 0.7
    got, lse = FUNCS[fn](Q, K, V, beta=beta, causal=causal, return_lse=True)
    want = _sdpa(Q, K, V, is_causal=causal, scale=beta)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, **TOL[dtype])
    np.testing.assert_allclose(lse, np.broadcast_to(_lse_ref(Q, K, beta, causal=causal), lse.shape), **TOL[dtype])
    default = FUNCS[fn](Q, K, V, causal=causal)  # beta=None is SDPA's default scale 1/sqrt(d)
    np.testing.assert_allclose(default, _sdpa(Q, K, V, is_causal=causal), **TOL[dtype])


#: mask shapes broadcast to (…, L_q, L_k) in the ways users write them.
MASK_SHAPES = {"full": lambda b, Lq, Lk: b + (Lq, Lk), "per-key": lambda b, Lq, Lk: (1, Lk),
               "per-query": lambda b, Lq, Lk: (Lq, 1), "2-d": lambda b, Lq, Lk: (Lq, Lk)}


@pytest.mark.parametrize("fn", list(FUNCS), ids=list(FUNCS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("kind", ["bool", "additive", "additive-inf", "finfo-min"])
@pytest.mark.parametrize("mshape", list(MASK_SHAPES))
def test_masks(fn, dtype, kind, mshape):
    bq = bk = (2, 3)
    Lq, Lk = 6, 10
    Q, K, V = _case(bq, bk, Lq, Lk, dtype, seed=5)
    rng = np.random.default_rng(6)
    shape = MASK_SHAPES[mshape](bq, Lq, Lk)
    keep = rng.random(shape) < 0.6
    keep[..., 0] = True  # every row keeps a key here (fully masked rows: test_fully_masked_rows)
    if kind == "bool":
        mask = keep
    elif kind == "additive":
        mask = rng.standard_normal(shape).astype(dtype) * 3
    elif kind == "additive-inf":
        mask = np.where(keep, rng.standard_normal(shape) * 3, -np.inf).astype(dtype)
    else:  # the idiom mask.masked_fill(~keep, finfo.min)
        mask = np.where(keep, 0, np.finfo(dtype).min).astype(dtype)
    got, lse = FUNCS[fn](Q, K, V, mask=mask, return_lse=True)
    want = _sdpa(Q, K, V, attn_mask=mask)
    np.testing.assert_allclose(got, want, **TOL[dtype])
    if kind != "finfo-min":  # (there torch's reference logits overflow: the log-sum-exp is not comparable)
        np.testing.assert_allclose(lse, np.broadcast_to(_lse_ref(Q, K, 0.5, mask), lse.shape), **TOL[dtype])


@pytest.mark.parametrize("fn", list(FUNCS), ids=list(FUNCS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("kind", ["bool", "additive"])
def test_fully_masked_rows(fn, dtype, kind):
    """SDPA gives NaN for a row in which no key takes part; attnlab gives zeros (and a log-sum-exp of -inf); every
    other row agrees."""
    Q, K, V = _case((2,), (2,), 5, 8, dtype, seed=9)
    keep = np.random.default_rng(10).random((2, 5, 8)) < 0.5
    keep[:, :, 0] = True
    keep[0, 2] = keep[1, 4] = False
    mask = keep if kind == "bool" else np.where(keep, 0.0, -np.inf).astype(dtype)
    got, lse = FUNCS[fn](Q, K, V, mask=mask, return_lse=True)
    want = _sdpa(Q, K, V, attn_mask=mask)
    dead = ~keep.any(axis=-1)
    assert np.all(got[dead] == 0) and np.all(lse[dead] == -np.inf)
    np.testing.assert_allclose(got[~dead], want[~dead], **TOL[dtype])
    assert np.isfinite(got).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_logits_1e4(dtype, causal):
    """Logits of magnitude 1e4 (a low temperature): attnlab and SDPA agree, finite, in both dtypes."""
    Q, K, V = _case((2,), (2,), 16, 16, dtype, seed=11)
    beta = float(1e4 / np.abs(Q.astype(np.float64) @ np.swapaxes(K, -1, -2)).max())
    want = _sdpa(Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64), is_causal=causal, scale=beta)
    tol = dict(rtol=0, atol=1e-3) if dtype == np.float32 else dict(rtol=0, atol=1e-9)
    for fn in FUNCS.values():
        got = fn(Q, K, V, beta=beta, causal=causal)
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, want, **tol)


def test_both_mask_and_causal_is_an_error_as_in_sdpa():
    Q, K, V = _case((), (), 4, 4, np.float64)
    mask = np.ones((4, 4), dtype=bool)
    with pytest.raises(RuntimeError):
        _sdpa(Q, K, V, attn_mask=mask, is_causal=True)
    for fn in FUNCS.values():
        with pytest.raises(ValueError, match="mask or causal=True, not both"):
            fn(Q, K, V, mask=mask, causal=True)
