r"""Random instances for the approximation-rank laws: points on the sphere and in the ball, their attention, heads.

* uniform points on the sphere and in the ball (:func:`sphere_points`, :func:`ball_points`) and the attention of
  those families (:func:`family_attention`);
* heads with a prescribed visible interaction dimension r (:func:`planted_head`), and heads whose keys lie only
  near an r-dimensional subspace (:func:`noisy_head`).

The lattice and sphere instances of the laws are with their geometry (:mod:`attnlab.rank.lattice`,
:mod:`attnlab.rank.sphere`).

Every random draw comes from the ``numpy.random.Generator`` passed in; the results are NumPy arrays.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core._validate import Array, SeedLike
from ..core._validate import as_generator, rng_keyword, nonnegative_int, positive_int, positive_real
from ..core._validate import finite_scores as _finite_scores
from ..core.logits import softmax

__all__ = [
    "sphere_points",
    "ball_points",
    "family_attention",
    "Head",
    "planted_head",
    "noisy_head",
]


@rng_keyword(2)
def sphere_points(n: int, d: int, *, rng: SeedLike = None) -> np.ndarray:
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
def ball_points(n: int, d: int, *, rng: SeedLike = None) -> np.ndarray:
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
def family_attention(family: str, n: int, n_keys: int, beta: float, *, rng: SeedLike = None) -> Array:
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


class Head(NamedTuple):
    r"""The queries and keys of a head: what :func:`planted_head` and :func:`noisy_head` return.

    Attributes
    ----------
    Q : array (n, d), float64
        The queries (rows).
    K : array (n_keys, d), float64
        The keys (rows).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import planted_head
    >>> Q, K = planted_head(5, 4, 3, 1, rng=np.random.default_rng(0))
    >>> head = planted_head(5, 4, 3, 1, rng=np.random.default_rng(0))
    >>> head.Q.shape, head.K.shape, bool((head.Q == Q).all())
    ((5, 3), (4, 3), True)
    """
    Q: np.ndarray
    K: np.ndarray


@rng_keyword(4)
def planted_head(n: int, n_keys: int, d: int, r: int, *, rng: SeedLike = None, radius: float = 1.0,
                 offset: float = 1.0, hidden: float = 3.0) -> Head:
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
    Head
        ``Q`` (n × d) and ``K`` (n_keys × d); it unpacks as ``Q, K``.

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
    return Head(Q, K)


@rng_keyword(5)
def noisy_head(n: int, n_keys: int, d: int, r: int, sigma: float, *, rng: SeedLike = None) -> Head:
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
    Head
        ``Q`` (n × d) and ``K`` (n_keys × d); it unpacks as ``Q, K``.

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
    return Head(Q, K)
