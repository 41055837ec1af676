"""The old path of :mod:`attnlab.rank.certificates`, kept importable: ``attnlab.rank_certificates`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.rank.certificates")
