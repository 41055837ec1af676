import numpy as np
import pytest

from attnlab.audit.stats import clopper_pearson, fit_slope


def test_clopper_pearson_known_values():
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    lo, hi = clopper_pearson(10, 10)
    assert hi == 1 and lo == pytest.approx(0.025 ** (1 / 10))
    lo, hi = clopper_pearson(np.array([1, 5]), 10)
    assert lo.shape == (2,) and np.all(lo < np.array([0.1, 0.5])) and np.all(hi > np.array([0.1, 0.5]))
    with pytest.raises(ValueError):
        clopper_pearson(11, 10)


def test_fit_slope_interval_covers_truth():
    rng = np.random.default_rng(0)
    x = np.arange(20.0)
    f = fit_slope(x, 3 - 0.5 * x + 0.01 * rng.standard_normal(20))
    assert f.slope_lo < -0.5 < f.slope_hi and f.r2 > 0.999
    with pytest.raises(ValueError):
        fit_slope([1, 2], [1, 2])
