r"""How far softmax moves when its logits move, and how that error travels to the attention output.

With :math:`f = \mathrm{softmax}` and a logit perturbation :math:`h`:

* the Lipschitz-form bound :math:`\|f(x+h)-f(x)\|_1 \le c\,\|h\|_\infty` (:func:`lipschitz_bound`; the PDA draft
  prints :math:`c = 2`, the best constant is 1, approached as :math:`h\to0` by :func:`lipschitz_instance`);
* the Cohen–Fausti bound :math:`\|f(x+h)-f(x)\|_1 \le 2\tanh(\mathrm{osc}(h)/4)` (:func:`tanh_bound`), with
  :math:`\mathrm{osc}(h) = \max h - \min h` (:func:`oscillation`); it is attained by every two-valued
  :math:`h` whose upper set carries mass :math:`1/(1+e^{\mathrm{osc}/2})` (:func:`tanh_sharp_instance`).
  Since :math:`\mathrm{osc}(h)\le 2\|h\|_\infty` and :math:`2\tanh(t/2)\le t`, it implies the Lipschitz form
  with constant 1;
* the batched ratios of the change to either bound, and with their gradients, for adversarial search with
  :func:`attnlab.sup_ratio` (:func:`lipschitz_ratio`, :func:`tanh_ratio`; :func:`lipschitz_ratio_grad`,
  :func:`tanh_ratio_grad`);
* the chain from logits to output: row :math:`\ell_1` error :math:`\le 2\epsilon`,
  :math:`\|A-\tilde A\|_F \le 2\epsilon\sqrt L`, :math:`\|O-\tilde O\|_F \le 2\epsilon\sqrt L\,\|V\|_F`,
  :math:`\|o_i-\tilde o_i\|_2 \le 2\epsilon\|V\|_F` and their sharper forms (:func:`chain_bounds`), measured
  row block by row block without forming an :math:`L\times L` matrix (:func:`chain_measure`), and the
  instance that keeps every link within a constant of its bound at every :math:`L` (:func:`two_key_instance`).

The book audits these bounds as the PDA draft and the approximation-rank notes state them in chapter 2
(``attnlab.audit.softmax_stability``).

References
----------
- G. Cohen, E. Fausti, a sharp comparison between the Hilbert metric and total variation for softmax
  perturbations (as cited by the approximation-rank notes).
"""
from __future__ import annotations

import math
import numbers
import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from threadpoolctl import threadpool_limits

from ..core._results import former_dict
from ..core._validate import (Array, SeedLike, as_float_array, as_generator, axis_index, finite_real, nonnegative_int,
                              positive_int, positive_real, qkv, renamed)
from ..core.backend import get_array_module, to_numpy
from ..core.logits import softmax

__all__ = [
    "oscillation",
    "tanh_bound",
    "lipschitz_bound",
    "l1_change",
    "L1ChangeGrad",
    "l1_change_grad",
    "lipschitz_ratio",
    "tanh_ratio",
    "RatioGrad",
    "lipschitz_ratio_grad",
    "tanh_ratio_grad",
    "lipschitz_instance",
    "LipschitzInstance",
    "tanh_sharp_instance",
    "TanhSharpInstance",
    "chain_bounds",
    "ChainBounds",
    "chain_measure",
    "ChainMeasure",
    "ChainErrors",
    "two_key_instance",
    "TwoKeyInstance",
]


# --------------------------------------------------------------------------- validation
def _floats(x, name, **kw):
    """A finite real array named ``name`` (the library's policy: float16 is computed in float32)."""
    return as_float_array(x, name, **kw)


def _axis(axis, a, name):
    """Check ``axis`` against the array ``a`` (the caller's ``name``): an integer in range, with entries along it."""
    if a.ndim == 0:
        if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"axis must be an integer, not {type(axis).__name__}")
        raise ValueError(f"{name} must be at least 1-dimensional, got a scalar")
    axis = axis_index(axis, a.ndim, a.shape, name)
    if a.shape[axis] == 0:
        raise ValueError(f"{name} must have at least one entry along axis")
    return axis


def _real(x, name):
    """A finite real number (NumPy scalars included, bool excluded)."""
    return finite_real(x, name)


# --------------------------------------------------------------------------- bounds
def _osc(h, axis):
    return h.max(axis=axis) - h.min(axis=axis)


def oscillation(h: ArrayLike, axis: int = -1) -> Array:
    r"""The oscillation :math:`\mathrm{osc}(h) = \max_j h_j - \min_j h_j` along ``axis``.

    Softmax is invariant under adding a constant to the logits, and the oscillation is the size of a
    perturbation that this invariance leaves: :math:`\mathrm{osc}(h) = 2\min_c\|h-c\|_\infty`.

    Parameters
    ----------
    h : array (NumPy or CuPy), at least 1-D, finite, real
        The perturbation (or any vector); integers are promoted to float64, float16 is computed in float32.
    axis : int, default -1
        The axis along which to take the oscillation; ``h`` must have at least one entry along it.

    Returns
    -------
    array
        ``h``'s shape with ``axis`` removed (a 0-d array for 1-D input), in ``h``'s floating dtype; ``>= 0``.

    Raises
    ------
    TypeError
        If ``h`` is not a real array or ``axis`` is not an integer.
    ValueError
        If ``h`` contains NaN or inf, is a scalar or empty along ``axis``, ``axis`` is out of range, or
        :math:`\max h - \min h` overflows ``h``'s dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import oscillation
    >>> float(oscillation(np.array([0.5, -1.0, 2.0])))
    3.0
    >>> oscillation(np.array([[1.0, 1.0], [0.0, 4.0]]))
    array([0., 4.])
    """
    h = _floats(h, "h")
    axis = _axis(axis, h, "h")
    xp = get_array_module(h)
    with np.errstate(over="ignore"):
        out = _osc(h, axis)
    if not bool(xp.isfinite(out).all()):
        raise ValueError(f"h: max(h) - min(h) overflows {h.dtype}")
    return out


