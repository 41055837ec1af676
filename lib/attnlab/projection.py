r"""Gaussian random projections and the projected logits of PDA (the book's chapters 1 and 4).

:func:`gaussian_projection` draws the :math:`d\times m` matrix :math:`P` of PDA's Algorithm 2.1 and
:func:`projected_logits` forms :math:`\tilde S = (QP)(KP)^\top/\sqrt m` (as printed) or :math:`/\sqrt d`
(unbiased). :func:`projected_logits` is backend-generic: it takes its array namespace from its inputs
(``array_api_compat.array_namespace``) and uses only array-API-standard calls, so NumPy, CuPy,
``array_api_strict`` and other conforming libraries go through one code path.
"""
from __future__ import annotations

import math

import numpy as np
from array_api_compat import array_namespace, is_array_api_obj

from ._validate import positive_int
from .backend import rng_module

__all__ = ["gaussian_projection", "projected_logits"]

_SCALINGS = ("printed", "unbiased")


# --------------------------------------------------------------------------- array-API validation (shared with pda)
def _namespace(**arrays):
    """The array namespace of the named inputs (non-arrays such as lists go through NumPy) and the inputs.

    Raises ``TypeError`` naming the inputs when they come from different array libraries.
    """
    conv = {}
    for name, a in arrays.items():
        if not is_array_api_obj(a):
            try:
                a = np.asarray(a)
            except (TypeError, ValueError) as exc:  # ragged lists and the like
                raise TypeError(f"{name} must be an array, not {type(a).__name__}") from exc
        conv[name] = a
    try:
        xp = array_namespace(*conv.values())
    except TypeError as exc:
        raise TypeError(f"{', '.join(conv)} must all be arrays of one array library") from exc
    return xp, conv


def _float_matrix(x, name: str, xp):
    """``x`` as a finite, non-empty, 2-D real floating array of namespace ``xp``.

    Booleans and integers become float64, float16 becomes float32 (too narrow for logits); complex and other
    dtypes raise ``TypeError``; NaN, inf, a wrong rank or an empty axis raise ``ValueError``. ``name`` is the
    caller's argument, named in every message.
    """
    if xp.isdtype(x.dtype, ("bool", "integral")):
        x = xp.astype(x, xp.float64)
    elif xp.isdtype(x.dtype, "real floating"):
        f16 = getattr(xp, "float16", None)
        if f16 is not None and x.dtype == f16:
            x = xp.astype(x, xp.float32)
    else:
        raise TypeError(f"{name} must be a real floating array, got dtype {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {tuple(x.shape)}")
    if 0 in x.shape:
        raise ValueError(f"{name} must have positive dimensions, got shape {tuple(x.shape)}")
    if not bool(xp.all(xp.isfinite(x))):
        raise ValueError(f"{name} contains NaN or inf")
    return x


def _logits(Q, K, P, denom):
    """(QP)(KP)ᵀ / denom, with array-API-standard calls only (no check: see ``_finite_logits``)."""
    return (Q @ P) @ (K @ P).T / denom


def _finite_logits(S, xp, what: str = "Q, K and P"):
    """``S`` unchanged, or ``ValueError`` naming the inputs when a logit overflowed to inf (or NaN)."""
    if not bool(xp.all(xp.isfinite(S))):
        raise ValueError(f"the projected logits of {what} overflow {S.dtype}: scale the inputs down")
    return S


# --------------------------------------------------------------------------- public
def gaussian_projection(d, m, rng, *, dtype="float64"):
    r"""A :math:`d \times m` matrix with independent :math:`\mathcal N(0, 1/m)` entries.

    This is the matrix :math:`P` of PDA's Algorithm 2.1; the theorems of its §3 use the
    transpose, an :math:`m \times d` matrix with the same entries. :math:`\mathbb E[PP^\top] = I_d`.

    Parameters
    ----------
    d, m : int
        Input and projected dimensions, both >= 1 (``bool`` is not an integer).
    rng : numpy.random.Generator or cupy.random.Generator
        Source of randomness; its library (NumPy or CuPy) is the library of the result. For another array
        library convert the result with ``xp.asarray``.
    dtype : {"float64", "float32"}
        Floating type of the result (float16 is rejected: too narrow for logits).

    Returns
    -------
    P : array of shape (d, m) and type ``dtype``, from the generator's library
        Entries :math:`\mathcal N(0, 1)/\sqrt m`, drawn as ``rng.standard_normal((d, m), dtype=dtype)``.

    Raises
    ------
    TypeError
        If ``d`` or ``m`` is not an integer, or ``rng`` is not a NumPy or CuPy ``Generator``.
    ValueError
        If ``d`` or ``m`` is < 1, or ``dtype`` is not float32 or float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import gaussian_projection
    >>> P = gaussian_projection(3, 10_000, np.random.default_rng(0))
    >>> P.shape, bool(np.allclose(P @ P.T, np.eye(3), atol=0.05))
    ((3, 10000), True)
    """
    d = positive_int(d, "d")
    m = positive_int(m, "m")
    xp = rng_module(rng)
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    P = rng.standard_normal((d, m), dtype=dtype)
    P *= 1.0 / math.sqrt(m)
    return P.astype(getattr(xp, dtype), copy=False)


def projected_logits(Q, K, P, *, scaling="unbiased"):
    r"""The projected logits :math:`\tilde S` of PDA for a :math:`d\times m` projection ``P``.

    ``scaling="printed"`` is Algorithm 2.1 as printed, :math:`\tilde S = (QP)(KP)^\top/\sqrt m`;
    ``scaling="unbiased"`` is the second half's :math:`\tilde S_{ij} = \sqrt d\,\langle P^\top q_i, P^\top k_j\rangle`
    with :math:`q = Q/\sqrt d`, i.e. :math:`(QP)(KP)^\top/\sqrt d`, whose mean is :math:`S = QK^\top/\sqrt d`
    because :math:`\mathbb E[PP^\top] = I_d`. The printed one has mean :math:`\sqrt{d/m}\,S` (the book's chapter 1).

    Backend-generic: the array namespace comes from ``Q``, ``K`` and ``P`` (array API standard).

    Parameters
    ----------
    Q : array of shape (L_q, d)
        Queries: real, finite. Integers and booleans are computed in float64, float16 in float32.
    K : array of shape (L_k, d)
        Keys, same library as ``Q``.
    P : array of shape (d, m)
        The projection (e.g. :func:`gaussian_projection`, converted to the library of ``Q``).
    scaling : {"unbiased", "printed"}
        Divide by :math:`\sqrt d` (unbiased) or :math:`\sqrt m` (as printed).

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
    if scaling == "printed":
        denom = math.sqrt(P.shape[1])
    elif scaling == "unbiased":
        denom = math.sqrt(d)
    else:
        raise ValueError(f"scaling must be 'printed' or 'unbiased', got {scaling!r}")
    return _finite_logits(_logits(Q, K, P, denom), xp)
