r"""Approximation rank of a row-stochastic matrix: the operator identity and the upper and lower certificates.

The approximation rank of a row-stochastic matrix :math:`A\in\mathbb R^{n\times L}` is

.. math::
    r_\epsilon(A) = \min\{\operatorname{rank} B : \max_i \|A_i - B_i\|_1 \le \epsilon\},

and by the operator identity the row-:math:`\ell_1` error is the worst output error over all
values with :math:`\max_j\|v_j\|\le 1`, in any norm. :math:`r_\epsilon` itself is not computable here; it is
bracketed by certificates:

* upper (:func:`rank_upper_certificate`): an explicit B of rank k with row error ≤ ε, so r_ε ≤ k;
* lower (:func:`rank_lower_certificate`): M rows and M disjoint column sets, each row putting mass
  > (1 + ε)/2 on its own set; then every B within ε has rank ≥ M (column sums over the sets of those
  rows form a strictly diagonally dominant M × M matrix).

Everything that touches an n × L matrix works on blocks of rows, and the arrays follow the backend of
the inputs (NumPy or CuPy). Inputs are float32 or float64 (integers are promoted to float64); float16 is rejected.
"""
from __future__ import annotations

import bisect
import math
import time
import warnings
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from numpy.typing import ArrayLike
from ..core._validate import Array
from ..core._validate import choice, positive_int
from ..core._validate import certificate_eps as _eps, matrix as _matrix, matrix_pair as _pair
from ..core.backend import get_array_module, to_numpy

__all__ = [
    "row_l1_error",
    "row_norms",
    "operator_error",
    "maximising_values",
    "UpperCertificate",
    "rank_upper_certificate",
    "svd_upper_certificates",
    "LowerCertificate",
    "rank_lower_certificate",
    "lower_certificate_margin",
    "lower_certificate_dominance",
]

_BLOCK = 1024  # rows per block: a block of an n × L float64 matrix is at most 1024·L·8 bytes
_NORMS = ("l1", "l2", "linf")


# --------------------------------------------------------------------------- validation
def _stochastic(A, name="A", tol=1e-8):
    A = _matrix(A, name)
    xp = get_array_module(A)
    if bool((A < -tol).any()) or bool((xp.abs(A.sum(axis=1) - 1) > tol * A.shape[1] + tol).any()):
        raise ValueError(f"{name} must be row-stochastic (non-negative rows summing to 1)")
    return A


def _norm(norm):
    return choice(norm, _NORMS, "norm")


def _scaled_max(xp, fun, groups, names: str) -> float:
    """``max(fun(*arrays))`` as a float, where ``fun`` is homogeneous of degree 1 in each group of ``groups`` (a tuple
    of tuples of arrays), without overflow in the intermediate sums: when the direct computation overflows it is
    redone in float64 on every group divided by a power of two near its largest |entry| (exact) and scaled back; a
    true value beyond the largest float64 raises ``ValueError`` naming the arrays."""
    arrays = [a for g in groups for a in g]
    with np.errstate(over="ignore", invalid="ignore"):
        val = float(fun(*arrays))
    if math.isfinite(val):
        return val
    scales = [math.ldexp(1.0, math.frexp(max(float(xp.abs(a).max()) for a in g))[1] - 1) for g in groups]
    scaled = [a.astype(xp.float64) / sc for g, sc in zip(groups, scales) for a in g]
    with np.errstate(over="ignore", invalid="ignore"):
        val = float(fun(*scaled))
        for sc in scales:
            val *= sc
    if math.isfinite(val):
        return val
    raise ValueError(f"the error of {names} exceeds the largest float64 ({np.finfo(np.float64).max:.3g}): "
                     f"scale {names} down")


