"""Softmax and log-sum-exp, stable at any temperature.

Both shift by the maximum along ``axis`` before exponentiating, so logits of
any magnitude (±1e4 in float32 included) give finite, accurate results, and
entries equal to ``-inf`` (masked positions) get weight exactly zero as long
as one entry of each slice is finite.
"""
from __future__ import annotations

from ._validate import as_float_array
from .backend import get_array_module

__all__ = ["softmax", "logsumexp"]


def _checked(x, axis):
    x = as_float_array(x, "x", allow_neg_inf=True)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {tuple(x.shape)}")
    if x.shape[axis] == 0:
        raise ValueError("x must have at least one entry along axis")
    xp = get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    if x.size and bool(xp.isneginf(m).any()):
        raise ValueError("x has a slice along axis whose entries are all -inf")
    return xp, x, m


def softmax(x, axis: int = -1):
    r"""Softmax along ``axis``: :math:`f(x)_i = e^{x_i} / \sum_j e^{x_j}`.

    Computed as :math:`e^{x_i - \max x} / \sum_j e^{x_j - \max x}`; the
    shifted exponents are :math:`\le 0`, so nothing overflows, and the largest
    term is exactly 1, so the denominator never underflows.

    Parameters
    ----------
    x : array (NumPy or CuPy), float32 or float64
        Logits; ``-inf`` entries are allowed (masked), NaN and ``+inf`` are not.
    axis : int
        The axis that sums to one.

    Returns
    -------
    array of the same type, shape and dtype as ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    >>> softmax(np.array([1e4, -1e4], dtype=np.float32))
    array([1., 0.], dtype=float32)
    """
    xp, x, m = _checked(x, axis)
    e = xp.exp(x - m)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def logsumexp(x, axis: int = -1):
    r"""Log-sum-exp along ``axis``: :math:`\log \sum_j e^{x_j}`.

    Computed as :math:`\max x + \log \sum_j e^{x_j - \max x}`.

    Examples
    --------
    >>> import numpy as np
    >>> float(logsumexp(np.array([1e4, 1e4])))   # 1e4 + log 2, no overflow
    10000.69314718056
    """
    xp, x, m = _checked(x, axis)
    s = xp.exp(x - m).sum(axis=axis, keepdims=True)
    return xp.squeeze(m + xp.log(s), axis=axis)