def tanh_bound(h: ArrayLike, axis: int = -1) -> Array:
    r"""The Cohen–Fausti bound :math:`2\tanh(\mathrm{osc}(h)/4)` on the softmax change :math:`\|f(x+h)-f(x)\|_1`.

    Valid for every ``x`` and sharp (:func:`tanh_sharp_instance`); it never exceeds 2, the largest
    :math:`\ell_1` distance between two probability vectors, and it is at most :math:`\mathrm{osc}(h)/2
    \le \|h\|_\infty` (as the approximation-rank notes cite it; chapter 2 of the book).

    Parameters
    ----------
    h : array (NumPy or CuPy), at least 1-D, finite, real
        The logit perturbation; integers are promoted to float64, float16 is computed in float32.
    axis : int, default -1
        The softmax axis; ``h`` must have at least one entry along it.

    Returns
    -------
    array
        ``h``'s shape with ``axis`` removed, values in ``[0, 2]``. An oscillation beyond the dtype's range gives
        the limit 2.

    Raises
    ------
    TypeError
        If ``h`` is not a real array or ``axis`` is not an integer.
    ValueError
        If ``h`` contains NaN or inf, is a scalar or empty along ``axis``, or ``axis`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import tanh_bound
    >>> bool(float(tanh_bound(np.array([0.0, 4.0]))) == 2 * np.tanh(1.0))
    True
    >>> float(tanh_bound(np.array([3.0, 3.0])))                     # a constant shift changes nothing
    0.0
    """
    h = _floats(h, "h")
    axis = _axis(axis, h, "h")
    xp = get_array_module(h)
    with np.errstate(over="ignore"):
        return 2.0 * xp.tanh(_osc(h, axis) / 4.0)  # tanh(inf) = 1: an overflowing oscillation gives the limit 2


def lipschitz_bound(h: ArrayLike, axis: int = -1, const: float = 2.0) -> Array:
    r"""The Lipschitz-form bound :math:`c\,\|h\|_\infty` on :math:`\|\mathrm{softmax}(x+h)-\mathrm{softmax}(x)\|_1`.

    The PDA draft (Lemma 3.4) prints :math:`c = 2`; the bound holds with :math:`c = 1`, the best
    constant (:func:`lipschitz_instance`).

    Parameters
    ----------
    h : array (NumPy or CuPy), at least 1-D, finite, real
        The logit perturbation; integers are promoted to float64, float16 is computed in float32.
    axis : int, default -1
        The softmax axis; ``h`` must have at least one entry along it.
    const : float, default 2.0
        The constant :math:`c`, finite and ``> 0``.

    Returns
    -------
    array
        ``h``'s shape with ``axis`` removed.

    Raises
    ------
    TypeError
        If ``h`` is not a real array, ``axis`` is not an integer or ``const`` is not a real number.
    ValueError
        If ``h`` contains NaN or inf, is a scalar or empty along ``axis``, ``axis`` is out of range,
        ``const`` is not finite and positive, or :math:`c\|h\|_\infty` overflows ``h``'s dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lipschitz_bound
    >>> float(lipschitz_bound(np.array([0.5, -1.5])))
    3.0
    >>> float(lipschitz_bound(np.array([0.5, -1.5]), const=1.0))
    1.5
    """
    h = _floats(h, "h")
    const = positive_real(const, "const")
    axis = _axis(axis, h, "h")
    xp = get_array_module(h)
    with np.errstate(over="ignore"):
        out = const * abs(h).max(axis=axis)
    if not bool(xp.isfinite(out).all()):
        raise ValueError(f"const * max|h| overflows {h.dtype}: reduce const or h")
    return out


def l1_change(x: ArrayLike, h: ArrayLike, axis: int = -1) -> Array:
    r""":math:`\|\mathrm{softmax}(x+h) - \mathrm{softmax}(x)\|_1` along ``axis`` (batched over the other axes).

    Uses :func:`attnlab.softmax`, so logits of any size are safe (the maximum is subtracted first).

    Parameters
    ----------
    x : array (NumPy or CuPy), at least 1-D, finite, real
        The logits.
    h : array, same shape and array type as ``x``, finite, real
        The perturbation; ``x + h`` must be finite in the result dtype.
    axis : int, default -1
        The softmax axis.

    Returns
    -------
    array
        The shape of ``x`` with ``axis`` removed, values in ``[0, 2]``, in the promoted floating dtype of
        ``x`` and ``h`` (float16 is computed in float32).

    Raises
    ------
    TypeError
        If ``x`` or ``h`` is not a real array, or ``axis`` is not an integer.
    ValueError
        If ``x`` or ``h`` contains NaN or inf, their shapes differ, ``axis`` is out of range or has no
        entries, or ``x + h`` overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import l1_change
    >>> x, h = np.array([0.0, 1.0]), np.array([1.0, -1.0])        # softmax swaps its two entries
    >>> bool(np.isclose(l1_change(x, h), 2 * np.tanh(0.5)))
    True
    >>> float(l1_change(np.array([1e4, -1e4]), np.array([-2e4, 2e4])))  # any temperature
    2.0
    """
    x = _floats(x, "x")
    h = _floats(h, "h")
    if x.shape != h.shape:
        raise ValueError(f"x and h must have the same shape, got {x.shape} and {h.shape}")
    if type(x) is not type(h):
        raise TypeError("x and h must be arrays of the same library (both NumPy or both CuPy)")
    axis = _axis(axis, x, "x")
    xp = get_array_module(x)
    with np.errstate(over="ignore"):
        xh = x + h
    if not bool(xp.isfinite(xh).all()):
        raise ValueError(f"x + h overflows {xh.dtype}: the perturbed logits are not finite")
    return abs(softmax(xh, axis) - softmax(x, axis)).sum(axis=axis)


# --------------------------------------------------------------------------- ratios for the searches
def _split(Z):
    L = Z.shape[1] // 2
    return Z[:, :L], Z[:, L:]


def _l1_and_grad(x, h):
    """Row ℓ1 change and its (sub)gradients in x and h, for batches of rows."""
    p = softmax(x, -1)
    q = softmax(x + h, -1)
    s = np.sign(q - p)
    gq = q * (s - (q * s).sum(1, keepdims=True))  # J(q)^T s, J = diag(q) - q q^T
    gp = p * (s - (p * s).sum(1, keepdims=True))
    return np.abs(q - p).sum(1), gq - gp, gq


