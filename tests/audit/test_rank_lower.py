"""Chapter 08's experiments, slope tables, checks and figures (attnlab.audit.rank_lower)."""
import numpy as np
import pytest

from attnlab.audit import rank_lower


def test_slopes_table_recovers_known_exponents():
    rows = [dict(d=d, eps=0.25, beta=b, M=int(round(3 * b ** (d / 2)))) for d in (2, 4) for b in (10.0, 100.0, 1000.0)]
    tab = rank_lower.slopes_table(rows + [dict(d=6, eps=0.25, beta=1.0, M=1)], lambda d: d / 2)
    assert [t["d"] for t in tab] == [2, 4] and all(t["rel_dev"] < 1e-3 for t in tab)


def test_lattice_experiment_is_seeded_and_valid(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(eps=[0.5], lat_d=[2], lat_betas=[1e3, 1e4], sph_d=[2], sph_betas={2: [1e2, 1e3]}, sph_candidates=2000)
    res = rank_lower.lattice_experiment(p, 0)
    assert len(res["ball"]) == 2 and len(res["sphere"]) == 2 and all(r["margin_ok"] for r in res["ball"])
    assert res["sphere"][0]["M"] <= res["sphere"][1]["M"]


def test_checks_read_their_data():
    ball = [dict(d=d, eps=0.25, beta=b, M=int(round(b ** (d / 2))), margin_ok=True) for d in (2, 3)
            for b in (1e3, 1e4, 1e5)]
    sphere = [dict(d=d, eps=0.25, beta=b, M=int(round(b ** ((d - 1) / 2)))) for d in (2, 3) for b in (1e2, 1e3, 1e4)]
    assert rank_lower.check_ar_synthetic("smoke", data=dict(ball=ball, sphere=sphere)).verdict == "verified"
    off = [dict(r, M=int(round(r["beta"] ** 0.7))) for r in sphere]
    assert rank_lower.check_ar_synthetic("smoke", data=dict(ball=ball, sphere=off)).verdict == "unverifiable-here"
    v = rank_lower.check_ar_lower("smoke", data=dict(ball=ball, sphere=sphere))
    assert v.verdict == "verified" and v.numbers["margin"] > 0
    assert rank_lower.check_ar_lower("smoke", data=dict(ball=[dict(r, margin_ok=False) for r in ball],
                                                         sphere=sphere)).verdict == "refuted"


def test_figures_return_their_data():
    pytest.importorskip("matplotlib")
    res = dict(ball=[dict(d=2, eps=0.25, beta=b, M=b) for b in (1.0, 10.0)],
               sphere=[dict(d=2, eps=0.25, beta=b, M=b) for b in (1.0, 10.0)])
    fig, data = rank_lower.plot_lower_laws(res, 0.25)
    assert data["ball_M"] == [1.0, 10.0]
    gap = [dict(beta=b, eps=0.25, greedy=3, svd=2, upper=2, lower=1, upper_error=0.1) for b in (8, 32)]
    fig, data = rank_lower.plot_gap(gap, 0.25)
    assert data["beta"] == [8, 32] and np.all(np.array(data["lower"]) == 1)