# --------------------------------------------------------------------------- the operator identity
def row_l1_error(A: ArrayLike, B: ArrayLike, *, block: int = _BLOCK) -> float:
    r"""Row-ℓ1 error :math:`\max_i \|A_i - B_i\|_1` of two n × L matrices, computed in row blocks.

    Parameters
    ----------
    A, B : array (n, L), float32 or float64, finite
        The matrices (any real entries; A need not be stochastic here). Same shape, n, L ≥ 1.
    block : int, optional
        Rows per block (≥ 1); the memory used is about ``block · L`` entries.

    Returns
    -------
    float
        The largest ℓ1 distance between corresponding rows.

    Raises
    ------
    TypeError
        A or B not an array of real numbers (bool, complex); ``block`` not an integer.
    ValueError
        Not 2-D, empty, NaN or inf, shapes differ, ``block`` < 1; the error itself exceeds the largest float64
        (entries near ±1e308: the sums are rescaled first, so only a result that no float64 holds raises).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import row_l1_error
    >>> row_l1_error(np.eye(2), np.full((2, 2), 0.5))
    1.0
    """
    A, B = _pair(A, B)
    block = positive_int(block, "block")
    xp = get_array_module(A, B)
    return max(_scaled_max(xp, lambda a, b: xp.abs(a - b).sum(axis=1).max(), ((A[i:i + block], B[i:i + block]),),
                           "A and B") for i in range(0, A.shape[0], block))


def _vec_norm(X, norm, axis=-1):
    xp = get_array_module(X)
    if norm == "l2":
        return xp.sqrt((X * X).sum(axis=axis))
    if norm == "l1":
        return xp.abs(X).sum(axis=axis)
    if norm == "linf":
        return xp.abs(X).max(axis=axis)
    raise ValueError(f"norm must be 'l1', 'l2' or 'linf', got {norm!r}")


def row_norms(X: ArrayLike, norm: str = "l2") -> Array:
    r"""The norm of each row of X: the value norms of :func:`operator_error` and :func:`maximising_values`.

    Parameters
    ----------
    X : array (n, m), finite
        Rows (values, or output errors).
    norm : {"l2", "l1", "linf"}
        The norm.

    Returns
    -------
    array (n,)
        :math:`\|X_i\|`, in the backend and floating dtype of X.

    Raises
    ------
    TypeError
        A non-array, non-real or bool argument.
    ValueError
        X not 2-D or empty, NaN or inf, an unknown ``norm``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import row_norms
    >>> row_norms(np.array([[3.0, -4.0]])), row_norms(np.array([[3.0, -4.0]]), "linf")
    (array([5.]), array([4.]))
    """
    return _vec_norm(_matrix(X, "X"), _norm(norm))


def operator_error(A: ArrayLike, B: ArrayLike, V: ArrayLike, norm: str = "l2") -> float:
    r"""Worst output error :math:`\max_i \|\sum_j (A_{ij}-B_{ij}) v_j\|` for the values V, in the given vector norm.

    By the operator identity its supremum over all V with :math:`\max_j\|v_j\|\le 1` is :func:`row_l1_error` (A, B).

    Parameters
    ----------
    A, B : array (n, L), float32 or float64, finite
        Same shape.
    V : array (L, m), float32 or float64, finite
        One value vector :math:`v_j` per column j of A (its rows).
    norm : {"l2", "l1", "linf"}
        The norm of the output vectors.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        A non-array or float16 argument.
    ValueError
        Wrong dimensions, empty, NaN or inf, B not of A's shape, V without L rows, unknown ``norm``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import operator_error
    >>> operator_error(np.eye(2), np.full((2, 2), 0.5), np.array([[1.0], [-1.0]]), "l1")
    1.0
    """
    A, B = _pair(A, B)
    V = _matrix(V, "V")
    norm = _norm(norm)
    if V.shape[0] != A.shape[1]:
        raise ValueError(f"V must have {A.shape[1]} rows, got {V.shape[0]}")
    xp = get_array_module(A, B, V)
    return _scaled_max(xp, lambda a, b, v: _vec_norm((a - b) @ v, norm).max(), ((A, B), (V,)), "A, B and V")


