"""Exact softmax attention, dense and blocked (online softmax), on any array library.

``attention`` forms the full score matrix; ``attention_blocked`` never holds
more than one ``block × block`` tile of scores per worker and streams over the
keys with the online-softmax recurrence (running maximum ``m``, running
normaliser ``l``, running numerator ``acc``), so its memory is O(L·d + block²)
and it reaches sequence lengths at which the dense matrix cannot be stored.

Both take the array namespace from their inputs (``array_api_compat``) and
use only calls of the array API standard, so NumPy, CuPy and
``array_api_strict`` run the same arithmetic; the one NumPy-only part is the
thread pool of ``attention_blocked`` (NumPy's element-wise functions use one
core, so the query blocks are spread over threads with single-threaded BLAS).

Any temperature is safe. When the scores :math:`\\beta QK^\\top` stay inside
the dtype's range (checked up front with the bound
:math:`d\\,|\\beta|\\max|Q|\\max|K|`), the logits are formed as
:math:`\\beta\\,(QK^\\top)` and shifted by their row maximum. Otherwise (finite
inputs whose scores would overflow: float32 entries of 1e20, or
``beta=1e300``) Q and K are rescaled by exact powers of two, the row maximum is
subtracted from the *unscaled* scores, and only the (non-positive) differences
are multiplied by :math:`|\\beta|` times the scale, in steps that cannot give
NaN: an overflow there is ``-inf``, whose exponential is the correct 0. The
result is then the softmax at that temperature (in the limit, the average of
the values at each row's argmax keys), never NaN or inf. Values large enough
for the weighted sums to overflow are rescaled the same way.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import array_api_compat
import numpy as np
import threading

from threadpoolctl import ThreadpoolController
from numpy.typing import ArrayLike

from .backend import cpu_count
from ._validate import Array, batch_shape, finite_real, flag, floating_array, mask_array, namespace_of, positive_int

__all__ = ["attention", "attention_blocked", "attention_matrix"]


class _Plan(NamedTuple):
    """How to form the logits: ``robust=False``: u = beta·(Q Kᵀ), logit differences u − m as they are;
    ``robust=True``: u = sign(beta)·(Qs Ksᵀ) with Qs, Ks rescaled, logit differences mant·2^exp2·(u − m)."""
    robust: bool
    beta: float
    sign: float
    mant: float
    exp2: int
    step: int  # largest power-of-two exponent that one multiplication may use in this dtype


def _inputs(Q, K, V, beta, causal, mask=None):
    """Validate the arguments of the attention functions (V may be None); return
    (xp, Q, K, V, beta, causal, mask, mask_is_bool, batch shape)."""
    arrays = dict(Q=Q, K=K) if V is None else dict(Q=Q, K=K, V=V)
    xp = namespace_of(**arrays, **({} if mask is None else dict(mask=mask)))
    Q = floating_array(Q, "Q", xp)
    K = floating_array(K, "K", xp)
    V = None if V is None else floating_array(V, "V", xp)
    for name, a, what in (("Q", Q, "L_q, d"), ("K", K, "L_k, d"), ("V", V, "L_k, d_v")):
        if a is not None and a.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (…, {what}), got shape {tuple(a.shape)}")
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a is not None and 0 in a.shape[-2:]:
            raise ValueError(f"{name} must have positive dimensions, got shape {tuple(a.shape)}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must have the same width d, got {Q.shape[-1]} and {K.shape[-1]}")
    if V is not None and K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have the same number of rows, got {K.shape[-2]} and {V.shape[-2]}")
    causal = flag(causal, "causal")
    beta = 1.0 / math.sqrt(Q.shape[-1]) if beta is None else finite_real(beta, "beta")
    dtype = xp.result_type(*(a.dtype for a in (Q, K, V) if a is not None))
    Q, K = xp.astype(Q, dtype, copy=False), xp.astype(K, dtype, copy=False)
    V = None if V is None else xp.astype(V, dtype, copy=False)
    is_bool = False
    if mask is not None:
        if causal:
            raise ValueError("give mask or causal=True, not both (as torch's scaled_dot_product_attention): "
                             "a causal mask can be passed as mask")
        mask, is_bool = mask_array(mask, xp, dtype, Q.shape[-2], K.shape[-2])
    shapes = dict(Q=Q.shape[:-2], K=K.shape[:-2])
    if V is not None:
        shapes["V"] = V.shape[:-2]
    if mask is not None:
        shapes["mask"] = mask.shape[:-2]
    batch = batch_shape(**shapes)
    return xp, Q, K, V, beta, causal, mask, is_bool, batch


def _max_abs(xp, a) -> tuple[float, int]:
    """(log2 of max |a| (-inf for a zero array), the binary exponent e with max |a| < 2^e)."""
    m = float(xp.max(xp.abs(a)))
    return (math.log2(m), math.frexp(m)[1]) if m > 0 else (-math.inf, 0)


def _times_pow2(a, e: int, step: int):
    """a·2^e, as multiplications by powers of two that are normal numbers of a's dtype (exact unless the result
    leaves the range: then ±inf or a subnormal/zero, never NaN for finite or -inf a and e > -inf)."""
    while e:
        s = max(-step, min(step, e))
        a = a * 2.0 ** s
        e -= s
    return a


def _plan(xp, Q, K, beta, float_mask=False):
    """Choose the normal or the overflow-safe way of forming the logits; returns (plan, Q, K) (Q, K rescaled if
    their product could overflow). With an additive mask (shifted to [-max/2, 0]) the scores get 2 bits more
    margin, so that scores plus mask cannot overflow."""
    fi = xp.finfo(Q.dtype)
    limit = math.log2(float(fi.max)) - 2 - (2 if float_mask else 0)  # margin for rounding and the row-max shift
    step = int(math.log2(float(fi.max))) - 8  # 2^±step are normal numbers of the dtype
    (lq, eq), (lk, ek) = _max_abs(xp, Q), _max_abs(xp, K)
    product = math.log2(Q.shape[1]) + lq + lk  # log2 of a bound on |Q Kᵀ| (Cauchy–Schwarz, partial sums too)
    logits = product + (math.log2(abs(beta)) if beta else -math.inf)
    if product <= limit and logits <= limit and abs(beta) <= float(fi.max) / 4:  # (beta itself cast to the dtype)
        return _Plan(False, beta, 1.0, 1.0, 0, step), Q, K
    if product > limit:  # rescale Q and K so that |entries| < 1 and |Q Kᵀ| <= d
        Q, K = _times_pow2(Q, -eq, step), _times_pow2(K, -ek, step)
    if beta == 0 and float_mask:  # the logits are the mask alone: 0·(finite scores) + mask
        return _Plan(False, 0.0, 1.0, 1.0, 0, step), Q, K
    mant, eb = math.frexp(abs(beta))
    # past this exponent every non-zero difference maps below -2^20, whose exponential is 0: the cap changes nothing
    cap = int(-math.log2(float(fi.smallest_normal)) - math.log2(float(fi.eps))) + 24
    if product <= limit:
        eq = ek = 0
    return _Plan(True, beta, -1.0 if beta < 0 else 1.0, mant, min(eb + eq + ek, cap), step), Q, K


def _ninf(xp, like):
    return xp.asarray(-xp.inf, dtype=like.dtype, device=array_api_compat.device(like))


def _quiet(xp):
    """No warnings for overflow to ±inf or underflow to 0 (both give the right answer where used) from NumPy or
    the libraries built on it (array_api_strict)."""
    return np.errstate(over="ignore", under="ignore")


def _logits(xp, plan, Qb, Kc, causal, q0, k0, mask=None, is_bool=False):
    """Scores of one tile in plan units (queries q0…, keys k0…; leading batch axes broadcast), keys after the query
    set to -inf if causal (top-left aligned), the mask applied (boolean: False → -inf; float: added)."""
    S = Qb @ (Kc.T if Kc.ndim == 2 else xp.matrix_transpose(Kc))
    if plan.robust:
        if plan.sign < 0:
            S = -S
    else:
        S *= plan.beta
    if causal:
        dev = array_api_compat.device(S)
        i = xp.arange(q0, q0 + S.shape[-2], device=dev)[:, None]
        j = xp.arange(k0, k0 + S.shape[-1], device=dev)[None, :]
        if S.ndim == 2:
            S[j > i] = -xp.inf
        else:
            S = xp.where(j > i, _ninf(xp, S), S)
    if mask is not None:
        S = xp.where(mask, S, _ninf(xp, S)) if is_bool else S + mask
    return S


def _to_logit_differences(xp, plan, z):
    """Map z = u − max u (entries <= 0 or -inf) to logit differences β·(S − max S)."""
    if not plan.robust:
        return z
    if plan.mant == 0:  # beta = 0 (only with rescaled scores): every finite logit difference is 0
        return xp.where(z == -xp.inf, z, xp.zeros_like(z))
    z = z * plan.mant
    e, emax = plan.exp2, plan.step + 8
    while e > 0:  # growing: clip first, so that nothing overflows (a clipped entry ends below -2^(emax-1): exp = 0)
        s = min(plan.step, e)
        z = xp.clip(z, min=-(2.0 ** (emax - s - 1))) * 2.0 ** s
        e -= s
    return _times_pow2(z, e, plan.step)  # shrinking (e <= 0): no overflow possible


def _values(xp, V, n_keys):
    """V rescaled by a power of two if sums of up to n_keys of its rows could overflow: (V, exponent)."""
    lv, ev = _max_abs(xp, V)
    if lv + math.log2(n_keys) + 2 <= math.log2(float(xp.finfo(V.dtype).max)):
        return V, 0
    return _times_pow2(V, -ev, int(math.log2(float(xp.finfo(V.dtype).max))) - 8), ev


def _unscale(xp, O, V, ev):
    """Undo the rescaling of V on the output, after clipping it to the range of V's columns (where it lies
    mathematically) so that rounding cannot carry it past the dtype's largest number."""
    if ev == 0:
        return O
    O = xp.clip(O, min=xp.min(V, axis=-2, keepdims=True), max=xp.max(V, axis=-2, keepdims=True))
    return _times_pow2(O, ev, int(math.log2(float(xp.finfo(O.dtype).max))) - 8)


