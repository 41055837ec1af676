r"""Certificates of approximation rank for instances too large to materialise (seed 004, AR-lower/upper/sphere-ball).

Two worst-case families are evaluated exactly, at any inverse temperature β, without building a matrix:

* the **continuum sphere**: queries anywhere on :math:`S^{d-1}`, keys the uniform measure σ on it (the limit of
  many equal-weight tokens), rows :math:`p_x(k) = e^{\beta\langle x,k\rangle}/Z(\beta)`, row-ℓ1 error the
  :math:`L^1(\sigma)` distance. Upper certificate: the Funk–Hecke (Gegenbauer) expansion of :math:`e^{\beta t}`
  truncated at degree N, a kernel of rank :math:`\dim\mathcal H_{\le N}(S^{d-1})`
  (:func:`sphere_harmonic_upper`). Lower certificate: message queries at pairwise angle > 2ρ, own sets the caps
  of radius ρ; a maximal such set has at least :math:`1/\sigma(\mathrm{cap}_{2\rho})` points
  (:func:`sphere_gv_lower`).
* the **lattice ball** of AR-lower: keys the integer points u of :math:`[-R,R]^d` with log-weight
  :math:`-\|u\|^2/2`, queries every integer c with :math:`\|c\|\le\gamma`, logits :math:`\langle c,u\rangle-\|u\|^2/2`
  (so every row is a product of 1-D discrete Gaussians). Lower certificate: the message rows
  (:func:`lattice_lower_count`). Upper certificates: the number of rows (B = A) and a Kronecker power of a
  1-D truncated SVD (:func:`lattice_kron_upper`).

Everything here is one-dimensional (quadrature in one angle, a 1-D matrix, lattice counts), so it runs on NumPy
whatever the backend: there is no large array to move to a GPU.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize, special

from ._validate import in_open_interval, positive_int, positive_real
from .softmax import softmax

__all__ = [
    "lattice_beta",
    "lattice_gamma",
    "cell_half_width",
    "lattice_row_count",
    "lattice_query_radius",
    "lattice_lower_count",
    "lattice_1d",
    "kron_factor",
    "kron_error_bound",
    "lattice_kron_upper",
    "sphere_cap_mass",
    "cap_area",
    "cap_radius",
    "harmonic_dimension",
    "sphere_harmonic_upper",
    "sphere_gv_lower",
]


def _eps(eps):
    return in_open_interval(eps, 0.0, 2.0, "eps")


def _sphere_dim(d):
    d = positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be >= 2 for the sphere S^(d-1), got {d}")
    return d


# --------------------------------------------------------------------------- the lattice ball
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
    r"""Number of rows n = #{c ∈ Z^d : ‖c‖ ≤ γ} of the lattice instance: the trivial upper certificate (B = A).

    Examples
    --------
    >>> lattice_row_count(2, 1.0)   # (0,0), (±1,0), (0,±1)
    5
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    return _ball_lattice_count(gamma, d)


def lattice_beta(d: int, gamma: float, margin: int = 8) -> float:
    r"""Inverse temperature :math:`\beta = \gamma\sqrt d\,(\lceil\gamma\rceil+\text{margin})` of the lattice instance at scale γ."""
    return gamma * math.sqrt(d) * (math.ceil(gamma) + margin)


def lattice_gamma(d: int, beta: float, margin: int = 8) -> float:
    r"""The largest lattice scale γ with :func:`lattice_beta` ≤ β (bisection; lattice_beta is increasing but jumps
    at integer γ, so the instance's own β may be below the argument)."""
    lo, hi = 0.0, math.sqrt(beta) + 1
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if lattice_beta(d, mid, margin) < beta else (lo, mid)
    return lo


