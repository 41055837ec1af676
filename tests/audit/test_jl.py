"""The audit of chapter 01 (attnlab.audit.jl): its sweeps, simulated requirements and checks."""
import math

import numpy as np
import pytest

from attnlab.approx import jl
from attnlab.audit import jl as audit
from attnlab.audit.scale import preset
from attnlab.audit.stats import clopper_pearson


def test_scaling_bias():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((32, 16)), rng.standard_normal((32, 16))
    rows = audit.scaling_sweep(Q, K, [16, 256], 8, rng)
    assert rows[1]["slope_printed"] == pytest.approx(math.sqrt(16 / 256), rel=0.1)
    assert rows[1]["slope_unbiased"] == pytest.approx(1.0, rel=0.1)
    assert rows[1]["err_unbiased"] < rows[0]["err_unbiased"]


def test_random_unit_rows():
    X = audit.random_unit_rows(100, 5, np.random.default_rng(0))
    assert X.shape == (100, 5) and np.allclose(np.linalg.norm(X, axis=1), 1)


def test_tail_grid_rows_agree_with_the_library():
    rows = audit.tail_grid([16, 64], [0.3], 2_000, np.random.default_rng(0), grid=3)
    assert [r["m"] for r in rows] == [16, 64]
    for r in rows:
        assert r["c_star"] == 1.0 and r["tail"] == pytest.approx(jl.inner_product_tail(r["m"], 0.3))
        assert r["bound"] == float(jl.jl_bound_printed(r["m"], 0.3))
        assert r["mc_lo"] <= r["mc_k"] / r["mc_n"] <= r["mc_hi"] and r["mc_lo999"] <= r["mc_lo"]


def test_tail_slopes_approach_the_rate():
    rows = [dict(eps=0.3, m=m, tail=jl.inner_product_tail(m, 0.3)) for m in (256, 512, 1024, 2048, 4096)]
    (s,) = audit.tail_slopes(rows)
    assert s["rate"] == -jl.large_deviation_rate(0.3) and s["printed"] == -0.3**2 / 8
    assert s["slope"] == pytest.approx(s["rate"], rel=0.05)
    assert audit.tail_slopes(rows[:2]) == []  # fewer than three points: no fit


def test_dimension_table_columns():
    (row,) = audit.dimension_table(64, 0.5, 0.1, [1000])
    assert row["stated"] == jl.m_theorem(64, 0.5, 1000, 0.1)
    assert row["proof"] == jl.m_theorem(64, 0.5, 1000, 0.1, const=4) > row["stated"]
    assert row["union_exact"] == jl.m_union_exact(0.0625, 1000, 0.1) and row["certified"]
    (pair,) = audit.dimension_table(64, 0.5, 0.1, [1000], pairs=True)
    assert pair["stated"] == jl.m_theorem(64, 0.5, 10**6, 0.1)


def test_simulated_row_requirement_is_the_smallest_passing_m():
    rng = np.random.default_rng(1)
    K, q = audit.random_unit_rows(20, 4, rng), audit.random_unit_rows(1, 4, rng)[0]
    m = audit.m_simulated_row(K, q, 0.3, 0.2, 200, np.random.default_rng(2))
    assert m >= 1
    # at m the 95% upper limit passed on the draws made there; a fresh batch at a much larger m passes too
    err = jl.sample_row_max_error(K, q, 8 * m, 200, rng=rng)
    assert clopper_pearson(int((err >= 0.3).sum()), 200)[1] <= 0.2


