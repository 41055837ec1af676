"""The evidence of chapter 05 (``notebooks/05-gradient.ipynb``, claim AT-grad): the seed's worked example,
random instances against central differences, the memory of the d + 2 blocked attention calls, the verdict and the
figures. The gradients themselves are in :mod:`attnlab.gradient`.
"""
from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np

from .._validate import positive_int
from ..gradient import (attention_loss, attention_loss_grad, attention_loss_grad_printed,
                        attention_loss_grad_via_attention)
from .cache import memoize
from .scale import preset
from .verdict import Verdict

__all__ = [
    "PRESETS",
    "WORKED_EXAMPLE",
    "central_difference_grad",
    "directional_difference",
    "random_instance",
    "worked_example_experiment",
    "random_experiment",
    "memory_experiment",
    "check_at_grad",
    "plot_step_sweep",
    "plot_random",
]

#: Sizes per scale: random instances (n, d, entry scale) and the memory run of the d + 2 blocked calls.
PRESETS = {
    "smoke": dict(n=[2, 3, 8, 32], d=[1, 2, 4], scales=[1.0, 4.0], reps=1, mem_n=2_048, mem_d=2, block=512),
    "book": dict(n=[2, 3, 5, 8, 16, 32, 64, 128, 256, 512], d=[1, 2, 3, 4, 8, 16], scales=[0.3, 1.0, 3.0, 6.0],
                 reps=1, mem_n=65_536, mem_d=2, block=1024),
    "paper": dict(n=[2, 3, 5, 8, 16, 32, 64, 128, 256, 512], d=[1, 2, 3, 4, 8, 16], scales=[0.3, 1.0, 3.0, 6.0],
                  reps=3, mem_n=65_536, mem_d=2, block=1024),
}

#: The worked example of seed 003 (§2.9): n = 2, d = 1, with H given directly (A₃ = H, Y = 1).
WORKED_EXAMPLE = dict(A1=[[1.0], [2.0]], A2=[[-1.0], [1.0]], A3=[[1.0], [3.0]], X=[[0.4]], Y=[[1.0]],
                      E=[[0.2], [-0.1]])


# --------------------------------------------------------------------------- helpers of the experiments
def central_difference_grad(A1, A2, A3, X, Y, E, h: float):
    """Central differences of :func:`attnlab.attention_loss` in every entry of X with step ``h`` (2d² loss
    evaluations, NumPy arrays)."""
    X = np.asarray(X, dtype=float)
    d = X.shape[0]
    g = np.empty((d, d))
    for a in range(d):
        for b in range(d):
            Xp, Xm = X.copy(), X.copy()
            Xp[a, b] += h
            Xm[a, b] -= h
            g[a, b] = (attention_loss(A1, A2, A3, Xp, Y, E) - attention_loss(A1, A2, A3, Xm, Y, E)) / (2 * h)
    return g


def random_instance(n: int, d: int, scale: float, rng):
    """Gaussian A₁, A₂, A₃, E and X, Y with entries N(0, scale²/d) for X (logits of size ≈ scale·√d·…)."""
    n, d = positive_int(n, "n"), positive_int(d, "d")
    A1, A2, A3, E = (rng.standard_normal((n, d)) for _ in range(4))
    X = rng.standard_normal((d, d)) * scale / math.sqrt(d)
    Y = rng.standard_normal((d, d)) / math.sqrt(d)
    return dict(A1=A1, A2=A2, A3=A3, X=X, Y=Y, E=E)


