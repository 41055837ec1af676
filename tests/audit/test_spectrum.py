"""Chapter 03's audit (attnlab.audit.spectrum): the inputs, the experiments on tiny presets, the checks, the figures."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attnlab import energy_count  # noqa: E402
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


def test_eckart_young_experiment():
    """The synthetic Eckart–Young runs (an illustration: PDA-ey is decided on the real heads, chapter 12)."""
    rows, adv = A.eckart_young_experiment(TINY, 0)
    assert {r["kind"] for r in rows} == set(A.KINDS)
    assert max(r["rel_diff"] for r in rows) < 1e-10
    assert min(adv["optimised"]) >= adv["eckart_young"] * (1 - 1e-9)
    assert all(r["tail"] <= r["bound"] * (1 + 1e-12) for r in rows if r["alpha"] > 0.5)
    assert not hasattr(A, "check_pda_ey") and not hasattr(A, "check_lr_energy")  # one claim, one verdict (ch. 12)
    _close(A.plot_tail_bound(rows, 32))


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


def test_energy_experiment_and_families():
    rows = A.energy_experiment(TINY, 0)
    assert len(rows) == len(A.ENERGY_KINDS) * 2 * 1 * 2
    assert all(1 <= r["k90"] <= r["n"] for r in rows)
    fam = A.energy_families(rows)
    assert set(fam) == set(A.ENERGY_KINDS)
    assert all(f["matrices"] == 2 and f["at_most_10"] >= f["inside_5_10"] for f in fam.values())
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
                              if t.get_text()
                              and lo * (1 - 1e-9) <= t.get_position()[axis is ax.yaxis] <= hi * (1 + 1e-9)]
                    assert len(labels) <= 8, labels  # (none on a y axis shared with the panel on its left)
        plt.close(fig)


def _all_figures():
    ey, _ = A.eckart_young_experiment(TINY, 0)
    rank = A.rank_experiment(TINY, 0)
    sparse = A.sparse_experiment(dict(TINY, sparse_n=64, sparse_margin=10.0, sparse_eps=0.5), 0)
    return [A.plot_tail_bound(ey, 32)[0], A.plot_demo_spectra(rank, 16)[0],
            A.plot_energy(A.energy_experiment(TINY, 0), 32)[0], A.plot_sparse(sparse)[0], A.plot_wide(rank)[0]]


# ---- LR-onehot: one-hot rows and their span
def test_onehot_k90_against_an_svd():
    rng = np.random.default_rng(0)
    for keys in (1, 3, 17, 40):
        M = np.eye(40)[rng.integers(0, keys, 40)]
        counts = M.sum(axis=0)
        assert A.onehot_k90(counts) == energy_count(np.linalg.svd(M, compute_uv=False), 0.9)
    assert A.onehot_k90(np.ones(64)) == 58  # a permutation matrix: ceil(0.9 L)


def test_onehot_experiment():
    rows = A.onehot_experiment(dict(TINY, onehot_n=32, onehot_d=8, b=[1, 4]), 0)
    assert [r["kind"] for r in rows] == [*A.ENERGY_KINDS, "permutation"]
    perm = rows[-1]
    assert perm["rank"] == 32 and abs(perm["sigma_min"] - 1) < 1e-12 and abs(perm["sigma_max"] - 1) < 1e-12
    local = next(r for r in rows if r["kind"] == "local")
    assert local["distinct"] == 32  # each query's argmax is its own position: the identity


def _onehot_rows(k90s, n=256):
    return [dict(kind=f"k{i}", n=n, d=64, sweep=[], distinct=k, k90_limit=k) for i, k in enumerate(k90s)]


def test_lr_onehot_rule_reaches_every_verdict():
    assert A.check_lr_onehot("smoke", data=_onehot_rows([200, 120, 231, 10, 5])).verdict == "refuted"
    assert A.check_lr_onehot("smoke", data=_onehot_rows([3, 8, 32])).verdict == "verified"
    assert A.check_lr_onehot("smoke", data=_onehot_rows([200, 8, 4])).verdict == "corrected"


# ---- LR-mercer: the exact Mercer spectrum of the softmax kernel
def test_mercer_closed_form_against_a_nystrom_quadrature():
    """One dimension, c = 0.3: Gauss–Hermite Nyström eigenvalues against (1 − ρ)·T·ρ^p and the trace (1 − 2c)^(−1/2)."""
    c = 0.3
    x, w = np.polynomial.hermite_e.hermegauss(200)
    w = w / w.sum()
    ev = np.sort(np.linalg.eigvalsh(np.sqrt(w)[:, None] * np.exp(c * np.outer(x, x)) * np.sqrt(w)[None, :]))[::-1]
    rho = (1 - np.sqrt(1 - 4 * c * c)) / (2 * c)
    T = (1 - 2 * c) ** -0.5
    assert np.allclose(ev[:6], (1 - rho) * T * rho ** np.arange(6), rtol=1e-9)
    assert abs(ev.sum() - T) < 1e-9


def test_mercer_spectrum_counts():
    from scipy import special
    m = A.mercer_spectrum(8)
    assert abs(m["rho"] - (np.sqrt(2) - 1)) < 1e-12  # c = 1/sqrt(8): rho = sqrt 2 - 1
    # brute force: shares of the levels p <= 30, eigenvalue by eigenvalue
    shares = [(1 - m["rho"]) ** 8 * m["rho"] ** p for p in range(31) for _ in range(special.comb(p + 7, 7, exact=True))
              if p <= m["degree"]]
    assert int(np.searchsorted(np.cumsum(shares), 0.9) + 1) == m["count"]
    assert A.mercer_spectrum(4)["count"] == float("inf") and not A.mercer_spectrum(3)["trace_finite"]
    counts = [A.mercer_spectrum(d)["count"] for d in (5, 8, 16, 32, 64)]
    assert counts == sorted(counts)  # more eigenvalues at every larger width


def _mercer_data(counts, gram_frac):
    exact = [dict(d=d, rho=0.1, top_share=0.01, degree=1, count=c, trace_finite=True) for d, c in counts.items()]
    gram = [dict(d=d, n=512, trial=0, k90=int(f * 512), top_share=0.1) for d, f in gram_frac.items()]
    return exact, gram


def test_lr_mercer_rule_reaches_every_verdict():
    big = {8: 40_000, 64: 10**14}
    assert A.check_lr_mercer("smoke", data=_mercer_data(big, {8: 0.15, 64: 0.4})).verdict == "refuted"
    assert A.check_lr_mercer("smoke", data=_mercer_data({8: 20, 64: 100}, {8: 0.05, 64: 0.05})).verdict == "verified"
    assert A.check_lr_mercer("smoke", data=_mercer_data({8: 20, 64: 10**14}, {8: 0.05, 64: 0.4})).verdict == "corrected"
    # the operator says high rank but the measured matrices (d > 16) are low: corrected, not refuted
    assert A.check_lr_mercer("smoke", data=_mercer_data(big, {8: 0.3, 64: 0.05})).verdict == "corrected"


def test_mercer_experiment():
    exact, gram = A.mercer_experiment(dict(TINY, mercer_widths=[4, 8], mercer_d=[8], mercer_n=[32], mercer_trials=2), 0)
    assert [e["d"] for e in exact] == [4, 8] and len(gram) == 2 and all(1 <= g["k90"] <= 32 for g in gram)


# ---- LR-kdk: the projection size against L at fixed d_k
def test_sphere_inputs_bound_the_logits():
    Q, K = A.sphere_inputs(50, 4, 2.0, np.random.default_rng(0))
    assert np.allclose(np.linalg.norm(Q, axis=1), np.sqrt(8)) and np.abs(Q @ K.T / 2).max() <= 2 * 2 + 1e-12


def _kdk_rows(table):
    """table[(d, g)] = [(n, rank, lower, upper), ...]."""
    return [dict(d=d, g=g, n=n, eps=0.5, rank=rk, lower=lo, upper=up)
            for (d, g), v in table.items() for n, rk, lo, up in v]


def test_lr_kdk_rule_reaches_every_verdict():
    flat = [(128, 128, 3, 5), (256, 256, 3, 5), (512, 512, 3, 5)]
    sharp = [(128, 128, 10, 30), (256, 256, 10, 60), (512, 512, 10, 80)]
    v = A.check_lr_kdk("smoke", data=_kdk_rows({(4, 1): flat, (4, 4): sharp}))
    assert v.verdict == "corrected" and v.numbers["scale_dependent"]
    growing = [(128, 128, 3, 5), (256, 256, 6, 9), (512, 512, 12, 20)]
    assert A.check_lr_kdk("smoke", data=_kdk_rows({(4, 1): growing, (4, 4): sharp})).verdict == "refuted"
    low = [(128, 4, 2, 4), (256, 4, 2, 4), (512, 4, 2, 4)]
    assert A.check_lr_kdk("smoke", data=_kdk_rows({(4, 1): low, (4, 4): low})).verdict == "verified"


def test_kdk_experiment():
    rows = A.kdk_experiment(dict(TINY, kdk_d=[4], kdk_g=[1], kdk_n=[16, 32], kdk_eps=0.5), 0)
    assert len(rows) == 2 and all(1 <= r["lower"] <= r["upper"] <= r["n"] for r in rows)


# ---- PDA-rsvd: the randomized SVD against Eckart–Young, and the counts
def test_flop_counts():
    assert A.priced_flops(1024, 32) == 1024**2 * 32 * 5 + 1024 * 32**2
    assert A.exact_svd_flops(30) == dict(values_only=8 * 30**3 // 3, with_vectors=21 * 30**3)
    # the dominant term of the randomized SVD: 2q + 2 products of 2 L^2 k flops
    L, k = 10**6, 42
    assert abs(A.rsvd_flops(L, 32, 10, 2) / (12 * L * L * k) - 1) < 1e-3


def test_rsvd_experiment_small():
    x = A.rsvd_experiment(dict(TINY, rsvd_L=128, rsvd_r=8, rsvd_pq=[[0, 0], [10, 2]], rsvd_count_L=[128]), 0)
    assert [u["q"] for u in x["runs"]] == [0, 2]
    assert all(u["ratio"] >= 1 - 1e-12 for u in x["runs"])  # nothing beats Eckart–Young
    assert x["runs"][1]["ratio"] <= x["runs"][0]["ratio"]


def _rsvd_data(ratio, L=1024, r=32):
    return dict(L=L, r=r, m=128, d=64, optimum=1.0, counts=[],
                runs=[dict(p=10, q=2, error=ratio, ratio=ratio, flops=A.rsvd_flops(L, r, 10, 2))])


def test_pda_rsvd_rule_reaches_every_verdict():
    assert A.check_pda_rsvd("smoke", data=_rsvd_data(1.005)).verdict == "corrected"
    assert A.check_pda_rsvd("smoke", data=_rsvd_data(1 + 1e-9)).verdict == "verified"
    assert A.check_pda_rsvd("smoke", data=_rsvd_data(2.5)).verdict == "refuted"
    # at L below the crossover the exact truncation fits the price: verified whatever the randomized error
    assert A.check_pda_rsvd("smoke", data=_rsvd_data(1.2, L=32)).verdict == "verified"


def test_readable_numbers_have_no_e_notation():
    assert A.readable(10930) == "10,930" and A.readable(2.894e14) == "2.9 × 10¹⁴"
    assert A.readable(6.5e-6) == "6.5 × 10⁻⁶" and A.readable(float("inf")) == "∞"
    assert "e+" not in A.readable(5_307_000_000_000_000_000_000)
