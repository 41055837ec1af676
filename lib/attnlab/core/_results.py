"""Result objects: what a function with several outputs returns (one policy, written on the Conventions page).

A function that computes several things returns a :class:`typing.NamedTuple` subclass with an ``Attributes``
section in its docstring: fields by name (``res.bound``), unpacking where the order is natural
(``U, s, Vt = ...``), ``res._asdict()`` for a table, and pickling. A certificate's guaranteed value is ``.bound``
everywhere. A function's return type never depends on a flag: where a flag once added outputs, the function returns
its result object whatever the flag, and the flag is deprecated.

Results that replaced a ``dict`` keep the dict spellings that callers used (``res["key"]``, ``res.get("key")``,
``"key" in res``, ``res.keys()``, ``res.items()``) with a ``DeprecationWarning`` naming the attribute: decorate the
class with :func:`former_dict`.
"""
from __future__ import annotations

import warnings

__all__ = ["former_dict"]


def _warn(cls, spelling: str, instead: str) -> None:
    warnings.warn(f"{cls.__name__} is no longer a dict: {spelling} is deprecated; use {instead}",
                  DeprecationWarning, stacklevel=3)


def former_dict(cls):
    """Class decorator for a NamedTuple result that replaced a dict: string keys keep working, with a warning.

    ``res["name"]`` and ``res.get("name", default)`` return the field; ``"name" in res``, ``res.keys()``,
    ``res.values()`` and ``res.items()`` behave as the dict's did. Integer indexing and unpacking are the tuple's.
    Each dict spelling raises a ``DeprecationWarning``.

    Examples
    --------
    >>> import warnings
    >>> from typing import NamedTuple
    >>> @former_dict
    ... class Fit(NamedTuple):
    ...     slope: float
    ...     intercept: float
    >>> fit = Fit(2.0, 1.0)
    >>> fit.slope, fit[0]
    (2.0, 2.0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     fit["intercept"]
    1.0
    """
    tuple_getitem = tuple.__getitem__
    tuple_contains = tuple.__contains__

    def __getitem__(self, key):
        if isinstance(key, str):
            _warn(cls, f"res[{key!r}]", f".{key}")
            if key not in self._fields:
                raise KeyError(key)
            return getattr(self, key)
        return tuple_getitem(self, key)

    def get(self, key, default=None):
        _warn(cls, f"res.get({key!r})", f".{key}")
        return getattr(self, key) if key in self._fields else default

    def __contains__(self, item):
        if isinstance(item, str) and item in self._fields:
            _warn(cls, f"{item!r} in res", "._fields")
            return True
        return tuple_contains(self, item)

    def keys(self):
        _warn(cls, "res.keys()", "._fields")
        return self._asdict().keys()

    def values(self):
        _warn(cls, "res.values()", "tuple(res)")
        return self._asdict().values()

    def items(self):
        _warn(cls, "res.items()", "._asdict().items()")
        return self._asdict().items()

    for fun in (__getitem__, get, __contains__, keys, values, items):
        fun.__qualname__ = f"{cls.__qualname__}.{fun.__name__}"
        setattr(cls, fun.__name__, fun)
    return cls
