"""The decoder's part of ``notebooks/12-decoder-structure.ipynb`` (a section of chapter 12): what only a causal
decoder's heads show. (The same page compares the approximations on the encoder's heads with
:func:`attnlab.audit.real_heads.pareto_experiment`.)

The heads are SmolLM2-135M-Instruct's (``data/decoder_heads``, read with
:func:`attnlab.audit.decoder_heads.load_heads`): 30 layers, 9 query heads sharing 3 key/value heads, head width 64,
RoPE. Four measurements, none of which decides a claim (the claims about trained heads are decided in chapter 12,
:mod:`attnlab.audit.real_heads`, on both models):

- :func:`causal_pareto_experiment`: the causal approximations (FAVOR+ with prefix sums, local windows, local windows
  with the first token kept) against exact causal attention, error against cost by exact operation counts;
- :func:`position_experiment`: energy count k₉₀ of the causal matrix of the first i tokens against i;
- :func:`gqa_experiment`: how alike the attention of the three query heads that share one key/value head is;
- :func:`sink_experiment`: the attention mass on the first token, per layer and head.

Every experiment is memoized, keyed also by the hash of the shipped data.
"""
from __future__ import annotations

import math

import numpy as np
from threadpoolctl import threadpool_limits

from .. import attention_matrix, energy_count, performer_attention, singular_values
from .cache import memoize

__all__ = ["PRESETS", "cost_counts", "window_attention", "causal_pareto_experiment", "position_experiment",
           "gqa_experiment", "sink_experiment", "plot_causal_pareto", "plot_position", "plot_gqa_sinks"]

PRESETS = {
    "smoke": dict(text=0, n=64, layers=[0, 29], favor_m=[64], windows=[16], prefixes=[16, 32, 64], frac=0.9,
                  sink_from=16, sink_texts=[0]),
    "book": dict(text=0, n=256, layers=[0, 5, 10, 15, 20, 25, 29], favor_m=[64, 128, 256], windows=[8, 16, 32, 64, 128],
                 prefixes=[8, 16, 32, 64, 128, 256], frac=0.9, sink_from=16, sink_texts=[0, 1]),
    "paper": dict(text=0, n=256, layers=list(range(30)), favor_m=[64, 128, 256, 512], windows=[8, 16, 32, 64, 128],
                  prefixes=[8, 16, 32, 64, 128, 256], frac=0.9, sink_from=16, sink_texts=[0, 1]),
}


def _data():
    from . import decoder_heads, real_heads  # noqa: PLC0415

    return decoder_heads.load_heads(), real_heads.data_hash("decoder"), real_heads._texts()


def _heads(p, text=None):
    """(tid, Q (layers, 9, n, d), K, V (layers, 3, n, d)) of the preset's text at its n, float64."""
    heads, _, texts = _data()
    tid = texts[p["text"] if text is None else text]["id"]
    (h,) = [h for (t, _), h in heads.items() if t == tid]
    n = p["n"]
    return tid, h["Q"][:, :, :n], h["K"][:, :, :n], h["V"][:, :, :n]


# --------------------------------------------------------------------------- costs, by exact counts
def _window_keys(n: int, w: int, sink: bool) -> int:
    """Σ_i of the keys row i reads: min(i + 1, w), plus the first token where the window has passed it."""
    return sum(min(i + 1, w) + (sink and i >= w) for i in range(n))


def cost_counts(n: int, d: int, dv: int, method: str, budget: int = 0) -> dict:
    """Exact multiply–adds (``mac``) and exponentials (``exp``) of one causal head of n tokens:

    - ``exact``: every pair j ≤ i, n(n + 1)/2 of them, scored (d each) and weighted (d_v each), one exp each;
    - ``favor`` (m = ``budget`` features, prefix sums): ωᵀq and ωᵀk 2nmd, 2nm exps, the running sums
      Σ_{j≤i} φ(k_j)v_jᵀ and Σ_{j≤i} φ(k_j) nm(d_v + 1), their products with φ(q_i) nm(d_v + 1);
    - ``window`` (w = ``budget``): the pairs with i − w < j ≤ i; ``window+sink``: those and the pair (i, 0).
    """
    if method == "exact":
        pairs = n * (n + 1) // 2
    elif method == "favor":
        m = budget
        return dict(mac=2 * n * m * d + 2 * n * m * (dv + 1), exp=2 * n * m)
    elif method in ("window", "window+sink"):
        pairs = _window_keys(n, budget, method == "window+sink")
    else:
        raise ValueError(f"method must be 'exact', 'favor', 'window' or 'window+sink', got {method!r}")
    return dict(mac=pairs * (d + dv), exp=pairs)


