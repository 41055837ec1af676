"""The old path of :mod:`attnlab.rank.lattice`, kept importable: ``attnlab.rank_lattice`` *is* that module
(one object, so private names, monkeypatching and pickling behave as before)."""
import importlib
import sys

sys.modules[__name__] = importlib.import_module("attnlab.rank.lattice")
