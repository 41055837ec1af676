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


def test_observers_see_hits_misses_and_nesting(tmp_path, monkeypatch):
    """Every memoized call is reported once, with its time; a call inside another is charged to it (self times)."""
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))

    @cache.memoize
    def inner(n):
        return sum(range(n))

    @cache.memoize
    def outer(n):
        return inner(n) + 1

    events = []
    stop = cache.observe(events.append)
    try:
        outer(10_000)
        outer(10_000)
    finally:
        stop()
    outer(5)  # not observed any more
    assert [(e["name"].split(":")[1], e["hit"], e["depth"]) for e in events] == [
        ("test_observers_see_hits_misses_and_nesting.<locals>.inner", False, 1),
        ("test_observers_see_hits_misses_and_nesting.<locals>.outer", False, 0),
        ("test_observers_see_hits_misses_and_nesting.<locals>.outer", True, 0)]
    first = events[1]
    assert 0 <= first["self_wall_s"] <= first["wall_s"] and first["wall_s"] >= events[0]["wall_s"]
    assert "attnlab" not in first["name"] and any(k.endswith(".outer") for k in cache.EXPERIMENTS)


def test_precompute_deals_units_longest_first():
    from attnlab.audit.precompute import partition

    units = [dict(cost=c) for c in (5, 4, 3, 3, 1)]
    bins = partition(units, 2)
    assert sorted(sum(u["cost"] for u in b) for b in bins) == [8, 8]
    assert partition([], 2) == [[], []]


def test_precompute_finds_the_pages_calls():
    """The experiments the chapters call directly are found with the arguments the pages pass (P, SEED)."""
    from attnlab.audit.precompute import page_calls
    from attnlab.audit.rank_upper import PRESETS
    from attnlab.audit.scale import preset

    calls = {c["name"]: c for c in page_calls("smoke", 0)}
    timing = calls["attnlab.audit.rank_upper:timing_experiment"]
    assert timing["args"] == [preset(PRESETS, "smoke"), 0] and timing["page"] == "07-rank-upper"
    assert "attnlab.audit.rank_upper_worst:implicit_checks" in calls
    assert calls["attnlab.audit.gradient:memory_experiment"]["args"][-1] == 0


def test_precompute_merges_units_that_share_an_experiment():
    """A chapter's claims and its page's calls are one unit; two units that the profile shows reading one experiment
    are merged (never computed twice at once); costs are the profile's CPU times, by experiment name."""
    from attnlab.audit.precompute import units

    profile = dict(claims=[dict(id="PDA-lip", uses=["attnlab.audit.jl:shared#1"]),
                           dict(id="PDA-alg", uses=["attnlab.audit.jl:shared#1"])],
                   experiments=[dict(key="attnlab.audit.jl:shared#1", self_cpu_s=5.0),
                                dict(key="attnlab.audit.rank_upper:timing_experiment#2", self_cpu_s=2.0)])
    us = units("smoke", 0, profile)
    jl = next(u for u in us if "PDA-alg" in u["claims"])
    assert "PDA-jl" in jl["claims"] and "PDA-lip" in jl["claims"] and "PDA-chain" in jl["claims"]  # merged
    rank = next(u for u in us if "AR-op" in u["claims"])
    assert "AR-upper" not in rank["claims"] and rank["cost"] == 2.0
    assert any(k.endswith("timing_experiment#" + k.split("#")[1]) for k in rank["calls"])
    assert sum(len(u["claims"]) for u in us) == len({c for u in us for c in u["claims"]})
