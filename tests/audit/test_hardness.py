"""The evidence of chapter 06 (AT-sentinel … AT-temp): the helpers only the experiments use, the experiments at the
smoke scale, the verdicts computed from the chapter's data, and the figures."""
import math

import numpy as np
import pytest

from attnlab.audit import hardness as audit
from attnlab.audit.scale import preset

P = preset(audit.PRESETS, "smoke")


def test_random_ov_sets_plant_orthogonal_partners():
    rng = np.random.default_rng(0)
    A, Bv = audit.random_ov_sets(32, 10, rng, planted=5)
    assert set(np.unique(A)) <= {0.0, 1.0} and set(np.unique(Bv)) <= {0.0, 1.0}
    assert ((A @ Bv.T) == 0).any(1).sum() >= 5
    with pytest.raises(ValueError, match="n must be >= 1"):
        audit.random_ov_sets(0, 3, rng)


def test_parity_counterexample():
    assert math.exp(math.log(2) ** 2) == pytest.approx(1.61680667, abs=1e-8)
    ce = audit.parity_counterexample(math.log(2))
    assert ce is not None and ce["n"] * ce["d"] == 2
    assert audit.parity_counterexample(math.sqrt(math.log(2))) is None


def test_printed_kprime_t_does_not_multiply():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        audit.printed_kprime_t(rng.standard_normal((20, 2)), rng.standard_normal((40, 2)), rng.standard_normal((20, 2)))


def test_maxip_tolerance():
    A = np.array([[1, 0], [0, 1]]); Bv = np.array([[2, 0], [0, 3], [1, 1]])
    tol = audit.maxip_tolerance(A, Bv, C0=8.0, iters=8)
    assert 0 < tol < 0.5


def test_experiments_and_checks_at_smoke_scale():
    expected = dict(sentinel="corrected", maxip="corrected", ov="verified", log2="corrected", lowrank="corrected",
                    temp="verified")
    for name, verdict in expected.items():
        data = getattr(audit, f"{name}_experiment")(P, 0)
        if name == "maxip":
            data = dict(rows=data, threshold=audit.maxip_threshold_instances(P["mip_C0"]))
        v = getattr(audit, f"check_at_{name}")("smoke", data=data)
        assert v.verdict == verdict, v.summary
        assert v == getattr(audit, f"check_at_{name}")("smoke")


def test_plots_return_their_data():
    pytest.importorskip("matplotlib")
    sent = audit.sentinel_experiment(P, 0)
    _, data = audit.plot_sentinel(sent)
    assert data["B"] == P["sent_B"]
    _, data = audit.plot_maxip(audit.maxip_experiment(P, 0))
    assert len(data["n"]) == len(P["mip_n"]) * len(P["mip_C0"])
    _, data = audit.plot_ov(audit.ov_experiment(P, 0))
    assert data["n"] == P["ov_n"]


