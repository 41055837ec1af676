r"""The spectrum of attention matrices: singular values, energy, Eckart–Young tails, power laws, the softmax kernel.

For :math:`A = \mathrm{rowsoftmax}(\beta QK^\top)` with singular values :math:`\sigma_1\ge\sigma_2\ge\dots`:
the energy count (how many singular values hold a fraction of :math:`\|A\|_F^2`), the Eckart–Young tail
:math:`\|A - A_r\|_F = (\sum_{k>r}\sigma_k^2)^{1/2}`, the power-law tail bound of PDA §3.6, a power-law fit
of the spectrum with its envelope constant, and the softmax kernel :math:`\exp(\beta XY^\top)`. The book audits
the PDA draft's and the low-rank tutorial's claims about them in chapter 3 (:mod:`attnlab.audit.spectrum`).
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg as sla
from scipy import stats

from ..core._results import former_dict
from ..core._validate import (Array, as_float_array, finite_real, in_open_interval, nonnegative_int, positive_int,
                              positive_real, real_array)
from ..core.backend import get_array_module, to_numpy

__all__ = [
    "singular_values",
    "energy_count",
    "tail_norm",
    "powerlaw_tail_bound",
    "powerlaw_fit",
    "PowerlawFit",
    "envelope_constant",
    "softmax_kernel",
    "SoftmaxKernel",
]


# --------------------------------------------------------------------------- validation
def _real_array(x, name):
    """``x`` as a float64 NumPy array (CuPy arrays are copied to the host), checked by the library's policy."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be real numbers, not {type(x).__name__}")
    return np.asarray(to_numpy(real_array(x, name)), dtype=float)


def _spectrum(s, name="s"):
    """Singular values: a non-empty 1-D array of finite, non-negative, non-increasing numbers (float64)."""
    s = _real_array(s, name)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of singular values, got shape {s.shape}")
    if s[-1] < 0:
        raise ValueError(f"{name} must be non-negative")
    if np.any(np.diff(s) > 0):
        raise ValueError(f"{name} must be in non-increasing order (singular values as returned by an SVD)")
    return s


def _nonneg_int(n, name):
    return nonnegative_int(n, name)


def _real_scalar(x, name):
    return finite_real(x, name)


# --------------------------------------------------------------------------- singular values and their tails
def singular_values(A: ArrayLike) -> np.ndarray:
    r"""Singular values :math:`\sigma_1 \ge \sigma_2 \ge \dots \ge 0` of a matrix (LAPACK ``gesdd`` via SciPy).

    Parameters
    ----------
    A : array of shape (n_rows, n_cols)
        Real and finite, NumPy or CuPy (copied to the host). Integers and booleans are computed in float64,
        float16 in float32.

    Returns
    -------
    s : NumPy array of shape (min(n_rows, n_cols),)
        Non-increasing; float32 for float32 (or float16) input, float64 otherwise.

    Raises
    ------
    TypeError
        If ``A`` is not a real array.
    ValueError
        If ``A`` is not 2-D, is empty, or holds NaN or inf.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import singular_values
    >>> singular_values(np.array([[3.0, 0.0], [0.0, -4.0]]))
    array([4., 3.])
    """
    A = to_numpy(as_float_array(A, "A", ndim=2))
    if A.size == 0:
        raise ValueError(f"A must have positive dimensions, got shape {A.shape}")
    return sla.svdvals(A)


def energy_count(s: ArrayLike, frac: float = 0.9) -> int:
    r"""The number of leading singular values that hold a fraction of the energy :math:`\|A\|_F^2`.

    The smallest :math:`k \ge 1` with :math:`\sum_{i\le k}\sigma_i^2 \ge \text{frac}\cdot\sum_i\sigma_i^2` (the
    low-rank tutorial's energy measure; with ``frac = 0.9`` it is called k90). Rounding in the cumulative sum is
    allowed a relative ``1e-15``.

    Parameters
    ----------
    s : array_like of shape (n,)
        Singular values: finite, non-negative, non-increasing, n >= 1.
    frac : float
        The fraction, in (0, 1].

    Returns
    -------
    k : int
        In 1..n (1 for an all-zero spectrum).

    Raises
    ------
    TypeError
        If ``s`` is not numeric or ``frac`` not a real number.
    ValueError
        If ``s`` is empty, not 1-D, negative, increasing somewhere or not finite; if ``frac`` is outside (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import energy_count
    >>> energy_count(np.array([3.0, 1.0, 1.0]), 0.9)
    2
    """
    s = _spectrum(s)
    frac = _real_scalar(frac, "frac")
    if not 0 < frac <= 1:
        raise ValueError(f"frac must lie in (0, 1], got {frac:g}")
    e = np.cumsum(s**2)
    return int(np.searchsorted(e, frac * e[-1] * (1 - 1e-15)) + 1)


