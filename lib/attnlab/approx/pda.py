r"""Projection–Decomposition Attention (PDA, the PDA draft's Algorithm 2.1) and the parameter rule of its §5.1.

:math:`P\in\mathbb R^{d\times m}` with :math:`\mathcal N(0,1/m)` entries, :math:`\tilde S = (QP)(KP)^\top/\sqrt m` as
printed (or :math:`/\sqrt d`, unbiased), :math:`\tilde A = \mathrm{rowsoftmax}(\tilde S)`, :math:`\tilde A_r` its
best (or randomized) rank-r approximation, and :math:`\tilde O_r = \tilde A_r V`. The book audits the draft's claims
about it (error, time, memory, the parameter rule) in chapter 4 (:mod:`attnlab.audit.pda`).

References
----------
- N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with randomness", SIAM Review 53, 2011.
- C. Eckart, G. Young, "The approximation of one matrix by another of lower rank", Psychometrika 1, 1936.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from array_api_compat import device as _device
from array_api_compat import is_cupy_namespace, is_numpy_namespace

from numpy.typing import ArrayLike
from ..core._results import former_dict
from ..core._validate import Array, SeedLike
from ..core._validate import (as_generator, choice, flag, generator_module, in_open_interval, positive_int,
                              positive_real, qkv, rng_keyword)
from .projection import _denominator, _logits, gaussian_projection
from .projection import _namespace as _namespace_of

__all__ = ["pda_attention", "pda_attention_parts", "PdaParts", "randomized_svd_op", "SvdFactors", "m_required"]


def _softmax_rows(S, xp, what: str = "Q and K"):
    """Row softmax with standard calls only, shifted by the row maximum (stable at any temperature).

    ``ValueError`` naming ``what`` when a logit overflowed (inf or NaN): the shift cannot repair that.
    """
    if not bool(xp.all(xp.isfinite(S))):
        raise ValueError(f"the projected logits of {what} overflow {S.dtype}: scale {what} down")
    mx = xp.max(S, axis=-1, keepdims=True)
    e = xp.exp(S - mx)
    e /= xp.sum(e, axis=-1, keepdims=True)
    return e


def _native(xp):
    """The NumPy or CuPy module behind namespace ``xp``, or None for any other library."""
    if is_numpy_namespace(xp):
        return np
    if is_cupy_namespace(xp):
        import cupy  # noqa: PLC0415

        return cupy
    return None


def _checked(Z, name, n, k, xp):
    """``Z`` (the output of the user's ``name``) if it is a finite (n, k) array of ``xp``, else ``ValueError``."""
    expected = (n, k)
    if not hasattr(Z, "shape") or tuple(Z.shape) != expected:
        got = tuple(Z.shape) if hasattr(Z, "shape") else type(Z).__name__
        raise ValueError(f"{name} must return an array of shape {expected}, got {got}")
    if not bool(xp.all(xp.isfinite(Z))):
        raise ValueError(f"{name} returned NaN or inf")
    return Z


# --------------------------------------------------------------------------- the randomized SVD
class SvdFactors(NamedTuple):
    r"""A truncated SVD :math:`A \approx U\,\mathrm{diag}(s)\,V^\top` (:func:`randomized_svd_op`); unpacks as
    ``U, s, Vt`` (the order of ``numpy.linalg.svd``).

    Attributes
    ----------
    U : array of shape (n_rows, r)
        Left singular vectors (orthonormal columns).
    s : array of shape (r,)
        Singular values, non-increasing.
    Vt : array of shape (r, n_cols)
        Right singular vectors, as rows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import randomized_svd_op
    >>> A = np.outer(np.arange(1.0, 5.0), np.ones(3))
    >>> svd = randomized_svd_op(lambda X: A @ X, lambda Y: A.T @ Y, A.shape, 1, rng=0)
    >>> bool(np.allclose(svd.U * svd.s @ svd.Vt, A))
    True
    """

    U: Array
    s: Array
    Vt: Array


@rng_keyword(4)
def randomized_svd_op(matmat: Callable, rmatmat: Callable, shape: tuple[int, int], r: int, *, rng: SeedLike = None,
                      n_oversamples: int = 10, n_iter: int = 2, xp: object = None) -> SvdFactors:
    r"""Rank-r randomized SVD (Halko–Martinsson–Tropp, QR-stabilised power iterations) of a matrix given as an operator.

    With :math:`k = \min(r + \text{n\_oversamples}, n_{\rm rows}, n_{\rm cols})` and a Gaussian
    :math:`\Omega\in\mathbb R^{n_{\rm cols}\times k}`: :math:`Y = A\Omega`, then ``n_iter`` times
    :math:`Y \leftarrow A\,\mathrm{qr}(A^\top\mathrm{qr}(Y))`; with :math:`Q_b = \mathrm{qr}(Y)`,
    :math:`B = Q_b^\top A = (A^\top Q_b)^\top` and its SVD :math:`B = U_b\Sigma V^\top`, the result is
    :math:`(Q_bU_b)_{:, :r}, \sigma_{:r}, V^\top_{:r}`. ``A`` itself is never needed, which is what lets
    :func:`pda_attention` stream :math:`\tilde A` in row blocks. NumPy or CuPy only (it uses ``linalg.qr``).

    Parameters
    ----------
    matmat : callable
        ``matmat(X)`` returns :math:`AX`, shape (n_rows, k), for X of shape (n_cols, k).
    rmatmat : callable
        ``rmatmat(Y)`` returns :math:`A^\top Y`, shape (n_cols, k), for Y of shape (n_rows, k).
    shape : tuple of two ints
        ``(n_rows, n_cols)`` of A, both >= 1.
    r : int
        Rank, 1 <= r <= min(n_rows, n_cols).
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Draws :math:`\Omega` (standard normal); SciPy's SPEC 7, or a ``cupy.random.Generator``.
    n_oversamples : int
        Extra columns of :math:`\Omega`, >= 1.
    n_iter : int
        Power iterations, >= 1.
    xp : module, optional
        ``numpy`` or ``cupy``, the library of the arrays that ``matmat`` and ``rmatmat`` take; default the
        generator's. The draw of :math:`\Omega` is converted to it.

    Returns
    -------
    SvdFactors
        ``U`` of shape (n_rows, r), ``s`` of shape (r,) (approximate leading singular values, non-increasing) and
        ``Vt`` of shape (r, n_cols); it unpacks as ``U, s, Vt``.

    Raises
    ------
    TypeError
        If ``matmat`` or ``rmatmat`` is not callable, ``shape`` is not two integers, ``r``, ``n_oversamples`` or
        ``n_iter`` is not an integer, ``rng`` is not a seed or generator, or ``xp`` is not numpy or cupy.
    ValueError
        If a size or count is < 1, ``r`` > min(shape), or ``matmat``/``rmatmat`` return a wrongly shaped array or
        NaN or inf.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import randomized_svd_op
    >>> A = np.random.default_rng(0).standard_normal((30, 3)) @ np.random.default_rng(1).standard_normal((3, 20))
    >>> U, s, Vt = randomized_svd_op(lambda X: A @ X, lambda Y: A.T @ Y, A.shape, 3, rng=2)
    >>> U.shape, s.shape, Vt.shape, bool(np.allclose(U @ np.diag(s) @ Vt, A))
    ((30, 3), (3,), (3, 20), True)
    """
    for name, f in (("matmat", matmat), ("rmatmat", rmatmat)):
        if not callable(f):
            raise TypeError(f"{name} must be callable, not {type(f).__name__}")
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n_rows, n_cols), got {shape!r}")
    n_rows, n_cols = (positive_int(n, "shape") for n in shape)
    r = positive_int(r, "r")
    if r > min(n_rows, n_cols):
        raise ValueError(f"r must be <= min(shape) = {min(n_rows, n_cols)}, got {r}")
    n_oversamples = positive_int(n_oversamples, "n_oversamples")
    n_iter = positive_int(n_iter, "n_iter")
    rng = as_generator(rng)
    rxp = generator_module(rng)
    xp = rxp if xp is None else xp
    if xp is not np and getattr(xp, "__name__", None) != "cupy":
        raise TypeError(f"xp must be the numpy or the cupy module, not {xp!r}")
    k = min(r + n_oversamples, n_rows, n_cols)
    Omega = rng.standard_normal((n_cols, k))
    Y = _checked(matmat(Omega if rxp is xp else xp.asarray(Omega)), "matmat", n_rows, k, xp)
    del Omega  # the test matrix is not kept: memory O((n_rows + n_cols)·k) at any time
    for _ in range(n_iter):
        Y, _ = xp.linalg.qr(Y)
        Z, _ = xp.linalg.qr(_checked(rmatmat(Y), "rmatmat", n_cols, k, xp))
        Y = _checked(matmat(Z), "matmat", n_rows, k, xp)
    Qb, _ = xp.linalg.qr(Y)
    B = _checked(rmatmat(Qb), "rmatmat", n_cols, k, xp).T  # = Qbᵀ A, shape k × n_cols
    Ub, s, Vt = xp.linalg.svd(B, full_matrices=False)
    return SvdFactors((Qb @ Ub)[:, :r], s[:r], Vt[:r])


