r"""The hardness gadgets of attention at any temperature: (Q, K, V) instances, run through attention and decoded.

The reductions of §5 of the any-temperature notes (on Gupta, Huang, Saha, Xu and Ye, 2025): the sentinel (Lemma 5.1),
Max-IP (Lemma 5.3), orthogonal vectors (Eq. (5)), parity (Thm 5.7), the low-rank width reduction (Thm 1.4) and the
temperature remark; the book audits them in chapter 6. Scores are unscaled, :math:`\exp(QK^\top)` (inverse temperature
1), as in the paper. Every reduction is a function that builds the instance, calls :func:`attnlab.attention` (or an
approximate oracle ``oracle(Q, K, V)`` standing for it) and decodes the answer.

The sentinel: append :math:`\ln c_i` to query :math:`i`, a 0 to every key, and one key
:math:`(0,\dots,0,1)`; values are 1 on the original keys and 0 on the sentinel. Then

.. math:: o_i = \frac{S_i}{S_i + c_i},\qquad S_i = \sum_j e^{Q_i\cdot K_j}.

An *oracle* is any callable ``oracle(Q, K, V) -> O`` returning an array of the shape of
``attention(Q, K, V, beta=1.0)``; :func:`approximate_oracle` makes ε-approximate ones. The book's experiments
and verdicts on these claims are in :mod:`attnlab.audit.hardness`.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..core._results import former_dict
from ..core._validate import (Array, SeedLike, as_float_array, as_generator, finite_real, in_open_interval,
                              positive_int, positive_real, qkv, real, rng_keyword)
from ..core.exact import attention
from ..core.backend import get_array_module

__all__ = [
    "sentinel_instance",
    "SentinelInstance",
    "sentinel_attention",
    "approximate_oracle",
    "rowsum_search",
    "RowsumSearch",
    "RowsumSearchInfo",
    "maxip_instance",
    "MaxIPInstance",
    "maxip_decode",
    "ov_instance",
    "ov_decode",
    "OVDecision",
    "parity_instance",
    "ParityInstance",
    "parity_decode",
    "one_sided_factorisation",
    "OneSidedFactorisation",
    "temperature_absorbed",
    "TemperatureAbsorbed",
]

#: What an attention oracle is: ``oracle(Q, K, V) -> O``, standing for ``attention(Q, K, V, beta=1.0)``.
Oracle = Callable[[Array, Array, Array], Array]


# --------------------------------------------------------------------------- validation
def _qk(Q, K, names=("Q", "K")):
    Q = as_float_array(Q, names[0], ndim=2)
    K = as_float_array(K, names[1], ndim=2)
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"{names[0]} and {names[1]} must have the same width d, got {Q.shape[1]} and {K.shape[1]}")
    if 0 in Q.shape or 0 in K.shape:
        raise ValueError(f"{names[0]} and {names[1]} must be non-empty")
    return Q, K


def _binary(A, Bv):
    A, Bv = _qk(A, Bv, ("A", "Bv"))
    if not (bool(np.isin(A, (0.0, 1.0)).all()) and bool(np.isin(Bv, (0.0, 1.0)).all())):
        raise ValueError("A and Bv must be 0/1 matrices")
    return A, Bv


def _oracle(oracle):
    if oracle is not None and not callable(oracle):
        raise TypeError(f"oracle must be callable as oracle(Q, K, V) or None, not {type(oracle).__name__}")
    return oracle


def _run(oracle, Qs, Ks, Vs, overflow: str):
    """Column 0 of ``oracle(Qs, Ks, Vs)`` (exact attention at beta = 1 when None), shape and finiteness checked."""
    if oracle is None:
        try:
            O = attention(Qs, Ks, Vs, beta=1.0)
        except ValueError as exc:  # finite inputs whose scores overflow: attention's check of its score matrix
            raise ValueError(f"{overflow} ({exc})") from exc
        if not bool(get_array_module(O).isfinite(O).all()):
            raise ValueError(overflow)
    else:
        O = oracle(Qs, Ks, Vs)
        if not hasattr(O, "shape") or tuple(O.shape) != (Qs.shape[0], Vs.shape[1]):
            raise ValueError(f"oracle must return an array of shape {(Qs.shape[0], Vs.shape[1])}, got "
                             f"{tuple(O.shape) if hasattr(O, 'shape') else type(O).__name__}")
        if not bool(get_array_module(O).isfinite(O).all()):
            raise ValueError("oracle returned NaN or inf")
    return O[:, 0]


# --------------------------------------------------------------------------- the sentinel (Lemma 5.1)
class SentinelInstance(NamedTuple):
    r"""A sentinel gadget's (Q, K, V): the result of :func:`sentinel_instance` and :func:`ov_instance`.

    Attributes
    ----------
    Q : array, shape (n, d + w)
        The queries with :math:`\ln c_i` appended (spread over w coordinates; w = 1 unspread).
    K : array, shape (m + 1, d + w)
        The keys, 0 in the new coordinates, and the sentinel key last.
    V : array, shape (m + 1, 1)
        1 on the original keys, 0 on the sentinel.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sentinel_instance
    >>> Q, K, V = sentinel_instance(np.zeros((2, 1)), np.zeros((3, 1)), np.zeros(2))
    >>> Q.shape, K.shape, V.shape
    ((2, 2), (4, 2), (4, 1))
    """

    Q: Array
    K: Array
    V: Array


def sentinel_instance(Q: ArrayLike, K: ArrayLike, log_c: ArrayLike, B: float | None = None) -> SentinelInstance:
    r"""The instance of Lemma 5.1: :math:`Q' = [Q, \ln c]`, :math:`K' = \begin{bmatrix}K & 0\\ 0 & 1\end{bmatrix}`,
    :math:`V' = (1, \dots, 1, 0)^\top`.

    Attention on it at inverse temperature 1 gives :math:`o_i = S_i/(S_i + c_i)` with
    :math:`S_i = \sum_j e^{Q_i\cdot K_j}` (see :func:`sentinel_attention`).

    Parameters
    ----------
    Q : array, shape (n, d)
        Queries, finite, real (NumPy or CuPy; integers are read as float64).
    K : array, shape (m, d)
        Keys, same array type and width as ``Q``.
    log_c : array, shape (n,)
        :math:`\ln c_i` per query, finite (any sign).
    B : float, optional
        Entry bound to keep (finite, > 0). ``None`` (default) appends :math:`\ln c_i` as one coordinate, as
        printed; its size can reach :math:`\ln m + dB^2`, beyond ``B``. With ``B``, the coordinate is *spread*
        over :math:`w = \max(1, \lceil\max_i|\ln c_i|/B^2\rceil)` coordinates: query :math:`i` gets
        :math:`\ln c_i/(wB)` in each, the sentinel key :math:`B` in each, the original keys 0, so the sentinel's
        score is still :math:`w\cdot B\cdot\ln c_i/(wB) = \ln c_i` and every new entry is at most ``B`` in
        absolute value (the book's repair of the sentinel: the width grows by w instead of the entries). The values 1
        are within ``B`` when B >= 1, the lemma's assumption.

    Returns
    -------
    SentinelInstance
        ``Q`` (n, d + w), ``K`` (m + 1, d + w) and ``V`` (m + 1, 1); w = 1 when ``B`` is None.

    Raises
    ------
    TypeError
        A non-array or non-real argument.
    ValueError
        Wrong dimensions, empty ``Q`` or ``K``, different widths, ``log_c`` not of length n, NaN/inf entries.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sentinel_instance
    >>> Qs, Ks, Vs = sentinel_instance(np.zeros((1, 2)), np.zeros((3, 2)), np.array([0.0]))
    >>> Qs.shape, Ks.shape, Vs.ravel().tolist()
    ((1, 3), (4, 3), [1.0, 1.0, 1.0, 0.0])
    >>> Qs, Ks, Vs = sentinel_instance(np.zeros((1, 2)), np.zeros((3, 2)), np.array([5.0]), B=1.0)
    >>> Qs.shape, float(abs(Qs).max()), float((Qs @ Ks.T)[0, -1])     # ln c = 5 spread over 5 coordinates
    ((1, 7), 1.0, 5.0)
    """
    Q, K = _qk(Q, K)
    xp = get_array_module(Q)
    log_c = as_float_array(log_c, "log_c", ndim=1)
    if log_c.shape[0] != Q.shape[0]:
        raise ValueError(f"log_c must have one entry per query ({Q.shape[0]}), got {log_c.shape[0]}")
    m, d = K.shape
    if B is None:
        w, q_new, k_new = 1, log_c[:, None], 1.0
    else:
        B = positive_real(B, "B")
        top = float(xp.abs(log_c).max()) / (B * B)
        if not top < 2.0 ** 24:
            raise ValueError(f"B = {B:g} is too small for log_c up to {float(xp.abs(log_c).max()):g}: the spread "
                             f"would need {top:.3g} coordinates")
        w = max(1, math.ceil(top))
        q_new = xp.repeat(log_c[:, None] / (w * B), w, axis=1)
        k_new = B
    Qs = xp.concatenate([Q, q_new], axis=1)
    Ks = xp.zeros((m + 1, d + w))
    Ks[:m, :d] = K
    Ks[m, d:] = k_new
    Vs = xp.zeros((m + 1, 1))
    Vs[:m] = 1.0
    return SentinelInstance(Qs, Ks, Vs)


def sentinel_attention(Q: ArrayLike, K: ArrayLike, log_c: ArrayLike, oracle: Oracle | None = None,
                       B: float | None = None) -> Array:
    r"""Attention (or ``oracle``) on :func:`sentinel_instance`: :math:`o_i = S_i/(S_i + c_i)`, one value per query.

    Parameters
    ----------
    Q, K, log_c
        As in :func:`sentinel_instance`.
    oracle : callable, optional
        ``oracle(Q', K', V')`` returning an array of shape (n, 1) that stands for exact attention at inverse
        temperature 1 (e.g. :func:`approximate_oracle`); ``None`` means exact :func:`attnlab.attention`.
    B : float, optional
        As in :func:`sentinel_instance`: run on the spread instance whose entries stay within ``B``.

    Returns
    -------
    array, shape (n,)
        :math:`o_i` in [0, 1] for exact attention (±ε for an ε-approximate oracle); the same with and without
        ``B`` (the sentinel's score is :math:`\ln c_i` either way).

    Raises
    ------
    TypeError
        As :func:`sentinel_instance`; ``oracle`` not callable.
    ValueError
        As :func:`sentinel_instance`; the oracle's output of the wrong shape or not finite; finite inputs whose
        scores :math:`Q_i\cdot K_j` or :math:`\ln c_i` overflow float64 (exact attention is computed at any other
        size: the softmax shifts by the row maximum).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sentinel_attention
    >>> Q, K = np.zeros((1, 2)), np.zeros((3, 2))           # S = 3
    >>> sentinel_attention(Q, K, np.log([1.0]))              # 3 / (3 + 1)
    array([0.75])
    """
    oracle = _oracle(oracle)
    Qs, Ks, Vs = sentinel_instance(Q, K, log_c, B)
    return _run(oracle, Qs, Ks, Vs, "the scores Q Kᵀ overflow float64: scale Q, K or log_c down")


@rng_keyword(2, ("rng", "threshold"))
def approximate_oracle(eps: float, mode: str = "adversarial", *, rng: SeedLike = None,
                       threshold: float = 0.5) -> Oracle:
    r"""An ε-approximate attention oracle: exact attention (inverse temperature 1) plus an entrywise error ≤ ε.

    Parameters
    ----------
    eps : float
        The error bound, finite, >= 0.
    mode : {"adversarial", "random", "exact"}
        ``"adversarial"`` moves every output by ε towards ``threshold`` (the worst case for a decoder that
        compares with it; an output equal to the threshold is left alone); ``"random"`` adds independent uniform
        noise in [−ε, ε] drawn from ``rng``; ``"exact"`` adds nothing.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Needed for ``mode="random"`` (ignored otherwise).
    threshold : float
        The decision threshold the adversary aims at, finite (default 1/2, the sentinel's).

    Returns
    -------
    callable
        ``oracle(Q, K, V) -> O``: O of shape (L_q, d_v), within ε of ``attention(Q, K, V, beta=1.0)`` entrywise.

    Raises
    ------
    TypeError
        ``eps`` or ``threshold`` not a real number, ``mode`` not a string, ``rng`` not a
        ``numpy.random.Generator`` when ``mode="random"``.
    ValueError
        ``eps`` negative or not finite, ``threshold`` not finite, unknown ``mode``, ``mode="random"`` without ``rng``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import approximate_oracle
    >>> oracle = approximate_oracle(0.1)
    >>> oracle(np.zeros((1, 1)), np.zeros((3, 1)), np.array([[1.0], [1.0], [0.0]]))   # exact 2/3, moved to 1/2
    array([[0.56666667]])
    """
    eps = real(eps, "eps", lo=0.0)
    threshold = finite_real(threshold, "threshold")
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, not {type(mode).__name__}")
    if mode not in ("adversarial", "random", "exact"):
        raise ValueError(f"mode must be 'adversarial', 'random' or 'exact', got {mode!r}")
    if mode == "random":
        if rng is None:
            raise ValueError("mode='random' needs rng (a seed or a numpy.random.Generator: the oracle must be "
                             "reproducible)")
        rng = as_generator(rng)

    def oracle(Q, K, V):
        O = attention(Q, K, V, beta=1.0)
        xp = get_array_module(O)
        if mode == "adversarial":
            return O - eps * xp.sign(O - threshold)
        if mode == "random":
            return O + eps * (2 * rng.random(O.shape) - 1)
        return O

    return oracle


def _log_search(Q, K, eta, B, oracle, bound_name: str, spread: bool = False) -> RowsumSearchInfo:
    """The parallel binary search of :func:`rowsum_search` with validated inputs; ``log_S_hat`` is in the result."""
    Q, K = _qk(Q, K)
    eta = in_open_interval(eta, 0.0, 1.0, "eta")
    oracle = _oracle(oracle)
    xp = get_array_module(Q)
    n, d = Q.shape
    if B is None:
        B = max(float(xp.abs(Q).max()), float(xp.abs(K).max()), 1e-12)
    else:
        B = positive_real(B, "B")
        if B < float(xp.abs(Q).max()) or B < float(xp.abs(K).max()):
            raise ValueError(f"B must bound every entry of Q and K, got B = {B:g} < max |entry| = "
                             f"{max(float(xp.abs(Q).max()), float(xp.abs(K).max())):g}")
    step = math.log1p(eta)
    top = d * B * B
    if not top / step < 2.0 ** 60:  # the grid of exponents must fit in int64 (and ln c in float64)
        raise ValueError(f"{bound_name} is too large: the grid of c = (1 + eta)^f up to e^(d·B²) = e^{top:.3g} "
                         f"does not fit in int64 exponents; scale it down or raise eta")
    lo = xp.full(n, math.floor(-top / step) - 1, dtype=xp.int64)           # S > c(lo) certainly
    hi = xp.full(n, math.ceil((math.log(K.shape[0]) + top) / step) + 1, dtype=xp.int64)  # S < c(hi)
    rounds, max_logc, width, entry = 0, 0.0, d + 1, 0.0
    while bool((hi - lo > 1).any()):
        mid = (lo + hi) // 2
        log_c = mid.astype(xp.float64) * step
        max_logc = max(max_logc, float(xp.abs(log_c).max()))
        if spread:
            Qs, Ks, _ = sentinel_instance(Q, K, log_c, B)
            width = max(width, Qs.shape[1])
            entry = max(entry, float(xp.abs(Qs).max()), float(xp.abs(Ks).max()))
        above = sentinel_attention(Q, K, log_c, oracle, B if spread else None) >= 0.5
        lo = xp.where(above, mid, lo)
        hi = xp.where(above, hi, mid)
        rounds += 1
    if not spread:   # the printed gadget: Q, K, the appended ln c and the sentinel key's 1
        entry = max(float(xp.abs(Q).max()), float(xp.abs(K).max()), max_logc, 1.0)
    log_S_hat = (lo + hi).astype(xp.float64) * step / 2
    return RowsumSearchInfo(rounds=rounds, max_abs_log_c=max_logc, B=B, d=d, n_keys=int(K.shape[0]),
                            log_S_hat=log_S_hat, max_width=width, max_abs_entry=entry)


@former_dict
class RowsumSearchInfo(NamedTuple):
    r"""How :func:`rowsum_search` ran: the ``info`` of its :class:`RowsumSearch` (formerly a dict).

    Attributes
    ----------
    rounds : int
        Attention (or oracle) calls made.
    max_abs_log_c : float
        The largest :math:`|\ln c_i|` appended.
    B : float
        The entry bound used.
    d : int
        The width of Q and K.
    n_keys : int
        The number of keys m.
    log_S_hat : array, shape (n,)
        :math:`\ln\hat S_i`, always finite.
    max_width : int
        The widest instance passed to the oracle.
    max_abs_entry : float
        Its largest query or key entry (the printed gadget's sentinel key holds a 1).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rowsum_search
    >>> info = rowsum_search(np.zeros((2, 1)), np.zeros((3, 1)), eta=0.1).info
    >>> info.d, info.n_keys, info.max_width
    (1, 3, 2)
    """

    rounds: int
    max_abs_log_c: float
    B: float
    d: int
    n_keys: int
    log_S_hat: Array
    max_width: int
    max_abs_entry: float


class RowsumSearch(NamedTuple):
    r"""The result of :func:`rowsum_search`: the row sums found, and how the search ran.

    Attributes
    ----------
    S_hat : array, shape (n,)
        The estimate of every row sum :math:`S_i = \sum_j e^{Q_i\cdot K_j}`.
    info : RowsumSearchInfo
        The calls made, the sizes of the instances and :math:`\ln\hat S`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rowsum_search
    >>> S_hat, info = rowsum_search(np.zeros((2, 1)), np.zeros((3, 1)), eta=0.1)
    >>> bool(np.all(np.abs(S_hat / 3 - 1) < 0.21)), info.rounds > 0
    (True, True)
    """

    S_hat: Array
    info: RowsumSearchInfo


def rowsum_search(Q: ArrayLike, K: ArrayLike, eta: float, B: float | None = None, oracle: Oracle | None = None,
                  spread: bool = False) -> RowsumSearch:
    r"""Relative approximation of every row sum :math:`S_i=\sum_j e^{Q_i\cdot K_j}` by parallel binary search.

    Over the grid :math:`c = (1+\eta)^f`, f integer in the range allowed by :math:`|Q_i\cdot K_j|\le dB^2`,
    each round makes **one** attention (or oracle) call on :func:`sentinel_instance` and moves every row's
    bracket by the sign of :math:`o_i - 1/2`. With an oracle error below about η/8 the result is within a
    factor :math:`(1+\eta)^2` of :math:`S_i`.

    Parameters
    ----------
    Q : array, shape (n, d)
        Queries, finite, real (NumPy or CuPy).
    K : array, shape (m, d)
        Keys, same width.
    eta : float
        Relative resolution of the grid, in (0, 1).
    B : float, optional
        Bound on every entry of ``Q`` and ``K`` (finite, > 0, at least max|entry|); default max(max|Q|, max|K|).
    oracle : callable, optional
        ``oracle(Q', K', V')`` standing for attention (see :func:`sentinel_attention`); default exact attention.
    spread : bool, optional
        False (default): the printed gadget, one appended coordinate :math:`\ln c` of size up to
        :math:`\ln m + dB^2`. True: every call uses the spread instance of :func:`sentinel_instance`, whose
        entries stay within ``B`` at the cost of at most :math:`\lceil(\ln m + dB^2 + 2\ln(1+\eta))/B^2\rceil`
        extra coordinates; the answers are the same.

    Returns
    -------
    RowsumSearch
        ``S_hat`` (n,): the geometric midpoint of each row's last bracket (a sum beyond float64 gives inf with a
        ``RuntimeWarning``: ``info.log_S_hat`` holds its logarithm, always finite); ``info``, a
        :class:`RowsumSearchInfo`: ``rounds`` (attention calls made), ``max_abs_log_c`` (largest
        :math:`|\ln c_i|` appended), ``B``, ``d``, ``n_keys``, ``log_S_hat``, ``max_width`` (the widest instance
        passed to the oracle) and ``max_abs_entry`` (its largest query or key entry; the printed gadget's sentinel
        key holds a 1).

    Raises
    ------
    TypeError
        Non-array ``Q``/``K``, non-real ``eta`` or ``B``, non-callable ``oracle``.
    ValueError
        As :func:`sentinel_instance`; ``eta`` outside (0, 1); ``B`` <= 0, not finite, below max|entry|, or so
        large (d·B² beyond about 2⁶⁰·η) that the grid of exponents overflows; an oracle output of the wrong
        shape or not finite; ``spread`` not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rowsum_search
    >>> rng = np.random.default_rng(0)
    >>> Q, K = rng.standard_normal((5, 2)), rng.standard_normal((7, 2))
    >>> S_hat, info = rowsum_search(Q, K, eta=0.01)
    >>> S = np.exp(Q @ K.T).sum(axis=1)
    >>> bool(np.all(np.abs(np.log(S_hat / S)) <= np.log(1.01))), info.rounds
    (True, 12)
    """
    if not isinstance(spread, (bool, np.bool_)):
        raise TypeError(f"spread must be a bool, not {type(spread).__name__}")
    info = _log_search(Q, K, eta, B, oracle, "B", bool(spread))
    xp = get_array_module(info.log_S_hat)
    with np.errstate(over="ignore"):
        S_hat = xp.exp(info.log_S_hat)
    if not bool(xp.isfinite(S_hat).all()):
        warnings.warn("rowsum_search: some row sums exceed float64 and are returned as inf; "
                      "info.log_S_hat holds their logarithms", RuntimeWarning, stacklevel=2)
    return RowsumSearch(S_hat, info)


# --------------------------------------------------------------------------- integer Max-IP (Lemma 5.3)
class MaxIPInstance(NamedTuple):
    r"""The Max-IP instance of Lemma 5.3: the result of :func:`maxip_instance`.

    Attributes
    ----------
    Q : array, shape (n, d)
        ``C0 * A`` (float64).
    K : array, shape (m, d)
        ``Bv`` (float64).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import maxip_instance
    >>> inst = maxip_instance(np.array([[1, 2]]), np.array([[0, 1]]), C0=3.0)
    >>> inst.Q.tolist(), inst.K.tolist()
    ([[3.0, 6.0]], [[0.0, 1.0]])
    """

    Q: Array
    K: Array


def maxip_instance(A: ArrayLike, Bv: ArrayLike, C0: float) -> MaxIPInstance:
    r"""The instance of Lemma 5.3: :math:`Q = C_0A`, :math:`K = B` for integer vectors, scores :math:`C_0 a_i\cdot b_j`.

    Parameters
    ----------
    A : array, shape (n, d)
        Integer-valued rows :math:`a_i` (any real dtype holding integers).
    Bv : array, shape (m, d)
        Integer-valued rows :math:`b_j`.
    C0 : float
        Score scale, finite, > 0.

    Returns
    -------
    MaxIPInstance
        ``Q`` (n, d): ``C0 * A``; ``K`` (m, d): ``Bv``; float64.

    Raises
    ------
    TypeError
        Non-array ``A``/``Bv``, non-real ``C0``.
    ValueError
        Not 2-D, empty, different widths, non-integer or non-finite entries, ``C0`` <= 0 or not finite,
        ``C0 * A`` beyond float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import maxip_instance
    >>> Q, K = maxip_instance(np.array([[1, -2]]), np.array([[3, 0]]), C0=2.0)
    >>> Q.tolist(), K.tolist()
    ([[2.0, -4.0]], [[3.0, 0.0]])
    """
    A, Bv = _qk(A, Bv, ("A", "Bv"))
    C0 = positive_real(C0, "C0")
    if not (bool((A == np.round(A)).all()) and bool((Bv == np.round(Bv)).all())):
        raise ValueError("A and Bv must have integer entries")
    with np.errstate(over="ignore"):
        Q = C0 * A
    if not bool(np.isfinite(Q).all()):
        raise ValueError(f"C0 * A overflows float64: scale C0 = {C0:g} down")
    return MaxIPInstance(Q, Bv)


def maxip_decode(A: ArrayLike, Bv: ArrayLike, C0: float, eta: float = 0.01, oracle: Oracle | None = None) -> Array:
    r"""Max-IP from attention: :math:`\hat M_i = \mathrm{round}(\ln\hat S_i / C_0)`, one value per row of A.

    :math:`\hat S` comes from :func:`rowsum_search` on :func:`maxip_instance`. Since
    :math:`e^{C_0M_i}\le S_i\le m\,e^{C_0M_i}`, the decoding is exact when :math:`\ln m / C_0` plus the search's
    error :math:`2\ln(1+\eta)/C_0` stays below 1/2: :math:`C_0` must grow like :math:`2\ln m`.

    Parameters
    ----------
    A, Bv, C0
        As in :func:`maxip_instance`.
    eta : float
        Resolution of the search, in (0, 1).
    oracle : callable, optional
        As in :func:`rowsum_search`.

    Returns
    -------
    array of int64, shape (n,)
        :math:`\hat M_i`, the decoded :math:`\max_j a_i\cdot b_j`.

    Raises
    ------
    TypeError, ValueError
        As :func:`maxip_instance` and :func:`rowsum_search` (a grid that overflows names ``C0``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import maxip_decode
    >>> A = np.array([[1, 0], [1, 1]]); Bv = np.array([[2, -1], [0, 1]])
    >>> maxip_decode(A, Bv, C0=8.0).tolist()
    [2, 1]
    """
    Q, K = maxip_instance(A, Bv, C0)
    log_S_hat = _log_search(Q, K, eta, None, oracle, "C0 (times the entries of A and Bv)").log_S_hat
    xp = get_array_module(Q)
    return xp.rint(log_S_hat / C0).astype(xp.int64)


# --------------------------------------------------------------------------- orthogonal vectors (Eq. (5))
def ov_instance(A: ArrayLike, Bv: ArrayLike, c: float = 0.5) -> SentinelInstance:
    r"""The orthogonal-vectors instance of Eq. (5), with :math:`k = 1/(10m)`, plus the sentinel at ``c``.

    Scores :math:`-\ln(10m)\,a_i\cdot b_j`, i.e. :math:`Q = -\sqrt{\ln(10m)}A`, :math:`K = \sqrt{\ln(10m)}B`
    (entries :math:`O(\sqrt{\log m})`), so :math:`S_i = \#\{j: a_i\perp b_j\} + \sum_{a_i\cdot b_j\ge 1}
    (10m)^{-a_i\cdot b_j}`: at least 1 with an orthogonal partner, at most 1/10 without.

    Parameters
    ----------
    A : array, shape (n, d)
        0/1 rows :math:`a_i`.
    Bv : array, shape (m, d)
        0/1 rows :math:`b_j`.
    c : float
        The sentinel's weight, finite, > 0 (1/2 separates 1/6 from 2/3).

    Returns
    -------
    SentinelInstance
        The :func:`sentinel_instance` of the scaled sets: ``Q`` (n, d + 1), ``K`` (m + 1, d + 1), ``V`` (m + 1, 1).

    Raises
    ------
    TypeError
        Non-array ``A``/``Bv``, non-real ``c``.
    ValueError
        Not 2-D, empty, different widths, entries other than 0 and 1, ``c`` <= 0 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import ov_instance
    >>> Qs, Ks, Vs = ov_instance(np.array([[1, 0]]), np.array([[0, 1], [1, 1]]))
    >>> Qs.shape, Ks.shape, Vs.shape
    ((1, 3), (3, 3), (3, 1))
    """
    A, Bv = _binary(A, Bv)
    c = positive_real(c, "c")
    n = Bv.shape[0]
    s = math.sqrt(math.log(10 * n))
    return sentinel_instance(-s * A, s * Bv, np.full(A.shape[0], math.log(c)))


class OVDecision(NamedTuple):
    r"""The orthogonal-vectors gadget's outputs and decisions: the result of :func:`ov_decode`.

    Attributes
    ----------
    o : array, shape (n,)
        The gadget's outputs :math:`o_i`.
    decision : array of bool, shape (n,)
        :math:`o_i > 5/12`: row i has an orthogonal partner.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import ov_decode
    >>> res = ov_decode(np.array([[1, 0]]), np.array([[0, 1]]))
    >>> res.decision.tolist()
    [True]
    """

    o: Array
    decision: Array


def ov_decode(A: ArrayLike, Bv: ArrayLike, oracle: Oracle | None = None) -> OVDecision:
    r"""The OV gadget's outputs :math:`o_i` and the decision :math:`o_i > 5/12` (an orthogonal partner exists).

    With exact attention :math:`o_i \le 1/6` without an orthogonal partner and :math:`o_i\ge 2/3` with one,
    so the decision is right for any oracle error below 1/4.

    Parameters
    ----------
    A, Bv
        As in :func:`ov_instance`.
    oracle : callable, optional
        As in :func:`sentinel_attention`.

    Returns
    -------
    OVDecision
        ``o`` (n,): the gadget's outputs; ``decision`` (n,), bool: ``o > 5/12``.

    Raises
    ------
    TypeError, ValueError
        As :func:`ov_instance` and :func:`sentinel_attention` (``oracle``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import ov_decode
    >>> A = np.array([[1, 0], [1, 1]]); Bv = np.array([[0, 1], [1, 1]])
    >>> o, found = ov_decode(A, Bv)
    >>> found.tolist(), bool(o[0] >= 2 / 3), bool(o[1] <= 1 / 6)
    ([True, False], True, True)
    """
    oracle = _oracle(oracle)
    Qs, Ks, Vs = ov_instance(A, Bv)
    o = _run(oracle, Qs, Ks, Vs, "the OV scores overflow float64")
    return OVDecision(o, o > 5 / 12)


# --------------------------------------------------------------------------- parity (Thm 5.7)
class ParityInstance(NamedTuple):
    r"""The parity instance of Thm 5.7: the result of :func:`parity_instance`.

    Attributes
    ----------
    Q : array, shape (n, c·d)
        ``scale`` times ``copies`` copies of A side by side.
    K : array, shape (m, c·d)
        The same of Bv.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import parity_instance
    >>> parity_instance(np.array([[1, 0]]), np.array([[1, 1]]), 0.5, copies=2).Q.tolist()
    [[0.5, 0.0, 0.5, 0.0]]
    """

    Q: Array
    K: Array


def parity_instance(A: ArrayLike, Bv: ArrayLike, scale: float, copies: int = 1) -> ParityInstance:
    r"""The parity instance of Thm 5.7: :math:`Q = s[A,\dots,A]`, :math:`K = s[B,\dots,B]` (``copies`` copies of
    every coordinate), scores :math:`c\,s^2\,a_i\cdot b_j` with c = ``copies``.

    The theorem needs :math:`e^{cs^2} = 2`. With one copy that is :math:`s = \sqrt{\ln 2}\approx 0.833`, above the
    stated entry bound :math:`\ln 2`; the printed :math:`s = \ln 2` gives :math:`e^{(\ln 2)^2}\approx 1.617`.
    With two copies, :math:`s = \sqrt{\ln 2/2}\approx 0.589 < \ln 2` gives
    :math:`e^{QK^\top} = 2^{AB^\top}` exactly within the bound, at twice the width (still :math:`O(\log n)`).

    Parameters
    ----------
    A : array, shape (n, d)
        0/1 rows.
    Bv : array, shape (m, d)
        0/1 rows.
    scale : float
        :math:`s`, finite, > 0.
    copies : int, optional
        How many times each coordinate is repeated, >= 1 (default 1: the printed instance).

    Returns
    -------
    ParityInstance
        ``Q`` (n, c·d) and ``K`` (m, c·d).

    Raises
    ------
    TypeError
        Non-array ``A``/``Bv``, non-real ``scale``, non-integer ``copies``.
    ValueError
        Not 2-D, empty, different widths, entries other than 0 and 1, ``scale`` <= 0 or not finite,
        ``copies`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import parity_instance
    >>> Q, K = parity_instance(np.array([[1, 1]]), np.array([[1, 0]]), np.sqrt(np.log(2)))
    >>> round(float(np.exp(Q @ K.T)[0, 0]), 12)      # e^{s² a·b} = 2^{a·b}
    2.0
    >>> Q, K = parity_instance(np.array([[1, 1]]), np.array([[1, 0]]), np.sqrt(np.log(2) / 2), copies=2)
    >>> Q.shape, bool(Q.max() < np.log(2)), round(float(np.exp(Q @ K.T)[0, 0]), 12)
    ((1, 4), True, 2.0)
    """
    A, Bv = _binary(A, Bv)
    scale = positive_real(scale, "scale")
    copies = positive_int(copies, "copies")
    return ParityInstance(scale * np.tile(A, copies), scale * np.tile(Bv, copies))


@rng_keyword(4, ("rng", "copies"))
def parity_decode(A: ArrayLike, Bv: ArrayLike, scale: float, rounds: int, *, rng: SeedLike = None,
                  copies: int = 1) -> np.ndarray:
    r"""Decide per row whether an orthogonal partner exists from the parity of :math:`\mathrm{round}(S_i)`.

    Each of ``rounds`` rounds keeps a uniformly random half of the keys, reads :math:`S_i = o_i/(1-o_i)` from the
    sentinel gadget at :math:`c_i = 1` (exact attention) on :func:`parity_instance`, and records whether
    :math:`\mathrm{round}(S_i)` is odd. With :math:`c\,s^2 = \ln 2` (c = ``copies``),
    :math:`S_i = \sum_j 2^{a_i\cdot b_j}` is an integer whose parity is that of the number of orthogonal keys kept,
    so a row with a partner shows an odd parity with probability 1/2 per round and a row without never does.
    The sentinel at :math:`c_i = 1` has score 0, so its key may be the zero vector: no entry beyond ``scale``.

    Parameters
    ----------
    A, Bv, scale, copies
        As in :func:`parity_instance`.
    rounds : int
        Number of random halves, >= 1.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of the random halves.

    Returns
    -------
    array of bool, shape (n,)
        True where some round saw an odd parity.

    Raises
    ------
    TypeError
        As :func:`parity_instance`; ``rounds`` not an integer; ``rng`` not a ``numpy.random.Generator``.
    ValueError
        As :func:`parity_instance`; ``rounds`` < 1; row sums above 2²⁴, which the sentinel output cannot
        return as exact integers in float64 (``scale`` too large for these sets).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import parity_decode
    >>> A = np.array([[1, 0, 0], [1, 1, 1]]); Bv = np.array([[0, 1, 1], [1, 1, 0], [1, 0, 1]])
    >>> parity_decode(A, Bv, np.sqrt(np.log(2)), rounds=20, rng=np.random.default_rng(0)).tolist()
    [True, False]
    """
    rounds = positive_int(rounds, "rounds")
    rng = as_generator(rng)
    Q, K = parity_instance(A, Bv, scale, copies)
    found = np.zeros(Q.shape[0], bool)
    for _ in range(rounds):
        keep = rng.random(K.shape[0]) < 0.5
        if not keep.any():
            continue
        o = sentinel_attention(Q, K[keep], np.zeros(Q.shape[0]))
        with np.errstate(divide="ignore"):
            S = o / (1 - o)
        if not bool((S <= 2.0 ** 24).all()):
            raise ValueError(f"scale = {scale:g} is too large for these sets: row sums above 2^24 cannot be read "
                             f"back as exact integers from the sentinel output")
        found |= (np.rint(S).astype(np.int64) % 2) == 1
    return found


# --------------------------------------------------------------------------- low rank (Thm 1.4)
class OneSidedFactorisation(NamedTuple):
    r"""Queries and keys of width r with the same scores: the result of :func:`one_sided_factorisation`.

    Attributes
    ----------
    Qp : array, shape (n, r)
        :math:`Q' = U_Q\Sigma` (its first r columns).
    Kp : array, shape (m, r)
        :math:`K' = KV_Q`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import one_sided_factorisation
    >>> Q, K = np.array([[1.0, 1.0], [2.0, 2.0]]), np.eye(2)
    >>> res = one_sided_factorisation(Q, K)
    >>> res.Qp.shape, bool(np.allclose(res.Qp @ res.Kp.T, Q @ K.T))
    ((2, 1), True)
    """

    Qp: Array
    Kp: Array


def one_sided_factorisation(Q: ArrayLike, K: ArrayLike, r: int | None = None) -> OneSidedFactorisation:
    r"""Reduce the width to the rank of Q: :math:`Q = U_Q\Sigma V_Q^\top`, :math:`Q' = U_Q\Sigma`, :math:`K' = KV_Q`.

    Then :math:`Q'K'^\top = QK^\top` exactly when ``r`` is at least the rank of Q (Thm 1.4, corrected form), so
    attention on (Q', K', V) equals attention on (Q, K, V) at every temperature. The value matrix keeps its width.

    Parameters
    ----------
    Q : array, shape (n, d)
        Queries, finite, real (NumPy or CuPy).
    K : array, shape (m, d)
        Keys, same width.
    r : int, optional
        Width kept, 1 <= r <= min(n, d); default the numerical rank of Q (singular values above
        :math:`\sigma_1\max(n, d)\,\epsilon_{64}`; 1 for Q = 0).

    Returns
    -------
    OneSidedFactorisation
        ``Qp`` (n, r) and ``Kp`` (m, r).

    Raises
    ------
    TypeError
        Non-array ``Q``/``K``; ``r`` not an integer.
    ValueError
        Not 2-D, empty, different widths, NaN/inf entries; ``r`` < 1 or > min(n, d).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import one_sided_factorisation
    >>> rng = np.random.default_rng(0)
    >>> Q = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5)); K = rng.standard_normal((7, 5))
    >>> Qp, Kp = one_sided_factorisation(Q, K)
    >>> Qp.shape, bool(np.allclose(Qp @ Kp.T, Q @ K.T))
    ((6, 2), True)
    """
    Q, K = _qk(Q, K)
    if r is not None:
        r = positive_int(r, "r")
        if r > min(Q.shape):
            raise ValueError(f"r must be at most min(n, d) = {min(Q.shape)} for Q of shape {tuple(Q.shape)}, got {r}")
    xp = get_array_module(Q)
    U, s, Vt = xp.linalg.svd(Q, full_matrices=False)
    if r is None:
        r = int((s > s[0] * max(Q.shape) * np.finfo(float).eps).sum()) if s.size and s[0] > 0 else 1
    UQ = U[:, :r] * s[:r]
    VQ = Vt[:r].T
    return OneSidedFactorisation(UQ, K @ VQ)


# --------------------------------------------------------------------------- temperature
class TemperatureAbsorbed(NamedTuple):
    r"""Attention at temperature T computed two ways: the result of :func:`temperature_absorbed`.

    Attributes
    ----------
    direct : array, shape (L_q, d_v)
        :math:`\mathrm{softmax}(QK^\top/T)V` at ``beta = 1/T``.
    absorbed : array, shape (L_q, d_v)
        The same with :math:`Q/\sqrt T`, :math:`K/\sqrt T` at ``beta = 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import temperature_absorbed
    >>> res = temperature_absorbed(np.eye(2), np.eye(2), np.eye(2), T=0.5)
    >>> bool(np.allclose(res.direct, res.absorbed))
    True
    """

    direct: Array
    absorbed: Array


def temperature_absorbed(Q: ArrayLike, K: ArrayLike, V: ArrayLike, T: float) -> TemperatureAbsorbed:
    r""":math:`\mathrm{softmax}(QK^\top/T)V` computed two ways: at ``beta = 1/T``, and with :math:`Q/\sqrt T`,
    :math:`K/\sqrt T` at ``beta = 1`` (the temperature moved into the inputs, whose entries grow by
    :math:`1/\sqrt T`).

    Parameters
    ----------
    Q : array, shape (L_q, d)
    K : array, shape (L_k, d)
    V : array, shape (L_k, d_v)
        As in :func:`attnlab.attention`.
    T : float
        Temperature, finite, > 0.

    Returns
    -------
    TemperatureAbsorbed
        ``direct`` and ``absorbed``, shape (L_q, d_v), equal up to rounding.

    Raises
    ------
    TypeError
        Non-array ``Q``/``K``/``V``, non-real ``T``.
    ValueError
        As :func:`attnlab.attention`; ``T`` <= 0 or not finite; ``T`` so small that 1/T, :math:`Q/\sqrt T` or the
        scores :math:`QK^\top/T` overflow float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import temperature_absorbed
    >>> Q = K = np.eye(2); V = np.array([[1.0], [0.0]])
    >>> direct, absorbed = temperature_absorbed(Q, K, V, T=1 / np.log(3.0))
    >>> direct.ravel().round(12).tolist(), bool(np.allclose(direct, absorbed))
    ([0.75, 0.25], True)
    """
    Q, K, V = qkv(Q, K, V)
    T = positive_real(T, "T")
    with np.errstate(over="ignore"):
        beta, root = 1.0 / T, math.sqrt(T)
    if not math.isfinite(beta):
        raise ValueError(f"T = {T:g} is too small: 1/T overflows float64")
    try:
        direct = attention(Q, K, V, beta=beta)
        with np.errstate(over="ignore"):
            absorbed = attention(Q / root, K / root, V, beta=1.0)
    except ValueError as exc:  # Q/√T or the scores beyond float64
        raise ValueError(f"T = {T:g} is too small for these Q and K: the scores QKᵀ/T overflow float64 ({exc})") \
            from exc
    xp = get_array_module(direct)
    if not (bool(xp.isfinite(direct).all()) and bool(xp.isfinite(absorbed).all())):
        raise ValueError(f"T = {T:g} is too small for these Q and K: the scores QKᵀ/T overflow float64")
    return TemperatureAbsorbed(direct, absorbed)