def tail_norm(s: ArrayLike, r: int) -> float:
    r"""Eckart–Young: the error of the best rank-r approximation, :math:`\|A - A_r\|_F = \sqrt{\sum_{k>r}\sigma_k^2}`.

    Parameters
    ----------
    s : array_like of shape (n,)
        Singular values of A: finite, non-negative, non-increasing, n >= 1.
    r : int
        Rank, >= 0 (``r = 0`` gives :math:`\|A\|_F`, ``r >= n`` gives 0).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``s`` is not numeric or ``r`` not an integer.
    ValueError
        If ``s`` is not a valid spectrum (see ``s``) or ``r`` < 0.

    Examples
    --------
    >>> from attnlab import tail_norm
    >>> tail_norm([5.0, 4.0, 3.0], 1)
    5.0
    """
    s = _spectrum(s)
    r = _nonneg_int(r, "r")
    return float(np.sqrt(np.sum(s[r:] ** 2)))


def powerlaw_tail_bound(C: ArrayLike, alpha: ArrayLike, r: ArrayLike) -> np.ndarray:
    r"""The tail bound of a power-law spectrum on the error of the best rank-r approximation.

    If :math:`\sigma_k \le C k^{-\alpha}` then :math:`\|A - A_r\|_F \le C\,r^{-(\alpha-1/2)}/\sqrt{2\alpha-1}`
    (the PDA draft's §3.6).

    The bound needs only :math:`\alpha > 1/2` (the sum :math:`\sum_{k>r} k^{-2\alpha}` is at most
    :math:`\int_r^\infty x^{-2\alpha}dx`); where :math:`\alpha \le 1/2` there is no bound and the result is ``inf``.
    Vectorised: ``C``, ``alpha`` and ``r`` broadcast.

    Parameters
    ----------
    C : float or array_like
        Envelope constant, finite and >= 0 (see :func:`envelope_constant`).
    alpha : float or array_like
        Decay exponent, finite.
    r : int, float or array_like
        Rank, finite and > 0.

    Returns
    -------
    bound : float64 ndarray of the broadcast shape (0-d for scalars)

    Raises
    ------
    TypeError
        If an argument is not numeric.
    ValueError
        If an argument is not finite, ``C`` < 0, ``r`` <= 0, or the shapes do not broadcast.

    Examples
    --------
    >>> from attnlab import powerlaw_tail_bound
    >>> round(float(powerlaw_tail_bound(1.0, 1.0, 4)), 6)
    0.5
    >>> float(powerlaw_tail_bound(1.0, 0.5, 4))
    inf
    """
    C = _real_array(C, "C")
    alpha = _real_array(alpha, "alpha")
    r = _real_array(r, "r")
    if np.any(C < 0):
        raise ValueError("C must be >= 0")
    if np.any(r <= 0):
        raise ValueError("r must be > 0")
    try:
        np.broadcast_shapes(C.shape, alpha.shape, r.shape)
    except ValueError as exc:
        raise ValueError(f"C, alpha and r must broadcast, got shapes {C.shape}, {alpha.shape}, {r.shape}") from exc
    if C.ndim == 0:
        C = float(C)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = C * r ** (-(alpha - 0.5)) / np.sqrt(2 * alpha - 1)
    return np.where(alpha > 0.5, out, np.inf)


@former_dict
class PowerlawFit(NamedTuple):
    r"""A power law :math:`\sigma_k \approx c\,k^{-\alpha}` fitted to a spectrum: the result of :func:`powerlaw_fit`.

    Formerly a dict: ``fit["alpha"]`` still works, with a ``DeprecationWarning``.

    Attributes
    ----------
    alpha : float
        The fitted exponent.
    alpha_lo, alpha_hi : float
        Its confidence interval (Student t).
    r2 : float
        The coefficient of determination of the log–log fit.
    c : float
        The fitted constant.
    k_lo, k_hi : int
        The range of indices fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import powerlaw_fit
    >>> fit = powerlaw_fit(2.0 * np.arange(1, 41) ** -1.0)
    >>> round(fit.alpha, 6), fit.k_lo, fit.k_hi
    (1.0, 2, 20)
    """

    alpha: float
    alpha_lo: float
    alpha_hi: float
    r2: float
    c: float
    k_lo: int
    k_hi: int