def window_attention(Q, K, V, w: int, *, sink: bool = False):
    """Causal attention of each query i over the keys i − w < j ≤ i only (and key 0 besides, if ``sink``), β = 1/√d.
    Computed here with a dense mask (the book's sizes are small); its cost is that of :func:`cost_counts`."""
    n, d = Q.shape
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 1:
        raise ValueError(f"w must be an integer >= 1, got {w!r}")
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    keep = (j <= i) & (j > i - w)
    if sink:
        keep |= j == 0
    S = np.where(keep, Q @ K.T / math.sqrt(d), -np.inf)
    S -= S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return (E / E.sum(axis=1, keepdims=True)) @ V


# --------------------------------------------------------------------------- (a) the causal Pareto
def causal_pareto_experiment(p: dict, seed: int = 0) -> dict:
    """Per layer of ``layers`` (all 9 heads of the text ``text`` at n tokens): the error ‖Õ − O‖_F/‖O‖_F pooled over
    the heads against exact causal attention O, and the exact cost of one head (:func:`cost_counts`), for FAVOR+
    with prefix sums (``performer_attention(causal=True)``, orthogonal features, one seeded draw per head) at
    m ∈ ``favor_m``, local windows w ∈ ``windows``, and those windows with the first token kept."""
    return _pareto(p, seed, _data()[1])


