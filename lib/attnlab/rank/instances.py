r"""Instances for the approximation-rank laws: random heads, worst-case families, the lattice of the lower law.

* uniform points on the sphere and in the ball (:func:`sphere_points`, :func:`ball_points`) and the attention of
  those families (:func:`family_attention`);
* heads with a prescribed visible interaction dimension r (:func:`planted_head`), and heads whose keys lie only
  near an r-dimensional subspace (:func:`noisy_head`);
* the lattice instance of the lower law with every integer query (:func:`lattice_instance`,
  :func:`lattice_materialised`), and its sphere counterpart, a packing of caps (:func:`sphere_packing`,
  :func:`sphere_lower_count`).

Every random draw comes from the ``numpy.random.Generator`` passed in; the results are NumPy arrays.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import spatial

from . import rank_lattice as _lat, rank_sphere as _sph
from ._validate import as_generator, rng_keyword, nonnegative_int, positive_int, positive_real
from .rank_certificates import _eps
from .rank_interaction import _finite_scores, chebyshev_radius
from .logits import softmax

__all__ = [
    "sphere_points",
    "ball_points",
    "family_attention",
    "planted_head",
    "noisy_head",
    "lattice_instance",
    "lattice_materialised",
    "sphere_packing",
    "sphere_lower_count",
]


@rng_keyword(2)
def sphere_points(n: int, d: int, *, rng=None):
    r"""``n`` independent uniform points on the unit sphere :math:`S^{d-1}\subset\mathbb R^d` (normalised Gaussians).

    Parameters
    ----------
    n : int ≥ 1
        Number of points.
    d : int ≥ 1
        Ambient dimension.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    array (n, d), float64
        Rows of norm 1.

    Raises
    ------
    TypeError
        ``n`` or ``d`` not an integer, ``rng`` not a Generator.
    ValueError
        ``n`` or ``d`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sphere_points
    >>> X = sphere_points(4, 3, rng=np.random.default_rng(0))
    >>> X.shape, bool(np.allclose((X * X).sum(axis=1), 1))
    ((4, 3), True)
    """
    positive_int(n, "n")
    positive_int(d, "d")
    rng = as_generator(rng)
    X = rng.standard_normal((n, d))
    return X / np.sqrt((X * X).sum(axis=1, keepdims=True))


@rng_keyword(2)
def ball_points(n: int, d: int, *, rng=None):
    r"""``n`` independent uniform points in the unit ball :math:`B^d` (a sphere point times :math:`U^{1/d}`).

    Parameters
    ----------
    n : int ≥ 1
        Number of points.
    d : int ≥ 1
        Dimension.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    array (n, d), float64
        Rows of norm ≤ 1.

    Raises
    ------
    TypeError
        ``n`` or ``d`` not an integer, ``rng`` not a Generator.
    ValueError
        ``n`` or ``d`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import ball_points
    >>> X = ball_points(100, 2, rng=np.random.default_rng(0))
    >>> bool((np.linalg.norm(X, axis=1) <= 1).all())
    True
    """
    rng = as_generator(rng)
    return sphere_points(n, d, rng=rng) * rng.random((n, 1)) ** (1.0 / d)


@rng_keyword(4)
def family_attention(family: str, n: int, n_keys: int, beta: float, *, rng=None):
    r"""Attention :math:`\mathrm{softmax}(\beta QK^\top)` of n queries and n_keys keys, all drawn uniformly on
    :math:`S^{d-1}` (``"sphere-d"``) or in :math:`B^d` (``"ball-d"``), queries first.

    Parameters
    ----------
    family : str
        ``"sphere-d"`` or ``"ball-d"`` with an integer d ≥ 1 (e.g. ``"sphere-3"``: the sphere S^2).
    n, n_keys : int ≥ 1
        Numbers of queries and keys.
    beta : float > 0
        Inverse temperature.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    array (n, n_keys)
        Row-stochastic.

    Raises
    ------
    TypeError
        ``family`` not a string, sizes not integers, ``beta`` not real, ``rng`` not a Generator.
    ValueError
        Unknown family, sizes < 1, ``beta`` ≤ 0 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import family_attention
    >>> A = family_attention("sphere-2", 5, 7, 10.0, rng=np.random.default_rng(0))
    >>> A.shape, bool(np.allclose(A.sum(axis=1), 1))
    ((5, 7), True)
    """
    if not isinstance(family, str):
        raise TypeError(f"family must be a string such as 'sphere-3' or 'ball-2', not {type(family).__name__}")
    kind, _, dim = family.partition("-")
    if kind not in ("sphere", "ball") or not dim.isdigit() or int(dim) < 1:
        raise ValueError(f"family must be 'sphere-d' or 'ball-d' with an integer d >= 1, got {family!r}")
    positive_int(n, "n")
    positive_int(n_keys, "n_keys")
    positive_real(beta, "beta")
    draw = sphere_points if kind == "sphere" else ball_points
    rng = as_generator(rng)
    Q, K = draw(n, int(dim), rng=rng), draw(n_keys, int(dim), rng=rng)
    return softmax(_finite_scores(beta * (Q @ K.T), "beta"))


@rng_keyword(4)
def planted_head(n: int, n_keys: int, d: int, r: int, *, rng=None, radius=1.0, offset=1.0, hidden=3.0):
    r"""A head in :math:`\mathbb R^d` whose visible interaction has dimension r.

    Queries :math:`q_0 + u_i` with :math:`u_i` uniform in the radius-``radius`` ball of a random r-dimensional
    subspace; keys uniform in its unit ball plus a random component of norm ``hidden`` orthogonal to it (invisible
    to the queries). ``offset`` is the norm of the common query offset :math:`q_0` (it only adds a key term);
    ``offset=0`` removes it.

    Parameters
    ----------
    n, n_keys : int ≥ 1
        Numbers of queries and keys.
    d : int ≥ 1
        Head dimension.
    r : int in [0, d]
        Visible dimension.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
    radius, offset, hidden : float ≥ 0
        Query radius, query offset and hidden key norm.

    Returns
    -------
    (Q, K) : arrays (n, d) and (n_keys, d)

    Raises
    ------
    TypeError
        Sizes not integers, scales not real, ``rng`` not a Generator.
    ValueError
        Sizes < 1, r outside [0, d], negative or non-finite scales.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import planted_head, visible_interaction_dim
    >>> Q, K = planted_head(30, 20, 8, 2, rng=np.random.default_rng(0))
    >>> visible_interaction_dim(Q, K).r
    2
    """
    positive_int(n, "n")
    positive_int(n_keys, "n_keys")
    positive_int(d, "d")
    if nonnegative_int(r, "r") > d:
        raise ValueError(f"r must lie in [0, d] = [0, {d}], got {r}")
    for name, v in (("radius", radius), ("offset", offset), ("hidden", hidden)):
        if v != 0:
            positive_real(v, name)
    rng = as_generator(rng)
    basis, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Ur, Uo = basis[:, :r], basis[:, r:]
    q0 = offset * sphere_points(1, d, rng=rng)[0]
    Q = q0 + radius * (ball_points(n, r, rng=rng) @ Ur.T if r else np.zeros((n, d)))
    K = (ball_points(n_keys, r, rng=rng) @ Ur.T if r else 0.0) + (
        hidden * sphere_points(n_keys, d - r, rng=rng) @ Uo.T if r < d else 0.0)
    return Q, K


@rng_keyword(5)
def noisy_head(n: int, n_keys: int, d: int, r: int, sigma: float, *, rng=None):
    r"""A head of full visible dimension whose keys lie near an r-dimensional subspace: queries uniform in
    :math:`B^d`, keys uniform in the unit ball of a random r-dimensional subspace plus
    :math:`\mathcal N(0,\sigma^2 I_d)`.

    Parameters
    ----------
    n, n_keys : int ≥ 1
        Numbers of queries and keys.
    d : int ≥ 1
        Head dimension.
    r : int in [1, d]
        Dimension of the key subspace.
    sigma : float ≥ 0
        Standard deviation of the key noise.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    (Q, K) : arrays (n, d) and (n_keys, d)

    Raises
    ------
    TypeError
        Sizes not integers, ``sigma`` not real, ``rng`` not a Generator.
    ValueError
        Sizes < 1, r outside [1, d], ``sigma`` < 0 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import noisy_head
    >>> Q, K = noisy_head(10, 6, 4, 1, 0.0, rng=np.random.default_rng(0))
    >>> int(np.linalg.matrix_rank(K))
    1
    """
    positive_int(n, "n")
    positive_int(n_keys, "n_keys")
    positive_int(d, "d")
    if positive_int(r, "r") > d:
        raise ValueError(f"r must lie in [1, d] = [1, {d}], got {r}")
    if sigma != 0:
        positive_real(sigma, "sigma")
    rng = as_generator(rng)
    basis, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Q = ball_points(n, d, rng=rng)
    K = ball_points(n_keys, r, rng=rng) @ basis[:, :r].T + sigma * rng.standard_normal((n_keys, d))
    return Q, K


def lattice_instance(d: int, gamma: float, eps: float, *, margin: int = 4):
    r"""The lattice instance of the lower law with *every* integer query, materialised, for both certificates.

    Keys: integer points u of :math:`[-R,R]^d`, :math:`R=\lceil\gamma\rceil+` margin, scaled to
    :math:`k_u=u/(\sqrt d R)` with log-weight :math:`-\|u\|^2/2`; queries :math:`x=c/\gamma` for every
    :math:`c\in\mathbb Z^d` with :math:`\|c\|\le\gamma`; inverse temperature :math:`\beta=\gamma\sqrt dR`, so the
    logits are :math:`\langle c,u\rangle-\|u\|^2/2`. The message queries of the lower law
    (:math:`c\in\ell\mathbb Z^d`, ℓ = 2h + 1 with h from :func:`~attnlab.cell_half_width`) are among the rows, and
    their own cells :math:`\|u-c\|_\infty\le h` make a lower certificate of this matrix.

    Parameters
    ----------
    d : int ≥ 1
        Dimension.
    gamma : float > 0
        Lattice scale (queries of norm ≤ γ).
    eps : float in (0, 1)
        Tolerance of the message cells (for ε ≥ 1 the zero matrix is within ε and there is nothing to certify).
    margin : int ≥ 0
        Extra key layers beyond ⌈γ⌉.

    Returns
    -------
    (A, messages, cells, info)
        A (n × (2R+1)^d, row-stochastic), the message row indices, their own cells (column indices) and a dict
        with d, γ, R, ℓ, β, the smallest own-cell mass ``min_own_mass`` and the Chebyshev radii ``rho_Q``,
        ``rho_K`` of the query and key sets.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 1, γ ≤ 0 or not finite, ε outside (0, 1), margin < 0.

    Examples
    --------
    >>> from attnlab import lattice_instance
    >>> A, messages, cells, info = lattice_instance(2, 3.0, 0.5)
    >>> A.shape, len(messages), info["ell"], bool(info["min_own_mass"] > 0.75)
    ((29, 225), 5, 3, True)
    """
    positive_int(d, "d")
    positive_real(gamma, "gamma")
    eps = _eps(eps)
    nonnegative_int(margin, "margin")
    h = _lat.cell_half_width(d, eps)
    if h is None:
        raise ValueError(f"eps must be < 1 for the lattice certificate (for eps >= 1 the zero matrix is within eps), "
                         f"got {eps}")
    R = math.ceil(gamma) + margin
    grid = np.stack(np.meshgrid(*[np.arange(-R, R + 1)] * d, indexing="ij"), -1).reshape(-1, d).astype(float)
    g = math.floor(gamma)
    cs = np.stack(np.meshgrid(*[np.arange(-g, g + 1)] * d, indexing="ij"), -1).reshape(-1, d).astype(float)
    cs = cs[np.linalg.norm(cs, axis=1) <= gamma]
    A = softmax(cs @ grid.T - 0.5 * (grid * grid).sum(axis=1)[None, :])
    ell = 2 * h + 1
    messages = np.nonzero((np.mod(cs, ell) == 0).all(axis=1))[0]
    cells = [np.nonzero(np.abs(grid - cs[i]).max(axis=1) <= h)[0] for i in messages]
    own = np.array([A[i, c].sum() for i, c in zip(messages, cells)])
    info = dict(d=d, gamma=float(gamma), R=R, ell=ell, beta=float(_lat._lattice_beta(d, gamma, margin)),
                min_own_mass=float(own.min()), rho_Q=chebyshev_radius(cs / gamma),
                rho_K=chebyshev_radius(grid / (math.sqrt(d) * R)))
    return A, messages, cells, info


def lattice_materialised(d: int, gamma: float, eps: float, *, margin: int = 4):
    r"""The message rows of :func:`lattice_instance` and their own cells: a matrix whose lower certificate is
    every row (row a puts mass > (1 + ε)/2 on ``cells[a]``).

    Parameters
    ----------
    d, gamma, eps, margin
        As in :func:`lattice_instance`.

    Returns
    -------
    (A, cells)
        A (M × (2R+1)^d) and the M own cells.

    Raises
    ------
    TypeError, ValueError
        As :func:`lattice_instance`.

    Examples
    --------
    >>> from attnlab import lattice_materialised
    >>> A, cells = lattice_materialised(2, 3.0, 0.5)
    >>> A.shape, min(float(A[i, c].sum()) for i, c in enumerate(cells)) > 0.75
    ((5, 225), True)
    """
    A, messages, cells, _ = lattice_instance(d, gamma, eps, margin=margin)
    return A[messages], cells


@rng_keyword(3)
def sphere_packing(d: int, angle: float, n_candidates: int, *, rng=None):
    r"""Points on :math:`S^{d-1}` at pairwise angle > ``angle``: random candidates screened greedily with a k-d tree
    (each accepted point blocks its neighbours within chord :math:`2\sin(\text{angle}/2)`).

    Parameters
    ----------
    d : int ≥ 1
        Ambient dimension.
    angle : float in (0, π]
        The separation.
    n_candidates : int ≥ 1
        Number of uniform candidates.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    array (M, d)
        The packing (unit rows).

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d or ``n_candidates`` < 1, ``angle`` outside (0, π].

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sphere_packing
    >>> P = sphere_packing(2, 1.0, 500, rng=np.random.default_rng(0))
    >>> G = P @ P.T - 2 * np.eye(len(P))
    >>> bool(np.arccos(G.max()) > 1.0) and len(P) <= 6
    True
    """
    positive_int(d, "d")
    if positive_real(angle, "angle") > math.pi:
        raise ValueError(f"angle must lie in (0, π], got {angle}")
    positive_int(n_candidates, "n_candidates")
    X = sphere_points(n_candidates, d, rng=rng)
    chord = 2 * math.sin(angle / 2)
    tree = spatial.cKDTree(X)
    taken = np.zeros(n_candidates, dtype=bool)
    blocked = np.zeros(n_candidates, dtype=bool)
    for i in range(n_candidates):  # a loop over accepted points; each blocks its neighbours in one tree query
        if not blocked[i]:
            taken[i] = True
            blocked[tree.query_ball_point(X[i], chord)] = True
    return X[taken]


@rng_keyword(4)
def sphere_lower_count(d: int, beta: float, eps: float, n_candidates: int, *, rng=None):
    r"""Lower certificate of the continuum sphere from an explicit packing: messages at pairwise angle > 2ρ, own sets
    the caps of radius ρ, keys the uniform measure on :math:`S^{d-1}` (the limit of many equal-weight tokens).

    ρ is the smallest angle with cap mass > (1+ε)/2 (:func:`~attnlab.cap_radius`); :func:`~attnlab.sphere_gv_lower`
    bounds the size of such a packing without drawing it.

    Parameters
    ----------
    d : int ≥ 2
        Ambient dimension (the sphere :math:`S^{d-1}`).
    beta : float > 0
        Inverse temperature.
    eps : float in (0, 1)
        Tolerance.
    n_candidates : int ≥ 1
        Candidates of :func:`sphere_packing`.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional

    Returns
    -------
    dict
        d, beta, eps, rho, M (the certificate: the packing size), mass (own-cap mass), candidates.

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        d < 2, ``beta`` ≤ 0 or not finite, ``eps`` outside (0, 1), ``n_candidates`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import sphere_lower_count
    >>> x = sphere_lower_count(2, 1e3, 0.25, 2000, rng=np.random.default_rng(0))
    >>> bool(x["mass"] > 0.625 and x["M"] >= 1)
    True
    """
    d = _sph._sphere_dim(d)
    positive_real(beta, "beta")
    eps = _eps(eps)
    if eps >= 1:
        raise ValueError(f"eps must be < 1 for a cap certificate (for eps >= 1 the zero matrix is within eps), "
                         f"got {eps}")
    positive_int(n_candidates, "n_candidates")
    rng = as_generator(rng)
    rho = _sph.cap_radius(d, beta, eps)
    P = sphere_packing(d, min(2 * rho, math.pi), n_candidates, rng=rng)
    return dict(d=d, beta=float(beta), eps=eps, rho=rho, M=int(P.shape[0]), mass=_sph._cap_mass(d, beta, rho),
                candidates=n_candidates)
