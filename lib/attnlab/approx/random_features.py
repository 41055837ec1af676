r"""Random features and sequence projections: Performer's FAVOR+ and Linformer.

FAVOR+ approximates the softmax kernel :math:`\exp(q^\top k)` by positive random features

.. math::
    \phi(x) = \frac{e^{-\|x\|^2/2}}{\sqrt m}\,\big(e^{\omega_1^\top x}, \dots, e^{\omega_m^\top x}\big)

    \mathbb E\,[\phi(q)^\top\phi(k)] = e^{q^\top k}\ \text{ for } \omega_i \sim \mathcal N(0, I_d),

and attention by :math:`\tilde O = \mathrm{diag}(\phi(Q')\phi(K')^\top 1)^{-1}\,\phi(Q')\,(\phi(K')^\top V)` with
:math:`Q' = \sqrt\beta\,Q`, :math:`K' = \sqrt\beta\,K` (:math:`\beta = 1/\sqrt d` gives the :math:`d^{-1/4}` scaling of
Performer). Linformer replaces :math:`K, V` by :math:`EK, FV` with :math:`E, F \in \mathbb R^{m\times n}`.

The attention functions take their array namespace from their inputs (``array_api_compat``); the random draws are
made with a NumPy ``Generator`` and converted. The book audits the low-rank tutorial's claims about them in chapter 10.

References
----------
- K. Choromanski et al., "Rethinking Attention with Performers", ICLR 2021.
- S. Wang, B. Z. Li, M. Khabsa, H. Fang, H. Ma, "Linformer: Self-Attention with Linear Complexity", 2020.
- F. X. Yu et al., "Orthogonal Random Features", NeurIPS 2016.
"""
from __future__ import annotations

import math

import numpy as np

from numpy.typing import ArrayLike
from ..core._validate import Array, SeedLike
from ..core._validate import (as_generator, beta_arg, choice, flag, namespace_of, positive_int, qkv, real_array,
                              renamed, rng_keyword)

__all__ = ["draw_omega", "favor_features", "favor_kernel_variance", "favor_attention", "performer_attention",
           "linformer_attention"]

_NORMS = ("chi", "sqrt_d", "unit")


# --------------------------------------------------------------------------- validation (public boundary)
def _int(n, name: str) -> int:
    return positive_int(n, name)


def _float(x, name: str, xp, ndim: int = 2):
    """``x`` as a finite, non-empty real floating array of ``xp`` (the policy of :mod:`attnlab.core._validate`)."""
    return real_array(x, name, xp, ndim=ndim, nonempty=True)


def _qkv(Q, K, V, beta):
    xp = namespace_of(Q=Q, K=K, V=V)
    Q, K, V = qkv(Q, K, V, xp)
    beta = beta_arg(beta, default=1.0 / math.sqrt(Q.shape[1]))
    dtype = xp.result_type(Q, K, V)
    return xp, xp.astype(Q, dtype), xp.astype(K, dtype), xp.astype(V, dtype), beta


