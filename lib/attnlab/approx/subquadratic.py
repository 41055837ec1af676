r"""Softmax attention at any temperature in near-linear time: one dimension, a Gauss-transform route, and d = 2.

For scores :math:`s_{ij} = q_i k_j` (the convention of the any-temperature notes on Gupta et al., 2025: no
:math:`1/\sqrt d`) the output :math:`o_i = \sum_j e^{s_{ij}} v_j / \sum_j e^{s_{ij}}` is wanted to an *absolute* error
``eps`` in every entry, whatever the size of the scores.

- :func:`attention_1d` (d = 1) follows Algorithm 1 of the notes (sort the keys; keep the keys within
  :math:`L = \log(n/\eta)` of the row maximum; shift by that maximum; replace :math:`e^x` on the window by a
  polynomial of degree :math:`O(\log(n/\eta))`), with the polynomial taken in the *query*: for :math:`q > 0`
  the shifted row is the Laplace transform :math:`F(q) = \sum_j e^{-q u_j} v_j`, :math:`u_j = k_{\max} - k_j \ge 0`,
  and on each dyadic band of queries :math:`[Q, 2Q]` it is interpolated at :math:`g + 1` Chebyshev nodes from
  exact sums over the keys with :math:`u_j \le L/Q` (a prefix of the sorted keys). Every quantity is a sum of
  positive weights bounded by 1, so nothing cancels; the time is :math:`O((n + n_q)\,g\cdot\#\text{bands})`
  with :math:`\#\text{bands} \le \log_2(\max|q|\,(k_{\max}-k_{\min})/L) + 2`.
- :func:`attention_gauss_1d` writes :math:`e^{qk} = e^{q^2/2} e^{k^2/2} e^{-(q-k)^2/2}` and evaluates the discrete
  Gauss transform with Hermite expansions about boxes of keys (the fast Gauss transform). Its degree grows with
  :math:`B^2`, so it is only practical at high temperature.
- :func:`attention_2d` answers d = 2 with a k-d tree whose nodes hold Taylor moments: nodes entirely outside the
  relevant halfspace :math:`\{k : q\cdot k \ge m_q - L\}` are dropped, small nodes are summed from their moments,
  leaves exactly.
- :func:`attention_halfspace` (any fixed d) is the reduction of the notes' Thm 1.3 (Algorithm 2) over any halfspace
  range-sum oracle (a brute-force one, :class:`BruteForceHalfspaceOracle`, by default): a binary search of counting
  queries for the grid maximum, one halfspace and :math:`\binom{g+d}{d}(d_v+1)` weighted sums of the multinomial
  expansion per query; the calls are counted (:func:`attention_halfspace_plan`). Its float64 expansion cancels once
  the scores pass a few units, and it refuses there.
- :func:`attention_1d_count` gives the exact operation counts of an :func:`attention_1d` call;
  :func:`attention_1d_counted` and :func:`attention_halfspace_counted` compute a call and count it.

Error accounting (all three): the kept weights are :math:`w_j (1 + \delta_j)` with :math:`|\delta_j| \le \eta`
(or an absolute error :math:`\le \eta/n` after the shift), the dropped mass is :math:`\le n e^{-L} = \eta` while
the row maximum contributes 1, so every output entry is within :math:`\le 2.25\,\eta R` of exact attention,
where :math:`R` is the largest range :math:`\max_j v_{jt} - \min_j v_{jt}` of a value column; the functions take
:math:`\eta = \varepsilon'/(5R)` with :math:`\varepsilon'` = ``eps`` less the rounding of the output dtype.
"""
from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy import special

from numpy.typing import ArrayLike
from ..core._results import former_dict
from ..core._validate import Array
from ..core._validate import flag, integer, namespace_of, positive_int, positive_real, real, real_array

__all__ = ["attention_1d", "attention_1d_plan", "Attention1dPlan", "attention_1d_count", "Attention1dCount",
           "attention_1d_counted", "CountedAttention", "attention_halfspace", "attention_halfspace_plan",
           "AttentionHalfspacePlan", "attention_halfspace_counted", "HalfspaceCount", "BruteForceHalfspaceOracle",
           "attention_gauss_1d", "attention_2d", "band_degree", "attention_1d_at", "exp_poly_degree", "GridMax",
           "grid_max_search"]

_F32_UNIT = 2.0**-24  # unit roundoff of float32
_F64_UNIT = 2.0**-53  # unit roundoff of float64


# ----------------------------------------------------------------------------------------------------------------
# validation


def _is_numpy(xp):
    from array_api_compat import is_numpy_namespace  # noqa: PLC0415

    return is_numpy_namespace(xp)


def _real_array(x, name, xp, ndims):
    """``x`` checked by the library's policy (:func:`attnlab.core._validate.real_array`), then in float64."""
    x = real_array(x, name, xp, ndim=ndims, nonempty=True)
    return xp.astype(x, xp.float64)


def _eps(eps):
    return positive_real(eps, "eps")


def _out_dtype(xp, *arrays):
    """float32 when every input is float16/float32 (computed in float64, returned in float32), else float64."""
    if all(xp.isdtype(a.dtype, "real floating") and a.dtype != xp.float64 for a in arrays):
        return xp.float32
    return xp.float64


def _budget(eps, vmax_abs, out32, name="eps", v_range=0.0):
    r"""The algorithm's share of eps once the output's rounding is set aside.

    float32 output: :math:`2^{-24}\max|v|`. float64 output: :math:`2^{-53}(\max|v| + 16R)`, the rounding of an
    output of size up to max|v| (the values are centred first, so the work itself rounds only at the scale of the
    range R of a value column). ``eps`` must exceed twice the rounding: else a ValueError, never a silent miss."""
    if out32:
        rounding = _F32_UNIT * vmax_abs
        if eps <= 2 * rounding:
            raise ValueError(f"{name}={eps:g} is below twice the float32 rounding of the output ({rounding:.3g} for "
                             f"max|v| = {vmax_abs:.3g}); pass float64 arrays for a smaller {name}")
    else:
        rounding = _F64_UNIT * (vmax_abs + 16 * v_range)
        if eps <= 2 * rounding:
            raise ValueError(f"{name}={eps:g} is below twice the float64 rounding of the output ({rounding:.3g} for "
                             f"max|v| = {vmax_abs:.3g}): no float64 result can be that close to exact attention")
    return eps - rounding


def _inputs(q, k, v, eps, qdim=1):
    xp = namespace_of(q=q, k=k, v=v)
    eps = _eps(eps)
    q = real_array(q, "q", xp, ndim=qdim, nonempty=True)
    k = real_array(k, "k", xp, ndim=qdim, nonempty=True)
    v = real_array(v, "v", xp, ndim=(1, 2), nonempty=True)
    q64, k64, v64 = (xp.astype(a, xp.float64) for a in (q, k, v))
    if k64.shape[0] != v64.shape[0]:
        raise ValueError(f"k and v must have the same number of rows, got {k64.shape[0]} and {v64.shape[0]}")
    if qdim == 2 and q64.shape[1] != k64.shape[1]:
        raise ValueError(f"q and k must have the same width, got {q64.shape[1]} and {k64.shape[1]}")
    out_dtype = _out_dtype(xp, q, k, v)
    vec = v64.ndim == 1
    V = xp.reshape(v64, (v64.shape[0], 1)) if vec else v64
    return xp, eps, q64, k64, V, vec, out_dtype


def _no_overflow(q, k):
    """The routes that form q·k (or q²) need the products finite in float64: else a ValueError, never NaN."""
    qmax, kmax = float(np.max(np.abs(q))), float(np.max(np.abs(k)))
    if max(qmax, kmax) > 1e150 or qmax * kmax * max(q.shape[-1] if q.ndim == 2 else 1, 1) > 1e300:
        raise ValueError("q and k are so large that their scores (or squares) overflow float64; "
                         "attention_1d handles any finite q and k in one dimension")


def _finish(xp, O, vec, out_dtype):
    O = xp.astype(O, out_dtype)
    return O[:, 0] if vec else O


def _value_range(xp, V):
    return float(xp.max(xp.max(V, axis=0) - xp.min(V, axis=0))), float(xp.max(xp.abs(V)))


# ----------------------------------------------------------------------------------------------------------------
# one dimension: Chebyshev interpolation in the query


@functools.lru_cache(maxsize=256)
def _degree(L: float, tol: float) -> int:
    r"""Smallest g with :math:`4\sum_{a>g} I_a(z)e^{-z} \le tol` for every z in [0, L/2] (Chebyshev interpolation
    of :math:`e^{-qu}` on a band; the sum is the two-sided tail of a Skellam law with variance z)."""
    zmax = L / 2
    amax = int(4 * zmax + 12 * math.sqrt(zmax + 1) + 60)
    a = np.arange(amax + 1)
    z = np.linspace(0.0, zmax, 129)[:, None]
    terms = special.ive(a[None, :], z)
    tail = 4 * (np.cumsum(terms[:, ::-1], axis=1)[:, ::-1] - terms)  # 4·Σ_{a' > a}
    worst = tail.max(axis=0)
    ok = np.nonzero(worst <= tol / 2)[0]  # a factor 2 of margin for the grid in z
    if ok.size == 0:  # pragma: no cover - amax is generous
        raise RuntimeError("degree search exhausted")
    return max(int(ok[0]), 1)