class L1ChangeGrad(NamedTuple):
    r"""The result of :func:`l1_change_grad`, one entry (or row) per row of ``x``.

    Attributes
    ----------
    change : array (n,)
        :math:`\|\mathrm{softmax}(x+h)-\mathrm{softmax}(x)\|_1` of each row.
    grad_x : array (n, L)
        Its (sub)gradient in x.
    grad_h : array (n, L)
        Its (sub)gradient in h.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import l1_change_grad
    >>> change, grad_x, grad_h = l1_change_grad(np.zeros((1, 2)), np.array([[1.0, 0.0]]))
    >>> round(float(change[0]), 4)
    0.4621
    """
    change: np.ndarray
    grad_x: np.ndarray
    grad_h: np.ndarray


def l1_change_grad(x: ArrayLike, h: ArrayLike) -> L1ChangeGrad:
    r"""Row ℓ1 change :math:`\|\mathrm{softmax}(x+h)-\mathrm{softmax}(x)\|_1` and its (sub)gradients in x and h.

    With :math:`p=\mathrm{softmax}(x)`, :math:`q=\mathrm{softmax}(x+h)` and :math:`s=\operatorname{sign}(q-p)`,
    the gradient in h is :math:`J(q)^\top s` and in x :math:`J(q)^\top s - J(p)^\top s`, with
    :math:`J(p)=\mathrm{diag}(p)-pp^\top`: the objective and gradient of the searches for the worst perturbation
    (:func:`~attnlab.sup_ratio`).

    Parameters
    ----------
    x, h : array_like (n, L)
        Logits and their perturbations, row by row.

    Returns
    -------
    L1ChangeGrad
        ``change`` (n,), ``grad_x`` and ``grad_h`` (n, L), float64.

    Raises
    ------
    TypeError
        Arrays that are not real, or bool arrays.
    ValueError
        NaN or inf, arrays that are not 2-D or of different shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import l1_change, l1_change_grad
    >>> x, h = np.array([[0.0, 1.0, 2.0]]), np.array([[0.5, -0.5, 0.0]])
    >>> r = l1_change_grad(x, h)
    >>> bool(np.isclose(r.change[0], l1_change(x[0], h[0]))), r.grad_x.shape
    (True, (1, 3))
    """
    x = np.asarray(to_numpy(_floats(x, "x", ndim=2)), dtype=float)
    h = np.asarray(to_numpy(_floats(h, "h", ndim=2)), dtype=float)
    if x.shape != h.shape:
        raise ValueError(f"h must have the shape of x {x.shape}, got {h.shape}")
    return L1ChangeGrad(*_l1_and_grad(x, h))


def _ratio_input(Z):
    Z = np.asarray(to_numpy(_floats(Z, "Z", ndim=2)))
    if Z.shape[1] < 2 or Z.shape[1] % 2:
        raise ValueError(f"Z must have an even number >= 2 of columns [x, h], got shape {Z.shape}")
    x, h = _split(Z)
    with np.errstate(over="ignore"):
        finite = np.isfinite(x + h).all()
    if not finite:
        raise ValueError("Z: x + h overflows (the perturbed logits are not finite)")
    return Z


def _grad_flag(grad, name: str, instead: str) -> bool:
    """The deprecated ``grad`` flag of :func:`lipschitz_ratio` and :func:`tanh_ratio`: checked, and warned about."""
    if not isinstance(grad, (bool, np.bool_)):
        raise TypeError(f"grad must be True or False, not {type(grad).__name__}")
    if grad:
        warnings.warn(f"{name}(Z, grad=True) is deprecated: use {instead}(Z), which returns a RatioGrad "
                      f"(.ratio, .grad)", DeprecationWarning, stacklevel=3)
    return bool(grad)


class RatioGrad(NamedTuple):
    r"""A batched ratio and its gradient: the result of :func:`lipschitz_ratio_grad` and :func:`tanh_ratio_grad`.

    Attributes
    ----------
    ratio : numpy.ndarray, shape (n,)
        The ratio of each row of ``Z``.
    grad : numpy.ndarray, shape (n, 2L)
        Its gradient in the row (a subgradient where the ratio is not differentiable).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lipschitz_ratio_grad
    >>> ratio, grad = lipschitz_ratio_grad(np.array([[0.0, 1.0, 0.5, -0.5]]))
    >>> ratio.shape, grad.shape
    ((1,), (1, 4))
    """

    ratio: np.ndarray
    grad: np.ndarray


def _lipschitz(Z, grad: bool):
    x, h = _split(Z)
    num, gx, gh = _l1_and_grad(x, h)
    k = np.abs(h).argmax(1)
    den = np.abs(h)[np.arange(len(h)), k]
    safe = np.where(den > 0, den, 1.0)
    r = np.where(den > 0, num / safe, 0.0)
    if not grad:
        return r
    Gh = gh / safe[:, None]
    Gh[np.arange(len(h)), k] -= r / safe * np.sign(h[np.arange(len(h)), k])
    return RatioGrad(r, np.concatenate([gx / safe[:, None], Gh], 1))


def _tanh(Z, grad: bool):
    x, h = _split(Z)
    num, gx, gh = _l1_and_grad(x, h)
    i, j = h.argmax(1), h.argmin(1)
    rows = np.arange(len(h))
    w = h[rows, i] - h[rows, j]
    den = 2 * np.tanh(w / 4)
    safe = np.where(den > 0, den, 1.0)
    r = np.where(den > 0, num / safe, 0.0)
    if not grad:
        return r
    dden = 0.5 / np.cosh(w / 4) ** 2
    Gh = gh / safe[:, None]
    Gh[rows, i] -= r / safe * dden
    Gh[rows, j] += r / safe * dden
    return RatioGrad(r, np.concatenate([gx / safe[:, None], Gh], 1))


_Z_PARAMETER = """Z : array_like, shape (n, 2L), finite, real
        Each row holds logits :math:`x` (first ``L`` entries) and a perturbation :math:`h` (last ``L``).
        Computed with NumPy (other array types are copied to NumPy); float16 is computed in float32."""