# --------------------------------------------------------------------------- features
@rng_keyword(2)
def draw_omega(m: int, d: int, *, rng: SeedLike = None, orthogonal: bool = True, norms: str = "chi",
               size: int | None = None) -> Array:
    r"""Random feature directions :math:`\omega_1, \dots, \omega_m \in \mathbb R^d`, one per row.

    - ``orthogonal=False``: independent rows :math:`\omega_i \sim \mathcal N(0, I_d)`.
    - ``orthogonal=True``: blocks of :math:`d` exactly orthogonal rows (the Q factor of a Gaussian
      :math:`d\times d` matrix with the signs of :math:`\mathrm{diag}\,R`, i.e. Haar-distributed), independent
      blocks, the last one truncated to :math:`m \bmod d` rows; then every row rescaled to a norm given by ``norms``.

    ``norms="chi"`` (the default) draws the norms independently from the :math:`\chi_d` law of a Gaussian vector's
    norm, so each row is marginally :math:`\mathcal N(0, I_d)` and the FAVOR+ estimator stays unbiased. ``"sqrt_d"``
    fixes them at :math:`\sqrt d` and ``"unit"`` leaves the unit rows of the orthogonal matrix (the low-rank
    tutorial's reading); both bias the estimator (chapter 10 measures the bias). With ``orthogonal=False`` only
    ``"chi"`` (no rescaling) is allowed.

    Parameters
    ----------
    m : int
        Number of features, ``m >= 1`` (need not be a multiple of ``d``).
    d : int
        Dimension, ``d >= 1``.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of every draw (SciPy's SPEC 7; ``None`` draws fresh entropy, so pass a seed for a reproducible
        result).
    orthogonal : bool
        Orthogonal blocks (True) or independent rows (False).
    norms : {"chi", "sqrt_d", "unit"}
        Row norms of the orthogonal draw.
    size : int, optional
        Number of independent draws, made at once (batched QR); ``None`` for one.

    Returns
    -------
    omega : numpy.ndarray, shape (m, d), or (size, m, d) with ``size``; float64

    Raises
    ------
    TypeError
        ``m``, ``d`` not integers, ``rng`` not a seed or generator.
    ValueError
        ``m`` or ``d`` < 1, unknown ``norms``, or ``norms`` other than "chi" with ``orthogonal=False``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import draw_omega
    >>> W = draw_omega(4, 4, rng=np.random.default_rng(0), norms="unit")
    >>> bool(np.allclose(W @ W.T, np.eye(4)))
    True
    >>> draw_omega(6, 4, rng=np.random.default_rng(0), orthogonal=False).shape
    (6, 4)
    >>> draw_omega(6, 4, rng=np.random.default_rng(0), size=3).shape
    (3, 6, 4)
    """
    m, d = _int(m, "m"), _int(d, "d")
    s = 1 if size is None else _int(size, "size")
    rng = as_generator(rng)
    orthogonal = flag(orthogonal, "orthogonal")
    norms = choice(norms, _NORMS, "norms")
    if not orthogonal:
        if norms != "chi":
            raise ValueError(f"norms={norms!r} needs orthogonal=True (independent rows are Gaussian)")
        W = rng.standard_normal((s, m, d))
        return W if size is not None else W[0]
    nb = -(-m // d)
    q, r = np.linalg.qr(rng.standard_normal((s * nb, d, d)))          # batched
    sign = np.where(np.diagonal(r, axis1=1, axis2=2) < 0, -1.0, 1.0)
    W = (np.swapaxes(q, 1, 2) * sign[:, :, None]).reshape(s, nb * d, d)[:, :m]   # rows of Haar orthogonal matrices
    if norms == "chi":
        W = W * np.linalg.norm(rng.standard_normal((s, m, d)), axis=2)[:, :, None]
    elif norms == "sqrt_d":
        W = W * math.sqrt(d)
    return W if size is not None else W[0]


def favor_features(X: ArrayLike, omega: ArrayLike) -> Array:
    r"""The positive random features :math:`\phi(x) = e^{-\|x\|^2/2}\,(e^{\omega_i^\top x})_{i\le m}/\sqrt m`.

    Row ``i`` of the result is :math:`\phi(X_i)`; :math:`\phi(q)^\top\phi(k)` is an unbiased estimate of
    :math:`e^{q^\top k}` when the rows of ``omega`` are :math:`\mathcal N(0, I_d)` (iid, or orthogonal with
    :math:`\chi_d` norms). No temperature is applied: scale ``X`` yourself (by :math:`d^{-1/4}` for
    :math:`e^{q^\top k/\sqrt d}`). For attention use :func:`favor_attention`, which never overflows.

    Parameters
    ----------
    X : array, shape (n, d)
        Real floating (float16 is computed in float32), finite.
    omega : array, shape (m, d)
        Feature directions, e.g. from :func:`draw_omega`.

    Returns
    -------
    phi : array, shape (n, m), same namespace and dtype as ``X``.

    Raises
    ------
    ValueError
        Non-2-D or empty arrays, NaN/inf, widths of ``X`` and ``omega`` that differ, or exponents that overflow
        the dtype (the message names ``X``).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import favor_features
    >>> q, k = np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]])
    >>> omega = np.eye(2)                       # the low-rank tutorial's worked example
    >>> round(float((favor_features(q, omega) @ favor_features(k, omega).T)[0, 0]), 4)
    1.4479
    """
    xp = namespace_of(X=X, omega=omega)
    X = _float(X, "X", xp)
    omega = _float(omega, "omega", xp)
    if X.shape[1] != omega.shape[1]:
        raise ValueError(f"X and omega must have the same width d, got {X.shape[1]} and {omega.shape[1]}")
    omega = xp.astype(omega, X.dtype)
    expo = X @ omega.T - xp.sum(X * X, axis=1, keepdims=True) / 2
    if not bool(xp.all(expo < math.log(xp.finfo(X.dtype).max))):
        raise ValueError("X is too large: exp(omega^T x - |x|^2/2) overflows; use favor_attention, which "
                         "rescales exactly")
    return xp.exp(expo) / math.sqrt(omega.shape[0])


def favor_kernel_variance(q: ArrayLike, k: ArrayLike, m: int) -> float:
    r"""Variance of the iid FAVOR+ estimate :math:`\phi(q)^\top\phi(k)` of :math:`e^{q^\top k}` with ``m`` features.

    .. math::
        \mathrm{Var} = \frac{e^{2q^\top k}\,\big(e^{\|q+k\|^2} - 1\big)}{m}

        \frac{\mathrm{sd}}{e^{q^\top k}} = \sqrt{\frac{e^{\|q+k\|^2}-1}{m}},

    from :math:`\mathbb E[e^{2\omega^\top(q+k)}] = e^{2\|q+k\|^2}` (derived in the book's chapter 10).

    This answers "how many features?": for a target relative standard deviation ρ of one kernel entry,
    :math:`m \approx (e^{\|q+k\|^2} - 1)/\rho^2`, which grows like :math:`e^{\|q+k\|^2}`: with
    :math:`\beta = 1/\sqrt d` and unit-variance entries, :math:`\|q+k\|^2 \approx 2\sqrt d` (about 16 at d = 64),
    so no practical m controls every entry.

    Parameters
    ----------
    q, k : array_like, shape (d,)
        Finite real vectors of equal length (already scaled by the temperature).
    m : int
        Number of independent features, ``m >= 1``.

    Returns
    -------
    float
        The variance of the estimate (its relative standard deviation is ``sqrt(var) / exp(q @ k)``).

    Raises
    ------
    ValueError
        Shapes that differ or are not 1-D, NaN/inf, ``m < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import favor_kernel_variance
    >>> v = favor_kernel_variance(np.array([1.0, 0.0]), np.array([0.5, 0.5]), 2)
    >>> round(float(np.sqrt(v) / np.exp(0.5)), 4)      # relative standard deviation at m = 2
    2.3646
    """
    m = _int(m, "m")
    q = _float(np.asarray(q, dtype=float) if not hasattr(q, "dtype") else q, "q", np, ndim=1)
    k = _float(np.asarray(k, dtype=float) if not hasattr(k, "dtype") else k, "k", np, ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    s = q + k
    return float(np.exp(2 * q @ k) * np.expm1(s @ s) / m)


# --------------------------------------------------------------------------- FAVOR+ attention
def _exponents(X, omega, scale, xp):
    """:math:`\\omega^\\top x' - \\|x'\\|^2/2` for :math:`x' = \\sqrt{scale}\\,x`, shape (n, m)."""
    Xs = X * math.sqrt(scale)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected by the caller and raised
        return Xs @ omega.T - xp.sum(Xs * Xs, axis=1, keepdims=True) / 2


def _exact_row(Q, K, V, omega, beta, i, xp):
    """Row ``i`` of the causal estimate in the log domain (a fallback when the fast path underflows)."""
    lk = _exponents(Q[i:i + 1, :], omega, beta, xp) + _exponents(K[:i + 1, :], omega, beta, xp)   # (i+1, m)
    mx = xp.max(lk, axis=1, keepdims=True)
    logk = xp.log(xp.sum(xp.exp(lk - mx), axis=1)) + mx[:, 0]   # log kappa_ij, j <= i
    w = xp.exp(logk - xp.max(logk))
    return (w @ V[:i + 1, :]) / xp.sum(w)


#: Rows per block of the streamed non-causal passes.
_BLOCK = 1024


def favor_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, omega: ArrayLike, *, causal: bool = False,
                    beta: float | None = None, chunk: int = 128) -> Array:
    r"""FAVOR+ attention at fixed features ``omega`` (the estimator of :func:`performer_attention`).

    .. math::
        \tilde O_i = \frac{\sum_j \kappa_{ij} v_j}{\sum_j \kappa_{ij}}

        \kappa_{ij} = \phi(\sqrt\beta q_i)^\top\phi(\sqrt\beta k_j),

    the sums over :math:`j \le i` when ``causal``. Computed as :math:`\phi(Q')[\phi(K')^\top V]`: O(n·m·d) time,
    no :math:`n\times n` matrix. The non-causal version streams twice over blocks of 1024 rows (keys, then
    queries): O(1024·m + m·d_v) memory besides inputs and output, within the O(n·m) of the low-rank tutorial. The causal
    version walks over blocks of ``chunk`` queries carrying the prefix sums
    :math:`\sum_{j<i}\phi(k_j)v_j^\top` (m×d_v) and :math:`\sum_{j<i}\phi(k_j)`, with a masked chunk×chunk
    product inside each block: O(n·(chunk + d)·m) time, O(chunk·(chunk + m) + m·d_v) extra memory.

    **Stabiliser.** With :math:`a_{il}, b_{jl}` the exponents of query :math:`i` and key :math:`j` in feature
    :math:`l`, the code uses :math:`\beta_l = \max_j b_{jl}` (per feature, over the keys seen so far) and
    :math:`\alpha_i = \max_l (a_{il} + \beta_l)`:
    :math:`\kappa_{ij} \propto \sum_l e^{a_{il} + \beta_l - \alpha_i}\,e^{b_{jl} - \beta_l}`. The factors
    :math:`e^{\beta_l}` move between the two sides of the same product and :math:`e^{\alpha_i}` cancels between
    numerator and denominator, so the result is *exactly* the unstabilised estimator (no additive
    :math:`\epsilon`, hence no bias), every exponent is :math:`\le 0`, and in the non-causal case the denominator
    is :math:`\ge 1`. Causal rows whose denominator still underflows (extreme temperatures) are recomputed in the
    log domain. Any temperature is safe.

    Parameters
    ----------
    Q : array, shape (n_q, d)
    K : array, shape (n_k, d)
    V : array, shape (n_k, d_v)
        Finite, real floating (float16 computed in float32); one array namespace.
    omega : array, shape (m, d)
        Feature directions (:func:`draw_omega`).
    causal : bool
        Query ``i`` sees keys ``j <= i`` (needs ``n_q == n_k``).
    beta : float, optional
        Inverse temperature, any finite real; ``None`` means :math:`1/\sqrt d` (:math:`q, k` scaled by
        :math:`d^{-1/4}`).
    chunk : int
        Block length of the causal scan, ``>= 1``.

    Returns
    -------
    O : array, shape (n_q, d_v), the inputs' namespace and floating dtype.

    Raises
    ------
    ValueError
        Shapes that do not match (``Q``/``K`` widths, ``K``/``V`` rows, ``omega`` width, causal lengths),
        empty arrays, NaN/inf, ``beta`` not finite, ``chunk < 1``.
    TypeError
        Non-floating or non-array inputs, non-integer ``chunk``.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention, draw_omega, favor_attention
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((6, 4)) for _ in range(3))
    >>> omega = draw_omega(4096, 4, rng=1)
    >>> err = np.linalg.norm(favor_attention(Q, K, V, omega) - attention(Q, K, V)) / np.linalg.norm(attention(Q, K, V))
    >>> bool(err < 0.1)
    True
    """
    xp, Q, K, V, beta = _qkv(Q, K, V, beta)
    omega = _float(omega, "omega", None)
    if omega.shape[1] != Q.shape[1]:
        raise ValueError(f"omega must have the width d = {Q.shape[1]} of Q and K, got {omega.shape[1]}")
    omega = xp.asarray(omega, dtype=Q.dtype) if namespace_of(omega=omega) is xp else xp.asarray(np.asarray(omega),
                                                                                                dtype=Q.dtype)
    chunk = _int(chunk, "chunk")
    causal = flag(causal, "causal")
    if beta < 0:  # exp(beta q.k) = exp(|beta| (-q).k): the sign goes into the queries, the estimator is unchanged
        Q, beta = -Q, -beta
    if causal and Q.shape[0] != K.shape[0]:
        raise ValueError(f"causal=True needs as many queries as keys, got {Q.shape[0]} and {K.shape[0]}")
    n, m = Q.shape[0], omega.shape[0]

    def expo(X, r0, r1):
        e = _exponents(X[r0:min(r1, X.shape[0]), :], omega, beta, xp)
        if not bool(xp.all(xp.isfinite(e))):
            raise ValueError("Q and K are too large for their dtype: |sqrt(beta)·x|² overflows")
        return e

    ref = xp.full((1, m), -math.inf, dtype=Q.dtype)              # beta_l: per-feature max over keys so far
    S = xp.zeros((m, V.shape[1]), dtype=Q.dtype)                  # sum_j e^{b_jl - beta_l} v_j
    z = xp.zeros((m, 1), dtype=Q.dtype)                           # sum_j e^{b_jl - beta_l}

    def rescale(bt):
        """Move the reference to the max over the keys so far and ``bt``; rescale the state exactly."""
        nonlocal S, z, ref
        new = xp.maximum(ref, xp.max(bt, axis=0, keepdims=True))
        resc = xp.exp(ref - new).T                                 # (m, 1); 0 on the first block
        S, z, ref = S * resc, z * resc, new
        return xp.exp(bt - ref)                                    # the block's key factors, <= 1

    def add(Kf, Vt):
        nonlocal S, z
        S = S + Kf.T @ Vt
        z = z + xp.sum(Kf, axis=0)[:, None]

    def query_factors(at):
        A = at + ref
        return xp.exp(A - xp.max(A, axis=1, keepdims=True))       # alpha_i: the row max is 1

    if not causal:   # two streamed passes over blocks of _BLOCK rows: O(_BLOCK·m + m·d_v) extra memory
        for r0 in range(0, K.shape[0], _BLOCK):
            add(rescale(expo(K, r0, r0 + _BLOCK)), V[r0:min(r0 + _BLOCK, K.shape[0]), :])
        outs = []
        for r0 in range(0, n, _BLOCK):
            Qf = query_factors(expo(Q, r0, r0 + _BLOCK))
            outs.append((Qf @ S) / (Qf @ z))                       # denominator >= 1
        return xp.concat(outs, axis=0)
    tiny = math.sqrt(float(xp.finfo(Q.dtype).smallest_normal))
    idx = xp.arange(chunk)
    outs = []
    for r0 in range(0, n, chunk):
        r1 = min(n, r0 + chunk)
        at, bt, Vt = expo(Q, r0, r1), expo(K, r0, r1), V[r0:r1, :]
        Kf = rescale(bt)                                           # earlier keys now share the new reference
        Qf = query_factors(at)
        W = Qf @ Kf.T                                              # (c, c), masked to j <= i
        c = r1 - r0
        W = xp.where(idx[:c, None] >= idx[None, :c], W, xp.zeros_like(W))
        num = Qf @ S + W @ Vt                                      # earlier blocks + this block
        den = Qf @ z + xp.sum(W, axis=1, keepdims=True)
        add(Kf, Vt)
        out = num / xp.where(den > 0, den, xp.ones_like(den))
        if bool(xp.any(den < tiny)):  # underflow at extreme temperatures: those rows in the log domain
            rows = [out[i, :] if bool(den[i, 0] >= tiny) else _exact_row(Q, K, V, omega, beta, r0 + i, xp)
                    for i in range(c)]
            out = xp.stack(rows)
        outs.append(out)
    return xp.concat(outs, axis=0)


@rng_keyword(4)
def performer_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, m: int, *, rng: SeedLike = None,
                        orthogonal: bool = True, causal: bool = False, beta: float | None = None,
                        chunk: int = 128) -> Array:
    r"""Performer attention (FAVOR+): :func:`favor_attention` with ``m`` fresh random features from ``rng``.

    :math:`\omega` = :func:`draw_omega` ``(m, d, rng, orthogonal=orthogonal)`` (orthogonal blocks with
    :math:`\chi_d` row norms, or iid Gaussian rows), then
    :math:`\tilde O = \mathrm{diag}(\phi(Q')\phi(K')^\top 1)^{-1}\phi(Q')[\phi(K')^\top V]` with
    :math:`Q' = \sqrt\beta Q`, :math:`K' = \sqrt\beta K`: an estimate of ``attention(Q, K, V, beta=beta)``
    whose kernel :math:`\phi(q')^\top\phi(k')` is unbiased for :math:`e^{\beta q^\top k}` (the ratio is not).
    Time O(n·m·d), memory O(m·(d + block)) besides inputs and output (no n×n or n×m array), also with
    ``causal=True``.

    How many features: the variance of each kernel estimate is :func:`favor_kernel_variance` (it grows like
    :math:`e^{\|q'+k'\|^2}/m`); measure the output error against :func:`attention` on your own inputs at small
    n before choosing m.

    Parameters
    ----------
    Q : array, shape (n_q, d)
    K : array, shape (n_k, d)
    V : array, shape (n_k, d_v)
        Finite, real floating; one array namespace (NumPy, CuPy, any array-API library).
    m : int
        Number of random features, ``m >= 1``.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of the features (SciPy's SPEC 7; drawn in NumPy and converted).
    orthogonal : bool
        Orthogonal random features (the default) or iid.
    causal : bool
        Query ``i`` sees keys ``j <= i`` (prefix sums; ``n_q == n_k``).
    beta : float, optional
        Inverse temperature, any finite real (a negative one attends to the least similar keys); ``None``
        means :math:`1/\sqrt d`.
    chunk : int
        Block length of the causal scan, ``>= 1``.

    Returns
    -------
    O : array, shape (n_q, d_v)

    Raises
    ------
    ValueError
        ``m < 1``; mismatched shapes; NaN/inf; ``beta`` not finite; ``chunk < 1`` (messages name the argument).
    TypeError
        Non-integer ``m`` or ``chunk``, ``rng`` not a seed or generator, non-floating arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import attention, performer_attention
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((8, 4)) for _ in range(3))
    >>> O = performer_attention(Q, K, V, 2048, rng=np.random.default_rng(1), causal=True)
    >>> bool(np.linalg.norm(O - attention(Q, K, V, causal=True)) < 0.1 * np.linalg.norm(V))
    True

    Notes
    -----
    The book audits the claims of the low-rank tutorial about FAVOR+ (unbiasedness, variance, cost) in chapter 10.

    References
    ----------
    - K. Choromanski et al., "Rethinking Attention with Performers", ICLR 2021.
    """
    m = _int(m, "m")
    rng = as_generator(rng)
    xp = namespace_of(Q=Q, K=K, V=V)
    d = _float(Q, "Q", xp).shape[1]
    omega = draw_omega(m, d, rng=rng, orthogonal=orthogonal)
    if xp is not namespace_of():
        omega = xp.asarray(omega)
    return favor_attention(Q, K, V, omega, causal=causal, beta=beta, chunk=chunk)