# --------------------------------------------------------------------------- AT-search and AT-parity
def _search_data(rounds_shift=0, flat=None, over_bound=False, tol_factor=1.0, rel=0.1, search_err=0.0):
    """Fabricated evidence: every run's rounds equal ⌈log₂ G⌉ of its grid (``rounds_shift`` added), the bound the
    closed form (or below the count with ``over_bound``), a sweep whose rounds stay flat with ``flat``."""
    rows = []

    def add(sweep, n, d, B, eta):
        G = audit.search_grid_size(n, d, B, eta)
        c = math.ceil(math.log2(G))
        lo = math.floor(math.log2(G))
        if flat == sweep:        # a count that stays at 4 over the whole sweep
            c = lo = 4
        bound = max(audit.search_round_bound(n, d, B, eta), c) if not over_bound else c - 1
        rows.append(dict(sweep=sweep, n=n, d=d, B=B, eta=eta, rel_err_over_allowed=rel, rounds=c + rounds_shift,
                         formula=math.log2(math.log2(n)) + math.log2(d * B / eta),
                         counts=[dict(eta=eta, G=G, rounds=c + rounds_shift, floor=lo, ceil=c, bound=bound)]))
    for n in [2 ** k for k in range(2, 17)]:
        add("n", n, 1, 0.25, 0.05)
    for d in [2 ** k for k in range(0, 11)]:
        add("d", 16, d, 1.0, 0.05)
    for B in [2.0 ** k for k in range(0, 7)]:
        add("B", 16, 1, B, 0.05)
    for k in range(4, 60):
        add("eta", 16, 1, 1.0, 2.0 ** (-k / 4))
    tol = [dict(eta=e, measured=tol_factor * e / (4 + 2 * e), closed_form=e / (4 + 2 * e),
                over_eta=tol_factor / (4 + 2 * e), search_rel_err=search_err, allowed=(1 + e) ** 2 - 1)
           for e in (0.9, 0.5, 0.25, 0.1, 0.01)]
    return dict(rows=rows, tolerance=tol)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "verified"),
    (dict(rounds_shift=1), "refuted"),        # one round more than the bisection of the grid needs
    (dict(rounds_shift=-2), "refuted"),       # fewer than a bisection can take: the count is not the search's
    (dict(over_bound=True), "refuted"),       # the count exceeds the closed-form O(log log n + log(dB/η))
    (dict(flat="n"), "loose"),                # the log log n term not needed
    (dict(flat="B"), "loose"),
    (dict(tol_factor=0.5), "refuted"),        # the measured tolerance is not the closed form η/(4+2η)
    (dict(rel=2.0), "refuted"),               # the search misses the row sums with an exact oracle
    (dict(search_err=1.0), "refuted"),        # inside the tolerance, the search still fails
])
def test_check_at_search_on_planted_evidence(kw, verdict):
    v = audit.check_at_search("smoke", data=_search_data(**kw))
    assert v.verdict == verdict, v.summary


def test_search_round_bound_holds_on_a_grid():
    for n in (3, 4, 100, 10 ** 6):
        for d in (1, 7, 512):
            for B in (0.1, 1.0, 30.0):
                for eta in (0.9, 0.1, 1e-4):
                    assert math.ceil(math.log2(audit.search_grid_size(n, d, B, eta))) <= \
                        audit.search_round_bound(n, d, B, eta)


def _parity_data(fraction=0.5, N=4000, agree=True, exact_bad=False, stratum_bad=False):
    rng = np.random.default_rng(1)
    t = rng.integers(1, 6, N).tolist()
    odd = (rng.random(N) < fraction).astype(int).tolist()
    if stratum_bad:                       # t = 5 never odd, the others compensate
        odd = [0 if ti == 5 else int(rng.random() < 0.625) for ti in t]
    exact = {str(k): ("1/2" if k else "0") for k in range(13)}
    if exact_bad:
        exact["3"] = "3/8"
    return dict(t=t, odd=odd, gadget_agree=1000 if agree else 999, readings=1000, zero_rows=50, zero_odd=0,
                exact=exact)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "verified"),
    (dict(fraction=0.4), "refuted"),
    (dict(fraction=0.5, N=100), "refuted"),   # too few samples: the interval is wider than 0.1
    (dict(agree=False), "refuted"),
    (dict(exact_bad=True), "refuted"),
    (dict(stratum_bad=True), "refuted"),
])
def test_check_at_parity_on_planted_evidence(kw, verdict):
    v = audit.check_at_parity("smoke", data=_parity_data(**kw))
    assert v.verdict == verdict, v.summary


def test_separation_tolerance_is_the_closed_form():
    for eta in (0.5, 0.05):
        assert audit.separation_tolerance(eta) == pytest.approx(eta / (4 + 2 * eta), rel=1e-9)


def test_odd_probability_exact():
    import sympy as sp
    assert audit.odd_probability_exact(0) == 0
    assert all(audit.odd_probability_exact(t) == sp.Rational(1, 2) for t in range(1, 9))


