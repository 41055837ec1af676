"""Input validation at the public boundary: clear errors that name the argument."""
from __future__ import annotations

import numbers

from .backend import get_array_module


def as_float_array(x, name: str, *, ndim: int | None = None, allow_neg_inf: bool = False):
    """Check that ``x`` is a real floating array (NumPy or CuPy) and return it.

    Integer arrays are promoted to float64; NaN or +Inf (and -Inf unless
    ``allow_neg_inf``) raise ``ValueError`` naming ``name``.
    """
    xp = get_array_module(x)
    if not hasattr(x, "dtype"):
        try:
            x = xp.asarray(x)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"{name} must be an array, not {type(x).__name__}") from exc
    if x.dtype.kind in "biu":
        x = x.astype(xp.float64)
    elif x.dtype.kind != "f":
        raise TypeError(f"{name} must be a real floating array, got dtype {x.dtype}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(x.shape)}")
    if x.size:
        if allow_neg_inf:
            bad = bool(xp.isnan(x).any()) or bool(xp.isposinf(x).any())
            what = "NaN or +inf"
        else:
            bad = not bool(xp.isfinite(x).all())
            what = "NaN or inf"
        if bad:
            raise ValueError(f"{name} contains {what}")
    return x


def positive_int(n, name: str) -> int:
    """Check that ``n`` is an integer >= 1."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
    return int(n)


def in_open_interval(x, lo: float, hi: float, name: str) -> float:
    """Check that ``x`` is a real number in (lo, hi)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if not lo < x < hi:
        raise ValueError(f"{name} must lie in ({lo:g}, {hi:g}), got {x:g}")
    return x


def positive_real(x, name: str) -> float:
    """Check that ``x`` is a finite real number > 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if not (x > 0 and x < float("inf")):
        raise ValueError(f"{name} must be a finite number > 0, got {x:g}")
    return x


def qkv(Q, K, V):
    """Check queries (L_q, d), keys (L_k, d) and values (L_k, d_v): 2-D, finite, non-empty, one array type."""
    Q = as_float_array(Q, "Q", ndim=2)
    K = as_float_array(K, "K", ndim=2)
    V = as_float_array(V, "V", ndim=2)
    if len({type(a) for a in (Q, K, V)}) != 1:
        raise TypeError("Q, K and V must all be NumPy arrays or all CuPy arrays")
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if 0 in a.shape:
            raise ValueError(f"{name} must have positive dimensions, got shape {tuple(a.shape)}")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q and K must have the same width d, got {Q.shape[1]} and {K.shape[1]}")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"K and V must have the same number of rows, got {K.shape[0]} and {V.shape[0]}")
    return Q, K, V


def nonnegative_int(n, name: str) -> int:
    """Check that ``n`` is an integer >= 0 (bool is not an integer)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(n).__name__}")
    if n < 0:
        raise ValueError(f"{name} must be >= 0, got {n}")
    return int(n)


def generator(rng, name: str = "rng"):
    """Check that ``rng`` is a ``numpy.random.Generator`` (``numpy.random.default_rng(seed)``)."""
    import numpy as np  # noqa: PLC0415

    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
                        f"not {type(rng).__name__}")
    return rng
