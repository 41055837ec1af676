"""What chapters 07 (rank-upper) and 08 (rank-lower) share: the common preset entries and the sphere-2 gap experiment.

Private to :mod:`attnlab.audit.rank_upper` (and its section, :mod:`attnlab.audit.rank_upper_law`) and
:mod:`attnlab.audit.rank_lower`, whose ``PRESETS`` include
``SHARED``; :func:`gap_experiment` is memoized on its own entries only, so both chapters read one computation.
"""
from __future__ import annotations

import numpy as np

from .. import family_attention, rank_lower_certificate, rank_upper_certificate, svd_upper_certificates
from .cache import memoize

#: Entries both chapters use: ``eps`` the tolerances, ``lat_*`` the lattice instances (implicit certificates of
#: chapter 07, lower laws of chapter 08), ``gap_*`` the materialised sphere-2 family.
SHARED = {
    "smoke": dict(eps=[0.25], lat_d=[2, 3], lat_betas=[1e3, 1e4, 1e5], gap_n=512, gap_keys=128, gap_betas=[8, 32, 128]),
    "book": dict(eps=[0.25, 0.5], lat_d=[2, 3, 4, 6], lat_betas=[1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6], gap_n=4096,
                 gap_keys=512, gap_betas=[8, 16, 32, 64, 128, 256, 512]),
    "paper": dict(eps=[0.15, 0.25, 0.35, 0.5], lat_d=[2, 3, 4, 6], lat_betas=[1e3, 1e4, 1e5, 1e6, 1e7], gap_n=16384,
                  gap_keys=2048, gap_betas=[8, 16, 32, 64, 128, 256, 512, 1024, 2048]),
}

_GAP_KEYS = ("gap_n", "gap_keys", "gap_betas", "eps")


def svd_certificates(A, eps):
    """``rank_upper_certificate(A, e, "svd")`` for every e in ``eps``, as (bound, error) pairs: the same certificates,
    with the SVD of A computed once for all ε (:func:`attnlab.svd_upper_certificates`)."""
    return [(c.bound, c.error) for c in svd_upper_certificates(A, eps)]


def gap_experiment(p: dict, seed: int):
    """Upper (greedy, SVD) and lower certificates of the materialised sphere-2 family against β, per ε
    (``gap_*`` and ``eps`` of ``p``; memoized on those entries only)."""
    return _gap_experiment({k: p[k] for k in _GAP_KEYS}, seed)


@memoize
def _gap_experiment(p: dict, seed: int):
    """The body of :func:`gap_experiment`, memoized on its own entries of the preset."""
    rng = np.random.default_rng(seed)
    out = []
    for beta in p["gap_betas"]:
        A = family_attention("sphere-2", p["gap_n"], p["gap_keys"], beta, rng=rng)
        for e, (s_rank, s_error) in zip(p["eps"], svd_certificates(A, p["eps"])):
            g = rank_upper_certificate(A, e, "greedy")
            lc = rank_lower_certificate(A, e)
            out.append(dict(beta=beta, eps=e, greedy=g.bound, svd=s_rank, upper=min(g.bound, s_rank), lower=lc.bound,
                            upper_error=g.error if g.bound <= s_rank else s_error))
    return out