# --------------------------------------------------------------------------- Linformer
@renamed(k="m")
@rng_keyword(4)
def linformer_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, m: int, *, rng: SeedLike = None,
                        beta: float | None = None) -> Array:
    r"""Linformer attention with random Gaussian projections of the keys and values along the sequence.

    .. math::
        \tilde O = \mathrm{rowsoftmax}\big(\beta\,Q(EK)^\top\big)\,(FV)

        E, F \in \mathbb R^{m\times n},\ E_{rj}, F_{rj} \sim \mathcal N(0, 1/m)\ \text{independent},

    in O(n·m·d) time and O(n·m) memory (the softmax shifted by its row maximum: any temperature is safe).

    This is *not* an estimator of attention. Linformer learns E and F; with random ones, each row of :math:`FV` is a
    random combination of all n values, of size about :math:`\sqrt{n/m}` times a value's, while attention averages
    the values. For Gaussian Q, K, V (d = 64, :math:`\beta = 1/\sqrt d`), n = 256 and m = 64,
    the largest entry error is 4.3 to 6.2 over five draws where :math:`\max|O| = 0.76` (the mean of the values,
    ignoring the queries, errs by 0.75); at n = 1024, m = 64, 13 to 16 where :math:`\max|O| = 0.27`. Use it to
    study the architecture, not to approximate a trained layer's attention.

    Parameters
    ----------
    Q : array, shape (n_q, d)
    K : array, shape (n, d)
    V : array, shape (n, d_v)
        Finite, real floating; one array namespace.
    m : int
        Projected length, ``m >= 1`` (``m > n`` is allowed, though it compresses nothing). The keyword ``k`` is a
        deprecated spelling.
    rng : {None, int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator}, optional
        Source of ``E`` and ``F`` (SciPy's SPEC 7; drawn in NumPy and converted).
    beta : float, optional
        Inverse temperature, any finite real (a negative one attends to the least similar keys); ``None``
        means :math:`1/\sqrt d`.

    Returns
    -------
    O : array, shape (n_q, d_v)

    Raises
    ------
    ValueError
        ``m < 1``; mismatched shapes; NaN/inf; ``beta`` not finite.
    TypeError
        Non-integer ``m``, ``rng`` not a seed or generator, non-floating arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import linformer_attention
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = (rng.standard_normal((16, 4)) for _ in range(3))
    >>> linformer_attention(Q, K, V, 4, rng=np.random.default_rng(1)).shape
    (16, 4)

    Random projections do not approximate attention (see above):

    >>> from attnlab import attention
    >>> Q, K, V = (rng.standard_normal((256, 64)) for _ in range(3))
    >>> O = attention(Q, K, V)
    >>> err = np.abs(linformer_attention(Q, K, V, 64, rng=np.random.default_rng(1)) - O).max()
    >>> bool(err > 2 * np.abs(O).max())
    True

    Notes
    -----
    The book audits the low-rank tutorial's claims about Linformer in chapter 10.

    References
    ----------
    - S. Wang, B. Z. Li, M. Khabsa, H. Fang, H. Ma, "Linformer: Self-Attention with Linear Complexity", 2020.
    """
    m = _int(m, "m")
    rng = as_generator(rng)
    xp, Q, K, V, beta = _qkv(Q, K, V, beta)
    n = K.shape[0]
    E = xp.asarray(rng.standard_normal((m, n)) / math.sqrt(m), dtype=Q.dtype)
    F = xp.asarray(rng.standard_normal((m, n)) / math.sqrt(m), dtype=Q.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected below and raised
        S = (Q * beta) @ (E @ K).T
    if not bool(xp.all(xp.isfinite(S))):
        raise ValueError("Q and K are too large for their dtype: beta·Q(EK)^T overflows")
    P = xp.exp(S - xp.max(S, axis=1, keepdims=True))
    return (P @ (F @ V)) / xp.sum(P, axis=1, keepdims=True)
