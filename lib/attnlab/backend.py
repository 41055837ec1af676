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

__all__ = ["get_array_module", "default_backend", "default_xp", "make_rng", "to_numpy", "is_cupy"]


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

    ``ATTNLAB_BACKEND=numpy|cupy|auto`` overrides; ``cupy`` without a usable
    GPU raises ``RuntimeError`` rather than silently falling back.

    Examples
    --------
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
    """The array module of the default backend (``numpy`` or ``cupy``)."""
    return _cupy() if default_backend() == "cupy" else np


def is_cupy(x) -> bool:
    """True when ``x`` is a CuPy array (without importing CuPy needlessly)."""
    return type(x).__module__.split(".")[0] == "cupy"


def get_array_module(*arrays) -> types.ModuleType:
    """The array module (``numpy`` or ``cupy``) of the given arrays.

    Any CuPy array among the arguments selects CuPy; otherwise NumPy.

    Examples
    --------
    >>> import numpy as np
    >>> get_array_module(np.ones(3)) is np
    True
    """
    for a in arrays:
        if is_cupy(a):
            import cupy  # noqa: PLC0415

            return cupy
    return np


def make_rng(seed: int, xp: types.ModuleType | None = None):
    """A seeded random generator of the default (or given) backend.

    Returns ``numpy.random.Generator`` (PCG64) for NumPy and
    ``cupy.random.Generator`` for CuPy. Draws differ between backends, so a
    figure records the backend in its provenance.

    Examples
    --------
    >>> make_rng(0, np).standard_normal(2).shape
    (2,)
    """
    xp = default_xp() if xp is None else xp
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
    if xp is np:
        return np.random.default_rng(int(seed))
    return xp.random.default_rng(int(seed))


def rng_module(rng) -> types.ModuleType:
    """The array module whose arrays ``rng`` draws (NumPy or CuPy)."""
    if isinstance(rng, np.random.Generator):
        return np
    if type(rng).__module__.split(".")[0] == "cupy":
        import cupy  # noqa: PLC0415

        return cupy
    raise TypeError(
        f"rng must be a numpy.random.Generator or cupy.random.Generator, not {type(rng).__name__}"
    )


def to_numpy(x):
    """A NumPy copy of ``x`` (a no-op for NumPy arrays and scalars)."""
    if is_cupy(x):
        return x.get()
    return np.asarray(x)
