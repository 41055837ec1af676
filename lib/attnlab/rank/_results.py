"""Former dicts whose key for the certified value was ``"M"`` or ``"rank"``: the field is now ``bound``.

:func:`former_dict_renamed` is :func:`attnlab.core._results.former_dict` plus old keys that name a renamed field:
``res["M"]``, ``res.get("M")`` and ``"M" in res`` answer as the dict did, and ``keys()``, ``values()`` and
``items()`` list the dict's own keys, each with a ``DeprecationWarning`` naming the attribute to use.
"""
from __future__ import annotations

from ..core._results import _warn, former_dict


def former_dict_renamed(**old_to_new: str):
    """Class decorator: :func:`~attnlab.core._results.former_dict`, with the dict's keys ``old`` answering for the
    fields ``new`` (``former_dict_renamed(M="bound")``)."""
    def deco(cls):
        cls = former_dict(cls)
        new_to_old = {new: old for old, new in old_to_new.items()}
        base_getitem, base_get, base_contains = cls.__getitem__, cls.get, cls.__contains__

        def __getitem__(self, key):
            if isinstance(key, str) and key in old_to_new:
                _warn(cls, f"res[{key!r}]", f".{old_to_new[key]}")
                return getattr(self, old_to_new[key])
            return base_getitem(self, key)

        def get(self, key, default=None):
            if key in old_to_new:
                _warn(cls, f"res.get({key!r})", f".{old_to_new[key]}")
                return getattr(self, old_to_new[key])
            return base_get(self, key, default)

        def __contains__(self, item):
            if isinstance(item, str) and item in old_to_new:
                _warn(cls, f"{item!r} in res", "._fields")
                return True
            return base_contains(self, item)

        def _old(self):
            return {new_to_old.get(k, k): v for k, v in self._asdict().items()}

        def keys(self):
            _warn(cls, "res.keys()", "._fields")
            return _old(self).keys()

        def values(self):
            _warn(cls, "res.values()", "tuple(res)")
            return _old(self).values()

        def items(self):
            _warn(cls, "res.items()", "._asdict().items()")
            return _old(self).items()

        for fun in (__getitem__, get, __contains__, keys, values, items):
            fun.__qualname__ = f"{cls.__qualname__}.{fun.__name__}"
            setattr(cls, fun.__name__, fun)
        return cls
    return deco