def cell_half_width(d: int, eps: float):
    r"""Smallest h with :math:`m(h)^d > (1+\epsilon)/2`, m(h) the full-lattice mass of [−h, h] under the 1-D discrete
    Gaussian :math:`e^{-t^2/2}`: message cells of the lattice certificate are cubes of side ℓ = 2h + 1. None for
    ε ≥ 1 (no set carries mass > 1)."""
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

    Examples
    --------
    >>> lattice_query_radius(2, 2.5)   # the largest integer norm² ≤ 6.25 that is a sum of two squares is 5
    0.894427190999916
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    return math.sqrt(_max_sum_of_squares(int(math.floor(gamma * gamma + 1e-9)), d)) / gamma


def lattice_lower_count(d: int, beta: float, eps: float, *, margin: int = 8):
    r"""The lattice construction of AR-lower, evaluated exactly without materialising tokens.

    Keys: the integer points u of the cube :math:`[-R,R]^d`, scaled to :math:`k_u = u/(\sqrt d R)` (in the
    unit ball), with log-multiplicity :math:`-\|u\|^2/2`. Queries :math:`x = c/\gamma` for message centres
    :math:`c\in \ell\mathbb Z^d` with :math:`\|c\|\le\gamma` (in the unit ball), where
    :math:`R = \lceil\gamma\rceil + \text{margin}` and :math:`\beta = \gamma\sqrt d R`; so
    :math:`p_x(u)\propto e^{-\|u-c\|^2/2}` on the cube, a product of 1-D discrete Gaussians. Own set of a
    message: its cube cell :math:`\|u-c\|_\infty\le(\ell-1)/2` (ℓ odd, disjoint cells). The truncation to
    the cube only removes mass outside the cell, so the mass on the own cell is at least the product of
    full-lattice 1-D masses; ℓ is the smallest odd spacing making it > (1+ε)/2.

    Returns a dict with M (the certificate), ℓ, γ, the own-cell mass, and log10 of the effective token
    count :math:`\sum_u e^{(dR^2-\|u\|^2)/2}` (integer multiplicities ≥ 1). ``beta`` is the instance's
    :math:`\gamma\sqrt d R` (:func:`lattice_gamma` rounds down where the ceiling jumps), ``beta_nominal`` the
    argument. For ε ≥ 1, M = 0: the zero matrix is within ε.

    Examples
    --------
    >>> lattice_lower_count(2, 1e3, 0.5)["M"]
    177
    """
    positive_int(d, "d")
    positive_real(beta, "beta")
    eps = _eps(eps)
    gamma = lattice_gamma(d, beta, margin)
    R = math.ceil(gamma) + margin
    t = np.arange(-R, R + 1, dtype=float)
    log10_tokens = float(d * (R**2 / 2 + np.log(np.exp(-t**2 / 2).sum())) / math.log(10))
    out = dict(d=d, beta=lattice_beta(d, gamma, margin), beta_nominal=float(beta), eps=eps, gamma=gamma, R=R,
               log10_tokens=log10_tokens)
    h = cell_half_width(d, eps)
    if h is None:  # ε ≥ 1: B = 0 is within ε, so r_ε = 0 and there is nothing to certify
        return dict(out, ell=None, M=0, mass=1.0, margin_ok=True)
    mass = _dgauss_mass(h, 60, 60) ** d
    return dict(out, ell=2 * h + 1, M=_ball_lattice_count(gamma / (2 * h + 1), d), mass=float(mass),
                margin_ok=bool(mass > (1 + eps) / 2))


def lattice_1d(gamma: float, margin: int = 8):
    r"""The 1-D factor :math:`A_1[c,u] = e^{cu-u^2/2}/Z_c`, c ∈ [−⌊γ⌋, ⌊γ⌋], u ∈ [−R, R]: the lattice instance's
    cube-query matrix is its d-fold Kronecker power and the ball rows are a subset of those rows."""
    g, R = math.floor(gamma), math.ceil(gamma) + margin
    c, u = np.arange(-g, g + 1.0), np.arange(-R, R + 1.0)
    return softmax(c[:, None] * u[None, :] - u[None, :] ** 2 / 2)


@functools.lru_cache(maxsize=4)
def _lattice_svd(gamma, margin):
    A1 = lattice_1d(gamma, margin)
    return (A1, *np.linalg.svd(A1, full_matrices=False))