def test_search_and_parity_at_smoke_scale_with_plots():
    s = audit.search_experiment(P, 0)
    assert audit.check_at_search("smoke", data=s).verdict == "verified"
    assert {r["sweep"] for r in s["rows"]} == {"n", "d", "B", "eta"}
    par = audit.parity_mc_experiment(P, 0)
    v = audit.check_at_parity("smoke", data=par)
    assert v.verdict == "verified" and par["zero_odd"] == 0 and par["gadget_agree"] == par["readings"]
    pytest.importorskip("matplotlib")
    _, data = audit.plot_search(s)
    assert set(data) == {"n", "d", "B", "eta"}
    _, data = audit.plot_parity(v.numbers)
    assert len(data["t"]) == len(v.numbers["strata_ci"])


# --------------------------------------------------------------------------- planted evidence, AT-sentinel … AT-temp
def _sentinel_rows(logc=30.0, ident=1e-15, rel=0.01, spread_rel=0.01, spread_entry=None, spread_ident=0.0, extra=0,
                   value_entry=None):
    rows = []
    for B in (0.5, 1.0, 2.0):
        rows.append(dict(value_scale=min(1.0, B), value_entry=min(1.0, B) if value_entry is None else value_entry,
                         value_scaled_err=0.0, B=B, n=64, d=2, eta=0.05, identity_err=ident, rounds=10, max_rel_err=rel,
                         max_abs_log_c=logc * B, bound_log_n_dB2=math.log(64) + 2 * B * B + math.log1p(0.05),
                         spread_identity_err=spread_ident, spread_max_rel_err=spread_rel,
                         spread_width=2 + math.ceil((math.log(64) + 2 * B * B + math.log1p(0.05)) / B ** 2) + extra,
                         spread_entry=B if spread_entry is None else spread_entry * B,
                         spread_rounds=10))
    return rows


@pytest.mark.parametrize("kw, verdict, words", [
    (dict(), "corrected", "keeps B"),
    (dict(spread_entry=1.5), "corrected", "must grow"),             # the repair leaves the bound: B must grow
    (dict(extra=5), "corrected", "must grow"),                       # the repair is wider than its width bound
    (dict(value_entry=1.0), "corrected", "must grow"),               # values 1 above B = 0.5
    (dict(logc=0.9), "verified", "keeps B"),                         # the printed coordinate within B
    (dict(ident=1e-6), "refuted", ""),                               # o ≠ S/(S + c)
    (dict(spread_ident=1e-6), "refuted", ""),                        # the spread gadget computes something else
    (dict(rel=0.5), "refuted", ""),                                  # the printed search misses the row sums
    (dict(spread_rel=0.5), "refuted", ""),                           # the spread search misses them
])
def test_check_at_sentinel_on_planted_evidence(kw, verdict, words):
    v = audit.check_at_sentinel("smoke", data=_sentinel_rows(**kw))
    assert v.verdict == verdict and words in v.summary, v.summary


def _log2_data(printed_err=5, dup_err=0, sqrt_err=0, e=math.exp(math.log(2) ** 2), printed_ce=True, dup_ce=False,
               B_dup=math.sqrt(math.log(2) / 2), value_diff=1e-16):
    ce = dict(n=2, d=1, a=[1], keys=[[1], [1]], S=3.2, inner_products=[1, 1], orthogonal=0)
    res = lambda k: dict(errors=k, false_pos=0, false_neg=k, total=100)  # noqa: E731
    return dict(e_log2_sq=e, B_printed=math.log(2), B_sqrt=math.sqrt(math.log(2)), B_dup=B_dup, d=4, d_dup=8,
                e_dup=2.0, counterexample=ce if printed_ce else None, counterexample_sqrt=None,
                counterexample_dup=ce if dup_ce else None, printed=res(printed_err), sqrt=res(sqrt_err),
                dup=res(dup_err), values=dict(entry=math.log(2), max_diff=value_diff, parity_agree=100, total=100,
                                              max_entry_QKV=math.log(2)))


