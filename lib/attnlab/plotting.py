"""The book's figure style and :func:`savefig` (PDF, PNG, CSV of the data, provenance JSON).

Style: no titles (captions carry them), lowercase axis labels, line width 2,
the colour-blind-safe Okabe–Ito palette without its yellow (unreadable on white), one-column paper size
(3.4 × 2.5 in per panel). Series differ by colour, line style and marker at once (:data:`CYCLE`), so that a figure
survives grey print; a dense line carries a few markers, not one per point.

The book shows every figure at the width of its text column (about 688 CSS px, with 16 px body text), whatever
width it was drawn at. A figure drawn ``W`` inches wide is scaled by 688 / (96 W), so text of ``s`` points shows at
``s · 4/3 · 688 / (96 W)`` px; :data:`MIN_TEXT_RATIO` of the body size needs ``s ≥ 1.34 W``. Figures made by
:func:`figure` enforce it when they are drawn (:func:`min_fontsize`): any text below it, set by the style or by a
call, is drawn at it.
"""
from __future__ import annotations

import base64
import csv
import html
import math
import json
import os
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib as mpl
import matplotlib.figure

__all__ = ["OKABE_ITO", "YELLOW_ON_WHITE", "SERIES_COLOURS", "CYCLE", "COLUMN_PX", "BODY_PX", "MIN_TEXT_RATIO",
           "min_fontsize",
           "style", "figure", "savefig", "FigureFiles", "provenance", "log_ticks", "tick_label"]

#: Okabe & Ito (2008) colour-blind-safe palette, black first (index 4, the yellow, is never used for a series on
#: white: it is not in :data:`SERIES_COLOURS`).
OKABE_ITO = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]

#: What a figure made by :func:`figure` draws in place of the yellow, wherever a call asks for it: a dark olive that
#: reads on white (and stays distinct from the other colours).
YELLOW_ON_WHITE = "#8F7F00"

#: The colours of the series, in order: Okabe–Ito without the yellow, black last.
SERIES_COLOURS = [c for c in OKABE_ITO[1:] + OKABE_ITO[:1] if c != "#F0E442"]

#: Colour, line style and marker change together from one series to the next (7 distinct combinations); a call
#: that gives only a colour still takes its line style and marker from the cycle (matplotlib fills in the keys a
#: call leaves out).
CYCLE = (mpl.cycler(color=SERIES_COLOURS)
         + mpl.cycler(linestyle=["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 1))])
         + mpl.cycler(marker=["o", "s", "^", "D", "v", "P", "X"]))

#: The text column's width and the body text size of the book's pages, in CSS px (the theme's 16 px body text).
COLUMN_PX = 688
BODY_PX = 16
#: The smallest text in a figure, shown at column width, as a fraction of the body text.
MIN_TEXT_RATIO = 0.8
#: A line with more points than this gets markers spread along it (``markevery``) instead of one per point.
DENSE_POINTS = 24


def min_fontsize(width_in: float, *, margin: float = 1.1) -> float:
    """The smallest font size (points) that shows at :data:`MIN_TEXT_RATIO` of the body text when a figure
    ``width_in`` inches wide is scaled to the text column; ``margin`` covers a saved width a little wider than the
    figure's (``bbox_inches="tight"`` with a legend outside the axes).

    Examples
    --------
    >>> from attnlab.plotting import min_fontsize
    >>> round(min_fontsize(3.4), 2), round(min_fontsize(10.2), 2)
    (5.01, 15.03)
    """
    if isinstance(width_in, bool) or not isinstance(width_in, (int, float)) or not width_in > 0:
        raise ValueError(f"width_in must be a positive number of inches, got {width_in!r}")
    px_per_pt = (4 / 3) * COLUMN_PX / (96 * width_in)
    return MIN_TEXT_RATIO * BODY_PX / px_per_pt * margin

RC = {
    "figure.figsize": (3.4, 2.5),
    "figure.dpi": 150,
    "savefig.dpi": 300,
    "savefig.bbox": "tight",
    "font.size": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 2,
    "lines.markersize": 4,
    "axes.prop_cycle": CYCLE,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "pdf.fonttype": 42,  # embed TrueType, not Type 3
    "ps.fonttype": 42,
    "svg.fonttype": "path",  # text as outlines: the page shows the same glyphs in every browser
    "svg.hashsalt": "attnlab",  # stable ids inside the SVG: a rebuilt page is the same file
}


def style() -> None:
    """Apply the book's style to matplotlib's global settings.

    Under IPython (the book's build, Jupyter, Colab) figures are also shown as SVG: sharp at any width, with the
    labels at the size they were drawn (the PDF written by :func:`savefig` is the one to cite).
    """
    mpl.rcParams.update(RC)
    if _in_ipython():
        try:
            from matplotlib_inline.backend_inline import set_matplotlib_formats  # noqa: PLC0415
        except ImportError:  # pragma: no cover - IPython without its matplotlib backend
            return
        set_matplotlib_formats("svg")


def figure(ncols: int = 1, nrows: int = 1, *, width: float = 3.4, height: float = 2.5, **kw):
    """A new figure and axes in the book's style (``plt.subplots`` arguments).

    The figure is detached from pyplot's registry, so a notebook does not show it by itself at the end of
    the cell: the chapter decides where it appears (``glue``, :func:`savefig`'s links, or ``display``).
    """
    import matplotlib.pyplot as plt  # noqa: PLC0415

    style()
    fig, ax = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), FigureClass=_BookFigure, **kw)
    plt.close(fig)
    return fig, ax