def maximising_values(A: ArrayLike, B: ArrayLike, m: int = 3, norm: str = "l2") -> Array:
    r"""Values attaining the supremum in the operator identity: the signs of the worst row's difference.

    :math:`v_j = \operatorname{sign}(A_{i^\star j}-B_{i^\star j})\,w`.

    :math:`i^\star` is a row of largest ℓ1 error and w a unit vector of the norm (:math:`e_1` for ℓ1 and ℓ2,
    the all-ones vector for ℓ∞); then :math:`\sum_j (A-B)_{i^\star j} v_j = \|A_{i^\star}-B_{i^\star}\|_1\,w`
    (a zero difference counts as sign +1).

    Parameters
    ----------
    A, B : array (n, L), float32 or float64, finite
        Same shape.
    m : int
        Dimension of the values (≥ 1).
    norm : {"l2", "l1", "linf"}
        The value norm.

    Returns
    -------
    array (L, m)
        V with :math:`\max_j \|v_j\| = 1` and ``operator_error(A, B, V, norm) == row_l1_error(A, B)``.

    Raises
    ------
    TypeError
        A non-array or float16 argument, ``m`` not an integer.
    ValueError
        Wrong shapes, NaN or inf, ``m`` < 1, unknown ``norm``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import maximising_values, operator_error, row_l1_error
    >>> A, B = np.eye(2), np.full((2, 2), 0.5)
    >>> operator_error(A, B, maximising_values(A, B, 2, "linf"), "linf") == row_l1_error(A, B)
    True
    """
    A, B = _pair(A, B)
    positive_int(m, "m")
    norm = _norm(norm)
    xp = get_array_module(A, B)
    D = A - B
    i = int(xp.argmax(xp.abs(D).sum(axis=1)))
    w = xp.zeros(m)
    if norm in ("l1", "l2"):
        w[0] = 1.0
    else:
        w[:] = 1.0
    s = xp.sign(D[i])
    s[s == 0] = 1.0
    return s[:, None] * w[None, :]


# --------------------------------------------------------------------------- upper certificates
@dataclass(frozen=True)
class UpperCertificate:
    r"""An explicit approximation B of rank ≤ ``bound`` with row-ℓ1 error ``error`` ≤ ``eps``: :math:`r_\epsilon(A)\le`
    ``bound``.

    Made by :func:`rank_upper_certificate`; :meth:`matrix` rebuilds B. Its bound is ``bound``, as in
    :class:`LowerCertificate` (``rank`` is the same number under its earlier name, deprecated).

    Parameters
    ----------
    bound : int
        The certified upper bound on :math:`r_\epsilon` (the rank of B).
    error : float
        ``row_l1_error(A, B)``, computed on B itself.
    eps : float
        The tolerance.
    method : str
        The construction (see :func:`rank_upper_certificate`).
    left, right : array
        The factors: for ``method="greedy"`` ``left`` is the assignment (n,) of rows to centres and ``right`` the
        centre rows (M × L), B = right[left]; otherwise ``left`` is n × k and ``right`` k × L, B = left · right.
    seconds : float
        Wall time of the construction.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import UpperCertificate
    >>> c = UpperCertificate(1, 0.0, 0.5, "svd", np.ones((2, 1)), np.full((1, 2), 0.5))
    >>> c.matrix()
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """

    bound: int
    error: float
    eps: float
    method: str
    left: object = field(repr=False)
    right: object = field(repr=False)
    seconds: float = 0.0

    @property
    def rank(self) -> int:
        """The certified bound, :attr:`bound`, under its earlier name (deprecated)."""
        warnings.warn("UpperCertificate.rank is deprecated; use .bound", DeprecationWarning, stacklevel=2)
        return self.bound

    def matrix(self) -> Array:
        """The certifying matrix B (n × L)."""
        if self.left.ndim == 1:
            return self.right[self.left]
        return self.left @ self.right


