"""Approximate attention and the dimensions it needs.

* :mod:`attnlab.approx.pda` -- projection then low-rank attention (PDA) and its parameter rule;
* :mod:`attnlab.approx.projection` -- Gaussian random projections and projected logits;
* :mod:`attnlab.approx.jl` -- Johnson-Lindenstrauss dimensions: exact tails, bounds and samplers;
* :mod:`attnlab.approx.random_features` -- Performer's FAVOR+ random features and Linformer;
* :mod:`attnlab.approx.subquadratic` -- attention within eps at any temperature in near-linear time (1-D and 2-D
  queries and keys).

Every public name here is also ``attnlab.<name>``; ``from attnlab.approx import *`` gives the names of these
modules' ``__all__``.
"""
from .pda import *  # noqa: F403
from .projection import *  # noqa: F403
from .jl import *  # noqa: F403
from .random_features import *  # noqa: F403
from .subquadratic import *  # noqa: F403
from . import pda, projection, jl, random_features, subquadratic

_MODULES = (pda, projection, jl, random_features, subquadratic)
__all__ = [name for _m in _MODULES for name in _m.__all__]