def _rel(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


# --------------------------------------------------------------------------- experiments
@memoize
def worked_example_experiment(steps=None):
    """The seed's worked example: central differences at each step, the corrected and the printed identity."""
    steps = [10.0 ** -k for k in range(2, 9)] if steps is None else steps
    ex = {k: np.asarray(v) for k, v in WORKED_EXAMPLE.items()}
    exact = float(attention_loss_grad(**ex)[0, 0])
    fd = [float(central_difference_grad(**ex, h=h)[0, 0]) for h in steps]
    return dict(steps=list(steps), fd=fd, fd_err=[abs(f - exact) for f in fd], corrected=exact,
                printed=float(attention_loss_grad_printed(**ex)[0, 0]),
                via_attention=float(attention_loss_grad_via_attention(**ex)[0, 0]))


def directional_difference(inst, D, h: float):
    """Central difference of :func:`attention_loss` along direction D: (L(X + hD) − L(X − hD)) / 2h."""
    Xp, Xm = inst["X"] + h * D, inst["X"] - h * D
    return (attention_loss(**{**inst, "X": Xp}) - attention_loss(**{**inst, "X": Xm})) / (2 * h)


@memoize
def random_experiment(p, seed: int = 0, progress: bool = False):
    """Random instances over the preset's n × d × entry scales: both forms against central differences.

    Each instance is probed along four directions D of unit Frobenius norm: two Gaussian ones, the corrected
    gradient itself, and the difference printed − corrected (the adversarial direction: there the two forms
    disagree most). The step is h = 1e-5·max(1, max|X|), and the reference is the Richardson combination
    (4·δ(h/2) − δ(h))/3 of central differences δ, with |δ(h) − δ(h/2)| recorded as ``fd_noise``. Errors are
    relative to ‖∇‖_F (Cauchy–Schwarz scale of ⟨∇, D⟩). Returns a list of dict rows.
    """
    from tqdm import tqdm  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    grid = [(n, d, s) for n in p["n"] for d in p["d"] for s in p["scales"] for _ in range(p["reps"])]
    rows = []
    for n, d, s in tqdm(grid, desc="instances", disable=not progress):
        inst = random_instance(n, d, s, rng)
        h = 1e-5 * max(1.0, float(np.abs(inst["X"]).max()))
        g = attention_loss_grad(**inst)
        gp = attention_loss_grad_printed(**inst)
        ga = attention_loss_grad_via_attention(**inst)
        dirs = [rng.standard_normal((d, d)), rng.standard_normal((d, d)), g, gp - g]
        gn = max(float(np.linalg.norm(g)), 1e-300)
        ec, ep, noise = 0.0, 0.0, 0.0
        for D in dirs:
            nd = float(np.linalg.norm(D))
            if nd == 0:
                continue
            D = D / nd
            f1, f2 = directional_difference(inst, D, h), directional_difference(inst, D, h / 2)
            ref = (4 * f2 - f1) / 3
            noise = max(noise, abs(f1 - f2) / gn)
            ec = max(ec, abs(float((g * D).sum()) - ref) / gn)
            ep = max(ep, abs(float((gp * D).sum()) - ref) / gn)
        logits = inst["A1"] @ inst["X"] @ inst["A2"].T
        rows.append(dict(n=n, d=d, scale=s, logit_range=float(logits.max() - logits.min()), grad_norm=gn,
                         fd_noise=noise, corrected_vs_fd=ec, printed_vs_fd=ep, printed_vs_corrected=_rel(gp, g),
                         via_attention_vs_direct=_rel(ga, g)))
    return rows


@memoize
def memory_experiment(n: int, d: int, block: int, seed: int = 0):
    """Peak traced memory (tracemalloc, which sees NumPy buffers) and time of the d + 2 blocked calls at length n.

    Returns the gradient too, the bytes of the inputs, of one dense n×n float64 matrix, and the working set the
    blocked calls should need: three times the inputs plus four block×block float64 tiles per worker thread.
    """
    from ..exact import _cpu_count  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    inst = random_instance(n, d, 1.0, rng)
    inputs = sum(a.nbytes for a in inst.values())
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    g, calls = attention_loss_grad_via_attention(**inst, blocked=True, block=block, return_calls=True)
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    threads = _cpu_count()
    return dict(n=n, d=d, block=block, calls=calls, seconds=wall, peak_bytes=int(peak), input_bytes=int(inputs),
                dense_matrix_bytes=int(n) * int(n) * 8, threads=threads,
                working_set_bytes=3 * int(inputs) + 4 * threads * block * block * 8, grad=g.tolist())


# --------------------------------------------------------------------------- verdict
def check_at_grad(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-grad: the printed gradient is wrong, the corrected one and the d + 2 calls hold."""
    p = preset(PRESETS, scale)
    if data is None:
        data = dict(example=worked_example_experiment(), random=random_experiment(p, seed),
                    memory=memory_experiment(p["mem_n"], p["mem_d"], p["block"], seed))
    ex, rows, mem = data["example"], data["random"], data["memory"]
    best_fd = min(ex["fd_err"])
    corr = max(r["corrected_vs_fd"] for r in rows)
    noise = max(r["fd_noise"] for r in rows)
    via = max(r["via_attention_vs_direct"] for r in rows)
    printed_min = min(r["printed_vs_corrected"] for r in rows)
    printed_med = float(np.median([r["printed_vs_corrected"] for r in rows]))
    th = dict(identity="max relative error of the corrected gradient against central differences <= 1e-6",
              calls="max relative difference of the d + 2 attention calls from the direct formula <= 1e-10",
              printed_wrong="printed form off by > 1e-3 relative on the worked example and on the median instance",
              memory="peak traced memory of the blocked calls <= 3·inputs + 4·threads·block²·8 bytes and < n²·8 bytes")
    ok_corr = corr <= 1e-6 and abs(ex["corrected"] - ex["fd"][2]) <= 1e-6 and via <= 1e-10
    ok_mem = mem["peak_bytes"] <= mem["working_set_bytes"] and mem["peak_bytes"] < mem["dense_matrix_bytes"]
    printed_wrong = (abs(ex["printed"] - ex["corrected"]) > 1e-3 * abs(ex["corrected"]) and printed_med > 1e-3)
    verdict = ("corrected" if printed_wrong else "verified") if ok_corr and ok_mem else "refuted"
    return Verdict(
        "AT-grad", verdict,
        f"On the worked example central differences give {ex['fd'][2]:.8f} (best error {best_fd:.1e}), the corrected "
        f"identity {ex['corrected']:.15g} and the printed one {ex['printed']:.15g}; over {len(rows)} random instances "
        f"the corrected identity is within {corr:.1e} of central differences and the d + 2 attention calls within "
        f"{via:.1e} of it, while the printed form is off by a median {printed_med:.2f} (relative); at n = {mem['n']} "
        f"the {mem['calls']} blocked calls peaked at {mem['peak_bytes'] / 2**20:.1f} MiB against "
        f"{mem['dense_matrix_bytes'] / 2**30:.1f} GiB for the n×n matrix.",
        numbers=dict(example_fd_h1e4=ex["fd"][2], example_corrected=ex["corrected"], example_printed=ex["printed"],
                     example_best_fd_error=best_fd, instances=len(rows), max_rel_err_corrected_vs_fd=corr,
                     max_fd_noise=noise, max_rel_diff_calls_vs_direct=via, min_rel_err_printed=printed_min,
                     median_rel_err_printed=printed_med, memory_n=mem["n"], memory_calls=mem["calls"],
                     memory_peak_bytes=mem["peak_bytes"], dense_matrix_bytes=mem["dense_matrix_bytes"],
                     memory_working_set_bytes=mem["working_set_bytes"], memory_seconds=mem["seconds"]),
        thresholds=th, scale=p["scale"])


# --------------------------------------------------------------------------- figures
def plot_step_sweep(ex):
    """Central-difference error against the step for the worked example, with the printed form's error."""
    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    ax.loglog(ex["steps"], ex["fd_err"], "o-", label="|central difference − corrected|")
    ax.axhline(abs(ex["printed"] - ex["corrected"]), color="k", ls="--", lw=1, label="|printed − corrected|")
    ax.set_xlabel("step h")
    ax.set_ylabel("absolute error in ∂L/∂X")
    ax.legend(fontsize=6)
    return fig, dict(step=ex["steps"], fd=ex["fd"], fd_err=ex["fd_err"])


def plot_random(rows):
    """Relative error against central differences for every random instance: corrected vs printed, by logit range."""
    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure(width=4.2, height=2.8)
    x = [r["logit_range"] for r in rows]
    ax.loglog(x, [max(r["corrected_vs_fd"], 1e-17) for r in rows], "o", ms=3, label="corrected identity")
    ax.loglog(x, [max(r["printed_vs_fd"], 1e-17) for r in rows], "s", ms=3, label="printed form")
    ax.loglog(x, [max(r["fd_noise"], 1e-17) for r in rows], "k.", ms=2, label="step h vs h/2 (noise)")
    ax.set_xlabel("logit range max − min (low temperature →)")
    ax.set_ylabel("relative error vs central differences")
    ax.legend(fontsize=6)
    data = {k: [r[k] for r in rows] for k in rows[0]}
    return fig, data