class _BookFigure(mpl.figure.Figure):
    """A figure that, whenever it is drawn (shown as SVG, saved), raises text below :func:`min_fontsize` of its
    width to that size and spreads the markers of dense lines."""

    def draw(self, renderer):
        _readable(self)
        return super().draw(renderer)


def _no_yellow(fig) -> None:
    """Lines, markers and collections drawn in the palette's yellow are drawn in :data:`YELLOW_ON_WHITE`."""
    import numpy as np  # noqa: PLC0415
    from matplotlib.collections import Collection  # noqa: PLC0415
    from matplotlib.colors import to_hex, to_rgba_array  # noqa: PLC0415
    from matplotlib.lines import Line2D  # noqa: PLC0415

    yellow = OKABE_ITO[4].lower()

    def is_yellow(c):
        try:
            return isinstance(c, str) and c.lower() == yellow or to_hex(c).lower() == yellow
        except (ValueError, TypeError):
            return False

    for line in fig.findobj(Line2D):
        if is_yellow(line.get_color()):
            line.set_color(YELLOW_ON_WHITE)
        if is_yellow(line.get_markerfacecolor()):
            line.set_markerfacecolor(YELLOW_ON_WHITE)
        if is_yellow(line.get_markeredgecolor()):
            line.set_markeredgecolor(YELLOW_ON_WHITE)
    target = to_rgba_array(yellow)[0, :3]
    for coll in fig.findobj(Collection):
        for get, put in ((coll.get_edgecolor, coll.set_edgecolor), (coll.get_facecolor, coll.set_facecolor)):
            cols = np.array(get(), dtype=float)
            if cols.ndim == 2 and len(cols) and np.any(hit := np.all(np.abs(cols[:, :3] - target) < 1e-3, axis=1)):
                cols[hit, :3] = to_rgba_array(YELLOW_ON_WHITE)[0, :3]
                put(cols)


def _readable(fig) -> None:
    from matplotlib.lines import Line2D  # noqa: PLC0415
    from matplotlib.text import Text  # noqa: PLC0415

    floor = min_fontsize(fig.get_figwidth())
    for ax in fig.axes:  # tick labels are made afresh as an axis draws: raise the size they are made at
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
                if ticks and ticks[0].label1.get_fontsize() < floor:
                    axis.set_tick_params(which=which, labelsize=floor)
    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < floor:
            t.set_fontsize(floor)
    _no_yellow(fig)
    for line in fig.findobj(Line2D):
        if (line.get_marker() not in (None, "None", "", " ") and line.get_linestyle() not in ("None", "", " ")
                and line.get_markevery() is None and len(line.get_xdata(orig=False)) > DENSE_POINTS):
            line.set_markevery(0.1)  # markers a tenth of the axes' diagonal apart, wherever the points are


def tick_label(v: float, style: str = "g") -> str:
    r"""One tick label of a log axis, in one of the book's styles (``""`` for v ≤ 0).

    ``"g"``: ``f"{v:g}"``. ``"sci"``: plain between 10⁻³ and 10⁵, else :math:`10^k` or :math:`m\times10^k`.
    ``"plain"``: the same with thousands separators and up to ten digits (2,048). ``"tex"``: plain between 10⁻² and
    10⁵ except the powers 10^k with |k| ≥ 3, which read :math:`10^k` beside their neighbours (10³, not 1000), else
    :math:`m\times10^k` with two digits.
    """
    if v <= 0:
        return ""
    if style == "g":
        return f"{v:g}"
    e = math.floor(math.log10(v) + 1e-9)
    m = v / 10**e
    if style == "tex":
        if abs(m - 1) < 1e-6 and abs(e) >= 3:
            return f"$10^{{{e}}}$"
        if 1e-2 <= v < 1e5:
            return f"{v:.10g}"
        return f"$10^{{{e}}}$" if abs(m - 1) < 1e-6 else f"${m:.2g}\\times10^{{{e}}}$"
    if 1e-3 <= v < 1e5:
        return f"{v:,.10g}" if style == "plain" else f"{v:g}"
    if style == "plain":
        return f"$10^{{{e}}}$" if abs(m - 1) < 1e-9 else f"${m:g}\\times10^{{{e}}}$"
    return f"$10^{{{e}}}$" if abs(m - 1) < 1e-6 else f"${m:g}\\times10^{{{e}}}$"


