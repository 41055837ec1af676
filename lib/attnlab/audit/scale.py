"""Scale presets: ``smoke`` (tests), ``book`` (default, a 2-core CPU), ``paper`` (a GPU).

A chapter's parameters cell names a scale (or ``None`` to read
``ATTNLAB_SCALE``); each topic module keeps a table of sizes per scale and
:func:`preset` picks the row.
"""
from __future__ import annotations

import os

__all__ = ["SCALES", "get_scale", "preset"]

SCALES = ("smoke", "book", "paper")


def get_scale(scale: str | None = None) -> str:
    """The scale to run at: ``scale`` if given, else ``$ATTNLAB_SCALE``, else ``"book"``.

    Examples
    --------
    >>> get_scale("smoke")
    'smoke'
    """
    s = (scale if scale is not None else os.environ.get("ATTNLAB_SCALE", "book")).strip().lower()
    if s not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {s!r}")
    return s


def preset(table: dict, scale: str | None = None) -> dict:
    """The row of ``table`` (a dict keyed by scale) for ``scale``, with ``scale`` added.

    Examples
    --------
    >>> preset({"smoke": {"n": 1}, "book": {"n": 10}, "paper": {"n": 100}}, "book")
    {'n': 10, 'scale': 'book'}
    """
    s = get_scale(scale)
    missing = [k for k in SCALES if k not in table]
    if missing:
        raise ValueError(f"preset table lacks scales {missing}")
    return {**table[s], "scale": s}