# --------------------------------------------------------------------------- PDA
@rng_keyword(5)
def pda_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, m: int, r: int, *, rng: SeedLike = None,
                  beta: float | None = None, scaling: str = "unbiased", svd: str | None = None, n_oversamples: int = 10,
                  n_iter: int = 2, block: int = 512, return_parts: bool = False) -> Array:
    r"""Projection–decomposition attention (PDA): :math:`\tilde O_r = \tilde A_r V` from projected logits, rank r.

    :math:`\tilde A = \mathrm{rowsoftmax}(\tilde S)` of the projected logits :math:`\tilde S`.

    :math:`P` = :func:`attnlab.gaussian_projection` ``(d, m, rng)``; :math:`\tilde S` as in
    :func:`attnlab.projected_logits`: ``scaling="printed"`` divides :math:`(QP)(KP)^\top` by :math:`\sqrt m`
    (Algorithm 2.1 as printed; biased by :math:`\sqrt{d/m}`, see the book's chapter 1), ``"unbiased"`` by
    :math:`\sqrt d` (the second half); the row softmax is shifted by the row maximum (stable at any temperature);
    :math:`\tilde A_r` comes from

    - ``svd="randomized"`` (the default on NumPy and CuPy): the randomized SVD :func:`randomized_svd_op` that §4
      suggests, ``n_iter`` power iterations, ``n_oversamples`` extra columns; O(L²(r + n_oversamples)) per pass
      over :math:`\tilde A` instead of the O(L³) of a dense SVD;
    - ``svd="full"`` (the default on other array libraries): the exact truncated SVD, :math:`\tilde A_r` optimal
      (Eckart–Young), at the price of a dense L × L SVD (cubic in L: use it for small L or as a reference).
      Backend-generic: the namespace comes from Q, K, V (array API standard; NumPy, CuPy, ``array_api_strict``,
      …); P is drawn with ``rng`` and converted with ``xp.asarray``;
    - ``svd="streamed"``: the same randomized SVD with :math:`\tilde A` never stored:
      each product with :math:`\tilde A` or :math:`\tilde A^\top` recomputes it in blocks of ``block`` query
      rows, so memory is O(L(d + m + r) + block·L) — what §4.2's O(Ld + Lm + Lr) needs — at the price of
      2·n_iter + 2 passes.

    :func:`pda_attention_parts` returns P and the factors of :math:`\tilde A_r` as well. The randomized and streamed
    variants are NumPy/CuPy only. How large m must be for a given error: the JL
    bounds of :func:`m_required` (the paper's rule) and :func:`m_union_exact` (exact tails); the error of the rank-r
    step is the Eckart–Young tail of :math:`\tilde A` (:func:`tail_norm` of its singular values).

    Parameters
    ----------
    Q : array of shape (L_q, d)
        Queries, real and finite (integers computed in float64, float16 in float32; bool rejected).
    K : array of shape (L_k, d)
        Keys, same library as ``Q``.
    V : array of shape (L_k, d_v)
        Values, same library as ``Q``.
    m : int
        Projected dimension, >= 1.
    r : int
        Rank of :math:`\tilde A_r`, 1 <= r <= min(L_q, L_k).
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Draws P (then the randomized SVD's test matrix); SciPy's SPEC 7 (a ``cupy.random.Generator`` only with
        CuPy arrays).
    beta : float, optional
        Inverse temperature, any finite real, as in :func:`attnlab.projected_logits`; ``None`` means
        :math:`1/\sqrt d` (the two ``scaling`` rules above).
    scaling : {"unbiased", "printed"}
    svd : {"randomized", "full", "streamed"}, optional
        Default "randomized" for NumPy and CuPy arrays, "full" for any other library.
    n_oversamples, n_iter : int
        Oversampling and power iterations of the randomized SVD, both >= 1 (checked for every ``svd``).
    block : int
        Query rows per block of the streamed variant, >= 1 (checked for every ``svd``).
    return_parts : bool
        Deprecated: ``return_parts=True`` returns ``(parts.O, parts)`` with ``parts`` the :class:`PdaParts` of
        :func:`pda_attention_parts` (with a ``DeprecationWarning``).

    Returns
    -------
    O : array of shape (L_q, d_v)
        :math:`\tilde O_r`, in the library of the inputs and the type they promote to (float32 or float64).

    Raises
    ------
    TypeError
        If Q, K, V are not real arrays of one library, ``m``, ``r``, ``n_oversamples``, ``n_iter`` or ``block`` is
        not an integer, ``return_parts`` is not a bool, ``rng`` is not a seed or generator (a CuPy one only
        with CuPy arrays), or ``svd`` is "randomized"/"streamed" for arrays of a library other than NumPy or CuPy.
    ValueError
        If Q, K, V are not 2-D, empty, hold NaN or inf, or have mismatched shapes; if a count is < 1 or
        ``r`` > min(L_q, L_k); if ``scaling`` or ``svd`` is unknown; if the projected logits overflow the
        floating type (Q or K too large) or the output does (V too large).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import gaussian_projection, pda_attention, projected_logits, softmax
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((64, 8)) for _ in range(3))
    >>> O = pda_attention(Q, K, V, m=16, r=64, rng=np.random.default_rng(1))   # r = L: no truncation
    >>> P = gaussian_projection(8, 16, rng=np.random.default_rng(1))
    >>> bool(np.allclose(O, softmax(projected_logits(Q, K, P)) @ V))
    True
    >>> O8 = pda_attention(Q, K, V, m=16, r=8, rng=np.random.default_rng(1), svd="streamed", block=16)
    >>> O8.shape
    (64, 8)
    """
    if flag(return_parts, "return_parts"):
        warnings.warn("pda_attention(..., return_parts=True) is deprecated; use pda_attention_parts(...), whose "
                      "result has O, P, U, s and Vt", DeprecationWarning, stacklevel=2)
    parts = _pda(Q, K, V, m, r, rng, beta, scaling, svd, n_oversamples, n_iter, block)
    return (parts.O, parts) if return_parts else parts.O


