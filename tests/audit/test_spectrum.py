"""Chapter 03's audit (attnlab.audit.spectrum): the inputs, the experiments on tiny presets, the checks, the figures."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attnlab.audit import spectrum as A  # noqa: E402
from attnlab.audit.verdict import VERDICTS  # noqa: E402

TINY = dict(n=[8, 16], d=[2, 16], trials=1, energy_n=[16, 32], energy_d=[8], b=[1, 4], energy_trials=1,
            ey_n=[16, 32], ey_r=[1, 2, 4], fit_n=32, kernel_n=[6], kernel_d=[2], kernel_trials=2, kernel_search=1)


def test_presets_cover_every_scale():
    assert set(A.PRESETS) == {"smoke", "book", "paper"}
    assert all(set(p) == set(A.PRESETS["smoke"]) for p in A.PRESETS.values())


def test_make_inputs_and_errors():
    rng = np.random.default_rng(0)
    for kind in A.KINDS:
        Q, K = A.make_inputs(kind, 10, 8, rng)
        assert Q.shape == K.shape == (10, 8)
        assert 0.3 < float(np.mean(Q**2)) < 3  # entries of mean square about 1
    Q, K = A.make_inputs("local", 6, 4, rng)
    S = Q @ K.T
    assert np.allclose(np.diag(S), S.max(axis=1))  # local: each query peaks at its own position
    with pytest.raises(ValueError, match="kind"):
        A.make_inputs("nope", 4, 4, rng)
    with pytest.raises(ValueError, match="n"):
        A.make_inputs("gaussian", 0, 4, rng)
    with pytest.raises(ValueError, match="d must be >= 2 for local"):
        A.make_inputs("local", 4, 1, rng)


def _close(fig_data):
    fig, data = fig_data
    assert data
    plt.close(fig)
    return data


def test_eckart_young_experiment_and_check():
    rows, adv = A.eckart_young_experiment(TINY, 0)
    assert {r["kind"] for r in rows} == set(A.KINDS)
    assert max(r["rel_diff"] for r in rows) < 1e-10
    assert min(adv["optimised"]) >= adv["eckart_young"] * (1 - 1e-9)
    v = A.check_pda_ey("smoke", data=(rows, adv))
    assert v.claim == "PDA-ey" and v.verdict in VERDICTS and v.numbers["cases"] == len(rows)
    assert v.numbers["bound_violations"] == 0 and v.verdict != "refuted"
    _close(A.plot_tail_bound(rows, 32))


def _ey(fits, rel=1e-15, beaten=False, violate=False, sharp=0.999):
    """Planted Eckart–Young evidence: one case per ``(kind, n, alpha, r2)`` in ``fits``."""
    rows = [dict(kind=k, n=n, r=2, direct=1.0, tail=1.0, rel_diff=rel, alpha=a, alpha_lo=a, alpha_hi=a, r2=r2, C=1.0,
                 bound=0.5 if violate else 2.0, sigma1=1.0) for k, n, a, r2 in fits]
    adv = dict(n=16, r=4, eckart_young=1.0, optimised=[0.5 if beaten else 1.0],
               sharpness={"0.75": 0.99, "1.5": sharp, "2.0": sharp})
    return rows, adv


def test_pda_ey_rule_reaches_every_verdict():
    good = [("a", 64, 1.5, 0.95), ("b", 64, 1.2, 0.99)]
    half = [("a", 64, 0.8, 0.95), ("b", 64, 0.7, 0.99)]
    poor = [("a", 64, 1.5, 0.6), ("b", 64, 0.4, 0.95)]
    assert A.check_pda_ey("smoke", data=_ey(good)).verdict == "verified"
    assert A.check_pda_ey("smoke", data=_ey(half)).verdict == "corrected"
    assert A.check_pda_ey("smoke", data=_ey(poor)).verdict == "unverifiable-here"
    assert A.check_pda_ey("smoke", data=_ey(good, sharp=0.5)).verdict == "loose"
    assert A.check_pda_ey("smoke", data=_ey(good, rel=1e-6)).verdict == "refuted"
    assert A.check_pda_ey("smoke", data=_ey(good, beaten=True)).verdict == "refuted"
    assert A.check_pda_ey("smoke", data=_ey(good, violate=True)).verdict == "refuted"
    # a violation where alpha <= 1/2 does not count (the bound says nothing there), but is reported as excluded
    v = A.check_pda_ey("smoke", data=_ey([("a", 64, 0.4, 0.95), ("b", 64, 1.5, 0.95)], violate=False))
    assert v.numbers["excluded_alpha_le_half"] == 1


def test_tail_sharpness_tends_to_one():
    s = A.tail_sharpness((0.75, 1.5), r_max=64, k_max=1 << 14)
    assert 0.9 < s["1.5"] <= 1 and 0.8 < s["0.75"] <= 1


def test_rank_experiment_and_checks():
    rows = A.rank_experiment(TINY, 0)
    assert len(rows) == 4 and all(r["rank_scores"] == min(r["n"], r["d"]) for r in rows)
    assert A.check_lr_rank("smoke", data=rows).verdict == "verified"
    v = A.check_lr_cutoff("smoke", data=rows)
    assert v.verdict == "refuted" and v.numbers["draws_cut"] == 0
    _close(A.plot_demo_spectra(rows, 16))


def test_rank_checks_on_hand_made_rows():
    over = [dict(n=4, d=2, trial=0, rank_scores=3, rank_A=4, ratio=0.1, s=[1, 1, 1, 1])]
    assert A.check_lr_rank("smoke", data=over).verdict == "refuted"
    cut = [dict(n=4, d=2, trial=0, rank_scores=2, rank_A=2, ratio=0.0, s=[1, 1, 0, 0])]
    assert A.check_lr_cutoff("smoke", data=cut).verdict == "verified"


def test_energy_experiment_and_check():
    rows = A.energy_experiment(TINY, 0)
    assert len(rows) == len(A.ENERGY_KINDS) * 2 * 1 * 2
    assert all(1 <= r["k90"] <= r["n"] for r in rows)
    v = A.check_lr_energy("smoke", data=rows)
    assert v.verdict in VERDICTS and set(v.numbers["families"]) == set(A.ENERGY_KINDS)
    assert all(f["matrices"] == 2 for f in v.numbers["families"].values())
    _close(A.plot_energy(rows, 32))


def test_sink_inputs_give_one_key_the_same_score():
    rng = np.random.default_rng(0)
    Q, K = A.make_inputs("sink", 32, 16, rng)
    S = Q @ K.T / 4.0
    assert np.allclose(S[:, 0], np.sqrt(2 * np.log(32)))  # every query, same score on key 0
    assert np.allclose(A.make_inputs("sink", 8, 4, rng, sink=3.0)[0] @ A.make_inputs("sink", 8, 4, rng, sink=3.0)[1][0]
                       / 2.0, 3.0)
    with pytest.raises(ValueError, match="d must be >= 2"):
        A.make_inputs("sink", 8, 1, rng)


def _energy_rows(k90):
    """Planted energy rows: ``k90[kind] = (k90 at b = 1, k90 at b = 4)`` for n in (64, 128), d = 64."""
    return [dict(kind=kind, n=n, d=64, b=b, trial=0, k90=v[0] if b == 1 else v[1], alpha=None, r2=None)
            for kind, v in k90.items() for n in (64, 128) for b in (1, 4)]


def test_lr_energy_rule_reaches_every_verdict():
    agree, count_only, sharp_only = (8, 4), (8, 20), (30, 10)
    v = A.check_lr_energy("smoke", data=_energy_rows(dict(gaussian=agree, clustered=agree)))
    assert v.verdict == "verified" and v.numbers["agreeing"] == ["gaussian", "clustered"]
    v = A.check_lr_energy("smoke", data=_energy_rows(dict(gaussian=count_only, sink=sharp_only)))
    assert v.verdict == "refuted" and v.numbers["agreeing"] == []
    v = A.check_lr_energy("smoke", data=_energy_rows(dict(gaussian=count_only, clustered=agree)))
    assert v.verdict == "unverifiable-here" and v.numbers["agreeing"] == ["clustered"]


def test_kernel_experiment_and_check():
    rows, adv = A.kernel_experiment(TINY, 0)
    assert len(rows) == 2 and min(r["min_rel"] for r in rows) > -1e-12
    assert A.check_lr_kernel("smoke", data=(rows, adv)).verdict == "verified"
    bad = [dict(rows[0], min_rel=-0.1)] + rows[1:]
    assert A.check_lr_kernel("smoke", data=(bad, adv)).verdict == "refuted"


# ---- LR-sparse: the seed's scenario, and the rule on planted evidence
def test_sparse_support_patterns():
    rng = np.random.default_rng(0)
    for pattern in A.PATTERNS:
        M = A.sparse_support(pattern, 96, rng)
        k = M.sum(axis=1)
        assert M.shape == (96, 96) and not M.diagonal().any(), pattern
        assert k.min() >= 3 and k.max() <= 5, pattern
    assert A.sparse_support("hubs", 96, rng).any(axis=0).sum() <= 8
    band = A.sparse_support("band", 96, rng)
    i, j = np.nonzero(band)
    inner = (i >= 5) & (i < 91)
    assert np.abs(i - j)[inner].max() <= 3 and np.abs(i - j).max() <= 5  # one-sided at the two ends
    ideal, soft = A.sparse_attention(band, rng, margin=10.0)
    assert np.allclose(ideal.sum(axis=1), 1) and np.allclose(soft.sum(axis=1), 1)
    assert (soft * band).sum(axis=1).min() > 0.5 and soft.min() > 0
    with pytest.raises(ValueError, match="pattern"):
        A.sparse_support("nope", 8, rng)


def test_sparse_experiment_and_check():
    p = dict(TINY, sparse_n=64, sparse_margin=10.0, sparse_eps=0.5)
    rows = A.sparse_experiment(p, 0)
    assert len(rows) == 2 * len(A.PATTERNS)
    for r in rows:
        assert 1 <= r["r_lower"] <= r["r_upper"] <= r["n"] and r["upper_error"] <= r["eps"]
        assert 1 <= r["k90"] <= r["n"]
    hubs = [r for r in rows if r["pattern"] == "hubs"]
    assert all(r["k90"] <= 8 for r in hubs)  # at most 8 distinct keys
    v = A.check_lr_sparse("smoke", data=rows)
    assert v.claim == "LR-sparse" and v.verdict in VERDICTS
    _close(A.plot_sparse(rows))


def _sparse_rows(spec, n=1024):
    """Planted cases: pattern -> (k90, r_lower, r_upper), both realisations alike."""
    return [dict(pattern=pt, realisation=real, n=n, eps=0.5, k90=k, r_lower=lo, r_upper=up)
            for pt, (k, lo, up) in spec.items() for real in ("ideal", "softmax")]


def test_lr_sparse_rule_reaches_every_verdict():
    high, low, mid = (500, 200, 900), (8, 2, 8), (100, 20, 400)
    refuted = _sparse_rows(dict(random=high, band=high, permutation=high, hubs=low, clusters=low))
    assert A.check_lr_sparse("smoke", data=refuted).verdict == "refuted"
    verified = _sparse_rows(dict(random=low, band=low, permutation=low, hubs=low, clusters=low))
    assert A.check_lr_sparse("smoke", data=verified).verdict == "verified"
    some = _sparse_rows(dict(random=high, band=low, permutation=mid, hubs=low, clusters=low))
    assert A.check_lr_sparse("smoke", data=some).verdict == "corrected"
    # a large lower certificate alone makes a case high-rank, even with a small k90
    ell1 = _sparse_rows(dict(random=(50, 200, 900), band=(50, 200, 900), permutation=(50, 200, 900), hubs=low,
                             clusters=low))
    assert A.check_lr_sparse("smoke", data=ell1).verdict == "refuted"


# ---- LR-wide: the demo with d_k >= n
def _wide_rows(k90_wide, k90_narrow, n=32):
    def spectrum(k):  # k equal singular values, then zeros: energy_count(s, 0.9) = ceil(0.9 k)
        return [1.0] * k + [0.0] * (n - k)
    return ([dict(n=n, d=2, trial=0, s=spectrum(k90_narrow)), dict(n=n, d=4, trial=0, s=spectrum(k90_narrow)),
             dict(n=n, d=16, trial=0, s=spectrum(n)), dict(n=n, d=64, trial=0, s=spectrum(k90_wide))])


def test_lr_wide_rule_reaches_every_verdict():
    fast = _wide_rows(k90_wide=4, k90_narrow=3)
    v = A.check_lr_wide("smoke", data=fast)
    assert v.verdict == "verified" and v.numbers["t_median"] < 0.5
    flat = _wide_rows(k90_wide=32, k90_narrow=3)
    v = A.check_lr_wide("smoke", data=flat)
    assert v.verdict == "refuted" and v.numbers["t_median"] > 0.5


def test_lr_wide_on_the_demo_rows():
    rows = A.rank_experiment(dict(TINY, n=[16, 32], d=[2, 4, 32, 64]), 0)
    tab = A.wide_table(rows)
    assert [x["n"] for x in tab] == [16, 32] and all(0 < x["narrow"] <= x["flat"] for x in tab)
    assert A.check_lr_wide("smoke", data=rows).verdict in ("verified", "refuted")
    _close(A.plot_wide(rows))


def test_local_inputs_do_not_repeat():
    Q, _ = A.make_inputs("local", 2048, 64, np.random.default_rng(0))
    G = Q @ Q.T
    off = G - np.diag(np.diag(G))
    assert off.max() < 0.999 * G[0, 0]  # no other position has the same features (the old grid repeated at 16d)


def test_parameters_box_names_every_preset_key():
    """The chapter's parameters box says in words what each preset value is (issue 18)."""
    for name, p in A.PRESETS.items():
        assert set(p) - {"scale"} <= set(A.PARAMETERS), name
    assert all(isinstance(v, str) and v and "_" not in v for v in A.PARAMETERS.values())