@pytest.mark.parametrize("kw, verdict, words", [
    (dict(), "corrected", "B = log 2 stands"),
    (dict(value_diff=1e-3), "corrected", "B = √(log 2), not log 2"),  # values log 2 would change the output
    (dict(dup_err=3), "corrected", "B = √(log 2), not log 2"),        # only the repair beyond the bound decodes
    (dict(dup_ce=True), "corrected", "B = √(log 2), not log 2"),
    (dict(B_dup=0.8), "corrected", "B = √(log 2), not log 2"),        # a "repair" that leaves the bound
    (dict(dup_err=3, sqrt_err=1), "refuted", "no scaling"),
    (dict(e=2.0, printed_ce=False, printed_err=0), "verified", "printed scaling decodes"),
])
def test_check_at_log2_on_planted_evidence(kw, verdict, words):
    v = audit.check_at_log2("smoke", data=_log2_data(**kw))
    assert v.verdict == verdict and words in v.summary, v.summary


def _maxip_data(tie_fail_small=True, exact_large=1.0, fail_large=False, star_ok=(), below_fail=False,
                fact=(True, True)):
    rows = []
    for n in (8, 32):
        for C0 in (2.0, 4.0, 8.0):
            good = C0 > 2 * math.log(n) + 0.5
            ties = good and not (fail_large and C0 == 8.0) or (not tie_fail_small)
            rows.append(dict(n=n, C0=C0, frac_exact=exact_large if good else 0.9, tolerance=0.1,
                             ties_exact=bool(ties), C0_needed_ties=2 * math.log(n)))
    thr = [dict(C0=C0, threshold=math.exp(C0 / 2), n_star=math.floor(math.exp(C0 / 2)) + 1,
                decoded_star=1 if C0 in star_ok else 2, gap_star=0.51, n_search=60,
                decoded_search=1 if C0 in star_ok else 2, n_below=2, decoded_below=2 if below_fail else 1,
                gap_below=0.4, truth=1) for C0 in (2.0, 4.0, 8.0)]
    return dict(rows=rows, threshold=thr, fact=fact)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "corrected"),
    (dict(star_ok=(8.0,)), "verified"),              # a constant C0 survives n* tied keys
    (dict(exact_large=0.9), "refuted"),              # C0 > 2 ln n still misdecodes
    (dict(fail_large=True), "refuted"),              # a tie fails where the rule predicts success
    (dict(below_fail=True), "refuted"),              # below the analytic threshold the tie misdecodes
    (dict(fact=(True, False)), "refuted"),           # SymPy finds another threshold
])
def test_check_at_maxip_on_planted_evidence(kw, verdict):
    v = audit.check_at_maxip("smoke", data=_maxip_data(**kw))
    assert v.verdict == verdict, v.summary


def test_maxip_threshold_instances_fail_past_e_to_the_C0_over_2():
    rows = audit.maxip_threshold_instances([2.0, 6.0, 10.0])
    assert all(r["n_star"] > r["threshold"] >= r["n_star"] - 1 for r in rows)
    assert all(r["decoded_star"] == 2 and r["decoded_search"] == 2 and r["decoded_below"] == 1 for r in rows)
    assert audit.maxip_fact() == (True, True)