def _greedy_cover(A, eps, block=_BLOCK):
    """Centres among the rows such that every row is within ε (ℓ1) of its centre; first-uncovered order."""
    xp = get_array_module(A)
    n = A.shape[0]
    assign = xp.full(n, -1, dtype=xp.int64)
    uncovered = xp.arange(n)
    centres = []
    while uncovered.size:
        c = int(uncovered[0])
        dist = xp.concatenate([xp.abs(A[uncovered[s:s + block]] - A[c]).sum(axis=1)
                               for s in range(0, uncovered.size, block)])
        hit = dist <= eps
        assign[uncovered[hit]] = len(centres)
        centres.append(c)
        uncovered = uncovered[~hit]
    return assign, xp.asarray(centres)


def _row_errors(A, left, right, block=_BLOCK, first=None, eps=None):
    """Row-ℓ1 errors of A − left·right (blocked); with ``eps``, stop at the first block holding a row above ε."""
    xp = get_array_module(A)
    n = A.shape[0]
    errs = xp.zeros(n)
    order = [] if first is None else [first]
    blocks = order + [slice(s, s + block) for s in range(0, n, block)]
    for sl in blocks:
        e = xp.abs(A[sl] - left[sl] @ right).sum(axis=1)
        errs[sl] = e
        if eps is not None and bool((e > eps).any()):
            return errs, False
    return errs, True


def _smallest_k(ok, lo, hi):
    """Smallest k in [lo, hi] with ok(k), assuming ok(hi) and monotonicity (bisection)."""
    return lo + bisect.bisect_left(range(lo, hi + 1), True, key=ok)


def _svd_factors(A):
    """Right singular vectors of A (columns, by decreasing singular value) and A·V, via the L × L Gram matrix."""
    xp = get_array_module(A)
    L = A.shape[1]
    G = xp.zeros((L, L))
    for s in range(0, A.shape[0], _BLOCK):
        G += A[s:s + _BLOCK].T @ A[s:s + _BLOCK]
    w, V = xp.linalg.eigh(G)
    V = V[:, ::-1]
    return V, A @ V, xp.sqrt(xp.clip(w[::-1], 0, None))


def _svd_certificate(A, eps, factors=None):
    """Smallest k whose truncated SVD has row-ℓ1 error ≤ ε, searched between ℓ2 bounds (ℓ2 ≤ ℓ1 ≤ √L·ℓ2);
    ``factors``: :func:`_svd_factors` (A), when several ε share them."""
    xp = get_array_module(A)
    V, AV, _ = _svd_factors(A) if factors is None else factors
    L = A.shape[1]
    # squared ℓ2 residual of every row for every k, from the captured energy (no reconstruction needed)
    res2 = (A * A).sum(axis=1)[:, None] - xp.cumsum(AV * AV, axis=1)
    worst2 = to_numpy(res2.max(axis=0))
    k_lo = int(np.argmax(np.sqrt(np.clip(worst2, 0, None)) <= eps)) + 1 if (worst2 <= eps**2).any() else L
    good = np.nonzero(np.sqrt(np.clip(worst2, 0, None)) <= eps / math.sqrt(L))[0]
    k_hi = int(good[0]) + 1 if good.size else L
    k_hi = max(k_hi, k_lo)
    state = {"rows": None}

    def ok(k):
        rows = xp.argsort(res2[:, k - 1])[-64:] if state["rows"] is None else state["rows"]
        errs, fine = _row_errors(A, AV[:, :k], V[:, :k].T, first=rows, eps=eps)
        if not fine:
            state["rows"] = xp.argsort(errs)[-64:]
        return fine

    if not ok(k_hi):
        k_hi = L
    k = _smallest_k(ok, k_lo, k_hi)
    errs, _ = _row_errors(A, AV[:, :k], V[:, :k].T)
    return k, float(errs.max()), AV[:, :k], V[:, :k].T