@former_dict
class PdaParts(NamedTuple):
    r"""PDA's output with the projection and the factors it came from (:func:`pda_attention_parts`).

    Attributes
    ----------
    O : array of shape (L_q, d_v)
        :math:`\tilde O_r = \tilde A_r V`, as :func:`pda_attention` returns it.
    P : array of shape (d, m)
        The Gaussian projection.
    U : array of shape (L_q, r)
    s : array of shape (r,)
    Vt : array of shape (r, L_k)
        The factors of :math:`\tilde A_r = U\,\mathrm{diag}(s)\,V^\top` (float64 from the randomized and streamed
        SVDs, whose test matrix is float64, whatever the inputs' type; ``O`` keeps it).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import pda_attention_parts
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((32, 4)) for _ in range(3))
    >>> parts = pda_attention_parts(Q, K, V, m=8, r=4, rng=np.random.default_rng(1))
    >>> bool(np.allclose(parts.O, parts.U * parts.s @ parts.Vt @ V)), parts.P.shape
    (True, (4, 8))
    """

    O: Array
    P: Array
    U: Array
    s: Array
    Vt: Array


def pda_attention_parts(Q: ArrayLike, K: ArrayLike, V: ArrayLike, m: int, r: int, *, rng: SeedLike = None,
                        beta: float | None = None, scaling: str = "unbiased", svd: str | None = None,
                        n_oversamples: int = 10, n_iter: int = 2, block: int = 512) -> PdaParts:
    r""":func:`pda_attention` with its parts: the output, the projection P and the factors of :math:`\tilde A_r`.

    The same computation and the same draws as :func:`pda_attention` with the same arguments (its output is
    ``pda_attention_parts(...).O``); see it for the method and the arguments.

    Parameters
    ----------
    Q : array of shape (L_q, d)
    K : array of shape (L_k, d)
    V : array of shape (L_k, d_v)
        Queries, keys and values, as for :func:`pda_attention`.
    m : int
        Projected dimension, >= 1.
    r : int
        Rank of :math:`\tilde A_r`, 1 <= r <= min(L_q, L_k).
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Draws P (then the randomized SVD's test matrix); SciPy's SPEC 7.
    beta : float, optional
        Inverse temperature; ``None`` means :math:`1/\sqrt d`.
    scaling : {"unbiased", "printed"}
    svd : {"randomized", "full", "streamed"}, optional
        Default "randomized" for NumPy and CuPy arrays, "full" for any other library.
    n_oversamples, n_iter : int
        Oversampling and power iterations of the randomized SVD, both >= 1.
    block : int
        Query rows per block of the streamed variant, >= 1.

    Returns
    -------
    PdaParts
        ``O``, ``P``, ``U``, ``s``, ``Vt``.

    Raises
    ------
    TypeError, ValueError
        As :func:`pda_attention`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import pda_attention, pda_attention_parts
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((64, 8)) for _ in range(3))
    >>> parts = pda_attention_parts(Q, K, V, m=16, r=8, rng=np.random.default_rng(1))
    >>> O = pda_attention(Q, K, V, m=16, r=8, rng=np.random.default_rng(1))
    >>> bool(np.array_equal(parts.O, O)), parts.U.shape, parts.s.shape, parts.Vt.shape
    (True, (64, 8), (8,), (8, 64))
    """
    return _pda(Q, K, V, m, r, rng, beta, scaling, svd, n_oversamples, n_iter, block)