def _exp(xp, S):
    """exp(S), in place on NumPy: the NumPy fast path of the blocked loop (measured: a fresh tile per step costs
    about as much again as the exponential itself, in page faults); the standard has no ``out=``."""
    if array_api_compat.is_numpy_namespace(xp):
        return np.exp(S, out=S)
    return xp.exp(S)


def _prepare_mask(xp, plan, mask, is_bool):
    """An additive mask in plan units, each row shifted so that its largest entry is 0 and clipped at -max/2 (the
    shift changes no softmax; an entry clipped there has weight 0 whatever the scores), and that row shift in logit
    units (for the log-sum-exp); a boolean mask (or None) as it is, shift None."""
    if mask is None or is_bool:
        return mask, None
    fmax, ninf = float(xp.finfo(mask.dtype).max), _ninf(xp, mask)
    masked = mask == -xp.inf
    top = xp.max(mask, axis=-1, keepdims=True)
    top = xp.where(top == -xp.inf, xp.zeros_like(top), top)
    M = 2.0 * xp.clip(mask * 0.5 - top * 0.5, min=-fmax / 4)  # halves: no overflow for entries of either sign
    if plan.robust:  # logits = c·(u + M/c) with c = mant·2^exp2: the mask in units of the (rescaled) scores
        with _quiet(xp):
            M = xp.clip(_times_pow2(M / plan.mant, -plan.exp2, plan.step), min=-fmax / 4)
    return xp.where(masked, ninf, M), top


