"""The old path of :mod:`attnlab.core.exact`, kept importable: ``attnlab.exact`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.core.exact")
