"""Softmax and log-sum-exp, stable at any temperature, on any array library.

Both shift by the maximum along ``axis`` before exponentiating, so logits of
any magnitude (±1e4 in float32 included, or anything up to the dtype's
largest finite number) give finite, accurate results, and entries equal to
``-inf`` (masked positions) get weight exactly zero as long as one entry of
each slice is finite.

The array namespace is taken from the input (``array_api_compat``) and only
calls of the array API standard are made, so NumPy, CuPy, ``array_api_strict``
and other conforming libraries run the same code.
"""
from __future__ import annotations

from ._validate import axis_index, floating_array, namespace_of

__all__ = ["softmax", "logsumexp"]


def _checked(x, axis):
    """Validate (x, axis) and return (xp, x, axis, max along axis)."""
    xp = namespace_of(x=x)
    x = floating_array(x, "x", xp, allow_neg_inf=True)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension, got a 0-d array")
    axis = axis_index(axis, x.ndim, x.shape, "x")
    if x.shape[axis] == 0:
        raise ValueError(f"x must have at least one entry along axis {axis}, got shape {tuple(x.shape)}")
    m = xp.max(x, axis=axis, keepdims=True)
    if bool(xp.any(m == -xp.inf)):
        raise ValueError("x has a slice along axis whose entries are all -inf")
    return xp, x, axis, m


def softmax(x, axis=-1):
    r"""Softmax along ``axis``: :math:`f(x)_i = e^{x_i} / \sum_j e^{x_j}`.

    Computed as :math:`e^{x_i - \max x} / \sum_j e^{x_j - \max x}`; the
    shifted exponents are :math:`\le 0`, so nothing overflows, and the largest
    term is exactly 1, so the denominator lies in :math:`[1, n]` and never
    underflows. One code path (array API standard) for every array library.

    Parameters
    ----------
    x : array, any shape with at least one dimension
        Logits: an array of NumPy, CuPy, ``array_api_strict`` or any library
        that ``array_api_compat`` knows (Python lists are read as NumPy).
        Dtype float32 or float64 (kept); float16 is computed in float32
        (and returned as float32); integers are converted to float64; bool
        and complex dtypes are rejected. Entries are finite or ``-inf``
        (a masked position, weight 0); every slice along ``axis`` needs at
        least one finite entry.
    axis : int, default -1
        The axis along which the result sums to one; an integer (not bool)
        in ``[-x.ndim, x.ndim)``.

    Returns
    -------
    p : array, same library, shape and (floating) dtype as ``x``
        Non-negative, summing to 1 along ``axis`` (up to rounding).

    Raises
    ------
    TypeError
        ``x`` is not an array of real numbers (bool, complex, strings) or
        ``axis`` is not an integer.
    ValueError
        ``x`` is 0-d, has no entry along ``axis``, contains NaN or ``+inf``,
        or has a slice of only ``-inf``; ``axis`` is out of range.

    See Also
    --------
    logsumexp : the logarithm of the normaliser.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import softmax
    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    >>> softmax(np.array([1e4, -1e4], dtype=np.float32))
    array([1., 0.], dtype=float32)
    >>> softmax(np.array([[0.0, -np.inf], [1.0, 1.0]]), axis=1)
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    xp, x, axis, m = _checked(x, axis)
    e = xp.exp(x - m)
    e /= xp.sum(e, axis=axis, keepdims=True)
    return e


def logsumexp(x, axis=-1):
    r"""Log-sum-exp along ``axis``: :math:`\log \sum_j e^{x_j}`.

    Computed as :math:`\max x + \log \sum_j e^{x_j - \max x}`, so it is finite
    for any finite logits (the correction term lies in :math:`[0, \log n]`).
    One code path (array API standard) for every array library.

    Parameters
    ----------
    x : array, any shape with at least one dimension
        Logits, as in :func:`softmax`: float32 or float64 (float16 computed
        and returned in float32, integers in float64; bool and complex
        rejected); finite or ``-inf``, at least one finite entry per slice.
    axis : int, default -1
        The axis that is reduced; an integer (not bool) in
        ``[-x.ndim, x.ndim)``.

    Returns
    -------
    lse : array, same library and dtype as ``x``, shape of ``x`` without ``axis``
        (0-d for a 1-d ``x``).

    Raises
    ------
    TypeError
        As :func:`softmax`.
    ValueError
        As :func:`softmax`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import logsumexp
    >>> float(logsumexp(np.array([1e4, 1e4])))   # 1e4 + log 2, no overflow
    10000.69314718056
    >>> logsumexp(np.array([[0.0, -np.inf], [0.0, 0.0]])).round(6)
    array([0.      , 0.693147])
    """
    xp, x, axis, m = _checked(x, axis)
    s = xp.sum(xp.exp(x - m), axis=axis, keepdims=True)
    return xp.squeeze(m + xp.log(s), axis=axis)
