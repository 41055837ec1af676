"""Exact softmax attention, dense and blocked (online softmax).

``attention`` forms the full score matrix; ``attention_blocked`` never holds
more than one ``block × block`` tile of scores and streams over the keys with
the online-softmax recurrence (running maximum ``m``, running normaliser
``l``, running numerator ``acc``), so its memory is O(L·d + block²) and it
reaches sequence lengths at which the dense matrix cannot be stored.
"""
from __future__ import annotations

import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from ._validate import positive_int, qkv
from .backend import get_array_module
from .softmax import softmax

__all__ = ["attention", "attention_blocked", "attention_matrix"]


def _check_qkv(Q, K, V, beta, causal):
    Q, K, V = qkv(Q, K, V)
    if causal and Q.shape[0] != K.shape[0]:
        raise ValueError(f"causal=True needs as many queries as keys, got {Q.shape[0]} and {K.shape[0]}")
    if beta is None:
        beta = 1.0 / math.sqrt(Q.shape[1])
    elif isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not math.isfinite(beta):
        raise ValueError(f"beta must be a finite real number or None, got {beta!r}")
    dtype = get_array_module(Q).result_type(Q, K, V)
    return Q.astype(dtype, copy=False), K.astype(dtype, copy=False), V.astype(dtype, copy=False), float(beta)


def _scores(Q, K, beta, causal, q0=0, k0=0):
    """beta·Q Kᵀ for a tile whose first query/key rows are q0/k0, causally masked."""
    xp = get_array_module(Q)
    S = Q @ K.T
    S *= beta
    if causal:
        i = xp.arange(q0, q0 + Q.shape[0])[:, None]
        j = xp.arange(k0, k0 + K.shape[0])[None, :]
        S[j > i] = -xp.inf
    return S


def attention_matrix(Q, K, *, beta=None, causal=False):
    r"""The attention matrix :math:`A = \mathrm{rowsoftmax}(\beta QK^\top)`.

    Parameters
    ----------
    Q : array, shape (L_q, d)
    K : array, shape (L_k, d)
    beta : float, optional
        Inverse temperature; ``None`` means :math:`1/\sqrt d`.
    causal : bool
        Mask keys after the query (needs ``L_q == L_k``).

    Returns
    -------
    array, shape (L_q, L_k), rows summing to one.

    Examples
    --------
    >>> import numpy as np
    >>> attention_matrix(np.zeros((2, 3)), np.zeros((2, 3)), causal=True)
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    V = K[:, :1]  # only for validation; unused
    Q, K, _, beta = _check_qkv(Q, K, V, beta, causal)
    return softmax(_scores(Q, K, beta, causal), axis=-1)


def attention(Q, K, V, *, beta=None, causal=False):
    r"""Exact attention :math:`O = \mathrm{rowsoftmax}(\beta QK^\top)\,V`.

    Forms the full :math:`L_q \times L_k` matrix: O(L_q L_k) memory. For long
    sequences use :func:`attention_blocked`, which gives the same result.

    Parameters
    ----------
    Q : array, shape (L_q, d)
        Queries (NumPy or CuPy, float32 or float64).
    K : array, shape (L_k, d)
        Keys.
    V : array, shape (L_k, d_v)
        Values.
    beta : float, optional
        Inverse temperature multiplying the logits; ``None`` means
        :math:`1/\sqrt d`, the standard scaling.
    causal : bool
        If true, query ``i`` attends to keys ``j <= i`` only.

    Returns
    -------
    O : array, shape (L_q, d_v), same array type as the inputs, in their
        common floating dtype.

    Raises
    ------
    ValueError
        Mismatched shapes, empty dimensions, NaN/Inf entries, non-finite beta.

    Examples
    --------
    >>> import numpy as np
    >>> Q = K = np.eye(2); V = np.array([[1.0], [0.0]])
    >>> attention(Q, K, V, beta=np.log(3.0))
    array([[0.75],
           [0.25]])
    """
    Q, K, V, beta = _check_qkv(Q, K, V, beta, causal)
    return softmax(_scores(Q, K, beta, causal), axis=-1) @ V


def _blocked_rows(Q, K, V, beta, causal, block, q0, out):
    """Online softmax over key tiles for the queries q0 : q0 + block; writes ``out``."""
    xp = get_array_module(Q)
    Qb = Q[q0:q0 + block]
    m = xp.full((Qb.shape[0], 1), -xp.inf, dtype=Q.dtype)
    ell = xp.zeros((Qb.shape[0], 1), dtype=Q.dtype)
    acc = xp.zeros((Qb.shape[0], V.shape[1]), dtype=V.dtype)
    k_end = min(K.shape[0], q0 + Qb.shape[0]) if causal else K.shape[0]
    for k0 in range(0, k_end, block):
        S = _scores(Qb, K[k0:k0 + block], beta, causal and k0 + block > q0, q0, k0)
        m_new = xp.maximum(m, S.max(axis=1, keepdims=True))
        S -= m_new
        xp.exp(S, out=S)
        scale = xp.exp(m - m_new)  # exp(-inf) = 0 on the first tile
        ell *= scale
        ell += S.sum(axis=1, keepdims=True)
        acc *= scale
        acc += S @ V[k0:k0 + block]
        m = m_new
    out[q0:q0 + Qb.shape[0]] = acc / ell


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
    so any temperature is safe. Memory is O(L·d + threads·block²); the result
    equals :func:`attention` up to rounding (about 1e-15 relative in float64).
    With ``causal=True`` key tiles entirely above the diagonal are skipped,
    which halves the work.

    On NumPy, query blocks are spread over ``threads`` worker threads, each
    with a single-threaded BLAS, so that the element-wise exponentials run
    on every core (NumPy's ufuncs are single-threaded); on CuPy the tiles run
    in sequence on the device.

    Parameters
    ----------
    Q, K, V, beta, causal
        As in :func:`attention`.
    block : int
        Tile size (>= 1). ``L`` need not be a multiple of it.
    threads : int, optional
        Worker threads on NumPy (default: the CPUs this process may use).

    Returns
    -------
    O : array, shape (L_q, d_v)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((10, 4)) for _ in range(3))
    >>> bool(np.allclose(attention_blocked(Q, K, V, block=3), attention(Q, K, V)))
    True
    """
    block = positive_int(block, "block")
    threads = _cpu_count() if threads is None else positive_int(threads, "threads")
    Q, K, V, beta = _check_qkv(Q, K, V, beta, causal)
    xp = get_array_module(Q)
    out = xp.empty((Q.shape[0], V.shape[1]), dtype=V.dtype)
    starts = range(0, Q.shape[0], block)
    if xp is not np or threads == 1 or len(starts) == 1:
        for q0 in starts:
            _blocked_rows(Q, K, V, beta, causal, block, q0, out)
        return out
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(threads) as pool:
        # list() re-raises any worker's exception here
        list(pool.map(lambda q0: _blocked_rows(Q, K, V, beta, causal, block, q0, out), starts))
    return out