def kron_factor(gamma: float, k: int, margin: int = 8):
    """``(A1, B1)``: the 1-D factor of the lattice instance and its rank-k truncated SVD."""
    A1, U, s, Vt = _lattice_svd(gamma, margin)
    return A1, (U[:, :k] * s[:k]) @ Vt[:k]


def kron_error_bound(A1, B1, d: int) -> float:
    r"""The bound :math:`E\sum_{j<d}S^j` on the row-ℓ1 error of :math:`B_1^{\otimes d}` (see :func:`lattice_kron_upper`)."""
    E, S = float(np.abs(A1 - B1).sum(axis=1).max()), float(np.abs(B1).sum(axis=1).max())
    return E * sum(S**j for j in range(d))


def lattice_kron_upper(d: int, beta: float, eps: float, *, margin: int = 8, svd_max: int = 4096):
    r"""Upper certificate of the lattice instance: :math:`B = B_1^{\otimes d}` (ball rows), :math:`B_1` a truncated SVD of
    the 1-D factor :func:`lattice_1d`, or B = A (rank ≤ n, the row count) when that is smaller.

    For rows :math:`a=\otimes_k a_k`, :math:`b=\otimes_k b_k` the telescoping sum
    :math:`a-b=\sum_k b_1\otimes\dots\otimes b_{k-1}\otimes(a_k-b_k)\otimes a_{k+1}\otimes\dots\otimes a_d` and
    :math:`\|x\otimes y\|_1=\|x\|_1\|y\|_1` give :math:`\|a-b\|_1\le E\sum_{j<d}S^j` with
    :math:`E=\max_c\|A_{1,c}-B_{1,c}\|_1`, :math:`S=\max_c\|B_{1,c}\|_1` (each :math:`\|a_k\|_1 = 1`). The 1-D rank
    :math:`k_1` is the smallest (bisection, then checked) with that bound ≤ ε; rank B ≤ :math:`k_1^d`.

    Returns a dict: ``rank`` = min(k1^d, n), ``method`` ("kronecker-svd" or "rows"), ``error_bound`` (≤ ε; 0 for
    "rows"), k1, the 1-D size, γ, n and :math:`\rho_Q` (for Γ = β ρ_Q ρ_K with ρ_K = 1). When the 1-D factor has
    more than ``svd_max`` rows its SVD is skipped (k1 = None) and the certificate is the row count.

    Examples
    --------
    >>> c = lattice_kron_upper(2, 1e3, 0.5)
    >>> c["rank"] <= c["n"] and c["error_bound"] <= 0.5
    True
    """
    d = positive_int(d, "d")
    positive_real(beta, "beta")
    eps = _eps(eps)
    gamma = lattice_gamma(d, beta, margin)
    n = _ball_lattice_count(gamma, d)
    out = dict(d=d, beta=lattice_beta(d, gamma, margin), beta_nominal=float(beta), eps=eps,
               gamma=gamma, margin=margin, n=n, rho_Q=lattice_query_radius(d, gamma))
    size = 2 * math.floor(gamma) + 1
    if size > svd_max:
        return dict(out, k1=None, size_1d=size, kron_rank=None, rank=n, method="rows", error_bound=0.0)

    def bound(k):
        return kron_error_bound(*kron_factor(gamma, k, margin), d)

    lo, hi = 1, size
    while lo < hi:  # bisection for the smallest k with bound(k) <= eps (bound(s.size) = 0 up to rounding)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if bound(mid) <= eps else (mid + 1, hi)
    k1 = lo
    while bound(k1) > eps:  # the bound need not be monotone in k: step up until it holds
        k1 += 1
    kron = k1**d
    return dict(out, k1=k1, size_1d=size, kron_rank=kron, rank=min(kron, n),
                method="kronecker-svd" if kron < n else "rows", error_bound=bound(k1) if kron < n else 0.0)


# --------------------------------------------------------------------------- the continuum sphere
@functools.lru_cache(maxsize=1)
def _leggauss(n=400):
    return np.polynomial.legendre.leggauss(n)