def lipschitz_ratio(Z: ArrayLike, grad: bool = False) -> np.ndarray:
    r"""Batched ratio :math:`\|f(x+h)-f(x)\|_1/\|h\|_\infty` (:math:`f` = softmax) for rows ``Z = [x, h]``.

    The objective of an adversarial search for the best constant of the Lipschitz form:
    every value is at most 1 (the best constant), and :func:`lipschitz_instance` approaches 1. Its gradient is
    :func:`lipschitz_ratio_grad`.

    Parameters
    ----------
    {Z}
    grad : bool, default False
        Deprecated: ``grad=True`` warns and returns :func:`lipschitz_ratio_grad`'s :class:`RatioGrad` (which unpacks
        as the former pair ``ratio, gradient``); call that function instead.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The ratio of each row; rows with :math:`h = 0` give 0.

    Raises
    ------
    TypeError
        If ``Z`` is not a real array or ``grad`` is not a bool.
    ValueError
        If ``Z`` is not 2-D with an even number >= 2 of columns, contains NaN or inf, or ``x + h`` overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lipschitz_ratio
    >>> t = 1e-3
    >>> bool(np.isclose(lipschitz_ratio(np.array([[0.0, t, t, -t]]))[0], 2 * np.tanh(t / 2) / t))
    True
    """
    grad = _grad_flag(grad, "lipschitz_ratio", "lipschitz_ratio_grad")
    return _lipschitz(_ratio_input(Z), grad)


def lipschitz_ratio_grad(Z: ArrayLike) -> RatioGrad:
    r""":func:`lipschitz_ratio` and its gradient in each row ``Z = [x, h]``, for :func:`attnlab.sup_ratio`'s ``grad``.

    A subgradient where the ℓ1 norm or the max is not differentiable.

    Parameters
    ----------
    {Z}

    Returns
    -------
    RatioGrad
        ``ratio`` (n,), as :func:`lipschitz_ratio` returns it, and ``grad`` (n, 2L).

    Raises
    ------
    TypeError
        If ``Z`` is not a real array.
    ValueError
        If ``Z`` is not 2-D with an even number >= 2 of columns, contains NaN or inf, or ``x + h`` overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import lipschitz_ratio, lipschitz_ratio_grad
    >>> Z = np.array([[0.0, 1.0, 0.5, -0.5]])
    >>> res = lipschitz_ratio_grad(Z)
    >>> bool(np.array_equal(res.ratio, lipschitz_ratio(Z))), res.grad.shape
    (True, (1, 4))
    """
    return _lipschitz(_ratio_input(Z), True)


def tanh_ratio(Z: ArrayLike, grad: bool = False) -> np.ndarray:
    r"""Batched ratio :math:`\|f(x+h)-f(x)\|_1 / (2\tanh(\mathrm{osc}(h)/4))` for rows ``Z = [x, h]``.

    The objective of an adversarial search for a violation of the Cohen–Fausti bound: every
    value is at most 1, and :func:`tanh_sharp_instance` attains 1. Its gradient is :func:`tanh_ratio_grad`.

    Parameters
    ----------
    {Z}
    grad : bool, default False
        Deprecated: ``grad=True`` warns and returns :func:`tanh_ratio_grad`'s :class:`RatioGrad` (which unpacks as
        the former pair ``ratio, gradient``); call that function instead.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The ratio of each row; rows with :math:`\mathrm{osc}(h) = 0` give 0.

    Raises
    ------
    TypeError
        If ``Z`` is not a real array or ``grad`` is not a bool.
    ValueError
        If ``Z`` is not 2-D with an even number >= 2 of columns, contains NaN or inf, or ``x + h`` overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import tanh_ratio, tanh_sharp_instance
    >>> x, h = tanh_sharp_instance(5, 3.0)
    >>> bool(abs(tanh_ratio(np.concatenate([x, h])[None])[0] - 1) < 1e-12)
    True
    """
    grad = _grad_flag(grad, "tanh_ratio", "tanh_ratio_grad")
    return _tanh(_ratio_input(Z), grad)


def tanh_ratio_grad(Z: ArrayLike) -> RatioGrad:
    r""":func:`tanh_ratio` and its gradient in each row ``Z = [x, h]``, for :func:`attnlab.sup_ratio`'s ``grad``.

    A subgradient where the ratio is not differentiable.

    Parameters
    ----------
    {Z}

    Returns
    -------
    RatioGrad
        ``ratio`` (n,), as :func:`tanh_ratio` returns it, and ``grad`` (n, 2L).

    Raises
    ------
    TypeError
        If ``Z`` is not a real array.
    ValueError
        If ``Z`` is not 2-D with an even number >= 2 of columns, contains NaN or inf, or ``x + h`` overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import tanh_ratio_grad
    >>> res = tanh_ratio_grad(np.array([[0.0, 1.0, 0.5, -0.5]]))
    >>> res.ratio.shape, res.grad.shape
    ((1,), (1, 4))
    """
    return _tanh(_ratio_input(Z), True)


for _f in (lipschitz_ratio, lipschitz_ratio_grad, tanh_ratio, tanh_ratio_grad):
    _f.__doc__ = _f.__doc__.replace("{Z}", _Z_PARAMETER)
del _f


# --------------------------------------------------------------------------- analytic instances
class LipschitzInstance(NamedTuple):
    r"""The result of :func:`lipschitz_instance`: logits, their perturbation and the ratio they reach.

    Attributes
    ----------
    x : numpy.ndarray, shape (2,)
        The logits :math:`(0, t)`.
    h : numpy.ndarray, shape (2,)
        The perturbation :math:`(t, -t)`.
    ratio : float
        :math:`\|f(x+h)-f(x)\|_1/\|h\|_\infty`.

    Examples
    --------
    >>> from attnlab import lipschitz_instance
    >>> x, h, ratio = lipschitz_instance(0.5)
    >>> x.tolist(), h.tolist()
    ([0.0, 0.5], [0.5, -0.5])
    """

    x: np.ndarray
    h: np.ndarray
    ratio: float


