r"""The lattice ball of the approximation-rank lower law, evaluated without materialising it.

Keys: the integer points u of :math:`[-R,R]^d` with log-weight :math:`-\|u\|^2/2`; queries: every integer c with
:math:`\|c\|\le\gamma`; logits :math:`\langle c,u\rangle-\|u\|^2/2` at inverse temperature
:math:`\beta=\gamma\sqrt d\,R`, :math:`R=\lceil\gamma\rceil+\text{margin}` (:func:`lattice_beta`,
:func:`lattice_gamma`). Every row is a product of 1-D discrete Gaussians, so both certificates are exact at any β
from one-dimensional computations:

* lower: the message rows :math:`c\in\ell\mathbb Z^d`, own sets their cube cells (:func:`lattice_lower_count`,
  :func:`cell_half_width`);
* upper: the number of rows (B = A, :func:`lattice_row_count`) and a Kronecker power of a 1-D truncated SVD
  (:func:`lattice_kron_upper`, :func:`lattice_1d`, :func:`kron_factor`, :func:`kron_error_bound`).

The materialised instance is :func:`lattice_instance` (and its message rows :func:`lattice_materialised`).
Everything here is small and runs on NumPy.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..core._results import former_dict
from ..core._validate import nonnegative_int, positive_int, positive_real, renamed
from ..core._validate import certificate_eps as _eps, matrix_pair as _pair
from .interaction import chebyshev_radius
from ..core.logits import softmax

__all__ = [
    "lattice_beta",
    "lattice_gamma",
    "cell_half_width",
    "lattice_row_count",
    "lattice_query_radius",
    "LatticeLower",
    "lattice_lower_count",
    "lattice_1d",
    "KronFactor",
    "kron_factor",
    "kron_error_bound",
    "KronUpper",
    "lattice_kron_upper",
    "LatticeInfo",
    "LatticeInstance",
    "lattice_instance",
    "LatticeMessages",
    "lattice_materialised",
]


def _dgauss_mass(h, R_minus, R_plus, tmax=60):
    """1-D discrete Gaussian e^{-t²/2} on the integers: mass of |t| ≤ h over the integers in [-R_minus, R_plus]."""
    t = np.arange(-tmax, tmax + 1)
    w = np.exp(-t.astype(float) ** 2 / 2)
    inside = w[np.abs(t) <= h].sum()
    total = w[(t >= -R_minus) & (t <= R_plus)].sum()
    return inside / total


def _ball_lattice_count(rho, d):
    r"""#{z ∈ Z^d : ‖z‖ ≤ rho}: counts of squared norms, one coordinate at a time (a shifted sum over the squares).

    Exact in int64 while :math:`(2\lfloor\rho\rfloor+1)^d < 2^{62}`, else in float64 (relative rounding ~1e-16)."""
    R2 = int(math.floor(rho * rho + 1e-9))
    m = math.isqrt(R2)
    dtype = np.int64 if (2 * m + 1) ** d < 2**62 else np.float64
    acc = np.zeros(R2 + 1, dtype=dtype)
    acc[0] = 1
    for _ in range(d - 1):
        new = np.zeros_like(acc)
        for t in range(-m, m + 1):
            s = t * t
            new[s:] += acc[:R2 + 1 - s]
        acc = new
    cum = np.cumsum(acc)  # last coordinate: sum over t of #{norm² ≤ R2 − t²}
    total = sum(cum[R2 - t * t] for t in range(-m, m + 1))
    return int(total)


def lattice_row_count(d: int, gamma: float) -> int:
    r"""Rows :math:`n = \#\{c \in \mathbb Z^d : \|c\| \le \gamma\}` of the lattice instance (the trivial bound, B = A).

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    gamma : float > 0
        Lattice scale.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        ``d`` not an integer, ``gamma`` not real.
    ValueError
        d < 1, γ ≤ 0 or not finite.

    Examples
    --------
    >>> from attnlab import lattice_row_count
    >>> lattice_row_count(2, 1.0)   # (0,0), (±1,0), (0,±1)
    5
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    return _ball_lattice_count(gamma, d)


