"""attnlab: the algorithms, bounds and certificates of approximate softmax attention that the attnlab book audits.

Everything public is importable from here (``attnlab.softmax``, ``attnlab.pda_attention``, …); each name lives in
the module of its topic. The core algorithms take their array namespace from their inputs (the array API standard,
through ``array-api-compat``): NumPy, CuPy and other conforming libraries go through one code path. The book's
experiments, checks and figures are in :mod:`attnlab.audit`, which this package never imports; the figure style is
in :mod:`attnlab.plotting` (imported only on request, since it needs matplotlib).
"""
import importlib as _importlib

from .adversarial import *  # noqa: F403
from .decoder import *  # noqa: F403
from .encoder import *  # noqa: F403
from .backend import *  # noqa: F403
from .exact import *  # noqa: F403
from .gradient import *  # noqa: F403
from .hardness import *  # noqa: F403
from .jl import *  # noqa: F403
from .logits import *  # noqa: F403
from .pda import *  # noqa: F403
from .perturbation import *  # noqa: F403
from .projection import *  # noqa: F403
from .random_features import *  # noqa: F403
from .rank_certificates import *  # noqa: F403
from .rank_instances import *  # noqa: F403
from .rank_interaction import *  # noqa: F403
from .rank_lattice import *  # noqa: F403
from .rank_sphere import *  # noqa: F403
from .sparse_patterns import *  # noqa: F403
from .spectrum import *  # noqa: F403
from .subquadratic import *  # noqa: F403

__version__ = "0.1.0"

#: The library's modules, one topic each; ``attnlab.__all__`` is the union of their ``__all__``.
MODULES = (
    "adversarial",
    "backend",
    "decoder",
    "encoder",
    "exact",
    "gradient",
    "hardness",
    "jl",
    "logits",
    "pda",
    "perturbation",
    "projection",
    "random_features",
    "rank_certificates",
    "rank_instances",
    "rank_interaction",
    "rank_lattice",
    "rank_sphere",
    "sparse_patterns",
    "spectrum",
    "subquadratic",
)
__all__ = sorted({name for mod in MODULES for name in _importlib.import_module(f".{mod}", __name__).__all__})