def lipschitz_instance(t: float) -> LipschitzInstance:
    r"""The instance :math:`x = (0, t)`, :math:`h = (t, -t)`: softmax swaps its entries, ratio :math:`2\tanh(t/2)/t`.

    It shows that the best constant of the Lipschitz form :math:`\|f(x+h)-f(x)\|_1 \le c\|h\|_\infty` is 1
    (the PDA draft prints 2): the ratio tends to 1 as :math:`t \to 0`.

    Parameters
    ----------
    t : float
        The perturbation size, finite and ``> 0``.

    Returns
    -------
    LipschitzInstance
        ``x`` and ``h`` (shape (2,), float64): the logits and the perturbation; ``ratio``:
        :math:`\|f(x+h)-f(x)\|_1/\|h\|_\infty`, computed (equal to the closed form up to rounding).

    Raises
    ------
    TypeError
        If ``t`` is not a real number.
    ValueError
        If ``t`` is not finite and positive.

    Examples
    --------
    >>> from attnlab import lipschitz_instance
    >>> round(lipschitz_instance(1e-2).ratio, 6)
    0.999992
    """
    t = positive_real(t, "t")
    x, h = np.array([0.0, t]), np.array([t, -t])
    return LipschitzInstance(x, h, float(l1_change(x, h) / np.abs(h).max()))


class TanhSharpInstance(NamedTuple):
    r"""The result of :func:`tanh_sharp_instance`: logits and a perturbation that attain the tanh bound.

    Attributes
    ----------
    x : numpy.ndarray, shape (L,)
        The logits.
    h : numpy.ndarray, shape (L,)
        The perturbation, ``w`` on the first key and 0 elsewhere.

    Examples
    --------
    >>> from attnlab import tanh_sharp_instance
    >>> x, h = tanh_sharp_instance(3, 2.0)
    >>> h.tolist()
    [2.0, 0.0, 0.0]
    """

    x: np.ndarray
    h: np.ndarray


def tanh_sharp_instance(L: int, w: float) -> TanhSharpInstance:
    r"""An instance of length ``L`` where the tanh bound holds with equality, for oscillation ``w``.

    :math:`h = w` on the first key and 0 elsewhere; :math:`x` gives the first key the mass
    :math:`p^\star = 1/(1+e^{w/2})` and spreads the rest evenly. Then
    :math:`\|f(x+h)-f(x)\|_1 = 2\tanh(w/4)`. For ``L = 1`` both sides are 0.

    Parameters
    ----------
    L : int
        The length, ``>= 1``.
    w : float
        The oscillation of :math:`h`, finite and ``> 0`` (any size: for huge ``w`` the logit of the first key
        is computed in log space).

    Returns
    -------
    TanhSharpInstance
        ``x`` and ``h``, shape (L,), float64: the logits and the perturbation (it unpacks as ``x, h``).

    Raises
    ------
    TypeError
        If ``L`` is not an integer or ``w`` is not a real number.
    ValueError
        If ``L < 1`` or ``w`` is not finite and positive.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import l1_change, tanh_bound, tanh_sharp_instance
    >>> x, h = tanh_sharp_instance(2, 2.0)
    >>> bool(np.isclose(l1_change(x, h), tanh_bound(h)))
    True
    """
    L = positive_int(L, "L")
    w = positive_real(w, "w")
    h = np.zeros(L)
    h[0] = w
    if L == 1:
        return TanhSharpInstance(np.zeros(1), h)
    if w / 2 <= 700.0:
        p = 1.0 / (1.0 + math.exp(w / 2))
        x = np.full(L, math.log((1 - p) / (L - 1)))
        x[0] = math.log(p)
    else:  # e^(w/2) would overflow: log p = -w/2 - log1p(e^(-w/2)), and 1 - p = 1 in float64
        x = np.full(L, math.log(1.0 / (L - 1)))
        x[0] = -w / 2 - math.log1p(math.exp(-w / 2))
    return TanhSharpInstance(x, h)


# --------------------------------------------------------------------------- the chain
@former_dict
class ChainBounds(NamedTuple):
    r"""The bounds of the error chain, printed and sharp: the result of :func:`chain_bounds` (formerly a dict).

    Attributes
    ----------
    row_l1 : float
        Printed: :math:`2\epsilon`, the row :math:`\ell_1` change.
    A_fro : float
        Printed: :math:`2\epsilon\sqrt L`, for :math:`\|A-\tilde A\|_F`.
    O_fro : float
        Printed: :math:`2\epsilon\sqrt L\|V\|_F`, for :math:`\|O-\tilde O\|_F`.
    row_out : float
        Printed: :math:`2\epsilon\|V\|_F`, for :math:`\max_i\|o_i-\tilde o_i\|_2`.
    sharp_row_l1, sharp_A_fro, sharp_row_out, sharp_O_fro : float
        The sharp forms of the same four links.
    V_fro : float
        :math:`\|V\|_F`.
    V_spec : float
        :math:`\|V\|_2`, the spectral norm.
    V_rho : float
        :math:`\rho_V = \max_j\|v_j-\bar v\|_2`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import chain_bounds
    >>> b = chain_bounds(0.1, 4, np.eye(2))
    >>> b.row_l1, b.A_fro
    (0.2, 0.4)
    """

    row_l1: float
    A_fro: float
    O_fro: float
    row_out: float
    sharp_row_l1: float
    sharp_A_fro: float
    sharp_row_out: float
    sharp_O_fro: float
    V_fro: float
    V_spec: float
    V_rho: float