@former_dict
class Attention1dPlan(NamedTuple):
    r"""The parameters of an :func:`attention_1d` call (:func:`attention_1d_plan`).

    Attributes
    ----------
    L : float
        The window width :math:`\log(n/\eta)`: keys beyond it from the row maximum are dropped.
    g : int
        The Chebyshev degree on each band.
    eta : float
        The tolerance :math:`\eta = \min(0.1, \varepsilon/(5R))`.
    bands : int
        An upper bound on the query bands one sign of the queries can use.

    Examples
    --------
    >>> from attnlab import Attention1dPlan
    >>> Attention1dPlan(L=16.1, g=24, eta=2e-4, bands=11).g
    24
    """

    L: float
    g: int
    eta: float
    bands: int


def attention_1d_plan(n: int, eps: float, B_range: float, v_range: float = 1.0) -> Attention1dPlan:
    r"""The parameters :func:`attention_1d` uses: window width L, degree g, tolerance η and the number of bands.

    With :math:`\eta = \varepsilon/(5R)` (capped at 0.1) the window is :math:`L = \log(n/\eta)` and the degree g is
    the smallest with :math:`4\sum_{a>g} I_a(z)e^{-z} \le \eta/n` for :math:`z \in [0, L/2]`: the interpolation
    error of :math:`e^{-qu}` on a band, per key, after the shift by the row maximum.

    Parameters
    ----------
    n : int
        Number of keys, >= 1.
    eps : float
        Target absolute error, finite and > 0.
    B_range : float
        :math:`\max|q|\cdot(k_{\max} - k_{\min})`, >= 0 (sets the number of bands).
    v_range : float, optional
        R, the largest range of a value column, > 0 (default 1).

    Returns
    -------
    Attention1dPlan
        ``L``, ``g``, ``eta``, ``bands`` (an upper bound on the bands one sign of the queries can use).

    Raises
    ------
    ValueError, TypeError
        Bad ``n``, ``eps``, ``B_range`` or ``v_range``.

    Examples
    --------
    >>> from attnlab import attention_1d_plan
    >>> p = attention_1d_plan(2**20, 1e-3, 1e4)
    >>> p.g, p.bands
    (24, 11)
    """
    n = positive_int(n, "n")
    eps = _eps(eps)
    B_range = real(B_range, "B_range", lo=0.0)
    v_range = positive_real(v_range, "v_range")
    eta = min(0.1, eps / (5 * float(v_range)))
    L = math.log(n / eta)
    g = _degree(round(L, 12), eta / n)
    bands = 1 + max(0, math.ceil(math.log2(max(float(B_range), 1e-300) / L)) + 1) if B_range > 0 else 1
    return Attention1dPlan(L, g, eta, bands)


def _cheb_matrix(g):
    """M with c = M @ F: Chebyshev coefficients from the values at s_m = cos(pi m / g), m = 0..g."""
    m = np.arange(g + 1)
    M = np.cos(np.pi * np.outer(m, m) / g) * (2.0 / g)
    M[:, 0] /= 2
    M[:, -1] /= 2
    M[0, :] /= 2
    M[-1, :] /= 2
    return M


def _band_sums(xp, u, V1, nodes, chunk):
    """F[m] = sum_j exp(-nodes[m] * u_j) * V1[j] over the kept keys, in chunks of keys."""
    F = None
    n = u.shape[0]
    for s in range(0, n, chunk):
        e = min(s + chunk, n)  # in-bounds slices (the array API leaves out-of-bounds stops unspecified)
        E = xp.exp(-(u[s:e, None] * nodes[None, :]))
        part = xp.matmul(xp.permute_dims(E, (1, 0)), V1[s:e, :])
        F = part if F is None else F + part
    return F


def attention_1d(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float, *, chunk: int = 65536) -> Array:
    r"""Softmax attention with one-dimensional queries and keys, every output entry within ``eps``.

    Computes :math:`\hat o_i \approx o_i = \sum_j e^{q_i k_j} v_j / \sum_j e^{q_i k_j}` with
    :math:`\max_{i,t} |\hat o_{it} - o_{it}| \le \varepsilon` for any size of the scores (any temperature):
    the scores are never exponentiated unshifted. Keys are sorted once; the queries of each sign and each dyadic
    band :math:`[Q, 2Q]` of :math:`|q|` (and the band :math:`[0, L/(k_{\max}-k_{\min})]`) share one Chebyshev
    interpolant of the shifted row :math:`F(q) = \sum_j e^{-q u_j} v_j`, :math:`u_j = k_{\max} - k_j` (for
    :math:`q < 0`: :math:`u_j = k_j - k_{\min}` and :math:`|q|`), built from :math:`g + 1` exact sums over the keys
    with :math:`u_j \le L/Q`; see the module docstring for the error accounting. ``q = 0`` lands on a node and
    returns the mean of ``v``. Vectorised over queries and keys; the array library is taken from the inputs
    (array API standard: NumPy, CuPy, ``array_api_strict``, ...).

    Parameters
    ----------
    q : array, shape (n_q,)
        Queries, real and finite (integers are promoted).
    k : array, shape (n,)
        Keys, real and finite; ``n`` may differ from ``n_q``.
    v : array, shape (n,) or (n, d_v)
        Values, real and finite.
    eps : float
        Target absolute error per output entry, finite and > 0. For float32 (or float16) inputs the work is done in
        float64 and the result is rounded to float32, which costs up to :math:`2^{-24}\max|v|`; ``eps`` must exceed
        twice that. A float64 result costs :math:`2^{-53}(\max|v| + 16R)` (R: the largest range of a value column;
        the values are centred on their midpoints before the work), and ``eps`` must exceed twice that too.
    chunk : int, optional
        Keys per block of the node sums (memory ``chunk·(g+1)`` floats).

    Returns
    -------
    o : array, shape (n_q,) or (n_q, d_v)
        float32 if every input is float16/float32, else float64; same array library as the inputs.

    Raises
    ------
    ValueError
        Empty or wrongly shaped arrays, NaN or inf, ``len(k) != len(v)``, ``eps`` not finite or <= 0 or below the
        float32 or float64 rounding of the output, keys whose range overflows float64, ``chunk`` < 1.
    TypeError
        Non-real or non-array inputs, arrays of different libraries, non-real ``eps``, non-integer ``chunk``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = 100 * rng.uniform(-1, 1, (3, 1000))   # scores up to 1e4: very low temperature
    >>> s = np.outer(q, k); p = np.exp(s - s.max(1, keepdims=True))
    >>> exact = p @ v / p.sum(1)
    >>> bool(np.max(np.abs(attention_1d(q, k, v, 1e-6) - exact)) <= 1e-6)
    True
    """
    chunk = positive_int(chunk, "chunk")
    xp, eps, q, k, V, vec, out_dtype = _inputs(q, k, v, eps)
    n, nq = k.shape[0], q.shape[0]
    R, vmax = _value_range(xp, V)
    budget = _budget(eps, vmax, out_dtype == xp.float32, v_range=R)
    kmin, kmax = float(xp.min(k)), float(xp.max(k))
    W = kmax - kmin
    if not math.isfinite(W):
        raise ValueError("k spans a range that overflows float64 (max(k) - min(k) is inf)")
    mean = xp.mean(V, axis=0)
    if R == 0.0 or W == 0.0:  # constant values or all keys equal: every row is the mean of v
        return _finish(xp, xp.broadcast_to(mean[None, :], (nq, V.shape[1])), vec, out_dtype)
    plan = attention_1d_plan(n, budget, 0.0, R)
    # centre each value column on its midpoint: the work then rounds at the scale of R, not of max|v| (values
    # 1000 ± 1 would otherwise lose three digits in the node sums), and the centre is added back exactly once
    centre = (xp.max(V, axis=0) + xp.min(V, axis=0)) / 2
    O = _attention_1d_core(xp, q, k, V - centre[None, :], plan.L, plan.g, chunk)
    return _finish(xp, O + centre[None, :], vec, out_dtype)


@former_dict
class Attention1dCount(NamedTuple):
    r"""Exact operation counts of an :func:`attention_1d` call (:func:`attention_1d_count`).

    Attributes
    ----------
    n : int
        Keys.
    nq : int
        Queries.
    g : int
        The Chebyshev degree on each band (:func:`attention_1d_plan`).
    L : float
        The window width.
    bands : int
        Query bands with queries.
    nodes : int
        Chebyshev nodes, g + 1 per band.
    exps : int
        Exponentials :math:`e^{-q_m u_j}`: kept keys times nodes, summed over bands.
    madds : int
        Multiply-adds of the node sums and the cosine transforms.
    evals : int
        Per-query Chebyshev terms.
    sorts : int
        :math:`n\lceil\log_2 n\rceil + n_q\lceil\log_2 n_q\rceil` comparisons, a bound for the two sorts.
    searches : int
        Binary-search steps for the band cuts.
    band_keys : list of int
        Kept keys per band.
    ops : int
        ``sorts + searches + exps + madds + evals``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d_count
    >>> c = attention_1d_count(np.linspace(-5, 5, 100), np.linspace(-5, 5, 1000), 1e-3)
    >>> c.ops == c.sorts + c.searches + c.exps + c.madds + c.evals, c.bands == len(c.band_keys)
    (True, True)
    """

    n: int
    nq: int
    g: int
    L: float
    bands: int
    nodes: int
    exps: int
    madds: int
    evals: int
    sorts: int
    searches: int
    band_keys: list
    ops: int


