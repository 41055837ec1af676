r"""The continuum sphere of the approximation-rank laws, evaluated without materialising it.

Queries anywhere on :math:`S^{d-1}`, keys the uniform measure σ on it (the limit of many equal-weight tokens), rows
:math:`p_x(k) = e^{\beta\langle x,k\rangle}/Z(\beta)`, row-ℓ1 error the :math:`L^1(\sigma)` distance. Both
certificates depend on one angle only, so they are exact at any β:

* upper: the Funk–Hecke (Gegenbauer) expansion of :math:`e^{\beta t}` truncated at degree N, a kernel of rank
  :math:`\dim\mathcal H_{\le N}(S^{d-1})` (:func:`sphere_harmonic_upper`, :func:`harmonic_dimension`);
* lower: message queries at pairwise angle > 2ρ, own sets the caps of radius ρ (:func:`cap_radius`,
  :func:`sphere_cap_mass`); a maximal such set has at least :math:`1/\sigma(\mathrm{cap}_{2\rho})` points
  (:func:`sphere_gv_lower`, :func:`cap_area`).

An explicit packing is :func:`sphere_packing`, and its lower certificate :func:`sphere_lower_count`. Everything
here is one-dimensional quadrature on NumPy.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, spatial, special

from ..core._results import former_dict
from ..core._validate import SeedLike
from ..core._validate import (as_float_array, as_generator, nonnegative_int, positive_int, positive_real, real,
                              rng_keyword)
from ..core._validate import certificate_eps as _eps
from .instances import sphere_points

__all__ = [
    "sphere_cap_mass",
    "cap_area",
    "cap_radius",
    "harmonic_dimension",
    "harmonic_coefficients",
    "HarmonicUpper",
    "sphere_harmonic_upper",
    "SphereLower",
    "sphere_gv_lower",
    "sphere_packing",
    "sphere_lower_count",
]


def _sphere_dim(d):
    d = positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be >= 2 for the sphere S^(d-1), got {d}")
    return d


@functools.lru_cache(maxsize=1)
def _leggauss(n=400):
    return np.polynomial.legendre.leggauss(n)


def sphere_cap_mass(d: int, beta: float, rho: ArrayLike) -> float | np.ndarray:
    r"""Mass that :math:`p_x(k)\propto e^{\beta\langle x,k\rangle}` (k uniform on :math:`S^{d-1}`) puts on the cap
    of angular radius ρ around x:
    :math:`\int_0^\rho e^{\beta(\cos\theta-1)}\sin^{d-2}\theta\,d\theta \big/ \int_0^\pi(\cdot)`.

    Gauss–Legendre quadrature (400 nodes) on [0, ρ] and on [0, π] split at 60/√β, beyond which the
    integrand is below e^(−1000); vectorised over ρ.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension (the sphere :math:`S^{d-1}`).
    beta : float > 0
        Inverse temperature.
    rho : float or array of floats ≥ 0
        Angular radii (beyond π the cap is the whole sphere).

    Returns
    -------
    float or array of the shape of ``rho``

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, β ≤ 0 or not finite, ρ negative, NaN or inf.

    Examples
    --------
    >>> import math
    >>> from attnlab import sphere_cap_mass
    >>> round(sphere_cap_mass(3, 1e-9, math.pi / 2), 6), sphere_cap_mass(3, 10.0, math.pi)   # β → 0: the area
    (0.5, 1.0)
    """
    d = _sphere_dim(d)
    positive_real(beta, "beta")
    r = as_float_array(rho, "rho")
    if bool((r < 0).any()):
        raise ValueError("rho must be >= 0")
    return _cap_mass(d, beta, rho)


def _cap_mass(d, beta, rho):
    x, w = _leggauss()
    f = lambda t: np.exp(beta * (np.cos(t) - 1)) * np.sin(t) ** (d - 2)  # noqa: E731

    def integral(lo, hi):
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        t = (hi - lo)[..., None] / 2 * x + (hi + lo)[..., None] / 2
        return (f(t) * w).sum(axis=-1) * (hi - lo) / 2

    cut = min(math.pi, 60 / math.sqrt(beta))
    den = integral(0.0, cut) + (integral(cut, math.pi) if cut < math.pi else 0.0)
    rho = np.asarray(rho, float)
    num = np.where(rho <= cut, integral(np.zeros_like(rho), np.minimum(rho, cut)), den)
    out = num / den
    return float(out) if out.ndim == 0 else out


def cap_area(d: int, angle: float) -> float:
    r"""Normalised area :math:`\sigma(\mathrm{cap}_\theta)` of a cap of angular radius θ on :math:`S^{d-1}`:
    :math:`\tfrac12 I_{\sin^2\theta}(\tfrac{d-1}2,\tfrac12)` for θ ≤ π/2 (regularised incomplete beta), and
    1 minus the complementary cap beyond.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension.
    angle : float in [0, π]
        Angular radius.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, angle outside [0, π].

    Examples
    --------
    >>> import math
    >>> from attnlab import cap_area
    >>> round(cap_area(3, math.pi / 3), 12)   # (1 − cos θ)/2 on S^2
    0.25
    """
    d = _sphere_dim(d)
    angle = real(angle, "angle", lo=0.0, hi=math.pi)
    half = 0.5 * float(special.betainc((d - 1) / 2, 0.5, math.sin(angle) ** 2))
    return half if angle <= math.pi / 2 else 1.0 - half


def cap_radius(d: int, beta: float, eps: float) -> float:
    """The angular radius ρ of a cap around x carrying :math:`p_x`-mass > (1+ε)/2 (ε < 1): the root of
    :func:`sphere_cap_mass` = (1+ε)/2 (Brent), enlarged by a relative 1e-9 so the inequality is strict.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension.
    beta : float > 0
        Inverse temperature.
    eps : float in (0, 1)
        Tolerance.

    Returns
    -------
    float in (0, π(1 + 1e-9)]

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, β ≤ 0 or not finite, ε outside (0, 1).

    Examples
    --------
    >>> from attnlab import cap_radius, sphere_cap_mass
    >>> rho = cap_radius(3, 100.0, 0.5)
    >>> bool(sphere_cap_mass(3, 100.0, rho) > 0.75 > sphere_cap_mass(3, 100.0, 0.99 * rho))
    True
    """
    d = _sphere_dim(d)
    positive_real(beta, "beta")
    if _eps(eps) >= 1:
        raise ValueError(f"eps must be < 1 (no cap carries mass > (1 + eps)/2 >= 1), got {eps}")
    thr = (1 + eps) / 2
    return optimize.brentq(lambda t: _cap_mass(d, beta, t) - thr, 1e-12, math.pi, xtol=1e-14) * (1 + 1e-9)


@former_dict(M="bound")
class SphereLower(NamedTuple):
    r"""A lower certificate of the continuum sphere: the result of :func:`sphere_gv_lower` (the packing bound,
    no points drawn) and of :func:`sphere_lower_count` (an explicit packing).

    It replaced a dict: ``x["rho"]`` still works, and ``x["M"]`` is ``x.bound``, each with a ``DeprecationWarning``.

    Attributes
    ----------
    d : int
        Ambient dimension (the sphere :math:`S^{d-1}`).
    beta : float
        Inverse temperature.
    eps : float
        Tolerance.
    rho : float
        Radius of the own caps (π for ε ≥ 1).
    bound : int
        The certified lower bound M on :math:`r_\epsilon` (the number of messages).
    mass : float
        Own-cap mass of a message (> (1 + ε)/2).
    candidates : int or None
        The candidates the packing was screened from (None for :func:`sphere_gv_lower`, which draws none).

    Examples
    --------
    >>> from attnlab import sphere_gv_lower
    >>> x = sphere_gv_lower(2, 1e4, 0.25)
    >>> x.bound, x.candidates
    (178, None)
    """
    d: int
    beta: float
    eps: float
    rho: float
    bound: int
    mass: float
    candidates: int | None = None


def sphere_gv_lower(d: int, beta: float, eps: float) -> SphereLower:
    r"""Lower certificate of the continuum sphere at (β, ε), without constructing the messages.

    ρ is the smallest angle (root of :func:`sphere_cap_mass` = (1+ε)/2, enlarged by a relative 1e-9) with own-cap
    mass > (1+ε)/2. A maximal set of points at pairwise angle > 2ρ exists (the sphere is compact) and its
    closed caps of radius 2ρ cover the sphere, so it has :math:`M\ge\lceil 1/\sigma(\mathrm{cap}_{2\rho})\rceil`
    points; their caps of radius ρ are disjoint, so :math:`r_\epsilon\ge M` by the lower-certificate lemma.
    For ε ≥ 1, M = 0 (the zero matrix is within ε).

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension.
    beta : float > 0
        Inverse temperature.
    eps : float in (0, 2)
        Tolerance.

    Returns
    -------
    SphereLower
        d, beta, eps, rho, bound (the certificate M), mass (own-cap mass); ``candidates`` is None.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, β ≤ 0 or not finite, ε outside (0, 2).

    Examples
    --------
    >>> from attnlab import sphere_gv_lower
    >>> sphere_gv_lower(2, 1e4, 0.25).bound
    178
    """
    d = _sphere_dim(d)
    positive_real(beta, "beta")
    eps = _eps(eps)
    if eps >= 1:  # the zero matrix is within ε
        return SphereLower(d=d, beta=float(beta), eps=eps, rho=math.pi, bound=0, mass=1.0)
    rho = cap_radius(d, beta, eps)
    M = 1 if 2 * rho >= math.pi else math.ceil(1 / cap_area(d, 2 * rho))
    return SphereLower(d=d, beta=float(beta), eps=eps, rho=rho, bound=int(M), mass=float(_cap_mass(d, beta, rho)))


def harmonic_dimension(d: int, N: int) -> int:
    r""":math:`\dim\mathcal H_{\le N}(S^{d-1})`, the restrictions to the sphere of polynomials of degree ≤ N:
    :math:`\binom{N+d-1}{d-1}+\binom{N+d-2}{d-1}`.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension.
    N : int ≥ 0
        Degree.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, N < 0.

    Examples
    --------
    >>> from attnlab import harmonic_dimension
    >>> harmonic_dimension(2, 3), harmonic_dimension(3, 3)   # 2N + 1 and (N + 1)^2
    (7, 16)
    """
    d = _sphere_dim(d)
    N = nonnegative_int(N, "N")
    return math.comb(N + d - 1, d - 1) + (math.comb(N + d - 2, d - 1) if N >= 1 else 0)


def _harmonic_coefficients(d, beta, n):
    r"""b_n with :math:`e^{\beta t}/Z = \sum_n b_n C_n^{\lambda}(t)`, λ = (d − 2)/2 (for d = 2: Chebyshev T_n).

    Funk–Hecke / Gegenbauer:
    :math:`e^{\beta t} = \Gamma(\lambda)(\beta/2)^{-\lambda}\sum_n(n+\lambda)I_{n+\lambda}(\beta) C_n^\lambda(t)`, and
    :math:`Z = \Gamma(\lambda+1)(2/\beta)^\lambda I_\lambda(\beta)`, so
    :math:`b_n = \frac{n+\lambda}{\lambda}\frac{I_{n+\lambda}(\beta)}{I_\lambda(\beta)}`; for d = 2,
    :math:`b_0 = 1`, :math:`b_n = 2I_n(\beta)/I_0(\beta)`. Exponentially scaled Bessel functions (``ive``)."""
    lam = (d - 2) / 2
    n = np.arange(n + 1, dtype=float)
    if d == 2:
        b = 2 * special.ive(n, beta) / special.ive(0, beta)
        b[0] = 1.0
        return b
    return (n + lam) / lam * special.ive(n + lam, beta) / special.ive(lam, beta)


def harmonic_coefficients(d: int, beta: float, n: int) -> np.ndarray:
    r"""The Funk–Hecke coefficients :math:`b_0,\dots,b_n` of a row of the continuum sphere: the expansion
    :math:`e^{\beta t}/Z(\beta) = \sum_k b_k C_k^{\lambda}(t)` in Gegenbauer polynomials, λ = (d − 2)/2
    (for d = 2, Chebyshev polynomials :math:`T_k`).

    :math:`b_k = \frac{k+\lambda}{\lambda}\frac{I_{k+\lambda}(\beta)}{I_\lambda(\beta)}`; for d = 2,
    :math:`b_0 = 1` and :math:`b_k = 2I_k(\beta)/I_0(\beta)` (exponentially scaled Bessel functions). Truncating at
    degree N gives :func:`sphere_harmonic_upper`'s certificate.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension (the sphere :math:`S^{d-1}`).
    beta : float > 0
        Inverse temperature.
    n : int ≥ 0
        The highest degree.

    Returns
    -------
    array (n + 1,), float64
        :math:`b_0, \dots, b_n`.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, ``beta`` ≤ 0 or not finite, n < 0.

    Examples
    --------
    >>> from attnlab import harmonic_coefficients
    >>> b = harmonic_coefficients(2, 1.0, 3)
    >>> float(b[0]), bool(b[1] > b[2] > b[3] > 0)
    (1.0, True)
    """
    return _harmonic_coefficients(_sphere_dim(d), positive_real(beta, "beta"), nonnegative_int(n, "n"))


def _zonal_nodes(d, panels, nodes_per_panel):
    """Composite Gauss–Legendre nodes θ on [0, π] and weights of the law of θ = arccos⟨x, k⟩, k ~ σ."""
    x, w = np.polynomial.legendre.leggauss(nodes_per_panel)
    h = math.pi / panels
    th = (np.arange(panels)[:, None] * h + (x + 1) / 2 * h).ravel()
    mu = np.tile(w * h / 2, panels) * np.sin(th) ** (d - 2)
    return th, mu / (math.sqrt(math.pi) * math.exp(special.gammaln((d - 1) / 2) - special.gammaln(d / 2)))


def _zonal_errors(d, beta, b, th, mu, n_stop=None, eps=None, last_only=False):
    """L1(σ) errors of the partial sums p_0, p_1, ... at the nodes; stops at n_stop or at the first error ≤ eps.
    With ``last_only`` only the error of the last partial sum is computed (and returned as a one-element list)."""
    lam = (d - 2) / 2
    t = np.cos(th)
    if d == 2:
        logZ = math.log(special.ive(0, beta))
    else:
        logZ = special.gammaln(d / 2) + lam * math.log(2 / beta) + math.log(special.ive(lam, beta))
    p = np.exp(beta * (t - 1) - logZ)  # e^{βt}/Z with Z = e^β · (scaled Z)
    S = np.zeros_like(t)
    t2, tmp = 2 * t, np.empty_like(t)  # the recurrence's 2t, and one scratch array for every step (no allocations)

    def error():
        np.subtract(p, S, out=tmp)
        np.abs(tmp, out=tmp)
        np.multiply(tmp, mu, out=tmp)
        return float(tmp.sum())

    c_prev = c_prev2 = None
    errs = []
    for n in range(b.size if n_stop is None else n_stop + 1):
        if d == 2:
            c = np.cos(n * th)
        elif n == 0:
            c = np.ones_like(t)
        elif n == 1:
            c = 2 * lam * t
        else:
            c = (t2 * (n + lam - 1) * c_prev - (n + 2 * lam - 2) * c_prev2) / n
        c_prev2, c_prev = c_prev, c
        np.multiply(c, b[n], out=tmp)
        S += tmp
        if last_only:
            continue
        errs.append(error())
        if eps is not None and errs[-1] <= eps:
            break
    if last_only:
        errs = [error()]
    return errs, float((p * mu).sum())


@former_dict(rank="bound")
class HarmonicUpper(NamedTuple):
    r"""The zonal-harmonic upper certificate of the continuum sphere: the result of :func:`sphere_harmonic_upper`.

    It replaced a dict: ``c["N"]`` still works, and ``c["rank"]`` is ``c.bound``, each with a
    ``DeprecationWarning``.

    Attributes
    ----------
    d : int
        Ambient dimension.
    beta : float
        Inverse temperature.
    eps : float
        Tolerance.
    N : int
        The truncation degree.
    bound : int
        The certified upper bound :math:`\dim\mathcal H_{\le N}(S^{d-1})` on :math:`r_\epsilon`.
    error : float
        The :math:`L^1(\sigma)` error of the truncation (the finer quadrature).
    quadrature_gap : float
        The difference of the two quadratures; ``error + quadrature_gap`` ≤ ε.
    mass : float
        The quadrature of p (1 up to rounding).
    nodes : int
        Number of quadrature nodes of the finer rule.

    Examples
    --------
    >>> from attnlab import sphere_harmonic_upper
    >>> c = sphere_harmonic_upper(2, 100.0, 0.25)
    >>> c.bound == 2 * c.N + 1
    True
    """
    d: int
    beta: float
    eps: float
    N: int
    bound: int
    error: float
    quadrature_gap: float
    mass: float
    nodes: int


def sphere_harmonic_upper(d: int, beta: float, eps: float, *, nodes_per_degree: int = 8,
                          n_max: int | None = None) -> HarmonicUpper:
    r"""Upper certificate of the continuum sphere: the expansion of :math:`p_x(k)=e^{\beta\langle x,k\rangle}/Z` in
    zonal harmonics truncated at the smallest degree N with :math:`L^1(\sigma)` error ≤ ε.

    :math:`p_N(x,k) = \sum_{n\le N} b_n C_n^\lambda(\langle x,k\rangle)` is, by the addition theorem, a sum of
    :math:`\dim\mathcal H_{\le N}` products :math:`Y(x)Y(k)`, so every query row lies in one space of that
    dimension: r_ε ≤ ``bound``. The error :math:`\int|p-p_N|\,d\sigma` depends on t = ⟨x, k⟩ only and is
    computed by composite Gauss–Legendre quadrature in θ = arccos t (``nodes_per_degree`` nodes per panel, one
    panel per degree of the largest N tried, plus 64), with :math:`C_n^\lambda` by the three-term recurrence
    (cos nθ for d = 2). The kinks of :math:`|p-p_N|` limit that quadrature's accuracy, so at the first N it
    accepts, the error is recomputed on four times as many panels: N is accepted when that error plus the
    difference of the two quadratures (``quadrature_gap``) is ≤ ε, and ``error`` is the finer value.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension.
    beta : float > 0
        Inverse temperature.
    eps : float in (0, 2)
        Tolerance.
    nodes_per_degree : int ≥ 1
        Gauss–Legendre nodes per panel.
    n_max : int ≥ 1, optional
        Largest degree tried first (doubled until the certificate is found).

    Returns
    -------
    HarmonicUpper
        d, beta, eps, N, bound (the rank), error, quadrature_gap, ``mass`` (the quadrature of p, 1 up to rounding) and
        ``nodes`` (number of quadrature nodes).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, β ≤ 0 or not finite, ε outside (0, 2), nodes_per_degree or n_max < 1.

    Examples
    --------
    >>> from attnlab import sphere_harmonic_upper
    >>> c = sphere_harmonic_upper(2, 100.0, 0.25)
    >>> c.bound == 2 * c.N + 1 and c.error + c.quadrature_gap <= 0.25
    True
    """
    d = _sphere_dim(d)
    beta = positive_real(beta, "beta")
    eps = _eps(eps)
    positive_int(nodes_per_degree, "nodes_per_degree")
    if n_max is not None:
        positive_int(n_max, "n_max")
    if n_max is None:
        n_max = int(math.ceil(1.5 * math.sqrt(beta * d * math.log(8 / eps)))) + 20  # doubled below if too small
    panels = n_max + 64
    b = _harmonic_coefficients(d, beta, n_max)
    th, mu = _zonal_nodes(d, panels, nodes_per_degree)
    fth, fmu = _zonal_nodes(d, 4 * panels, nodes_per_degree)
    errs, mass = _zonal_errors(d, beta, b, th, mu, eps=eps)
    while errs[-1] <= eps:
        N = len(errs) - 1
        fine = _zonal_errors(d, beta, b, fth, fmu, n_stop=N, last_only=True)[0][-1]
        gap = abs(fine - errs[-1])
        if fine + gap <= eps:
            return HarmonicUpper(d=d, beta=float(beta), eps=eps, N=N, bound=harmonic_dimension(d, N), error=fine,
                                 quadrature_gap=gap, mass=mass, nodes=int(fth.size))
        if N == n_max:
            break
        more, _ = _zonal_errors(d, beta, b, th, mu, n_stop=n_max, eps=None)
        nxt = [n for n in range(N + 1, n_max + 1) if more[n] <= eps]
        if not nxt:
            break
        errs = more[:nxt[0] + 1]
    return sphere_harmonic_upper(d, beta, eps, nodes_per_degree=nodes_per_degree, n_max=2 * n_max)


@rng_keyword(3)
def sphere_packing(d: int, angle: float, n_candidates: int, *, rng: SeedLike = None) -> np.ndarray:
    r"""Points on :math:`S^{d-1}` at pairwise angle > ``angle``: random candidates screened greedily with a k-d tree
    (each accepted point blocks its neighbours within chord :math:`2\sin(\text{angle}/2)`).

    Parameters
    ----------
    d : int ≥ 1
        Ambient dimension.
    angle : float in (0, π]
        The separation.
    n_candidates : int ≥ 1
        Number of uniform candidates.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    array (M, d)
        The packing (unit rows).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d or ``n_candidates`` < 1, ``angle`` outside (0, π].

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sphere_packing
    >>> P = sphere_packing(2, 1.0, 500, rng=np.random.default_rng(0))
    >>> G = P @ P.T - 2 * np.eye(len(P))
    >>> bool(np.arccos(G.max()) > 1.0) and len(P) <= 6
    True
    """
    positive_int(d, "d")
    if positive_real(angle, "angle") > math.pi:
        raise ValueError(f"angle must lie in (0, π], got {angle}")
    positive_int(n_candidates, "n_candidates")
    X = sphere_points(n_candidates, d, rng=rng)
    chord = 2 * math.sin(angle / 2)
    tree = spatial.cKDTree(X)
    taken = np.zeros(n_candidates, dtype=bool)
    blocked = np.zeros(n_candidates, dtype=bool)
    for i in range(n_candidates):  # a loop over accepted points; each blocks its neighbours in one tree query
        if not blocked[i]:
            taken[i] = True
            blocked[tree.query_ball_point(X[i], chord)] = True
    return X[taken]


@rng_keyword(4)
def sphere_lower_count(d: int, beta: float, eps: float, n_candidates: int, *, rng: SeedLike = None) -> SphereLower:
    r"""Lower certificate of the continuum sphere from an explicit packing: messages at pairwise angle > 2ρ, own sets
    the caps of radius ρ, keys the uniform measure on :math:`S^{d-1}` (the limit of many equal-weight tokens).

    ρ is the smallest angle with cap mass > (1+ε)/2 (:func:`~attnlab.cap_radius`); :func:`~attnlab.sphere_gv_lower`
    bounds the size of such a packing without drawing it.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension (the sphere :math:`S^{d-1}`).
    beta : float > 0
        Inverse temperature.
    eps : float in (0, 1)
        Tolerance.
    n_candidates : int ≥ 1
        Candidates of :func:`sphere_packing`.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    SphereLower
        d, beta, eps, rho, bound (the certificate M: the packing size), mass (own-cap mass), candidates.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, ``beta`` ≤ 0 or not finite, ``eps`` outside (0, 1), ``n_candidates`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sphere_lower_count
    >>> x = sphere_lower_count(2, 1e3, 0.25, 2000, rng=np.random.default_rng(0))
    >>> bool(x.mass > 0.625 and x.bound >= 1)
    True
    """
    d = _sphere_dim(d)
    positive_real(beta, "beta")
    eps = _eps(eps)
    if eps >= 1:
        raise ValueError(f"eps must be < 1 for a cap certificate (for eps >= 1 the zero matrix is within eps), "
                         f"got {eps}")
    positive_int(n_candidates, "n_candidates")
    rng = as_generator(rng)
    rho = cap_radius(d, beta, eps)
    P = sphere_packing(d, min(2 * rho, math.pi), n_candidates, rng=rng)
    return SphereLower(d=d, beta=float(beta), eps=eps, rho=rho, bound=int(P.shape[0]), mass=_cap_mass(d, beta, rho),
                       candidates=n_candidates)
