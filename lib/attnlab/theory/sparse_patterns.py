r"""Sparse patterns from a fixed self-attention layer (Likhosherstov, Choromanski and Weller, 2021).

The construction, for a target :math:`A\in\mathbb R^{L\times L}_{\ge0}` with at most :math:`k` nonzeros per row and
column and ratio variation at most :math:`\gamma` inside each row:

1. the log-transformed target :math:`B` (:func:`log_target`): :math:`B_{ij} = \log(A_{ij}/\min_{S_i}A) + c` on the
   support :math:`S_i = \{j : A_{ij} > 0\}`, :math:`B_{ij} = 0` off it, with
   :math:`c = \log((1+\varepsilon_1)/\varepsilon_2)`;
2. a factorisation :math:`B = DV^\top` with orthonormal :math:`V` (the SVD :math:`B = U\Sigma V^\top`,
   :math:`D = U\Sigma`);
3. a random projection :math:`Y` to dimension :math:`d` of both factors, :math:`X^{(1)} = DY`, :math:`X^{(2)} = VY`;
4. fixed parameters :math:`W_Q = [I_d; 0]`, :math:`W_K = [0; I_d]` and inputs :math:`X = [X^{(1)}, X^{(2)}]`, so that
   :math:`XW_QW_K^\top X^\top = X^{(1)}X^{(2)\top} \approx B` and :math:`\mathrm{softmax}(XW_QW_K^\top X^\top)`
   preserves the element ratios of :math:`A` (:func:`element_ratio_error`);
5. resampling :math:`Y` until the two conditions of the measure hold (:func:`construct_sparse_attention`).

:func:`resample_success` runs step 3–5 for many draws and a grid of :math:`d` at once (nested projections, the
factorisation computed once per target); :func:`sparse_dimension_bound` is the dimension the proof's union bound
asks for.
"""
from __future__ import annotations

import hashlib
import math
import numbers
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from scipy import sparse

from ..core._validate import (SeedLike, as_float_array, as_generator, choice, dtype_arg, flag, in_open_interval,
                              positive_int, positive_real, real, renamed)

__all__ = ["ConstructionFailedWarning", "pattern_profile", "PatternProfile", "log_target", "element_ratio_error",
           "RatioError",
           "sparse_dimension_bound",
           "moment_curve_attention", "MomentCurveAttention", "packing_dimension_bound", "construction_operation_count",
           "OperationCount",
           "resample_success", "ResampleSuccess", "construct_sparse_attention", "SparseAttention"]

#: A target pattern: a dense array or a SciPy sparse array.
Target = "ArrayLike | sparse.sparray | sparse.spmatrix"


class ConstructionFailedWarning(UserWarning):
    """Issued by :func:`construct_sparse_attention` when no draw met the precision (the result has ``success=False``).

    Filter it with :func:`warnings.simplefilter` (``"ignore"`` or ``"error"``) where a failure is expected or fatal.

    Examples
    --------
    >>> import warnings
    >>> from attnlab import ConstructionFailedWarning
    >>> issubclass(ConstructionFailedWarning, UserWarning)
    True
    """

#: Largest number of logits (draws × L × L) held at once by :func:`resample_success`.
_MAX_BATCH_ENTRIES = 1 << 23


# ---------------------------------------------------------------------------------------------------- validation
def _target(A, name="A", *, causal=False):
    if sparse.issparse(A):
        return _sparse_target(A, name, causal)
    A = as_float_array(A, name, ndim=2)
    if isinstance(A, np.ndarray) is False:
        A = np.asarray(A)
    A = np.asarray(A, dtype=np.float64)
    L = A.shape[0]
    if A.shape != (L, L) or L < 1:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {A.shape}")
    if (A < 0).any():
        raise ValueError(f"{name} must have non-negative entries (a pattern of attention weights)")
    empty = np.flatnonzero(~(A > 0).any(axis=1))
    if empty.size:
        raise ValueError(f"{name} has rows without a positive entry (first: row {int(empty[0])}); every row of an "
                         "attention matrix has one")
    if causal and np.triu(A, 1).any():
        raise ValueError(f"{name} must be lower-triangular when causal=True")
    return A


def _sparse_target(A, name, causal):
    """A SciPy sparse target as a canonical CSR array (explicit zeros dropped), validated like a dense one."""
    if A.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a sparse array of real numbers, got dtype {A.dtype}")
    A = sparse.csr_array(A, dtype=np.float64, copy=True)
    L = A.shape[0]
    if A.shape != (L, L) or L < 1:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {A.shape}")
    A.sum_duplicates()
    if not np.isfinite(A.data).all():
        raise ValueError(f"{name} contains NaN or inf")
    if (A.data < 0).any():
        raise ValueError(f"{name} must have non-negative entries (a pattern of attention weights)")
    A.eliminate_zeros()
    A.sort_indices()
    empty = np.flatnonzero(np.diff(A.indptr) == 0)
    if empty.size:
        raise ValueError(f"{name} has rows without a positive entry (first: row {int(empty[0])}); every row of an "
                         "attention matrix has one")
    if causal and (A.indices > np.repeat(np.arange(L), np.diff(A.indptr))).any():
        raise ValueError(f"{name} must be lower-triangular when causal=True")
    return A


def _bool(x, name):
    return flag(x, name)


def _eps(eps1, eps2):
    return positive_real(eps1, "eps1"), in_open_interval(eps2, 0.0, 1.0, "eps2")


def _choice(x, options, name):
    return choice(x, options, name)


# ---------------------------------------------------------------------------------------------------- the target
class _Support(NamedTuple):
    cols: np.ndarray   # (L, kmax) column indices, padded with the row's first column
    valid: np.ndarray  # (L, kmax) bool
    vals: np.ndarray   # (L, kmax) A on the support (padding repeats the first entry)


def _support(A) -> _Support:
    if sparse.issparse(A):  # canonical CSR (from _sparse_target): sorted columns, positive data
        counts = np.diff(A.indptr)
        rows, cols = np.repeat(np.arange(A.shape[0]), counts), A.indices
        data = A.data
    else:
        mask = A > 0
        rows, cols = np.nonzero(mask)
        counts = mask.sum(axis=1)
        data = A[rows, cols]
    kmax = int(counts.max())
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(rows.size) - start[rows]
    C = np.repeat(cols[start][:, None], kmax, axis=1)
    C[rows, slot] = cols
    valid = np.zeros(C.shape, bool)
    valid[rows, slot] = True
    V = np.repeat(data[start][:, None], kmax, axis=1)
    V[rows, slot] = data
    return _Support(C, valid, V)


