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
