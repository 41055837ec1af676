"""attnlab: the algorithms, bounds and certificates of approximate softmax attention that the attnlab book audits.

Everything public is importable from here (``attnlab.softmax``, ``attnlab.pda_attention``, …); each name lives in
the module of its topic. The core algorithms take their array namespace from their inputs (the array API standard,
through ``array-api-compat``): NumPy, CuPy and other conforming libraries go through one code path. The book's
experiments, checks and figures are in :mod:`attnlab.audit`, which this package never imports; the figure style is
in :mod:`attnlab.plotting` (imported only on request, since it needs matplotlib).
"""
import importlib as _importlib

from .adversarial import *  # noqa: F403
from .attention import *  # noqa: F403
from .backend import *  # noqa: F403
from .gradient import *  # noqa: F403
from .hardness import *  # noqa: F403
from .jl import *  # noqa: F403
from .pda import *  # noqa: F403
from .perturbation import *  # noqa: F403
from .projection import *  # noqa: F403
from .rank import *  # noqa: F403
from .rank_implicit import *  # noqa: F403
from .softmax import *  # noqa: F403
from .sparse_patterns import *  # noqa: F403
from .spectrum import *  # noqa: F403

__version__ = "0.1.0"

#: The library's modules, one topic each (``attnlab.softmax`` and ``attnlab.attention`` are the functions; their
#: modules are ``sys.modules["attnlab.softmax"]``, …); ``__all__`` is the union of theirs.
MODULES = ("adversarial", "attention", "backend", "gradient", "hardness", "jl", "pda", "perturbation", "projection",
           "rank", "rank_implicit", "softmax", "sparse_patterns", "spectrum")
__all__ = sorted({name for mod in MODULES for name in _importlib.import_module(f".{mod}", __name__).__all__})
