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
import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import array_api_compat
import numpy as np
from threadpoolctl import threadpool_limits

from ._validate import finite_real, flag, floating_array, namespace_of, positive_int

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


def _inputs(Q, K, V, beta, causal):
    """Validate the arguments of the attention functions (V may be None); return (xp, Q, K, V, beta, causal)."""
    arrays = dict(Q=Q, K=K) if V is None else dict(Q=Q, K=K, V=V)
    xp = namespace_of(**arrays)
    Q = floating_array(Q, "Q", xp, ndim=2)
    K = floating_array(K, "K", xp, ndim=2)
    V = None if V is None else floating_array(V, "V", xp, ndim=2)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a is not None and 0 in a.shape:
            raise ValueError(f"{name} must have positive dimensions, got shape {tuple(a.shape)}")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q and K must have the same width d, got {Q.shape[1]} and {K.shape[1]}")
    if V is not None and K.shape[0] != V.shape[0]:
        raise ValueError(f"K and V must have the same number of rows, got {K.shape[0]} and {V.shape[0]}")
    causal = flag(causal, "causal")
    if causal and Q.shape[0] != K.shape[0]:
        raise ValueError(f"causal=True needs as many queries as keys, got {Q.shape[0]} and {K.shape[0]}")
    beta = 1.0 / math.sqrt(Q.shape[1]) if beta is None else finite_real(beta, "beta")
    dtype = xp.result_type(*(a.dtype for a in (Q, K, V) if a is not None))
    Q, K = xp.astype(Q, dtype, copy=False), xp.astype(K, dtype, copy=False)
    V = None if V is None else xp.astype(V, dtype, copy=False)
    return xp, Q, K, V, beta, causal


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


def _plan(xp, Q, K, beta):
    """Choose the normal or the overflow-safe way of forming the logits; returns (plan, Q, K) (Q, K rescaled if
    their product could overflow)."""
    fi = xp.finfo(Q.dtype)
    limit = math.log2(float(fi.max)) - 2  # margin for rounding and for the shift by the row maximum
    step = int(math.log2(float(fi.max))) - 8  # 2^±step are normal numbers of the dtype
    (lq, eq), (lk, ek) = _max_abs(xp, Q), _max_abs(xp, K)
    product = math.log2(Q.shape[1]) + lq + lk  # log2 of a bound on |Q Kᵀ| (Cauchy–Schwarz, partial sums too)
    logits = product + (math.log2(abs(beta)) if beta else -math.inf)
    if product <= limit and logits <= limit and abs(beta) <= float(fi.max) / 4:  # (beta itself cast to the dtype)
        return _Plan(False, beta, 1.0, 1.0, 0, step), Q, K
    if product > limit:  # rescale Q and K so that |entries| < 1 and |Q Kᵀ| <= d
        Q, K = _times_pow2(Q, -eq, step), _times_pow2(K, -ek, step)
    mant, eb = math.frexp(abs(beta))
    # past this exponent every non-zero difference maps below -2^20, whose exponential is 0: the cap changes nothing
    cap = int(-math.log2(float(fi.smallest_normal)) - math.log2(float(fi.eps))) + 24
    if product <= limit:
        eq = ek = 0
    return _Plan(True, beta, -1.0 if beta < 0 else 1.0, mant, min(eb + eq + ek, cap), step), Q, K


def _logits(xp, plan, Qb, Kc, causal, q0, k0):
    """Scores of one tile in plan units (queries q0…, keys k0…), keys after the query set to -inf if causal."""
    S = Qb @ Kc.T
    if plan.robust:
        if plan.sign < 0:
            S = -S
    else:
        S *= plan.beta
    if causal:
        dev = array_api_compat.device(S)
        i = xp.arange(q0, q0 + S.shape[0], device=dev)[:, None]
        j = xp.arange(k0, k0 + S.shape[1], device=dev)[None, :]
        S[j > i] = -xp.inf
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
    O = xp.clip(O, min=xp.min(V, axis=0, keepdims=True), max=xp.max(V, axis=0, keepdims=True))
    return _times_pow2(O, ev, int(math.log2(float(xp.finfo(O.dtype).max))) - 8)


def _exp(xp, S):
    """exp(S), in place on NumPy: the NumPy fast path of the blocked loop (measured: a fresh tile per step costs
    about as much again as the exponential itself, in page faults); the standard has no ``out=``."""
    if array_api_compat.is_numpy_namespace(xp):
        return np.exp(S, out=S)
    return xp.exp(S)


def _dense(xp, plan, Q, K, causal):
    u = _logits(xp, plan, Q, K, causal, 0, 0)
    e = xp.exp(_to_logit_differences(xp, plan, u - xp.max(u, axis=1, keepdims=True)))
    e /= xp.sum(e, axis=1, keepdims=True)
    return e