def _pda(Q, K, V, m, r, rng, beta, scaling, svd, n_oversamples, n_iter, block):
    """PDA after the public signature: its :class:`PdaParts`."""
    xp, _ = _namespace_of(Q=Q, K=K, V=V)
    Q, K, V = qkv(Q, K, V, xp)
    m = positive_int(m, "m")
    r = positive_int(r, "r")
    L = min(Q.shape[0], K.shape[0])
    if r > L:
        raise ValueError(f"r must be <= L = {L}, got {r}")
    denom = _denominator(scaling, beta, Q.shape[1], m)
    if svd is None:
        svd = "full" if _native(xp) is None else "randomized"
    svd = choice(svd, ("full", "randomized", "streamed"), "svd")
    n_oversamples = positive_int(n_oversamples, "n_oversamples")
    n_iter = positive_int(n_iter, "n_iter")
    block = positive_int(block, "block")
    nxp = _native(xp)
    rng = as_generator(rng)
    rxp = generator_module(rng)
    if rxp is not np and rxp is not nxp:
        raise TypeError("rng must be a numpy.random.Generator (a cupy.random.Generator only with CuPy arrays)")
    if svd != "full" and nxp is None:
        raise TypeError(f"svd={svd!r} needs NumPy or CuPy arrays; use svd='full' for {xp.__name__} arrays")
    d = Q.shape[1]
    P = gaussian_projection(d, m, rng=rng, dtype="float32" if Q.dtype == xp.float32 else "float64")
    if rxp is not nxp:
        P = xp.asarray(P, device=_device(Q))
    if svd == "streamed":
        Qt, Kt = Q @ P, K @ P
        Lq = Q.shape[0]

        def rows(i):
            return _softmax_rows((Qt[i:i + block] @ Kt.T) / denom, xp)

        def matmat(X):
            return xp.concat([rows(i) @ X for i in range(0, Lq, block)])

        def rmatmat(Y):
            out = xp.zeros((Kt.shape[0], Y.shape[1]), dtype=Y.dtype)
            for i in range(0, Lq, block):
                out += rows(i).T @ Y[i:i + block]
            return out

        U, s, Vt = randomized_svd_op(matmat, rmatmat, (Lq, K.shape[0]), r, rng=rng, n_oversamples=n_oversamples,
                                     n_iter=n_iter, xp=nxp)
    else:
        St = _logits(Q, K, P, denom)
        At = _softmax_rows(St, xp)
        del St
        if svd == "full":
            U, s, Vt = xp.linalg.svd(At, full_matrices=False)
            U, s, Vt = U[:, :r], s[:r], Vt[:r, :]
        else:
            U, s, Vt = randomized_svd_op(lambda X: At @ X, lambda Y: At.T @ Y, tuple(At.shape), r, rng=rng,
                                         n_oversamples=n_oversamples, n_iter=n_iter, xp=nxp)
        del At
    O = U @ (s[:, None] * (Vt @ V))
    dt = xp.result_type(Q.dtype, K.dtype, V.dtype)
    if O.dtype != dt:  # the randomized SVD's test matrix is float64: keep float32 inputs float32 in every variant
        O = xp.astype(O, dt)
    if not bool(xp.all(xp.isfinite(O))):
        raise ValueError(f"the output overflows {O.dtype}: scale V down")
    return PdaParts(O, P, U, s, Vt)


