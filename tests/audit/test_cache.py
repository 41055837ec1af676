import numpy as np

from attnlab.audit import cache


def test_memoize_computes_once_per_key(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    calls = []

    @cache.memoize
    def experiment(p, seed, *, progress=False):
        calls.append((p["n"], seed))
        return {"draw": np.random.default_rng(seed).standard_normal(p["n"])}

    a = experiment({"n": 3}, 1)
    b = experiment({"n": 3}, 1, progress=True)  # progress is not part of the key
    assert len(calls) == 1 and np.array_equal(a["draw"], b["draw"])
    experiment({"n": 3}, 2)
    experiment({"n": 4}, 1)
    assert len(calls) == 3
    assert len(list((tmp_path / "experiments").glob("*.pkl"))) == 3


def test_memoize_key_includes_source_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    calls = []

    @cache.memoize
    def f(x):
        calls.append(x)
        return x

    f(1)
    monkeypatch.setattr(cache, "source_hash", lambda: "changed-sources")
    f(1)
    assert calls == [1, 1]


def test_memoize_skips_unhashable_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))

    @cache.memoize
    def g(arr):
        return arr.sum()

    assert g(np.ones(3)) == 3 and not (tmp_path / "experiments").exists()
