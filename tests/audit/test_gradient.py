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


# --------------------------------------------------------------------------- AT-precision
def test_extremal_instance_attains_the_norm_bounds_and_the_amplification_is_measured():
    ext = audit.extremal_instance(8, 3, 2.0)
    H = ext["A3"] @ ext["Y"]
    assert np.abs(H).max() == 3 * 2.0 ** 2 and np.abs(H[:, :1] * ext["A2"]).max() == 3 * 2.0 ** 3
    k1, _ = audit.first_order_amplification(ext)
    km = audit.measured_amplification(ext, 1e-6, "adversarial")
    assert km == pytest.approx(k1, rel=1e-4) and km <= audit.amplification_bound(8, 3, 2.0)
    inst = audit.bounded_instance(8, 3, 2.0, np.random.default_rng(0))
    kr = audit.measured_amplification(inst, 1e-6, "random", np.random.default_rng(1))
    assert 0 < kr <= audit.measured_amplification(inst, 1e-6, "adversarial") * (1 + 1e-6)


def _precision_data(exps=(1.0, 3.0, 5.0), bound_factor=10.0, norm=1.0, x_over=0.1):
    rows = []
    base = dict(n=32, d=4, B=2.0)
    for var, values in (("n", [8, 16, 32, 64, 128]), ("d", [1, 2, 4, 8, 16, 32]), ("B", [0.5, 1, 2, 4, 8, 16])):
        for v in values:
            x = {**base, var: v}
            k = x["n"] ** exps[0] * x["d"] ** exps[1] * x["B"] ** exps[2]
            rows.append(dict(sweep=var, n=x["n"], d=x["d"], B=x["B"], kappa_extremal=k, kappa_random_adv=k / 10,
                             kappa_random_rand=k / 100, bound=bound_factor * k,
                             claimed_ndB3=x["n"] * x["d"] * x["B"] ** 3,
                             H_over_dB2_random=0.5, T_over_dB3_random=0.4, H_over_dB2_extremal=norm,
                             T_over_dB3_extremal=1.0))
    xr = [dict(x_scale=s, max_abs_Q=8.0 * s, kappa_adv=x_over * 100.0, bound=100.0) for s in (1, 10, 100)]
    return dict(rows=rows, x=xr)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "corrected"),
    (dict(exps=(1.0, 1.0, 3.0)), "verified"),              # the printed precision would suffice
    (dict(exps=(1.0, 0.5, 3.0)), "loose"),
    (dict(bound_factor=0.5), "refuted"),                   # measured amplification beyond the derived bound
    (dict(exps=(1.0, 4.0, 7.0)), "refuted"),               # faster than even the derived bound's exponents
    (dict(x_over=2.0), "refuted"),                         # a large X breaks the bound
    (dict(norm=1.1), "refuted"),                           # ‖H‖ above dB²
])
def test_check_at_precision_on_planted_evidence(kw, verdict):
    v = audit.check_at_precision("smoke", data=_precision_data(**kw))
    assert v.verdict == verdict, v.summary


def test_precision_at_smoke_scale_with_plot():
    p = preset(audit.PRESETS, "smoke")
    out = audit.precision_experiment(p, 0)
    v = audit.check_at_precision("smoke", data=out)
    assert v.verdict == "corrected" and v.numbers["max_over_bound"] <= 1
    pytest.importorskip("matplotlib")
    _, data = audit.plot_precision(out)
    assert data["d"]["d"] == p["prec_d"]


def _grad_data(corr=1e-9, via=1e-13, printed=0.5, example_printed=-0.452, calls=4, peak=10**6):
    ex = dict(steps=[1e-2, 1e-3, 1e-4], fd=[4.9557, 4.95575, 4.955746964], fd_err=[1e-4, 1e-6, 1e-9],
              corrected=4.955746964223348, printed=example_printed, via_attention=4.955746964223348)
    rows = [dict(n=8, d=2, scale=1.0, logit_range=3.0, grad_norm=1.0, fd_noise=1e-9, corrected_vs_fd=corr,
                 printed_vs_fd=printed, printed_vs_corrected=printed * f, via_attention_vs_direct=via)
            for f in (0.5, 1.0, 2.0)]
    mem = dict(n=2048, d=2, block=512, calls=calls, seconds=0.1, peak_bytes=peak, input_bytes=10**5,
               dense_matrix_bytes=2048 * 2048 * 8, threads=2, working_set_bytes=3 * 10**5 + 4 * 2 * 512 * 512 * 8)
    return dict(example=ex, random=rows, memory=mem)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "corrected"),
    (dict(peak=10**9), "corrected"),                                   # memory above the working set: reported only
    (dict(printed=1e-6, example_printed=4.955746964223348), "verified"),   # the printed form agrees
    (dict(corr=1e-3), "refuted"),                                      # the corrected identity misses the differences
    (dict(via=1e-6), "refuted"),                                       # the d + 2 calls do not reproduce it
    (dict(calls=5), "refuted"),                                        # more than d + 2 calls
])
def test_check_at_grad_on_planted_evidence(kw, verdict):
    v = audit.check_at_grad("smoke", data=_grad_data(**kw))
    assert v.verdict == verdict, v.summary