def attention_matrix(Q, K, *, beta=None, causal=False):
    r"""The attention matrix :math:`A = \mathrm{rowsoftmax}(\beta QK^\top)`.

    Forms the full :math:`L_q \times L_k` matrix. Stable at any temperature
    (see :func:`attention`); one code path (array API standard) for every
    array library.

    Parameters
    ----------
    Q : array, shape (L_q, d)
        Queries; NumPy, CuPy, ``array_api_strict`` or any library that
        ``array_api_compat`` knows. Finite; dtype float32 or float64
        (float16 is computed in float32, integers in float64; bool and
        complex are rejected). ``L_q, d >= 1``.
    K : array, shape (L_k, d)
        Keys, same library, finite, same width ``d``; ``L_k >= 1``.
    beta : float, optional
        Inverse temperature, any finite real number; ``None`` means
        :math:`1/\sqrt d`. ``beta = 0`` gives uniform rows; ``beta < 0``
        weights the keys with the *smallest* scores (it equals
        ``attention_matrix(Q, -K, beta=-beta)``); huge ``|beta|`` gives
        the hard-max limit (uniform over each row's arg-max keys).
    causal : bool, default False
        Mask keys after the query (``A[i, j] = 0`` for ``j > i``); needs
        ``L_q == L_k``.

    Returns
    -------
    A : array, shape (L_q, L_k), same library as the inputs
        In the common floating dtype of ``Q`` and ``K``; non-negative, rows
        summing to one.

    Raises
    ------
    TypeError
        ``Q``, ``K`` not real arrays (or of different libraries); ``beta``
        not a real number; ``causal`` not a bool.
    ValueError
        ``Q`` or ``K`` not 2-d, empty, with NaN/inf, or of different widths;
        ``beta`` not finite; ``causal=True`` with ``L_q != L_k``.

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
    xp, Q, K, _, beta, causal = _inputs(Q, K, None, beta, causal)
    plan, Q, K = _plan(xp, Q, K, beta)
    return _dense(xp, plan, Q, K, causal)


def attention(Q, K, V, *, beta=None, causal=False):
    r"""Exact attention :math:`O = \mathrm{rowsoftmax}(\beta QK^\top)\,V`.

    Forms the full :math:`L_q \times L_k` matrix: O(L_q L_k) memory. For long
    sequences use :func:`attention_blocked`, which gives the same result (or
    the same error) for every input. One code path (array API standard) for
    every array library.

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
    Q : array, shape (L_q, d)
        Queries; NumPy, CuPy, ``array_api_strict`` or any library that
        ``array_api_compat`` knows. Finite; dtype float32 or float64
        (float16 is computed in float32, integers in float64; bool and
        complex are rejected). ``L_q, d >= 1``.
    K : array, shape (L_k, d)
        Keys: same library, finite, same width ``d``; ``L_k >= 1``.
    V : array, shape (L_k, d_v)
        Values: same library, finite, one row per key; ``d_v >= 1``.
    beta : float, optional
        Inverse temperature multiplying the logits, any finite real number;
        ``None`` means :math:`1/\sqrt d`, the standard scaling. ``beta = 0``
        averages all values; ``beta < 0`` favours the keys with the
        *smallest* scores (it equals ``attention(Q, -K, V, beta=-beta)``).
    causal : bool, default False
        If true, query ``i`` attends to keys ``j <= i`` only (needs
        ``L_q == L_k``).

    Returns
    -------
    O : array, shape (L_q, d_v)
        Same library as the inputs, in their common floating dtype; each row
        is a convex combination of rows of ``V``.

    Raises
    ------
    TypeError
        ``Q``, ``K``, ``V`` not arrays of real numbers or of different
        libraries; ``beta`` not a real number (or bool); ``causal`` not a
        bool.
    ValueError
        An input not 2-d (0-d, 1-d, 3-d), with an empty dimension, or with
        NaN/inf entries; ``Q`` and ``K`` of different widths, ``K`` and
        ``V`` with different row counts; ``beta`` NaN or infinite;
        ``causal=True`` with ``L_q != L_k``.

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
    """
    xp, Q, K, V, beta, causal = _inputs(Q, K, V, beta, causal)
    plan, Q, K = _plan(xp, Q, K, beta)
    V, ev = _values(xp, V, K.shape[0])
    return _unscale(xp, _dense(xp, plan, Q, K, causal) @ V, V, ev)


def _blocked_rows(xp, plan, Q, K, V, causal, block, q0, out):
    """Online softmax over key tiles for the queries q0 : q0 + block; writes their rows of ``out``."""
    q1 = min(q0 + block, Q.shape[0])  # stops within the axis (the standard leaves others unspecified)
    Qb = Q[q0:q1, :]
    nb, dev = Qb.shape[0], array_api_compat.device(Q)
    m = xp.full((nb, 1), -xp.inf, dtype=Q.dtype, device=dev)
    ell = xp.zeros((nb, 1), dtype=Q.dtype, device=dev)
    acc = xp.zeros((nb, V.shape[1]), dtype=V.dtype, device=dev)
    k_end = min(K.shape[0], q0 + nb) if causal else K.shape[0]
    for k0 in range(0, k_end, block):
        k1 = min(k0 + block, K.shape[0])
        S = _logits(xp, plan, Qb, K[k0:k1, :], causal and k1 > q0, q0, k0)
        m_new = xp.maximum(m, xp.max(S, axis=1, keepdims=True))
        S -= m_new
        S = _exp(xp, _to_logit_differences(xp, plan, S))
        scale = xp.exp(_to_logit_differences(xp, plan, m - m_new))  # exp(-inf) = 0 on the first tile
        ell *= scale
        ell += xp.sum(S, axis=1, keepdims=True)
        acc *= scale
        acc += S @ V[k0:k1, :]
        m = m_new
    out[q0:q1, :] = acc / ell


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def attention_blocked(Q, K, V, *, beta=None, causal=False, block=1024, threads=None):
    r"""Exact attention computed tile by tile with an online softmax.

    For each block of ``block`` queries the keys are visited in blocks of
    ``block``; with the tile of scores :math:`S = \beta Q_b K_c^\top` the
    running row maximum :math:`m`, normaliser :math:`\ell` and numerator
    :math:`N` are updated as

    .. math::
        m' = \max(m, \max_j S_{:j}),\quad
        \ell' = e^{m - m'}\ell + \sum_j e^{S_{:j} - m'},\quad
        N' = e^{m - m'} N + e^{S - m'} V_c ,

    and the block's output is :math:`N/\ell`. Exponents are never positive,
    and scores that would overflow are handled as in :func:`attention`, so
    any temperature is safe. Memory is O(L·d + threads·block²); the result
    equals :func:`attention` up to rounding (about 1e-15 relative in
    float64), and every input that :func:`attention` rejects is rejected with
    the same error. With ``causal=True`` key tiles entirely above the
    diagonal are skipped, which halves the work.

    Which path runs: the tile arithmetic is one array-API code path for every
    library. On NumPy inputs (the fast path, measured to matter: NumPy's
    element-wise functions are single-threaded) the query blocks are spread
    over ``threads`` worker threads, each with a single-threaded BLAS; on
    other libraries (CuPy, ``array_api_strict``, …) the blocks run in
    sequence and ``threads`` is only validated.

    Parameters
    ----------
    Q : array, shape (L_q, d)
        Queries, as in :func:`attention` (finite; float32/float64, float16
        computed in float32, integers in float64).
    K : array, shape (L_k, d)
        Keys, as in :func:`attention`.
    V : array, shape (L_k, d_v)
        Values, as in :func:`attention`.
    beta : float, optional
        Inverse temperature, any finite real; ``None`` means
        :math:`1/\sqrt d`; ``beta < 0`` as in :func:`attention`.
    causal : bool, default False
        Query ``i`` attends to keys ``j <= i`` only (needs ``L_q == L_k``).
    block : int, default 1024
        Tile size, an integer >= 1 (not bool). ``L`` need not be a multiple
        of it.
    threads : int, optional
        Worker threads on NumPy, an integer >= 1 (default: the CPUs this
        process may use).

    Returns
    -------
    O : array, shape (L_q, d_v)
        Same library as the inputs, in their common floating dtype.

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
    xp, Q, K, V, beta, causal = _inputs(Q, K, V, beta, causal)
    block = positive_int(block, "block")
    threads = _cpu_count() if threads is None else positive_int(threads, "threads")
    plan, Q, K = _plan(xp, Q, K, beta)
    V, ev = _values(xp, V, K.shape[0])
    out = xp.empty((Q.shape[0], V.shape[1]), dtype=V.dtype, device=array_api_compat.device(Q))
    starts = range(0, Q.shape[0], block)
    run = lambda q0: _blocked_rows(xp, plan, Q, K, V, causal, block, q0, out)  # noqa: E731
    if array_api_compat.is_numpy_namespace(xp) and threads > 1 and len(starts) > 1:
        with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, starts))  # list() re-raises any worker's exception here
    else:
        for q0 in starts:
            run(q0)
    return _unscale(xp, out, V, ev)