def _lse(xp, plan, m, s, shift):
    """log Σ exp(logits) per row, from the row shift m (plan units, finite), the row sums s of exp(logit
    differences) and the mask's row shift (logit units or None); -inf for a fully masked row (s = 0)."""
    pos = s > 0
    logs = xp.where(pos, xp.log(xp.where(pos, s, xp.ones_like(s))), xp.full_like(s, -xp.inf))
    with _quiet(xp):
        top = m if not plan.robust else _times_pow2(m * plan.mant, plan.exp2, plan.step)  # may be ±inf
        out = top + logs if shift is None else top + shift + logs
    return out[..., 0]


def _dense(xp, plan, Q, K, causal, mask=None, is_bool=False, shift=None):
    """The attention matrix (leading axes broadcast) and the log-sum-exp of its rows; fully masked rows are 0."""
    u = _logits(xp, plan, Q, K, causal, 0, 0, mask, is_bool)
    mx = xp.max(u, axis=-1, keepdims=True)
    if mask is not None:
        dead = mx == -xp.inf
        mx = xp.where(dead, xp.zeros_like(mx), mx)
    e = xp.exp(_to_logit_differences(xp, plan, u - mx))
    s = xp.sum(e, axis=-1, keepdims=True)
    lse = _lse(xp, plan, mx, s, shift)
    if mask is not None:
        s = xp.where(dead, xp.ones_like(s), s)
    e /= s
    return e, lse


def _setup(Q, K, V, beta, causal, mask):
    """Validation and the plan shared by the three functions: (xp, plan, Q, K, V, causal, mask, is_bool, shift,
    batch)."""
    xp, Q, K, V, beta, causal, mask, is_bool, batch = _inputs(Q, K, V, beta, causal, mask)
    plan, Q, K = _plan(xp, Q, K, beta, float_mask=mask is not None and not is_bool)
    mask, shift = _prepare_mask(xp, plan, mask, is_bool)
    return xp, plan, Q, K, V, causal, mask, is_bool, shift, batch