def lattice_beta(d: int, gamma: float, margin: int = 8) -> float:
    r"""Inverse temperature :math:`\beta = \gamma\sqrt d\,(\lceil\gamma\rceil+\text{margin})` of the lattice at scale γ.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    gamma : float > 0
        Lattice scale.
    margin : int ≥ 0
        Extra key layers beyond ⌈γ⌉ (8 for the implicit certificates, 4 for :func:`~attnlab.lattice_instance`).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, γ ≤ 0 or not finite, margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_beta
    >>> lattice_beta(1, 2.0, 8)   # 2 · 1 · (2 + 8)
    20.0
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    nonnegative_int(margin, "margin")
    return _lattice_beta(d, gamma, margin)


def _lattice_beta(d, gamma, margin):
    return gamma * math.sqrt(d) * (math.ceil(gamma) + margin)


def lattice_gamma(d: int, beta: float, margin: int = 8) -> float:
    r"""The largest lattice scale γ with :func:`lattice_beta` ≤ β (bisection; lattice_beta is increasing but jumps
    at integer γ, so the instance's own β may be below the argument).

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    beta : float > 0
        Inverse temperature.
    margin : int ≥ 0
        As in :func:`lattice_beta`.

    Returns
    -------
    float
        γ, to bisection accuracy (200 halvings).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, β ≤ 0 or not finite, margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_beta, lattice_gamma
    >>> g = lattice_gamma(2, 100.0)
    >>> round(g, 6), lattice_beta(2, g) <= 100.0
    (5.050763, True)
    """
    positive_int(d, "d")
    positive_real(beta, "beta")
    nonnegative_int(margin, "margin")
    lo, hi = 0.0, math.sqrt(beta) + 1
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _lattice_beta(d, mid, margin) < beta else (lo, mid)
    return lo


def cell_half_width(d: int, eps: float) -> int | None:
    r"""Smallest h with :math:`m(h)^d > (1+\epsilon)/2`, m(h) the full-lattice mass of [−h, h] under the 1-D discrete
    Gaussian :math:`e^{-t^2/2}`: message cells of the lattice certificate are cubes of side ℓ = 2h + 1.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    eps : float in (0, 2)
        Tolerance.

    Returns
    -------
    int or None
        h; None for ε ≥ 1 (no set carries mass > 1, and the zero matrix is within ε).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, ε outside (0, 2).

    Examples
    --------
    >>> from attnlab import cell_half_width
    >>> cell_half_width(2, 0.5), cell_half_width(6, 0.5), cell_half_width(2, 1.5)
    (1, 2, None)
    """
    positive_int(d, "d")
    eps = _eps(eps)
    thr = (1 + eps) / 2
    if thr >= 1:
        return None
    return next(h for h in range(60) if _dgauss_mass(h, 60, 60) ** d > thr)


def _max_sum_of_squares(m: int, d: int) -> int:
    """Largest k ≤ m that is a sum of d integer squares (Lagrange for d ≥ 4, Legendre for d = 3)."""
    if d >= 4:
        return m
    if d == 1:
        return math.isqrt(m) ** 2
    if d == 2:
        return max(x * x + math.isqrt(m - x * x) ** 2 for x in range(math.isqrt(m) + 1))
    k = m  # d == 3: k is a sum of three squares unless k = 4^a (8b + 7)
    while True:
        j = k
        while j and j % 4 == 0:
            j //= 4
        if j % 8 != 7:
            return k
        k -= 1


def lattice_query_radius(d: int, gamma: float) -> float:
    r"""Chebyshev radius :math:`\rho_Q = \max_c\|c\|/\gamma` of the queries :math:`c/\gamma` (the set is symmetric
    about 0, so the smallest enclosing ball is centred there). The keys :math:`u/(\sqrt dR)` fill the cube up to
    its corners, so :math:`\rho_K = 1`.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    gamma : float > 0
        Lattice scale.

    Returns
    -------
    float in (0, 1]

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, γ ≤ 0 or not finite.

    Examples
    --------
    >>> from attnlab import lattice_query_radius
    >>> lattice_query_radius(2, 2.5)   # the largest integer norm² ≤ 6.25 that is a sum of two squares is 5
    0.894427190999916
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    return math.sqrt(_max_sum_of_squares(int(math.floor(gamma * gamma + 1e-9)), d)) / gamma


@former_dict(M="bound")
class LatticeLower(NamedTuple):
    r"""The lower certificate of the lattice ball: the result of :func:`lattice_lower_count`.

    It replaced a dict: ``x["gamma"]`` still works, and ``x["M"]`` is ``x.bound``, each with a ``DeprecationWarning``.

    Attributes
    ----------
    d : int
        Dimension.
    beta : float
        The instance's inverse temperature :math:`\gamma\sqrt d R`.
    beta_nominal : float
        The argument β.
    eps : float
        Tolerance.
    gamma : float
        Lattice scale (:func:`lattice_gamma` (d, β)).
    R : int
        Key cube half-width :math:`\lceil\gamma\rceil` + margin.
    log10_tokens : float
        log10 of the effective token count :math:`\sum_u e^{(dR^2-\|u\|^2)/2}`.
    ell : int or None
        Message spacing ℓ = 2h + 1 (None for ε ≥ 1).
    bound : int
        The certified lower bound M on :math:`r_\epsilon` (the number of messages; 0 for ε ≥ 1).
    mass : float
        Own-cell mass of a message (1 for ε ≥ 1).
    margin_ok : bool
        Whether that mass exceeds (1 + ε)/2.

    Examples
    --------
    >>> from attnlab import lattice_lower_count
    >>> x = lattice_lower_count(2, 1e3, 0.5)
    >>> x.bound, x.ell, x.margin_ok
    (177, 3, True)
    """
    d: int
    beta: float
    beta_nominal: float
    eps: float
    gamma: float
    R: int
    log10_tokens: float
    ell: int | None
    bound: int
    mass: float
    margin_ok: bool


def lattice_lower_count(d: int, beta: float, eps: float, *, margin: int = 8) -> LatticeLower:
    r"""The lattice construction of the lower law, evaluated exactly without materialising tokens.

    Keys: the integer points u of the cube :math:`[-R,R]^d`, scaled to :math:`k_u = u/(\sqrt d R)` (in the
    unit ball), with log-multiplicity :math:`-\|u\|^2/2`. Queries :math:`x = c/\gamma` for message centres
    :math:`c\in \ell\mathbb Z^d` with :math:`\|c\|\le\gamma` (in the unit ball), where
    :math:`R = \lceil\gamma\rceil + \text{margin}` and :math:`\beta = \gamma\sqrt d R`; so
    :math:`p_x(u)\propto e^{-\|u-c\|^2/2}` on the cube, a product of 1-D discrete Gaussians. Own set of a
    message: its cube cell :math:`\|u-c\|_\infty\le(\ell-1)/2` (ℓ odd, disjoint cells). The truncation to
    the cube only removes mass outside the cell, so the mass on the own cell is at least the product of
    full-lattice 1-D masses; ℓ is the smallest odd spacing making it > (1+ε)/2.

    Returns the certificate M (``bound``), ℓ, γ, the own-cell mass, and log10 of the effective token
    count :math:`\sum_u e^{(dR^2-\|u\|^2)/2}` (multiplicities :math:`e^{(dR^2-\|u\|^2)/2}\ge 1`: real numbers, not
    integers; a literal token count would round them, which this function does not do). ``beta`` is the instance's
    :math:`\gamma\sqrt d R` (:func:`lattice_gamma` rounds down where the ceiling jumps), ``beta_nominal`` the
    argument. For ε ≥ 1, M = 0: the zero matrix is within ε.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    beta : float > 0
        Inverse temperature (the instance is the one of :func:`lattice_gamma` (d, β)).
    eps : float in (0, 2)
        Tolerance.
    margin : int ≥ 0
        As in :func:`lattice_beta`.

    Returns
    -------
    LatticeLower
        d, beta, beta_nominal, eps, gamma, R, log10_tokens, ell, bound (M), mass, margin_ok.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, β ≤ 0 or not finite, ε outside (0, 2), margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_lower_count
    >>> lattice_lower_count(2, 1e3, 0.5).bound
    177
    """
    positive_int(d, "d")
    positive_real(beta, "beta")
    eps = _eps(eps)
    nonnegative_int(margin, "margin")
    gamma = lattice_gamma(d, beta, margin)
    R = math.ceil(gamma) + margin
    t = np.arange(-R, R + 1, dtype=float)
    log10_tokens = float(d * (R**2 / 2 + np.log(np.exp(-t**2 / 2).sum())) / math.log(10))
    out = dict(d=d, beta=_lattice_beta(d, gamma, margin), beta_nominal=float(beta), eps=eps, gamma=gamma, R=R,
               log10_tokens=log10_tokens)
    h = cell_half_width(d, eps)
    if h is None:  # ε ≥ 1: B = 0 is within ε, so r_ε = 0 and there is nothing to certify
        return LatticeLower(**out, ell=None, bound=0, mass=1.0, margin_ok=True)
    mass = _dgauss_mass(h, 60, 60) ** d
    return LatticeLower(**out, ell=2 * h + 1, bound=_ball_lattice_count(gamma / (2 * h + 1), d), mass=float(mass),
                        margin_ok=bool(mass > (1 + eps) / 2))


def lattice_1d(gamma: float, margin: int = 8) -> np.ndarray:
    r"""The 1-D factor :math:`A_1[c,u] = e^{cu-u^2/2}/Z_c`, c ∈ [−⌊γ⌋, ⌊γ⌋], u ∈ [−R, R]: the lattice instance's
    cube-query matrix is its d-fold Kronecker power and the ball rows are a subset of those rows.

    Parameters
    ----------
    gamma : float > 0
        Lattice scale.
    margin : int ≥ 0
        As in :func:`lattice_beta`.

    Returns
    -------
    array (2⌊γ⌋ + 1, 2R + 1)
        Row-stochastic, R = ⌈γ⌉ + margin.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        γ ≤ 0 or not finite, margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_1d
    >>> lattice_1d(1.0, 1).round(3)
    array([[0.257, 0.424, 0.257, 0.057, 0.005],
           [0.054, 0.244, 0.403, 0.244, 0.054],
           [0.005, 0.057, 0.257, 0.424, 0.257]])
    """
    positive_real(gamma, "gamma")
    nonnegative_int(margin, "margin")
    g, R = math.floor(gamma), math.ceil(gamma) + margin
    c, u = np.arange(-g, g + 1.0), np.arange(-R, R + 1.0)
    return softmax(c[:, None] * u[None, :] - u[None, :] ** 2 / 2)


@functools.lru_cache(maxsize=4)
def _lattice_svd(gamma, margin):
    A1 = lattice_1d(gamma, margin)
    return (A1, *np.linalg.svd(A1, full_matrices=False))


@functools.lru_cache(maxsize=512)
def _kron_error_parts(gamma, k, margin):
    """E and S of :func:`kron_error_bound` for the rank-k factor of :func:`kron_factor` (γ, k, margin), cached:
    the bisection of :func:`lattice_kron_upper` revisits ranks, and calls for several ε at one γ share them."""
    A1, U, s, Vt = _lattice_svd(gamma, margin)
    B1 = (U[:, :k] * s[:k]) @ Vt[:k]
    return float(np.abs(A1 - B1).sum(axis=1).max()), float(np.abs(B1).sum(axis=1).max())


class KronFactor(NamedTuple):
    """The 1-D factor of the lattice instance and its truncated SVD: the result of :func:`kron_factor`.

    Attributes
    ----------
    A1 : array (2⌊γ⌋ + 1, 2R + 1)
        The 1-D factor (:func:`lattice_1d`), row-stochastic.
    B1 : array, A1's shape
        Its rank-r truncated SVD.

    Examples
    --------
    >>> from attnlab import kron_factor, kron_error_bound
    >>> f = kron_factor(2.0, 5, 2)   # full rank: B1 = A1 up to rounding
    >>> bool(kron_error_bound(f.A1, f.B1, 2) < 1e-12)
    True
    """
    A1: np.ndarray
    B1: np.ndarray


@renamed(k="r")
def kron_factor(gamma: float, r: int, margin: int = 8) -> KronFactor:
    """``(A1, B1)``: the 1-D factor of the lattice instance (:func:`lattice_1d`) and its rank-r truncated SVD.

    Parameters
    ----------
    gamma : float > 0
        Lattice scale.
    r : int in [1, 2⌊γ⌋ + 1]
        Rank of the truncation (``k`` is a deprecated spelling).
    margin : int ≥ 0
        As in :func:`lattice_beta`.

    Returns
    -------
    KronFactor
        ``A1`` and ``B1``, arrays of the same shape; it unpacks as ``A1, B1``.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        γ ≤ 0 or not finite, r outside [1, 2⌊γ⌋ + 1], margin < 0.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import kron_factor
    >>> A1, B1 = kron_factor(2.0, 2, 2)
    >>> A1.shape, int(np.linalg.matrix_rank(B1))
    ((5, 9), 2)
    """
    positive_real(gamma, "gamma")
    nonnegative_int(margin, "margin")
    size = 2 * math.floor(gamma) + 1
    if positive_int(r, "r") > size:
        raise ValueError(f"r must lie in [1, {size}] (the rows of the 1-D factor), got {r}")
    A1, U, s, Vt = _lattice_svd(gamma, margin)
    return KronFactor(A1, (U[:, :r] * s[:r]) @ Vt[:r])


def kron_error_bound(A1: ArrayLike, B1: ArrayLike, d: int) -> float:
    r"""The bound :math:`E\sum_{j<d}S^j` on the row-ℓ1 error of :math:`B_1^{\otimes d}` against :math:`A_1^{\otimes d}`
    (A1 row-stochastic), with :math:`E=\max_c\|A_{1,c}-B_{1,c}\|_1` and :math:`S=\max_c\|B_{1,c}\|_1`
    (see :func:`lattice_kron_upper`).

    Parameters
    ----------
    A1, B1 : arrays (m, L), float32 or float64, finite
        The 1-D factor and its approximation, same shape.
    d : int ≥ 1
        Kronecker power.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        Wrong dimensions or shapes, NaN or inf, d < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import kron_error_bound
    >>> A1 = np.eye(2)
    >>> round(kron_error_bound(A1, 0.9 * A1, 2), 12)   # E = 0.1, S = 0.9: 0.1 · (1 + 0.9)
    0.19
    """
    A1, B1 = _pair(A1, B1, ("A1", "B1"))
    positive_int(d, "d")
    E, S = float(np.abs(A1 - B1).sum(axis=1).max()), float(np.abs(B1).sum(axis=1).max())
    return E * sum(S**j for j in range(d))


@former_dict(rank="bound")
class KronUpper(NamedTuple):
    r"""The upper certificate of the lattice ball: the result of :func:`lattice_kron_upper`.

    It replaced a dict: ``c["n"]`` still works, and ``c["rank"]`` is ``c.bound``, each with a
    ``DeprecationWarning``.

    Attributes
    ----------
    d : int
        Dimension.
    beta : float
        The instance's inverse temperature :math:`\gamma\sqrt d R`.
    beta_nominal : float
        The argument β.
    eps : float
        Tolerance.
    gamma : float
        Lattice scale.
    margin : int
        Extra key layers beyond ⌈γ⌉.
    n : int
        Number of rows of the instance.
    rho_Q : float
        Chebyshev radius of the queries (:func:`lattice_query_radius`; :math:`\rho_K = 1`).
    k1 : int or None
        Rank of the 1-D factor (None when its SVD was skipped, ``size_1d`` > ``svd_max``).
    size_1d : int
        Rows 2⌊γ⌋ + 1 of the 1-D factor.
    kron_rank : int or None
        :math:`k_1^d`.
    bound : int
        The certified upper bound min(k1^d, n) on :math:`r_\epsilon`.
    method : str
        ``"kronecker-svd"`` or ``"rows"`` (B = A).
    error_bound : float
        The bound on the row-ℓ1 error of B (≤ ε; 0 for ``"rows"``).

    Examples
    --------
    >>> from attnlab import lattice_kron_upper
    >>> c = lattice_kron_upper(2, 1e3, 0.5)
    >>> c.method, c.bound == c.kron_rank == c.k1 ** 2
    ('kronecker-svd', True)
    """
    d: int
    beta: float
    beta_nominal: float
    eps: float
    gamma: float
    margin: int
    n: int
    rho_Q: float
    k1: int | None
    size_1d: int
    kron_rank: int | None
    bound: int
    method: str
    error_bound: float


def lattice_kron_upper(d: int, beta: float, eps: float, *, margin: int = 8, svd_max: int = 4096) -> KronUpper:
    r"""Upper certificate of the lattice instance: :math:`B = B_1^{\otimes d}` (ball rows), or B = A.

    :math:`B_1` is a truncated SVD of the 1-D factor :func:`lattice_1d`; B = A (rank ≤ n, the row count) is
    returned when that is smaller.

    For rows :math:`a=\otimes_k a_k`, :math:`b=\otimes_k b_k` the telescoping sum
    :math:`a-b=\sum_k b_1\otimes\dots\otimes b_{k-1}\otimes(a_k-b_k)\otimes a_{k+1}\otimes\dots\otimes a_d` and
    :math:`\|x\otimes y\|_1=\|x\|_1\|y\|_1` give :math:`\|a-b\|_1\le E\sum_{j<d}S^j` with
    :math:`E=\max_c\|A_{1,c}-B_{1,c}\|_1`, :math:`S=\max_c\|B_{1,c}\|_1` (each :math:`\|a_k\|_1 = 1`). The 1-D rank
    :math:`k_1` is the smallest (bisection, then checked) with that bound ≤ ε; rank B ≤ :math:`k_1^d`.

    Returns
    -------
    KronUpper
        ``bound`` = :math:`\min(k_1^d, n)`, ``method`` ("kronecker-svd" or "rows"), ``error_bound`` (≤ ε; 0 for
        "rows"), k1, the 1-D size, γ, n and :math:`\rho_Q` (for Γ = β ρ_Q ρ_K with ρ_K = 1). When the 1-D factor
        has more than ``svd_max`` rows its SVD is skipped (k1 = None) and the certificate is the row count.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    beta : float > 0
        Inverse temperature (the instance of :func:`lattice_gamma` (d, β)).
    eps : float in (0, 2)
        Tolerance.
    margin : int ≥ 0
        As in :func:`lattice_beta`.
    svd_max : int ≥ 1
        Largest 1-D factor (rows) whose SVD is computed.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, β ≤ 0 or not finite, ε outside (0, 2), margin < 0, svd_max < 1.

    Examples
    --------
    >>> from attnlab import lattice_kron_upper
    >>> c = lattice_kron_upper(2, 1e3, 0.5)
    >>> c.bound <= c.n and c.error_bound <= 0.5
    True
    """
    d = positive_int(d, "d")
    positive_real(beta, "beta")
    eps = _eps(eps)
    nonnegative_int(margin, "margin")
    positive_int(svd_max, "svd_max")
    gamma = lattice_gamma(d, beta, margin)
    n = _ball_lattice_count(gamma, d)
    out = dict(d=d, beta=_lattice_beta(d, gamma, margin), beta_nominal=float(beta), eps=eps,
               gamma=gamma, margin=margin, n=n, rho_Q=lattice_query_radius(d, gamma))
    size = 2 * math.floor(gamma) + 1
    if size > svd_max:
        return KronUpper(**out, k1=None, size_1d=size, kron_rank=None, bound=n, method="rows", error_bound=0.0)

    def bound(k):
        E, S = _kron_error_parts(gamma, k, margin)  # kron_error_bound(*kron_factor(gamma, k, margin), d), cached
        return E * sum(S**j for j in range(d))

    lo, hi = 1, size
    while lo < hi:  # bisection for the smallest k with bound(k) <= eps (bound(s.size) = 0 up to rounding)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if bound(mid) <= eps else (mid + 1, hi)
    k1 = lo
    while bound(k1) > eps:  # the bound need not be monotone in k: step up until it holds
        k1 += 1
    kron = k1**d
    return KronUpper(**out, k1=k1, size_1d=size, kron_rank=kron, bound=min(kron, n),
                     method="kronecker-svd" if kron < n else "rows", error_bound=bound(k1) if kron < n else 0.0)


@former_dict
class LatticeInfo(NamedTuple):
    r"""The sizes and geometry of a materialised lattice instance: :attr:`LatticeInstance.info`.

    It replaced a dict: ``info["ell"]`` still works, with a ``DeprecationWarning``.

    Attributes
    ----------
    d : int
        Dimension.
    gamma : float
        Lattice scale.
    R : int
        Key cube half-width :math:`\lceil\gamma\rceil` + margin.
    ell : int
        Message spacing ℓ = 2h + 1.
    beta : float
        Inverse temperature :math:`\gamma\sqrt d R`.
    min_own_mass : float
        The smallest mass a message row puts on its own cell (> (1 + ε)/2).
    rho_Q, rho_K : float
        Chebyshev radii of the query and key sets.

    Examples
    --------
    >>> from attnlab import lattice_instance
    >>> info = lattice_instance(2, 3.0, 0.5).info
    >>> info.ell, info.R
    (3, 7)
    """
    d: int
    gamma: float
    R: int
    ell: int
    beta: float
    min_own_mass: float
    rho_Q: float
    rho_K: float


class LatticeInstance(NamedTuple):
    r"""A materialised lattice instance with its message rows: the result of :func:`lattice_instance`.

    It unpacks as ``A, messages, cells, info``.

    Attributes
    ----------
    A : array, shape (n, N)
        The attention matrix, row-stochastic, over the :math:`N = (2R + 1)^d` keys.
    messages : int array (M,)
        The message rows.
    cells : list of int arrays
        Their own cells (column indices), one per message.
    info : LatticeInfo
        Sizes and geometry.

    Examples
    --------
    >>> from attnlab import lattice_instance
    >>> inst = lattice_instance(2, 3.0, 0.5)
    >>> inst.A.shape, len(inst.messages) == len(inst.cells)
    ((29, 225), True)
    """
    A: np.ndarray
    messages: np.ndarray
    cells: list
    info: LatticeInfo


def lattice_instance(d: int, gamma: float, eps: float, *, margin: int = 4) -> LatticeInstance:
    r"""The lattice instance of the lower law with *every* integer query, materialised, for both certificates.

    Keys: integer points u of :math:`[-R,R]^d`, :math:`R=\lceil\gamma\rceil+` margin, scaled to
    :math:`k_u=u/(\sqrt d R)` with log-weight :math:`-\|u\|^2/2`; queries :math:`x=c/\gamma` for every
    :math:`c\in\mathbb Z^d` with :math:`\|c\|\le\gamma`; inverse temperature :math:`\beta=\gamma\sqrt dR`, so the
    logits are :math:`\langle c,u\rangle-\|u\|^2/2`. The message queries of the lower law
    (:math:`c\in\ell\mathbb Z^d`, ℓ = 2h + 1 with h from :func:`~attnlab.cell_half_width`) are among the rows, and
    their own cells :math:`\|u-c\|_\infty\le h` make a lower certificate of this matrix.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    gamma : float > 0
        Lattice scale (queries of norm ≤ γ).
    eps : float in (0, 1)
        Tolerance of the message cells (for ε ≥ 1 the zero matrix is within ε and there is nothing to certify).
    margin : int ≥ 0
        Extra key layers beyond ⌈γ⌉.

    Returns
    -------
    LatticeInstance
        ``A`` (:math:`n \times (2R+1)^d`, row-stochastic), the message row indices ``messages``, their own cells
        ``cells`` (column indices) and ``info`` (:class:`LatticeInfo`: d, γ, R, ℓ, β, the smallest own-cell mass
        ``min_own_mass`` and the Chebyshev radii ``rho_Q``, ``rho_K`` of the query and key sets); it unpacks as
        ``A, messages, cells, info``.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, γ ≤ 0 or not finite, ε outside (0, 1), margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_instance
    >>> A, messages, cells, info = lattice_instance(2, 3.0, 0.5)
    >>> A.shape, len(messages), info.ell, bool(info.min_own_mass > 0.75)
    ((29, 225), 5, 3, True)
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    eps = _eps(eps)
    nonnegative_int(margin, "margin")
    h = cell_half_width(d, eps)
    if h is None:
        raise ValueError(f"eps must be < 1 for the lattice certificate (for eps >= 1 the zero matrix is within eps), "
                         f"got {eps}")
    R = math.ceil(gamma) + margin
    grid = np.stack(np.meshgrid(*[np.arange(-R, R + 1)] * d, indexing="ij"), -1).reshape(-1, d).astype(float)
    g = math.floor(gamma)
    cs = np.stack(np.meshgrid(*[np.arange(-g, g + 1)] * d, indexing="ij"), -1).reshape(-1, d).astype(float)
    cs = cs[np.linalg.norm(cs, axis=1) <= gamma]
    A = softmax(cs @ grid.T - 0.5 * (grid * grid).sum(axis=1)[None, :])
    ell = 2 * h + 1
    messages = np.nonzero((np.mod(cs, ell) == 0).all(axis=1))[0]
    cells = [np.nonzero(np.abs(grid - cs[i]).max(axis=1) <= h)[0] for i in messages]
    own = np.array([A[i, c].sum() for i, c in zip(messages, cells)])
    info = LatticeInfo(d=d, gamma=float(gamma), R=R, ell=ell, beta=float(_lattice_beta(d, gamma, margin)),
                       min_own_mass=float(own.min()), rho_Q=chebyshev_radius(cs / gamma),
                       rho_K=chebyshev_radius(grid / (math.sqrt(d) * R)))
    return LatticeInstance(A, messages, cells, info)


class LatticeMessages(NamedTuple):
    r"""The message rows of a lattice instance and their own cells: the result of :func:`lattice_materialised`.

    It unpacks as ``A, cells``.

    Attributes
    ----------
    A : array, shape (M, N)
        The message rows, row-stochastic, over the :math:`N = (2R + 1)^d` keys.
    cells : list of int arrays
        Their own cells: row a puts mass > (1 + ε)/2 on ``cells[a]``.

    Examples
    --------
    >>> from attnlab import lattice_materialised
    >>> m = lattice_materialised(2, 3.0, 0.5)
    >>> m.A.shape[0] == len(m.cells)
    True
    """
    A: np.ndarray
    cells: list


def lattice_materialised(d: int, gamma: float, eps: float, *, margin: int = 4) -> LatticeMessages:
    r"""The message rows of :func:`lattice_instance` and their own cells: a matrix whose lower certificate is
    every row (row a puts mass > (1 + ε)/2 on ``cells[a]``).

    Parameters
    ----------
    d, gamma, eps, margin
        As in :func:`lattice_instance`.

    Returns
    -------
    LatticeMessages
        ``A`` (:math:`M \times (2R+1)^d`) and the M own cells ``cells``; it unpacks as ``A, cells``.

    Raises
    ------
    TypeError, ValueError
        As :func:`lattice_instance`.

    Examples
    --------
    >>> from attnlab import lattice_materialised
    >>> A, cells = lattice_materialised(2, 3.0, 0.5)
    >>> A.shape, min(float(A[i, c].sum()) for i, c in enumerate(cells)) > 0.75
    ((5, 225), True)
    """
    A, messages, cells, _ = lattice_instance(d, gamma, eps, margin=margin)
    return LatticeMessages(A[messages], cells)