def log_ticks(*targets, short=None, short_subs=(1.0, 2.0, 5.0), short_numticks=None, long=None, long_subs=None,
              numticks=None, labels=None, short_labels=None, ticks=None, span="ratio") -> None:
    """Tick labels of log axes that never collide ("3×10²4×10²"); call it after plotting (it reads the limits).

    Minor ticks are never labelled. With no options that is all; the options choose the major ticks by the span of
    the axis, in decades: ``log10(hi / lo)`` (``span="ratio"``) or the number of powers of ten within the limits
    (``span="powers"``). Axes that are not log-scaled are left as they are.

    Parameters
    ----------
    *targets : matplotlib Axes or Axis
        An Axes stands for both its axes.
    short : float or (float, float), optional
        An axis spanning fewer decades than this (a pair: the x and the y threshold) gets major ticks at
        ``short_subs`` × 10^k (so that it keeps several labels).
    short_subs, short_numticks : optional
        The major ticks of a short axis, ``LogLocator(base=10, subs=short_subs, numticks=short_numticks)``.
    long : float, optional
        With ``long_subs`` or ``numticks``: only an axis spanning more than ``long`` decades gets the long locator
        (default: every axis that is not short).
    long_subs, numticks : optional
        The long locator, ``LogLocator(base=10, subs=long_subs, numticks=numticks)``.
    labels : {"g", "sci", "plain", "tex"} or callable, optional
        The major tick labels of every axis touched (:func:`tick_label`); default: matplotlib's.
    short_labels : {"g", "sci", "plain", "tex", "g-or-sci"} or callable, optional
        Those of a short axis (``"g-or-sci"``: ``"g"`` within [10⁻³, 10⁴), else matplotlib's scientific labels).
    ticks : sequence of float, optional
        Fixed major ticks (then no locator is chosen by span).
    span : {"ratio", "powers"}
        How the span is measured.
    """
    from matplotlib import ticker  # noqa: PLC0415
    from matplotlib.axis import Axis  # noqa: PLC0415

    def formatter(lab, lo, hi):
        if callable(lab):
            return ticker.FuncFormatter(lab)
        if lab == "g-or-sci":
            if 1e-3 <= lo and hi < 1e4:
                return ticker.FuncFormatter(lambda x, _: f"{x:g}")
            return ticker.LogFormatterSciNotation(labelOnlyBase=False)
        return ticker.FuncFormatter(lambda x, _pos: tick_label(x, lab))

    axes = [(t, i) for target in targets
            for t, i in (((target, 0),) if isinstance(target, Axis) else ((target.xaxis, 0), (target.yaxis, 1)))]
    for axis, i in axes:
        if axis.get_scale() != "log":
            continue
        lo, hi = sorted(axis.get_view_interval())
        if span == "powers":
            if not lo > 0:
                continue
            decades = math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1
        else:
            decades = math.log10(hi / lo) if lo > 0 else math.inf
        limit = short[i] if isinstance(short, tuple) else short
        is_short = limit is not None and decades < limit
        if ticks is not None:
            axis.set_major_locator(ticker.FixedLocator(sorted(ticks)))
        elif is_short:
            axis.set_major_locator(ticker.LogLocator(base=10, subs=short_subs, numticks=short_numticks))
        elif (long_subs is not None or numticks is not None) and (long is None or decades > long):
            axis.set_major_locator(ticker.LogLocator(base=10, subs=long_subs or (1.0,), numticks=numticks))
        lab = short_labels if is_short and short_labels is not None else labels
        if lab is not None:
            axis.set_major_formatter(formatter(lab, lo, hi))
        axis.set_minor_formatter(ticker.NullFormatter())


def provenance(params: dict | None = None) -> dict:
    """Versions, commit, backend and parameters that produced a result.

    ``git_commit`` is the commit of the code (read from git in a checkout, or recorded in the package when its
    wheel was built: see :mod:`attnlab._build_info`); ``git_dirty`` whether tracked files differed from it.
    """
    import matplotlib  # noqa: PLC0415
    import numpy  # noqa: PLC0415
    import scipy  # noqa: PLC0415

    from ._build_info import build_info  # noqa: PLC0415
    from .core.backend import default_backend  # noqa: PLC0415

    info = build_info()
    return {
        "attnlab": info["version"],
        "git_commit": info["git_commit"],
        "git_dirty": info["git_dirty"],
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "matplotlib": matplotlib.__version__,
        "backend": default_backend(),
        "machine": platform.machine(),
        "parameters": _jsonable(params or {}),
    }


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "tolist"):  # NumPy/CuPy arrays and scalars
        return x.tolist() if not hasattr(x, "get") else x.get().tolist()
    return x


