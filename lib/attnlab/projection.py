"""The old path of :mod:`attnlab.approx.projection`, kept importable: ``attnlab.projection`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.approx.projection")