def _cover_svd_certificate(A, eps, fractions=(0.7,)):
    """Cover at radius θε, then the smallest rank of the centre matrix's truncated SVD keeping the error ≤ ε."""
    xp = get_array_module(A)
    best = None
    for th in fractions:
        assign, centres = _greedy_cover(A, th * eps)
        C = A[centres]
        U, s, Vt = xp.linalg.svd(C, full_matrices=False)

        def ok(k):
            errs, good = _row_errors(A, (U[:, :k] * s[:k])[assign], Vt[:k], eps=eps)
            return good

        hi = C.shape[0]
        if not ok(hi):  # numerical safety; the full centre matrix is within θε
            continue
        k = _smallest_k(ok, 1, hi)
        if best is None or k < best[0]:
            left = (U[:, :k] * s[:k])[assign]
            errs, _ = _row_errors(A, left, Vt[:k])
            best = (k, float(errs.max()), left, Vt[:k])
    return best


def rank_upper_certificate(A: ArrayLike, eps: float, method: str = "best") -> UpperCertificate:
    r"""An upper certificate of :math:`r_\epsilon(A)`: a matrix B of rank ≤ k with row-ℓ1 error ≤ ε.

    ``"greedy"``: ℓ1 cover of the rows: the first uncovered row becomes a centre and covers every row within ε
    (one vectorised distance computation per centre); B replaces each row by its centre, so rank B ≤ number of
    centres. ``"svd"``: :math:`B = AV_kV_k^\top` with :math:`V_k` the top-k right singular vectors, k the smallest
    rank (binary search, checked directly) whose row-ℓ1 error is ≤ ε. ``"cover-svd"``: cover at radius θε
    (θ = 0.7), then the smallest truncated SVD of the centre matrix whose rows, assigned back, stay within ε:
    rank B ≤ k ≤ centres. ``"best"`` (the default) runs all three and returns the one of smallest rank, so it costs
    the sum of the three (the SVD of A and its binary search dominate for large matrices): pass a single method to
    pay for one. Every certificate's ``error`` is ``row_l1_error(A, B)`` computed on B itself, whatever the
    construction.

    Choosing ε: the certificate bounds the worst output error over values with :math:`\max_j\|v_j\|\le 1` by ε
    (:func:`operator_error`), so ε is the tolerated output error relative to the values' size.

    Parameters
    ----------
    A : array (n, L), float32 or float64
        Row-stochastic (entries ≥ −1e-8, rows summing to 1 within 1e-8·(L + 1)).
    eps : float in (0, 2)
        The tolerance.
    method : {"best", "greedy", "svd", "cover-svd"}

    Returns
    -------
    UpperCertificate
        With ``bound`` ≥ :math:`r_\epsilon(A)` and ``error`` ≤ ``eps``.

    Raises
    ------
    TypeError
        A not a real floating array (or float16), ``eps`` not a real number.
    ValueError
        A not 2-D, empty, NaN or inf, not row-stochastic; ``eps`` outside (0, 2); unknown ``method``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rank_upper_certificate
    >>> A = np.repeat(np.eye(3), 4, axis=0)            # 12 rows, rank 3
    >>> rank_upper_certificate(A, 0.5, "greedy").bound
    3
    """
    A = _stochastic(A)
    eps = _eps(eps)
    if not isinstance(method, str) or method not in ("greedy", "svd", "cover-svd", "best"):
        raise ValueError(f"method must be 'greedy', 'svd', 'cover-svd' or 'best', got {method!r}")
    t0 = time.perf_counter()
    if method == "best":
        certs = [rank_upper_certificate(A, eps, m) for m in ("greedy", "svd", "cover-svd")]
        best = min(certs, key=lambda c: c.bound)
        best = dataclasses.replace(best, method=f"best ({best.method})", seconds=time.perf_counter() - t0)
        return best
    if method == "greedy":
        assign, centres = _greedy_cover(A, eps)
        right = A[centres]
        err = row_l1_error(A, right[assign])
        return UpperCertificate(int(centres.size), err, eps, method, assign, right, time.perf_counter() - t0)
    if method == "svd":
        k, err, left, right = _svd_certificate(A, eps)
    else:
        k, err, left, right = _cover_svd_certificate(A, eps)
    return UpperCertificate(int(k), err, eps, method, left, right, time.perf_counter() - t0)