def test_log_axes_have_no_minor_tick_labels():
    """No colliding labels such as '3×10²4×10²' (issue 18): every log axis labels its major ticks only."""
    from matplotlib.ticker import NullFormatter

    for fig in _all_figures():
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_scale() == "log":
                    assert isinstance(axis.get_minor_formatter(), NullFormatter)
                    fig.canvas.draw()
                    lo, hi = sorted(axis.get_view_interval())
                    labels = [t.get_text() for t in axis.get_ticklabels()
                              if t.get_text() and lo * (1 - 1e-9) <= t.get_position()[axis is ax.yaxis] <= hi * (1 + 1e-9)]
                    assert len(labels) <= 8, labels  # (none on a y axis shared with the panel on its left)
        plt.close(fig)


def _all_figures():
    ey, _ = A.eckart_young_experiment(TINY, 0)
    rank = A.rank_experiment(TINY, 0)
    sparse = A.sparse_experiment(dict(TINY, sparse_n=64, sparse_margin=10.0, sparse_eps=0.5), 0)
    return [A.plot_tail_bound(ey, 32)[0], A.plot_demo_spectra(rank, 16)[0],
            A.plot_energy(A.energy_experiment(TINY, 0), 32)[0], A.plot_sparse(sparse)[0], A.plot_wide(rank)[0]]
