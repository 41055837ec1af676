"""Input validation at the public boundary: one layer, one policy, errors that name the argument.

Every public function of :mod:`attnlab` checks its arguments here, so the same input means the same thing
everywhere (the policy is written on the book's Conventions page):

* **arrays** (:func:`real_array`; :func:`floating_array`, :func:`as_float_array`, :func:`qkv` are its spellings for
  the callers that already use them): anything ``xp.asarray`` reads (NumPy, CuPy, any array-API library through
  ``array-api-compat``; Python lists and tuples are read as NumPy); float32 and float64 are kept, float16 is computed
  in float32, other real floating types (NumPy's longdouble) in float64, integers are converted to float64;
  **bool and complex are rejected** (``TypeError``); NaN and inf raise ``ValueError`` (``-inf`` only where a function
  documents it as a mask); a wrong number of dimensions or an empty axis raises ``ValueError``;
* **integers** (:func:`integer`, :func:`positive_int`, :func:`nonnegative_int`): Python or NumPy integers, never
  ``bool`` or a float with an integral value;
* **reals** (:func:`real`, :func:`finite_real`, :func:`positive_real`, :func:`in_open_interval`): Python or NumPy
  reals, never ``bool``; finite unless a function says otherwise;
* **dtype arguments** (:func:`dtype_arg`): ``np.float32``, ``np.dtype("float32")`` and ``"float32"`` alike;
* **randomness** (:func:`as_generator`): SciPy's SPEC 7 — ``None``, an int, a ``SeedSequence``, a ``BitGenerator``
  or a ``Generator`` (a CuPy generator passes through as is);
* **renamed arguments** (:func:`renamed`, :func:`rng_keyword`): an old spelling keeps working with a
  ``DeprecationWarning`` that names the new one.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, TypeVar

import array_api_compat
import array_api_compat.numpy  # noqa: F401  (imported now, not inside the first call: it would count in its memory and time)
import numpy as np
from numpy.typing import ArrayLike

_NP = array_api_compat.array_namespace(np.empty(0))


#: The type of the arrays the library returns: an array of the inputs' namespace (NumPy, CuPy, …; ``numpy.ndarray``
#: for lists), as ``numpy.typing.ArrayLike`` is the type of what it accepts.
Array = Any
#: What ``rng`` accepts (SciPy's SPEC 7): None, an int, a SeedSequence, a BitGenerator or a Generator.
SeedLike = "None | int | np.random.SeedSequence | np.random.BitGenerator | np.random.Generator"
#: A function (what the decorators take and return).
_F = TypeVar("_F", bound=Callable)


# --------------------------------------------------------------------------- arrays
def namespace_of(**arrays: object) -> ModuleType:
    """The array namespace (``array-api-compat``) shared by the array arguments, named by keyword.

    Arguments that are not arrays (lists, Python numbers) do not take part; with no array at all the namespace is
    NumPy's. Arrays of different libraries raise ``TypeError`` naming the arguments.
    """
    found = {k: a for k, a in arrays.items() if array_api_compat.is_array_api_obj(a)}
    if not found:
        return _NP
    try:
        return array_api_compat.array_namespace(*found.values())
    except TypeError as exc:
        kinds = ", ".join(f"{k} ({type(a).__module__.split('.')[0]})" for k, a in found.items())
        raise TypeError(f"{', '.join(found)} must be arrays of one library, got {kinds}") from exc


def real_array(x: ArrayLike, name: str, xp: ModuleType | None = None, *, ndim: int | Sequence[int] | None = None,
               nonempty: bool = False, finite: bool = True, allow_neg_inf: bool = False) -> Array:
    """``x`` as a real floating array, checked against the policy of this module; every error names ``name``.

    Parameters
    ----------
    x : array_like
        An array of any array-API library, or anything ``xp.asarray`` reads (lists, tuples, scalars).
    name : str
        The caller's argument name, used in every message.
    xp : namespace, optional
        The array namespace to read non-arrays with (default: the namespace of ``x``, NumPy for lists).
    ndim : int or tuple of int, optional
        The allowed number(s) of dimensions.
    nonempty : bool
        Whether every axis must be of positive length.
    finite : bool
        Whether NaN and inf are rejected (``ValueError``).
    allow_neg_inf : bool
        With ``finite``: ``-inf`` is allowed (a masked logit); NaN and ``+inf`` are still rejected.
    """
    if not array_api_compat.is_array_api_obj(x):
        if xp is None:
            xp = _NP
        try:
            x = xp.asarray(x)
        except Exception as exc:  # ragged lists, strings, objects: not an array of numbers
            raise TypeError(f"{name} must be an array of real numbers, not {type(x).__name__}") from exc
    elif xp is None:
        xp = array_api_compat.array_namespace(x)
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
    elif kind == "bool":
        raise TypeError(f"{name} must be a real floating array, not dtype bool (convert it: {name}.astype(float))")
    else:
        raise TypeError(f"{name} must be a real floating array (float32 or float64), got dtype {dt}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, numbers.Integral) else tuple(ndim)
        if x.ndim not in allowed:
            want = f"{allowed[0]}" if len(allowed) == 1 else " or ".join(map(str, allowed))
            raise ValueError(f"{name} must be {want}-dimensional, got shape {tuple(x.shape)}")
    if nonempty and 0 in tuple(x.shape):
        raise ValueError(f"{name} must have positive dimensions, got shape {tuple(x.shape)}")
    if finite and math.prod(x.shape):
        if allow_neg_inf:
            if bool(xp.any(xp.isnan(x))) or bool(xp.any(x == xp.inf)):
                raise ValueError(f"{name} contains NaN or +inf")
        elif not bool(xp.all(xp.isfinite(x))):
            raise ValueError(f"{name} contains NaN or inf")
    return x


def floating_array(x: ArrayLike, name: str, xp: ModuleType | None, *, ndim: int | Sequence[int] | None = None,
                   allow_neg_inf: bool = False) -> Array:
    """:func:`real_array` in the namespace ``xp`` (the spelling of the backend-generic core)."""
    return real_array(x, name, xp, ndim=ndim, allow_neg_inf=allow_neg_inf)


def as_float_array(x: ArrayLike, name: str, *, ndim: int | Sequence[int] | None = None, allow_neg_inf: bool = False,
                   nonempty: bool = False) -> Array:
    """:func:`real_array` in the namespace of ``x`` (NumPy for lists): the spelling of the NumPy/CuPy modules."""
    return real_array(x, name, ndim=ndim, allow_neg_inf=allow_neg_inf, nonempty=nonempty)


def same_width(a: Array, b: Array, names: str, axis: int = 1, what: str = "width d") -> None:
    """``ValueError`` unless ``a`` and ``b`` agree along ``axis``; ``names`` is ``"Q and K"``."""
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"{names} must have the same {what}, got {a.shape[axis]} and {b.shape[axis]}")


def qkv(Q: ArrayLike, K: ArrayLike, V: ArrayLike, xp: ModuleType | None = None) -> tuple[Array, Array, Array]:
    """Queries (L_q, d), keys (L_k, d) and values (L_k, d_v): 2-D, finite, non-empty, one array library."""
    if xp is None:
        xp = namespace_of(Q=Q, K=K, V=V)
    Q = real_array(Q, "Q", xp, ndim=2, nonempty=True)
    K = real_array(K, "K", xp, ndim=2, nonempty=True)
    V = real_array(V, "V", xp, ndim=2, nonempty=True)
    same_width(Q, K, "Q and K")
    same_width(K, V, "K and V", axis=0, what="number of rows")
    return Q, K, V


def batch_shape(**shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of the leading (batch) axes of the named arrays, as NumPy and SDPA broadcast them."""
    try:
        return tuple(int(n) for n in np.broadcast_shapes(*shapes.values()))
    except ValueError:
        given = ", ".join(f"{k} {tuple(v)}" for k, v in shapes.items())
        raise ValueError(f"the batch axes of {', '.join(shapes)} do not broadcast: {given}") from None


