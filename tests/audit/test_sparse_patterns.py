"""attnlab.audit.sparse_patterns: each check, fed planted evidence, returns every verdict it can reach."""
import math

import numpy as np
import pytest

from attnlab.audit import sparse_patterns as sp
from attnlab.audit.scale import preset

P = preset(sp.PRESETS, "smoke")
LS = [512, 1024, 2048, 4096]


def row(L, d, bound, *, spread=0.05, q16=0.9, causal=False, censored=False, draws=12):
    """A planted search result: per-draw first-success dims around d, d(Q) = d·q16^(log2 Q / 4)."""
    first = list(d * (1 + spread * np.linspace(-1, 1, draws))) if math.isfinite(d) else [math.inf] * draws
    dmin = {q: d * q16 ** (math.log2(q) / 4) for q in (1, 4, 16)}
    dims = sorted({int(d / 2), int(d), int(2 * d)}) if math.isfinite(d) else [16, 32]
    return dict(L=L, causal=causal, dims=dims, phat=[0.0, 0.5, 1.0][:len(dims)], first=first, dmin=dmin,
                d_hi=dims[-1], censored=censored, bound=bound)


def scaling(law="log", *, q16=0.9, far=100.0, causal_law=None):
    f = {"log": lambda L: 40 * math.log(L), "sqrt": lambda L: 8 * math.sqrt(L), "L": lambda L: 0.2 * L}
    out = {}
    for part, lw in (("full", law), ("causal", causal_law or law)):
        out[part] = [row(L, f[lw](L), far * f[law](L), q16=q16, causal=part == "causal")
                     for L in LS for _ in range(2)]
    return out


def custom(f, far=100.0):
    """Planted full and causal rows with median d = f(L) at LS."""
    return {part: [row(L, f(L), far * f(L), causal=part == "causal") for L in LS for _ in range(2)]
            for part in ("full", "causal")}


def moment(ok=True, R_jl=3.5):
    return [dict(L=L, causal=c, d=5, success=ok or L < 256, ratio=1e-9, leakage=0.29, mass=0.37,
                 max_entry=float(L) ** 4, R=1e20, packing=1, R_jl=R_jl, packing_jl=2)
            for c in (False, True) for L in (64, 128, 256, 512)]


def robust(elasticity=1.0, fail=False, bound=1e5):
    rows = []
    for i, F in enumerate([100.0, 200.0, 400.0, 800.0, 1600.0]):
        d = math.inf if (fail and i == 0) else 3.0 * F**elasticity * (1 + 0.01 * (-1) ** i)
        rows.append(dict(k=1 + i, gamma=1.0, eps1=1.0, eps2=0.5, dmin=d, factor=F, bound=bound,
                         projection="gaussian", censored=not math.isfinite(d)))
    return rows


def timing(exponent=2.0, success=True, time_exponent=2.0):
    """Planted runs: counted operations ~ L^exponent; the wall time has its own exponent (it must not matter)."""
    return [dict(L=L, d=64, time=1e-9 * L**time_exponent * (1 + 0.01 * (-1) ** i), resamples=[1, 2],
                 success=success, ops=10.0 * L**exponent * (1 + 0.01 * (-1) ** i), ops_factor=8.0 * L,
                 ops_per_draw=5.0 * L**exponent, ops_prepare=16.0 * L, nnz=2 * L)
            for i, L in enumerate([256, 512, 1024, 2048])]


# ---------------------------------------------------------------------------------------------- SP-approx
def test_sp_approx_every_reachable_verdict():
    sc, long = scaling(), scaling()
    assert sp.check_sp_approx("smoke", data=(sc, robust(), long, moment())).verdict == "loose"
    assert sp.check_sp_approx("smoke", data=(sc, robust(), long, moment(ok=False))).verdict == "verified"
    above = scaling()
    above["full"][0] = row(512, 5000.0, 1000.0)
    assert sp.check_sp_approx("smoke", data=(above, robust(), long, moment())).verdict == "refuted"
    failed = scaling()
    failed["full"][0] = row(4096, math.inf, 10000.0)  # searched up to 8L = 32768 > bound
    assert sp.check_sp_approx("smoke", data=(failed, robust(), long, moment())).verdict == "refuted"
    short = scaling()
    short["full"][0] = row(64, math.inf, 10**6)  # searched only to 4096 < bound
    assert sp.check_sp_approx("smoke", data=(short, robust(), long, moment())).verdict == "unverifiable-here"


def test_sp_approx_needs_compression():
    """d/L must fall on the long run (a construction with no compression fails), and d < min(bound, L) at its end."""
    sc = scaling()
    no_compression = custom(lambda L: 0.3 * L**1.1)        # d/L grows: elasticity 1.1
    v = sp.check_sp_approx("smoke", data=(sc, robust(), no_compression, moment()))
    assert v.verdict == "refuted" and not v.numbers["compression"]["falls"], v.summary
    proportional = custom(lambda L: 0.9 * L)               # d = 0.9 L, below the bound: still no compression
    assert sp.check_sp_approx("smoke", data=(sc, robust(), proportional, moment())).verdict == "refuted"
    above_L = custom(lambda L: 200 * math.sqrt(L))          # falls, but d > L at every length
    v = sp.check_sp_approx("smoke", data=(sc, robust(), above_L, moment()))
    assert v.verdict == "unverifiable-here" and v.numbers["compression"]["falls"], v.summary
    assert sp.check_sp_approx("smoke", data=(sc, robust(), None, moment())).verdict == "unverifiable-here"


