"""A disk cache for verdicts and experiments, keyed by the attnlab sources, the library versions and the arguments.

One build computes each experiment once: whichever page needs it first (a chapter, or the verdicts page
through a claim's check) stores it, the other reads it back. The key includes a hash of every attnlab
source file and the NumPy/SciPy versions, so any change of code or library recomputes. The folder is
``$ATTNLAB_CACHE_DIR`` (default ``~/.cache/attnlab``); a cold build points it at a fresh folder.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path

__all__ = ["cache_dir", "source_hash", "memoize", "atomic_write"]


def cache_dir() -> Path:
    """The cache folder (``$ATTNLAB_CACHE_DIR`` or ``~/.cache/attnlab``)."""
    return Path(os.environ.get("ATTNLAB_CACHE_DIR", Path.home() / ".cache" / "attnlab"))


@functools.lru_cache(maxsize=1)
def source_hash() -> str:
    """Hash of every attnlab source file (the library and the audit) and of the NumPy and SciPy versions."""
    import numpy  # noqa: PLC0415
    import scipy  # noqa: PLC0415

    h = hashlib.sha256(f"{numpy.__version__} {scipy.__version__}".encode())
    root = Path(__file__).resolve().parents[1]  # the attnlab package
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False, suffix=".tmp") as f:
        f.write(data)
    os.replace(f.name, path)


def memoize(fn):
    """Cache ``fn``'s result on disk, keyed by its name, its JSON-serialisable arguments and :func:`source_hash`.

    The keyword ``progress`` is not part of the key. Results are pickled; use it only for deterministic
    functions of their arguments (experiments that draw from ``np.random.default_rng(seed)``).
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key_kwargs = {k: v for k, v in kwargs.items() if k != "progress"}
        try:
            key = json.dumps([fn.__module__, fn.__qualname__, args, key_kwargs], sort_keys=True)
        except TypeError:  # arguments that are not plain data: no caching
            return fn(*args, **kwargs)
        digest = hashlib.sha256(key.encode()).hexdigest()[:24]
        path = cache_dir() / "experiments" / f"{fn.__qualname__}-{source_hash()}-{digest}.pkl"
        if path.exists():
            return pickle.loads(path.read_bytes())
        result = fn(*args, **kwargs)
        atomic_write(path, pickle.dumps(result))
        return result

    return wrapper
