"""The attention-unit gradient (claim AT-grad): corrected identity, printed form, and the d + 2 attention calls."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlab
from attnlab import gradient as gr


def _inst(n, d, scale, seed):
    return gr.random_instance(n, d, scale, np.random.default_rng(seed))


def test_worked_example_numbers():
    ex = gr.worked_example_experiment()
    assert ex["corrected"] == pytest.approx(4.955746964223348, rel=1e-14)
    assert ex["printed"] == pytest.approx(-0.45201333971841007, rel=1e-12)
    assert min(ex["fd_err"]) < 1e-8 and ex["fd_err"][0] > 1e-5      # the truncation error dominates at h = 1e-2
    assert ex["via_attention"] == pytest.approx(ex["corrected"], rel=1e-13)


def test_public_names():
    assert attnlab.attention_loss_grad is gr.attention_loss_grad
    assert attnlab.attention_loss_grad_via_attention is gr.attention_loss_grad_via_attention


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 4), scale=st.sampled_from([0.1, 1.0, 5.0]), seed=st.integers(0, 10**6))
def test_property_corrected_gradient_matches_central_differences(n, d, scale, seed):
    inst = _inst(n, d, scale, seed)
    g = gr.attention_loss_grad(**inst)
    h = 1e-5 * max(1.0, float(np.abs(inst["X"]).max()))
    fd = gr.central_difference_grad(**inst, h=h)
    assert np.linalg.norm(g - fd) <= 1e-5 * max(np.linalg.norm(g), 1.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), d=st.integers(1, 6), scale=st.sampled_from([0.1, 1.0, 30.0]), seed=st.integers(0, 10**6))
def test_property_d_plus_2_calls_equal_direct(n, d, scale, seed):
    inst = _inst(n, d, scale, seed)
    g = gr.attention_loss_grad(**inst)
    ga, calls = gr.attention_loss_grad_via_attention(**inst, return_calls=True)
    gb = gr.attention_loss_grad_via_attention(**inst, blocked=True, block=7)
    assert calls == d + 2
    tol = 1e-10 * max(np.abs(g).max(), 1.0)
    assert np.abs(ga - g).max() <= tol and np.abs(gb - g).max() <= tol


def test_printed_form_is_not_the_gradient_but_agrees_when_n_is_1():
    inst = _inst(5, 3, 1.0, 1)
    assert np.linalg.norm(gr.attention_loss_grad_printed(**inst) - gr.attention_loss_grad(**inst)) > 1e-3
    one = _inst(1, 2, 1.0, 2)   # n = 1: F = 1, both forms are 0
    assert np.allclose(gr.attention_loss_grad_printed(**one), 0) and np.allclose(gr.attention_loss_grad(**one), 0)


def test_huge_logits_are_finite():
    inst = _inst(16, 2, 1.0, 3)
    inst["X"] = inst["X"] * 1e4
    for f in (gr.attention_loss_grad, gr.attention_loss_grad_printed, gr.attention_loss_grad_via_attention):
        assert np.isfinite(f(**inst)).all()


def test_bad_input():
    inst = _inst(4, 2, 1.0, 0)
    with pytest.raises(ValueError, match="X must have shape"):
        gr.attention_loss_grad(**{**inst, "X": np.ones((3, 3))})
    with pytest.raises(ValueError, match="E must have shape"):
        gr.attention_loss_grad_printed(**{**inst, "E": np.ones((5, 2))})
    with pytest.raises(ValueError, match="A2 must be 2-dimensional"):
        gr.attention_loss_grad_via_attention(**{**inst, "A2": np.ones(4)})
    with pytest.raises(ValueError, match="A1 contains NaN"):
        gr.attention_loss_grad(**{**inst, "A1": np.full((4, 2), np.nan)})
    with pytest.raises(TypeError, match="block must be an integer"):
        gr.attention_loss_grad_via_attention(**inst, block=2.5)


def test_memory_of_blocked_calls_is_far_below_dense():
    m = gr.memory_experiment(2048, 2, 256)
    assert m["calls"] == 4 and m["peak_bytes"] < 0.2 * m["dense_matrix_bytes"]
    inst = gr.random_instance(2048, 2, 1.0, np.random.default_rng(0))
    assert np.allclose(m["grad"], gr.attention_loss_grad(**inst), rtol=1e-9, atol=1e-9)