def attention_matrix(Q: ArrayLike, K: ArrayLike, *, beta: float | None = None, causal: bool = False,
                     mask: ArrayLike | None = None) -> Array:
    r"""The attention matrix :math:`A = \mathrm{rowsoftmax}(\beta QK^\top + M)`.

    Forms the full :math:`L_q \times L_k` matrix. Stable at any temperature
    (see :func:`attention`); one code path (array API standard) for every
    array library.

    Parameters
    ----------
    Q : array, shape (…, L_q, d)
        Queries; NumPy, CuPy, ``array_api_strict`` or any library that
        ``array_api_compat`` knows. Finite; dtype float32 or float64
        (float16 is computed in float32, integers in float64; bool and
        complex are rejected). ``L_q, d >= 1``. Leading (batch, head)
        axes broadcast with those of ``K`` and ``mask``.
    K : array, shape (…, L_k, d)
        Keys, same library, finite, same width ``d``; ``L_k >= 1``.
    beta : float, optional
        Inverse temperature, any finite real number; ``None`` means
        :math:`1/\sqrt d`. ``beta = 0`` gives uniform rows; ``beta < 0``
        weights the keys with the *smallest* scores (it equals
        ``attention_matrix(Q, -K, beta=-beta)``); huge ``|beta|`` gives
        the hard-max limit (uniform over each row's arg-max keys).
    causal : bool, default False
        Mask keys after the query (``A[i, j] = 0`` for ``j > i``), top-left
        aligned as SDPA's ``is_causal`` (any ``L_q``, ``L_k``).
    mask : array, optional
        Broadcastable to ``(…, L_q, L_k)``, as ``attn_mask`` of
        ``torch.nn.functional.scaled_dot_product_attention``: boolean
        (``True``: the key takes part) or real, added to the logits
        (finite entries or ``-inf``; NaN and ``+inf`` are rejected). Not
        together with ``causal=True``. A row in which no key takes part
        (all ``False`` or ``-inf``) gives zeros (SDPA gives NaN) and a
        log-sum-exp of ``-inf``.

    Returns
    -------
    A : array, shape (…, L_q, L_k), same library as the inputs
        In the common floating dtype of ``Q`` and ``K``; non-negative, rows
        summing to one (zero for a fully masked row).

    Raises
    ------
    TypeError
        ``Q``, ``K`` not real arrays (or of different libraries); ``beta``
        not a real number; ``causal`` not a bool; ``mask`` neither boolean
        nor real.
    ValueError
        ``Q`` or ``K`` with fewer than 2 dimensions, empty, with NaN/inf, of
        different widths, or with batch axes that do not broadcast; ``beta``
        not finite; ``mask`` of a shape that does not broadcast, with NaN or
        ``+inf``, or given with ``causal=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_matrix
    >>> attention_matrix(np.zeros((2, 3)), np.zeros((2, 3)), causal=True)
    array([[1. , 0. ],
           [0.5, 0.5]])
    >>> attention_matrix(np.eye(2), np.eye(2), beta=1e300)   # hard-max limit
    array([[1., 0.],
           [0., 1.]])
    """
    xp, plan, Q, K, _, causal, mask, is_bool, shift, _ = _setup(Q, K, None, beta, causal, mask)
    return _dense(xp, plan, Q, K, causal, mask, is_bool, shift)[0]


def attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, *, beta: float | None = None, causal: bool = False,
              mask: ArrayLike | None = None, return_lse: bool = False) -> Array | tuple[Array, Array]:
    r"""Exact attention :math:`O = \mathrm{rowsoftmax}(\beta QK^\top + M)\,V`.

    The call of ``torch.nn.functional.scaled_dot_product_attention`` (SDPA)
    with ``scale=beta``, ``attn_mask=mask``, ``is_causal=causal``: leading
    batch and head axes broadcast, a boolean or additive mask, a top-left
    aligned causal mask. Forms the full :math:`L_q \times L_k` matrix: O(L_q
    L_k) memory per batch element. For long sequences use
    :func:`attention_blocked`, which gives the same result (or the same
    error) for every input. One code path (array API standard) for every
    array library.

    Any temperature is safe: the logits are shifted by their row maximum, and
    when :math:`d\,|\beta|\max|Q|\max|K|` exceeds the dtype's range (e.g.
    float32 entries 1e20, or ``beta=1e300``) the scores are formed from
    rescaled Q and K and only their non-positive differences are multiplied
    by :math:`\beta`, so the answer is the exact softmax at that temperature
    (in the limit, the average of the values at each row's arg-max keys),
    never NaN or inf. Values so large that their weighted sums could overflow
    are rescaled likewise.

    Parameters
    ----------
    Q : array, shape (…, L_q, d)
        Queries; NumPy, CuPy, ``array_api_strict`` or any library that
        ``array_api_compat`` knows. Finite; dtype float32 or float64
        (float16 is computed in float32, integers in float64; bool and
        complex are rejected). ``L_q, d >= 1``.
    K : array, shape (…, L_k, d)
        Keys: same library, finite, same width ``d``; ``L_k >= 1``.
    V : array, shape (…, L_k, d_v)
        Values: same library, finite, one row per key; ``d_v >= 1``. The
        leading axes of ``Q``, ``K``, ``V`` (and ``mask``) broadcast.
    beta : float, optional
        Inverse temperature multiplying the scores (SDPA's ``scale``), any
        finite real number; ``None`` means :math:`1/\sqrt d`, the standard
        scaling. ``beta = 0`` averages all values; ``beta < 0`` favours the
        keys with the *smallest* scores (it equals
        ``attention(Q, -K, V, beta=-beta)``).
    causal : bool, default False
        If true, query ``i`` attends to keys ``j <= i`` only: SDPA's
        ``is_causal``, top-left aligned (any ``L_q``, ``L_k``).
    mask : array, optional
        Broadcastable to ``(…, L_q, L_k)``, as ``attn_mask`` of
        ``torch.nn.functional.scaled_dot_product_attention``: boolean
        (``True``: the key takes part) or real, added to the logits
        (finite entries or ``-inf``; NaN and ``+inf`` are rejected). Not
        together with ``causal=True``. A row in which no key takes part
        (all ``False`` or ``-inf``) gives zeros (SDPA gives NaN) and a
        log-sum-exp of ``-inf``.
    return_lse : bool, default False
        Also return the log-sum-exp of each row of the logits
        :math:`\beta QK^\top + M` (natural log; ``-inf`` for a fully masked
        row, ``±inf`` where it lies beyond the dtype's range).

    Returns
    -------
    O : array, shape (…, L_q, d_v)
        Same library as the inputs, in their common floating dtype; each row
        is a convex combination of rows of ``V`` (zero for a fully masked
        row). The leading axes are the broadcast of the inputs'.
    lse : array, shape (…, L_q)
        Only with ``return_lse=True``: ``(O, lse)``.

    Raises
    ------
    TypeError
        ``Q``, ``K``, ``V`` not arrays of real numbers or of different
        libraries; ``beta`` not a real number (or bool); ``causal`` or
        ``return_lse`` not a bool; ``mask`` neither boolean nor real.
    ValueError
        An input with fewer than 2 dimensions, with an empty dimension, or
        with NaN/inf entries; ``Q`` and ``K`` of different widths, ``K`` and
        ``V`` with different row counts, leading axes that do not broadcast;
        ``beta`` NaN or infinite; ``mask`` of a shape that does not broadcast
        to ``(…, L_q, L_k)``, with NaN or ``+inf``, or given together with
        ``causal=True``.

    See Also
    --------
    attention_blocked : the same result in O(L·d + block²) memory.
    attention_matrix : the matrix itself.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention
    >>> Q = K = np.eye(2); V = np.array([[1.0], [0.0]])
    >>> attention(Q, K, V, beta=np.log(3.0))
    array([[0.75],
           [0.25]])
    >>> attention(Q, K, V, beta=1e300)   # zero temperature: the argmax value
    array([[1.],
           [0.]])
    >>> attention(Q, K, V, mask=np.array([[True, False], [False, False]]))   # row 2: no key
    array([[1.],
           [0.]])
    >>> attention(np.zeros((8, 2, 5, 4)), np.zeros((8, 2, 7, 4)), np.ones((7, 3))).shape   # batch, heads
    (8, 2, 5, 3)
    """
    return_lse = flag(return_lse, "return_lse")
    xp, plan, Q, K, V, causal, mask, is_bool, shift, _ = _setup(Q, K, V, beta, causal, mask)
    V, ev = _values(xp, V, K.shape[-2])
    A, lse = _dense(xp, plan, Q, K, causal, mask, is_bool, shift)
    O = _unscale(xp, A @ V, V, ev)
    if mask is not None and ev:  # a fully masked row stays 0 (the clip to V's range may have moved it)
        O = xp.where((lse == -xp.inf)[..., None], xp.zeros_like(O), O)
    return (O, lse) if return_lse else O


def _fast_exp2(dtype) -> int:
    """Fast NumPy path of the blocked loop: exp(S − m) with a shift m kept from an earlier tile may reach
    2^_fast_exp2 (48 in float32, 496 in float64; a tile above it goes back to the standard step), so that ell and
    acc stay far inside the range. A shift below the true maximum loses nothing: exponentials only underflow less."""
    return int(math.log2(float(np.finfo(dtype).max))) // 2 - 16


