"""The old path of :mod:`attnlab.core.backend`, kept importable: ``attnlab.backend`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.core.backend")
