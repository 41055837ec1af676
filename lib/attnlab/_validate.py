"""Input validation at the public boundary: clear errors that name the argument.

Two families: the NumPy/CuPy validators (:func:`as_float_array`, :func:`qkv`, …) used by most modules, and the
array-API-generic ones (:func:`namespace_of`, :func:`floating_array`, :func:`axis_index`, :func:`finite_real`,
:func:`flag`) that the backend-generic core (softmax, attention) uses: they take the array namespace from the
inputs through ``array-api-compat`` and use only calls of the array API standard.
"""
from __future__ import annotations

import math
import numbers

import array_api_compat
import array_api_compat.numpy  # noqa: F401  (imported now, not inside the first call: it would count in its memory and time)
import numpy as np

from .backend import get_array_module


def namespace_of(**arrays):
    """The array namespace (``array-api-compat``) shared by the array arguments, named by keyword.

    Arguments that are not arrays (lists, Python numbers) do not take part; with no array at all the namespace is
    NumPy's. Arrays of different libraries raise ``TypeError`` naming the arguments.
    """
    found = {k: a for k, a in arrays.items() if array_api_compat.is_array_api_obj(a)}
    if not found:
        return array_api_compat.array_namespace(np.empty(0))
    try:
        return array_api_compat.array_namespace(*found.values())
    except TypeError as exc:
        kinds = ", ".join(f"{k} ({type(a).__module__.split('.')[0]})" for k, a in found.items())
        raise TypeError(f"{', '.join(found)} must be arrays of one library, got {kinds}") from exc


def floating_array(x, name: str, xp, *, ndim: int | None = None, allow_neg_inf: bool = False):
    """``x`` as a real floating array of namespace ``xp``, checked; errors name ``name``.

    Dtype policy: float32 and float64 are kept; float16 is computed in float32 (other real floating dtypes, such
    as NumPy's longdouble, in float64); integers are converted to float64; bool, complex and anything else raise
    ``TypeError``. NaN or +inf (and -inf unless ``allow_neg_inf``) raise ``ValueError``; so does a number of
    dimensions other than ``ndim`` (when given).
    """
    if not array_api_compat.is_array_api_obj(x):
        try:
            x = xp.asarray(x)
        except Exception as exc:  # ragged lists, objects: not an array
            raise TypeError(f"{name} must be an array of real numbers, not {type(x).__name__}") from exc
    dt = x.dtype
    try:
        kind = next(k for k in ("bool", "integral", "real floating", "complex floating") if xp.isdtype(dt, k))
    except (StopIteration, TypeError, ValueError):
        kind = None
    if kind == "integral":
        x = xp.astype(x, xp.float64)
    elif kind == "real floating":
        if dt == getattr(xp, "float16", None):
            x = xp.astype(x, xp.float32)
        elif dt not in (xp.float32, xp.float64):
            x = xp.astype(x, xp.float64)
    else:
        raise TypeError(f"{name} must be a real floating array (float32 or float64), got dtype {dt}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(x.shape)}")
    if math.prod(x.shape):
        if allow_neg_inf:
            if bool(xp.any(xp.isnan(x))) or bool(xp.any(x == xp.inf)):
                raise ValueError(f"{name} contains NaN or +inf")
        elif not bool(xp.all(xp.isfinite(x))):
            raise ValueError(f"{name} contains NaN or inf")
    return x


def axis_index(axis, ndim: int, shape, array_name: str, name: str = "axis") -> int:
    """Check that ``axis`` is an integer (not bool) in [-ndim, ndim) and return it as a non-negative int."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}={int(axis)} is out of range for {array_name} of shape {tuple(shape)} "
                         f"(valid: {-ndim} to {ndim - 1})")
    return int(axis) % ndim


def finite_real(x, name: str) -> float:
    """Check that ``x`` is a finite real number (not bool) and return it as a float."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def flag(x, name: str) -> bool:
    """Check that ``x`` is ``True`` or ``False`` (Python or NumPy bool)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(x).__name__}")
    return bool(x)


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