def mask_array(mask: ArrayLike, xp: ModuleType, dtype: object, Lq: int, Lk: int) -> tuple[Array, bool]:
    """Validate ``mask``, a boolean array (True = the key takes part) or a real array added to the logits (finite or
    -inf), broadcastable to (…, L_q, L_k). Returns (mask with at least 2 dimensions, is_bool)."""
    if not array_api_compat.is_array_api_obj(mask):
        try:
            mask = xp.asarray(mask)
        except Exception as exc:
            raise TypeError(f"mask must be an array of bools or real numbers, not {type(mask).__name__}") from exc
    try:
        is_bool = xp.isdtype(mask.dtype, "bool")
    except (TypeError, ValueError):
        is_bool = False
    if not is_bool:
        try:
            mask = floating_array(mask, "mask", xp, allow_neg_inf=True)
        except TypeError:
            raise TypeError(f"mask must be a boolean array (True = take part) or a real array added to the logits, "
                            f"got dtype {mask.dtype}") from None
        mask = xp.astype(mask, dtype, copy=False)
    while mask.ndim < 2:
        mask = xp.reshape(mask, (1,) + tuple(mask.shape))
    mq, mk = mask.shape[-2:]
    if mq not in (1, Lq) or mk not in (1, Lk):
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to (…, L_q, L_k) = (…, {Lq}, {Lk})")
    return mask, is_bool