@dataclass(frozen=True)
class FigureFiles:
    """The files written by :func:`savefig`.

    In the book (which renders ``text/markdown`` first) it shows download links, the figure itself being
    placed by ``{glue:figure}`` with its caption; in Jupyter or Colab (HTML) it shows the figure and the links.
    Under IPython, :func:`savefig` shows it where it is called, so that every saved figure has its links even
    when the call is not the last line of its cell; displaying the same object again shows nothing (no second
    copy of the links when it is the cell's value). The book's extension (``book/_ext/attnlab_cite.py``) moves
    the links under the figure that follows them and adds the figure's ``cite`` item.
    """

    name: str
    paths: dict
    _shown: bool = field(default=False, init=False, repr=False, compare=False)

    def _ipython_display_(self):
        if self._shown:
            return
        object.__setattr__(self, "_shown", True)
        from IPython.display import publish_display_data  # noqa: PLC0415

        data = {"text/plain": f"Download figure {self.name}: {', '.join(self.paths)}", "text/html": self._repr_html_()}
        md = self._repr_markdown_()  # None in the Colab edition, which has no MyST
        if md is not None:
            data["text/markdown"] = md
        publish_display_data(data)

    def _rel(self, kind):
        return os.path.relpath(self.paths[kind], os.getcwd()).replace(os.sep, "/")

    def _repr_html_(self):
        if os.environ.get("ATTNLAB_EDITION"):  # the Colab edition shows the figure where the book does
            names = ", ".join(f"<code>{html.escape(self._rel(k))}</code>" for k in self.paths)
            return (f"<p>This run wrote figure <code>{html.escape(self.name)}</code> to {names} "
                    "(see the Files pane).</p>")
        # plain Jupyter: the figure itself (glue:figure shows nothing there) and links
        links = " · ".join(f'<a href="{html.escape(self._rel(k))}" download>{k}</a>' for k in self.paths)
        png = base64.b64encode(Path(self.paths["png"]).read_bytes()).decode()
        return (f'<img src="data:image/png;base64,{png}" style="max-width:100%" alt="{html.escape(self.name)}">'
                f"<p>Download figure <code>{html.escape(self.name)}</code>: {links}</p>")

    def _repr_markdown_(self):  # the book: MyST, so that Sphinx copies the files
        if os.environ.get("ATTNLAB_EDITION"):
            return None
        links = " · ".join(f"{{download}}`{k} <{self._rel(k)}>`" for k in self.paths)
        return f"Download figure `{self.name}`: {links}"


def savefig(fig, name: str, *, data: dict | None = None, params: dict | None = None, outdir=None) -> FigureFiles:
    """Write ``fig`` as ``name.pdf`` (fonts embedded), ``name.png``, ``name.csv`` and ``name.json``.

    Parameters
    ----------
    fig : matplotlib Figure
    name : str
        File stem, letters, digits, ``-`` and ``_`` only.
    data : dict of equal-length columns, optional
        The plotted data, written as CSV (columns of unequal length are padded
        with empty cells).
    params : dict, optional
        Parameters (seed, scale, sizes) recorded in the provenance JSON.
    outdir : path, optional
        Target folder; default ``$ATTNLAB_FIGURE_DIR`` or ``./figures``.

    Returns
    -------
    FigureFiles
        Displays as download links; under IPython they are shown at once, where ``savefig`` is called.
    """
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError(f"name must be letters, digits, '-' and '_', got {name!r}")
    out = Path(outdir or os.environ.get("ATTNLAB_FIGURE_DIR", "figures"))
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: out / f"{name}.{k}" for k in ("pdf", "png", "csv", "json")}
    with mpl.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42}):
        _readable(fig)  # also for a figure not made by figure()
        fig.savefig(paths["pdf"], metadata={"CreationDate": None, "Producer": "attnlab"})
        fig.savefig(paths["png"])
    cols = {k: list(_jsonable(v)) for k, v in (data or {}).items()}
    n = max((len(v) for v in cols.values()), default=0)
    with open(paths["csv"], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols.keys())
        for i in range(n):
            w.writerow([v[i] if i < len(v) else "" for v in cols.values()])
    with open(paths["json"], "w") as f:
        json.dump({"figure": name, **provenance(params)}, f, indent=2)
    files = FigureFiles(name, {k: str(p) for k, p in paths.items()})
    if _in_ipython():
        files._ipython_display_()
    return files


def _in_ipython() -> bool:
    ipython = sys.modules.get("IPython")  # never imported here: only a running IPython has it loaded
    return ipython is not None and ipython.get_ipython() is not None
