r"""The gradient of one attention unit, and how to get it from d + 2 attention calls (claim AT-grad).

Seed 003 (Gupta, Huang, Saha, Xu, Ye 2025, §4, Thm 4.3) studies the loss

.. math::
    \mathcal L(X) = \tfrac12\,\|F H - E\|_F^2,\qquad F = \mathrm{rowsoftmax}(A_1 X A_2^\top),\quad H = A_3 Y,

with :math:`A_1, A_2, A_3, E\in\mathbb R^{n\times d}` and :math:`X, Y\in\mathbb R^{d\times d}` (logits are
not scaled: inverse temperature 1). With :math:`C = FH - E`, :math:`G = CH^\top` and :math:`r = (F\circ G)\mathbf 1`,

.. math::
    \nabla_X\mathcal L = A_1^\top\big(F\circ G - \mathrm{diag}(r)\,F\big)A_2 .

The printed form replaces :math:`\mathrm{diag}(r)F` by :math:`F\,\mathrm{diag}((F\circ G^\top)\mathbf 1)`.
Writing :math:`T_p = F\,\mathrm{diag}(H_{:,p})\,A_2` (``p = 1..d``), :math:`Z = FH`, :math:`U = FA_2`,

.. math::
    (F\circ G)A_2 = \sum_p \mathrm{diag}(C_{:,p})\,T_p,\qquad r = (C\circ Z)\mathbf 1,\qquad
    \nabla_X\mathcal L = A_1^\top\Big(\sum_p \mathrm{diag}(C_{:,p})T_p - \mathrm{diag}(r)\,U\Big),

so :math:`Z, U, T_1, \dots, T_d` are :math:`d + 2` attention outputs with the same :math:`Q = A_1X`,
:math:`K = A_2`, and the rest is :math:`O(nd^2)` work.
"""
from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np

from ._validate import as_float_array, positive_int
from .attention import attention, attention_blocked
from .backend import get_array_module
from .audit.cache import memoize
from .audit.scale import preset
from .softmax import softmax
from .audit.verdict import Verdict