def powerlaw_fit(s: ArrayLike, k_lo: int = 2, k_hi: int | None = None, *, confidence: float = 0.95) -> PowerlawFit:
    r"""Least-squares fit of a power law :math:`\sigma_k \approx c\,k^{-\alpha}` to a spectrum.

    Fits :math:`\log\sigma_k = \log c - \alpha\log k` over :math:`k_{lo} \le k \le k_{hi}` with
    :func:`scipy.stats.linregress` and a Student-t interval for α. Singular values below :math:`10^{-13}\sigma_1`
    (rounding) are left out.

    Parameters
    ----------
    s : array_like of shape (n,)
        Singular values: finite, non-negative, non-increasing, :math:`\sigma_1 > 0`.
    k_lo : int
        First index fitted (1-based), >= 1.
    k_hi : int, optional
        Last index fitted, >= ``k_lo``; default ``n // 2``.
    confidence : float
        Level of the interval for α, in (0, 1).

    Returns
    -------
    PowerlawFit
        ``alpha``, its interval ``alpha_lo``, ``alpha_hi``, ``r2`` (coefficient of determination), ``c``, and the
        ``k_lo``, ``k_hi`` used.

    Raises
    ------
    TypeError
        If ``s`` is not numeric, ``k_lo``/``k_hi`` not integers or ``confidence`` not a real number.
    ValueError
        If ``s`` is not a valid spectrum or is all zero, ``k_lo`` < 1, ``k_hi`` < ``k_lo``, ``confidence`` is
        outside (0, 1), or fewer than 3 singular values lie in the range above rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import powerlaw_fit
    >>> f = powerlaw_fit(3.0 * np.arange(1, 101) ** -1.5)
    >>> round(f.alpha, 6), round(f.c, 6), f.k_hi
    (1.5, 3.0, 50)
    """
    s = _spectrum(s)
    if s[0] == 0:
        raise ValueError("s must have a positive largest singular value")
    k_lo = positive_int(k_lo, "k_lo")
    k_hi = len(s) // 2 if k_hi is None else positive_int(k_hi, "k_hi")
    if k_hi < k_lo:
        raise ValueError(f"k_hi must be >= k_lo = {k_lo}, got {k_hi}")
    confidence = in_open_interval(confidence, 0.0, 1.0, "confidence")
    k = np.arange(1, len(s) + 1)
    keep = (k >= k_lo) & (k <= k_hi) & (s > 1e-13 * s[0])
    x, y = np.log(k[keep]), np.log(s[keep])
    if x.size < 3:
        raise ValueError(f"powerlaw_fit needs >= 3 singular values above rounding with k_lo <= k <= k_hi, got "
                         f"{x.size} (k_lo = {k_lo}, k_hi = {k_hi}, n = {len(s)})")
    slope, intercept, rvalue, stderr = _linregress(x, y)
    t = _t_quantile(0.5 + confidence / 2, x.size - 2)
    return PowerlawFit(alpha=-float(slope), alpha_lo=-float(slope + t * stderr), alpha_hi=-float(slope - t * stderr),
                       r2=float(rvalue**2), c=math.exp(float(intercept)), k_lo=k_lo, k_hi=int(k_hi))


def _linregress(x, y):
    """Slope, intercept, correlation and the slope's standard error of the least-squares line through (x, y), n >= 3:
    the arithmetic of :func:`scipy.stats.linregress`, step for step (so the same numbers), without its per-call
    overhead (input policy, p-value), which dominated the fits of the book's thousands of spectra."""
    xmean, ymean = np.mean(x, None), np.mean(y, None)
    ssxm, ssxym, _, ssym = np.cov(x, y, bias=1).flat
    if ssxm == 0.0 or ssym == 0.0:
        r = np.float64(np.nan if ssxym == 0 else 0.0)
    else:
        r = np.clip(ssxym / np.sqrt(ssxm * ssym), -1.0, 1.0)
    slope = ssxym / ssxm
    return slope, ymean - slope * xmean, r, np.sqrt((1 - r**2) * ssym / ssxm / (x.size - 2))


@functools.lru_cache(maxsize=256)
def _t_quantile(q: float, df: int) -> float:
    """Student's t quantile (:func:`scipy.stats.t.ppf`), computed once per level and degrees of freedom."""
    return float(stats.t.ppf(q, df))