# ---------------------------------------------------------------------------------------------- SP-exp
def test_sp_exp_every_reachable_verdict():
    v = sp.check_sp_exp("smoke", data=(scaling("log"), scaling("log")))
    assert v.verdict == "verified" and v.numbers["decided_full"] == "log L", v.summary
    v = sp.check_sp_exp("smoke", data=(scaling("log"), None))      # no long run: the chapter's run only
    assert v.verdict == "unverifiable-here", v.summary
    assert sp.check_sp_exp("smoke", data=(scaling("log"), scaling("L"))).verdict == "refuted"
    assert sp.check_sp_exp("smoke", data=(scaling("log"), scaling("sqrt"))).verdict == "refuted"
    assert sp.check_sp_exp("smoke", data=(scaling("log"), scaling("log", causal_law="L"))).verdict == "refuted"
    assert sp.check_sp_exp("smoke", data=(scaling("log", q16=0.3), scaling("log"))).verdict == "refuted"
    assert sp.check_sp_exp("smoke", data=(scaling("log", far=1.5), scaling("log"))).verdict == "refuted"


def test_growth_laws_decide_the_planted_law():
    for law, name in (("log", "log L"), ("sqrt", "sqrt L"), ("L", "L")):
        assert sp.growth_laws(scaling(law)["full"])["decided"] == name
    noisy = scaling("log")
    for r in noisy["full"]:
        r["first"] = list(np.array(r["first"]) * np.random.default_rng(r["L"]).uniform(0.3, 1.7, len(r["first"])))
    assert sp.growth_laws(noisy["full"])["decided"] == "undecided"


def _noisy(law="log"):
    noisy = scaling(law)
    for part in ("full", "causal"):
        for r in noisy[part]:
            r["first"] = list(np.array(r["first"]) * np.random.default_rng(r["L"]).uniform(0.3, 1.7, len(r["first"])))
    return noisy


# ---------------------------------------------------------------------------------------------- SP-causal
def test_sp_causal_every_reachable_verdict():
    sc = scaling()
    assert sp.check_sp_causal("smoke", data=(sc, scaling(), moment())).verdict == "loose"
    assert sp.check_sp_causal("smoke", data=(sc, scaling(), moment(ok=False))).verdict == "verified"
    assert sp.check_sp_causal("smoke", data=(sc, scaling("log", causal_law="L"), moment())).verdict == "refuted"
    assert sp.check_sp_causal("smoke", data=(sc, scaling("log", causal_law="sqrt"), moment())).verdict == "refuted"
    above = scaling()
    above["causal"][0] = row(512, 5000.0, 1000.0, causal=True)
    assert sp.check_sp_causal("smoke", data=(above, scaling(), moment())).verdict == "refuted"
    v = sp.check_sp_causal("smoke", data=(sc, _noisy(), moment()))
    assert v.verdict == "unverifiable-here" and v.numbers["decided"] == "undecided", v.summary
    assert sp.check_sp_causal("smoke", data=(sc, None, moment())).verdict == "unverifiable-here"


# ---------------------------------------------------------------------------------------------- SP-robust
def test_sp_robust_every_reachable_verdict():
    assert sp.check_sp_robust("smoke", data=(robust(), timing())).verdict == "verified"
    assert sp.check_sp_robust("smoke", data=(robust(), timing(5.0))).verdict == "refuted"
    assert sp.check_sp_robust("smoke", data=(robust(), timing(success=False))).verdict == "refuted"
    assert sp.check_sp_robust("smoke", data=(robust(2.0), timing())).verdict == "refuted"
    assert sp.check_sp_robust("smoke", data=(robust(fail=True), timing())).verdict == "refuted"


def test_sp_robust_ignores_the_wall_time():
    """A busy machine (times growing like L^6) changes nothing: the verdict reads the counted operations."""
    quiet = sp.check_sp_robust("smoke", data=(robust(), timing()))
    busy = sp.check_sp_robust("smoke", data=(robust(), timing(time_exponent=6.0)))
    assert quiet.verdict == busy.verdict == "verified"
    assert quiet.numbers["ops_exponent"] == busy.numbers["ops_exponent"]


# ---------------------------------------------------------------------------------------------- SP-tight
@pytest.mark.parametrize("far, verdict", [(100.0, "corrected"), (1.5, "refuted"), (0.5, "refuted")])
def test_sp_tight_every_reachable_verdict(far, verdict):
    assert sp.check_sp_tight("smoke", data=(scaling("log", far=far), moment())).verdict == verdict


def test_sp_tight_refuted_below_the_packing_bound():
    """A measured d below the lower bound its own input norms allow is an inconsistency: refuted."""
    v = sp.check_sp_tight("smoke", data=(scaling("log"), moment(R_jl=1e-3)))
    assert v.verdict == "refuted" and v.numbers["below_packing"] > 0


