"""attnlab.audit: the book's evidence, one module per chapter, beside the library it audits.

Each chapter ``notebooks/NN-topic.ipynb`` has its experiments (memoized on disk), fits, ``check_*``
functions (one per claim, each returning a :class:`~attnlab.audit.verdict.Verdict`) and figure functions in
``attnlab.audit.<topic>`` (``07-rank-upper`` ↔ :mod:`attnlab.audit.rank_upper`). Beside them:

- :mod:`attnlab.audit.claims`: the registry of every claim of the five seed documents, and ``evaluate``;
- :mod:`attnlab.audit.verdict`: the verdict vocabulary and the :class:`Verdict` record;
- :mod:`attnlab.audit.scale`: the scale presets (``smoke``, ``book``, ``paper``);
- :mod:`attnlab.audit.cache`: the disk cache of experiments and verdicts;
- :mod:`attnlab.audit.stats`: exact binomial intervals and slope fits.

``python -m attnlab.audit`` prints every claim with its computed verdict (``--help`` for the options).
The library (:mod:`attnlab`) never imports this package.
"""
from .claims import CLAIMS, Claim, evaluate, evaluate_all, get_claim
from .scale import SCALES, get_scale, preset
from .verdict import VERDICTS, Verdict

__all__ = ["CLAIMS", "Claim", "evaluate", "evaluate_all", "get_claim", "SCALES", "get_scale", "preset",
           "VERDICTS", "Verdict"]
