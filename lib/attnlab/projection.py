"""Gaussian random projections and the projected logits of PDA (claims PDA-alg, PDA-jl)."""
from __future__ import annotations

import math

from ._validate import as_float_array, positive_int
from .backend import rng_module

__all__ = ["gaussian_projection", "projected_logits"]


def gaussian_projection(d, m, rng, *, dtype="float64"):
    r"""A :math:`d \times m` matrix with independent :math:`\mathcal N(0, 1/m)` entries.

    This is the matrix :math:`P` of PDA's Algorithm 2.1 (claim PDA-alg); the
    theorems of its §3 use the transpose, an :math:`m \times d` matrix with the
    same entries. :math:`\mathbb E[PP^\top] = I_d`.

    Parameters
    ----------
    d, m : int
        Input and projected dimensions, both >= 1.
    rng : numpy.random.Generator or cupy.random.Generator
        Source of randomness; its backend decides the returned array type.
    dtype : str
        ``"float64"`` (default) or ``"float32"``.

    Examples
    --------
    >>> import numpy as np
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

    ``scaling="printed"`` is Algorithm 2.1 as printed,
    :math:`\tilde S = (QP)(KP)^\top/\sqrt m`; ``scaling="unbiased"`` is the
    second half's :math:`\tilde S_{ij} = \sqrt d\,\langle P^\top q_i, P^\top k_j\rangle`
    with :math:`q = Q/\sqrt d`, i.e. :math:`(QP)(KP)^\top/\sqrt d`, whose mean is
    :math:`S = QK^\top/\sqrt d` because :math:`\mathbb E[PP^\top] = I_d`.
    The printed one has mean :math:`\sqrt{d/m}\,S` (claim PDA-alg).

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.ones((1, 4)); P = np.eye(4)      # a "projection" with m = d
    >>> float(projected_logits(Q, Q, P)[0, 0]), float((Q @ Q.T)[0, 0] / 2)
    (2.0, 2.0)
    """
    Q = as_float_array(Q, "Q", ndim=2)
    K = as_float_array(K, "K", ndim=2)
    P = as_float_array(P, "P", ndim=2)
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
    return (Q @ P) @ (K @ P).T / denom
