r"""Gaussian random projections and the projected logits of PDA (the book's chapters 1 and 4).

:func:`gaussian_projection` draws the :math:`d\times m` matrix :math:`P` of PDA's Algorithm 2.1 and
:func:`projected_logits` forms :math:`\tilde S = (QP)(KP)^\top/\sqrt m` (as printed) or :math:`/\sqrt d`
(unbiased). :func:`projected_logits` is backend-generic: it takes its array namespace from its inputs
(``array_api_compat.array_namespace``) and uses only array-API-standard calls, so NumPy, CuPy,
``array_api_strict`` and other conforming libraries go through one code path.
"""
from __future__ import annotations

import math

from numpy.typing import ArrayLike
from ..core._validate import Array, SeedLike
from ..core._validate import (as_generator, beta_arg, choice, dtype_arg, generator_module, namespace_of, positive_int,
                        real_array, rng_keyword)

__all__ = ["gaussian_projection", "projected_logits"]

_SCALINGS = ("printed", "unbiased")


# --------------------------------------------------------------------------- array-API validation (shared with pda)
def _namespace(**arrays):
    """The array namespace of the named inputs (lists are read as NumPy) and the inputs, unconverted.

    Raises ``TypeError`` naming the inputs when they come from different array libraries.
    """
    return namespace_of(**arrays), dict(arrays)


def _float_matrix(x, name: str, xp):
    """``x`` as a finite, non-empty, 2-D real floating array of namespace ``xp`` (the policy of ``_validate``)."""
    return real_array(x, name, xp, ndim=2, nonempty=True)


def _denominator(scaling, beta, d: int, m: int) -> float:
    """What ``(QP)(KP)ᵀ`` is divided by: √d (unbiased) or √m (printed) at the default β = 1/√d, else 1/β or
    √m/(β√d)."""
    scaling = choice(scaling, ("printed", "unbiased"), "scaling")
    if beta is None:
        return math.sqrt(m) if scaling == "printed" else math.sqrt(d)
    beta = beta_arg(beta)
    if beta == 0:
        return math.inf
    return 1.0 / beta if scaling == "unbiased" else math.sqrt(m) / (beta * math.sqrt(d))


def _logits(Q, K, P, denom):
    """(QP)(KP)ᵀ / denom, with array-API-standard calls only (no check: see ``_finite_logits``)."""
    S = (Q @ P) @ (K @ P).T
    S /= denom  # in place: no second L_q × L_k array
    return S


def _finite_logits(S, xp, what: str = "Q, K and P"):
    """``S`` unchanged, or ``ValueError`` naming the inputs when a logit overflowed to inf (or NaN)."""
    if not bool(xp.all(xp.isfinite(S))):
        raise ValueError(f"the projected logits of {what} overflow {S.dtype}: scale the inputs down")
    return S


# --------------------------------------------------------------------------- public
@rng_keyword(2)
def gaussian_projection(d: int, m: int, *, rng: SeedLike = None, dtype: object = "float64") -> Array:
    r"""A :math:`d \times m` matrix with independent :math:`\mathcal N(0, 1/m)` entries.

    This is the matrix :math:`P` of PDA's Algorithm 2.1; the theorems of its §3 use the
    transpose, an :math:`m \times d` matrix with the same entries. :math:`\mathbb E[PP^\top] = I_d`.

    Parameters
    ----------
    d, m : int
        Input and projected dimensions, both >= 1 (``bool`` is not an integer).
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of randomness (SciPy's SPEC 7); a ``cupy.random.Generator`` draws a CuPy result, anything else a
        NumPy one. For another array library convert the result with ``xp.asarray``.
    dtype : {"float64", "float32"}, or the NumPy dtype or type of either
        Floating type of the result (``"float32"``, ``np.float32`` and ``np.dtype("float32")`` alike; float16 is
        rejected: too narrow for logits).

    Returns
    -------
    P : array of shape (d, m) and type ``dtype``, from the generator's library
        Entries :math:`\mathcal N(0, 1)/\sqrt m`, drawn as ``rng.standard_normal((d, m), dtype=dtype)``.

    Raises
    ------
    TypeError
        If ``d`` or ``m`` is not an integer, ``rng`` is not a seed or generator, or ``dtype`` is not a dtype.
    ValueError
        If ``d`` or ``m`` is < 1, or ``dtype`` is not float32 or float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import gaussian_projection
    >>> P = gaussian_projection(3, 10_000, rng=np.random.default_rng(0))
    >>> P.shape, bool(np.allclose(P @ P.T, np.eye(3), atol=0.05))
    ((3, 10000), True)
    """
    d = positive_int(d, "d")
    m = positive_int(m, "m")
    rng = as_generator(rng)
    xp = generator_module(rng)
    dtype = dtype_arg(dtype)
    P = rng.standard_normal((d, m), dtype=dtype)
    P *= 1.0 / math.sqrt(m)
    return P.astype(getattr(xp, dtype), copy=False)