def svd_upper_certificates(A: ArrayLike, eps: Iterable[float]) -> list[UpperCertificate]:
    r"""The ``"svd"`` upper certificates of A at several tolerances, from one SVD of A.

    For each ε of ``eps`` the certificate ``rank_upper_certificate(A, ε, "svd")`` (the smallest rank k whose
    truncated SVD :math:`AV_kV_k^\top` has row-ℓ1 error ≤ ε), with the right singular vectors of A (the
    eigendecomposition of its L × L Gram matrix) computed once for all of them: a sweep over ε costs one SVD
    and one search per ε.

    Parameters
    ----------
    A : array (n, L), float32 or float64
        Row-stochastic (as for :func:`rank_upper_certificate`).
    eps : sequence of float in (0, 2)
        The tolerances, in any order (a list, a tuple, a 1-D array).

    Returns
    -------
    list of UpperCertificate
        One per ε, in the order of ``eps``, each with ``method="svd"``; its ``seconds`` are the shared SVD's time
        plus its own search's.

    Raises
    ------
    TypeError
        A not a real floating array (or float16), ``eps`` not a sequence of real numbers.
    ValueError
        A not 2-D, empty, NaN or inf, not row-stochastic; an ε outside (0, 2).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rank_upper_certificate, svd_upper_certificates
    >>> A = np.repeat(np.eye(3), 4, axis=0) * 0.9 + 0.1 / 3
    >>> [c.bound for c in svd_upper_certificates(A, [0.1, 1.9])]
    [3, 1]
    >>> svd_upper_certificates(A, [0.5])[0].bound == rank_upper_certificate(A, 0.5, "svd").bound
    True
    """
    A = _stochastic(A)
    try:
        if isinstance(eps, (str, bytes)):
            raise TypeError
        eps = list(eps)
    except TypeError:
        raise TypeError(f"eps must be a sequence of tolerances, not {type(eps).__name__}") from None
    eps = [_eps(e) for e in eps]
    t0 = time.perf_counter()
    factors = _svd_factors(A)
    shared = time.perf_counter() - t0
    out = []
    for e in eps:
        t1 = time.perf_counter()
        k, err, left, right = _svd_certificate(A, e, factors)
        out.append(UpperCertificate(int(k), err, e, "svd", left, right, shared + time.perf_counter() - t1))
    return out


# --------------------------------------------------------------------------- lower certificate
@dataclass(frozen=True)
class LowerCertificate:
    r"""M rows and M disjoint column sets with :math:`A_{i_a}(S_a) > (1+\epsilon)/2`: then :math:`r_\epsilon(A)\ge M`.

    Made by :func:`rank_lower_certificate` (or by hand, for a construction such as the lattice messages);
    :func:`lower_certificate_margin` checks one. Its bound is ``bound``, as in :class:`UpperCertificate` (``M`` is the
    same number under its earlier name, deprecated).

    Parameters
    ----------
    bound : int
        Number of rows M (the certified lower bound on :math:`r_\epsilon`).
    eps : float
        The tolerance.
    rows : list of int
        The rows :math:`i_a`.
    sets : list of int arrays
        The disjoint column sets :math:`S_a`, one per row.
    masses : list of float
        :math:`A_{i_a}(S_a)`.
    seconds : float
        Wall time of the search.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import LowerCertificate, lower_certificate_margin
    >>> cert = LowerCertificate(2, 0.5, [0, 1], [np.array([0]), np.array([1])], [1.0, 1.0])
    >>> lower_certificate_margin(np.eye(2), cert)
    0.5
    """

    bound: int
    eps: float
    rows: list
    sets: list = field(repr=False)
    masses: list = field(repr=False)
    seconds: float = 0.0

    @property
    def M(self) -> int:
        """The certified bound, :attr:`bound`, under its earlier name (deprecated)."""
        warnings.warn("LowerCertificate.M is deprecated; use .bound", DeprecationWarning, stacklevel=2)
        return self.bound


