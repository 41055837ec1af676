r"""The gradient of one attention unit, and how to get it from d + 2 attention calls (the book's chapter 5).

Seed 003 (Gupta, Huang, Saha, Xu, Ye 2025, §4, Thm 4.3) studies the loss

.. math::
    \mathcal L(X) = \tfrac12\,\|F H - E\|_F^2

    F = \mathrm{rowsoftmax}(A_1 X A_2^\top)

    H = A_3 Y,

with :math:`A_1, A_2, A_3, E\in\mathbb R^{n\times d}` and :math:`X, Y\in\mathbb R^{d\times d}` (logits are
not scaled: inverse temperature 1). With :math:`C = FH - E`, :math:`G = CH^\top` and :math:`r = (F\circ G)\mathbf 1`,

.. math::
    \nabla_X\mathcal L = A_1^\top\big(F\circ G - \mathrm{diag}(r)\,F\big)A_2 .

The printed form replaces :math:`\mathrm{diag}(r)F` by :math:`F\,\mathrm{diag}((F\circ G^\top)\mathbf 1)`.
Writing :math:`T_p = F\,\mathrm{diag}(H_{:,p})\,A_2` (``p = 1..d``), :math:`Z = FH`, :math:`U = FA_2`,

.. math::
    (F\circ G)A_2 = \sum_p \mathrm{diag}(C_{:,p})\,T_p

    r = (C\circ Z)\mathbf 1

    \nabla_X\mathcal L = A_1^\top\Big(\sum_p \mathrm{diag}(C_{:,p})T_p - \mathrm{diag}(r)\,U\Big),

so :math:`Z, U, T_1, \dots, T_d` are :math:`d + 2` attention outputs with the same :math:`Q = A_1X`,
:math:`K = A_2`, and the rest is :math:`O(nd^2)` work.

Every function here takes its array namespace from its inputs (the array API standard, through
``array-api-compat``): NumPy, CuPy, ``array_api_strict`` and other conforming libraries go through one code path.
The book's experiments and the verdict on the claim are in :mod:`attnlab.audit.gradient`.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from numpy.typing import ArrayLike

from ..core._validate import Array, flag, namespace_of, positive_int, real_array
from ..core.exact import attention, attention_blocked
from ..core.logits import softmax

__all__ = [
    "attention_loss",
    "attention_loss_grad",
    "attention_loss_grad_printed",
    "attention_loss_grad_via_attention",
]

_NAMES = ("A1", "A2", "A3", "X", "Y", "E")


# --------------------------------------------------------------------------- validation
def _check(A1, A2, A3, X, Y, E):
    """The six inputs as 2-D real floating arrays of one namespace and one dtype, shapes checked; and the namespace.

    Lists are converted with the namespace of the array arguments (NumPy when there are none); integer arrays
    become float64; float16 is computed in float32 (the smallest dtype every backend's matmul supports).
    """
    args = dict(zip(_NAMES, (A1, A2, A3, X, Y, E)))
    xp = namespace_of(**args)
    args = {name: real_array(a, name, xp, ndim=2) for name, a in args.items()}
    n, d = args["A1"].shape
    if n == 0 or d == 0:
        raise ValueError(f"A1 must have positive dimensions, got shape {tuple(args['A1'].shape)}")
    for name, shape in (("A2", (n, d)), ("A3", (n, d)), ("X", (d, d)), ("Y", (d, d)), ("E", (n, d))):
        if tuple(args[name].shape) != shape:
            raise ValueError(f"{name} must have shape {shape} (A1 is {n}×{d}), got {tuple(args[name].shape)}")
    dtype = xp.result_type(*args.values())
    out = tuple(a if a.dtype == dtype else xp.astype(a, dtype) for a in args.values())
    return xp, out


def _finite(xp, a, message: str):
    """Raise ``ValueError(message)`` unless every entry of ``a`` is finite (overflow is never silent)."""
    if not bool(xp.all(xp.isfinite(a))):
        raise ValueError(message)
    return a


def _overflow(what: str, names: str, dtype) -> str:
    return f"{what} overflows {dtype} for these inputs: scale {names} down"


def _bool(x, name: str) -> bool:
    return flag(x, name)


def _softmax_rows(xp, S):
    return softmax(S, axis=-1)


def _forward(xp, A1, A2, A3, X, Y, E):
    S = _finite(xp, A1 @ X @ A2.T, _overflow("the score matrix A1 @ X @ A2.T", "A1, X or A2", A1.dtype))
    F = _softmax_rows(xp, S)
    H = _finite(xp, A3 @ Y, _overflow("A3 @ Y", "A3 or Y", A1.dtype))
    C = F @ H - E
    return F, H, C


def _result(xp, g):
    return _finite(xp, g, _overflow("the gradient", "A1, A2, A3, X, Y or E", g.dtype))


# --------------------------------------------------------------------------- loss and gradients
_PARAMETERS = """A1, A2, A3, E : arrays, shape (n, d), n >= 1, d >= 1
        Real arrays of one array library (NumPy, CuPy, array_api_strict, …; nested lists are read with NumPy),
        finite. Integer arrays are computed in float64, float16 in float32; mixed float32/float64 in float64.
    X, Y : arrays, shape (d, d)
        As above. The logits are :math:`A_1XA_2^\\top` (no temperature: multiply X by β for one)."""

_RAISES = """TypeError
        An argument that is not a real array (complex, boolean or string dtype, ragged lists), float128, or
        arrays of different array libraries.
    ValueError
        An argument that is not 2-D, has the wrong shape, an empty dimension, or NaN/inf entries; or finite inputs
        whose scores :math:`A_1XA_2^\\top`, products :math:`A_3Y` or result overflow the dtype (the message names
        the arguments to scale down). Logits of any finite size are handled: the softmax shifts by the row maximum."""


def attention_loss(A1: ArrayLike, A2: ArrayLike, A3: ArrayLike, X: ArrayLike, Y: ArrayLike, E: ArrayLike) -> float:
    r"""The loss :math:`\mathcal L(X) = \tfrac12\|\mathrm{rowsoftmax}(A_1XA_2^\top)A_3Y - E\|_F^2`.

    Parameters
    ----------
    {params}

    Returns
    -------
    float
        The loss, a Python float (computed in the inputs' dtype; a sum beyond that dtype's range is rescaled by
        the largest residual and returned when it fits in a Python float).

    Raises
    ------
    {raises}

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_loss
    >>> A1, A2, A3 = np.array([[1.0], [2.0]]), np.array([[-1.0], [1.0]]), np.array([[1.0], [3.0]])
    >>> round(attention_loss(A1, A2, A3, np.array([[0.4]]), np.array([[1.0]]), np.array([[0.2], [-0.1]])), 6)
    6.196038
    """
    xp, args = _check(A1, A2, A3, X, Y, E)
    _, _, C = _forward(xp, *args)
    loss = float(0.5 * xp.sum(C * C))
    if not math.isfinite(loss):  # the sum overflows the dtype: rescale by the largest residual
        C = _finite(xp, C, _overflow("the residual A3 @ Y weighted by the softmax, minus E", "A3, Y or E", C.dtype))
        s = float(xp.max(xp.abs(C)))
        loss = 0.5 * s * s * float(xp.sum((C / s) * (C / s)))
        if not math.isfinite(loss):
            raise ValueError(_overflow("the loss", "A3, Y or E", "a Python float"))
    return loss


def attention_loss_grad(A1: ArrayLike, A2: ArrayLike, A3: ArrayLike, X: ArrayLike, Y: ArrayLike,
                        E: ArrayLike) -> Array:
    r"""The gradient :math:`\nabla_X\mathcal L = A_1^\top(F\circ G - \mathrm{diag}(r)F)A_2` of :func:`attention_loss`.

    Here :math:`F = \mathrm{rowsoftmax}(A_1XA_2^\top)`, :math:`C = FA_3Y - E`, :math:`G = C(A_3Y)^\top` and
    :math:`r = (F\circ G)\mathbf 1`. Computed directly, with the :math:`n\times n` matrix F: O(n²d) time and
    O(n²) memory; :func:`attention_loss_grad_via_attention` gives the same from d + 2 attention calls.

    Parameters
    ----------
    {params}

    Returns
    -------
    array, shape (d, d)
        The gradient, in the inputs' namespace and common floating dtype.

    Raises
    ------
    {raises}

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_loss_grad
    >>> A1, A2, A3 = np.array([[1.0], [2.0]]), np.array([[-1.0], [1.0]]), np.array([[1.0], [3.0]])
    >>> attention_loss_grad(A1, A2, A3, np.array([[0.4]]), np.array([[1.0]]), np.array([[0.2], [-0.1]]))
    array([[4.95574696]])
    """
    xp, (A1, A2, A3, X, Y, E) = _check(A1, A2, A3, X, Y, E)
    F, H, C = _forward(xp, A1, A2, A3, X, Y, E)
    FG = F * (C @ H.T)
    r = xp.sum(FG, axis=1, keepdims=True)
    return _result(xp, A1.T @ (FG - r * F) @ A2)


def attention_loss_grad_printed(A1: ArrayLike, A2: ArrayLike, A3: ArrayLike, X: ArrayLike, Y: ArrayLike,
                                E: ArrayLike) -> Array:
    r"""The gradient as printed in the attention-complexity paper (Thm 4.3), which differs from the true one.

    :math:`A_1^\top(F\circ G - F\,\mathrm{diag}((F\circ G^\top)\mathbf 1))A_2`.

    This is **not** the gradient of :func:`attention_loss` (entry (i, j) of the bracket differs from the correct
    one by :math:`F_{ij}(r_i - s_j)`, with :math:`s = (F\circ G^\top)\mathbf 1`); it is given to measure how far
    the printed statement is from :func:`attention_loss_grad`. Notation as there.

    Parameters
    ----------
    {params}

    Returns
    -------
    array, shape (d, d)
        The printed expression, in the inputs' namespace and common floating dtype.

    Raises
    ------
    {raises}

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_loss_grad_printed
    >>> A1, A2, A3 = np.array([[1.0], [2.0]]), np.array([[-1.0], [1.0]]), np.array([[1.0], [3.0]])
    >>> g = attention_loss_grad_printed(A1, A2, A3, np.array([[0.4]]), np.array([[1.0]]), np.array([[0.2], [-0.1]]))
    >>> round(float(g[0, 0]), 12)    # the gradient is 4.955746964223…
    -0.452013339718
    """
    xp, (A1, A2, A3, X, Y, E) = _check(A1, A2, A3, X, Y, E)
    F, H, C = _forward(xp, A1, A2, A3, X, Y, E)
    G = C @ H.T
    s = xp.sum(F * G.T, axis=1)
    return _result(xp, A1.T @ (F * G - F * xp.reshape(s, (1, -1))) @ A2)


def attention_loss_grad_via_attention(A1: ArrayLike, A2: ArrayLike, A3: ArrayLike, X: ArrayLike, Y: ArrayLike,
                                      E: ArrayLike, *, blocked: bool = False, block: int = 1024,
                                      threads: int | None = None, return_calls: bool = False,
                                      oracle: Callable[[Array, Array, Array], Array] | None = None) -> Array:
    r"""The gradient of :func:`attention_loss` from d + 2 attention calls with :math:`Q = A_1X`, :math:`K = A_2`.

    The value matrices are :math:`H = A_3Y`, :math:`A_2` and :math:`\mathrm{diag}(H_{:,p})A_2` for
    ``p = 1..d`` (inverse temperature 1), giving :math:`Z = FH`, :math:`U = FA_2` and :math:`T_p`; then
    :math:`C = Z - E`, :math:`r = (C\circ Z)\mathbf 1` and

    .. math:: \nabla_X\mathcal L = A_1^\top\Big(\sum_p \mathrm{diag}(C_{:,p})\,T_p - \mathrm{diag}(r)\,U\Big),

    O(nd²) work besides the calls. With ``blocked=True`` every call is :func:`attnlab.attention_blocked`, so no n×n
    array is ever formed (memory O(nd + threads·block²)); otherwise :func:`attnlab.attention`. Both give the result of
    :func:`attention_loss_grad` up to rounding, and the same errors. With ``oracle``, every call is ``oracle(Q, K,
    V)`` instead, in the order V = H, A2, diag(H[:, 0]) A2, …, diag(H[:, d-1]) A2, so an approximate (or adversarial)
    attention oracle can stand for the calls (the book's chapter 5 measures how precise it must be).

    Parameters
    ----------
    {params}
    blocked : bool
        Use the blocked (online-softmax) attention for every call.
    block : int
        Tile size of the blocked calls, >= 1 (checked also when ``blocked=False``).
    threads : int, optional
        Worker threads of the blocked calls on NumPy, >= 1 (default: the CPUs this process may use).
    return_calls : bool
        Deprecated (the number of attention calls is always d + 2, ``A1.shape[1] + 2``): ``True`` warns and returns
        the former pair ``(gradient, d + 2)``.
    oracle : callable, optional
        ``oracle(Q, K, V) -> O`` standing for ``attention(Q, K, V, beta=1.0)``; it must return a finite array of
        shape (n, V.shape[1]) in the inputs' namespace. ``None`` (default): exact attention (``blocked`` decides
        which); with an oracle, ``blocked``, ``block`` and ``threads`` are checked but unused.

    Returns
    -------
    array, shape (d, d)
        The gradient, in the inputs' namespace and common floating dtype.

    Raises
    ------
    {raises}
    TypeError
        ``blocked`` or ``return_calls`` not a bool; ``block`` or ``threads`` not an integer; ``oracle`` not callable.
    ValueError
        ``block`` or ``threads`` < 1; an ``oracle`` output of the wrong shape or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention_loss_grad_via_attention
    >>> A1, A2, A3 = np.array([[1.0], [2.0]]), np.array([[-1.0], [1.0]]), np.array([[1.0], [3.0]])
    >>> g = attention_loss_grad_via_attention(A1, A2, A3, np.array([[0.4]]), np.array([[1.0]]),
    ...                                       np.array([[0.2], [-0.1]]), blocked=True, block=1)
    >>> g
    array([[4.95574696]])
    >>> from attnlab import attention
    >>> shifted = lambda Q, K, V: attention(Q, K, V, beta=1.0) + 1e-3     # an oracle with error 1e-3
    >>> g2 = attention_loss_grad_via_attention(A1, A2, A3, np.array([[0.4]]), np.array([[1.0]]),
    ...                                       np.array([[0.2], [-0.1]]), oracle=shifted)
    >>> round(float(g2[0, 0] - g[0, 0]), 6)
    -0.014747
    """
    blocked, return_calls = _bool(blocked, "blocked"), _bool(return_calls, "return_calls")
    if return_calls:
        warnings.warn("attention_loss_grad_via_attention(..., return_calls=True) is deprecated: the function makes "
                      "d + 2 attention calls (d = A1.shape[1]) and returns the gradient alone without the flag",
                      DeprecationWarning, stacklevel=2)
    block = positive_int(block, "block")
    if threads is not None:
        threads = positive_int(threads, "threads")
    if oracle is not None and not callable(oracle):
        raise TypeError(f"oracle must be callable as oracle(Q, K, V) or None, not {type(oracle).__name__}")
    xp, (A1, A2, A3, X, Y, E) = _check(A1, A2, A3, X, Y, E)
    att = (lambda Q, K, V: attention_blocked(Q, K, V, beta=1.0, block=block, threads=threads)) if blocked else (
        lambda Q, K, V: attention(Q, K, V, beta=1.0))
    if oracle is not None:
        def att(Q, K, V):
            out = oracle(Q, K, V)
            if not hasattr(out, "shape") or tuple(out.shape) != (Q.shape[0], V.shape[1]):
                raise ValueError(f"oracle must return an array of shape {(Q.shape[0], V.shape[1])}, got "
                                 f"{tuple(out.shape) if hasattr(out, 'shape') else type(out).__name__}")
            if not bool(xp.all(xp.isfinite(out))):
                raise ValueError("oracle returned NaN or inf")
            return out
    scores = _overflow("the score matrix A1 @ X @ A2.T", "A1, X or A2", A1.dtype)
    Q = _finite(xp, A1 @ X, _overflow("A1 @ X", "A1 or X", A1.dtype))
    H = _finite(xp, A3 @ Y, _overflow("A3 @ Y", "A3 or Y", A1.dtype))

    def call(V):
        if oracle is not None:
            return att(Q, A2, V)
        try:
            out = att(Q, A2, V)
        except ValueError as exc:  # attention's own checks of its (internal) Q, K, V
            raise ValueError(f"{scores} ({exc})") from exc
        return _finite(xp, out, scores)

    Z = call(H)                                    # call 1: F H
    U = call(A2)                                   # call 2: F A2
    C = Z - E
    r = xp.sum(C * Z, axis=1, keepdims=True)       # (F∘G)1 = (C∘FH)1
    W = -r * U
    d = A1.shape[1]
    for p in range(d):                             # calls 3 .. d+2: F diag(H[:, p]) A2
        W += C[:, p:p + 1] * call(H[:, p:p + 1] * A2)
    g = _result(xp, A1.T @ W)
    return (g, d + 2) if return_calls else g


for _f in (attention_loss, attention_loss_grad, attention_loss_grad_printed, attention_loss_grad_via_attention):
    _f.__doc__ = _f.__doc__.replace("{params}", _PARAMETERS).replace("{raises}", _RAISES)
del _f