def projected_logits(Q: ArrayLike, K: ArrayLike, P: ArrayLike, *, scaling: str = "unbiased",
                     beta: float | None = None) -> Array:
    r"""The projected logits :math:`\tilde S` of PDA for a :math:`d\times m` projection ``P``.

    ``scaling="printed"`` is Algorithm 2.1 as printed, :math:`\tilde S = (QP)(KP)^\top/\sqrt m`;
    ``scaling="unbiased"`` is the second half's :math:`\tilde S_{ij} = \sqrt d\,\langle P^\top q_i, P^\top k_j\rangle`
    with :math:`q = Q/\sqrt d`, i.e. :math:`(QP)(KP)^\top/\sqrt d`, whose mean is :math:`S = QK^\top/\sqrt d`
    because :math:`\mathbb E[PP^\top] = I_d`. The printed one has mean :math:`\sqrt{d/m}\,S` (the book's chapter 1).

    Backend-generic: the array namespace comes from ``Q``, ``K`` and ``P`` (array API standard).

    Parameters
    ----------
    Q : array of shape (L_q, d)
        Queries: real, finite. Integers are computed in float64, float16 in float32; bool is rejected.
    K : array of shape (L_k, d)
        Keys, same library as ``Q``.
    P : array of shape (d, m)
        The projection (e.g. :func:`gaussian_projection`, converted to the library of ``Q``).
    scaling : {"unbiased", "printed"}
        Divide by :math:`\sqrt d` (unbiased) or :math:`\sqrt m` (as printed).
    beta : float, optional
        Inverse temperature, any finite real: ``"unbiased"`` gives :math:`\beta\,(QP)(KP)^\top` (mean
        :math:`\beta QK^\top`), ``"printed"`` :math:`\beta\sqrt{d/m}\,(QP)(KP)^\top`. ``None`` means
        :math:`1/\sqrt d`, the divisions above.

    Returns
    -------
    S : array of shape (L_q, L_k)
        The projected logits, in the type that ``Q``, ``K`` and ``P`` promote to.

    Raises
    ------
    TypeError
        If an input is not a real array, or the inputs come from different array libraries.
    ValueError
        If an input is not 2-D, is empty or holds NaN or inf; if ``K`` is not as wide as ``Q`` or ``P`` does not
        have ``d`` rows; if ``scaling`` is unknown; if the logits overflow the floating type (inputs too large).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import projected_logits
    >>> Q = np.ones((1, 4)); P = np.eye(4)      # a "projection" with m = d
    >>> float(projected_logits(Q, Q, P)[0, 0]), float((Q @ Q.T)[0, 0] / 2)
    (2.0, 2.0)
    """
    xp, a = _namespace(Q=Q, K=K, P=P)
    Q, K, P = (_float_matrix(a[k], k, xp) for k in ("Q", "K", "P"))
    d = Q.shape[1]
    if K.shape[1] != d:
        raise ValueError(f"Q and K must have the same width d, got {d} and {K.shape[1]}")
    if P.shape[0] != d:
        raise ValueError(f"P must have d = {d} rows, got shape {tuple(P.shape)}")
    denom = _denominator(scaling, beta, d, P.shape[1])
    return _finite_logits(_logits(Q, K, P, denom), xp)
