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
    assert v.verdict == "loose"  # the identity holds and the bound also holds for alpha in (1/2, 1]
    _close(A.plot_tail_bound(rows, 32))


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
    assert len(rows) == len(A.KINDS) * 2 * 1 * 2
    assert all(1 <= r["k90"] <= r["n"] for r in rows)
    v = A.check_lr_energy("smoke", data=rows)
    assert v.verdict in VERDICTS and v.numbers["matrices"] == len(A.KINDS) * 2
    _close(A.plot_energy(rows, 32))


def test_kernel_experiment_and_check():
    rows, adv = A.kernel_experiment(TINY, 0)
    assert len(rows) == 2 and min(r["min_rel"] for r in rows) > -1e-12
    assert A.check_lr_kernel("smoke", data=(rows, adv)).verdict == "verified"
    bad = [dict(rows[0], min_rel=-0.1)] + rows[1:]
    assert A.check_lr_kernel("smoke", data=(bad, adv)).verdict == "refuted"
