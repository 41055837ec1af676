"""Result objects: what a function with several outputs returns (one policy, written on the Conventions page).

A function that computes several things returns a :class:`typing.NamedTuple` subclass with an ``Attributes``
section in its docstring: fields by name (``res.bound``), unpacking where the order is natural
(``U, s, Vt = ...``), ``res._asdict()`` for a table, and pickling. A certificate's guaranteed value is ``.bound``
everywhere. A function's return type never depends on a flag: where a flag once added outputs, the function returns
its result object whatever the flag, and the flag is deprecated.

Results that replaced a ``dict`` keep the dict spellings that callers used (``res["key"]``, ``res.get("key")``,
``"key" in res``, ``res.keys()``, ``res.items()``) with a ``DeprecationWarning`` naming the attribute: decorate the
class with :func:`former_dict` (``@former_dict(M="bound")`` where a key was renamed).
"""
from __future__ import annotations

import warnings
from typing import Any

__all__ = ["former_dict"]


def _warn(cls, spelling: str, instead: str) -> None:
    warnings.warn(f"{cls.__name__} is no longer a dict: {spelling} is deprecated; use {instead}",
                  DeprecationWarning, stacklevel=3)


def former_dict(cls: type | None = None, /, **renamed: str) -> Any:
    """Class decorator for a NamedTuple result that replaced a dict: string keys keep working, with a warning.

    ``res["name"]`` and ``res.get("name", default)`` return the field; ``"name" in res``, ``res.keys()``,
    ``res.values()`` and ``res.items()`` behave as the dict's did. Integer indexing and unpacking are the tuple's
    (so iterating yields the values, where the dict's iteration yielded its keys). Each dict spelling raises a
    ``DeprecationWarning``. A field renamed from the dict's key is given as ``old="new"``:
    ``@former_dict(M="bound")`` makes ``res["M"]`` read ``res.bound`` and ``res.keys()`` list ``"M"``.

    Examples
    --------
    >>> import warnings
    >>> from typing import NamedTuple
    >>> @former_dict(M="bound")
    ... class Count(NamedTuple):
    ...     bound: int
    ...     eps: float
    >>> count = Count(12, 0.1)
    >>> count.bound, count[0]
    (12, 12)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     count["M"], list(count.keys())
    (12, ['M', 'eps'])
    """
    if cls is None:
        return lambda c: _former_dict(c, renamed)
    return _former_dict(cls, renamed)


def _former_dict(cls: type, old_to_new: dict[str, str]) -> type:
    new_to_old = {new: old for old, new in old_to_new.items()}
    tuple_getitem = tuple.__getitem__
    tuple_contains = tuple.__contains__

    def field(key):
        """The field that the dict's key ``key`` became, or None."""
        name = old_to_new.get(key, key)
        return name if name in cls._fields else None

    def old_dict(self):
        return {new_to_old.get(k, k): v for k, v in self._asdict().items()}

    def __getitem__(self, key):
        if isinstance(key, str):
            name = field(key)
            _warn(cls, f"res[{key!r}]", f".{name or key}")
            if name is None:
                raise KeyError(key)
            return getattr(self, name)
        return tuple_getitem(self, key)

    def get(self, key, default=None):
        name = field(key) if isinstance(key, str) else None
        _warn(cls, f"res.get({key!r})", f".{name or key}")
        return default if name is None else getattr(self, name)

    def __contains__(self, item):
        if isinstance(item, str) and field(item) is not None:
            _warn(cls, f"{item!r} in res", "._fields")
            return True
        return tuple_contains(self, item)

    def keys(self):
        _warn(cls, "res.keys()", "._fields")
        return old_dict(self).keys()

    def values(self):
        _warn(cls, "res.values()", "tuple(res)")
        return old_dict(self).values()

    def items(self):
        _warn(cls, "res.items()", "._asdict().items()")
        return old_dict(self).items()

    for fun in (__getitem__, get, __contains__, keys, values, items):
        fun.__qualname__ = f"{cls.__qualname__}.{fun.__name__}"
        setattr(cls, fun.__name__, fun)
    return cls
