"""Small statistical helpers used across chapters: exact binomial intervals and slope fits."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["clopper_pearson", "SlopeFit", "fit_slope"]


def clopper_pearson(k, n, confidence: float = 0.95):
    """Exact (Clopper–Pearson) confidence interval for a binomial proportion ``k/n``.

    A thin, vectorised wrapper of :func:`scipy.stats.binomtest`.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.0362)
    """
    k = np.asarray(k)
    n = np.asarray(n)
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= k <= n and n >= 1")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    lo = np.empty(np.broadcast(k, n).shape)
    hi = np.empty_like(lo)
    for idx, (ki, ni) in enumerate(np.broadcast(k, n)):
        ci = stats.binomtest(int(ki), int(ni)).proportion_ci(confidence, method="exact")
        lo.flat[idx], hi.flat[idx] = ci.low, ci.high
    return (lo[()], hi[()])


@dataclass(frozen=True)
class SlopeFit:
    """Least-squares line ``y = intercept + slope·x`` with a confidence interval for the slope."""

    slope: float
    intercept: float
    slope_lo: float
    slope_hi: float
    r2: float
    n: int


def fit_slope(x, y, confidence: float = 0.95) -> SlopeFit:
    """Fit ``y = a + b x`` by least squares; Student-t interval for ``b`` (:func:`scipy.stats.linregress`).

    Examples
    --------
    >>> f = fit_slope([0, 1, 2, 3], [1, 3, 5, 7.01])
    >>> round(float(f.slope), 2)
    2.0
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 3:
        raise ValueError("x and y must be 1-D of equal length >= 3")
    r = stats.linregress(x, y)
    t = stats.t.ppf(0.5 + confidence / 2, x.size - 2)
    return SlopeFit(float(r.slope), float(r.intercept), float(r.slope - t * r.stderr), float(r.slope + t * r.stderr),
                    float(r.rvalue**2), int(x.size))
