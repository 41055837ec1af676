r"""The visible interaction of an attention head: what its approximation rank depends on.

The logits of a head split exactly into a row term, a key term and an interaction
:math:`\langle a_i,b_j\rangle` in :math:`r` dimensions, the *visible* dimension (:func:`visible_interaction_dim`);
the row term cancels in the softmax and the key term is a weight, so the attention matrix is an r-dimensional
weighted Gibbs family (:func:`gibbs_matrix`), whose support function obeys the Bregman identity of the upper law
(:func:`bregman_gap`). The size of the interaction enters through :math:`\Gamma=\beta\rho_Q\rho_K`, with ρ the
Chebyshev radii of the coordinates (:func:`chebyshev_radius`). When the keys are only *near* an r-dimensional
subspace, :func:`svd_bridge` bounds the error of dropping the residual.

The book audits the approximation-rank notes (Sui and Zhang, 2026) in chapters 7, 8 and 12.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import optimize

from numpy.typing import ArrayLike
from ..core._results import former_dict
from ..core._validate import Array
from ..core._validate import as_float_array, nonnegative_int, positive_real, renamed
from ..core.backend import get_array_module, to_numpy
from ..core._validate import finite_scores as _finite_scores, matrix as _matrix
from .certificates import row_l1_error
from ..core.logits import logsumexp, softmax

__all__ = [
    "VisibleInteraction",
    "visible_interaction_dim",
    "gibbs_matrix",
    "BregmanGap",
    "bregman_gap",
    "BridgeSubspace",
    "bridge_subspace",
    "SvdBridge",
    "svd_bridge",
    "chebyshev_radius",
]


def _head(Q, K):
    Q, K = _matrix(Q, "Q"), _matrix(K, "K")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"K must have the width d = {Q.shape[1]} of Q, got {K.shape[1]}")
    return Q, K


def _vector(x, name, size, what):
    x = as_float_array(x, name, ndim=1)
    if x.shape[0] != size:
        raise ValueError(f"{name} must have {size} entries ({what}), got {x.shape[0]}")
    return x


@dataclass
class VisibleInteraction:
    r"""The exact logit decomposition :math:`\langle q_i,k_j\rangle = \langle a_i,b_j\rangle + r_i + t_j`.

    :math:`r_i` depends on the row only and :math:`t_j` on the key only: softmax does not see them.

    Made by :func:`visible_interaction_dim`.

    Parameters
    ----------
    r : int
        The visible dimension :math:`\dim\mathrm{span}\{P_U(k_j-k_1)\}`.
    a : array (n, r)
        Interaction coordinates of the queries.
    b : array (L, r)
        Interaction coordinates of the keys.
    row : array (n,)
        :math:`\langle q_i,k_1\rangle`.
    key : array (L,)
        :math:`\langle q_1,k_j-k_1\rangle`.
    basis : array (d, r)
        Orthonormal basis of :math:`V=\mathrm{span}\{P_U(k_j-k_1)\}`.
    dim_U : int
        :math:`\dim U`, :math:`U=\mathrm{span}\{q_i-q_1\}`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import visible_interaction_dim
    >>> vi = visible_interaction_dim(np.array([[0.0, 0], [1, 0]]), np.array([[0.0, 1], [2, 3], [1, 1]]))
    >>> vi.r, vi.dim_U
    (1, 1)
    """

    r: int
    a: object
    b: object
    row: object
    key: object
    basis: object
    dim_U: int


def _span(X, tol):
    """Orthonormal basis (columns) of the row span of X, singular values above tol·max(1, σ_max)."""
    xp = get_array_module(X)
    if X.shape[0] == 0:
        return xp.zeros((X.shape[1], 0))
    _, s, Vt = xp.linalg.svd(X, full_matrices=False)
    keep = s > tol * max(1.0, float(s[0]) if s.size else 1.0)
    return Vt[keep].T


def visible_interaction_dim(Q: ArrayLike, K: ArrayLike, tol: float = 1e-10) -> VisibleInteraction:
    r"""Visible interaction dimension of a head, with the exact decomposition of its logits.

    :math:`U=\mathrm{span}\{q_i-q_1\}`, :math:`s_j = P_U(k_j-k_1)`, :math:`r=\dim\mathrm{span}\{s_j\}`.
    With :math:`u_i = q_i - q_1` and :math:`t_j = k_j - k_1`,

    .. math::
        \langle q_i,k_j\rangle = \underbrace{\langle q_i,k_1\rangle}_{\text{row}}
        + \underbrace{\langle q_1,t_j\rangle}_{\text{key}}
        + \langle u_i, s_j\rangle,

    and :math:`\langle u_i,s_j\rangle = \langle a_i,b_j\rangle` in an orthonormal basis of V. Ranks use the
    relative singular-value cut ``tol``.

    Parameters
    ----------
    Q : array (n, d), float32 or float64, finite
        Queries.
    K : array (L, d), float32 or float64, finite
        Keys, of the width of Q.
    tol : float > 0
        Singular values below ``tol`` · max(1, σ_max) count as zero.

    Returns
    -------
    VisibleInteraction

    Raises
    ------
    TypeError
        Q or K not a real floating array (or float16), ``tol`` not a real number.
    ValueError
        Not 2-D, empty, NaN or inf, widths differ, ``tol`` ≤ 0 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import visible_interaction_dim
    >>> rng = np.random.default_rng(0)
    >>> Q = np.ones((5, 1)) @ rng.standard_normal((1, 8))   # all queries equal: r = 0
    >>> visible_interaction_dim(Q, rng.standard_normal((7, 8))).r
    0
    """
    Q, K = _head(Q, K)
    positive_real(tol, "tol")
    U = _span(Q[1:] - Q[0], tol)
    T = K - K[0]
    Sj = (T @ U) @ U.T
    Vb = _span(Sj, tol)
    u = Q - Q[0]
    return VisibleInteraction(int(Vb.shape[1]), u @ Vb, Sj @ Vb, Q @ K[0], T @ Q[0], Vb, int(U.shape[1]))


@renamed(gamma="beta")
def gibbs_matrix(a: ArrayLike, b: ArrayLike, log_pi: ArrayLike, beta: float = 1.0) -> Array:
    r"""Weighted Gibbs rows :math:`p_i(j) \propto \pi_j e^{\beta\langle a_i,b_j\rangle}` (n × L).

    With the coordinates of :func:`visible_interaction_dim` and :math:`\log\pi = \beta\,\text{key}`, β the inverse
    temperature, this is the attention matrix :math:`\mathrm{softmax}(\beta QK^\top)`.

    Parameters
    ----------
    a : array (n, r), float32 or float64, finite
        Query coordinates (r = 0 allowed: every row is then π normalised).
    b : array (L, r), finite
        Key coordinates, of the width of ``a``.
    log_pi : array (L,), finite
        Log-weights of the keys.
    beta : float > 0
        Inverse temperature.

    Returns
    -------
    array (n, L)
        Row-stochastic.

    Raises
    ------
    TypeError
        A non-array or non-real argument.
    ValueError
        Wrong dimensions or sizes, NaN or inf, ``beta`` ≤ 0, or scores that overflow (reduce ``beta``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import gibbs_matrix
    >>> gibbs_matrix(np.array([[0.0], [1.0]]), np.array([[0.0], [np.log(3.0)]]), np.zeros(2))
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    a, b = as_float_array(a, "a", ndim=2), as_float_array(b, "b", ndim=2)
    if a.shape[0] == 0 or b.shape[0] == 0:
        raise ValueError(f"a and b must have at least one row, got shapes {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"b must have the width r = {a.shape[1]} of a, got {b.shape[1]}")
    log_pi = _vector(log_pi, "log_pi", b.shape[0], "one per key")
    positive_real(beta, "beta")
    return softmax(_finite_scores(beta * (a @ b.T) + log_pi[None, :], "beta"))


class BregmanGap(NamedTuple):
    r"""The three terms of the support-gap identity of :func:`bregman_gap`: ``lhs = kl_term + rest``.

    Attributes
    ----------
    lhs : float
        :math:`h(x)-\langle x,c_y\rangle`.
    kl_term : float
        :math:`\mathrm{KL}(p_y\|p_x)/\beta` (≥ 0).
    rest : float
        :math:`h(y)-\langle y,c_y\rangle`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import bregman_gap
    >>> g = bregman_gap(np.array([[1.0], [-1.0]]), np.zeros(2), 2.0, np.array([0.3]), np.array([-0.5]))
    >>> bool(abs(g.lhs - g.kl_term - g.rest) < 1e-12)
    True
    """
    lhs: float
    kl_term: float
    rest: float


@renamed(gamma="beta")
def bregman_gap(Kx: ArrayLike, log_pi: ArrayLike, beta: float, x: ArrayLike, y: ArrayLike) -> BregmanGap:
    r"""The support-gap identity of the upper law for the log-partition function h of the Gibbs family.

    :math:`h(x)=\beta^{-1}\log\sum_j\pi_je^{\beta\langle x,k_j\rangle}`.

    .. math::
        h(x)-\langle x,c_y\rangle = \mathrm{KL}(p_y\|p_x)/\beta + h(y)-\langle y,c_y\rangle

        c_y=\nabla h(y)=\mathbb E_{p_y}k,

    where :math:`h(y)-\langle y,c_y\rangle = \beta^{-1}(H(p_y)+\mathbb E_{p_y}\log\pi)` is non-negative when
    π ≥ 1 (for instance integer multiplicities; any real weights ≥ 1 will do).

    Parameters
    ----------
    Kx : array (L, m), float32 or float64, finite
        The keys :math:`k_j` (rows).
    log_pi : array (L,), finite
        Log-weights.
    beta : float > 0
        Inverse temperature.
    x, y : array (m,), finite
        The two points.

    Returns
    -------
    BregmanGap
        ``lhs``, ``kl_term`` and ``rest``, with lhs = kl_term + rest up to rounding; it unpacks in that order.

    Raises
    ------
    TypeError
        A non-array or non-real argument.
    ValueError
        Wrong dimensions or sizes, NaN or inf, ``beta`` ≤ 0, or scores that overflow (reduce ``beta``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import bregman_gap
    >>> lhs, kl, rest = bregman_gap(np.array([[1.0], [-1.0]]), np.zeros(2), 2.0, np.array([0.3]), np.array([-0.5]))
    >>> bool(abs(lhs - kl - rest) < 1e-12 and kl > 0)
    True
    """
    Kx = _matrix(Kx, "Kx")
    log_pi = _vector(log_pi, "log_pi", Kx.shape[0], "one per key")
    positive_real(beta, "beta")
    x = _vector(x, "x", Kx.shape[1], "the width of Kx")
    y = _vector(y, "y", Kx.shape[1], "the width of Kx")
    lx = _finite_scores(beta * (Kx @ x) + log_pi, "beta")
    ly = _finite_scores(beta * (Kx @ y) + log_pi, "beta")
    hx, hy = float(logsumexp(lx)) / beta, float(logsumexp(ly)) / beta
    py = softmax(ly)
    c = py @ Kx
    logpy, logpx = ly - beta * hy, lx - beta * hx
    kl = float((py * (logpy - logpx)).sum())
    return BregmanGap(hx - float(x @ c), kl / beta, hy - float(y @ c))


# --------------------------------------------------------------------------- the SVD bridge
def _bridge_subspace(Q, K, r, center=None):
    """u = Q − centre, the visible centred keys Z (projected on span u), the singular values of Z and its top-r
    right singular vectors W (columns)."""
    xp = get_array_module(Q, K)
    u = Q - (Q.mean(axis=0) if center is None else center)
    U = _span(u, 1e-10)
    Z = ((K - K.mean(axis=0)) @ U) @ U.T
    _, s, Vt = xp.linalg.svd(Z, full_matrices=False)
    return u, Z, s, Vt[:r].T


class BridgeSubspace(NamedTuple):
    r"""The result of :func:`bridge_subspace`.

    Attributes
    ----------
    u : array (n, d)
        The centred queries :math:`u_i = q_i - \bar q`.
    Z : array (L, d)
        The centred keys :math:`k_j - \bar k` projected on U = span u (the part of the keys the queries see).
    s : array (min(L, d),)
        The singular values of Z, in decreasing order.
    W : array (d, r)
        Its top-r right singular vectors (columns).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import bridge_subspace
    >>> b = bridge_subspace(np.eye(3), np.eye(3), 2)
    >>> b.W.shape
    (3, 2)
    """
    u: object
    Z: object
    s: object
    W: object


def bridge_subspace(Q: ArrayLike, K: ArrayLike, r: int, *, center: ArrayLike | None = None) -> BridgeSubspace:
    r"""The centred visible keys of a head and their rank-r SVD subspace: what :func:`svd_bridge` bounds.

    Parameters
    ----------
    Q : array (n, d), float32 or float64, finite
        Queries.
    K : array (L, d), finite
        Keys, of the width of Q.
    r : int ≥ 0
        Dimension of the subspace W.
    center : array (d,), optional
        The query centre (default: the mean of Q).

    Returns
    -------
    BridgeSubspace
        ``u``, ``Z``, ``s`` and ``W`` (a tuple of those four, in that order).

    Raises
    ------
    TypeError
        A non-array or non-real argument, ``r`` not an integer.
    ValueError
        Wrong dimensions or widths, NaN or inf, ``r`` < 0.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import bridge_subspace
    >>> rng = np.random.default_rng(0)
    >>> u, Z, s, W = bridge_subspace(rng.standard_normal((6, 3)), rng.standard_normal((5, 3)), 1)
    >>> Z.shape, s.shape, W.shape
    ((5, 3), (3,), (3, 1))
    """
    Q, K = _head(Q, K)
    nonnegative_int(r, "r")
    if center is not None:
        center = _vector(center, "center", Q.shape[1], "the width of Q")
    return BridgeSubspace(*_bridge_subspace(Q, K, r, center))


@former_dict
class SvdBridge(NamedTuple):
    r"""The residual tolerances of a head's rank-r SVD subspace: the result of :func:`svd_bridge`.

    ``error`` ≤ ``tau_exact`` ≤ ``tau_width`` ≤ ``tau_spec``. It replaced a dict: ``b["tau_exact"]`` still works,
    with a ``DeprecationWarning``.

    Attributes
    ----------
    r : int
        Dimension of the subspace W.
    tau_exact : float
        :math:`\max_i 2\tanh(\operatorname{osc}_j h_{ij}/4)`, the bound on the error of dropping the residual.
    tau_width : float
        :math:`2\tanh(\beta\rho\,w_r/2)`.
    tau_spec : float
        :math:`2\tanh(\beta\rho\,\sigma_{r+1}(Z)/2)`.
    error : float
        Row-ℓ1 error of ``A_W`` against ``A``.
    rho : float
        :math:`\rho=\max_i\|u_i\|`.
    width : float
        :math:`w_r=\max_j\|e_j\|`, the largest residual key.
    sigma_next : float
        :math:`\sigma_{r+1}(Z)` (0 when r ≥ rank Z).
    explained : float
        The share of :math:`\|Z\|_F^2` in W.
    A : array (n, L)
        The attention matrix :math:`\mathrm{softmax}(\beta QK^\top)`.
    A_W : array (n, L)
        The attention with the residual logits removed.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import svd_bridge
    >>> b = svd_bridge(np.eye(3), np.eye(3), 1.0, 3)   # r = 3 ≥ rank Z: nothing is dropped
    >>> b.r, bool(max(b.error, b.tau_exact, b.tau_spec) < 1e-12)
    (3, True)
    """
    r: int
    tau_exact: float
    tau_width: float
    tau_spec: float
    error: float
    rho: float
    width: float
    sigma_next: float
    explained: float
    A: Array
    A_W: Array


def svd_bridge(Q: ArrayLike, K: ArrayLike, beta: float, r: int, *, center: ArrayLike | None = None) -> SvdBridge:
    r"""Residual tolerances of the rank-r SVD subspace W of the centred visible keys.

    With :math:`u_i = q_i - \bar q` (:math:`\bar q` the query mean, ``center`` to override) and
    :math:`Z = (k_j-\bar k)` projected on U = span u, W = top-r right singular subspace of Z, residual keys
    :math:`e_j = (I-P_W)z_j` and residual logits :math:`h_{ij}=\beta\langle u_i,e_j\rangle`:
    ``tau_exact`` = :math:`\max_i 2\tanh(\operatorname{osc}_j h_{ij}/4)`,
    ``tau_width`` = :math:`2\tanh(\beta\rho\,w_r/2)` (:math:`\rho=\max_i\|u_i\|`, :math:`w_r=\max_j\|e_j\|`) and
    ``tau_spec`` = :math:`2\tanh(\beta\rho\,\sigma_{r+1}(Z)/2)`, with tau_exact ≤ tau_width ≤ tau_spec, and the
    attention with the residual removed, ``A_W``, within tau_exact of A (Cohen–Fausti).

    Parameters
    ----------
    Q : array (n, d), float32 or float64, finite
        Queries.
    K : array (L, d), finite
        Keys, of the width of Q.
    beta : float > 0
        Inverse temperature.
    r : int ≥ 0
        Dimension of the subspace W (r ≥ rank Z leaves no residual).
    center : array (d,), optional
        The query centre (default: the mean of Q).

    Returns
    -------
    SvdBridge
        ``r``, ``tau_exact``, ``tau_width``, ``tau_spec``, ``error`` (row-ℓ1 error of A_W against A), ``rho``,
        ``width``, ``sigma_next`` (σ_{r+1}(Z)), ``explained`` (share of ‖Z‖_F² in W), ``A`` and ``A_W`` (n × L).

    Raises
    ------
    TypeError
        A non-array or non-real argument, ``r`` not an integer.
    ValueError
        Wrong dimensions or widths, NaN or inf, ``beta`` ≤ 0, ``r`` < 0, or scores that overflow (reduce ``beta``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import svd_bridge
    >>> rng = np.random.default_rng(0)
    >>> b = svd_bridge(rng.standard_normal((6, 3)), rng.standard_normal((5, 3)), 2.0, 1)
    >>> bool(b.error <= b.tau_exact <= b.tau_width <= b.tau_spec)
    True
    """
    Q, K = _head(Q, K)
    positive_real(beta, "beta")
    nonnegative_int(r, "r")
    if center is not None:
        center = _vector(center, "center", Q.shape[1], "the width of Q")
    xp = get_array_module(Q, K)
    logits = _finite_scores(beta * (Q @ K.T), "beta")
    u, Z, s, W = _bridge_subspace(Q, K, r, center)
    E = Z - (Z @ W) @ W.T
    H = beta * (u @ E.T)
    osc = H.max(axis=1) - H.min(axis=1)
    rho = float(xp.sqrt((u * u).sum(axis=1)).max())
    width = float(xp.sqrt((E * E).sum(axis=1)).max())
    sig = float(s[r]) if r < s.size else 0.0
    A = softmax(logits)
    A_W = softmax(logits - H)
    return SvdBridge(r=r, tau_exact=float(2 * xp.tanh(osc / 4).max()), tau_width=2 * math.tanh(beta * rho * width / 2),
                     tau_spec=2 * math.tanh(beta * rho * sig / 2), error=row_l1_error(A, A_W), rho=rho, width=width,
                     sigma_next=sig, explained=float((s[:r] ** 2).sum() / (s**2).sum()), A=A, A_W=A_W)


def chebyshev_radius(X: ArrayLike) -> float:
    r"""Chebyshev radius :math:`\min_c\max_i\|x_i-c\|` of the rows of X (the radius of the smallest enclosing ball).

    Convex in c: Nelder–Mead from the bounding-box centre (fine for the small visible dimensions used here),
    never above the radius about that centre. Computed in float64 on the host.

    Parameters
    ----------
    X : array (n, m), finite
        The points (rows), n ≥ 1; m = 0 gives 0.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        X not a real array.
    ValueError
        X not 2-D, without rows, NaN or inf.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import chebyshev_radius
    >>> round(chebyshev_radius(np.array([[-1.0, 0], [1, 0], [0, 0.5]])), 6)
    1.0
    """
    X = as_float_array(X, "X", ndim=2)
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row (point)")
    X = np.asarray(to_numpy(X), float)
    if X.shape[1] == 0:
        return 0.0
    c0 = (X.max(axis=0) + X.min(axis=0)) / 2
    f = lambda c: float(np.sqrt(((X - c) ** 2).sum(axis=1).max()))  # noqa: E731
    res = optimize.minimize(f, c0, method="Nelder-Mead", options=dict(xatol=1e-10, fatol=1e-12, maxiter=4000))
    return min(f(c0), float(res.fun))
