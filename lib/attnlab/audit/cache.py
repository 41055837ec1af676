"""A disk cache for verdicts and experiments, keyed by the attnlab sources, the library versions and the arguments.

One build computes each experiment once: the build's precompute step (``scripts/precompute.py``, two processes)
or whichever page needs it first stores it, the others read it back. The key includes a hash of every attnlab
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
import time
from pathlib import Path

__all__ = ["cache_dir", "source_hash", "memoize", "atomic_write", "EXPERIMENTS", "observe"]

#: Every memoized experiment, ``"module:qualname"`` -> the undecorated function, filled as the audit modules are
#: imported (what ``scripts/profile_experiments.py`` and ``scripts/precompute.py`` enumerate).
EXPERIMENTS: dict = {}
_OBSERVERS: list = []
_STACK: list = []


def observe(callback):
    """Register ``callback(event)``, called after every memoized call with a dict: ``name`` (``module:qualname``),
    ``hit`` (read from disk), ``wall_s`` and ``cpu_s`` (inclusive; CPU of the whole process, all threads),
    ``self_wall_s``/``self_cpu_s`` (without the memoized calls it made) and ``depth``. Returns a function that
    removes it. The profile of every experiment is written with it."""
    _OBSERVERS.append(callback)
    return lambda: _OBSERVERS.remove(callback) if callback in _OBSERVERS else None


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

    name = f"{fn.__module__}:{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key_kwargs = {k: v for k, v in kwargs.items() if k != "progress"}
        try:
            key = json.dumps([fn.__module__, fn.__qualname__, args, key_kwargs], sort_keys=True)
        except TypeError:  # arguments that are not plain data: no caching
            return fn(*args, **kwargs)
        digest = hashlib.sha256(key.encode()).hexdigest()[:24]
        path = cache_dir() / "experiments" / f"{fn.__qualname__}-{source_hash()}-{digest}.pkl"
        t0, c0 = time.perf_counter(), time.process_time()
        if path.exists():
            result = pickle.loads(path.read_bytes())
            _notify(name, digest, True, t0, c0)
            return result
        _STACK.append([0.0, 0.0])  # wall and CPU of the memoized calls made inside this one
        try:
            result = fn(*args, **kwargs)
        finally:
            inner = _STACK.pop()
        atomic_write(path, pickle.dumps(result))
        _notify(name, digest, False, t0, c0, inner)
        return result

    EXPERIMENTS[name] = fn
    return wrapper


def _notify(name, digest, hit, t0, c0, inner=(0.0, 0.0)):
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if _STACK:  # charge this call to the memoized call that made it
        _STACK[-1][0] += wall
        _STACK[-1][1] += cpu
    if _OBSERVERS:
        event = dict(name=name, key=digest, hit=hit, wall_s=wall, cpu_s=cpu, self_wall_s=wall - inner[0],
                     self_cpu_s=cpu - inner[1], depth=len(_STACK))
        for callback in list(_OBSERVERS):
            callback(event)
