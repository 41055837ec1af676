"""The old path of :mod:`attnlab.models.decoder`, kept importable: ``attnlab.decoder`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.models.decoder")
