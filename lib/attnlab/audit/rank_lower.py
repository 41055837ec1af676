"""TEMPORARY shim while the layout moves (issue 10): replaced by the chapter's audit module."""
from .. import rank as _m

globals().update({k: getattr(_m, k) for k in dir(_m) if not k.startswith("__")})