def chain_bounds(eps: float, L: int, V: ArrayLike) -> ChainBounds:
    r"""The printed bounds of the PDA draft's error chain and their sharper forms, for logit error ``eps``.

    For ``L`` query rows and values ``V``.

    Printed (the PDA draft, Thms 3.5–3.7): row :math:`\ell_1` :math:`2\epsilon`;
    :math:`\|A-\tilde A\|_F \le 2\epsilon\sqrt L`; :math:`\|O-\tilde O\|_F\le 2\epsilon\sqrt L\|V\|_F`;
    :math:`\|o_i-\tilde o_i\|_2\le 2\epsilon\|V\|_F`.
    Sharp: row :math:`\ell_1` :math:`2\tanh(\epsilon/2)` (tanh bound, :math:`\mathrm{osc}\le2\epsilon`);
    :math:`\|A-\tilde A\|_F\le\sqrt{2L}\tanh(\epsilon/2)` (a zero-sum row has :math:`\|d\|_2\le\|d\|_1/\sqrt2`);
    per row :math:`\|o_i-\tilde o_i\|_2 \le 2\tanh(\epsilon/2)\,\rho_V` with
    :math:`\rho_V = \max_j\|v_j-\bar v\|_2` (rows sum to zero, so only the spread of the values counts), and
    :math:`\|O-\tilde O\|_F \le \sqrt L\cdot` that; and :math:`\|O-\tilde O\|_F \le \|A-\tilde A\|_F\|V\|_2`.

    Parameters
    ----------
    eps : float
        The logit error :math:`\max_{ij}|E_{ij}|`, finite and ``> 0``.
    L : int
        The number of query rows of :math:`A`, ``>= 1``.
    V : array (NumPy or CuPy), shape (L_k, d_v), finite, real
        The values, with at least one row and one column; float16 is computed in float32.

    Returns
    -------
    ChainBounds
        Floats: ``row_l1``, ``A_fro``, ``O_fro``, ``row_out`` (printed); ``sharp_row_l1``, ``sharp_A_fro``,
        ``sharp_O_fro``, ``sharp_row_out`` (sharp); ``V_fro``, ``V_spec`` (spectral norm), ``V_rho``
        (:math:`\rho_V`).

    Raises
    ------
    TypeError
        If ``eps`` is not a real number, ``L`` not an integer or ``V`` not a real array.
    ValueError
        If ``eps`` is not finite and positive, ``L < 1``, ``V`` is not 2-D, is empty or contains NaN or inf,
        or a bound overflows float64.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import chain_bounds
    >>> b = chain_bounds(0.1, 100, np.ones((100, 2)))
    >>> b.A_fro, round(b.O_fro, 6), b.sharp_row_out          # constant values: no output error
    (2.0, 28.284271, 0.0)
    """
    eps = positive_real(eps, "eps")
    L = positive_int(L, "L")
    V = _floats(V, "V", ndim=2)
    if 0 in V.shape:
        raise ValueError(f"V must have at least one row and one column, got shape {tuple(V.shape)}")
    xp = get_array_module(V)
    with np.errstate(over="ignore"):
        vf = float(xp.linalg.norm(V))
        rho = float(xp.sqrt(((V - V.mean(0)) ** 2).sum(1)).max())
        v_spec = _spectral_norm(V, xp) if math.isfinite(vf) else math.inf
    th = math.tanh(eps / 2)
    out = ChainBounds(row_l1=2 * eps, A_fro=2 * eps * math.sqrt(L), O_fro=2 * eps * math.sqrt(L) * vf,
                      row_out=2 * eps * vf, sharp_row_l1=2 * th, sharp_A_fro=math.sqrt(2 * L) * th,
                      sharp_row_out=2 * th * rho, sharp_O_fro=math.sqrt(L) * 2 * th * rho,
                      V_fro=vf, V_spec=v_spec, V_rho=rho)
    if not all(math.isfinite(v) for v in out):
        raise ValueError("chain_bounds overflows float64: reduce eps or the scale of V")
    return out


def _spectral_norm(V, xp):
    """Largest singular value of V from the eigenvalues of its smaller Gram matrix (a d × d problem for an L × d V,
    much cheaper than an SVD; relative error ~1e-16); the SVD where the Gram matrix overflows (‖V‖_F² within
    rounding of the largest float)."""
    with np.errstate(over="ignore", invalid="ignore"):
        G = V.T @ V if V.shape[0] >= V.shape[1] else V @ V.T
    if not bool(xp.isfinite(G).all()):
        return float(xp.linalg.norm(V, 2))
    return math.sqrt(max(float(xp.linalg.eigvalsh(G)[-1]), 0.0))


def _adversarial_rows(A, eps):
    r"""Per row, a set of keys whose mass is closest to :math:`p^\star = 1/(1+e^\epsilon)`, as a boolean mask.

    Putting :math:`+\epsilon` on the set and :math:`-\epsilon` off it is the two-valued perturbation that
    maximises the row's ℓ1 change among the sets tried: prefixes in key order, the largest key alone,
    and everything but the largest key."""
    xp = get_array_module(A)
    target = 1.0 / (1.0 + math.exp(min(eps, 700.0)))
    c = xp.cumsum(A, axis=1)
    if xp is np:  # a row of c never decreases (sums of entries >= 0), so a binary search counts its entries < target
        below = np.array([np.searchsorted(row, target) for row in c])
    else:
        below = (c < target).sum(1)
    k = xp.minimum(below, A.shape[1] - 1)  # first prefix reaching the target
    rows = xp.arange(A.shape[0])
    cand_hi = c[rows, k]
    cand_lo = xp.where(k > 0, c[rows, xp.maximum(k - 1, 0)], 0.0)
    use_hi = xp.abs(cand_hi - target) <= xp.abs(cand_lo - target)
    cut = xp.where(use_hi, k + 1, k)  # prefix length
    mass = xp.where(use_hi, cand_hi, cand_lo)
    top = A.argmax(1)
    mtop = A[rows, top]
    alone = xp.abs(mtop - target) < xp.abs(mass - target)
    mass2 = xp.where(alone, mtop, mass)
    rest = xp.abs(1 - mtop - target) < xp.abs(mass2 - target)
    j = xp.arange(A.shape[1])[None, :]
    inset = j < cut[:, None]
    a = xp.nonzero(alone & ~rest)[0]  # few rows: patch them instead of rewriting the whole block
    inset[a] = j == top[a, None]
    r = xp.nonzero(rest)[0]
    inset[r] = j != top[r, None]
    return inset


PERTURBATIONS = ("random", "adversarial")

#: Up to this ε the perturbed weights are the unperturbed ones times e^(±ε) (one exponential per block); the
#: weights that underflowed cannot matter there (e^(2ε) times the smallest float32 normal is below its rounding).
#: Beyond it the perturbed logits are exponentiated afresh.
_ONE_EXP_MAX_EPS = 20.0