def envelope_constant(s: ArrayLike, alpha: float) -> float:
    r"""The smallest C with :math:`\sigma_k \le C k^{-\alpha}` for every k: :math:`C = \max_k \sigma_k k^\alpha`.

    Parameters
    ----------
    s : array_like of shape (n,)
        Singular values: finite, non-negative, non-increasing.
    alpha : float
        Exponent, finite.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``s`` is not numeric or ``alpha`` not a real number.
    ValueError
        If ``s`` is not a valid spectrum or ``alpha`` is not finite.

    Examples
    --------
    >>> from attnlab import envelope_constant
    >>> envelope_constant([1.0, 0.6, 0.2], 1.0)
    1.2
    """
    s = _spectrum(s)
    alpha = _real_scalar(alpha, "alpha")
    return float(np.max(s * np.arange(1, len(s) + 1) ** alpha))


# --------------------------------------------------------------------------- the softmax kernel
class SoftmaxKernel(NamedTuple):
    r"""The softmax kernel :math:`\exp(\beta XY^\top) = e^{\text{shift}}M`: the result of :func:`softmax_kernel`.

    Attributes
    ----------
    M : array, shape (n, n_y)
        :math:`\exp(\beta XY^\top - \text{shift})`, entries in (0, 1].
    shift : float
        :math:`\max\beta XY^\top`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import softmax_kernel
    >>> M, shift = softmax_kernel(np.array([[0.0], [2.0]]), beta=1.0)
    >>> shift, float(M.max())
    (4.0, 1.0)
    """

    M: Array
    shift: float


def softmax_kernel(X: ArrayLike, Y: ArrayLike | None = None, *, beta: float | None = None) -> SoftmaxKernel:
    r"""The softmax kernel matrix :math:`\exp(\beta\,XY^\top)` (default :math:`\beta = 1/\sqrt d`), computed stably.

    Returned as a :class:`SoftmaxKernel` ``(M, shift)`` with :math:`\exp(\beta XY^\top) = e^{\text{shift}}\cdot M`,
    where the shift is the largest logit, so large logits do not overflow (a positive factor changes neither
    definiteness nor the ratios of eigenvalues). For ``Y = None`` (``Y = X``) the matrix is symmetric positive
    semi-definite: it is the Gaussian kernel :math:`e^{-\|x-y\|^2/2}` scaled by :math:`e^{\|x\|^2/2}e^{\|y\|^2/2}`
    (with β absorbed in X).

    Parameters
    ----------
    X : array of shape (n, d)
        Real and finite, NumPy or CuPy (integers computed in float64, float16 in float32).
    Y : array of shape (n_y, d), optional
        Default ``X``.
    beta : float, optional
        Inverse temperature, finite and > 0; default :math:`1/\sqrt d`.

    Returns
    -------
    SoftmaxKernel
        ``M`` (n, n_y): :math:`\exp(\beta XY^\top - \text{shift})`, entries in (0, 1], library and dtype of the
        inputs; ``shift``: :math:`\max\beta XY^\top`, a float.

    Raises
    ------
    TypeError
        If ``X`` or ``Y`` is not a real array, or ``beta`` not a real number.
    ValueError
        If ``X`` or ``Y`` is not 2-D, empty or holds NaN or inf; if their widths differ; if ``beta`` <= 0 or is not
        finite; if :math:`\beta XY^\top` overflows the floating type (X or Y too large).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import softmax_kernel
    >>> M, shift = softmax_kernel(np.array([[0.0], [1.0]]), beta=1.0)
    >>> M.round(4), shift
    (array([[0.3679, 0.3679],
           [0.3679, 1.    ]]), 1.0)
    """
    X = as_float_array(X, "X", ndim=2)
    Y = X if Y is None else as_float_array(Y, "Y", ndim=2)
    for name, a in (("X", X), ("Y", Y)):
        if 0 in a.shape:
            raise ValueError(f"{name} must have positive dimensions, got shape {tuple(a.shape)}")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must have the same width, got {X.shape[1]} and {Y.shape[1]}")
    if X.dtype == np.float16:
        X = X.astype(np.float32)
    if Y.dtype == np.float16:
        Y = Y.astype(np.float32)
    xp = get_array_module(X, Y)
    beta = 1 / math.sqrt(X.shape[1]) if beta is None else positive_real(beta, "beta")
    S = beta * (X @ Y.T)
    if not bool(xp.isfinite(S).all()):
        raise ValueError(f"beta·X·Yᵀ overflows {S.dtype}: X or Y is too large (scale them down)")
    shift = float(S.max())
    return SoftmaxKernel(xp.exp(S - shift), shift)