class PatternProfile(NamedTuple):
    r"""The sparsity and ratio variation of a target pattern: the result of :func:`pattern_profile`.

    Attributes
    ----------
    nnz : int
        :math:`k`, the largest number of nonzeros of a row or a column (the ``nnz`` of :func:`log_target`).
    gamma : float
        :math:`\gamma \ge 1`, the largest ratio of two nonzeros of one row (inf beyond the float range).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import pattern_profile
    >>> nnz, gamma = pattern_profile(np.array([[1.0, 4.0], [0.0, 1.0]]))
    >>> nnz, gamma
    (2, 4.0)
    """

    nnz: int
    gamma: float


def pattern_profile(A: Target) -> PatternProfile:
    r"""The sparsity :math:`k` and ratio variation :math:`\gamma` of a target pattern.

    :math:`k = \max(\max_i |S_i|, \max_j |\{i : A_{ij} > 0\}|)` (nonzeros per row and per column) and
    :math:`\gamma = \max_i \max_{j, j' \in S_i} A_{ij}/A_{ij'}` (the largest ratio of two nonzeros of one row).

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L), float32 or float64 (float16 rejected)
        Non-negative, finite, every row with at least one positive entry.

    Returns
    -------
    PatternProfile
        ``nnz`` (:math:`k`, an int) and ``gamma`` (:math:`\gamma \ge 1`, a float); it unpacks as ``k, gamma``.

    Raises
    ------
    ValueError
        If ``A`` is not square, has negative, NaN or infinite entries, or a row without a positive entry.
    TypeError
        If ``A`` is not a real floating array.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import pattern_profile
    >>> pattern_profile(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]))
    PatternProfile(nnz=2, gamma=2.0)
    """
    A = _target(A)
    if sparse.issparse(A):
        starts = A.indptr[:-1]
        k = int(max(np.diff(A.indptr).max(), np.bincount(A.indices, minlength=A.shape[0]).max()))
        hi, lo = np.maximum.reduceat(A.data, starts), np.minimum.reduceat(A.data, starts)
    else:
        mask = A > 0
        k = int(max(mask.sum(axis=0).max(), mask.sum(axis=1).max()))
        hi = np.where(mask, A, 0.0).max(axis=1)
        lo = np.where(mask, A, np.inf).min(axis=1)
    with np.errstate(over="ignore"):
        return PatternProfile(k, float(np.exp((np.log(hi) - np.log(lo)).max())))  # inf beyond the float range


def _checked_target(A, k, gamma, causal):
    A = _target(A, causal=causal)
    k_A, g_A = pattern_profile(A)
    if k is not None:
        k = positive_int(k, "nnz")
        if k_A > k:
            raise ValueError(f"A breaks the sparsity assumption: a row or column has {k_A} nonzeros, more than "
                             f"nnz = {k}")
    if gamma is not None:
        gamma = real(gamma, "gamma", lo=1.0)
        if g_A > float(gamma) * (1 + 1e-12):
            raise ValueError(f"A breaks the ratio assumption: two nonzeros of a row differ by a factor {g_A:.6g} "
                             f"> gamma = {float(gamma):g}")
    return A


def _log_support(A, eps1, eps2):
    sup = _support(A)
    lo = np.where(sup.valid, sup.vals, np.inf).min(axis=1, keepdims=True)
    b = (np.log(sup.vals) - np.log(lo)) + math.log((1 + eps1) / eps2)  # no overflow for ratios beyond 1e308
    return sup, b


@renamed(k="nnz")
def log_target(A: Target, eps1: float, eps2: float, *, nnz: int | None = None, gamma: float | None = None,
               causal: bool = False) -> np.ndarray:
    r"""The log-transformed target :math:`B` whose row softmax preserves the element ratios of :math:`A`.

    .. math::

        B_{ij} = \log\frac{A_{ij}}{\min_{j' \in S_i} A_{ij'}} + \log\frac{1+\varepsilon_1}{\varepsilon_2}

        (j \in S_i)

        B_{ij} = 0

        (j \notin S_i).

    Off the support the entries are 0, so row :math:`i` of :math:`B` has :math:`|S_i| \le k` nonzeros and norm at most
    :math:`\sqrt k\,(c + \log\gamma)`, :math:`c = \log((1+\varepsilon_1)/\varepsilon_2)`. The offset :math:`c` splits
    the error budget evenly: logits within :math:`\pm\tfrac12\log(1+\varepsilon_1)` of :math:`B` satisfy both
    conditions of :func:`element_ratio_error` (the book's choice; the paper fixes no constant).

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L), float32 or float64 (a sparse target gives a sparse B)
        The target pattern (non-negative, finite, a positive entry in every row).
    eps1 : float > 0
        Ratio precision: ratios of nonzeros are to be kept within a factor :math:`1 + \varepsilon_1`.
    eps2 : float in (0, 1)
        Leakage precision: an entry off the pattern is to be at most :math:`\varepsilon_2` times every entry on it.
    nnz : int >= 1, optional
        The sparsity :math:`k`: if given, ``A`` must have at most ``nnz`` nonzeros in every row and column (``k`` is
        a deprecated spelling).
    gamma : float >= 1, optional
        If given, two nonzeros of a row of ``A`` may differ by at most this factor.
    causal : bool
        If true, ``A`` must be lower-triangular.

    Returns
    -------
    ndarray, shape (L, L), float64

    Raises
    ------
    ValueError
        If ``A`` breaks the sparsity (``nnz``), ratio (``gamma``) or causal assumption, or ``eps1``, ``eps2`` are out
        of range.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import log_target
    >>> B = log_target(np.array([[1.0, 2.0], [0.0, 1.0]]), eps1=1.0, eps2=0.5)
    >>> np.round(B, 4)
    array([[1.3863, 2.0794],
           [0.    , 1.3863]])
    """
    eps1, eps2 = _eps(eps1, eps2)
    A = _checked_target(A, nnz, gamma, _bool(causal, "causal"))
    sup, b = _log_support(A, eps1, eps2)
    rows = np.broadcast_to(np.arange(A.shape[0])[:, None], sup.cols.shape)
    if sparse.issparse(A):
        return sparse.csr_array((b[sup.valid], (rows[sup.valid], sup.cols[sup.valid])), shape=A.shape)
    B = np.zeros_like(A)
    B[rows[sup.valid], sup.cols[sup.valid]] = b[sup.valid]
    return B