def _chain_block(Qb, K, V, beta, i0, eps, bias, seed_key, out, b):
    """Both perturbations for the rows i0 : i0 + len(Qb); e^(S+E) = e^S·e^(±ε), so one exponential per block."""
    xp = get_array_module(Qb)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, naming the arguments
        S = Qb @ K.T
        S *= beta
    if bias is not None:
        B = bias(i0, Qb.shape[0], K.shape[0], xp)
        if tuple(getattr(B, "shape", ())) != tuple(S.shape):
            raise ValueError(f"bias must return an array of shape (n, L_k) = {tuple(S.shape)}, "
                             f"got {getattr(B, 'shape', type(B).__name__)}")
        S += B
    m = S.max(1, keepdims=True)
    if not bool(xp.isfinite(m).all()):
        raise ValueError(f"the scores beta * Q K^T (+ bias) of rows {i0}–{i0 + Qb.shape[0] - 1} are not finite "
                         f"(overflow in {S.dtype}, or a NaN or +inf bias): reduce beta or the scale of Q and K")
    logits = S.copy() if eps > _ONE_EXP_MAX_EPS else None
    S -= m
    xp.exp(S, out=S)
    A = S / S.sum(1, keepdims=True)
    # the factor (or the logit shift) off and on the set: looked up by the random bits (a where branches on them),
    # chosen by a where on the adversarial set (a run of keys: no branch mispredicted); float64, as S * where(...)
    off, on = (math.exp(-eps), math.exp(eps)) if logits is None else (-eps, eps)
    off_on = xp.asarray([off, on])
    res = {}
    for pert in PERTURBATIONS:
        if pert == "random":
            rng = np.random.default_rng(seed_key)
            bits = np.unpackbits(np.frombuffer(rng.bytes((S.size + 7) // 8), np.uint8), count=S.size)
            F = off_on[xp.asarray(bits.reshape(S.shape))]
        else:
            F = xp.where(_adversarial_rows(A, eps), on, off)
        if logits is None:
            W = F
            W *= S
        else:
            W = logits + F
            W -= W.max(1, keepdims=True)
            W = xp.exp(W)
        W /= W.sum(1, keepdims=True)
        W -= A  # Ã - A
        DO = W @ V
        w = W.reshape(-1)
        fro2 = float(w @ w)
        xp.abs(W, out=W)
        res[pert] = (float(W.sum(1).max()), fro2, float((DO * DO).sum()), float(xp.sqrt((DO * DO).sum(1)).max()))
    out[b] = res


@former_dict
class ChainErrors(NamedTuple):
    r"""The measured error of each link of the chain, for one perturbation (formerly a dict).

    One field of :class:`ChainMeasure` (:func:`chain_measure`), and the ``errors`` of :func:`two_key_instance`;
    compare with :class:`ChainBounds`.

    Attributes
    ----------
    row_l1 : float
        The largest row :math:`\ell_1` change :math:`\max_i\|a_i-\tilde a_i\|_1`.
    A_fro : float
        :math:`\|A-\tilde A\|_F`.
    O_fro : float
        :math:`\|(A-\tilde A)V\|_F`.
    row_out : float
        :math:`\max_i\|o_i-\tilde o_i\|_2`.
    E_max : float
        The logit error :math:`\|E\|_{\max} = \epsilon`.

    Examples
    --------
    >>> from attnlab import two_key_instance
    >>> errors, V = two_key_instance(16, 0.1)
    >>> errors.E_max
    0.1
    """

    row_l1: float
    A_fro: float
    O_fro: float
    row_out: float
    E_max: float


@former_dict
class ChainMeasure(NamedTuple):
    r"""The result of :func:`chain_measure` (formerly a dict with the keys ``"random"`` and ``"adversarial"``).

    Attributes
    ----------
    random : ChainErrors
        The errors under independent signs :math:`E_{ij} = \pm\epsilon`.
    adversarial : ChainErrors
        The errors under the row-wise (nearly) worst two-valued perturbation.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import chain_measure
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((8, 2)) for _ in range(3))
    >>> m = chain_measure(Q, K, V, 0.1, beta=1.0, rng=0)
    >>> m._fields, bool(m.adversarial.row_l1 >= m.random.row_l1)
    (('random', 'adversarial'), True)
    """

    random: ChainErrors
    adversarial: ChainErrors


@renamed(seed="rng")
def chain_measure(Q: ArrayLike, K: ArrayLike, V: ArrayLike, eps: float, *, beta: float,
                  bias: Callable | None = None, rng: SeedLike = None, block: int = 64,
                  threads: int | None = None) -> ChainMeasure:
    r"""Measure each link of the error chain for :math:`A=\mathrm{rowsoftmax}(\beta QK^\top + B)` and logits moved by E.

    :math:`\tilde A` is :math:`A` with its logits moved by :math:`E`.

    Two perturbations with :math:`\|E\|_{\max} = \epsilon` are measured in the same pass: ``"random"``,
    independent signs :math:`E_{ij}=\pm\epsilon` (a generator seeded by ``[s, L_q, b]`` for row block
    ``b``, ``s`` the integer ``rng`` or a draw from it),
    and ``"adversarial"``, on every row the two-valued perturbation that (nearly) maximises that row's
    :math:`\ell_1` change (the keys whose mass is closest to :math:`1/(1+e^\epsilon)` get :math:`+\epsilon`).
    Rows are processed ``block`` at a time (memory O(block·L_k); no :math:`L_q\times L_k` matrix is formed),
    in ``threads`` worker threads on NumPy. Compare the results with :func:`chain_bounds`.

    Parameters
    ----------
    Q : array (NumPy or CuPy), shape (L_q, d), finite, real
        Queries. float16 inputs are computed in float32.
    K : array, shape (L_k, d), same array type as ``Q``
        Keys.
    V : array, shape (L_k, d_v), same array type as ``Q``
        Values.
    eps : float
        The logit error :math:`\epsilon`, finite and ``> 0`` (any size).
    beta : float
        The inverse temperature, a finite real number (keyword-only).
    bias : callable or None, optional
        ``bias(i0, n, L_k, xp)`` returns the additive logits :math:`B` of rows ``i0 : i0 + n``, an array of
        shape ``(n, L_k)`` of the inputs' array type (positional terms, sinks). ``-inf`` entries mask keys;
        every row must keep a finite score.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of the random perturbation (SciPy's SPEC 7): an integer ``s >= 0`` seeds row block ``b`` with
        ``[s, L_q, b]``; anything else gives a generator that draws ``s``. ``seed`` is a deprecated spelling.
    block : int, default 64
        Rows per block, ``>= 1``.
    threads : int or None, default None
        Worker threads on NumPy (None: the CPUs this process may use), ``>= 1``.

    Returns
    -------
    ChainMeasure
        ``random`` and ``adversarial``, each a :class:`ChainErrors` of floats: ``row_l1`` (max over rows of the
        :math:`\ell_1` change), ``A_fro`` (:math:`\|A-\tilde A\|_F`), ``O_fro`` (:math:`\|(A-\tilde A)V\|_F`),
        ``row_out`` (max over rows of :math:`\|o_i-\tilde o_i\|_2`) and ``E_max`` (:math:`= \epsilon`).

    Raises
    ------
    TypeError
        If ``Q``, ``K`` or ``V`` is not a real array (or they mix array libraries), ``beta`` is not a real number,
        ``bias`` is not callable, or ``rng`` is not a seed or generator, or ``block`` or ``threads`` is not an integer.
    ValueError
        If the shapes of ``Q``, ``K``, ``V`` do not fit or are empty, an input contains NaN or inf, ``eps`` is
        not finite and positive, ``beta`` is not finite, ``rng < 0``, ``block < 1``, ``threads < 1``,
        ``bias`` returns the wrong shape, or a row's scores :math:`\beta QK^\top + B` overflow.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import chain_bounds, chain_measure
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((50, 4)) for _ in range(3))
    >>> m = chain_measure(Q, K, V, 0.1, beta=0.5, block=16)
    >>> b = chain_bounds(0.1, 50, V)
    >>> all(e.row_l1 <= b.sharp_row_l1 and e.A_fro <= b.sharp_A_fro for e in m)
    True
    """
    Q, K, V = qkv(Q, K, V)
    Q, K, V = (a.astype(np.float32) if a.dtype == np.float16 else a for a in (Q, K, V))
    eps = positive_real(eps, "eps")
    beta = _real(beta, "beta")
    block = positive_int(block, "block")
    if bias is not None and not callable(bias):
        raise TypeError(f"bias must be callable or None, not {type(bias).__name__}")
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        seed = nonnegative_int(rng, "rng")
    else:
        seed = int(as_generator(rng).integers(2**63))
    if threads is not None:
        threads = positive_int(threads, "threads")
    xp = get_array_module(Q)
    starts = list(range(0, Q.shape[0], block))
    out = [None] * len(starts)

    def work(b):
        i0 = starts[b]
        _chain_block(Q[i0:i0 + block], K, V, beta, i0, eps, bias, [seed, Q.shape[0], b], out, b)

    if xp is np and len(starts) > 1:
        nthreads = threads or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
        with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(nthreads) as pool:
            list(pool.map(work, range(len(starts))))
    else:
        for b in range(len(starts)):
            work(b)
    result = {}
    for pert in PERTURBATIONS:
        o = np.array([r[pert] for r in out])
        result[pert] = ChainErrors(row_l1=float(o[:, 0].max()), A_fro=float(math.sqrt(o[:, 1].sum())),
                                   O_fro=float(math.sqrt(o[:, 2].sum())), row_out=float(o[:, 3].max()), E_max=eps)
    return ChainMeasure(**result)


class TwoKeyInstance(NamedTuple):
    r"""The result of :func:`two_key_instance`: the chain's errors on the instance, and its values.

    Attributes
    ----------
    errors : ChainErrors
        ``row_l1``, ``A_fro``, ``O_fro``, ``row_out``, ``E_max``, as one field of :func:`chain_measure`.
    V : numpy.ndarray, shape (L, 2)
        The values (for :func:`chain_bounds`).

    Examples
    --------
    >>> from attnlab import two_key_instance
    >>> errors, V = two_key_instance(8, 0.1)
    >>> V.shape, errors.E_max
    ((8, 2), 0.1)
    """

    errors: ChainErrors
    V: np.ndarray


def two_key_instance(L: int, eps: float) -> TwoKeyInstance:
    r"""The instance that keeps every link of the chain within a constant of its bound, at every ``L``.

    Every query sees two keys, 0 and 1, with logits :math:`0` and :math:`\epsilon` (all other keys
    :math:`-10^4`, weight :math:`e^{-10^4} = 0` in float64), and the perturbation :math:`(+\epsilon, -\epsilon)`
    swaps their weights; :math:`V` has the single nonzero row :math:`v_0 = e_1`. (Realisable as
    :math:`QK^\top/\sqrt d`: equal queries, two close keys, the rest far.) All rows are equal, so one row is
    computed and the Frobenius norms are :math:`\sqrt L` times its norms: :math:`\|A-\tilde A\|_F =
    \sqrt{2L}\tanh(\epsilon/2)`, which shows the :math:`\sqrt L` of the chain cannot be dropped.

    Parameters
    ----------
    L : int
        The length (queries = keys), ``>= 2``.
    eps : float
        The logit error, finite and ``> 0``.

    Returns
    -------
    TwoKeyInstance
        ``errors``, a :class:`ChainErrors` as one field of :func:`chain_measure` (``row_l1``, ``A_fro``, ``O_fro``,
        ``row_out``, ``E_max``), and ``V`` (L, 2), the values (for :func:`chain_bounds`).

    Raises
    ------
    TypeError
        If ``L`` is not an integer or ``eps`` not a real number.
    ValueError
        If ``L < 2`` or ``eps`` is not finite and positive.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import two_key_instance
    >>> inst = two_key_instance(64, 0.1)
    >>> bool(np.isclose(inst.errors.A_fro, np.sqrt(2 * 64) * np.tanh(0.05)))
    True
    """
    L = positive_int(L, "L")
    eps = positive_real(eps, "eps")
    if L < 2:
        raise ValueError(f"L must be >= 2 for the two-key instance, got {L}")
    x = np.full(L, -1e4)
    x[0], x[1] = 0.0, eps
    h = np.zeros(L)
    h[0], h[1] = eps, -eps
    d = softmax(x + h) - softmax(x)
    V = np.zeros((L, 2))
    V[0, 0] = 1.0
    o = d @ V
    errors = ChainErrors(row_l1=float(np.abs(d).sum()), A_fro=float(math.sqrt(L) * np.linalg.norm(d)),
                         O_fro=float(math.sqrt(L) * np.linalg.norm(o)), row_out=float(np.linalg.norm(o)),
                         E_max=float(np.abs(h).max()))
    return TwoKeyInstance(errors, V)