# --------------------------------------------------------------------------- AT-seth, AT-ovh
def _red_data(kind, gadget="corrected", entries_ok=True, width=2.0, gap=0.0025, B_ok=True):
    mag = audit.reduction_magnitudes()
    if not entries_ok:       # entries e^{(ln n)²}: the exponent grows with ln n
        for r in mag["seth"]:
            r["entry_exponent"] = r["log10_n"] * math.log(10)
    for r in mag["seth"]:
        r["width_ratio"], r["gap"] = width, gap
    if not B_ok:             # entries ln n instead of √ln n
        for r in mag["ovh"]:
            r["B_over_sqrt_log_n"] = math.sqrt(r["log10_n"] * math.log(10))
    ids = ("AT-maxip", "AT-sentinel", "AT-search") if kind == "seth" else ("AT-ov", "AT-sentinel")
    return dict(gadgets={c: gadget for c in ids}, magnitudes=mag)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "unverifiable-here"),
    (dict(gadget="verified"), "unverifiable-here"),
    (dict(gadget="refuted"), "refuted"),             # a gadget of the reduction fails
    (dict(entries_ok=False), "corrected"),           # superpolynomial entries: outside the theorem's regime
    (dict(width=5.0), "corrected"),                  # the width leaves 2^(C log* n)
    (dict(gap=0.0), "corrected"),                    # no constant error suffices
])
def test_check_at_seth_on_planted_evidence(kw, verdict):
    v = audit.check_at_seth("smoke", data=_red_data("seth", **kw))
    assert v.verdict == verdict, v.summary


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "unverifiable-here"),
    (dict(gadget="refuted"), "refuted"),
    (dict(B_ok=False), "corrected"),                 # entries beyond O(√log n)
])
def test_check_at_ovh_on_planted_evidence(kw, verdict):
    v = audit.check_at_ovh("smoke", data=_red_data("ovh", **kw))
    assert v.verdict == verdict, v.summary


def test_reduction_magnitudes_and_log_star():
    assert [audit.log_star(x) for x in (1, 2, 4, 16, 65536, 2.0 ** 65536 if False else 1e300)] == [0, 1, 2, 3, 4, 5]
    mag = audit.reduction_magnitudes()
    ent = [r["entry_exponent"] for r in mag["seth"]]
    assert ent == sorted(ent, reverse=True) and ent[-1] < 1.02
    assert all(r["B_over_sqrt_log_n"] < 1.25 for r in mag["ovh"])


@pytest.mark.parametrize("no, yes, verdict", [(1 / 6, 2 / 3, "verified"), (0.2, 2 / 3, "refuted"),
                                              (1 / 6, 0.6, "refuted")])
def test_check_at_ov_on_planted_evidence(no, yes, verdict):
    rows = [dict(n=16, d=8, planted=0, rows_without=10, rows_with=0, max_o_without=no, min_o_with=float("nan")),
            dict(n=16, d=8, planted=1, rows_without=0, rows_with=5, max_o_without=float("nan"), min_o_with=yes)]
    assert audit.check_at_ov("smoke", data=rows).verdict == verdict


@pytest.mark.parametrize("diff, entry, verdict", [(1e-15, 1.0, "verified"), (1e-6, 1.0, "refuted"),
                                                  (1e-15, 3.0, "refuted")])
def test_check_at_temp_on_planted_evidence(diff, entry, verdict):
    rows = [dict(T=T, max_abs_diff=diff, max_entry=entry * max(2.0, 2.0 / math.sqrt(T)),
                 B_T=max(2.0, 2.0 / math.sqrt(T)), B=2.0) for T in (0.01, 1.0, 100.0)]
    assert audit.check_at_temp("smoke", data=rows).verdict == verdict


def _lowrank_data(err=1e-15, width_ok=True, multiplies=False, square_err=0.9):
    rows = [dict(r=r, n=64, d=32, width=r if width_ok else r + 1, score_rel_err=err, sym_rel_err=err,
                 output_rel_err=err, value_width=32) for r in (1, 2)]
    shapes = dict(VQ_T=[2, 32], UK=[64, 2], VK_T=[2, 32], printed_multiplies=multiplies,
                  printed_error=None if multiplies else "shape mismatch", corrected_shape=[2, 64])
    return dict(rows=rows, shapes=shapes,
                square=dict(n=6, d=6, r=2, printed_multiplies=True, printed_rel_err=square_err))


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "corrected"),
    (dict(multiplies=True), "corrected"),                     # it multiplies, but at n = d it is still wrong
    (dict(multiplies=True, square_err=1e-12), "verified"),    # a printed product that were right
    (dict(err=1e-6), "refuted"),                              # the one-sided factorisation is not exact
    (dict(width_ok=False), "refuted"),
])
def test_check_at_lowrank_on_planted_evidence(kw, verdict):
    v = audit.check_at_lowrank("smoke", data=_lowrank_data(**kw))
    assert v.verdict == verdict, v.summary