def sphere_cap_mass(d: int, beta: float, rho):
    r"""Mass that :math:`p_x(k)\propto e^{\beta\langle x,k\rangle}` (k uniform on :math:`S^{d-1}`) puts on the cap
    of angular radius ρ around x: :math:`\int_0^\rho e^{\beta(\cos\theta-1)}\sin^{d-2}\theta\,d\theta \big/ \int_0^\pi(\cdot)`.

    Gauss–Legendre quadrature (400 nodes) on [0, ρ] and on [0, π] split at 60/√β, beyond which the
    integrand is below e^(−1000); vectorised over ρ.
    """
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

    Examples
    --------
    >>> round(cap_area(3, math.pi / 3), 12)   # (1 − cos θ)/2 on S^2
    0.25
    """
    d = _sphere_dim(d)
    if not 0 <= angle <= math.pi:
        raise ValueError(f"angle must lie in [0, π], got {angle}")
    half = 0.5 * float(special.betainc((d - 1) / 2, 0.5, math.sin(angle) ** 2))
    return half if angle <= math.pi / 2 else 1.0 - half


def cap_radius(d: int, beta: float, eps: float) -> float:
    """The angular radius ρ of a cap around x carrying :math:`p_x`-mass > (1+ε)/2 (ε < 1): the root of
    :func:`sphere_cap_mass` = (1+ε)/2 (Brent), enlarged by a relative 1e-9 so the inequality is strict."""
    thr = (1 + eps) / 2
    return optimize.brentq(lambda t: sphere_cap_mass(d, beta, t) - thr, 1e-12, math.pi, xtol=1e-14) * (1 + 1e-9)


def sphere_gv_lower(d: int, beta: float, eps: float):
    r"""Lower certificate of the continuum sphere at (β, ε), without constructing the messages.

    ρ is the smallest angle (root of :func:`sphere_cap_mass` = (1+ε)/2, enlarged by a relative 1e-9) with own-cap
    mass > (1+ε)/2. A maximal set of points at pairwise angle > 2ρ exists (the sphere is compact) and its
    closed caps of radius 2ρ cover the sphere, so it has :math:`M\ge\lceil 1/\sigma(\mathrm{cap}_{2\rho})\rceil`
    points; their caps of radius ρ are disjoint, so :math:`r_\epsilon\ge M` by the lower-certificate lemma.
    For ε ≥ 1, M = 0 (the zero matrix is within ε).

    Examples
    --------
    >>> sphere_gv_lower(2, 1e4, 0.25)["M"]
    178
    """
    d = _sphere_dim(d)
    positive_real(beta, "beta")
    eps = _eps(eps)
    if eps >= 1:  # the zero matrix is within ε
        return dict(d=d, beta=float(beta), eps=eps, rho=math.pi, M=0, mass=1.0)
    rho = cap_radius(d, beta, eps)
    M = 1 if 2 * rho >= math.pi else math.ceil(1 / cap_area(d, 2 * rho))
    return dict(d=d, beta=float(beta), eps=eps, rho=rho, M=int(M), mass=float(sphere_cap_mass(d, beta, rho)))


def harmonic_dimension(d: int, N: int) -> int:
    r""":math:`\dim\mathcal H_{\le N}(S^{d-1})`, the restrictions to the sphere of polynomials of degree ≤ N:
    :math:`\binom{N+d-1}{d-1}+\binom{N+d-2}{d-1}`.

    Examples
    --------
    >>> harmonic_dimension(2, 3), harmonic_dimension(3, 3)   # 2N + 1 and (N + 1)^2
    (7, 16)
    """
    d = _sphere_dim(d)
    if N < 0:
        raise ValueError(f"N must be >= 0, got {N}")
    return math.comb(N + d - 1, d - 1) + (math.comb(N + d - 2, d - 1) if N >= 1 else 0)


def _harmonic_coefficients(d, beta, n):
    r"""b_n with :math:`e^{\beta t}/Z = \sum_n b_n C_n^{\lambda}(t)`, λ = (d − 2)/2 (for d = 2: Chebyshev T_n).

    Funk–Hecke / Gegenbauer: :math:`e^{\beta t} = \Gamma(\lambda)(\beta/2)^{-\lambda}\sum_n(n+\lambda)I_{n+\lambda}(\beta)
    C_n^\lambda(t)`, and :math:`Z = \Gamma(\lambda+1)(2/\beta)^\lambda I_\lambda(\beta)`, so
    :math:`b_n = \frac{n+\lambda}{\lambda}\frac{I_{n+\lambda}(\beta)}{I_\lambda(\beta)}`; for d = 2,
    :math:`b_0 = 1`, :math:`b_n = 2I_n(\beta)/I_0(\beta)`. Exponentially scaled Bessel functions (``ive``)."""
    lam = (d - 2) / 2
    n = np.arange(n + 1, dtype=float)
    if d == 2:
        b = 2 * special.ive(n, beta) / special.ive(0, beta)
        b[0] = 1.0
        return b
    return (n + lam) / lam * special.ive(n + lam, beta) / special.ive(lam, beta)


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
            c = (2 * t * (n + lam - 1) * c_prev - (n + 2 * lam - 2) * c_prev2) / n
        c_prev2, c_prev = c_prev, c
        S += b[n] * c
        if last_only:
            continue
        errs.append(float((np.abs(p - S) * mu).sum()))
        if eps is not None and errs[-1] <= eps:
            break
    if last_only:
        errs = [float((np.abs(p - S) * mu).sum())]
    return errs, float((p * mu).sum())


def sphere_harmonic_upper(d: int, beta: float, eps: float, *, nodes_per_degree: int = 8, n_max: int | None = None):
    r"""Upper certificate of the continuum sphere: the expansion of :math:`p_x(k)=e^{\beta\langle x,k\rangle}/Z` in
    zonal harmonics truncated at the smallest degree N with :math:`L^1(\sigma)` error ≤ ε.

    :math:`p_N(x,k) = \sum_{n\le N} b_n C_n^\lambda(\langle x,k\rangle)` is, by the addition theorem, a sum of
    :math:`\dim\mathcal H_{\le N}` products :math:`Y(x)Y(k)`, so every query row lies in one space of that
    dimension: r_ε ≤ ``rank``. The error :math:`\int|p-p_N|\,d\sigma` depends on t = ⟨x, k⟩ only and is
    computed by composite Gauss–Legendre quadrature in θ = arccos t (``nodes_per_degree`` nodes per panel, one
    panel per degree of the largest N tried, plus 64), with :math:`C_n^\lambda` by the three-term recurrence
    (cos nθ for d = 2). The kinks of :math:`|p-p_N|` limit that quadrature's accuracy, so at the first N it
    accepts, the error is recomputed on four times as many panels: N is accepted when that error plus the
    difference of the two quadratures (``quadrature_gap``) is ≤ ε, and ``error`` is the finer value.

    Returns a dict with N, rank, the error, the quadrature gap, ``mass`` (the quadrature of p, 1 up to
    rounding) and the number of quadrature nodes.

    Examples
    --------
    >>> c = sphere_harmonic_upper(2, 100.0, 0.25)
    >>> c["rank"] == 2 * c["N"] + 1 and c["error"] + c["quadrature_gap"] <= 0.25
    True
    """
    d = _sphere_dim(d)
    beta = positive_real(beta, "beta")
    eps = _eps(eps)
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
            return dict(d=d, beta=float(beta), eps=eps, N=N, rank=harmonic_dimension(d, N), error=fine,
                        quadrature_gap=gap, mass=mass, nodes=int(fth.size))
        if N == n_max:
            break
        more, _ = _zonal_errors(d, beta, b, th, mu, n_stop=n_max, eps=None)
        nxt = [n for n in range(N + 1, n_max + 1) if more[n] <= eps]
        if not nxt:
            break
        errs = more[:nxt[0] + 1]
    return sphere_harmonic_upper(d, beta, eps, nodes_per_degree=nodes_per_degree, n_max=2 * n_max)