def rank_lower_certificate(A: ArrayLike, eps: float) -> LowerCertificate:
    r"""Search M rows and M disjoint column sets, each row putting mass > (1 + ε)/2 on its own set.

    Rows are taken in increasing order of the smallest set that carries mass > (1+ε)/2 (its largest
    entries); each row, in turn, takes its largest *still free* columns until the threshold is passed,
    and is skipped if the free columns cannot reach it. A Python loop over rows, vectorised over columns.

    Every B with :math:`\max_i\|A_i-B_i\|_1\le\epsilon` then has rank ≥ M: the M × M matrix
    :math:`C_{ab} = \sum_{j\in S_b} B_{i_a j}` satisfies
    :math:`C_{aa} - \sum_{b\ne a}|C_{ab}| \ge 2A_{i_a}(S_a) - 1 - \epsilon > 0`.

    Parameters
    ----------
    A : array (n, L), float32 or float64
        Row-stochastic.
    eps : float in (0, 2)
        The tolerance (for ε ≥ 1 no set carries mass > (1 + ε)/2 and M = 0).

    Returns
    -------
    LowerCertificate
        With ``bound`` = M ≤ :math:`r_\epsilon(A)`.

    Raises
    ------
    TypeError
        A not a real floating array (or float16), ``eps`` not a real number.
    ValueError
        A not 2-D, empty, NaN or inf, not row-stochastic; ``eps`` outside (0, 2).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import rank_lower_certificate
    >>> A = np.repeat(np.eye(3), 4, axis=0)
    >>> rank_lower_certificate(A, 0.5).bound
    3
    """
    A = _stochastic(A)
    eps = _eps(eps)
    t0 = time.perf_counter()
    xp = get_array_module(A)
    thr = (1 + eps) / 2 + 1e-12
    order = xp.argsort(-A, axis=1)
    S = xp.take_along_axis(A, order, axis=1)
    need = (xp.cumsum(S, axis=1) <= thr).sum(axis=1)  # entries before the threshold is passed
    feasible = xp.cumsum(S, axis=1)[:, -1] > thr
    rows_order = to_numpy(xp.argsort(need + (~feasible) * A.shape[1] * 2, kind="stable"))
    used = xp.zeros(A.shape[1], dtype=bool)
    rows, sets, masses = [], [], []
    for i in rows_order:
        if not bool(feasible[i]):
            break
        free = ~used[order[i]]
        vals = S[i] * free
        cs = xp.cumsum(vals)
        if float(cs[-1]) <= thr:
            continue
        k = int((cs <= thr).sum()) + 1  # entries of the free, sorted sequence up to the crossing
        idx = xp.nonzero(free)[0][:k]
        cols = order[i][idx]
        used[cols] = True
        rows.append(int(i))
        sets.append(to_numpy(cols))
        masses.append(float(A[i, cols].sum()))
    return LowerCertificate(len(rows), eps, rows, sets, masses, time.perf_counter() - t0)


def _certificate_inside(cert, shape) -> None:
    """Raise ValueError when a row or a column of ``cert`` lies outside a matrix of ``shape``."""
    if any(not 0 <= int(i) < shape[0] for i in cert.rows) or any(
            np.size(s) and not (0 <= np.min(s) and np.max(s) < shape[1]) for s in cert.sets):
        raise ValueError(f"cert has rows or columns outside A of shape {tuple(shape)}")


def _lower_certificate(cert) -> None:
    if not isinstance(cert, LowerCertificate):
        raise TypeError(f"cert must be a LowerCertificate, not {type(cert).__name__}")