def _fast_ok(xp, plan, mask, V, n_keys) -> bool:
    """Whether the NumPy fast path may run: plain logits (no overflow plan), no mask, values small enough that
    sums of n_keys weights up to 2^_fast_exp2 cannot overflow."""
    if not array_api_compat.is_numpy_namespace(xp) or plan.robust or mask is not None:
        return False
    lv, _ = _max_abs(xp, V)
    return lv + math.log2(n_keys) + _fast_exp2(V.dtype) + 4 <= math.log2(float(xp.finfo(V.dtype).max))


def _blocked_rows(xp, plan, Q, K, V, causal, block, qblock, q0, out, lse_out, where, mask, is_bool, shift, aug):
    """Online softmax over key tiles of ``block`` keys for the queries q0 : q0 + qblock of one batch element
    (2-d Q, K, V; a mask with 2 axes of size 1 or full); writes their rows of ``out`` and ``lse_out`` at index
    ``where``. ``aug`` = (Ka, Va), K and V each with a column of ones (NumPy), turns on the fast path: after a first
    standard tile the shift -m and the inverse temperature go into the score GEMM ([βQ_b, -m]·[K_c, 1]ᵀ), the row
    sums into the value GEMM (P·[V_c, 1]), and a tile is accepted without its max while its exponentials stay below
    2^_fast_exp2 (else it is redone by the standard step)."""
    Ka, Va = aug if aug is not None else (None, None)
    q1 = min(q0 + qblock, Q.shape[0])  # stops within the axis (the standard leaves others unspecified)
    Qb = Q[q0:q1, :]
    nb, dev = Qb.shape[0], array_api_compat.device(Q)
    m = xp.full((nb, 1), -xp.inf, dtype=Q.dtype, device=dev)
    ell = xp.zeros((nb, 1), dtype=Q.dtype, device=dev)
    acc = xp.zeros((nb, V.shape[1]), dtype=V.dtype, device=dev)
    k_end = min(K.shape[0], q1) if causal else K.shape[0]
    mq = mask is not None and mask.shape[0] > 1
    mk = mask is not None and mask.shape[1] > 1
    Qa = None
    buf = np.empty((nb, block), dtype=Q.dtype) if Ka is not None else None  # the block's one scratch tile
    limit = 2.0 ** _fast_exp2(Q.dtype) * block if Ka is not None else 0.0
    misses = 0
    if causal:  # tiles of keys every query of the block sees, then one diagonal tile (at most qblock keys)
        full = min(q0, k_end)
        tiles = [(k0, min(k0 + block, full)) for k0 in range(0, full, block)]
        tiles += [(full, k_end)] if full < k_end else []
    else:
        tiles = [(k0, min(k0 + block, k_end)) for k0 in range(0, k_end, block)]
    for k0, k1 in tiles:
        diag = causal and k1 - 1 > q0
        if Qa is not None and not diag and misses < 2:
            S = np.matmul(Qa, Ka[k0:k1, :].T, out=buf if k1 - k0 == block else None)  # β·scores − m
            with np.errstate(over="ignore"):
                np.exp(S, out=S)
                T = S @ Va[k0:k1, :]  # P·V and, in the last column, the row sums of P
            s = T[:, -1:]
            if bool(np.all(s <= limit)):  # also false for inf or NaN
                ell += s
                acc += T[:, :-1]
                continue
            misses += 1
        mt = None
        if mask is not None:
            mt = mask[slice(q0, q1) if mq else slice(0, 1), slice(k0, k1) if mk else slice(0, 1)]
        if buf is not None and not diag and k1 - k0 == block:  # fast path (plain logits, no mask): into the workspace
            S = np.matmul(Qb, K[k0:k1, :].T, out=buf)
            S *= plan.beta
        else:
            S = _logits(xp, plan, Qb, K[k0:k1, :], diag, q0, k0, mt, is_bool)
        m_new = xp.maximum(m, xp.max(S, axis=1, keepdims=True))
        if mask is not None:  # rows with no key yet: shift by 0 (exp(-inf - 0) = 0), keep m = -inf
            m_use = xp.where(m_new == -xp.inf, xp.zeros_like(m_new), m_new)
        else:
            m_use = m_new
        S -= m_use
        S = _exp(xp, _to_logit_differences(xp, plan, S))
        scale = xp.exp(_to_logit_differences(xp, plan, m - m_use))  # exp(-inf) = 0 on the first tile
        ell *= scale
        ell += xp.sum(S, axis=1, keepdims=True)
        acc *= scale
        acc += S @ V[k0:k1, :]
        m = m_new
        if Ka is not None:
            if Qa is None:
                Qa = np.empty((nb, Qb.shape[1] + 1), dtype=Q.dtype)
                Qa[:, :-1] = Qb * plan.beta
            Qa[:, -1:] = -m
    m_fin = m if mask is None else xp.where(m == -xp.inf, xp.zeros_like(m), m)
    rows = slice(q0, q1) if shift is not None and shift.shape[0] > 1 else slice(0, 1)
    lse = _lse(xp, plan, m_fin, ell, None if shift is None else shift[rows, :])
    if mask is not None:
        ell = xp.where(ell == 0, xp.ones_like(ell), ell)
    out[where + (slice(q0, q1), slice(None))] = acc / ell
    lse_out[where + (slice(q0, q1),)] = lse


