"""pytest, for the whole repository: the old module paths of the library (``lib/attnlab/<old>.py``, each a two-line
shim that makes ``attnlab.<old>`` the moved module) are not collected for doctests. They hold none, and collecting one
would import the shim file as a module of its own and shadow ``attnlab.<old>`` for the tests that come after."""
from pathlib import Path

_SHIM = "sys.modules[__name__] = importlib.import_module("


def pytest_ignore_collect(collection_path, config):
    path = Path(collection_path)
    if path.suffix == ".py" and path.parent.name == "attnlab" and path.parent.parent.name == "lib":
        return _SHIM in path.read_text() or None
    return None