# ---------------------------------------------------------------------------------------------------- the measure
class RatioError(NamedTuple):
    """The element-ratio error of an attention matrix against a target (see :func:`element_ratio_error`).

    Attributes
    ----------
    ratio : float
        Largest error of a log-ratio of two nonzeros of one row.
    leakage : float
        Largest ratio of an entry off the pattern to the smallest entry on it, in one row.
    mass : float
        Largest share of a row off the pattern.

    Examples
    --------
    >>> from attnlab import RatioError
    >>> RatioError(0.1, 0.2, 0.3).leakage
    0.2
    """

    ratio: float
    leakage: float
    mass: float


def _row_errors(S_supp, b, valid, off_max):
    """Per row: the ratio error (oscillation of logit errors on the support) and log-leakage, from logits."""
    E = S_supp - b
    ratio = np.where(valid, E, -np.inf).max(axis=-1) - np.where(valid, E, np.inf).min(axis=-1)
    leak = off_max - np.where(valid, S_supp, np.inf).min(axis=-1)
    return ratio, leak


def element_ratio_error(M: ArrayLike, A: Target, *, causal: bool = False) -> RatioError:
    r"""How well an attention matrix :math:`M` preserves the element ratios of a sparse target :math:`A`.

    With :math:`S_i = \{j : A_{ij} > 0\}` (and, if ``causal``, only keys :math:`j \le i` considered):

    - ``ratio`` :math:`= \max_i \max_{j, j' \in S_i} \big|\log\frac{M_{ij}}{M_{ij'}} - \log\frac{A_{ij}}{A_{ij'}}\big|`;
    - ``leakage`` :math:`= \max_i \max_{j \notin S_i} M_{ij} / \min_{j \in S_i} M_{ij}` (0 if no row has an entry off
      the pattern);
    - ``mass`` :math:`= \max_i \sum_{j \notin S_i} M_{ij} / \sum_j M_{ij}`, the largest share of a row off the pattern
      (reported, not part of the definition).

    :math:`M` approximates :math:`A` with precision :math:`(\varepsilon_1, \varepsilon_2)` when
    ``ratio`` :math:`\le \log(1+\varepsilon_1)` (every ratio of two nonzeros kept within a factor
    :math:`1+\varepsilon_1` either way) and ``leakage`` :math:`\le \varepsilon_2`. This is the book's reading of the
    summary's "preserving element ratios" (it names :math:`\varepsilon_1, \varepsilon_2` without a formula): both
    conditions are invariant under rescaling rows, as a ratio measure must be, and the leakage condition bounds each
    entry off the pattern, not their sum, so ``mass`` may still grow with :math:`L`.

    Parameters
    ----------
    M : array_like, shape (L, L), float32 or float64
        Non-negative and finite (an attention matrix; rows need not be normalised).
    A : array_like, shape (L, L)
        The target (non-negative, finite, a positive entry in every row; lower-triangular if ``causal``).
    causal : bool
        Ignore the entries above the diagonal of ``M``.

    Returns
    -------
    RatioError
        ``(ratio, leakage, mass)``; ``ratio`` is ``inf`` if ``M`` vanishes somewhere on the pattern.

    Raises
    ------
    ValueError
        If the shapes differ, ``M`` has negative, NaN or infinite entries, or ``A`` is not a valid target.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import element_ratio_error
    >>> A = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> M = np.array([[0.3, 0.6, 0.1], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> e = element_ratio_error(M, A)
    >>> round(e.ratio, 12), round(e.leakage, 4), round(e.mass, 4)
    (0.0, 0.3333, 0.1)
    """
    causal = _bool(causal, "causal")
    A = _target(A, causal=causal)
    M = np.asarray(as_float_array(M, "M", ndim=2), dtype=np.float64)
    if M.shape != A.shape:
        raise ValueError(f"M must have the shape of A {A.shape}, got {M.shape}")
    if (M < 0).any():
        raise ValueError("M must have non-negative entries")
    L = A.shape[0]
    sup = _support(A)
    Msup = M[np.arange(L)[:, None], sup.cols]
    with np.errstate(divide="ignore"):
        lm, la = np.log(Msup), np.log(sup.vals)
    off = (A == 0)
    if causal:
        off &= np.tril(np.ones((L, L), bool))
    off_max = np.where(off, M, -np.inf).max(axis=1)
    with np.errstate(invalid="ignore"):
        ratio, _ = _row_errors(lm, la, sup.valid, np.zeros(L))
    ratio = np.where(np.isnan(ratio), np.inf, ratio)  # log 0 on the support: the ratio is lost
    mins = np.where(sup.valid, Msup, np.inf).min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        leak = np.where(np.isfinite(off_max), off_max / mins, 0.0)
    leak = np.where(np.isnan(leak), np.inf, leak)
    keep = np.tril(np.ones((L, L), bool)) if causal else np.ones((L, L), bool)
    total = np.where(keep, M, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mass = np.where(total > 0, np.where(off, M, 0.0).sum(axis=1) / total, 1.0)
    return RatioError(float(ratio.max()), float(leak.max()), float(mass.max()))


# ---------------------------------------------------------------------------------------------------- the bound
@renamed(k="nnz")
def sparse_dimension_bound(L: int, nnz: int, gamma: float, eps1: float, eps2: float, *, delta: float = 0.5,
                           causal: bool = False) -> int:
    r"""The projection dimension the proof's union bound asks for: one draw succeeds with probability ≥ 1 − δ.

    Every row of :math:`D = U\Sigma` has norm :math:`\|B_i\| \le \sqrt k\,(c + \log\gamma)` with
    :math:`c = \log((1+\varepsilon_1)/\varepsilon_2)`, every row of :math:`V` norm :math:`\le 1`, and logits within
    :math:`\eta = \tfrac12\log(1+\varepsilon_1)` of :math:`B` satisfy both conditions (:func:`log_target`). The
    inner-product JL lemma :math:`\Pr(|\langle Yu, Yv\rangle - \langle u, v\rangle| \ge \tau\|u\|\|v\|) \le
    4e^{-d(\tau^2/4 - \tau^3/6)}` with :math:`\tau = \eta / (\sqrt k\,(c+\log\gamma))` and a union bound over the
    :math:`N` pairs (:math:`N = L^2`, or :math:`L(L+1)/2` if causal) give

    .. math::

        d \ge \frac{\log(4N/\delta)}{\tau^2/4 - \tau^3/6}.

    Parameters
    ----------
    L : int >= 1
    nnz : int >= 1
    gamma : float >= 1
    eps1 : float > 0
    eps2 : float in (0, 1)
    delta : float in (0, 1)
        Allowed failure probability of one draw (1/2: at most two draws on average).
    causal : bool

    Returns
    -------
    int
        The smallest integer :math:`d` meeting the inequality.

    Raises
    ------
    ValueError, TypeError
        For arguments out of range or of the wrong type (the message names the argument).

    Examples
    --------
    >>> from attnlab import sparse_dimension_bound
    >>> sparse_dimension_bound(1024, 1, 1.0, 1.0, 0.5)
    1225
    """
    L, k = positive_int(L, "L"), positive_int(nnz, "nnz")
    gamma = real(gamma, "gamma", lo=1.0)
    eps1, eps2 = _eps(eps1, eps2)
    delta = in_open_interval(delta, 0.0, 1.0, "delta")
    pairs = L * (L + 1) // 2 if _bool(causal, "causal") else L * L
    tau = 0.5 * math.log1p(eps1) / (math.sqrt(k) * (math.log((1 + eps1) / eps2) + math.log(float(gamma))))
    rate = tau**2 / 4 - tau**3 / 6
    if rate <= 0:  # tau >= 3/2 cannot happen for eps2 < 1, kept for safety
        return 1
    return max(1, math.ceil(math.log(4 * pairs / float(delta)) / rate))


# ---------------------------------------------------------------------------------------------------- resampling
def _factor(B_csr, method):
    """V (L×r orthonormal) of B = (UΣ)Vᵀ, or None for the identity factorisation B = B·Iᵀ."""
    L = B_csr.shape[0]
    if method == "identity":
        return None
    if method == "auto":
        # B has full rank ⇔ its SVD's V is L×L orthogonal ⇔ VY has the law of Y: the SVD changes nothing
        try:
            from scipy.sparse.linalg import splu  # noqa: PLC0415

            lu = splu(B_csr.tocsc())
            piv = np.abs(lu.U.diagonal())
            if piv.min() > 1e-9 * piv.max():
                return None
        except RuntimeError:  # exactly singular
            pass
    _, s, Vt = np.linalg.svd(B_csr.toarray())
    r = int((s > s[0] * L * np.finfo(float).eps).sum()) if s.size and s[0] > 0 else 0
    return Vt[:max(r, 1)].T.copy()


class _Prepared(NamedTuple):
    L: int
    sup: _Support
    b: np.ndarray
    B: sparse.csr_array
    V: np.ndarray | None
    r: int
    causal: bool


_LAST: dict = {}  # one-entry cache: repeated calls on one target factorise it once


def _prepare(A, eps1, eps2, k, gamma, causal, method):
    eps1, eps2 = _eps(eps1, eps2)
    causal = _bool(causal, "causal")
    method = _choice(method, ("auto", "svd", "identity"), "method")
    A = _checked_target(A, k, gamma, causal)
    h = hashlib.sha256()
    for part in ((A.data, A.indices, A.indptr) if sparse.issparse(A) else (A,)):
        h.update(np.ascontiguousarray(part).tobytes())
    key = (h.hexdigest(), sparse.issparse(A), A.shape, eps1, eps2, causal, method)
    if _LAST.get("key") == key:
        return _LAST["prep"], eps1, eps2
    sup, b = _log_support(A, eps1, eps2)
    L = A.shape[0]
    rows = np.broadcast_to(np.arange(L)[:, None], sup.cols.shape)
    B = sparse.csr_array((b[sup.valid], (rows[sup.valid], sup.cols[sup.valid])), shape=(L, L))
    V = _factor(B, method)
    prep = _Prepared(L, sup, b, B, V, L if V is None else V.shape[1], causal)
    _LAST.update(key=key, prep=prep)
    return prep, eps1, eps2


def _projection(prep, dmax, rng, projection, batch, dtype=np.float64):
    """Unscaled projections G (batch, L, dmax): the d-dimensional projection is G[..., :d] / sqrt(d)."""
    Z = rng.standard_normal((batch, prep.r, dmax))
    if projection == "orthogonal":
        Z = np.linalg.qr(Z)[0] * math.sqrt(prep.r)
    return (Z if prep.V is None else prep.V @ Z).astype(dtype, copy=False)


def _evaluate(prep, G, dims):
    """Worst ratio error and log-leakage over rows, shape (batch, len(dims)), for nested projections G.

    The logits are formed in row blocks of at most ``_MAX_BATCH_ENTRIES`` entries (memory O(block), not O(L^2));
    causal targets skip the blocks above the diagonal (about half the products)."""
    nb, L = G.shape[0], prep.L
    P = np.empty_like(G)
    for i, g in enumerate(G):  # X1 = B G = U Σ Y, unscaled (the product in float64, stored in G's precision)
        P[i] = prep.B @ g
    ratio = np.full((nb, len(dims)), -np.inf)
    leak = np.full((nb, len(dims)), -np.inf)
    per = max(1, _MAX_BATCH_ENTRIES // (nb * L))
    bi = np.arange(nb)[:, None, None]
    for r0 in range(0, L, per):
        r1 = min(L, r0 + per)
        ncol = r1 if prep.causal else L
        C = np.zeros((nb, r1 - r0, ncol), dtype=G.dtype)
        if prep.causal:
            np.copyto(C, -np.inf, where=np.arange(ncol)[None, :] > np.arange(r0, r1)[:, None])
        ri = np.arange(r1 - r0)[None, :, None]
        cols = np.broadcast_to(prep.sup.cols[r0:r1], (nb, r1 - r0, prep.sup.cols.shape[1]))
        lo = 0
        for t, d in enumerate(dims):
            C += np.matmul(P[:, r0:r1, lo:d], np.swapaxes(G[:, :ncol, lo:d], 1, 2))
            lo = d
            saved = C[bi, ri, cols]
            C[bi, ri, cols] = -np.inf
            off_max = C.max(axis=2) / d
            C[bi, ri, cols] = saved
            rr, ll = _row_errors(saved.astype(np.float64) / d, prep.b[r0:r1], prep.sup.valid[r0:r1],
                                 off_max.astype(np.float64))
            ratio[:, t] = np.maximum(ratio[:, t], rr.max(axis=1))
            leak[:, t] = np.maximum(leak[:, t], ll.max(axis=1))
    return ratio, leak


def _dims(dims, r, projection):
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        dims = [dims]
    try:
        out = [positive_int(d, "dims") for d in dims]
    except TypeError as exc:
        raise TypeError(f"dims must be a positive integer or a sequence of them ({exc})") from None
    if not out or sorted(set(out)) != out:
        raise ValueError("dims must be a non-empty, strictly increasing sequence of positive integers")
    if projection == "orthogonal" and out[-1] > r:
        raise ValueError(f"dims must not exceed rank(B) = {r} for an orthogonal projection, got {out[-1]}")
    return out


class ResampleSuccess(NamedTuple):
    r"""The construction's errors for every draw and dimension: the result of :func:`resample_success`.

    Attributes
    ----------
    ratio : ndarray, shape (draws, len(dims))
        The ``ratio`` of :func:`element_ratio_error` per draw and dimension.
    leakage : ndarray, shape (draws, len(dims))
        The ``leakage`` of :func:`element_ratio_error`.
    success : ndarray of bool, shape (draws, len(dims))
        ``ratio <= log(1 + eps1)`` and ``leakage <= eps2``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import resample_success
    >>> ratio, leakage, success = resample_success(np.eye(8), [8], eps1=1.0, eps2=0.5, rng=0, draws=2)
    >>> ratio.shape, success.tolist()
    ((2, 1), [[True], [True]])
    """

    ratio: np.ndarray
    leakage: np.ndarray
    success: np.ndarray


@renamed(k="nnz")
def resample_success(A: Target, dims: int | Sequence[int], *, eps1: float, eps2: float, rng: SeedLike = None,
                     draws: int = 16, nnz: int | None = None, gamma: float | None = None, causal: bool = False,
                     method: str = "auto", projection: str = "orthogonal",
                     dtype: DTypeLike = np.float64) -> ResampleSuccess:
    r"""Run the construction for ``draws`` independent projections at every dimension in ``dims``.

    The factorisation of :math:`B` (:func:`log_target`) is computed once. Each draw is one projection :math:`Y` of
    width ``max(dims)``; dimension :math:`d` uses its first :math:`d` columns, scaled to an unbiased estimate, so one
    draw costs one product of width ``max(dims)`` plus one masked row maximum per :math:`d`. Draws are processed in
    stacked batches (no Python loop over the :math:`L^2` logits).

    The factorisation (the book's choices where the paper is silent): ``method="svd"`` is the paper's
    :math:`D = U\Sigma`, :math:`V` from the dense SVD (cost :math:`O(L^3)`); since :math:`X^{(1)} = U\Sigma Y = B(VY)`
    and :math:`X^{(2)} = VY`, the construction only sees :math:`G = VY`, and when :math:`B` has full rank :math:`V` is
    orthogonal and :math:`G` has the law of :math:`Y` itself, so ``method="auto"`` skips the SVD when a sparse LU
    factorisation certifies full rank (the same distribution, :math:`O(kLd)` instead of :math:`O(L^3)`), and falls back
    to the SVD otherwise; ``"identity"`` always uses :math:`B = B\,I^\top`. ``projection="orthogonal"`` draws
    :math:`Y = \sqrt{r}\,Q` with :math:`Q` Haar-orthonormal (the paper's "random orthogonal projection"),
    ``"gaussian"`` draws i.i.d. :math:`N(0, 1)` entries.

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L)
        The target (see :func:`log_target`).
    dims : int or increasing sequence of int >= 1
        Projection dimensions; at most rank(B) for the orthogonal projection.
    eps1 : float > 0
    eps2 : float in (0, 1)
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
    draws : int >= 1
        Number of independent projections.
    nnz, gamma : optional
        Assumptions checked on ``A`` (see :func:`log_target`).
    causal : bool
        Lower-triangular target, causally masked attention.
    method : {"auto", "svd", "identity"}
    projection : {"orthogonal", "gaussian"}
    dtype : {"float32", "float64"}, or the NumPy dtype or type of either
        Precision of the projected logits (float32 halves the cost; its rounding, about 1e-6 of logits of size
        at most :math:`c + \log\gamma`, is far below any tolerance :math:`\log(1+\varepsilon_1)` in use).

    Returns
    -------
    ResampleSuccess
        ``ratio``, ``leakage`` and ``success``, arrays of shape (draws, len(dims)) (see there); it unpacks as
        ``ratio, leakage, success``.

    Raises
    ------
    ValueError, TypeError
        For a target breaking its assumptions, dimensions <= 0 or not increasing, or arguments of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import resample_success
    >>> A = np.eye(64)[np.random.default_rng(0).permutation(64)]   # a permutation pattern
    >>> res = resample_success(A, [4, 32, 64], eps1=1.0, eps2=0.5, rng=np.random.default_rng(1), draws=4)
    >>> res.success.mean(axis=0).tolist()                                 # d = 64 = L is exact
    [0.0, 0.0, 1.0]
    """
    rng = as_generator(rng)
    projection = _choice(projection, ("orthogonal", "gaussian"), "projection")
    draws = positive_int(draws, "draws")
    dtype = np.dtype(dtype_arg(dtype)).type
    prep, eps1, eps2 = _prepare(A, eps1, eps2, nnz, gamma, causal, method)
    dims = _dims(dims, prep.r, projection)
    batch = max(1, min(draws, _MAX_BATCH_ENTRIES // (prep.L * prep.L)))
    out_r, out_l = [], []
    for start in range(0, draws, batch):
        G = _projection(prep, dims[-1], rng, projection, min(batch, draws - start), dtype)
        r_, l_ = _evaluate(prep, G, dims)
        out_r.append(r_)
        out_l.append(l_)
    ratio = np.concatenate(out_r)
    logleak = np.concatenate(out_l)
    ok = (ratio <= math.log1p(eps1)) & (logleak <= math.log(eps2))
    return ResampleSuccess(ratio, np.exp(logleak), ok)


# ---------------------------------------------------------------------------------------------------- the algorithm
class SparseAttention(NamedTuple):
    r"""The result of :func:`construct_sparse_attention`.

    Attributes
    ----------
    X : ndarray, shape (L, 2d)
        The inputs :math:`[X^{(1)}, X^{(2)}]`.
    W_Q, W_K : ndarray, shape (2d, d)
        The fixed parameters :math:`[I_d; 0]` and :math:`[0; I_d]` (independent of the target).
    M : ndarray, shape (L, L)
        :math:`\mathrm{softmax}(XW_QW_K^\top X^\top)` (causally masked if requested).
    error : RatioError
        :func:`element_ratio_error` of ``M`` against the target.
    success : bool
        Whether ``error`` meets the precision :math:`(\varepsilon_1, \varepsilon_2)`.
    resamples : int
        Number of projections drawn (the last one is returned).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import construct_sparse_attention
    >>> res = construct_sparse_attention(np.eye(4), 4, eps1=1.0, eps2=0.5, rng=np.random.default_rng(0))
    >>> res.success, res.resamples
    (True, 1)
    """

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    M: np.ndarray
    error: RatioError
    success: bool
    resamples: int


@renamed(k="nnz")
def construct_sparse_attention(A: Target, d: int, *, eps1: float, eps2: float, rng: SeedLike = None,
                               nnz: int | None = None, gamma: float | None = None, causal: bool = False,
                               max_resamples: int = 64, method: str = "auto",
                               projection: str = "orthogonal") -> SparseAttention:
    r"""Inputs X for which a fixed layer's :math:`\mathrm{softmax}(XW_QW_K^\top X^\top)` reproduces a target ``A``.

    This constructs an attention *pattern*: given a target matrix ``A``, it finds inputs for which a fixed layer's
    attention matrix reproduces ``A``'s element ratios (an expressiveness result). It is not a method to approximate
    the attention of given Q, K, V.

    The algorithm of Likhosherstov, Choromanski and Weller (2021): log-transform (:func:`log_target`), factorise
    once, project both factors to dimension ``d`` and resample the projection until :func:`element_ratio_error`
    meets :math:`(\varepsilon_1, \varepsilon_2)`, at most ``max_resamples`` times (see :func:`resample_success` for
    the factorisation and projection choices). The query/key dimension is ``d``; the inputs have width ``2d``.

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L)
        The target pattern.
    d : int >= 1
        Projection (query/key) dimension; at most rank(B) for the orthogonal projection.
    eps1 : float > 0
    eps2 : float in (0, 1)
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
    nnz, gamma : optional
        Assumptions checked on ``A``.
    causal : bool
    max_resamples : int >= 1
    method : {"auto", "svd", "identity"}
    projection : {"orthogonal", "gaussian"}

    Returns
    -------
    SparseAttention
        With ``success=False`` (and the last draw) if no draw met the precision.

    Warns
    -----
    ConstructionFailedWarning
        When no draw among ``max_resamples`` met the precision (``success=False``): raise ``d`` or ``max_resamples``.

    Raises
    ------
    ValueError, TypeError
        For a target breaking its assumptions, ``d <= 0``, or arguments of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import construct_sparse_attention
    >>> A = np.kron(np.eye(8), np.ones((4, 4)))     # 8 blocks of 4: k = 4, gamma = 1, rank(B) = 8
    >>> res = construct_sparse_attention(A, 8, eps1=1.0, eps2=0.5, rng=np.random.default_rng(0))
    >>> res.success, res.X.shape, res.W_Q.shape, res.resamples
    (True, (32, 16), (16, 8), 1)
    >>> round(res.error.leakage, 4)                 # exact logits: leakage eps2 / (1 + eps1)
    0.25
    """
    rng = as_generator(rng)
    projection = _choice(projection, ("orthogonal", "gaussian"), "projection")
    d = positive_int(d, "d")
    max_resamples = positive_int(max_resamples, "max_resamples")
    prep, eps1, eps2 = _prepare(A, eps1, eps2, nnz, gamma, causal, method)
    if projection == "orthogonal" and d > prep.r:
        raise ValueError(f"d must not exceed rank(B) = {prep.r} for an orthogonal projection, got {d}")
    for t in range(1, max_resamples + 1):
        G = _projection(prep, d, rng, projection, 1)[0]
        X1, X2 = (prep.B @ G) / math.sqrt(d), G / math.sqrt(d)
        ratio, leak = _evaluate(prep, G[None], [d])
        ok = bool(ratio[0, 0] <= math.log1p(eps1) and leak[0, 0] <= math.log(eps2))
        if ok:
            break
    X = np.concatenate([X1, X2], axis=1)
    W_Q = np.vstack([np.eye(d), np.zeros((d, d))])
    W_K = np.vstack([np.zeros((d, d)), np.eye(d)])
    S = (X @ W_Q) @ (X @ W_K).T
    if prep.causal:
        S[np.triu(np.ones(S.shape, bool), 1)] = -np.inf
    S -= S.max(axis=1, keepdims=True)
    M = np.exp(S)
    M /= M.sum(axis=1, keepdims=True)
    dense = A.toarray() if sparse.issparse(A) else np.asarray(A, dtype=np.float64)
    err = element_ratio_error(M, dense, causal=prep.causal)
    if not ok:
        warnings.warn(f"no draw of {max_resamples} met the precision (eps1={eps1}, eps2={eps2}) at d = {d}: "
                      "the result has success=False; raise d or max_resamples", ConstructionFailedWarning,
                      stacklevel=2)
    return SparseAttention(X, W_Q, W_K, M, err, ok, t)


# ---------------------------------------------------------------------------------------------------- moment curve
class MomentCurveAttention(NamedTuple):
    r"""The result of :func:`moment_curve_attention`.

    Attributes
    ----------
    X : ndarray, shape (L, 2d)
        The inputs :math:`[X^{(1)}, X^{(2)}]`: row :math:`i` of :math:`X^{(1)}` holds the coefficients of
        :math:`p_i`, row :math:`j` of :math:`X^{(2)}` the moment vector :math:`(1, j, \dots, j^{2k})`.
    W_Q, W_K : ndarray, shape (2d, d)
        The fixed parameters :math:`[I_d; 0]` and :math:`[0; I_d]`.
    M : ndarray, shape (L, L)
        :math:`\mathrm{softmax}(XW_QW_K^\top X^\top)` in float64 (causally masked if requested).
    error : RatioError
        :func:`element_ratio_error` of ``M`` against the target.
    success : bool
        Whether ``error`` meets the precision :math:`(\varepsilon_1, \varepsilon_2)`.
    d : int
        The query/key dimension :math:`2k + 1` (independent of :math:`L`).
    C : ndarray, shape (L,)
        The per-row constants :math:`C_i`.
    max_entry : float
        The largest absolute entry of ``X``.
    norm_product : float
        :math:`\max_i\|X^{(1)}_i\|\cdot\max_j\|X^{(2)}_j\|`, the bound on the logits that
        :func:`packing_dimension_bound` takes.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import moment_curve_attention
    >>> res = moment_curve_attention(np.eye(8)[::-1], eps1=1.0, eps2=0.5)
    >>> res.success, res.d
    (True, 3)
    """

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    M: np.ndarray
    error: RatioError
    success: bool
    d: int
    C: np.ndarray
    max_entry: float
    norm_product: float


@renamed(k="nnz")
def moment_curve_attention(A: Target, *, eps1: float, eps2: float, nnz: int | None = None,
                           gamma: float | None = None, causal: bool = False) -> MomentCurveAttention:
    r"""Inputs of dimension :math:`d = 2k + 1`, for every :math:`L`, that make a fixed layer approximate ``A``.

    Token :math:`j` (:math:`0\le j < L`) gets the moment vector :math:`(1, j, \dots, j^{2k})`; row :math:`i` gets the
    coefficients of

    .. math::

        p_i(t) = r_i(t) - C_i\prod_{s\in S_i}(t - s)^2,

    where :math:`r_i` (degree :math:`|S_i| - 1`) interpolates :math:`b_s = \log(A_{is}/\min_{S_i}A)` at the support,
    and :math:`C_i \ge 0` is the smallest constant with :math:`p_i(t) \le \log\varepsilon_2 - \eta` at every key
    :math:`t\notin S_i` (:math:`t\le i` if causal), :math:`\eta = \tfrac12\log(1+\varepsilon_1)`. The logits
    :math:`p_i(j)` equal :math:`b_j` on the support (ratio error 0 in exact arithmetic) and are at least :math:`\eta`
    below the leakage limit off it. With the fixed :math:`W_Q = [I; 0]`, :math:`W_K = [0; I]` the query/key dimension
    is :math:`2k+1` at every :math:`L`: without a bound on the inputs, :math:`d = O(\log L)` (the summary's claim) is
    not needed. The price is the size of the inputs: entries up to about :math:`L^{2k}`; with inputs of bounded norm
    :func:`packing_dimension_bound` forces :math:`d = \Omega(\log L)`. Computed in float64: the logits carry a
    rounding error of about :math:`10^{-16}\sum_m |c_m| L^m`, reported in ``error`` (fine to a few thousand tokens at
    :math:`k = 2`).

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L)
        The target (see :func:`log_target`).
    eps1 : float > 0
    eps2 : float in (0, 1)
    nnz, gamma : optional
        Assumptions checked on ``A``; ``nnz`` also sets :math:`d = 2\,\mathrm{nnz} + 1` (default: the largest row
        support).
    causal : bool

    Returns
    -------
    MomentCurveAttention

    Raises
    ------
    ValueError, TypeError
        For a target breaking its assumptions or arguments of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import moment_curve_attention
    >>> A = np.eye(64)[np.random.default_rng(0).permutation(64)] + np.eye(64)
    >>> res = moment_curve_attention(A, eps1=1.0, eps2=0.5)
    >>> res.success, res.d, res.error.ratio < 1e-6
    (True, 5, True)
    """
    eps1, eps2 = _eps(eps1, eps2)
    causal = _bool(causal, "causal")
    A = _checked_target(A, nnz, gamma, causal)
    L = A.shape[0]
    sup = _support(A)
    kmax = sup.cols.shape[1] if nnz is None else positive_int(nnz, "nnz")
    d = 2 * kmax + 1
    eta = 0.5 * math.log1p(eps1)
    limit = math.log(eps2) - eta
    P = np.polynomial.polynomial
    coef = np.zeros((L, d))
    Cs = np.zeros(L)
    t = np.arange(L, dtype=np.float64)
    for i in range(L):
        s = sup.cols[i][sup.valid[i]].astype(np.float64)
        v = sup.vals[i][sup.valid[i]]
        b = np.log(v) - np.log(v.min())
        mu = float(s.mean())
        rc = P.polyfit(s - mu, b, s.size - 1)                 # r in powers of (t - mu): interpolation, exact fit
        keys = t[: i + 1] if causal else t
        off = np.ones(keys.size, bool)
        off[s[s < keys.size].astype(int)] = False
        if off.any():
            x = keys[off]
            qv = np.prod((x[:, None] - s[None, :]) ** 2, axis=1)
            Cs[i] = max(0.0, float(np.max((P.polyval(x - mu, rc) - limit) / qv)))
        p = P.polysub(_shift_poly(rc, mu), Cs[i] * P.polyfromroots(np.repeat(s, 2)))
        coef[i, : p.size] = p
    moments = t[:, None] ** np.arange(d)[None, :]
    X = np.concatenate([coef, moments], axis=1)
    W_Q = np.vstack([np.eye(d), np.zeros((d, d))])
    W_K = np.vstack([np.zeros((d, d)), np.eye(d)])
    S = (X @ W_Q) @ (X @ W_K).T
    if causal:
        S[np.triu(np.ones(S.shape, bool), 1)] = -np.inf
    S -= S.max(axis=1, keepdims=True)
    M = np.exp(S)
    M /= M.sum(axis=1, keepdims=True)
    dense = A.toarray() if sparse.issparse(A) else A
    err = element_ratio_error(M, dense, causal=causal)
    ok = bool(err.ratio <= math.log1p(eps1) and err.leakage <= eps2)
    norm_product = float(np.linalg.norm(coef, axis=1).max() * np.linalg.norm(moments, axis=1).max())
    return MomentCurveAttention(X, W_Q, W_K, M, err, ok, d, Cs, float(np.abs(X).max()), norm_product)


def _shift_poly(c, a):
    """Coefficients in t of the polynomial sum_m c_m (t - a)^m."""
    P = np.polynomial.polynomial
    out = np.zeros(1)
    for m, cm in enumerate(c):
        out = P.polyadd(out, cm * P.polypow([-a, 1.0], m))
    return out


def packing_dimension_bound(L: int, R: float, eps2: float) -> int:
    r"""Smallest query/key dimension any layer with bounded logits can have on a permutation target of length ``L``.

    If :math:`\mathrm{softmax}(QK^\top)` has leakage at most :math:`\varepsilon_2` on a permutation pattern
    :math:`\pi` (:func:`element_ratio_error`) and :math:`\max_i\|q_i\|\,\max_j\|k_j\| \le R`, then for every
    :math:`a \ne b`, with :math:`i = \pi^{-1}(a)`: :math:`\langle q_i, k_a - k_b\rangle \ge \log(1/\varepsilon_2)`,
    so the :math:`L` keys are :math:`\delta`-separated, :math:`\delta = \log(1/\varepsilon_2)/R_q`, inside a ball of
    radius :math:`R_k`; disjoint balls of radius :math:`\delta/2` give :math:`L \le (1 + 2R/\log(1/\varepsilon_2))^d`:

    .. math::

        d \;\ge\; \frac{\log L}{\log\big(1 + 2R/\log(1/\varepsilon_2)\big)} .

    With inputs of bounded norm (:math:`R` independent of :math:`L`) this is :math:`d = \Omega(\log L)`: the
    :math:`O(\log L)` of the summary is then tight. (Any fixed :math:`W_Q, W_K` fold into :math:`q, k`.)

    Parameters
    ----------
    L : int >= 1
    R : float > 0
        Bound on :math:`\max_i\|q_i\|\cdot\max_j\|k_j\|`.
    eps2 : float in (0, 1)

    Returns
    -------
    int
        The smallest integer :math:`d` the inequality allows (1 for :math:`L = 1`).

    Raises
    ------
    ValueError, TypeError
        For arguments out of range or of the wrong type.

    Examples
    --------
    >>> from attnlab import packing_dimension_bound
    >>> packing_dimension_bound(2**20, 10.0, 0.5)
    5
    """
    L = positive_int(L, "L")
    if isinstance(R, bool) or not isinstance(R, numbers.Real) or not 0 < float(R) < math.inf:
        raise ValueError(f"R must be a finite real number > 0, got {R!r}")
    _, eps2 = _eps(1.0, eps2)
    if L == 1:
        return 1
    return max(1, math.ceil(math.log(L) / math.log1p(2 * float(R) / math.log(1 / eps2)) - 1e-12))


# ---------------------------------------------------------------------------------------------------- counting
class OperationCount(NamedTuple):
    r"""Arithmetic operations of one run of the construction (:func:`construction_operation_count`).

    Attributes
    ----------
    prepare : int
        Validation, support and log-transform: a constant number of operations per stored entry of ``A``.
    factor : int
        The factorisation: the sparse LU's :math:`\sum_j (l_j + 2 l_j u_j)` (:math:`l_j, u_j` the off-diagonal
        counts of column :math:`j` of its L factor and row :math:`j` of its U factor, the multiply–adds of the
        elimination it performed), or :math:`22L^3` for the dense SVD (Golub and Van Loan's count) if the LU does
        not certify full rank.
    per_draw : int
        One draw: the projection :math:`G` (:math:`Ld` normals), :math:`X^{(1)} = BG` (:math:`2\,\mathrm{nnz}(B)d`),
        the logits (:math:`2Nd`, :math:`N = L^2`, or :math:`L(L+1)/2` causal), the masked row maxima (:math:`N`)
        and the errors on the support (:math:`4\,\mathrm{nnz}(B)`).
    draws : int
    total : int
        ``prepare + factor + draws * per_draw``.

    Examples
    --------
    >>> from attnlab import OperationCount
    >>> OperationCount(1, 2, 3, 4, 15).total
    15
    """

    prepare: int
    factor: int
    per_draw: int
    draws: int
    total: int


def construction_operation_count(A: Target, d: int, draws: int, *, eps1: float = 1.0, eps2: float = 0.5,
                                 causal: bool = False) -> OperationCount:
    r"""Count the arithmetic operations of :func:`construct_sparse_attention` on ``A`` at dimension ``d``.

    The count is exact for the operations listed in :class:`OperationCount` (the LU's elimination counted from the
    factors it actually produced); it does not depend on the machine or its load, which is how a claim about cost
    ("polynomial time", the book's chapter 11) is decided: with :math:`d \ge` :func:`sparse_dimension_bound` one draw
    succeeds with probability at least 1/2 (expected draws at most 2), so the total is the factorisation plus
    :math:`O(L^2 d)` per draw.

    Parameters
    ----------
    A : array_like or scipy.sparse array, shape (L, L)
    d : int >= 1
    draws : int >= 1
        Number of projections drawn (as :attr:`SparseAttention.resamples` reports).
    eps1, eps2 : float
        The precision (they change :math:`B`, not the count's structure).
    causal : bool

    Returns
    -------
    OperationCount

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import construction_operation_count
    >>> c = construction_operation_count(np.eye(4), 2, 1)
    >>> c.factor, c.per_draw                       # a diagonal B: no elimination
    (4, 120)
    """
    d, draws = positive_int(d, "d"), positive_int(draws, "draws")
    prep, eps1, eps2 = _prepare(A, eps1, eps2, None, None, causal, "auto")
    L, nnz = prep.L, int(prep.B.nnz)
    prepare = 8 * nnz + 2 * L
    if prep.V is None:
        from scipy.sparse.linalg import splu  # noqa: PLC0415

        lu = splu(prep.B.tocsc())
        l_cnt = np.diff(lu.L.tocsc().indptr) - 1          # off-diagonal entries per column (unit diagonal stored)
        u_cnt = np.diff(lu.U.tocsr().indptr) - 1          # off-diagonal entries per row
        factor = int((l_cnt + 2 * l_cnt * u_cnt).sum()) + L
    else:
        factor = 22 * L**3
    N = L * (L + 1) // 2 if prep.causal else L * L
    per_draw = L * d + 2 * nnz * d + 2 * N * d + N + 4 * nnz
    return OperationCount(prepare, factor, per_draw, draws, prepare + factor + draws * per_draw)
