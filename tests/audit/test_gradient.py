"""The evidence of chapter 05 (AT-grad): the worked example, the random sweep, the memory run and the verdict."""
import numpy as np
import pytest

from attnlab import attention_loss_grad
from attnlab.audit import gradient as audit
from attnlab.audit.scale import preset


def test_worked_example_numbers():
    ex = audit.worked_example_experiment()
    assert ex["corrected"] == pytest.approx(4.955746964223348, rel=1e-14)
    assert ex["printed"] == pytest.approx(-0.45201333971841007, rel=1e-12)
    assert min(ex["fd_err"]) < 1e-8 and ex["fd_err"][0] > 1e-5      # the truncation error dominates at h = 1e-2
    assert ex["via_attention"] == pytest.approx(ex["corrected"], rel=1e-13)


def test_central_difference_grad_on_a_quadratic_direction():
    inst = audit.random_instance(5, 2, 1.0, np.random.default_rng(0))
    g = attention_loss_grad(**inst)
    fd = audit.central_difference_grad(**inst, h=1e-5)
    assert np.allclose(fd, g, rtol=1e-6, atol=1e-8)
    D = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert audit.directional_difference(inst, D, 1e-5) == pytest.approx(fd[0, 0], rel=1e-9)


def test_random_experiment_rows_at_smoke_scale():
    p = preset(audit.PRESETS, "smoke")
    rows = audit.random_experiment(p, 0)
    assert len(rows) == len(p["n"]) * len(p["d"]) * len(p["scales"]) * p["reps"]
    assert max(r["corrected_vs_fd"] for r in rows) <= 1e-6
    assert max(r["via_attention_vs_direct"] for r in rows) <= 1e-10
    assert np.median([r["printed_vs_corrected"] for r in rows]) > 1e-3


def test_memory_of_blocked_calls_is_far_below_dense():
    m = audit.memory_experiment(2048, 2, 256)
    assert m["calls"] == 4 and m["peak_bytes"] < 0.2 * m["dense_matrix_bytes"]
    inst = audit.random_instance(2048, 2, 1.0, np.random.default_rng(0))
    assert np.allclose(m["grad"], attention_loss_grad(**inst), rtol=1e-9, atol=1e-9)


def test_check_with_chapter_data_equals_check_alone():
    p = preset(audit.PRESETS, "smoke")
    data = dict(example=audit.worked_example_experiment(), random=audit.random_experiment(p, 0),
                memory=audit.memory_experiment(p["mem_n"], p["mem_d"], p["block"], 0))
    v = audit.check_at_grad("smoke", data=data)
    assert v.verdict == "corrected" and v.numbers["instances"] == len(data["random"])


def test_plots_return_their_data():
    pytest.importorskip("matplotlib")
    ex = audit.worked_example_experiment()
    fig, data = audit.plot_step_sweep(ex)
    assert data["step"] == ex["steps"]
    rows = audit.random_experiment(preset(audit.PRESETS, "smoke"), 0)
    fig, data = audit.plot_random(rows)
    assert len(data["n"]) == len(rows)