def attention_1d_count(q: ArrayLike, k: ArrayLike, eps: float, *, v_range: float = 1.0, d_v: int = 1,
                       run: bool = False, v: ArrayLike | None = None) -> Attention1dCount | CountedAttention:
    r"""Exact operation counts of :func:`attention_1d` on these queries and keys (the same code path, counted).

    Counts, for the call ``attention_1d(q, k, v, eps)`` with values of range ``v_range`` and ``d_v`` columns:
    ``bands`` (query bands with queries), ``nodes`` (Chebyshev nodes, g + 1 per band), ``exps`` (exponentials
    :math:`e^{-q_m u_j}`: kept keys times nodes, summed over bands), ``madds`` (multiply-adds of the node sums and
    the cosine transforms), ``evals`` (per-query Chebyshev terms), ``sorts`` (:math:`n\lceil\log_2 n\rceil +
    n_q\lceil\log_2 n_q\rceil` comparisons, a bound for the two sorts), ``searches`` (binary-search steps for the
    band cuts), and their sum ``ops``; also ``g``, ``L``, ``band_keys`` (kept keys per band). Nothing is
    exponentiated: the band logic of the core runs and the work is counted. :func:`attention_1d_counted` computes
    the call as well and counts it.

    Parameters
    ----------
    q : array, shape (n_q,)
        Queries, real and finite.
    k : array, shape (n,)
        Keys, real and finite.
    eps : float
        Target absolute error, finite and > 0 (as for :func:`attention_1d`).
    v_range : float, optional
        R, the largest range of a value column (sets η; default 1).
    d_v : int, optional
        Value columns counted (default 1).
    run : bool, optional
        Deprecated: ``run=True`` returns ``attention_1d_counted(q, k, v, eps)`` (with a ``DeprecationWarning``).
    v : array, optional
        Deprecated: the values of ``run=True``.

    Returns
    -------
    Attention1dCount
        The counts (with the deprecated ``run=True``: the :class:`CountedAttention` of
        :func:`attention_1d_counted`).

    Raises
    ------
    ValueError, TypeError
        As :func:`attention_1d`; ``run=True`` without ``v``; ``d_v`` not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d_count
    >>> c = attention_1d_count(np.linspace(-5, 5, 100), np.linspace(-5, 5, 1000), 1e-3)
    >>> c.bands >= 2 and c.exps <= c.bands * 1000 * (c.g + 1)
    True
    """
    if flag(run, "run"):
        warnings.warn("attention_1d_count(..., run=True) is deprecated; use attention_1d_counted(q, k, v, eps)",
                      DeprecationWarning, stacklevel=2)
        if v is None:
            raise ValueError("run=True needs the values v")
        return attention_1d_counted(q, k, v, eps)
    if v is not None:
        warnings.warn("attention_1d_count: v is used only by the deprecated run=True; use attention_1d_counted",
                      DeprecationWarning, stacklevel=2)
    xp = namespace_of(q=q, k=k)
    q64, k64 = _real_array(q, "q", xp, (1,)), _real_array(k, "k", xp, (1,))
    d_v = positive_int(d_v, "d_v")
    plan = attention_1d_plan(k64.shape[0], _eps(eps), 0.0, v_range)
    counts = {"count_only": True}
    _attention_1d_core(xp, q64, k64, xp.zeros((k64.shape[0], d_v), dtype=xp.float64), plan.L, plan.g,
                       counts=counts)
    del counts["count_only"]
    return Attention1dCount(**counts)


class CountedAttention(NamedTuple):
    r"""An approximate attention output with the exact counts of the work that computed it.

    Returned by :func:`attention_1d_counted` and :func:`attention_halfspace_counted`; unpacks as ``o, counts``.

    Attributes
    ----------
    o : array, shape (n_q,) or (n_q, d_v)
        The output, as the uncounted function (:func:`attention_1d`, :func:`attention_halfspace`) returns it.
    counts : Attention1dCount or HalfspaceCount
        The counts of the call.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d, attention_1d_counted
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.uniform(-3, 3, (3, 200))
    >>> o, counts = attention_1d_counted(q, k, v, 1e-6)
    >>> bool(np.array_equal(o, attention_1d(q, k, v, 1e-6))), counts.ops > 0
    (True, True)
    """

    o: Array
    counts: Attention1dCount | HalfspaceCount


def attention_1d_counted(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float) -> CountedAttention:
    r""":func:`attention_1d` computed and counted: the output within ``eps`` and the exact operation counts.

    The same band logic as :func:`attention_1d` (values centred on their midpoints, the plan of
    :func:`attention_1d_plan` at ε less the output's rounding), run with its counts kept (see
    :func:`attention_1d_count` for what is counted).

    Parameters
    ----------
    q : array, shape (n_q,)
        Queries, real and finite.
    k : array, shape (n,)
        Keys, real and finite.
    v : array, shape (n,) or (n, d_v)
        Values, real and finite.
    eps : float
        Target absolute error per output entry, finite and > 0 (as for :func:`attention_1d`).

    Returns
    -------
    CountedAttention
        ``o`` (the output, as :func:`attention_1d` returns it) and ``counts`` (an :class:`Attention1dCount`).

    Raises
    ------
    ValueError, TypeError
        As :func:`attention_1d`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d_count, attention_1d_counted
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.uniform(-5, 5, (3, 1000))
    >>> res = attention_1d_counted(q, k, v, 1e-3)
    >>> res.o.shape, res.counts.ops == attention_1d_count(q, k, 1e-3, v_range=float(np.ptp(v))).ops
    ((1000,), True)
    """
    xp, eps_, q64, k64, V, vec, out_dtype = _inputs(q, k, v, eps)
    R, vmax = _value_range(xp, V)
    budget = _budget(eps_, vmax, out_dtype == xp.float32, v_range=R)
    plan = attention_1d_plan(k64.shape[0], budget, 0.0, max(R, 1e-300))
    counts = {}
    centre = (xp.max(V, axis=0) + xp.min(V, axis=0)) / 2
    O = _attention_1d_core(xp, q64, k64, V - centre[None, :], plan.L, plan.g, counts=counts)
    return CountedAttention(_finish(xp, O + centre[None, :], vec, out_dtype), Attention1dCount(**counts))


def _attention_1d_core(xp, q, k, V, L, g, chunk=65536, counts=None):
    """attention_1d after validation: window L, degree g (float64 in, float64 (n_q, d_v) out).

    ``counts``: a dict to fill with the exact operation counts of the call (see :func:`attention_1d_count`); if it
    holds ``count_only=True`` the band sums and evaluations are counted but not computed (and None is returned)."""
    xp = namespace_of(q=q, k=k, V=V)  # the array-API namespace (for NumPy: array_api_compat.numpy)
    n, nq, dv = k.shape[0], q.shape[0], V.shape[1]
    count_only = bool(counts is not None and counts.get("count_only"))
    if counts is not None:
        lg = lambda m: math.ceil(math.log2(m)) if m > 1 else 0  # noqa: E731
        counts.update(n=n, nq=nq, g=g, L=L, bands=0, nodes=0, exps=0, madds=0, evals=0,
                      sorts=n * lg(n) + nq * lg(nq), searches=0, band_keys=[])
    kmin, kmax = float(xp.min(k)), float(xp.max(k))
    W = kmax - kmin
    if W == 0.0:
        if counts is not None:
            counts["madds"] += n * (dv + 1)
            counts["ops"] = counts["sorts"] + counts["madds"]
        return None if count_only else xp.broadcast_to(xp.mean(V, axis=0)[None, :], (q.shape[0], V.shape[1]))
    M = xp.asarray(_cheb_matrix(g), dtype=xp.float64)
    s_nodes = np.cos(np.pi * np.arange(g + 1) / g)
    orders = xp.asarray(np.arange(g + 1, dtype=np.float64))
    order = xp.argsort(k)
    ks = xp.take(k, order)
    V1 = xp.concat([xp.ones((n, 1), dtype=xp.float64), xp.take(V, order, axis=0)], axis=1)
    # u >= 0, ascending, for each sign of the queries: q >= 0 looks down from k_max, q < 0 up from k_min
    sides = {0: (xp.flip(kmax - ks), xp.flip(V1, axis=0)), 1: (ks - kmin, V1)}
    Q1 = L / W
    a = xp.abs(q)
    side = xp.astype(q < 0, xp.int64)
    safe = xp.where(a > 0, a, xp.ones_like(a))
    lg = xp.log2(safe) + (math.log2(W) - math.log2(L))
    band = xp.where(a < Q1, xp.zeros_like(a), xp.floor(lg) + 1)
    band = xp.astype(band, xp.int64)
    key = band * 2 + side
    perm = xp.argsort(key)
    key_sorted = xp.take(key, perm)
    a_sorted = xp.take(a, perm)
    pieces = []
    for kv in xp.sort(xp.unique_values(key_sorted)):  # the standard leaves unique_values' order unspecified
        kv = int(kv)
        h, sd = kv // 2, kv % 2
        lo_i = int(xp.searchsorted(key_sorted, xp.asarray(kv, dtype=xp.int64)))
        hi_i = int(xp.searchsorted(key_sorted, xp.asarray(kv, dtype=xp.int64), side="right"))
        u, Vs = sides[sd]
        if h == 0:  # [0, Q1], narrowed to the queries present (Q1 may overflow when the keys are nearly tied)
            lo, hi, n_keep = 0.0, min(Q1, float(xp.max(a_sorted[lo_i:hi_i]))), n
            if hi * W <= 2.0**-60:  # every weight e^{-q u} is 1 to double precision: the mean of v
                if counts is not None:
                    counts["bands"] += 1
                    counts["madds"] += n * (dv + 1)
                    counts["band_keys"].append(n)
                    if count_only:
                        continue
                mean = xp.mean(Vs, axis=0)
                pieces.append(xp.broadcast_to(mean[None, 1:] / mean[None, :1], (hi_i - lo_i, V.shape[1])))
                continue
        else:
            lo, hi = math.ldexp(Q1, h - 1), math.ldexp(Q1, h)
            cut = math.ldexp(W, 1 - h)  # u <= L/lo: beyond, every weight is below e^{-L}
            n_keep = int(xp.searchsorted(u, xp.asarray(cut, dtype=xp.float64), side="right"))
            if counts is not None:
                counts["searches"] += math.ceil(math.log2(n + 1))
        if counts is not None:  # g + 1 exponentials and multiply-adds per kept key and node; the cosine transform;
            nb = hi_i - lo_i    # per query g + 1 Chebyshev terms
            counts["bands"] += 1
            counts["nodes"] += g + 1
            counts["exps"] += n_keep * (g + 1)
            counts["madds"] += n_keep * (g + 1) * (dv + 1) + (g + 1) ** 2 * (dv + 1)
            counts["evals"] += nb * (g + 1) * (dv + 2)
            counts["band_keys"].append(n_keep)
            if count_only:
                continue
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        nodes = xp.asarray(mid + half * s_nodes, dtype=xp.float64)
        F = _band_sums(xp, u[:n_keep], Vs[:n_keep, :], nodes, chunk)
        C = xp.matmul(M, F)
        s = xp.clip((a_sorted[lo_i:hi_i] - mid) / half, -1.0, 1.0)
        T = xp.cos(xp.acos(s)[:, None] * orders[None, :])
        out = xp.matmul(T, C)
        pieces.append(out[:, 1:] / out[:, :1])
    if counts is not None:
        counts["ops"] = sum(counts[c] for c in ("sorts", "searches", "exps", "madds", "evals"))
        if count_only:
            return None
    O_sorted = xp.concat(pieces, axis=0)
    return xp.take(O_sorted, xp.argsort(perm), axis=0)


