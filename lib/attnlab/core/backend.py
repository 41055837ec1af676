"""Array backend selection: NumPy by default, CuPy when a GPU is present.

The backend of a computation is the array module of its inputs
(:func:`get_array_module`); the *default* backend, used where a function
creates arrays from nothing, is chosen by the environment variable
``ATTNLAB_BACKEND`` (``numpy``, ``cupy`` or ``auto``; ``auto`` is the default
and picks CuPy when it imports and sees a GPU).
"""
from __future__ import annotations

import functools
import os
import types

import numpy as np

__all__ = ["get_array_module", "default_backend", "default_xp", "make_rng", "to_numpy", "is_cupy", "cpu_count"]


@functools.lru_cache(maxsize=1)
def _cupy():
    """The cupy module if it imports and a device is visible, else None."""
    try:
        import cupy  # noqa: PLC0415

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # ImportError, CUDA driver errors: no usable GPU
        return None


def default_backend() -> str:
    """Name of the default backend, ``"numpy"`` or ``"cupy"``.

    Read from the environment variable ``ATTNLAB_BACKEND`` (``numpy``,
    ``cupy`` or ``auto``, case-insensitive; unset means ``auto``): ``auto``
    picks CuPy when it imports and sees a GPU, else NumPy. It decides only
    where a function creates arrays from nothing; computations on arrays
    follow their inputs.

    Parameters
    ----------
    None
        The choice comes from the environment only.

    Returns
    -------
    name : str
        ``"numpy"`` or ``"cupy"``.

    Raises
    ------
    ValueError
        ``ATTNLAB_BACKEND`` holds another value.
    RuntimeError
        ``ATTNLAB_BACKEND=cupy`` but CuPy with a GPU is not available (no
        silent fallback).

    Examples
    --------
    >>> from attnlab import default_backend
    >>> default_backend() in ("numpy", "cupy")
    True
    """
    choice = os.environ.get("ATTNLAB_BACKEND", "auto").strip().lower()
    if choice not in ("numpy", "cupy", "auto"):
        raise ValueError(f"ATTNLAB_BACKEND must be numpy, cupy or auto, not {choice!r}")
    if choice == "numpy":
        return "numpy"
    cp = _cupy()
    if choice == "cupy" and cp is None:
        raise RuntimeError("ATTNLAB_BACKEND=cupy but CuPy with a GPU is not available")
    return "cupy" if cp is not None else "numpy"


def default_xp() -> types.ModuleType:
    """The array module of the default backend (``numpy`` or ``cupy``).

    Parameters
    ----------
    None
        As :func:`default_backend`, the choice comes from the environment.

    Returns
    -------
    xp : module
        ``numpy`` or ``cupy``, as chosen by :func:`default_backend`.

    Raises
    ------
    ValueError
        ``ATTNLAB_BACKEND`` holds a value other than ``numpy``, ``cupy`` or ``auto``.
    RuntimeError
        ``ATTNLAB_BACKEND=cupy`` but CuPy with a GPU is not available.

    Examples
    --------
    >>> from attnlab import default_xp
    >>> default_xp().__name__ in ("numpy", "cupy")
    True
    """
    return _cupy() if default_backend() == "cupy" else np


def is_cupy(x: object) -> bool:
    """Whether ``x`` is a CuPy object (array or scalar), without importing CuPy.

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        True when the type of ``x`` comes from the ``cupy`` package.

    Raises
    ------
    Nothing
        Any object is a valid argument.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import is_cupy
    >>> is_cupy(np.ones(2))
    False
    """
    return type(x).__module__.split(".")[0] == "cupy"


def get_array_module(*arrays: object) -> types.ModuleType:
    """The array module (``numpy`` or ``cupy``) of the given arrays.

    Any CuPy array among the arguments selects CuPy; otherwise NumPy. This
    is the NumPy/CuPy dispatch of the modules that use NumPy-specific calls;
    the backend-generic core (:func:`softmax`, :func:`attention`, …) takes
    the array-API namespace instead (``array_api_compat.array_namespace``),
    which covers any conforming library.

    Parameters
    ----------
    *arrays : objects
        Arrays or scalars of any kind (non-CuPy objects count as NumPy).

    Returns
    -------
    xp : module
        ``cupy`` if any argument is a CuPy object, else ``numpy`` (also for no argument).

    Raises
    ------
    None
        Any objects are accepted; only CuPy objects select CuPy.

    Raises
    ------
    ImportError
        Never in practice: a CuPy object implies that ``cupy`` imports.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import get_array_module
    >>> get_array_module(np.ones(3), 2.0) is np
    True
    """
    for a in arrays:
        if is_cupy(a):
            import cupy  # noqa: PLC0415

            return cupy
    return np


def make_rng(seed: int, xp: types.ModuleType | None = None) -> object:
    """A seeded random generator of the default (or given) backend.

    Draws differ between backends, so a figure records the backend in its
    provenance.

    Parameters
    ----------
    seed : int
        The seed, a Python or NumPy integer (not bool).
    xp : module, optional
        ``numpy`` or ``cupy``; default :func:`default_xp`.

    Returns
    -------
    rng : numpy.random.Generator or cupy.random.Generator
        ``numpy.random.default_rng(seed)`` (PCG64) for NumPy, CuPy's
        ``default_rng`` for CuPy.

    Raises
    ------
    TypeError
        ``seed`` is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import make_rng
    >>> make_rng(0, np).standard_normal(2).shape
    (2,)
    """
    xp = default_xp() if xp is None else xp
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
    if xp is np:
        return np.random.default_rng(int(seed))
    return xp.random.default_rng(int(seed))


def to_numpy(x: object) -> np.ndarray:
    """``x`` as a NumPy array, copied from the device if needed.

    Parameters
    ----------
    x : array or scalar
        A NumPy, CuPy or other array-API array (read through DLPack, e.g.
        ``array_api_strict``), a Python/NumPy scalar, or a (nested) list.

    Returns
    -------
    numpy.ndarray
        The same values; NumPy input is returned as is (no copy).

    Raises
    ------
    TypeError, ValueError
        As ``numpy.asarray`` or ``numpy.from_dlpack`` for ``x`` (a ragged list, an array on a device without
        DLPack export to the host).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import to_numpy
    >>> to_numpy([1.0, 2.0])
    array([1., 2.])
    """
    if is_cupy(x):
        return x.get()
    if isinstance(x, (np.ndarray, np.generic)) or not hasattr(x, "__dlpack__"):
        return np.asarray(x)
    return np.from_dlpack(x)


def cpu_count() -> int:
    """The number of CPUs this process may run on (its affinity mask where the system has one).

    :func:`~attnlab.attention_blocked` uses this many threads by default; on a shared machine it can be fewer than
    :func:`os.cpu_count`.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from attnlab import cpu_count
    >>> cpu_count() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1