@memoize
def _pareto(p, seed, data):
    tid, Q, K, V = _heads(p)
    n, d, dv = Q.shape[2], Q.shape[3], V.shape[3]
    rep = Q.shape[1] // K.shape[1]
    methods = {"exact": ("exact", 0)}
    methods.update({f"FAVOR+ m={m}": ("favor", m) for m in p["favor_m"]})
    methods.update({f"window w={w}": ("window", w) for w in p["windows"]})
    methods.update({f"window w={w} + first token": ("window+sink", w) for w in p["windows"]})
    rows = []
    with threadpool_limits(1):
        for layer in p["layers"]:
            heads = [(Q[layer, h], K[layer, h // rep], V[layer, h // rep]) for h in range(Q.shape[1])]
            O = [attention_matrix(q, k, causal=True) @ v for q, k, v in heads]
            o2 = sum(float((o * o).sum()) for o in O)
            for name, (family, budget) in methods.items():
                e2 = 0.0
                for h, (q, k, v) in enumerate(heads):
                    if family == "exact":
                        out = O[h]
                    elif family == "favor":
                        out = performer_attention(q, k, v, budget, rng=np.random.default_rng([seed, layer, h, budget]),
                                                  causal=True)
                    else:
                        out = window_attention(q, k, v, budget, sink=family == "window+sink")
                    e2 += float(((out - O[h]) ** 2).sum())
                c = cost_counts(n, d, dv, family, budget)
                rows.append(dict(layer=layer, method=name, family=family, budget=budget,
                                 rel_err=math.sqrt(e2 / o2), mac=c["mac"], exp=c["exp"]))
    return dict(rows=rows, n=n, d=d, text=tid, exact=cost_counts(n, d, dv, "exact"))


# --------------------------------------------------------------------------- (b) energy against position
def position_experiment(p: dict, seed: int = 0) -> list:
    """Per layer, head and prefix length i ∈ ``prefixes``: k₉₀ of the causal attention matrix of the first i tokens
    (the leading i × i block of the head's causal A, which is the head's attention on that prefix), and k₉₀ of its
    rows i/2 … i − 1 with the first column removed (the later rows' energy apart from the first token). No random
    draw (``seed`` is not used)."""
    return _position(p, _data()[1])


@memoize
def _position(p, data):
    tid, Q, K, _ = _heads(p)
    rep = Q.shape[1] // K.shape[1]
    rows = []
    with threadpool_limits(1):
        for layer in p["layers"]:
            for h in range(Q.shape[1]):
                A = attention_matrix(Q[layer, h], K[layer, h // rep], causal=True)
                for i in p["prefixes"]:
                    B = A[:i, :i]
                    rows.append(dict(layer=layer, head=h, i=i, k90=energy_count(singular_values(B), p["frac"]),
                                     k90_late=energy_count(singular_values(B[i // 2:, 1:]), p["frac"]),
                                     sink_share=float((B[:, 0] ** 2).sum() / (B * B).sum())))
    return rows


# --------------------------------------------------------------------------- (c) grouped-query attention
def _tv(A, B, start):
    """Mean over rows i ≥ ``start`` of the total-variation distance ½‖A_i − B_i‖₁ between two attention matrices."""
    return float(0.5 * np.abs(A[start:] - B[start:]).sum(axis=1).mean())


def gqa_experiment(p: dict, seed: int = 0) -> list:
    """Per layer of ``layers`` and pair of query heads: the mean total-variation distance of their causal attention
    rows (rows i ≥ ``sink_from``), and whether the pair shares a key/value head. No random draw."""
    return _gqa(p, _data()[1])


@memoize
def _gqa(p, data):
    tid, Q, K, _ = _heads(p)
    nh, rep = Q.shape[1], Q.shape[1] // K.shape[1]
    rows = []
    with threadpool_limits(1):
        for layer in p["layers"]:
            A = [attention_matrix(Q[layer, h], K[layer, h // rep], causal=True) for h in range(nh)]
            for a in range(nh):
                for b in range(a + 1, nh):
                    rows.append(dict(layer=layer, a=a, b=b, shared=a // rep == b // rep,
                                     tv=_tv(A[a], A[b], p["sink_from"])))
    return rows


# --------------------------------------------------------------------------- (d) attention sinks
def sink_experiment(p: dict, seed: int = 0) -> list:
    """Per text of ``sink_texts``, layer (all 30) and head (all 9): the mean attention mass on the first token (BOS)
    over rows i ≥ ``sink_from`` (row 0 can attend only to it), and the same mean for the token before the query
    (the diagonal's neighbour, a common other target). No random draw."""
    return _sinks(p, _data()[1])


@memoize
def _sinks(p, data):
    rows = []
    with threadpool_limits(1):
        for ti in p["sink_texts"]:
            tid, Q, K, _ = _heads(p, ti)
            rep = Q.shape[1] // K.shape[1]
            s = p["sink_from"]
            for layer in range(Q.shape[0]):
                for h in range(Q.shape[1]):
                    A = attention_matrix(Q[layer, h], K[layer, h // rep], causal=True)
                    idx = np.arange(s, A.shape[0])
                    rows.append(dict(text=tid, layer=layer, head=h, first=float(A[s:, 0].mean()),
                                     previous=float(A[idx, idx - 1].mean()), diagonal=float(A[idx, idx].mean())))
    return rows


# --------------------------------------------------------------------------- figures
def plot_causal_pareto(res, ax=None):
    """Error ‖Õ − O‖_F/‖O‖_F (pooled over a layer's 9 heads) against multiply–adds of one head relative to exact
    causal attention, one marker per family and one point per layer and budget; the median over layers joined."""
    from ..plotting import figure  # noqa: PLC0415

    if ax is None:
        ax = figure(height=2.8)[1]
    styles = {"favor": ("o", "-", "FAVOR+, prefix sums"), "window": ("s", "--", "local window"),
              "window+sink": ("^", ":", "local window + first token")}
    exact = res["exact"]["mac"]
    for fam, (mk, ls, label) in styles.items():
        rs = [r for r in res["rows"] if r["family"] == fam]
        budgets = sorted({r["budget"] for r in rs})
        x = [r["mac"] / exact for r in rs]
        sc = ax.scatter(x, [r["rel_err"] for r in rs], marker=mk, alpha=0.35, s=16)
        med = [float(np.median([r["rel_err"] for r in rs if r["budget"] == b])) for b in budgets]
        xs = [next(r["mac"] for r in rs if r["budget"] == b) / exact for b in budgets]
        ax.plot(xs, med, marker=mk, ls=ls, color=sc.get_facecolor()[0][:3], label=label)
    ax.axvline(1.0, color="black", lw=1, ls=(0, (1, 1)), label="exact causal attention")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("multiply–adds of a head / exact causal")
    ax.set_ylabel(r"$\|\tilde O - O\|_F\,/\,\|O\|_F$")
    ax.figure.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2)
    ax.figure.tight_layout(rect=(0, 0.2, 1, 1))
    return ax.figure


def plot_position(rows, ax=None):
    """Median k₉₀ of the first i tokens' causal matrix against i, per layer (markers and line styles cycle), with
    the line k₉₀ = i (full rank)."""
    from ..plotting import figure  # noqa: PLC0415

    if ax is None:
        ax = figure(height=2.8)[1]
    layers = sorted({r["layer"] for r in rows})
    prefixes = sorted({r["i"] for r in rows})
    marks, lines = "osD^v<>", ["-", "--", ":", "-."]
    for n_, layer in enumerate(layers):
        med = [float(np.median([r["k90"] for r in rows if r["layer"] == layer and r["i"] == i])) for i in prefixes]
        ax.plot(prefixes, med, marker=marks[n_ % len(marks)], ls=lines[n_ % len(lines)], label=f"layer {layer}")
    ax.plot(prefixes, prefixes, color="grey", lw=1, ls=(0, (1, 1)), label="$k_{90} = i$")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(prefixes, [str(i) for i in prefixes])
    ax.set_xlabel("prefix length $i$ (tokens)")
    ax.set_ylabel(r"median $k_{90}$")
    ax.figure.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=4)
    ax.figure.tight_layout(rect=(0, 0.22, 1, 1))
    return ax.figure


def plot_gqa_sinks(gqa, sinks, axes=None):
    """Left: the mean total-variation distance between query heads sharing a key/value head and between heads that
    do not, per layer (median and range). Right: per layer, the median and the largest mean mass on the first token
    over the 9 heads (texts pooled)."""
    from ..plotting import figure  # noqa: PLC0415

    if axes is None:
        fig, axes = figure(ncols=2, width=3.4, height=2.6)
    fig = axes[0].figure
    layers = sorted({r["layer"] for r in gqa})
    for shared, mk, ls, label in ((True, "o", "-", "heads sharing K, V"), (False, "s", "--", "heads not sharing")):
        q = np.array([np.percentile([r["tv"] for r in gqa if r["layer"] == L and r["shared"] == shared],
                                    [0, 50, 100]) for L in layers])
        axes[0].errorbar(layers, q[:, 1], yerr=[q[:, 1] - q[:, 0], q[:, 2] - q[:, 1]], marker=mk, ls=ls, capsize=3,
                         label=label)
    axes[0].set_xlabel("layer")
    axes[0].set_ylabel("mean total variation")
    axes[0].set_ylim(0, 1)
    axes[0].legend(loc="upper left", fontsize="small")
    sl = sorted({r["layer"] for r in sinks})
    for stat, mk, ls, label in ((np.median, "o", "-", "median head"), (np.max, "^", ":", "most sink-bound head")):
        axes[1].plot(sl, [float(stat([r["first"] for r in sinks if r["layer"] == L])) for L in sl], marker=mk,
                     ls=ls, label=label, markersize=4)
    axes[1].set_xlabel("layer")
    axes[1].set_ylabel("mass on the first token")
    axes[1].set_ylim(0, 1)
    axes[1].legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    return fig