# ----------------------------------------------------------------------------------------------------------------
# the Gauss-transform route


def _hermite_degree(r, tmax, tol):
    r"""Smallest p with :math:`K e^{t^2/2} (\sqrt2 r)^p / \sqrt{p!} / (1 - \sqrt2 r) \le tol` for t <= tmax:
    the relative error of the Hermite expansion of :math:`e^{-(t-s)^2}` for |s| <= r, far box at distance t."""
    K, x = 1.09, math.sqrt(2) * r
    # relative to e^{-(t-s)^2}
    logtol = math.log(tol) - math.log(K) + math.log1p(-x) - tmax**2 / 2 - 2 * tmax * r - r**2
    p = 1
    while p * math.log(x) - special.gammaln(p + 1) / 2 > logtol:
        p += 1
        if p > 400:
            raise ValueError("the Hermite degree exceeds 400: q and k spread too widely for the Gauss-transform "
                             "route (it needs a degree growing like (max|q - k|)^2)")
    return p


def attention_gauss_1d(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float, *, box: float = 0.5) -> Array:
    r"""One-dimensional attention through the discrete Gauss transform (fast Gauss transform), to ``eps``.

    Uses :math:`e^{qk} = e^{q^2/2}\,e^{k^2/2}\,e^{-(q-k)^2/2}`: with :math:`t = (q - c)/\sqrt2`,
    :math:`s = (k - c)/\sqrt2` for a box of keys of width ``box`` centred at c,
    :math:`e^{-(t-s)^2} = \sum_{a \ge 0} \frac{s^a}{a!} h_a(t)` (Hermite functions :math:`h_a = H_a e^{-t^2}`),
    so each box stores :math:`p` moments and each query sums :math:`p` terms per box. The Cramér bound
    :math:`|h_a(t)| \le 1.09\cdot 2^{a/2}\sqrt{a!}\,e^{-t^2/2}` makes the relative error of a far box grow like
    :math:`e^{t^2/2}`, so the degree p grows with :math:`(k_{\max} - k_{\min})^2`; and a far box sums terms near
    :math:`e^{|2ts|}` to a value near :math:`e^{-|2ts|}`, so the box width shrinks like :math:`1/\max|q - k|` to keep
    that cancellation below :math:`\eta/10`. The route is near-linear in n but not polylogarithmic in B. Boxes are
    summed in the log domain (each box scaled by its own largest weight), so it does not overflow; NumPy only.

    Parameters
    ----------
    q : array, shape (n_q,)
    k : array, shape (n,)
    v : array, shape (n,) or (n, d_v)
        Queries, keys and values, real and finite.
    eps : float
        Target absolute error per entry, finite and > 0 (float32 inputs: as in :func:`attention_1d`).
    box : float, optional
        Width of a box of keys, in (0, 1] (default 0.5).

    Returns
    -------
    o : ndarray, shape (n_q,) or (n_q, d_v)

    Raises
    ------
    ValueError, TypeError
        As :func:`attention_1d`; ``box`` outside (0, 1]; a degree beyond 400 (q and k spread too widely);
        q or k beyond 1e150 (their squares would overflow).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_gauss_1d
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.uniform(-2, 2, (3, 500))
    >>> s = np.outer(q, k); p = np.exp(s - s.max(1, keepdims=True))
    >>> bool(np.max(np.abs(attention_gauss_1d(q, k, v, 1e-6) - p @ v / p.sum(1))) <= 1e-6)
    True
    """
    box = real(box, "box", lo=0.0, hi=1.0, lo_open=True)
    xp, eps, q, k, V, vec, out_dtype = _inputs(q, k, v, eps)
    if not _is_numpy(xp):
        raise TypeError("attention_gauss_1d takes NumPy arrays (q, k, v)")
    n = k.shape[0]
    R, vmax = _value_range(np, V)
    budget = _budget(eps, vmax, out_dtype == np.float32, v_range=R)
    _no_overflow(q, k)
    if R == 0.0 or np.ptp(k) == 0.0:
        return _finish(np, np.broadcast_to(V.mean(0), (q.shape[0], V.shape[1])), vec, out_dtype)
    eta = min(0.1, budget / (5 * R))
    kmin = float(k.min())
    # a far box sums terms of size e^{|2ts|} to a value near e^{-|2ts|}: keep that cancellation below eta / 10
    spread = max(abs(float(q.max() - kmin)), abs(float(q.min() - k.max())), 1e-300) / math.sqrt(2)
    box = min(float(box), 2 * math.sqrt(2) * math.log(max(eta / (10 * 400 * 2.0**-52), 1.0)) / (4 * (spread + 1)))
    if box <= 0:
        raise ValueError(f"eps={eps:g} is too small for the Gauss-transform route: its far boxes cancel beyond "
                         "float64 (use attention_1d)")
    tmax = spread + box / math.sqrt(2)
    ids = np.floor((k - kmin) / box).astype(np.int64)
    order = np.argsort(ids, kind="stable")
    ids, ks, Vs = ids[order], k[order], V[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    centres = kmin + (ids[starts] + 0.5) * box
    c_of = np.repeat(centres, np.diff(np.r_[starts, n]))
    p = _hermite_degree(box / (2 * math.sqrt(2)), tmax, eta)
    s = (ks - c_of) / math.sqrt(2)
    # log-domain weight of each key: k^2/2 - (box's max of k^2/2)
    half_sq = ks**2 / 2
    bmax = np.maximum.reduceat(half_sq, starts)
    w = np.exp(half_sq - np.repeat(bmax, np.diff(np.r_[starts, n])))
    centre = (Vs.max(0) + Vs.min(0)) / 2  # centred values: the work rounds at the scale of R (as attention_1d)
    V1 = np.concatenate([np.ones((n, 1)), Vs - centre], axis=1) * w[:, None]
    # moments As[b, a, :] = sum_j s_j^a sqrt(2^a / a!) w_j [1, v_j] (= s^a/a! times sqrt(2^a a!)), by recurrence in a
    As = np.empty((len(starts), p, V1.shape[1]))
    term = V1.copy()
    for a_ in range(p):
        As[:, a_, :] = np.add.reduceat(term, starts, axis=0)
        term = term * (s * math.sqrt(2.0 / (a_ + 1)))[:, None]
    # per (query, box): sum_a eta_a(t) As[a] e^{q^2/2 + bmax - t^2}, eta_a = H_a / sqrt(2^a a!) (normalised Hermite,
    # three-term recurrence); eta grows like e^{t^2/2}: rescaled by 1e-150 when large
    O = np.empty((q.shape[0], V.shape[1]))
    for i0 in range(0, q.shape[0], 128):
        qq = q[i0:i0 + 128]
        t = (qq[:, None] - centres[None, :]) / math.sqrt(2)
        lam = qq[:, None] ** 2 / 2 + bmax[None, :] - t**2
        acc = np.zeros(t.shape + (V1.shape[1],))
        e_prev, e_cur = np.zeros_like(t), np.ones_like(t)
        for a_ in range(p):
            acc += e_cur[..., None] * As[None, :, a_, :]
            e_prev, e_cur = e_cur, math.sqrt(2.0 / (a_ + 1)) * t * e_cur - math.sqrt(a_ / (a_ + 1)) * e_prev
            big = np.abs(e_cur) > 1e150
            if big.any():
                e_cur[big] *= 1e-150
                e_prev[big] *= 1e-150
                acc[big] *= 1e-150
                lam[big] += 150 * math.log(10)
        with np.errstate(divide="ignore"):
            logz = lam + np.log(np.maximum(acc[..., 0], 0.0))
        mx = logz.max(axis=1, keepdims=True)
        tot = (acc * np.exp(lam - mx)[..., None]).sum(axis=1)
        O[i0:i0 + 128] = tot[:, 1:] / tot[:, :1]
    return _finish(np, O + centre, vec, out_dtype)


# ----------------------------------------------------------------------------------------------------------------
# d = 2: a k-d tree with Taylor moments, answering halfspace queries


def _taylor_degree(tau, eta):
    g = 0
    while math.exp(2 * tau) * tau ** (g + 1) / math.factorial(g + 1) > eta:
        g += 1
    return g


def _row_max_2d(Q, K):
    from scipy.spatial import ConvexHull, QhullError  # noqa: PLC0415

    try:
        cand = K[ConvexHull(K).vertices] if K.shape[0] >= 3 else K
    except QhullError:  # collinear or repeated keys: the two ends of the segment
        d = K - K[0]
        far = K[np.argmax((d**2).sum(1))] - K[0]
        proj = K @ far
        cand = K[[int(np.argmin(proj)), int(np.argmax(proj))]]
    m = np.empty(Q.shape[0])
    step = max(1, 2**22 // max(1, cand.shape[0]))
    for i in range(0, Q.shape[0], step):
        m[i:i + step] = (Q[i:i + step] @ cand.T).max(axis=1)
    return m


def attention_2d(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float, *, leaf_size: int = 32,
                 tau: float = 1.0) -> Array:
    r"""Attention with two-dimensional queries and keys, every entry within ``eps``: a k-d tree with moments.

    Seed 003 (Thm 1.3) answers fixed d with halfspace range searching: the keys that matter to query q form the
    halfspace :math:`\{k: q\cdot k \ge m_q - L\}`, :math:`m_q = \max_j q\cdot k_j`, :math:`L = \log(n/\eta)`.
    This practical version builds a balanced k-d tree (median splits on the wider side); each node stores its
    bounding box and the Taylor moments :math:`\sum_j \frac{x^a y^b}{a!\,b!}[1, v_j]` of its keys about its centre,
    in units of its half-diagonal r, for :math:`a + b \le g`. A query (all queries advance together, level by
    level) drops a node whose box lies outside the halfspace, sums a node with :math:`|q|\,r \le \tau` from its
    moments (:math:`\sum_{a+b\le g} (q\cdot\Delta)^{a+b}`-terms: the Taylor polynomial of :math:`e^{q\cdot\Delta}`,
    relative error :math:`\le e^{2\tau}\tau^{g+1}/(g+1)! \le \eta`), sums a leaf exactly, and otherwise descends.
    :math:`m_q` is exact (maximum over the convex hull of the keys). NumPy only.

    Parameters
    ----------
    q : ndarray, shape (n_q, 2)
    k : ndarray, shape (n, 2)
    v : ndarray, shape (n,) or (n, d_v)
        Queries, keys and values, real and finite.
    eps : float
        Target absolute error per entry, finite and > 0 (float32 inputs: as in :func:`attention_1d`).
    leaf_size : int, optional
        Most keys in a leaf, >= 1 (default 32).
    tau : float, optional
        Largest score spread :math:`|q|\,r` summed from moments, in (0, 4] (default 1).

    Returns
    -------
    o : ndarray, shape (n_q,) or (n_q, d_v)

    Raises
    ------
    ValueError, TypeError
        As :func:`attention_1d`; q or k not of width 2; bad ``leaf_size`` or ``tau``; scores q·k that overflow
        float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_2d
    >>> rng = np.random.default_rng(0)
    >>> Q, K = 10 * rng.uniform(-1, 1, (2, 300, 2)); v = rng.uniform(-1, 1, 300)
    >>> S = Q @ K.T; P = np.exp(S - S.max(1, keepdims=True))
    >>> bool(np.max(np.abs(attention_2d(Q, K, v, 1e-6) - P @ v / P.sum(1))) <= 1e-6)
    True
    """
    leaf_size = positive_int(leaf_size, "leaf_size")
    tau = real(tau, "tau", lo=0.0, hi=4.0, lo_open=True)
    xp, eps, Q, K, V, vec, out_dtype = _inputs(q, k, v, eps, qdim=2)
    if not _is_numpy(xp):
        raise TypeError("attention_2d takes NumPy arrays (q, k, v)")
    if Q.shape[1] != 2:
        raise ValueError(f"q and k must have 2 columns, got {Q.shape[1]}")
    n, nq, dv = K.shape[0], Q.shape[0], V.shape[1]
    _no_overflow(Q, K)
    R, vmax = _value_range(np, V)
    budget = _budget(eps, vmax, out_dtype == np.float32, v_range=R)
    if R == 0.0 or np.all(K == K[0]):
        return _finish(np, np.broadcast_to(V.mean(0), (nq, dv)), vec, out_dtype)
    eta = min(0.1, budget / (5 * R))
    L = math.log(n / eta)
    g = _taylor_degree(float(tau), eta)
    centre = (V.max(0) + V.min(0)) / 2  # centred values, as in attention_1d
    tree = _KDTree(K, np.concatenate([np.ones((n, 1)), V - centre], axis=1), leaf_size, g)
    m = _row_max_2d(Q, K)
    acc = np.zeros((nq, dv + 1))
    step = 2048
    for i0 in range(0, nq, step):
        acc[i0:i0 + step] = tree.query(Q[i0:i0 + step], m[i0:i0 + step], L, float(tau))
    return _finish(np, acc[:, 1:] / acc[:, :1] + centre, vec, out_dtype)


class _KDTree:
    """Implicit balanced k-d tree: node i of level l covers the keys [floor(i n / 2^l), floor((i+1) n / 2^l))."""

    def __init__(self, K, V1, leaf_size, g):
        n = K.shape[0]
        self.depth = D = max(0, min(int(math.floor(math.log2(n))), math.ceil(math.log2(max(1, n / leaf_size)))))
        perm = np.arange(n)
        for lev in range(D):  # sort each node's keys along its wider side, then halve
            bounds = (np.arange(2**lev + 1) * n) // 2**lev
            seg = np.repeat(np.arange(2**lev), np.diff(bounds))
            P = K[perm]
            lo, hi = np.minimum.reduceat(P, bounds[:-1]), np.maximum.reduceat(P, bounds[:-1])
            axis = (hi[:, 1] - lo[:, 1] > hi[:, 0] - lo[:, 0]).astype(int)
            coord = P[np.arange(n), axis[seg]]
            perm = perm[np.lexsort((coord, seg))]
        self.K, self.V1, self.g, self.n = K[perm], V1[perm], g, n
        self.a, self.b = [x.ravel() for x in np.meshgrid(np.arange(g + 1), np.arange(g + 1), indexing="ij")]
        keep = self.a + self.b <= g
        self.a, self.b = self.a[keep], self.b[keep]
        self.fact = np.exp(-special.gammaln(self.a + 1) - special.gammaln(self.b + 1))
        self.levels = []
        for lev in range(D + 1):
            bounds = (np.arange(2**lev + 1) * n) // 2**lev
            lo = np.minimum.reduceat(self.K, bounds[:-1])
            hi = np.maximum.reduceat(self.K, bounds[:-1])
            r = np.hypot(hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1]) / 2  # hypot: no underflow for tiny boxes
            c, r = (lo + hi) / 2, np.where(r > 0, r, 1.0)  # a single point: any radius, its offsets are 0
            self.levels.append(dict(bounds=bounds, lo=lo, hi=hi, c=c, r=r, mom=None))

    def _moments(self, lev):
        node = self.levels[lev]
        if node["mom"] is None:
            seg = np.repeat(np.arange(len(node["r"])), np.diff(node["bounds"]))
            d = (self.K - node["c"][seg]) / node["r"][seg, None]
            mom = np.zeros((len(node["r"]), len(self.a), self.V1.shape[1]))
            for i0 in range(0, self.n, 8192):  # nodes are contiguous runs of keys: reduce by runs
                dd, s = d[i0:i0 + 8192], seg[i0:i0 + 8192]
                mono = dd[:, None, 0] ** self.a[None, :] * dd[:, None, 1] ** self.b[None, :] * self.fact[None, :]
                starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
                mom[s[starts]] += np.add.reduceat(mono[:, :, None] * self.V1[i0:i0 + 8192, None, :], starts, axis=0)
            node["mom"] = mom
        return node["mom"]

    def query(self, Q, m, L, tau):
        nq = Q.shape[0]
        acc = np.zeros((nq, self.V1.shape[1]))
        qi = np.arange(nq)
        nd = np.zeros(nq, dtype=np.int64)
        qnorm = np.sqrt((Q**2).sum(1))
        for lev in range(self.depth + 1):
            if qi.size == 0:
                break
            node = self.levels[lev]
            qq = Q[qi]
            smax = np.maximum(qq * node["lo"][nd], qq * node["hi"][nd]).sum(1) - m[qi]
            alive = smax >= -L
            qi, nd, qq = qi[alive], nd[alive], qq[alive]
            rq = qnorm[qi] * node["r"][nd]
            take = rq <= tau  # small enough for the moments; at the leaves the rest is summed exactly
            if take.any():
                self._from_moments(lev, qi[take], nd[take], qq[take], m, acc)
            if lev == self.depth:
                if (~take).any():
                    self._exact(lev, qi[~take], nd[~take], qq[~take], m, acc)
                break
            rest = ~take
            qi, nd = np.repeat(qi[rest], 2), np.repeat(nd[rest], 2) * 2 + np.tile([0, 1], int(rest.sum()))
        return acc

    def _from_moments(self, lev, qi, nd, qq, m, acc):
        node = self.levels[lev]
        mom = self._moments(lev)
        r = node["r"][nd]
        base = np.exp((qq * node["c"][nd]).sum(1) - m[qi])
        x, y = qq[:, 0] * r, qq[:, 1] * r
        for i0 in range(0, qi.size, 8192):
            sl = slice(i0, i0 + 8192)
            pw = x[sl, None] ** self.a[None, :] * y[sl, None] ** self.b[None, :]
            contrib = np.einsum("pa,pad->pd", pw, mom[nd[sl]]) * base[sl, None]
            for col in range(acc.shape[1]):
                acc[:, col] += np.bincount(qi[sl], weights=contrib[:, col], minlength=acc.shape[0])

    def _exact(self, lev, qi, nd, qq, m, acc):
        b = self.levels[lev]["bounds"]
        start, size = b[nd], b[nd + 1] - b[nd]
        width = int(size.max())
        idx = start[:, None] + np.arange(width)[None, :]
        mask = np.arange(width)[None, :] < size[:, None]
        idx = np.where(mask, idx, start[:, None])
        s = np.einsum("pd,pwd->pw", qq, self.K[idx]) - m[qi][:, None]
        w = np.where(mask, np.exp(np.minimum(s, 0.0)), 0.0)
        contrib = np.einsum("pw,pwd->pd", w, self.V1[idx])
        for col in range(acc.shape[1]):
            acc[:, col] += np.bincount(qi, weights=contrib[:, col], minlength=acc.shape[0])


# ----------------------------------------------------------------------------------------------------------------
# fixed d: Algorithm 2 of the any-temperature notes (Thm 1.3) over any halfspace range-sum oracle


class BruteForceHalfspaceOracle:
    r"""Halfspace range sums over points K with weights W, by brute force, counting every call.

    The interface of the reduction of the any-temperature notes' Thm 1.3: ``count(a, b)`` returns
    :math:`\#\{j : a\cdot k_j \ge b\}` and ``sums(a, b)`` the weighted sums :math:`\sum_{j : a\cdot k_j \ge b} W_j`
    (one vector per halfspace). A structure with the same two methods (Matoušek's partition trees answer each in
    :math:`\tilde O(n^{1-1/d})`) can replace it; this one costs O(n d) and O(n m) per call. ``counting_calls``,
    ``sum_calls`` (halfspaces asked for sums) and ``weighted_sums`` (halfspaces times weight columns) count the calls.

    Parameters
    ----------
    K : ndarray, shape (n, d)
        The points (keys).
    W : ndarray, shape (n, m)
        Their weights (one column per weighted sum).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BruteForceHalfspaceOracle
    >>> orc = BruteForceHalfspaceOracle(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), np.ones((3, 1)))
    >>> orc.count(np.array([1.0, 0.0]), 0.5), orc.sums(np.array([1.0, 1.0]), 1.5).tolist(), orc.counting_calls
    (2, [1.0], 1)
    """

    def __init__(self, K: ArrayLike, W: ArrayLike) -> None:
        self.K, self.W = np.asarray(K, dtype=np.float64), np.asarray(W, dtype=np.float64)
        self.counting_calls = self.sum_calls = self.weighted_sums = 0

    def count(self, a: np.ndarray, b: float) -> int:
        self.counting_calls += 1
        return int(np.count_nonzero(self.K @ a >= b))

    def sums(self, a: np.ndarray, b: float, cols: ArrayLike | None = None) -> np.ndarray:
        self.sum_calls += 1
        W = self.W if cols is None else self.W[:, cols]
        self.weighted_sums += W.shape[1]
        return (self.K @ a >= b).astype(np.float64) @ W


@functools.lru_cache(maxsize=64)
def _exp_poly(width: float, eta: float):
    r"""Monomial coefficients (ascending) of a polynomial P with :math:`|P(y) - e^y| \le \eta e^y` on
    :math:`[-w, 0]`, and its degree g: the Chebyshev interpolant of :math:`e^y` of the smallest degree with
    :math:`4 e^{w/2}\sum_{a>g} I_a(w/2) \le \eta` (the aliasing bound :math:`2\sum_{a>g}|c_a|` on the interpolation
    error, :math:`c_a = 2e^{-w/2}I_a(w/2)`, divided by the smallest value :math:`e^{-w}`). The coefficients are
    converted to monomials in float64 (used only where the expansion is evaluated); the Chebyshev coefficients
    (on the domain [-w, 0]) are returned third."""
    from numpy.polynomial import chebyshev as C, polynomial as Pm  # noqa: PLC0415

    z = width / 2
    a = np.arange(int(4 * z + 12 * math.sqrt(z + 1) + 80))
    terms = special.ive(a, z)  # I_a(z) e^{-z}
    tail = np.cumsum(terms[::-1])[::-1] - terms  # sum over a' > a
    ok = np.nonzero(4 * math.exp(width) * tail <= eta)[0]
    if ok.size == 0:  # pragma: no cover - the range of a is generous
        raise ValueError(f"no polynomial degree found for e^y on [-{width:g}, 0] to {eta:g}")
    g = max(int(ok[0]), 1)
    cheb = C.Chebyshev.interpolate(np.exp, g, domain=[-width, 0.0])
    return tuple(cheb.convert(kind=Pm.Polynomial).coef), g, tuple(cheb.coef)


def _multi_indices(d, g):
    """All alpha in N^d with |alpha| <= g, by total degree (as an int array, one row per monomial)."""
    import itertools  # noqa: PLC0415

    rows = [a for t in range(g + 1) for a in itertools.product(range(t + 1), repeat=d) if sum(a) == t]
    return np.array(rows, dtype=np.int64).reshape(-1, d)


@former_dict
class AttentionHalfspacePlan(NamedTuple):
    r"""The parameters and the per-query oracle calls of an :func:`attention_halfspace` call
    (:func:`attention_halfspace_plan`).

    Attributes
    ----------
    eta : float
        The tolerance :math:`\eta = \min(0.05, \varepsilon/(14\max(1, B)))`.
    L : float
        :math:`\log(n/\eta)`.
    h : float
        The grid step :math:`\log(1 + \eta)`.
    width : float
        The window :math:`L' = L + h`.
    g : int
        The degree of the polynomial for :math:`e^y` on :math:`[-L', 0]`.
    monomials : int
        :math:`\binom{g+d}{d}`.
    search_calls : int
        Counting queries of the binary search for the row maximum, per query.
    weighted_sums : int
        Weighted halfspace sums per query, :math:`\binom{g+d}{d}(d_v + 1)`.
    s_range : tuple of two ints
        The grid indices the search starts from.

    Examples
    --------
    >>> from attnlab import attention_halfspace_plan
    >>> p = attention_halfspace_plan(1000, 2, 1e-3, 1.0)
    >>> p.monomials == (p.g + 1) * (p.g + 2) // 2, p.s_range[0] == -p.s_range[1]
    (True, True)
    """

    eta: float
    L: float
    h: float
    width: float
    g: int
    monomials: int
    search_calls: int
    weighted_sums: int
    s_range: tuple[int, int]


def attention_halfspace_plan(n: int, d: int, eps: float, B: float, d_v: int = 1) -> AttentionHalfspacePlan:
    r"""The parameters and the per-query oracle calls of :func:`attention_halfspace` (the notes' Algorithm 2).

    :math:`\eta = \min(0.05, \varepsilon/(14\max(1, B)))` (the notes' pseudocode), :math:`L = \log(n/\eta)`, grid
    step :math:`h = \log(1 + \eta)`, window :math:`L' = L + h`, degree g of :func:`_exp_poly` on :math:`[-L', 0]`;
    the row maximum is located on the grid :math:`s h` by a binary search over
    :math:`s \in [-\lceil dB^2/h\rceil - 1, \lceil dB^2/h\rceil + 1]`, i.e. ``search_calls`` =
    :math:`\lceil\log_2(2\lceil dB^2/h\rceil + 2)\rceil` counting queries, then one halfspace with
    ``weighted_sums`` = :math:`\binom{g+d}{d}(d_v + 1)` weighted sums.

    Parameters
    ----------
    n : int
        Number of keys.
    d : int
        Dimension of queries and keys.
    eps : float
        Target absolute error, finite and > 0.
    B : float
        The entry bound.
    d_v : int, optional
        Value columns (default 1).

    Returns
    -------
    AttentionHalfspacePlan
        ``eta``, ``L``, ``h``, ``width``, ``g``, ``monomials``, ``search_calls``, ``weighted_sums``, ``s_range``
        (the grid indices the search starts from).

    Raises
    ------
    TypeError
        ``n``, ``d`` or ``d_v`` not an integer; ``eps`` or ``B`` not a real number.
    ValueError
        ``n``, ``d`` or ``d_v`` below 1; ``eps`` not finite and > 0; ``B`` negative or not finite.

    Examples
    --------
    >>> from attnlab import attention_halfspace_plan
    >>> p = attention_halfspace_plan(1000, 2, 1e-3, 1.0)
    >>> p.weighted_sums == (p.g + 1) * (p.g + 2), p.search_calls
    (True, 16)
    """
    n, d, d_v = positive_int(n, "n"), positive_int(d, "d"), positive_int(d_v, "d_v")
    B = real(B, "B", lo=0.0)
    eta = min(0.05, _eps(eps) / (14 * max(1.0, B)))
    L = math.log(n / eta)
    h = math.log1p(eta)
    width = L + h
    _, g, _ = _exp_poly(round(width, 12), eta)
    top = math.ceil(d * B**2 / h) + 1
    return AttentionHalfspacePlan(eta=eta, L=L, h=h, width=width, g=g, monomials=math.comb(g + d, d),
                                  search_calls=max(1, math.ceil(math.log2(2 * top))),
                                  weighted_sums=math.comb(g + d, d) * (d_v + 1), s_range=(-top, top))


def _grid_max(oracle, q, s_lo, s_hi, h):
    """Largest s in [s_lo, s_hi) with a key of q·k >= s h (one exists at s_lo; none at s_hi), by bisection; and the
    number of counting queries asked."""
    calls = 0
    while s_hi - s_lo > 1:
        mid = (s_lo + s_hi) // 2
        calls += 1
        if oracle.count(q, mid * h) >= 1:
            s_lo = mid
        else:
            s_hi = mid
    return s_lo, calls


def attention_halfspace(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float, *, B: float | None = None,
                        oracle: Callable[[np.ndarray, np.ndarray], object] | None = None,
                        return_counts: bool = False) -> Array:
    r"""Attention for fixed d by the any-temperature notes' reduction to halfspace range sums (Algorithm 2, Thm 1.3).

    For each query: locate the row maximum on the grid :math:`s\,h`, :math:`h = \log(1+\eta)`, by a binary search of
    halfspace *counting* queries; shift by the grid maximum :math:`c = (s_{\max} + 1) h`; the relevant keys are the
    halfspace :math:`\{k : q\cdot k \ge c - L'\}`, :math:`L' = \log(n/\eta) + h`, on which every shifted score
    :math:`y = q\cdot k - c` lies in :math:`[-L', 0]`; replace :math:`e^y` by P (relative error η, degree g) and
    expand by the multinomial theorem,
    :math:`P(q\cdot k - c) = \sum_{|\alpha|\le g} a_{|\alpha|}\frac{|\alpha|!}{\alpha!} q^\alpha k^\alpha`,
    :math:`a_b = \sum_{\ell \ge b} p_\ell\binom{\ell}{b}(-c)^{\ell - b}`, so that numerator and denominator are
    linear combinations of the :math:`\binom{g+d}{d}(d_v+1)` weighted halfspace sums
    :math:`\sum_{j \in H} k_j^\alpha [1, v_j]`. See :func:`attention_halfspace_plan` for the parameters.

    The expansion is evaluated in float64, where its terms cancel once :math:`|c|` is beyond a few units (the
    book's chapter 9 measures where): the function bounds the rounding of every query's expansion by
    :math:`(2g + 8)\,2^{-53}\sum_\alpha |a_{|\alpha|}|\frac{|\alpha|!}{\alpha!}|q^\alpha| \sum_{j\in H}|k_j^\alpha|`
    (weighted sums of :math:`|k^\alpha|`, asked of the oracle as a guard and not counted as the algorithm's calls)
    and raises a ValueError where that bound exceeds η times the denominator. NumPy only.

    Parameters
    ----------
    q : ndarray, shape (n_q, d)
    k : ndarray, shape (n, d)
    v : ndarray, shape (n,) or (n, d_v)
        Queries, keys and values, real and finite.
    eps : float
        Target absolute error per entry (the accounting of Eq. (1) with the pseudocode's η = ε/(14 max(1, B))).
    B : float, optional
        The entry bound (default: the largest absolute entry of q, k and v).
    oracle : callable, optional
        ``oracle(K, W)`` returning an object with ``count(a, b)`` and ``sums(a, b, cols)`` (default
        :class:`BruteForceHalfspaceOracle`).
    return_counts : bool, optional
        Deprecated: ``return_counts=True`` returns ``attention_halfspace_counted(q, k, v, eps, B=B, oracle=oracle)``
        (with a ``DeprecationWarning``).

    Returns
    -------
    o : ndarray, shape (n_q,) or (n_q, d_v)
        The output (with the deprecated ``return_counts=True``: the :class:`CountedAttention` of
        :func:`attention_halfspace_counted`).

    Raises
    ------
    ValueError
        As :func:`attention_1d`; ``B`` below the entries; an expansion whose float64 rounding may exceed η.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_halfspace
    >>> rng = np.random.default_rng(0)
    >>> Q, K = rng.uniform(-0.5, 0.5, (2, 20, 2)); v = rng.uniform(-1, 1, 20)
    >>> S = Q @ K.T; P = np.exp(S - S.max(1, keepdims=True))
    >>> o = attention_halfspace(Q, K, v, 1e-3)
    >>> bool(np.max(np.abs(o - P @ v / P.sum(1))) <= 1e-3)
    True
    """
    if flag(return_counts, "return_counts"):
        warnings.warn("attention_halfspace(..., return_counts=True) is deprecated; use attention_halfspace_counted",
                      DeprecationWarning, stacklevel=2)
        return attention_halfspace_counted(q, k, v, eps, B=B, oracle=oracle)
    return _halfspace(q, k, v, eps, B, oracle)[0]


@former_dict
class HalfspaceCount(NamedTuple):
    r"""The oracle calls of an :func:`attention_halfspace` call, query by query (:func:`attention_halfspace_counted`).

    Attributes
    ----------
    search_calls : list of int
        Counting queries of the binary search for the row maximum, one entry per query.
    weighted_sums : list of int
        Weighted halfspace sums asked for the expansion, one entry per query (the guard sums not counted).
    plan : AttentionHalfspacePlan
        The parameters of the call (:func:`attention_halfspace_plan`).
    sums : list of lists of float
        Per query, the expanded halfspace sums: the denominator, then the numerators.
    shifts : list of float
        Per query, the shift c (the grid maximum).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_halfspace_counted
    >>> rng = np.random.default_rng(0)
    >>> Q, K = rng.uniform(-0.5, 0.5, (2, 20, 2)); v = rng.uniform(-1, 1, 20)
    >>> counts = attention_halfspace_counted(Q, K, v, 1e-3).counts
    >>> len(counts.search_calls), counts.weighted_sums[0] == counts.plan.weighted_sums
    (20, True)
    """

    search_calls: list
    weighted_sums: list
    plan: AttentionHalfspacePlan
    sums: list
    shifts: list


def attention_halfspace_counted(q: ArrayLike, k: ArrayLike, v: ArrayLike, eps: float, *, B: float | None = None,
                                oracle: Callable[[np.ndarray, np.ndarray], object] | None = None
                                ) -> CountedAttention:
    r""":func:`attention_halfspace` with its oracle calls counted, query by query.

    The same computation as :func:`attention_halfspace`; the calls per query (``search_calls``, ``weighted_sums``),
    the plan, and per query the expanded halfspace sums (denominator, then numerators) and the shift c are kept
    (:class:`HalfspaceCount`).

    Parameters
    ----------
    q : ndarray, shape (n_q, d)
    k : ndarray, shape (n, d)
    v : ndarray, shape (n,) or (n, d_v)
        Queries, keys and values, real and finite.
    eps : float
        Target absolute error per entry (as for :func:`attention_halfspace`).
    B : float, optional
        The entry bound (default: the largest absolute entry of q, k and v).
    oracle : callable, optional
        ``oracle(K, W)`` returning an object with ``count(a, b)`` and ``sums(a, b, cols)`` (default
        :class:`BruteForceHalfspaceOracle`).

    Returns
    -------
    CountedAttention
        ``o`` (the output, as :func:`attention_halfspace` returns it) and ``counts`` (a :class:`HalfspaceCount`).

    Raises
    ------
    ValueError, TypeError
        As :func:`attention_halfspace`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_halfspace_counted
    >>> rng = np.random.default_rng(0)
    >>> Q, K = rng.uniform(-0.5, 0.5, (2, 20, 2)); v = rng.uniform(-1, 1, 20)
    >>> S = Q @ K.T; P = np.exp(S - S.max(1, keepdims=True))
    >>> o, c = attention_halfspace_counted(Q, K, v, 1e-3)
    >>> bool(np.max(np.abs(o - P @ v / P.sum(1))) <= 1e-3), c.weighted_sums[0] == c.plan.weighted_sums
    (True, True)
    """
    return CountedAttention(*_halfspace(q, k, v, eps, B, oracle))


def _halfspace(q, k, v, eps, B, oracle):
    """attention_halfspace: the output and its :class:`HalfspaceCount`."""
    xp, eps, Q, K, V, vec, out_dtype = _inputs(q, k, v, eps, qdim=2)
    if not _is_numpy(xp):
        raise TypeError("attention_halfspace takes NumPy arrays (q, k, v)")
    n, d = K.shape
    nq, dv = Q.shape[0], V.shape[1]
    _no_overflow(Q, K)
    R, vmax = _value_range(np, V)
    top = max(float(np.max(np.abs(Q))), float(np.max(np.abs(K))), vmax)
    if B is None:
        B = top
    elif real(B, "B") < top * (1 - 1e-12):
        raise ValueError(f"B must be a finite bound on every |entry| ({top:.6g}), got {B!r}")
    budget = _budget(eps, vmax, out_dtype == np.float32, v_range=R)
    plan = attention_halfspace_plan(n, d, budget, B, dv)
    coef, g, _ = _exp_poly(round(plan.width, 12), plan.eta)
    p = np.array(coef)
    alpha = _multi_indices(d, g)
    deg = alpha.sum(1)
    # multinomial |alpha|!/alpha! and binomials, from log-gamma (exact to rounding for these sizes)
    multi = np.exp(special.gammaln(deg + 1) - special.gammaln(alpha + 1).sum(1))
    kpow = np.prod(K[:, None, :] ** alpha[None, :, :], axis=2)  # (n, monomials)
    m = alpha.shape[0]
    V1 = np.concatenate([np.ones((n, 1)), V], axis=1)
    W = np.concatenate([(kpow[:, :, None] * V1[:, None, :]).reshape(n, m * (dv + 1)), np.abs(kpow)], axis=1)
    orc = (oracle or BruteForceHalfspaceOracle)(K, W)
    signed, guard = np.arange(m * (dv + 1)), np.arange(m * (dv + 1), m * (dv + 2))
    lb = np.arange(g + 1)
    binom = special.comb(lb[:, None], lb[None, :])  # binom[l, b]
    s_lo, s_hi = plan.s_range
    h, width, eta = plan.h, plan.width, plan.eta
    out = np.empty((nq, dv))
    search, wsums, sums, shifts = [], [], [], []
    for i in range(nq):
        qi = Q[i]
        s, calls = _grid_max(orc, qi, s_lo, s_hi, h)
        search.append(calls)
        c = (s + 1) * h
        thr = c - width
        phi = np.asarray(orc.sums(qi, thr, signed), dtype=np.float64).reshape(m, dv + 1)
        wsums.append(signed.size)
        absphi = np.asarray(orc.sums(qi, thr, guard), dtype=np.float64)  # the guard: not the algorithm's count
        powc = (-c) ** (lb[:, None] - lb[None, :]) * (lb[:, None] >= lb[None, :])
        a = (p[:, None] * binom * powc).sum(0)  # a_b
        a_abs = (np.abs(p)[:, None] * binom * np.abs(powc)).sum(0)
        qpow = np.prod(qi[None, :] ** alpha, axis=1)
        coefs = a[deg] * multi * qpow
        tot = coefs @ phi
        bound = (2 * g + 8) * _F64_UNIT * float((a_abs[deg] * multi * np.abs(qpow)) @ absphi)
        if not (tot[0] > 0 and bound <= eta * tot[0]):
            raise ValueError(f"the monomial expansion cancels beyond float64 for query {i} (shift c = {c:.3g}: "
                             f"rounding bound {bound:.2g} against eta·denominator {eta * max(tot[0], 0):.2g}); "
                             "use smaller entries or attention_1d / attention_2d")
        out[i] = tot[1:] / tot[0]
        sums.append(tot.tolist())
        shifts.append(c)
    o = _finish(np, out, vec, out_dtype)
    return o, HalfspaceCount(search_calls=search, weighted_sums=wsums, plan=plan, sums=sums, shifts=shifts)


# ----------------------------------------------------------------------------------------------------------------
# the pieces of the algorithms, for studying their truncation


def band_degree(L: float, tol: float) -> int:
    r"""The Chebyshev degree g that :func:`attention_1d` uses on a band of width L for a tolerance ``tol``.

    The smallest g with :math:`4\sum_{a>g} I_a(z)e^{-z} \le` ``tol`` / 2 for every z in [0, L/2] (the interpolation
    error of :math:`e^{-qu}` on a band; the sum is the two-sided tail of a Skellam law with variance z).

    Parameters
    ----------
    L : float > 0
        The window width (:func:`attention_1d_plan`'s ``L``).
    tol : float > 0
        The tolerance of the interpolation.

    Returns
    -------
    int
        The degree g ≥ 1.

    Raises
    ------
    TypeError
        Arguments that are not real numbers.
    ValueError
        ``L`` or ``tol`` not positive and finite.

    Examples
    --------
    >>> from attnlab import attention_1d_plan, band_degree
    >>> plan = attention_1d_plan(1000, 1e-3, 0.0)
    >>> band_degree(round(plan.L, 12), plan.eta / 1000) == plan.g
    True
    """
    return _degree(positive_real(L, "L"), positive_real(tol, "tol"))


def attention_1d_at(q: ArrayLike, k: ArrayLike, v: ArrayLike, L: float, g: int) -> Array:
    r""":func:`attention_1d`'s approximation at a given window width L and degree g (no error budget, no centring).

    :func:`attention_1d` chooses L and g from ε (:func:`attention_1d_plan`) and centres the values first; this runs
    the same band sums at the L and g given, to measure what each choice costs in accuracy.

    Parameters
    ----------
    q, k : array_like (n_q,), (n,)
        Queries and keys (one-dimensional).
    v : array_like (n,) or (n, d_v)
        Values.
    L : float > 0
        Window width.
    g : int ≥ 1
        Chebyshev degree on each band.

    Returns
    -------
    array (n_q,) or (n_q, d_v), float64
        The approximate outputs, the shape of ``v``'s trailing axis kept.

    Raises
    ------
    TypeError
        Arrays that are not real, bool arrays, or arguments of the wrong type.
    ValueError
        NaN or inf, wrong numbers of dimensions, ``v`` not matching ``k``, L or g not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_1d_at
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.uniform(-2, 2, 50), rng.uniform(-2, 2, 60), rng.standard_normal(60)
    >>> p = np.exp(np.outer(q, k))
    >>> bool(np.max(np.abs(attention_1d_at(q, k, v, 12.0, 30) - p @ v / p.sum(1))) < 1e-6)
    True
    """
    xp = namespace_of(q=q, k=k, v=v)
    q, k = _real_array(q, "q", xp, 1), _real_array(k, "k", xp, 1)
    v = _real_array(v, "v", xp, (1, 2))
    if v.shape[0] != k.shape[0]:
        raise ValueError(f"v must have one row per key ({k.shape[0]}), got shape {tuple(v.shape)}")
    vec = v.ndim == 1
    V = v[:, None] if vec else v
    O = _attention_1d_core(xp, q, k, V, positive_real(L, "L"), positive_int(g, "g"))
    return O[:, 0] if vec else O


def exp_poly_degree(width: float, eta: float) -> int:
    r"""The degree of the polynomial that :func:`attention_halfspace` uses for :math:`e^y` on :math:`[-w, 0]`.

    The Chebyshev interpolant of :math:`e^y` of the smallest degree g with
    :math:`4 e^{w/2}\sum_{a>g} I_a(w/2) \le \eta`, so that :math:`|P(y) - e^y| \le \eta e^y` on the interval.

    Parameters
    ----------
    width : float > 0
        The interval's width w.
    eta : float > 0
        The relative tolerance.

    Returns
    -------
    int
        The degree g.

    Raises
    ------
    TypeError
        Arguments that are not real numbers.
    ValueError
        ``width`` or ``eta`` not positive and finite.

    Examples
    --------
    >>> from attnlab import exp_poly_degree
    >>> exp_poly_degree(4.0, 1e-6) < exp_poly_degree(8.0, 1e-6)
    True
    """
    return _exp_poly(positive_real(width, "width"), positive_real(eta, "eta"))[1]


class GridMax(NamedTuple):
    """The result of :func:`grid_max_search`.

    Attributes
    ----------
    s : int
        The largest grid index s with a key of ``q · k >= s h``.
    calls : int
        The counting queries asked of the oracle.

    Examples
    --------
    >>> from attnlab import GridMax
    >>> GridMax(s=10, calls=6).calls
    6
    """
    s: int
    calls: int


def grid_max_search(oracle: object, q: ArrayLike, s_lo: int, s_hi: int, h: float) -> GridMax:
    r"""The row maximum of :func:`attention_halfspace` on the grid :math:`s\,h`, by bisection on a counting oracle.

    Finds the largest s in [``s_lo``, ``s_hi``) with a key k of :math:`q\cdot k \ge s h` (one exists at ``s_lo``,
    none at ``s_hi``), asking ``oracle.count(q, b)`` (the number of keys with :math:`q\cdot k \ge b`).

    Parameters
    ----------
    oracle : object with ``count(q, b)``
        A halfspace counting oracle, such as :class:`BruteForceHalfspaceOracle`.
    q : array_like (d,)
        The query.
    s_lo, s_hi : int
        The bracket, ``s_lo < s_hi``.
    h : float > 0
        The grid step.

    Returns
    -------
    GridMax
        ``s`` and the number of ``calls`` to the oracle (at most ⌈log₂(s_hi − s_lo)⌉).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        ``s_lo >= s_hi`` or ``h`` not positive and finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BruteForceHalfspaceOracle, grid_max_search
    >>> K = np.array([[0.3, 0.0], [1.0, 0.0]])
    >>> grid_max_search(BruteForceHalfspaceOracle(K, np.ones(2)), np.array([1.0, 0.0]), 0, 64, 0.1)
    GridMax(s=10, calls=6)
    """
    q = _real_array(q, "q", namespace_of(q=q), 1)
    s_lo, s_hi = integer(s_lo, "s_lo"), integer(s_hi, "s_hi")
    if not s_lo < s_hi:
        raise ValueError(f"s_lo must be < s_hi, got {s_lo} and {s_hi}")
    return GridMax(*_grid_max(oracle, q, s_lo, s_hi, positive_real(h, "h")))
