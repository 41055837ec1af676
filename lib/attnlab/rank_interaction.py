"""The old path of :mod:`attnlab.rank.interaction`, kept importable: ``attnlab.rank_interaction`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.rank.interaction")