@pytest.mark.parametrize("check, experiment", [
    (audit.check_pda_jl, audit.tail_experiment),
    (audit.check_pda_row,
     lambda p, s: dict(table=audit.row_experiment(p, s), search=audit.quantifier_experiment(p, s))),
    (audit.check_pda_alg, audit.scaling_experiment),
])
def test_checks_take_the_chapter_data(check, experiment, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = preset(audit.PRESETS, "smoke")
    assert check("smoke", 0, data=experiment(p, 0)) == check("smoke", 0)


def test_check_pda_global_takes_the_pairs_table():
    p = preset(audit.PRESETS, "smoke")
    pairs = audit.dimension_table(p["d"], p["logit_eps"], p["delta"], p["L"], pairs=True)
    v = audit.check_pda_global("smoke", data=dict(table=pairs, search=audit.quantifier_experiment(p, 0)))
    assert v == audit.check_pda_global("smoke") and v.verdict == "corrected"
    assert v.numbers["stated_certified_everywhere"] and v.numbers["search"]["qualified_certified"]


# --------------------------------------------------------------------------- "for any ε > 0"
def test_chi2_tail_and_diagonal_failure_are_exact():
    from scipy import stats

    assert audit.chi2_tail(1, 8.0) == pytest.approx(2 * stats.norm.sf(3.0), rel=1e-12)
    assert audit.chi2_tail(64, 0.3) == pytest.approx(jl.inner_product_tail(64, 0.3), rel=1e-12)
    T = audit.chi2_tail(1, 10.5)
    assert audit.diagonal_failure(1, 10.5, 200) == pytest.approx(1 - (1 - T) ** 200, rel=1e-12)
    assert 0.1299 < audit.diagonal_failure(1, 10.5, 200) < 0.1301  # issue 23's d = L = 200 instance


@pytest.mark.parametrize("m, eps0, L, c", [(1, 9.0, 10, 0.0), (2, 7.0, 100, 0.9), (64, 0.5, 100, 0.3),
                                           (3, 5.0, 10**6, 0.99)])
def test_row_family_failure_matches_adaptive_quadrature(m, eps0, L, c):
    from scipy import integrate, special, stats

    s = math.sqrt(1 - c * c)
    G = stats.gamma(m / 2, scale=2 / m)

    def f(g):
        inside = special.ndtr((eps0 - c * (g - 1)) / (s * math.sqrt(g / m))) - special.ndtr(
            (-eps0 - c * (g - 1)) / (s * math.sqrt(g / m)))
        return G.pdf(g) * (-math.expm1(L * math.log(inside)) if inside > 0 else 1.0)

    ref = sum(integrate.quad(f, a, b, limit=400, epsrel=1e-10)[0] for a, b in ((0, 1), (1, G.isf(1e-40))))
    assert audit.row_family_failure(m, eps0, L, c) == pytest.approx(ref, rel=1e-5)


def test_row_family_failure_matches_genuine_projections():
    # d = L + 1: query e_0, keys c e_0 + s e_j; genuine Gaussian P with N(0, 1/m) entries
    rng = np.random.default_rng(5)
    m, L, c, eps0, n = 2, 20, 0.5, 3.0, 40_000
    d = L + 1
    K = np.zeros((L, d))
    K[:, 0] = c
    K[np.arange(L), np.arange(1, d)] = math.sqrt(1 - c * c)
    P = rng.standard_normal((n, m, d)) / math.sqrt(m)
    Pq, PK = P[:, :, 0], np.einsum("tmd,ld->tlm", P, K)
    err = np.abs(np.einsum("tm,tlm->tl", Pq, PK) - c).max(axis=1)
    k = int((err >= eps0).sum())
    lo, hi = clopper_pearson(k, n, 0.999)
    assert lo <= audit.row_family_failure(m, eps0, L, c) <= hi


def test_eps0_for_m_is_the_worst_tolerance_of_each_m():
    for n, delta in ((1, 1e-3), (10**6, 0.1)):
        for m in (1, 3, 64):
            e0 = audit.eps0_for_m(m, n, delta)
            assert jl.m_theorem(1, e0, n, delta) == m and jl.m_theorem(1, e0 * (1 - 1e-9), n, delta) == m + 1


def test_breaking_points_and_the_smallest_counterexample():
    b = audit.breaking_points()
    assert jl.large_deviation_rate(b["rate"]) == pytest.approx(b["rate"] ** 2 / 8, rel=1e-9)
    assert jl.large_deviation_rate(b["diagonal"]) == pytest.approx(b["diagonal"] ** 2 / 16, rel=1e-9)
    # d = L = 1, q = k = 1, eps = 8, delta = 1e-3: the stated m is 1 and P(|N(0,1)^2 - 1| > 8) = P(|Z| > 3) > delta
    assert jl.m_theorem(1, 8.0, 1, 1e-3) == 1 and audit.chi2_tail(1, 8.0) > 1e-3
    s = audit.smallest_diagonal_L(0.1)
    assert s["L"] == 116 and s["fail"] > 0.1 and audit.smallest_diagonal_L(0.1, L_max=115) is None


def test_quantifier_search_smoke_finds_the_counterexamples():
    p = preset(audit.PRESETS, "smoke")
    x = audit.quantifier_experiment(p, 0)
    for key in ("row", "glob"):
        counter = [r for r in x[key] if r["ratio"] > 1]
        assert counter and all(r["eps0"] > x["breaks"]["rate"] for r in counter)
        assert all(r["certified"] and r["ratio"] < 1 for r in x[key] if r["eps0"] <= 0.5)
    assert not [r for r in x["row"] if r["ratio"] > 1 and r["delta"] == 0.1]  # the row holds at delta = 0.1
    mc = x["mc"]
    assert mc["one"]["ci"][0] > mc["one"]["delta"] and mc["diag"]["ci"][0] > mc["diag"]["delta"]
    assert mc["one"]["ci"][0] <= mc["one"]["exact"] <= mc["one"]["ci"][1]
    assert mc["diag"]["ci"][1] >= mc["diag"]["exact_diagonal"]  # the diagonal is a lower bound


def test_presets_cover_every_scale():
    for scale in ("smoke", "book", "paper"):
        p = preset(audit.PRESETS, scale)
        assert all(0 < e < 0.5 for e in p["eps"]) and p["logit_eps"] / math.sqrt(p["d"]) < 0.5


# --------------------------------------------------------------------------- PDA-def
def test_def_expectations_and_literal_logits():
    r = audit.def_expectations(2)
    assert str(r["first"]) == "1" and str(r["second"]) == "1/m" and str(r["fix"]) == "1"
    rng = np.random.default_rng(3)
    Q, K = rng.standard_normal((5, 8)), rng.standard_normal((4, 8))
    from attnlab import gaussian_projection, projected_logits
    P = gaussian_projection(8, 16, rng=rng)
    first, second = audit.def_logits(Q, K, P)
    Pq, Pk = (Q / math.sqrt(8)) @ P, (K / math.sqrt(8)) @ P
    dense = np.array([[math.sqrt(8) / 16 * sum(Pq[i, k] * Pk[j, k] for k in range(16)) for j in range(4)]
                      for i in range(5)])
    assert np.allclose(second, dense) and np.allclose(first, 16 * dense)
    assert np.allclose(first, projected_logits(Q, K, P))


def test_def_sweep_means():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((8, 16)), rng.standard_normal((8, 16))
    (row,) = audit.def_sweep(Q, K, [32], 128, rng)
    assert row["first"][1] <= 1 <= row["first"][2] and row["fix"][1] <= 1 <= row["fix"][2]
    assert row["second"][0] == pytest.approx(1 / 32, rel=0.1) and row["rel_diff"] > 0.9
    assert row["library_diff"] < 1e-12 and row["err_second"] > row["err_first"] / 2


def _def_data(sym, first, second, fix, rel_diff=0.99):
    rows = [dict(m=m, first=first, second=second, fix=fix, rel_diff=rel_diff, err_first=0.1, err_second=0.9)
            for m in (16, 128)]
    return dict(symbolic=dict(zip(("first", "second", "fix"), sym)), d=64, L=8, trials=100, rows=rows)


GOOD, BIASED, WIDE = (1.0, 0.99, 1.01), (0.5, 0.49, 0.51), (1.0, 0.9, 1.1)


@pytest.mark.parametrize("data, verdict", [
    (_def_data(("1", "1/m", "1"), GOOD, BIASED, GOOD), "corrected"),          # the chapter's finding
    (_def_data(("1", "1", "1/m"), GOOD, GOOD, BIASED, rel_diff=0.0), "verified"),
    (_def_data(("2", "2/m", "2/m"), BIASED, BIASED, BIASED), "refuted"),       # nothing unbiased
    (_def_data(("1", "1/m", "1/m"), WIDE, BIASED, BIASED), "refuted"),         # too few draws to tell: not unbiased
    (_def_data(("1", "1/m", "1"), BIASED, BIASED, GOOD), "corrected"),         # only the stated fix works
    (_def_data(("1", "1", "1"), GOOD, GOOD, GOOD, rel_diff=0.5), "corrected"),  # equal means, different numbers
])
def test_check_pda_def_applies_its_stated_rule(data, verdict):
    assert audit.check_pda_def("smoke", data=data).verdict == verdict


def test_check_pda_def_takes_the_chapter_data(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = preset(audit.PRESETS, "smoke")
    v = audit.check_pda_def("smoke", 0, data=audit.def_experiment(p, 0))
    assert v == audit.check_pda_def("smoke", 0) and v.verdict == "corrected"
    assert v.numbers["unbiased"] == {"first": True, "second": False, "fix": True}


# ---- planted evidence: every check of the chapter reaches each verdict its rule allows
def _tail_rows(tail, chernoff=1.0, mc_lo=0.0):
    return [dict(m=m, eps=0.1, tail=tail, bound=1.0, chernoff=chernoff, mc_lo999=mc_lo, c_star=1.0) for m in (16, 64)]


def test_check_pda_jl_reaches_every_verdict():
    assert audit.check_pda_jl("smoke", data=_tail_rows(0.1, chernoff=0.5)).verdict == "loose"
    assert audit.check_pda_jl("smoke", data=_tail_rows(0.8, chernoff=0.9)).verdict == "verified"
    assert audit.check_pda_jl("smoke", data=_tail_rows(0.1, chernoff=0.05)).verdict == "verified"  # Chernoff fails
    assert audit.check_pda_jl("smoke", data=_tail_rows(1.5)).verdict == "refuted"
    assert audit.check_pda_jl("smoke", data=_tail_rows(0.1, mc_lo=2.0)).verdict == "refuted"


def _dim_rows(certified=True, proof=200, union=100, stated=150):
    return [dict(L=L, stated=stated, proof=proof, union_exact=union, certified=certified) for L in (1000, 10000)]


def _search(counter=False, qualified_ok=True):
    rows = [dict(L=1, delta=1e-3, m=1, eps0=7.8, fail=3e-3 if counter else 5e-4, c=1.0, chernoff=float("nan"),
                 certified=False),
            dict(L=1000, delta=0.1, m=5000, eps0=0.3, fail=1e-6, c=0.5, chernoff=0.05 if qualified_ok else 0.5,
                 certified=qualified_ok)]
    for r in rows:
        r["ratio"] = r["fail"] / r["delta"]
    return dict(row=rows, glob=rows, breaks=dict(rate=1.62, diagonal=5.19))


def _row(search, table=None, sims=None):
    return dict(table=(table or _dim_rows(), sims or {1000: 10}, 5), search=search)


def test_check_pda_row_reaches_every_verdict():
    assert audit.check_pda_row("smoke", data=_row(_search(counter=True))).verdict == "corrected"
    assert audit.check_pda_row("smoke", data=_row(_search(counter=True, qualified_ok=False))).verdict == "refuted"
    # no counterexample: the size-free limit at the smoke preset's eps0 = 0.0625 is 0.52 < 0.9
    assert audit.check_pda_row("smoke", data=_row(_search())).verdict == "loose"
    assert audit.check_pda_row("smoke", data=_row(_search(), _dim_rows(certified=False))).verdict == "corrected"
    assert audit.check_pda_row("smoke", data=_row(_search(), _dim_rows(certified=False, proof=90))
                               ).verdict == "refuted"
    assert audit.quantifier_verdict(_search()["row"], True, 0.95) == "verified"


def test_check_pda_global_reaches_every_verdict():
    g = lambda search, rows=None: dict(table=rows or _dim_rows(), search=search)  # noqa: E731
    assert audit.check_pda_global("smoke", data=g(_search(counter=True))).verdict == "corrected"
    assert audit.check_pda_global("smoke", data=g(_search(counter=True, qualified_ok=False))).verdict == "refuted"
    assert audit.check_pda_global("smoke", data=g(_search())).verdict == "loose"
    assert audit.check_pda_global("smoke", data=g(_search(), _dim_rows(certified=False))).verdict == "corrected"
    assert audit.check_pda_global("smoke", data=g(_search(), _dim_rows(certified=False, proof=90))
                                  ).verdict == "refuted"
    v = audit.check_pda_global("smoke")
    assert v.numbers["limit_union_exact_over_stated"] == pytest.approx(0.5207, abs=1e-3)
    assert v.verdict == "corrected" and v.numbers["search"]["smallest"]["L"] == 1


def test_pda_ml_attribution_is_exact_and_reaches_every_verdict():
    import sympy as sp

    r = audit.ml_attribution()
    L, d, eta, delta = r["symbols"]
    assert sp.simplify(r["e_L"] - (1 + 2 / sp.log(2 * L**2 / delta))) == 0
    assert (r["lim_e_L"], r["share_sqrt_d"], r["share_sqrt_L"], r["e_d"], r["cross"]) == (1, 0, 1, 1, 0)
    assert audit.check_pda_ml("smoke").verdict == "corrected"
    assert audit.check_pda_ml("smoke", data=dict(lim_e_L=1, share_sqrt_d=1, share_sqrt_L=0)).verdict == "verified"
    assert audit.check_pda_ml("smoke", data=dict(lim_e_L=sp.Rational(1, 2), share_sqrt_d=0, share_sqrt_L=0)
                              ).verdict == "refuted"
    assert audit.check_pda_ml("smoke", data=dict(lim_e_L=2, share_sqrt_d=2, share_sqrt_L=0)).verdict == "refuted"


def _alg_rows(slope_printed, slope_unbiased=1.0, err_falls=True):
    ms = (64, 256, 1024)
    return [dict(m=m, slope_printed=slope_printed(m), slope_unbiased=slope_unbiased, err_printed=0.5,
                 err_unbiased=(0.3 / (i + 1) if err_falls else 0.3), limit=0.5) for i, m in enumerate(ms)]


def test_check_pda_alg_reaches_every_verdict():
    d = audit.PRESETS["smoke"]["d"]
    derived = lambda m: math.sqrt(d / m)  # noqa: E731
    assert audit.check_pda_alg("smoke", data=_alg_rows(derived)).verdict == "corrected"
    assert audit.check_pda_alg("smoke", data=_alg_rows(lambda m: 1.0)).verdict == "verified"
    assert audit.check_pda_alg("smoke", data=_alg_rows(derived, slope_unbiased=0.5)).verdict == "refuted"
    assert audit.check_pda_alg("smoke", data=_alg_rows(lambda m: 3.0)).verdict == "unverifiable-here"
    assert audit.check_pda_alg("smoke", data=_alg_rows(derived, err_falls=False)).verdict == "unverifiable-here"


# ---- presentation (issue 18): headlines that stand alone, figures without zeros on log axes
def _planted_verdicts():
    d = audit.PRESETS["smoke"]["d"]
    derived = lambda m: math.sqrt(d / m)  # noqa: E731
    yield audit.check_pda_jl("smoke", data=_tail_rows(0.1, chernoff=0.5))
    yield audit.check_pda_jl("smoke", data=_tail_rows(0.8, chernoff=0.9))
    yield audit.check_pda_jl("smoke", data=_tail_rows(0.1, mc_lo=2.0))
    for search in (_search(counter=True), _search(counter=True, qualified_ok=False), _search()):
        yield audit.check_pda_row("smoke", data=_row(search))
        yield audit.check_pda_global("smoke", data=dict(table=_dim_rows(), search=search))
    for rows in (_dim_rows(certified=False), _dim_rows(certified=False, proof=90)):
        yield audit.check_pda_row("smoke", data=_row(_search(), rows))
        yield audit.check_pda_global("smoke", data=dict(table=rows, search=_search()))
    for rows in (_alg_rows(derived), _alg_rows(lambda m: 1.0), _alg_rows(derived, slope_unbiased=0.5),
                 _alg_rows(lambda m: 3.0)):
        yield audit.check_pda_alg("smoke", data=rows)
    yield audit.check_pda_ml("smoke", data=dict(lim_e_L=1, share_sqrt_d=0, share_sqrt_L=1, e_d=1, cross=0))
    yield audit.check_pda_ml("smoke", data=dict(lim_e_L=1, share_sqrt_d=1, share_sqrt_L=0, e_d=1, cross=0))
    yield audit.check_pda_ml("smoke", data=dict(lim_e_L=0, share_sqrt_d=0, share_sqrt_L=0, e_d=1, cross=0))
    yield audit.check_pda_def("smoke", data=_def_data(("1", "1/m", "1"), GOOD, BIASED, GOOD))
    yield audit.check_pda_def("smoke", data=_def_data(("1", "1", "1/m"), GOOD, GOOD, BIASED, rel_diff=0.0))


def test_headlines_are_whole_findings_with_rounded_numbers():
    import re

    seen = set()
    for v in _planted_verdicts():
        seen.add((v.claim, v.verdict))
        assert not v.headline.endswith("…") and len(v.headline) <= 160, v.headline
        assert not re.search(r"\b(True|False)\b|e\^\(|\d\.\d{7,}|Thm 3", v.summary), v.summary
    assert len(seen) >= 14


def test_plot_scaling_masks_the_zero_limit_on_its_log_axis():
    rows = [dict(m=m, limit=lim, slope_printed=math.sqrt(64 / m), slope_unbiased=1.0, err_printed=0.5,
                 err_unbiased=0.3) for m, lim in ((64, 0.0), (256, 0.4), (1024, 0.6))]
    fig, _ = audit.plot_scaling(rows, 64)
    limit_line = fig.axes[1].get_lines()[2]
    assert np.isnan(limit_line.get_ydata()[0]) and np.all(np.isfinite(limit_line.get_ydata()[1:]))
    assert all(a.get_yscale() == "log" for a in fig.axes)


def test_plot_tail_vs_m_shows_at_most_three_tolerances():
    rows = [dict(eps=e, m=m, c_star=1.0, tail=math.exp(-m * e * e / 4), bound=4 * math.exp(-m * e * e / 8),
                 chernoff=2 * math.exp(-m * e * e / 5), mc_k=5, mc_n=100, mc_lo=0.01, mc_hi=0.1, mc_lo999=0.0)
            for e in (0.05, 0.1, 0.2, 0.3, 0.4, 0.49) for m in (8, 64, 512)]
    fig, data = audit.plot_tail_vs_m(rows)
    for ax in fig.axes:
        assert len(ax.get_lines()) <= 9 and len({ln.get_color() for ln in ax.get_lines()}) <= 3
    assert len(data["eps"]) == len(rows)  # the CSV keeps every point