__all__ = [
    "PRESETS",
    "WORKED_EXAMPLE",
    "attention_loss",
    "attention_loss_grad",
    "attention_loss_grad_printed",
    "attention_loss_grad_via_attention",
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


# --------------------------------------------------------------------------- validation
def _check(A1, A2, A3, X, Y, E):
    A1 = as_float_array(A1, "A1", ndim=2)
    A2 = as_float_array(A2, "A2", ndim=2)
    A3 = as_float_array(A3, "A3", ndim=2)
    X = as_float_array(X, "X", ndim=2)
    Y = as_float_array(Y, "Y", ndim=2)
    E = as_float_array(E, "E", ndim=2)
    if len({type(a) for a in (A1, A2, A3, X, Y, E)}) != 1:
        raise TypeError("A1, A2, A3, X, Y and E must all be NumPy arrays or all CuPy arrays")
    n, d = A1.shape
    if n == 0 or d == 0:
        raise ValueError(f"A1 must have positive dimensions, got shape {tuple(A1.shape)}")
    for name, a, shape in (("A2", A2, (n, d)), ("A3", A3, (n, d)), ("X", X, (d, d)), ("Y", Y, (d, d)),
                           ("E", E, (n, d))):
        if tuple(a.shape) != shape:
            raise ValueError(f"{name} must have shape {shape} (A1 is {n}×{d}), got {tuple(a.shape)}")
    return A1, A2, A3, X, Y, E


def _forward(A1, A2, A3, X, Y, E):
    F = softmax(A1 @ X @ A2.T, axis=-1)
    H = A3 @ Y
    C = F @ H - E
    return F, H, C


# --------------------------------------------------------------------------- loss and gradients
def attention_loss(A1, A2, A3, X, Y, E) -> float:
    r"""The loss :math:`\tfrac12\|\mathrm{rowsoftmax}(A_1XA_2^\top)A_3Y - E\|_F^2` (claim AT-grad).

    Examples
    --------
    >>> round(attention_loss(**WORKED_EXAMPLE), 6)
    6.196038
    """
    _, _, C = _forward(*_check(A1, A2, A3, X, Y, E))
    return float(0.5 * (C * C).sum())


def attention_loss_grad(A1, A2, A3, X, Y, E):
    r"""The gradient :math:`A_1^\top(F\circ G - \mathrm{diag}(r)F)A_2` of :func:`attention_loss` in X (direct, O(n²d)).

    Parameters
    ----------
    A1, A2, A3, E : arrays, shape (n, d)
    X, Y : arrays, shape (d, d)

    Returns
    -------
    array, shape (d, d)

    Examples
    --------
    >>> float(attention_loss_grad(**WORKED_EXAMPLE)[0, 0])
    4.955746964223348
    """
    A1, A2, A3, X, Y, E = _check(A1, A2, A3, X, Y, E)
    F, H, C = _forward(A1, A2, A3, X, Y, E)
    FG = F * (C @ H.T)
    r = FG.sum(axis=1, keepdims=True)
    return A1.T @ (FG - r * F) @ A2


def attention_loss_grad_printed(A1, A2, A3, X, Y, E):
    r"""The printed form of Thm 4.3: :math:`A_1^\top(F\circ G - F\,\mathrm{diag}((F\circ G^\top)\mathbf 1))A_2`.

    This is **not** the gradient (see the chapter); kept to measure how far it is.

    Examples
    --------
    >>> round(float(attention_loss_grad_printed(**WORKED_EXAMPLE)[0, 0]), 12)   # the seed: -0.45201333971841007
    -0.452013339718
    """
    A1, A2, A3, X, Y, E = _check(A1, A2, A3, X, Y, E)
    F, H, C = _forward(A1, A2, A3, X, Y, E)
    G = C @ H.T
    s = (F * G.T).sum(axis=1)
    return A1.T @ (F * G - F * s[None, :]) @ A2


def attention_loss_grad_via_attention(A1, A2, A3, X, Y, E, *, blocked: bool = False, block: int = 1024,
                                      threads=None, return_calls: bool = False):
    r"""The gradient from d + 2 attention calls with :math:`Q = A_1X`, :math:`K = A_2` (inverse temperature 1).

    The value matrices are :math:`H`, :math:`A_2` and :math:`\mathrm{diag}(H_{:,p})A_2` for ``p = 1..d``;
    then :math:`C = Z - E`, :math:`r = (C\circ Z)\mathbf 1` and
    :math:`\nabla_X = A_1^\top(\sum_p \mathrm{diag}(C_{:,p})T_p - \mathrm{diag}(r)U)`, O(nd²) extra work.
    With ``blocked=True`` every call is :func:`attnlab.attention_blocked`, so no n×n array is ever formed.

    Returns the (d, d) gradient, and with ``return_calls`` also the number of attention calls made.

    Examples
    --------
    >>> float(attention_loss_grad_via_attention(**WORKED_EXAMPLE)[0, 0])  # doctest: +ELLIPSIS
    4.9557469642233...
    """
    A1, A2, A3, X, Y, E = _check(A1, A2, A3, X, Y, E)
    block = positive_int(block, "block")
    att = (lambda Q, K, V: attention_blocked(Q, K, V, beta=1.0, block=block, threads=threads)) if blocked else (
        lambda Q, K, V: attention(Q, K, V, beta=1.0))
    Q, H = A1 @ X, A3 @ Y
    Z = att(Q, A2, H)                       # call 1: F H
    U = att(Q, A2, A2)                      # call 2: F A2
    C = Z - E
    r = (C * Z).sum(axis=1, keepdims=True)  # (F∘G)1 = (C∘FH)1
    W = -r * U
    d = A1.shape[1]
    for p in range(d):                      # calls 3 .. d+2: F diag(H[:, p]) A2
        W += C[:, p:p + 1] * att(Q, A2, H[:, p:p + 1] * A2)
    g = A1.T @ W
    return (g, d + 2) if return_calls else g


def central_difference_grad(A1, A2, A3, X, Y, E, h: float):
    """Central differences of :func:`attention_loss` in every entry of X with step ``h`` (2d² loss evaluations)."""
    A1, A2, A3, X, Y, E = _check(A1, A2, A3, X, Y, E)
    xp = get_array_module(X)
    d = X.shape[0]
    g = xp.empty((d, d))
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
    from .attention import _cpu_count  # noqa: PLC0415

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
    from .plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    ax.loglog(ex["steps"], ex["fd_err"], "o-", label="|central difference − corrected|")
    ax.axhline(abs(ex["printed"] - ex["corrected"]), color="k", ls="--", lw=1, label="|printed − corrected|")
    ax.set_xlabel("step h")
    ax.set_ylabel("absolute error in ∂L/∂X")
    ax.legend(fontsize=6)
    return fig, dict(step=ex["steps"], fd=ex["fd"], fd_err=ex["fd_err"])


def plot_random(rows):
    """Relative error against central differences for every random instance: corrected vs printed, by logit range."""
    from .plotting import figure  # noqa: PLC0415

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