def matrix(A: ArrayLike, name: str) -> Array:
    """A non-empty real matrix (2 dimensions), in the namespace of ``A``."""
    return as_float_array(A, name, ndim=2, nonempty=True)


def matrix_pair(A: ArrayLike, B: ArrayLike,
                names: tuple[str, str] = ("A", "B")) -> tuple[Array, Array]:
    """Two real matrices of one shape."""
    A, B = matrix(A, names[0]), matrix(B, names[1])
    if A.shape != B.shape:
        raise ValueError(f"{names[1]} must have the shape of {names[0]} {tuple(A.shape)}, got {tuple(B.shape)}")
    return A, B


def certificate_eps(eps: float) -> float:
    """The tolerance ε of a certificate: a real number in (0, 2) (every row-ℓ1 distance of stochastic rows is ≤ 2)."""
    return in_open_interval(eps, 0.0, 2.0, "eps")


def finite_scores(S: Array, name: str) -> Array:
    """Scores that overflowed to ±inf (finite inputs, too large a temperature factor) are an error naming ``name``."""
    xp = array_api_compat.array_namespace(S)
    if not bool(xp.all(xp.isfinite(S))):
        raise ValueError(f"the scores overflow the dtype: {name} times the inner products is not finite; reduce {name}")
    return S


def axis_index(axis: int, ndim: int, shape: tuple[int, ...], array_name: str, name: str = "axis") -> int:
    """Check that ``axis`` is an integer (not bool) in [-ndim, ndim) and return it as a non-negative int."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}={int(axis)} is out of range for {array_name} of shape {tuple(shape)} "
                         f"(valid: {-ndim} to {ndim - 1})")
    return int(axis) % ndim


def axes_tuple(axis: int | tuple[int, ...] | None, ndim: int, shape: tuple[int, ...], array_name: str,
               name: str = "axis") -> tuple[int, ...]:
    """``axis`` (None, an integer or a tuple of distinct integers) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        out = tuple(axis_index(a, ndim, shape, array_name, name) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"{name}={axis} repeats an axis of {array_name}")
        return tuple(sorted(out))
    return (axis_index(axis, ndim, shape, array_name, name),)


# --------------------------------------------------------------------------- scalars
def _is_int(n: object) -> bool:
    return isinstance(n, numbers.Integral) and not isinstance(n, (bool, np.bool_))


def integer(n: int, name: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """Check that ``n`` is an integer (Python or NumPy, not bool) in ``[lo, hi]`` and return it as an int."""
    if not _is_int(n):
        raise TypeError(f"{name} must be an integer, not {type(n).__name__}")
    n = int(n)
    if lo is not None and n < lo:
        raise ValueError(f"{name} must be >= {lo}, got {n}")
    if hi is not None and n > hi:
        raise ValueError(f"{name} must be <= {hi}, got {n}")
    return n


def positive_int(n: int, name: str) -> int:
    """Check that ``n`` is an integer >= 1."""
    return integer(n, name, lo=1)


def nonnegative_int(n: int, name: str) -> int:
    """Check that ``n`` is an integer >= 0 (bool is not an integer)."""
    return integer(n, name, lo=0)


def real(x: float, name: str, *, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
         hi_open: bool = False, finite: bool = True) -> float:
    """Check that ``x`` is a real number (not bool) in the given interval and return it as a float."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if math.isnan(x) or (finite and math.isinf(x)):
        raise ValueError(f"{name} must be finite, got {x}")
    below = lo is not None and (x <= lo if lo_open else x < lo)
    above = hi is not None and (x >= hi if hi_open else x > hi)
    if (below or above) and hi is None:
        raise ValueError(f"{name} must be {'>' if lo_open else '>='} {lo:g}, got {x:g}")
    if below or above:
        left = "-inf" if lo is None else f"{lo:g}"
        right = "inf" if hi is None else f"{hi:g}"
        interval = f"{'(' if lo_open or lo is None else '['}{left}, {right}{')' if hi_open or hi is None else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {x:g}")
    return x


def finite_real(x: float, name: str) -> float:
    """Check that ``x`` is a finite real number (not bool) and return it as a float."""
    return real(x, name)


def positive_real(x: float, name: str) -> float:
    """Check that ``x`` is a finite real number > 0."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if not (x > 0 and x < math.inf):
        raise ValueError(f"{name} must be a finite number > 0, got {x:g}")
    return x


def in_open_interval(x: float, lo: float, hi: float, name: str) -> float:
    """Check that ``x`` is a real number in (lo, hi)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    x = float(x)
    if not lo < x < hi:
        raise ValueError(f"{name} must lie in ({lo:g}, {hi:g}), got {x:g}")
    return x


def beta_arg(beta: float | None, name: str = "beta", *, default: float | None = None) -> float:
    """The inverse temperature: any finite real (negative allowed); ``None`` gives ``default``."""
    if beta is None and default is not None:
        return float(default)
    return real(beta, name)


def flag(x: bool, name: str) -> bool:
    """Check that ``x`` is ``True`` or ``False`` (Python or NumPy bool)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(x).__name__}")
    return bool(x)


