r"""Johnson–Lindenstrauss for inner products: bounds, exact tails, decay rates and the dimensions they demand.

Everything here rests on one reduction. For a Gaussian :math:`P\in\mathbb R^{m\times d}`
with :math:`\mathcal N(0,1/m)` entries and unit :math:`u, v` with
:math:`\langle u,v\rangle = c`, the vectors :math:`P(u+v)` and :math:`P(u-v)` are
independent (because :math:`u+v \perp u-v`), so

.. math::
    \langle Pu, Pv\rangle \overset{d}{=} \tfrac{1+c}{2} G_1 - \tfrac{1-c}{2} G_2,
    \qquad G_1, G_2 \overset{iid}{\sim} \chi^2_m/m .

The law depends on :math:`c` alone, so the worst pair :math:`(u,v)` is a
one-dimensional search (:func:`worst_pair_tail`), and tail probabilities are
one-dimensional integrals (:func:`inner_product_tail`), exact up to quadrature error.
The bounds the PDA draft's theorems rest on are :func:`jl_bound_printed`, :func:`jl_bound_chernoff` and
:func:`m_theorem`; the book audits them in chapter 1 (:mod:`attnlab.audit.jl`).

References
----------
- W. B. Johnson, J. Lindenstrauss, "Extensions of Lipschitz mappings into a Hilbert space", 1984.
- S. Dasgupta, A. Gupta, "An elementary proof of a theorem of Johnson and Lindenstrauss", 2003.
- B. Laurent, P. Massart, "Adaptive estimation of a quadratic functional by model selection", 2000.
"""
from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, optimize, special, stats

from ..core._validate import as_float_array, in_open_interval, positive_int, positive_real
from ..core._validate import _NP, as_generator, generator_module, real, real_array, rng_keyword
from ..core._validate import Array, SeedLike

__all__ = [
    "smallest_m",
    "jl_bound_printed",
    "jl_bound_chernoff",
    "inner_product_tail",
    "worst_pair_tail",
    "WorstPair",
    "large_deviation_rate",
    "sample_inner_product_error",
    "m_theorem",
    "m_union_exact",
    "sup_row_tail",
    "m_sup_row",
    "sample_row_max_error",
]


