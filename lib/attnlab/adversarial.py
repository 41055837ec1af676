r"""Adversarial search: the supremum of a ratio over inputs, by multi-start optimisation.

A bound :math:`F(z) \le B(z)` is probed by maximising :math:`r(z) = F(z)/B(z)`; random
sampling alone rarely lands near the worst case, an optimiser started from many points does.
:func:`sup_ratio` runs all starting points *at once*: the objective
:math:`-\sum_k r(z_k)` is separable across starts, so one L-BFGS-B run over the stacked
variables optimises every start, each objective and gradient evaluation is a single batched call
of ``fun`` on an ``(n_starts, dim)`` array, and finite-difference gradients (when no analytic
gradient is given) perturb coordinate ``j`` of every start in the same call. The best few starts
are then polished one by one. Used for claims PDA-lip and AR-tanh; later chapters reuse it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ._validate import as_float_array, positive_int
from .backend import to_numpy

__all__ = ["SupResult", "sup_ratio"]


@dataclass(frozen=True)
class SupResult:
    """Result of :func:`sup_ratio`.

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
    lo, hi = bounds
    lo = np.broadcast_to(np.asarray(lo, float), shape)
    hi = np.broadcast_to(np.asarray(hi, float), shape)
    if np.any(lo > hi):
        raise ValueError("bounds: a lower bound exceeds its upper bound")
    return lo, hi


def sup_ratio(fun, x0, *, grad=None, bounds=None, maxiter: int = 200, polish: int = 4, fd_step: float = 1e-6):
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
        Box constraints, each broadcastable to ``(n_starts, dim)`` (bounds may differ per start).
    maxiter : int
        Iterations of the joint L-BFGS-B run and of each polish run.
    polish : int
        The best ``polish`` starts are re-optimised individually (0 to skip).
    fd_step : float
        Relative finite-difference step when ``grad`` is not given.

    Returns
    -------
    SupResult

    Examples
    --------
    >>> import numpy as np
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
        raise TypeError("fun must be callable")
    if grad is not None and not callable(grad):
        raise TypeError("grad must be callable or None")
    x0 = np.array(to_numpy(as_float_array(x0, "x0", ndim=2)), dtype=float)
    if 0 in x0.shape:
        raise ValueError(f"x0 must have at least one start and one coordinate, got shape {x0.shape}")
    maxiter = positive_int(maxiter, "maxiter")
    if isinstance(polish, bool) or not isinstance(polish, (int, np.integer)) or polish < 0:
        raise ValueError(f"polish must be an integer >= 0, got {polish!r}")
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