_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()
_BLAS = []


def _one_blas_thread():
    """A context with single-threaded BLAS, from one ThreadpoolController made on first use (threadpool_limits
    looks up the loaded libraries on every call: about 0.5 ms, as much as a whole call at L = 1024 on 2 cores)."""
    with _POOLS_LOCK:
        if not _BLAS:
            _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def _pool(threads: int) -> ThreadPoolExecutor:
    """The module's worker pool of ``threads`` threads, made on first use and kept (its tasks never wait on one
    another, so callers in several threads may share it)."""
    with _POOLS_LOCK:
        if threads not in _POOLS:
            _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="attnlab-blocked")
        return _POOLS[threads]


def _own(a, idx, batch_ndim):
    """a's own index of the batch index idx (its batch axes broadcast against batch_ndim axes)."""
    lead = a.ndim - 2
    own = idx[batch_ndim - lead:] if lead else ()
    return tuple(0 if a.shape[k] == 1 else i for k, i in enumerate(own))


def _part(a, idx, batch_ndim):
    """The 2-d slice of a (batch axes broadcast against a batch of batch_ndim axes) at the batch index idx."""
    return a[_own(a, idx, batch_ndim) + (slice(None), slice(None))]


def attention_blocked(Q: ArrayLike, K: ArrayLike, V: ArrayLike, *, beta: float | None = None, causal: bool = False,
                      mask: ArrayLike | None = None, return_lse: bool = False, block: int = 1024,
                      threads: int | None = None) -> Array | tuple[Array, Array]:
    r"""Exact attention computed tile by tile with an online softmax.

    For each block of ``block`` queries the keys are visited in blocks of
    ``block``; with the tile of scores :math:`S = \beta Q_b K_c^\top` the
    running row maximum :math:`m`, normaliser :math:`\ell` and numerator
    :math:`N` are updated as

    .. math::
        m' = \max(m, \max_j S_{:j})

        \ell' = e^{m - m'}\ell + \sum_j e^{S_{:j} - m'}

        N' = e^{m - m'} N + e^{S - m'} V_c ,

    and the block's output is :math:`N/\ell`. Exponents stay bounded, and
    scores that would overflow are handled as in :func:`attention`, so any
    temperature is safe. Memory is O(L·d + threads·block²) per call (plus the
    mask, if given); the result equals :func:`attention` up to rounding
    (about 1e-15 relative in float64), and every input that
    :func:`attention` rejects is rejected with the same error. With
    ``causal=True`` key tiles entirely above the diagonal are skipped, which
    halves the work (query blocks are then ``block // 4`` long, so that
    little work is spent above the diagonal). On NumPy with several threads,
    query blocks are made smaller than ``block`` where there would be fewer
    than two per thread.
    Batch, mask, causal and the log-sum-exp are as in
    :func:`attention` (the semantics of PyTorch's
    ``scaled_dot_product_attention``).

    Which path runs: the tile arithmetic is one array-API code path for every
    library. On NumPy inputs (the fast path, measured to matter: NumPy's
    element-wise functions are single-threaded) the query blocks of every
    batch element are spread over ``threads`` worker threads, each with a
    single-threaded BLAS; and without a mask, once a block's first tile has
    given a row maximum m, the inverse temperature and the shift by m are
    folded into the score product and a tile's maximum is skipped while its
    exponentials stay below :math:`2^{48}` in float32, :math:`2^{496}` in
    float64 (else the tile is redone the
    standard way): this saves three of the five passes over each tile. On
    other libraries (CuPy, ``array_api_strict``, …) the blocks run in
    sequence and ``threads`` is only validated.

    Parameters
    ----------
    Q : array, shape (…, L_q, d)
        Queries, as in :func:`attention` (finite; float32/float64, float16
        computed in float32, integers in float64).
    K : array, shape (…, L_k, d)
        Keys, as in :func:`attention`.
    V : array, shape (…, L_k, d_v)
        Values, as in :func:`attention`.
    beta : float, optional
        Inverse temperature, any finite real; ``None`` means
        :math:`1/\sqrt d`; ``beta < 0`` as in :func:`attention`.
    causal : bool, default False
        Query ``i`` attends to keys ``j <= i`` only (top-left aligned).
    mask : array, optional
        Broadcastable to ``(…, L_q, L_k)``, as ``attn_mask`` of
        ``torch.nn.functional.scaled_dot_product_attention``: boolean
        (``True``: the key takes part) or real, added to the logits
        (finite entries or ``-inf``; NaN and ``+inf`` are rejected). Not
        together with ``causal=True``. A row in which no key takes part
        (all ``False`` or ``-inf``) gives zeros (SDPA gives NaN) and a
        log-sum-exp of ``-inf``.
    return_lse : bool, default False
        Also return the log-sum-exp of each row, as in :func:`attention`.
    block : int, default 1024
        Tile size, an integer >= 1 (not bool). ``L`` need not be a multiple
        of it.
    threads : int, optional
        Worker threads on NumPy, an integer >= 1 (default: the CPUs this
        process may use).

    Returns
    -------
    O : array, shape (…, L_q, d_v)
        Same library as the inputs, in their common floating dtype.
    lse : array, shape (…, L_q)
        Only with ``return_lse=True``: ``(O, lse)``.

    Raises
    ------
    TypeError
        As :func:`attention`; ``block`` or ``threads`` not an integer.
    ValueError
        As :func:`attention`; ``block < 1`` or ``threads < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention, attention_blocked
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((10, 4)) for _ in range(3))
    >>> bool(np.allclose(attention_blocked(Q, K, V, block=3), attention(Q, K, V)))
    True
    """
    return_lse = flag(return_lse, "return_lse")
    xp, plan, Q, K, V, causal, mask, is_bool, shift, batch = _setup(Q, K, V, beta, causal, mask)
    block = positive_int(block, "block")
    threads = cpu_count() if threads is None else positive_int(threads, "threads")
    V, ev = _values(xp, V, K.shape[-2])
    Lq, dev = Q.shape[-2], array_api_compat.device(Q)
    out = xp.empty(batch + (Lq, V.shape[-1]), dtype=V.dtype, device=dev)
    lse = xp.empty(batch + (Lq,), dtype=V.dtype, device=dev)
    fast = _fast_ok(xp, plan, mask, V, K.shape[-2])
    nbd = len(batch)
    idxs = list(np.ndindex(*batch)) if nbd else [()]
    qblock = block
    if array_api_compat.is_numpy_namespace(xp) and threads > 1:  # at least 2 query blocks per thread
        per_element = -(-2 * threads // len(idxs))
        qblock = max(1, min(block, -(-Lq // per_element)))
    if causal:  # small diagonal tiles: less work above the diagonal, and better balance over the threads
        qblock = max(1, min(qblock, block // 4))
    augmented = {}  # (K's, V's own batch index) -> (K, V) each with a column of ones: the fast path's operands

    def aug(idx):
        key = (_own(K, idx, nbd), _own(V, idx, nbd))
        if key not in augmented:
            K2, V2 = _part(K, idx, nbd), _part(V, idx, nbd)
            augmented[key] = tuple(np.concatenate([a, np.ones((a.shape[0], 1), dtype=a.dtype)], axis=1)
                                   for a in (K2, V2))
        return augmented[key]

    def run(task):
        idx, q0 = task
        _blocked_rows(xp, plan, _part(Q, idx, nbd), _part(K, idx, nbd), _part(V, idx, nbd), causal, block, qblock, q0,
                      out, lse, idx, None if mask is None else _part(mask, idx, nbd), is_bool,
                      None if shift is None else _part(shift, idx, nbd), aug(idx) if fast else None)

    starts = list(range(0, Lq, qblock))
    if causal:
        starts.reverse()  # the longest rows first: better balance over the threads
    tasks = [(idx, q0) for idx in idxs for q0 in starts]
    if array_api_compat.is_numpy_namespace(xp) and threads > 1 and len(tasks) > 1:
        if fast:  # fill the cache of augmented operands before the threads start (no races on it)
            for idx in idxs:
                aug(idx)
        with _one_blas_thread():
            list(_pool(threads).map(run, tasks))  # list() re-raises any worker's exception here
    elif array_api_compat.is_numpy_namespace(xp) and Lq * K.shape[-2] >= 2**20:
        with _one_blas_thread():  # many small products: threaded BLAS only waits
            for task in tasks:
                run(task)
    else:
        for task in tasks:
            run(task)
    O = _unscale(xp, out, V, ev)
    if mask is not None and ev:
        O = xp.where((lse == -xp.inf)[..., None], xp.zeros_like(O), O)
    return (O, lse) if return_lse else O
