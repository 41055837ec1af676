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


def _rl(slope_scale=1.0, visible_shift=0, gb=(1.0, 1.0)):
    ball = []
    for d in (2, 3):
        for b in (1e3, 1e4, 1e5):
            g = (b / d ** 0.5) ** 0.5
            ball.append(dict(d=d, eps=0.25, beta=b, beta_nominal=b, gamma=g,
                             M=max(1, int(round((1 + b / 0.25**2) ** (slope_scale * d / 2) / 1e3)))))
    sphere = [dict(d=d, eps=0.25, beta=b, beta_nominal=b, M=int(round(b ** (slope_scale * (d - 1) / 2))))
              for d in (2, 3) for b in (1e2, 1e3, 1e4)]
    emb = [dict(r=r, ambient=r + 1, visible=r + visible_shift, n=10, L=10, beta=1.0, Gamma_over_beta=gb[i % 2],
                embed_error=0.0) for i, r in enumerate((1, 2, 3))]
    return dict(lattice=dict(ball=ball, sphere=[]), embedding=emb, sphere=sphere)


@pytest.mark.parametrize("data, verdict", [
    (_rl(), "verified"),
    (_rl(visible_shift=1), "refuted"),        # the embedding does not have visible dimension r
    (_rl(slope_scale=1.6), "refuted"),        # a lower bound growing faster than the upper law allows
    (_rl(slope_scale=0.6), "unverifiable-here"),
    (_rl(gb=(0.1, 1.0)), "unverifiable-here"),
])
def test_check_ar_rlower_planted(data, verdict):
    assert rank_lower.check_ar_rlower("smoke", data=data).verdict == verdict


def test_embedded_lattice_head_is_the_lattice():
    from attnlab import visible_interaction_dim
    Q, K, beta, direct = rank_lower.embedded_lattice_head(2, 2.0)
    assert Q.shape[1] == 3 and visible_interaction_dim(Q, K).r == 2
    np.testing.assert_allclose(beta * (Q @ K.T) - beta * (Q @ K.T)[:, :1], direct - direct[:, :1], atol=1e-9)


def _count(log10_tokens, d=4, ell=5):
    fac = rank_lower.count_factor()
    rows = [dict(d=d, eps=0.25, ell=ell, gamma=1.0, beta=1.0, M=1, exact=True, log10_tokens=log10_tokens,
                 per_message_volume=1.0, per_point=1.0, unit_ball=1.0, ell_d=ell**d)]
    return dict(factor=fac, rows=rows)


@pytest.mark.parametrize("data, verdict", [
    (_count(80_000, d=6, ell=1), "verified"),
    (_count(80_000, d=4), "corrected"),
    (_count(80_000, d=6, ell=3), "corrected"),
    (_count(5_000, d=4), "refuted"),
])
def test_check_ar_count_planted(data, verdict):
    assert rank_lower.check_ar_count("smoke", data=data).verdict == verdict


def test_count_factor():
    f = rank_lower.count_factor()
    assert f["factors"] == {5: 4, 13: 4} and f["grid_side"] == {2: 4225, 3: None, 4: 65, 6: None}
