"""The old path of :mod:`attnlab.rank.sphere`, kept importable: ``attnlab.rank_sphere`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.rank.sphere")
