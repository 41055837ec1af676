import math

import numpy as np
import pytest
from scipy import stats

from attnlab import gaussian_projection
from attnlab.projection import projected_logits


def test_entries_are_n_0_1_over_m():
    P = gaussian_projection(50, 400, np.random.default_rng(0))
    assert P.shape == (50, 400) and P.dtype == np.float64
    z = (P * math.sqrt(400)).ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-3
    # E[P P^T] = I_d: the sample mean of 200 draws is within a few standard errors (sd of an entry: sqrt(1/m) or sqrt(2/m))
    rng = np.random.default_rng(1)
    mean = sum(G @ G.T for G in (gaussian_projection(5, 64, rng) for _ in range(200))) / 200
    assert np.abs(mean - np.eye(5)).max() < 5 * math.sqrt(2 / 64 / 200)


def test_float32_and_errors():
    assert gaussian_projection(3, 4, np.random.default_rng(0), dtype="float32").dtype == np.float32
    for d, m, name in ((0, 3, "d"), (3, -1, "m")):
        with pytest.raises(ValueError, match=f"{name} must be >= 1"):
            gaussian_projection(d, m, np.random.default_rng(0))
    with pytest.raises(TypeError, match="m must be an integer"):
        gaussian_projection(3, 2.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="dtype"):
        gaussian_projection(3, 2, np.random.default_rng(0), dtype="int8")


def test_projected_logit_scalings():
    rng = np.random.default_rng(2)
    Q, K = rng.standard_normal((6, 16)), rng.standard_normal((5, 16))
    P = gaussian_projection(16, 64, rng)
    base = (Q @ P) @ (K @ P).T
    np.testing.assert_allclose(projected_logits(Q, K, P, scaling="printed"), base / 8)
    np.testing.assert_allclose(projected_logits(Q, K, P, scaling="unbiased"), base / 4)
    # the identity "projection" (m = d) reproduces S exactly under the unbiased scaling
    np.testing.assert_allclose(projected_logits(Q, K, np.eye(16)), Q @ K.T / 4)
    with pytest.raises(ValueError, match="scaling"):
        projected_logits(Q, K, P, scaling="other")
    with pytest.raises(ValueError, match="P must have d = 16 rows"):
        projected_logits(Q, K, P[:3])
    with pytest.raises(ValueError, match="same width"):
        projected_logits(Q, K[:, :3], P)
