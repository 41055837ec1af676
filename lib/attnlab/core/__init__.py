"""Exact attention and what every other part of the library stands on.

* :mod:`attnlab.core.exact` -- softmax(beta Q K^T) V, dense and blocked, with batch axes, masks and log-sum-exp;
* :mod:`attnlab.core.logits` -- softmax, log_softmax and logsumexp along axes, stable at any temperature;
* :mod:`attnlab.core.backend` -- the array backend (NumPy, CuPy, ...) and seeded generators on it;
* ``attnlab.core._validate`` -- the one validation layer every public function calls at its boundary (private).

Every public name here is also ``attnlab.<name>``; ``from attnlab.core import *`` gives the names of these
modules' ``__all__``.
"""
from .exact import *  # noqa: F403
from .logits import *  # noqa: F403
from .backend import *  # noqa: F403
from . import exact, logits, backend

_MODULES = (exact, logits, backend)
__all__ = [name for _m in _MODULES for name in _m.__all__]