def test_random_target_meets_its_assumptions():
    from attnlab import pattern_profile

    rng = np.random.default_rng(0)
    for causal in (False, True):
        A = sp.random_sparse_target(50, 3, 4.0, rng, causal=causal)
        k, g = pattern_profile(A)
        assert k <= 3 and g <= 4.0
        assert not causal or not np.triu(A, 1).any()


# ---------------------------------------------------------------------------------------------- planted branches
def test_sp_approx_refuted_by_a_robustness_instance_above_its_bound():
    """The (k, γ, ε) instances count too: one that needs d above its own bound refutes the theorem."""
    assert sp.check_sp_approx("smoke", data=(scaling(), robust(bound=100.0), scaling(), moment())).verdict == "refuted"


def test_sp_exp_undecided_laws_are_not_a_refutation():
    """Per-draw dimensions too noisy for the lack-of-fit test to separate the laws: unverifiable-here."""
    v = sp.check_sp_exp("smoke", data=(_noisy(), _noisy()))
    assert v.numbers["decided_full"] == "undecided" and v.verdict == "unverifiable-here", v.summary


# ---------------------------------------------------------------------------------------------- presentation
@pytest.mark.parametrize("check,planted", [
    ("check_sp_approx", (scaling(), robust(), scaling(), moment())),
    ("check_sp_approx", (scaling(), robust(), scaling(), moment(ok=False))),
    ("check_sp_approx", (scaling(), robust(), None, moment())),
    ("check_sp_exp", (scaling(), scaling())), ("check_sp_exp", (scaling(), scaling("sqrt"))),
    ("check_sp_exp", (_noisy(), _noisy())),
    ("check_sp_causal", (scaling(), scaling(), moment())), ("check_sp_causal", (scaling(), _noisy(), moment())),
    ("check_sp_robust", (robust(), timing())), ("check_sp_robust", (robust(elasticity=2.0), timing())),
    ("check_sp_tight", (scaling(), moment())), ("check_sp_tight", (scaling(far=1.5), moment()))])
def test_summary_reads_as_a_finding(check, planted):
    """Issue 18: the headline is a whole first sentence with a number; rounded numbers; log, not ln; √L in words."""
    import re

    v = getattr(sp, check)("smoke", data=planted)
    assert v.headline.endswith(".") and not v.headline.endswith("…"), v.headline
    assert re.search(r"\d", v.headline), v.headline
    assert not re.search(r"\d\.\d{5,}", v.summary) and "ln L" not in v.summary and "sqrt L" not in v.summary


def test_figures_are_readable():
    """Issue 18: 3.4 in per panel, mathtext labels, no minor tick labels on log axes, no value <= 0 on a log axis."""
    import matplotlib.ticker as mticker

    p = dict(P, L=LS)
    for fig, _ in (sp.plot_dimension_vs_L(scaling("L"), p), sp.plot_success_rate(scaling()),
                   sp.plot_robustness(robust())):
        assert fig.get_figwidth() <= 6.8 + 1e-9
        for ax in fig.axes:
            for text in (ax.get_xlabel(), ax.get_ylabel()):
                assert "_" not in "".join(s for i, s in enumerate(text.split("$")) if i % 2 == 0), text
            for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
                if scale == "log":
                    assert isinstance(axis.get_minor_formatter(), mticker.NullFormatter)
                    for line in ax.get_lines():
                        if line.get_transform() is not ax.transData:
                            continue  # axhline/axvline: axes coordinates
                        vals = np.asarray(line.get_ydata() if axis is ax.yaxis else line.get_xdata(), float)
                        assert not (vals[np.isfinite(vals)] <= 0).any()


# ---------------------------------------------------------------------------------------------- the long run
def test_long_run_record_reads_as_search_rows():
    """The shipped record of benchmarks/sparse_patterns.py: rows like scaling_experiment's, load and time recorded."""
    rec = sp.load_long_run()
    assert rec is not None, "data/benchmarks/sparse-patterns-long.json is missing"
    for key in ("loadavg_start", "loadavg_end", "wall_seconds", "per_length", "numpy", "git_commit", "parameters"):
        assert key in rec, key
    for part in ("full", "causal"):
        Ls = sorted({r["L"] for r in rec["rows"][part]})
        assert Ls[0] == 512 and Ls[-1] >= 16384
        for r in rec["rows"][part]:
            assert set(r["dmin"]) == {1, 4, 16} and all(isinstance(f, float) for f in r["first"])


def test_benchmark_script_runs_small(tmp_path):
    """The script end to end at small lengths (the chapter never runs it)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "long.json"
    subprocess.run([sys.executable, str(root / "benchmarks" / "sparse_patterns.py"), "--out", str(out), "--max-L",
                    "1024"], check=True, capture_output=True, timeout=300)
    rec = json.loads(out.read_text())
    assert [x["L"] for x in rec["per_length"]] == [512, 1024] and rec["stopped_before"] is None
    assert len(rec["rows"]["full"]) == len(rec["rows"]["causal"]) == 4
