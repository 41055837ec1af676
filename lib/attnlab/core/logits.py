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

from numpy.typing import ArrayLike

from ._validate import Array, axes_tuple, flag, namespace_of, real_array

__all__ = ["softmax", "log_softmax", "logsumexp"]


def _checked(x, axis, b=None):
    """Validate (x, axis[, b]) and return (xp, x, axes, b, max along the axes, keepdims)."""
    xp = namespace_of(x=x, b=b)
    x = real_array(x, "x", xp, allow_neg_inf=True)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension, got a 0-d array")
    axes = axes_tuple(axis, x.ndim, x.shape, "x")
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"x must have at least one entry along axis {axis}, got shape {tuple(x.shape)}")
    if b is not None:
        b = real_array(b, "b", xp)
        try:
            shape = tuple(xp.broadcast_arrays(x, b)[0].shape)
        except ValueError as exc:
            raise ValueError(f"b of shape {tuple(b.shape)} does not broadcast to x of shape {tuple(x.shape)}") from exc
        if shape != tuple(x.shape):
            raise ValueError(f"b of shape {tuple(b.shape)} does not broadcast to x of shape {tuple(x.shape)}")
        b = xp.astype(xp.broadcast_to(b, shape), x.dtype)
        xm = xp.where(b != 0, x, xp.full_like(x, -xp.inf))   # as scipy: entries of weight 0 do not set the shift
        m = xp.max(xm, axis=axes, keepdims=True)
        m = xp.where(m == -xp.inf, xp.zeros_like(m), m)
    else:
        m = xp.max(x, axis=axes, keepdims=True)
        if bool(xp.any(m == -xp.inf)):
            raise ValueError("x has a slice along axis whose entries are all -inf")
    return xp, x, axes, b, m


def softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1) -> Array:
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
    axis : int, tuple of int or None, default -1
        The axis (or axes; ``None``: all) along which the result sums to
        one; integers (not bool) in ``[-x.ndim, x.ndim)``, as in
        :func:`scipy.special.softmax` (whose default is ``None``; here it
        is the last axis, the keys of attention).

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
    log_softmax : the logarithm of the result, without cancellation.

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
    xp, x, axes, _, m = _checked(x, axis)
    e = xp.exp(x - m)
    e /= xp.sum(e, axis=axes, keepdims=True)
    return e


def log_softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1) -> Array:
    r"""Logarithm of :func:`softmax`: :math:`x_i - \log\sum_j e^{x_j}`, as :func:`scipy.special.log_softmax`.

    Computed as :math:`(x_i - \max x) - \log\sum_j e^{x_j - \max x}`: no overflow, and no cancellation for
    the small probabilities whose logarithm ``log(softmax(x))`` would round to ``-inf``.

    Parameters
    ----------
    x : array, any shape with at least one dimension
        Logits, as in :func:`softmax` (``-inf`` entries give ``-inf``).
    axis : int, tuple of int or None, default -1
        As in :func:`softmax`.

    Returns
    -------
    logp : array, same library, shape and (floating) dtype as ``x``

    Raises
    ------
    TypeError
        As :func:`softmax`.
    ValueError
        As :func:`softmax`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import log_softmax
    >>> log_softmax(np.array([0.0, 1000.0]))
    array([-1000.,     0.])
    """
    xp, x, axes, _, m = _checked(x, axis)
    z = x - m
    return z - xp.log(xp.sum(xp.exp(z), axis=axes, keepdims=True))


def logsumexp(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, b: ArrayLike | None = None, keepdims: bool = False,
              return_sign: bool = False) -> Array | tuple[Array, Array]:
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
    axis : int, tuple of int or None, default -1
        The axis (axes; ``None``: all) that is reduced; integers (not bool)
        in ``[-x.ndim, x.ndim)``.
    b : array, optional
        Weights, broadcastable to ``x``, finite: :math:`\log\sum_j b_j
        e^{x_j}` as in :func:`scipy.special.logsumexp` (entries of weight 0
        do not count, so a slice may be all ``-inf`` where ``b`` is 0).
    keepdims : bool, default False
        Keep the reduced axes with length 1.
    return_sign : bool, default False
        Return ``(lse, sign)``, :math:`\log|\sum_j b_j e^{x_j}|` and the sign
        of the sum (-1, 0 or 1). Without it a negative weighted sum raises
        ``ValueError`` naming ``b`` (SciPy returns NaN).

    Returns
    -------
    lse : array, same library and dtype as ``x``, shape of ``x`` without ``axis``
        (0-d for a 1-d ``x`` and ``axis=-1``; the reduced axes kept with
        ``keepdims``). ``-inf`` where the weighted sum is 0.
    sign : array, only with ``return_sign``

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
    >>> float(logsumexp(np.zeros((2, 2)), axis=None)) == float(np.log(4.0))
    True
    >>> lse, sign = logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, -2.0]), return_sign=True)
    >>> float(lse), float(sign)
    (0.0, -1.0)
    """
    keepdims = flag(keepdims, "keepdims")
    return_sign = flag(return_sign, "return_sign")
    xp, x, axes, b, m = _checked(x, axis, b)
    e = xp.exp(x - m)
    s = xp.sum(e if b is None else b * e, axis=axes, keepdims=True)
    sign = xp.sign(s)
    if not return_sign and bool(xp.any(s < 0)):
        raise ValueError("the weighted sum of exp(x) with weights b is negative somewhere: its logarithm is not "
                         "real; pass return_sign=True for log|sum| and the sign")
    lse = m + xp.log(xp.abs(s))
    if not keepdims:
        lse, sign = xp.squeeze(lse, axis=axes), xp.squeeze(sign, axis=axes)
    return (lse, sign) if return_sign else lse
