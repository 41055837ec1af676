r"""Adversarial search: the supremum of a ratio over inputs, by multi-start optimisation.

A bound :math:`F(z) \le B(z)` is probed by maximising :math:`r(z) = F(z)/B(z)`; random
sampling alone rarely lands near the worst case, an optimiser started from many points does.
:func:`sup_ratio` runs all starting points *at once*: the objective
:math:`-\sum_k r(z_k)` is separable across starts, so one L-BFGS-B run over the stacked
variables optimises every start, each objective and gradient evaluation is a single batched call
of ``fun`` on an ``(n_starts, dim)`` array, and finite-difference gradients (when no analytic
gradient is given) perturb coordinate ``j`` of every start in the same call. The best few starts
are then polished one by one. The book's chapter 2 uses it to search for the worst constants of the softmax
perturbation bounds; later chapters reuse it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from ..core._validate import as_float_array, nonnegative_int, positive_int, positive_real
from ..core.backend import to_numpy

__all__ = ["SupResult", "sup_ratio"]


class SupResult(NamedTuple):
    """Result of :func:`sup_ratio`: the best ratio found, where, and the record of every start.

    Attributes
    ----------
    value : float
        The largest ratio found.
    argmax : numpy.ndarray, shape (dim,)
        The input attaining it.
    values : numpy.ndarray, shape (n_starts,)
        The final ratio of every start (after the joint run; polished starts updated).
    initial : numpy.ndarray, shape (n_starts,)
        The ratio at the starting points (what sampling alone finds).
    points : numpy.ndarray, shape (n_starts, dim)
        The final point of every start.
    n_evals : int
        Batched calls of ``fun`` (each on up to ``n_starts`` points).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import SupResult, sup_ratio
    >>> res = sup_ratio(lambda Z: -((Z - 0.5) ** 2).sum(1), np.zeros((3, 2)))
    >>> isinstance(res, SupResult), res.points.shape, bool(np.all(res.values >= res.initial))
    (True, (3, 2), True)
    >>> np.round(res.argmax, 6)
    array([0.5, 0.5])
    """

    value: float
    argmax: np.ndarray
    values: np.ndarray
    initial: np.ndarray
    points: np.ndarray
    n_evals: int


def _bounds_array(bounds, shape):
    if bounds is None:
        return None
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise TypeError(f"bounds must be a pair (lo, hi) or None, not {type(bounds).__name__}"
                        + (f" of length {len(bounds)}" if isinstance(bounds, (tuple, list)) else ""))
    out = []
    for name, b in zip(("lo", "hi"), bounds):
        try:
            b = np.asarray(to_numpy(b), dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"bounds: {name} must be a real number or array") from exc
        if np.isnan(b).any():
            raise ValueError(f"bounds: {name} contains NaN")
        try:
            out.append(np.broadcast_to(b, shape))
        except ValueError as exc:
            raise ValueError(f"bounds: {name} of shape {b.shape} does not broadcast to x0's shape {shape}") from exc
    lo, hi = out
    if np.any(lo > hi):
        raise ValueError("bounds: a lower bound exceeds its upper bound")
    if np.any(lo == np.inf) or np.any(hi == -np.inf):
        raise ValueError("bounds: lo must be < +inf and hi > -inf")
    return lo, hi


def sup_ratio(fun: Callable[[np.ndarray], ArrayLike], x0: ArrayLike, *,
              grad: Callable[[np.ndarray], ArrayLike] | None = None,
              bounds: tuple[ArrayLike, ArrayLike] | None = None, maxiter: int = 200, polish: int = 4,
              fd_step: float = 1e-6) -> SupResult:
    r"""Maximise a batched ratio ``fun`` from many starting points; return the best value and its maximiser.

    Parameters
    ----------
    fun : callable
        ``fun(Z) -> r`` with ``Z`` of shape ``(n, dim)`` and ``r`` of shape ``(n,)``: the ratio at each
        row (NumPy or CuPy inside; values are brought back to NumPy). Non-finite values count as
        :math:`-\infty`.
    x0 : array, shape (n_starts, dim)
        Starting points, drawn by the caller from a seeded generator.
    grad : callable, optional
        ``grad(Z) -> G`` of shape ``(n, dim)``, the gradient of each row's ratio (a subgradient is fine).
        Default: forward differences with step ``fd_step`` (relative), ``dim`` batched calls per gradient.
    bounds : (lo, hi), optional
        Box constraints, each a real number or array broadcastable to ``(n_starts, dim)`` (bounds may differ
        per start), no NaN, ``lo <= hi``; ``-inf``/``+inf`` leave a side open. Starts outside are clipped.
    maxiter : int, default 200
        Iterations of the joint L-BFGS-B run and of each polish run, ``>= 1``.
    polish : int, default 4
        The best ``polish`` starts are re-optimised individually, ``>= 0`` (0 to skip).
    fd_step : float, default 1e-6
        Relative finite-difference step when ``grad`` is not given, finite and ``> 0``.

    Returns
    -------
    SupResult
        The best value, its maximiser, and every start's initial and final value and point.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, ``grad`` is neither callable nor None, ``x0`` is not a real array,
        ``bounds`` is not a pair of real numbers or arrays, or ``maxiter`` or ``polish`` is not an integer.
    ValueError
        If ``x0`` is not 2-D, is empty or contains NaN or inf; ``bounds`` contain NaN, do not broadcast to
        ``x0``'s shape or have ``lo > hi``; ``maxiter < 1``, ``polish < 0``, ``fd_step`` is not finite and
        positive; ``fun`` does not return one value per row or ``grad`` not one row per start.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sup_ratio
    >>> f = lambda Z: np.sin(Z[:, 0]) * np.cos(Z[:, 1])          # sup = 1
    >>> g = lambda Z: np.stack([np.cos(Z[:, 0]) * np.cos(Z[:, 1]), -np.sin(Z[:, 0]) * np.sin(Z[:, 1])], 1)
    >>> res = sup_ratio(f, np.random.default_rng(0).uniform(-3, 3, (8, 2)), grad=g)
    >>> round(res.value, 8)
    1.0
    >>> res_fd = sup_ratio(f, np.random.default_rng(0).uniform(-3, 3, (8, 2)))   # finite differences
    >>> bool(abs(res_fd.value - 1) < 1e-8)
    True
    """
    if not callable(fun):
        raise TypeError(f"fun must be callable, not {type(fun).__name__}")
    if grad is not None and not callable(grad):
        raise TypeError(f"grad must be callable or None, not {type(grad).__name__}")
    x0 = np.array(to_numpy(as_float_array(x0, "x0", ndim=2)), dtype=float)
    if 0 in x0.shape:
        raise ValueError(f"x0 must have at least one start and one coordinate, got shape {x0.shape}")
    maxiter = positive_int(maxiter, "maxiter")
    polish = nonnegative_int(polish, "polish")
    fd_step = positive_real(fd_step, "fd_step")
    n, dim = x0.shape
    bnds = _bounds_array(bounds, x0.shape)
    if bnds is not None:
        x0 = np.clip(x0, *bnds)
    calls = [0]

    def f_batch(Z):
        calls[0] += 1
        r = np.asarray(to_numpy(fun(Z)), dtype=float).reshape(-1)
        if r.shape != (Z.shape[0],):
            raise ValueError(f"fun must return one value per row: got shape {r.shape} for {Z.shape[0]} rows")
        return np.where(np.isfinite(r), r, -np.inf)

    def g_batch(Z, r, rows):
        if grad is not None:
            G = np.asarray(to_numpy(grad(Z)), dtype=float)
            if G.shape != Z.shape:
                raise ValueError(f"grad must return one gradient row per start: got shape {G.shape} for points "
                                 f"of shape {Z.shape}")
            return np.where(np.isfinite(G), G, 0.0)
        G = np.empty_like(Z)
        step = fd_step * np.maximum(1.0, np.abs(Z))
        for j in range(dim):  # one batched call per coordinate, all starts at once
            Zj = Z.copy()
            if bnds is not None:  # step inwards at an upper bound
                s = np.where(Zj[:, j] + step[:, j] > bnds[1][rows, j], -step[:, j], step[:, j])
            else:
                s = step[:, j]
            Zj[:, j] += s
            G[:, j] = (f_batch(Zj) - r) / s
        return np.where(np.isfinite(G), G, 0.0)

    def joint(flat, rows):
        Z = flat.reshape(len(rows), dim)
        r = f_batch(Z)
        bad = ~np.isfinite(r)
        G = g_batch(Z, np.where(bad, 0.0, r), rows)
        val = -np.where(bad, -1e300, r).sum()
        return val, -G.reshape(-1)

    def run(rows, start):
        b = None
        if bnds is not None:
            b = list(zip(bnds[0][rows].reshape(-1), bnds[1][rows].reshape(-1)))
        res = optimize.minimize(joint, start.reshape(-1), args=(rows,), jac=True, method="L-BFGS-B", bounds=b,
                                options={"maxiter": maxiter, "maxcor": 10, "ftol": 1e-15, "gtol": 1e-12})
        return res.x.reshape(len(rows), dim)

    initial = f_batch(x0)
    rows = np.arange(n)
    X = run(rows, x0)
    vals = f_batch(X)
    # an optimiser step may make a start worse: keep whichever is better
    worse = vals < initial
    X[worse], vals[worse] = x0[worse], initial[worse]
    for k in np.argsort(-vals)[:polish]:
        Xk = run(np.array([k]), X[k:k + 1])
        vk = f_batch(Xk)[0]
        if vk > vals[k]:
            X[k], vals[k] = Xk[0], vk
    best = int(np.argmax(vals))
    return SupResult(float(vals[best]), X[best].copy(), vals, initial, X, calls[0])