# --------------------------------------------------------------------------- validation
def _real_array(x, name: str, *, integer: bool):
    """``x`` (a number or array-like) as a float array of finite values > 0 (integers >= 1 when ``integer``)."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be {'an integer' if integer else 'a real number'} or an array of them, not bool")
    a = np.asarray(real_array(x, name, _NP), dtype=float)
    if integer and not (a == np.floor(a)).all():
        raise ValueError(f"{name} must be integers, got {x!r}")
    if not (a >= 1 if integer else a > 0).all():
        raise ValueError(f"{name} must be {'>= 1' if integer else '> 0'}, got {x!r}")
    return a


def _inner_product(c, name: str = "c") -> float:
    """``c`` as a float in [-1, 1] (an inner product of unit vectors)."""
    return real(c, name, lo=-1.0, hi=1.0)


# --------------------------------------------------------------------------- bounds
def jl_bound_printed(m: ArrayLike, eps: ArrayLike) -> np.float64 | np.ndarray:
    r"""The bound of PDA's Thm 3.1 as printed: :math:`4e^{-m\epsilon^2/8}` (vectorised).

    The PDA draft claims :math:`\Pr(|\langle Pu,Pv\rangle - \langle u,v\rangle| \ge \epsilon) \le 4e^{-m\epsilon^2/8}`
    for unit u, v and a Gaussian :math:`P\in\mathbb R^{m\times d}` with :math:`\mathcal N(0,1/m)` entries,
    :math:`\epsilon\in(0,1/2)`. The formula is evaluated for any :math:`\epsilon > 0`.

    Parameters
    ----------
    m : int or array_like of int
        Projected dimension(s), >= 1.
    eps : float or array_like of float
        Tolerance(s) on the inner product, finite and > 0. Broadcast against ``m``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The bound, float64, of the broadcast shape of ``m`` and ``eps`` (a scalar for scalars).

    Raises
    ------
    TypeError
        If ``m`` is not integer-valued numbers (bool included) or ``eps`` is not real numbers.
    ValueError
        If ``m`` < 1, ``eps`` <= 0, either holds NaN or inf, or the shapes do not broadcast.

    Examples
    --------
    >>> from attnlab import jl_bound_printed
    >>> round(float(jl_bound_printed(64, 0.5)), 6)
    0.541341
    >>> jl_bound_printed([64, 256], 0.5).round(5).tolist()
    [0.54134, 0.00134]
    """
    m = _real_array(m, "m", integer=True)
    eps = _real_array(eps, "eps", integer=False)
    np.broadcast_shapes(m.shape, eps.shape)
    return 4.0 * np.exp(-m * eps**2 / 8.0)


def jl_bound_chernoff(m: ArrayLike, eps: ArrayLike) -> np.float64 | np.ndarray:
    r"""The bound the standard proof of Thm 3.1 actually gives (polarisation + Chernoff for :math:`\chi^2_m`).

    .. math::
        2\Big[e^{-\frac m2(\epsilon - \log(1+\epsilon))} + e^{-\frac m2(-\epsilon - \log(1-\epsilon))}\Big]
        &\le 4 e^{-m(\epsilon^2/4 - \epsilon^3/6)} \\
        &\le 4e^{-m\epsilon^2/8}\quad (0<\epsilon\le 3/4).

    For :math:`\epsilon \ge 1` the lower tail of :math:`\chi^2_m/m` is empty and its term is 0.

    Parameters
    ----------
    m : int or array_like of int
        Projected dimension(s), >= 1.
    eps : float or array_like of float
        Tolerance(s) on the inner product, finite and > 0. Broadcast against ``m``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The bound, float64, of the broadcast shape of ``m`` and ``eps`` (a scalar for scalars).

    Raises
    ------
    TypeError
        If ``m`` is not integer-valued numbers (bool included) or ``eps`` is not real numbers.
    ValueError
        If ``m`` < 1, ``eps`` <= 0, either holds NaN or inf, or the shapes do not broadcast.

    Examples
    --------
    >>> from attnlab import jl_bound_chernoff, jl_bound_printed
    >>> round(float(jl_bound_chernoff(64, 0.5)), 6)
    0.101242
    >>> bool(jl_bound_chernoff(100, 0.3) < jl_bound_printed(100, 0.3))
    True
    """
    m = _real_array(m, "m", integer=True)
    eps = _real_array(eps, "eps", integer=False)
    np.broadcast_shapes(m.shape, eps.shape)
    up = eps - np.log1p(eps)
    safe = np.where(eps < 1, eps, 0.0)
    lo = np.where(eps < 1, -safe - np.log1p(-safe), np.inf)  # eps >= 1: the lower tail is empty
    return 2.0 * (np.exp(-m / 2 * up) + np.exp(-m / 2 * lo))


# --------------------------------------------------------------------------- exact law
def _check_m_eps(m, eps, eps_name="eps"):
    positive_int(m, "m")
    positive_real(eps, eps_name)


def inner_product_tail(m: int, eps: float, c: float = 1.0) -> float:
    r"""Exact :math:`\Pr(|\langle Pu,Pv\rangle - \langle u,v\rangle| \ge \epsilon)` for unit u, v with ⟨u,v⟩ = c.

    Uses the reduction of the module docstring: with :math:`a=(1+c)/2`,
    :math:`b=(1-c)/2`, :math:`X = aG_1 - bG_2`, and the two tails are
    :math:`\mathbb E_{G_2}[\Pr(G_1 \ge (c+\epsilon+bG_2)/a)]` and
    :math:`\mathbb E_{G_2}[\Pr(G_1 \le (c-\epsilon+bG_2)/a)]`, integrated by
    adaptive quadrature (relative tolerance 1e-10; the range :math:`G_2 > 1 + 60\sqrt{2/m} + 60/m`,
    of probability below 1e-30, is left out); for :math:`|c|=1` the law is :math:`\chi^2_m/m`
    and the tail is closed-form. The tail is even in c.

    Parameters
    ----------
    m : int
        Projected dimension, >= 1 (the rows of P, entries :math:`\mathcal N(0, 1/m)`).
    eps : float
        Tolerance, finite and > 0.
    c : float, default 1.0
        The inner product ⟨u,v⟩ of the two unit vectors, in [-1, 1].

    Returns
    -------
    float
        The tail probability, in [0, 1].

    Raises
    ------
    TypeError
        If ``m`` is not an integer (bool included), or ``eps`` or ``c`` is not a real number.
    ValueError
        If ``m`` < 1, ``eps`` is not finite and > 0, or ``c`` lies outside [-1, 1] (or is NaN).

    Examples
    --------
    >>> from attnlab import inner_product_tail
    >>> round(inner_product_tail(64, 0.3), 6), round(inner_product_tail(64, 0.3, c=0.0), 6)
    (0.086338, 0.01751)
    >>> from scipy import stats                       # at |c| = 1 the law is chi^2_m / m
    >>> exact = stats.chi2.sf(64 * 1.3, 64) + stats.chi2.cdf(64 * 0.7, 64)
    >>> bool(abs(inner_product_tail(64, 0.3, -1.0) - exact) < 1e-15)
    True
    """
    _check_m_eps(m, eps)
    c = abs(_inner_product(c))  # the law of X - c is symmetric under c -> -c
    k, theta = m / 2, 2 / m  # chi^2_m / m is Gamma(m/2, scale 2/m)
    sf = lambda x: special.gammaincc(k, x / theta) if x > 0 else 1.0  # noqa: E731
    cdf = lambda x: special.gammainc(k, x / theta) if x > 0 else 0.0  # noqa: E731
    if c == 1.0:
        return float(sf(1 + eps) + cdf(1 - eps))
    logc = -special.gammaln(k) - k * math.log(theta)
    pdf = lambda y: math.exp(logc + (k - 1) * math.log(y) - y / theta) if y > 0 else 0.0  # noqa: E731
    a, b = (1 + c) / 2, (1 - c) / 2
    sd = math.sqrt(2 / m)
    hi = 1 + 60 * sd + 60 / m
    pts = [p for p in (1 - 8 * sd, 1 - 4 * sd, 1 - 2 * sd, 1.0, 1 + 2 * sd, 1 + 4 * sd, 1 + 8 * sd) if 0 < p < hi]
    total = 0.0
    # G_2 > hi has probability below 1e-30 for every m; that sliver is left out
    for f in (lambda y: pdf(y) * sf((c + eps + b * y) / a), lambda y: pdf(y) * cdf((c - eps + b * y) / a)):
        total += integrate.quad(f, 0, hi, points=pts, epsabs=0, epsrel=1e-10, limit=200)[0]
    return float(total)


class WorstPair(NamedTuple):
    """The worst pair of unit vectors for a projected inner product (:func:`worst_pair_tail`).

    Attributes
    ----------
    c : float
        The maximising inner product ⟨u,v⟩, in [0, 1] (the tail is even in c).
    tail : float
        :func:`inner_product_tail` there.

    Examples
    --------
    >>> from attnlab import worst_pair_tail
    >>> c, tail = worst_pair_tail(64, 0.3)
    >>> worst_pair_tail(64, 0.3).c == c
    True
    """

    c: float
    tail: float


def worst_pair_tail(m: int, eps: float, grid: int = 21) -> WorstPair:
    r"""The worst pair: :math:`\max_{c\in[-1,1]}` of :func:`inner_product_tail`, by grid and bounded refinement.

    The tail is evaluated on ``grid`` equispaced points of [0, 1] (it is even in c) and refined by a bounded
    scalar search between the neighbours of the best grid point. For every (m, ε) tried so far the maximum
    sits at :math:`|c| = 1`, the pair u = ±v.

    Parameters
    ----------
    m : int
        Projected dimension, >= 1.
    eps : float
        Tolerance, finite and > 0.
    grid : int, default 21
        Number of grid points on [0, 1], >= 2.

    Returns
    -------
    WorstPair
        ``c``, the maximising inner product in [0, 1], and ``tail``, the tail probability there.

    Raises
    ------
    TypeError
        If ``m`` or ``grid`` is not an integer (bool included), or ``eps`` is not a real number.
    ValueError
        If ``m`` < 1, ``grid`` < 2, or ``eps`` is not finite and > 0.

    Examples
    --------
    >>> from attnlab import worst_pair_tail
    >>> w = worst_pair_tail(64, 0.3)
    >>> w.c, round(w.tail, 6)
    (1.0, 0.086338)
    """
    _check_m_eps(m, eps)
    if positive_int(grid, "grid") < 2:
        raise ValueError(f"grid must be >= 2, got {grid}")
    cs = np.linspace(0.0, 1.0, grid)
    vals = np.array([inner_product_tail(m, eps, c) for c in cs])
    k = int(np.argmax(vals))
    lo, hi = cs[max(k - 1, 0)], cs[min(k + 1, grid - 1)]
    res = optimize.minimize_scalar(lambda c: -inner_product_tail(m, eps, c), bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-6})
    if -res.fun > vals[k]:
        return WorstPair(float(res.x), float(-res.fun))
    return WorstPair(float(cs[k]), float(vals[k]))


def large_deviation_rate(eps: float, c: float = 1.0) -> float:
    r"""Cramér rate :math:`I` with :math:`\Pr(|X - c|\ge\epsilon) = e^{-mI + o(m)}` for the pair with ⟨u,v⟩ = c.

    Per coordinate :math:`X` is :math:`ag^2 - bh^2` (:math:`a=(1+c)/2`, :math:`b=(1-c)/2`) with cumulant
    generating function :math:`\Lambda(\lambda) = -\tfrac12\log(1-2a\lambda) - \tfrac12\log(1+2b\lambda)`;
    the rate is the smaller of the Legendre transforms at :math:`c\pm\epsilon`.
    For :math:`|c| = 1` it is :math:`\min\{(\epsilon - \log(1+\epsilon))/2,\ (-\epsilon - \log(1-\epsilon))/2\}
    = (\epsilon - \log(1+\epsilon))/2 \approx \epsilon^2/4`, which the printed exponent :math:`\epsilon^2/8` halves.

    Parameters
    ----------
    eps : float
        Tolerance, finite and > 0.
    c : float, default 1.0
        The inner product of the two unit vectors, in [-1, 1].

    Returns
    -------
    float
        The rate I, finite and > 0 (the upper tail is never empty; for ``eps`` >= 1 and :math:`|c| = 1`
        the lower one is, and the rate is that of the upper tail).

    Raises
    ------
    TypeError
        If ``eps`` or ``c`` is not a real number (bool included).
    ValueError
        If ``eps`` is not finite and > 0, or ``c`` lies outside [-1, 1] (or is NaN).

    Examples
    --------
    >>> import math
    >>> from attnlab import large_deviation_rate
    >>> round(large_deviation_rate(0.3), 6), round((0.3 - math.log(1.3)) / 2, 6)
    (0.018818, 0.018818)
    >>> large_deviation_rate(0.3, c=0.0) > large_deviation_rate(0.3, c=1.0)   # the worst pair decays slowest
    True
    """
    eps = positive_real(eps, "eps")
    c = abs(_inner_product(c))
    if c == 1.0:  # chi^2_m / m: closed form; the lower tail is empty when eps >= 1
        return float(min((eps - math.log1p(eps)) / 2, (-eps - math.log1p(-eps)) / 2 if eps < 1 else math.inf))
    a, b = (1 + c) / 2, (1 - c) / 2

    def legendre(t, lo, hi):  # sup over lam in (lo, hi) of lam*t - Lambda(lam)
        f = lambda lam: -(lam * t + 0.5 * math.log1p(-2 * a * lam) + 0.5 * math.log1p(2 * b * lam))  # noqa: E731
        return -optimize.minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}).fun

    shrink = 1 - 1e-12
    return float(min(legendre(c + eps, 0.0, shrink / (2 * a)), legendre(c - eps, -shrink / (2 * b), 0.0)))


@rng_keyword(3)
def sample_inner_product_error(c: float, m: int, trials: int, *, rng: SeedLike = None, method: str = "matrix",
                               chunk: int = 2_000_000) -> Array:
    r"""Monte-Carlo draws of :math:`\langle Pu,Pv\rangle - \langle u,v\rangle` for unit u, v with ⟨u,v⟩ = c.

    ``method="matrix"`` draws genuine Gaussian matrices: ``u = e_1``,
    :math:`v = c e_1 + \sqrt{1-c^2} e_2`, and only the two columns of :math:`P` that
    meet :math:`\mathrm{span}\{u,v\}` enter the inner product, so exactly those
    :math:`m\times 2` entries (:math:`\mathcal N(0, 1/m)`) are drawn per trial, ``chunk`` entries at a time.
    ``method="chi2"`` draws the law of the module docstring,
    :math:`\tfrac{1+c}{2}G_1 - \tfrac{1-c}{2}G_2 - c`, at O(1) cost per trial.
    The two agree in distribution (tests/test_jl.py checks it), not draw by draw.

    Parameters
    ----------
    c : float
        The inner product of the two unit vectors, in [-1, 1].
    m : int
        Projected dimension, >= 1.
    trials : int
        Number of draws, >= 1.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        SciPy's SPEC 7 (or a ``cupy.random.Generator``, which draws CuPy arrays).
        Source of randomness; its backend decides the returned array type.
    method : {"matrix", "chi2"}, default "matrix"
        Genuine projections or the reduced two-chi-square law.
    chunk : int, default 2_000_000
        Entries of P drawn at once by ``method="matrix"`` (a memory cap), >= 1.

    Returns
    -------
    ndarray
        ``trials`` errors, float64, of the backend of ``rng``.

    Raises
    ------
    TypeError
        If ``c`` is not a real number, ``m``, ``trials`` or ``chunk`` not an integer (bool included), or ``rng``
        not a NumPy or CuPy ``Generator``.
    ValueError
        If ``c`` lies outside [-1, 1], ``m``, ``trials`` or ``chunk`` < 1, or ``method`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sample_inner_product_error
    >>> err = sample_inner_product_error(0.5, 64, 100_000, rng=np.random.default_rng(0))
    >>> err.shape, bool(abs(err.mean()) < 0.01), bool(abs(err.std() - np.sqrt((1 + 0.5**2) / 64)) < 0.01)
    ((100000,), True, True)
    """
    rng = as_generator(rng)
    xp = generator_module(rng)
    c = _inner_product(c)
    positive_int(m, "m")
    positive_int(trials, "trials")
    positive_int(chunk, "chunk")
    if method == "chi2":
        return (1 + c) / 2 * rng.chisquare(m, trials) / m - (1 - c) / 2 * rng.chisquare(m, trials) / m - c
    if method != "matrix":
        raise ValueError(f"method must be 'matrix' or 'chi2', got {method!r}")
    s = math.sqrt(max(0.0, 1.0 - c * c))
    out = xp.empty(trials)
    per = max(1, chunk // (2 * m))
    for t0 in range(0, trials, per):
        n = min(per, trials - t0)
        P = rng.standard_normal((n, m, 2)) / math.sqrt(m)
        Pu = P[:, :, 0]
        Pv = c * P[:, :, 0] + s * P[:, :, 1]
        out[t0:t0 + n] = (Pu * Pv).sum(axis=1) - c
    return out


# --------------------------------------------------------------------------- dimension requirements
def m_theorem(d: int, eps: float, n_events: int, delta: float, *, const: float = 2.0) -> int:
    r"""The projection dimension :math:`\lceil (8d/\epsilon^2)\log(\mathrm{const}\cdot n/\delta)\rceil` (at least 1).

    With logits :math:`S_{ij} = \sqrt d\langle q_i, k_j\rangle` of unit-ball vectors, a logit tolerance
    ``eps`` is an inner-product tolerance :math:`\epsilon_0 = \epsilon/\sqrt d`, and a union bound of
    :math:`4e^{-m\epsilon_0^2/8}` over ``n_events`` pairs is at most δ for :math:`m \ge (8d/\epsilon^2)\log(4n/\delta)`.
    ``n_events = L`` with ``const = 2`` is PDA's Thm 3.2 as stated, ``const = 4`` what its proof derives;
    ``n_events = L**2`` gives Thm 3.3 and its proof.

    Parameters
    ----------
    d : int
        Width of the queries and keys, >= 1.
    eps : float
        Tolerance on each logit, finite and > 0.
    n_events : int
        Number of (query, key) pairs the guarantee covers, >= 1.
    delta : float
        Failure probability, in (0, 1).
    const : float, default 2.0
        The constant inside the logarithm, finite and > 0.

    Returns
    -------
    int
        The smallest positive integer m with :math:`m \ge (8d/\epsilon^2)\log(\mathrm{const}\cdot n/\delta)`.

    Raises
    ------
    TypeError
        If ``d`` or ``n_events`` is not an integer (bool included), or ``eps``, ``delta`` or ``const`` not a real
        number.
    ValueError
        If ``d`` or ``n_events`` < 1, ``eps`` or ``const`` is not finite and > 0, ``delta`` is outside (0, 1),
        or ``eps`` is so small that the required m exceeds float64.

    Examples
    --------
    >>> from attnlab import m_theorem
    >>> m_theorem(64, 0.5, 1000, 0.1), m_theorem(64, 0.5, 1000, 0.1, const=4)   # stated, and its proof
    (20283, 21702)
    """
    positive_int(d, "d")
    positive_real(eps, "eps")
    positive_int(n_events, "n_events")
    in_open_interval(delta, 0.0, 1.0, "delta")
    positive_real(const, "const")
    m = 8 * d / eps**2 * math.log(const * n_events / delta) if eps**2 > 0 else math.inf
    if not math.isfinite(m):
        raise ValueError(f"eps = {eps:g} is too small for d = {d}: the required m is beyond float64")
    return max(1, int(math.ceil(m)))


def _smallest_m(ok, lo=1, hi=1 << 40, *, hint=""):
    """Smallest integer m in [lo, hi] with ok(m) true, for monotone ok (doubling, then bisection)."""
    m = lo
    while not ok(m):
        lo = m + 1
        m *= 2
        if m > hi:
            raise ValueError(f"no m up to {hi} satisfies the condition{hint}")
    return lo + bisect.bisect_left(range(lo, m + 1), True, key=ok)


def smallest_m(ok: Callable[[int], bool], lo: int = 1, hi: int = 1 << 40) -> int:
    """The smallest integer m in [lo, hi] with ``ok(m)`` true, for a monotone predicate (false, then true).

    Doubling from ``lo`` until ``ok`` holds, then bisection: about 2 log₂ m calls of ``ok``. The dimension formulas
    here (:func:`m_union_exact`, :func:`m_sup_row`) use it with exact tails.

    Parameters
    ----------
    ok : callable int -> bool
        The monotone condition.
    lo, hi : int ≥ 1
        The range searched.

    Returns
    -------
    int
        The smallest m with ``ok(m)``.

    Raises
    ------
    TypeError
        ``ok`` not callable, ``lo`` or ``hi`` not integers.
    ValueError
        ``lo`` < 1, ``hi`` < ``lo``, or no m up to ``hi`` satisfies ``ok``.

    Examples
    --------
    >>> from attnlab import smallest_m
    >>> smallest_m(lambda m: m * m >= 1000)
    32
    """
    if not callable(ok):
        raise TypeError(f"ok must be callable, not {type(ok).__name__}")
    lo, hi = positive_int(lo, "lo"), positive_int(hi, "hi")
    if hi < lo:
        raise ValueError(f"hi must be >= lo = {lo}, got {hi}")
    return _smallest_m(ok, lo, hi)


def m_union_exact(eps0: float, n_events: int, delta: float) -> int:
    r"""Smallest m with :math:`n\cdot\max_c \Pr(|X_c - c|\ge\epsilon_0) \le \delta`: the union bound with exact tails.

    The worst pair is :math:`|c| = 1` (the :math:`\chi^2_m/m` law; see
    :func:`worst_pair_tail`), so the tail is closed-form per m; the smallest m is found by doubling
    and bisection (the tail falls with m).

    Parameters
    ----------
    eps0 : float
        Tolerance on the inner product of unit vectors, finite and > 0 (a logit tolerance ε is
        :math:`\epsilon_0 = \epsilon/\sqrt d`).
    n_events : int
        Number of pairs the guarantee covers, >= 1.
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    int
        The smallest such m, >= 1.

    Raises
    ------
    TypeError
        If ``n_events`` is not an integer (bool included), or ``eps0`` or ``delta`` is not a real number.
    ValueError
        If ``n_events`` < 1, ``eps0`` is not finite and > 0, ``delta`` is outside (0, 1), or no m up to
        2**40 suffices.

    Examples
    --------
    >>> from attnlab import inner_product_tail, m_union_exact
    >>> m = m_union_exact(0.0625, 1000, 0.1)
    >>> m, 1000 * inner_product_tail(m, 0.0625) <= 0.1 < 1000 * inner_product_tail(m - 1, 0.0625)
    (7783, True)
    """
    positive_real(eps0, "eps0")
    positive_int(n_events, "n_events")
    in_open_interval(delta, 0.0, 1.0, "delta")
    return _smallest_m(lambda m: n_events * inner_product_tail(m, eps0, 1.0) <= delta,
                       hint=f" (eps0 = {eps0:g} and delta = {delta:g} ask too much)")


def sup_row_tail(m: int, eps0: float, d: int) -> float:
    r"""Exact :math:`\Pr(\|(P^\top P - I)q\|_2 \ge \epsilon_0)` for a unit q: a row's error bound for *every* key set.

    :math:`\sup_{\|k\|\le1}|\langle Pq,Pk\rangle - \langle q,k\rangle| = \|(P^\top P-I)q\|_2`, and with
    :math:`G=\|Pq\|^2 \sim \chi^2_m/m` and :math:`Y\sim\chi^2_{d-1}` independent,
    :math:`\|(P^\top P-I)q\|^2 = (G-1)^2 + G\,Y/m`. Integrated over G by adaptive quadrature
    (relative tolerance 1e-9).

    Parameters
    ----------
    m : int
        Projected dimension, >= 1.
    eps0 : float
        Tolerance on the inner products with unit-ball keys, finite and > 0.
    d : int
        Width of the query and keys, >= 1.

    Returns
    -------
    float
        The probability that some key of norm at most one sees an error of at least ``eps0``.

    Raises
    ------
    TypeError
        If ``m`` or ``d`` is not an integer (bool included), or ``eps0`` is not a real number.
    ValueError
        If ``m`` or ``d`` < 1, or ``eps0`` is not finite and > 0.

    Examples
    --------
    >>> from attnlab import inner_product_tail, sup_row_tail
    >>> round(sup_row_tail(1000, 0.3, 8), 12)
    4.627e-09
    >>> sup_row_tail(1000, 0.3, 8) >= inner_product_tail(1000, 0.3)   # the supremum covers the pair k = q
    True
    """
    _check_m_eps(m, eps0, "eps0")
    positive_int(d, "d")
    G = stats.gamma(m / 2, scale=2 / m)
    Y = stats.chi2(d - 1) if d > 1 else None

    def cond(g):  # Pr(norm >= eps0 | G = g)
        rest = eps0**2 - (g - 1) ** 2
        if rest <= 0:
            return 1.0
        return float(Y.sf(m * rest / g)) if Y is not None else 0.0

    a, b = max(0.0, 1 - eps0), 1 + eps0
    inside = integrate.quad(lambda g: G.pdf(g) * cond(g), a, b, epsabs=0, epsrel=1e-9, limit=200)[0]
    return float(inside + G.cdf(a) + G.sf(b))


def m_sup_row(d: int, eps0: float, delta: float) -> int:
    r"""Smallest m with :func:`sup_row_tail` ≤ δ: a row guarantee for any keys in the unit ball, whatever L.

    Parameters
    ----------
    d : int
        Width of the query and keys, >= 1.
    eps0 : float
        Tolerance on the inner products with unit-ball keys, finite and > 0.
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    int
        The smallest m, found by doubling and bisection.

    Raises
    ------
    TypeError
        If ``d`` is not an integer (bool included), or ``eps0`` or ``delta`` is not a real number.
    ValueError
        If ``d`` < 1, ``eps0`` is not finite and > 0, ``delta`` is outside (0, 1), or no m up to 2**40 suffices.

    Examples
    --------
    >>> from attnlab import m_sup_row, sup_row_tail
    >>> m = m_sup_row(8, 0.3, 0.1)
    >>> m, sup_row_tail(m, 0.3, 8) <= 0.1 < sup_row_tail(m - 1, 0.3, 8)
    (170, True)
    """
    positive_int(d, "d")
    positive_real(eps0, "eps0")
    in_open_interval(delta, 0.0, 1.0, "delta")
    return _smallest_m(lambda m: sup_row_tail(m, eps0, d) <= delta,
                       hint=f" (eps0 = {eps0:g} and delta = {delta:g} ask too much)")


@rng_keyword(4)
def sample_row_max_error(K: ArrayLike, q: ArrayLike, m: int, trials: int, *, rng: SeedLike = None) -> Array:
    r"""Draws of :math:`\max_j |\langle Pq,Pk_j\rangle - \langle q,k_j\rangle|` for a fixed query q and keys K.

    Exact in law and cheap: the errors are :math:`k_j^\top w` with
    :math:`w=(P^\top P - I)q`, and for unit q, :math:`w = R\,(G-1,\ \sqrt{G/m}\,z)`
    with :math:`G\sim\chi^2_m/m`, :math:`z\sim\mathcal N(0,I_{d-1})` and R a
    (Householder) reflection taking :math:`e_1` to q; a general q scales w by :math:`\|q\|`.
    Cost O(trials·L·d), with no m×d matrix.

    Parameters
    ----------
    K : ndarray, shape (L, d)
        Keys, real floating (integers are promoted), finite, L >= 1. Computed in float64.
    q : ndarray, shape (d,)
        The query, real floating, finite. A zero query gives zero errors without drawing.
    m : int
        Projected dimension, >= 1.
    trials : int
        Number of draws, >= 1.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        SciPy's SPEC 7 (or a ``cupy.random.Generator``, which draws CuPy arrays).
        Source of randomness; its backend must be that of ``K`` and ``q``.

    Returns
    -------
    ndarray
        ``trials`` maxima over the L keys, float64.

    Raises
    ------
    TypeError
        If ``K`` or ``q`` is not a real array, ``m`` or ``trials`` not an integer (bool included), or ``rng``
        not a NumPy or CuPy ``Generator``.
    ValueError
        If ``K`` is not 2-D with L >= 1 and d >= 1, ``q`` is not 1-D of length d, either holds NaN or inf,
        ``m`` or ``trials`` < 1, or the errors overflow float64 (rescale ``K`` or ``q``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sample_row_max_error, sup_row_tail
    >>> rng = np.random.default_rng(0)
    >>> K = rng.standard_normal((100, 8)); K /= np.linalg.norm(K, axis=1, keepdims=True)
    >>> err = sample_row_max_error(K, K[0], 256, 20_000, rng=rng)
    >>> err.shape, float((err >= 0.3).mean()) <= sup_row_tail(256, 0.3, 8)   # a row never beats the supremum
    ((20000,), True)
    """
    rng = as_generator(rng)
    xp = generator_module(rng)
    K = as_float_array(K, "K", ndim=2)
    q = as_float_array(q, "q", ndim=1)
    L, d = K.shape
    if L < 1 or d < 1:
        raise ValueError(f"K must have positive dimensions, got shape {tuple(K.shape)}")
    if q.shape[0] != d:
        raise ValueError(f"q must have the width d = {d} of K, got shape {tuple(q.shape)}")
    positive_int(m, "m")
    positive_int(trials, "trials")
    K = K.astype(xp.float64, copy=False)
    q = q.astype(xp.float64, copy=False)
    nq = float(xp.linalg.norm(q))
    if nq == 0.0:
        return xp.zeros(trials)
    u = q / nq
    e1 = xp.zeros(d)
    e1[0] = 1.0
    h = e1 - u
    hn = float(xp.linalg.norm(h))
    G = rng.chisquare(m, trials) / m
    W = xp.empty((trials, d))
    W[:, 0] = G - 1
    W[:, 1:] = xp.sqrt(G / m)[:, None] * rng.standard_normal((trials, d - 1))
    if hn > 1e-12:  # Householder reflection R = I - 2hh^T/|h|^2 maps e1 to u
        h = h / hn
        W = W - 2 * (W @ h)[:, None] * h[None, :]
    W *= nq
    out = xp.zeros(trials)
    # tiles of about 2^19 errors (4 MB, cache-sized): a running maximum over blocks of keys, |.| in place
    tstep = min(trials, 4096)
    kstep = max(64, 2**19 // tstep)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, naming the arguments
        for t0 in range(0, trials, tstep):
            Wt = xp.ascontiguousarray(W[t0:t0 + tstep].T)
            best = out[t0:t0 + tstep]
            for k0 in range(0, L, kstep):
                E = K[k0:k0 + kstep] @ Wt
                xp.abs(E, out=E)
                xp.maximum(best, E.max(axis=0), out=best)
    if not bool(xp.isfinite(out).all()):
        raise ValueError("K and q are too large: the errors overflow float64 (rescale K or q)")
    return out