def choice(x: str, options: Sequence[str], name: str) -> str:
    """Check that ``x`` is one of the strings ``options``."""
    if not isinstance(x, str) or x not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {x!r}")
    return x


def dtype_arg(dtype: object, name: str = "dtype", allowed: Sequence[str] = ("float32", "float64")) -> str:
    """A floating dtype given as ``np.float32``, ``np.dtype("float32")`` or ``"float32"``: its name, checked."""
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{name} must be a dtype such as 'float32' or np.float64, not {type(dtype).__name__}") from exc
    if dtype is None or dt.name not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {dtype!r}")
    return dt.name


# --------------------------------------------------------------------------- randomness (SPEC 7)
def as_generator(rng: SeedLike, name: str = "rng") -> np.random.Generator:
    """A random ``Generator`` from what SciPy's SPEC 7 accepts.

    ``None`` (fresh OS entropy), an integer >= 0, a ``numpy.random.SeedSequence`` or ``BitGenerator`` give
    ``numpy.random.default_rng(rng)``; a NumPy or CuPy ``Generator`` is returned as is. ``bool``, floats,
    ``RandomState`` and anything else raise ``TypeError`` naming ``name``.
    """
    if isinstance(rng, np.random.Generator) or type(rng).__module__.split(".")[0] == "cupy":
        return rng
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if _is_int(rng):
        if rng < 0:
            raise ValueError(f"{name} must be a non-negative integer seed, got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be None, an int, a numpy.random.SeedSequence, BitGenerator or Generator, "
                    f"not {type(rng).__name__}")


def generator(rng: np.random.Generator, name: str = "rng") -> np.random.Generator:
    """Check that ``rng`` is a ``numpy.random.Generator`` (the strict check of the model modules, encoder and decoder,
    whose ``rng`` is positional and required; every other module takes SPEC 7 through :func:`as_generator`)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
                        f"not {type(rng).__name__}")
    return rng


def generator_module(rng: object) -> ModuleType:
    """The array module (``numpy`` or ``cupy``) whose arrays the generator ``rng`` draws."""
    if type(rng).__module__.split(".")[0] == "cupy":
        import cupy  # noqa: PLC0415

        return cupy
    return np


# --------------------------------------------------------------------------- renamed arguments
def _warn(old: str, new: str, fun: str) -> None:
    warnings.warn(f"{fun}: the argument {old!r} is deprecated; use {new!r}", DeprecationWarning, stacklevel=3)


def renamed(**old_to_new: str) -> Callable[[_F], _F]:
    """Decorator: keyword ``old=`` keeps working as ``new=`` with a ``DeprecationWarning`` (both at once: TypeError)."""
    def deco(fun: _F) -> _F:
        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fun.__name__}() got both {old!r} (deprecated) and {new!r}")
                    _warn(old, new, fun.__name__)
                    kwargs[new] = kwargs.pop(old)
            return fun(*args, **kwargs)
        wrapper.__renamed__ = {**getattr(fun, "__renamed__", {}), **old_to_new}
        return wrapper
    return deco


def rng_keyword(n_positional: int, names: tuple[str, ...] = ("rng",)) -> Callable[[_F], _F]:
    """Decorator: arguments that became keyword-only (``rng`` and the ones after it) keep working positionally.

    A call with more than ``n_positional`` positional arguments passes the extra ones as ``names`` (in order),
    with a ``DeprecationWarning``.
    """
    def deco(fun: _F) -> _F:
        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            if len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(names):
                    raise TypeError(f"{fun.__name__}() takes {n_positional} positional arguments "
                                    f"(then {', '.join(names)} by keyword), got {len(args)}")
                for nm, val in zip(names, extra):
                    if nm in kwargs:
                        raise TypeError(f"{fun.__name__}() got multiple values for argument {nm!r}")
                    warnings.warn(f"{fun.__name__}: passing {nm!r} by position is deprecated; pass {nm}=…",
                                  DeprecationWarning, stacklevel=2)
                    kwargs[nm] = val
                args = args[:n_positional]
            return fun(*args, **kwargs)
        wrapper.__signature__ = inspect.signature(fun)
        return wrapper
    return deco