# --------------------------------------------------------------------------- the parameter rule of §5.1
def m_required(d: int, L: ArrayLike, eta: float, delta: float) -> np.ndarray:
    r"""The projected dimension that PDA's §5.1/§6.2 demands for total error η with probability 1 − δ.

    :math:`m \ge \frac{8d}{\epsilon^2}\log\frac{2L^2}{\delta}` with :math:`\epsilon = \eta/(4\sqrt L)`, i.e.
    :math:`m = \left\lceil\frac{128\,dL}{\eta^2}\log\frac{2L^2}{\delta}\right\rceil` (vectorised in L).

    Parameters
    ----------
    d : int
        Head dimension, >= 1.
    L : int or array_like of int
        Sequence length(s), integers >= 1.
    eta : float
        Target total error, > 0 (finite).
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    m : float64 ndarray of the shape of ``L`` (0-d for a scalar)
        The demanded m, rounded up (a float: it exceeds the int64 range for small η).

    Raises
    ------
    TypeError
        If ``d`` is not an integer, ``eta`` or ``delta`` not a real number, or ``L`` not numeric.
    ValueError
        If ``d`` < 1, ``eta`` <= 0 or not finite, ``delta`` outside (0, 1), or an ``L`` is < 1, not an integer,
        or not finite.

    Examples
    --------
    >>> from attnlab import m_required
    >>> int(m_required(64, 1024, 0.01, 0.1))
    1414208233963
    >>> m_required(64, [512, 8192], 0.01, 0.1).shape
    (2,)
    """
    positive_int(d, "d")
    positive_real(eta, "eta")
    in_open_interval(delta, 0.0, 1.0, "delta")
    try:
        La = np.asarray(L)
    except (TypeError, ValueError) as exc:  # ragged lists
        raise TypeError(f"L must be an integer or an array of integers, not {type(L).__name__}") from exc
    if La.dtype.kind not in "iuf":  # booleans, strings, objects
        raise TypeError(f"L must be an integer or an array of integers, got dtype {La.dtype}")
    L = La.astype(float)
    if not np.all(np.isfinite(L)) or np.any(L < 1) or np.any(L != np.floor(L)):
        raise ValueError(f"L must hold integers >= 1, got {L.tolist()}")
    return np.ceil(128 * d * L / eta**2 * np.log(2 * L**2 / delta))