def lower_certificate_margin(A: ArrayLike, cert: LowerCertificate, B: ArrayLike | None = None) -> float:
    r"""Check a lower certificate: the smallest :math:`2A_{i_a}(S_a)-1-\epsilon` over its rows (valid when > 0).

    Parameters
    ----------
    A : array (n, L), float32 or float64, finite
        The certified matrix.
    cert : LowerCertificate
        Rows in [0, n), sets of columns in [0, L).
    B : array (n, L), optional
        Deprecated: pass B to :func:`lower_certificate_dominance`. With B this function returns, as it used to, the
        pair ``(margin, lower_certificate_dominance(B, cert))``, with a ``DeprecationWarning``.

    Returns
    -------
    float
        The margin; ``inf`` for an empty certificate.

    Raises
    ------
    TypeError
        A or B not a real floating array (or float16), ``cert`` not a LowerCertificate.
    ValueError
        Wrong dimensions, NaN or inf, B not of A's shape, rows or columns of ``cert`` outside A.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lower_certificate_margin, rank_lower_certificate
    >>> A = np.repeat(np.eye(3), 4, axis=0)
    >>> lower_certificate_margin(A, rank_lower_certificate(A, 0.5))
    0.5
    """
    A = _matrix(A, "A")
    _lower_certificate(cert)
    if B is not None:
        warnings.warn("lower_certificate_margin(A, cert, B) is deprecated: it returns a float; the dominance margin "
                      "is lower_certificate_dominance(B, cert)", DeprecationWarning, stacklevel=2)
        A, B = _pair(A, B)
        return lower_certificate_margin(A, cert), lower_certificate_dominance(B, cert)
    if cert.bound == 0:
        return math.inf
    _certificate_inside(cert, A.shape)
    own = np.array([float(A[i, s].sum()) for i, s in zip(cert.rows, cert.sets)])
    return float((2 * own - 1 - cert.eps).min())


def lower_certificate_dominance(B: ArrayLike, cert: LowerCertificate) -> float:
    r"""The diagonal-dominance margin that a lower certificate forces on any matrix B within ε of the certified A.

    With :math:`C_{ab} = \sum_{j\in S_b} B_{i_a j}` (M × M), the smallest :math:`C_{aa}-\sum_{b\ne a}|C_{ab}|`:
    it is > 0 for every B with :math:`\max_i\|A_i-B_i\|_1\le\epsilon` when the certificate is valid
    (:func:`lower_certificate_margin` > 0), so such a B has rank ≥ M.

    Parameters
    ----------
    B : array (n, L), float32 or float64, finite
        The matrix to test (for instance an upper certificate's :meth:`UpperCertificate.matrix`).
    cert : LowerCertificate
        Rows in [0, n), sets of columns in [0, L).

    Returns
    -------
    float
        The dominance margin; ``inf`` for an empty certificate.

    Raises
    ------
    TypeError
        B not a real floating array (or float16), ``cert`` not a LowerCertificate.
    ValueError
        B not 2-D, empty, NaN or inf; rows or columns of ``cert`` outside B.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lower_certificate_dominance, rank_lower_certificate
    >>> A = np.repeat(np.eye(3), 4, axis=0)
    >>> lower_certificate_dominance(A, rank_lower_certificate(A, 0.5))   # B = A: C is the identity
    1.0
    """
    B = _matrix(B, "B")
    _lower_certificate(cert)
    if cert.bound == 0:
        return math.inf
    _certificate_inside(cert, B.shape)
    xp = get_array_module(B)
    lab = np.full(B.shape[1], -1)
    for a, s in enumerate(cert.sets):
        lab[s] = a
    lab = xp.asarray(lab)
    Br = B[xp.asarray(cert.rows)]
    C = xp.zeros((cert.bound, cert.bound + 1))
    for b in range(cert.bound + 1):  # column b = M collects the columns outside every set
        C[:, b] = Br[:, lab == (b if b < cert.bound else -1)].sum(axis=1)
    C = C[:, :cert.bound]
    dom = xp.abs(xp.diag(C)) - (xp.abs(C).sum(axis=1) - xp.abs(xp.diag(C)))
    return float(dom.min())
