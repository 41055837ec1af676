"""What a chapter shows its reader: the findings box, tables that fit the text column, the parameters of a run.

Three displayable objects, each rendered as HTML sized to the text column (a table never wider than the column:
fixed layout where it has to be, long words wrapped), with every text HTML-escaped (a header or a cell is shown as
the text it is, never read as Markdown or TeX):

- :func:`findings`: the box a chapter opens with, one row per claim it checks: the claim, its computed verdict and
  the verdict's one-line headline, linked to the claim's verdict box further down (``#verdict-<ID>``). A chapter
  glues it at the end, where its verdicts are computed, and pastes it under its title
  (````{glue} findings```` — the book pastes a value glued anywhere on the page).
- :func:`table`: a :class:`pandas.DataFrame` shown with headers in words or symbols, numbers rounded, no index
  column unless it means something, NaN as "–".
- :func:`parameters`: the parameters of a run in a collapsed box (one line when closed).
"""
from __future__ import annotations

import html
import math
import numbers
from collections.abc import Mapping, Sequence

from .verdict import VERDICTS, Verdict

__all__ = ["Html", "findings", "table", "parameters", "fmt_number"]

#: The colour of each verdict (those of the verdicts page), for the bar beside the word.
COLOUR = {"verified": "#2e7d32", "loose": "#1565c0", "corrected": "#ef6c00", "refuted": "#c62828",
          "unverifiable-here": "#8d6e00", "pending": "#757575"}
_NO_TEX = "tex2jax_ignore mathjax_ignore"


class Html(str):
    """A string of HTML that IPython (and so the book and Colab) shows as HTML, and as the text of its cells
    where only plain text is shown."""

    def _repr_html_(self):
        return str(self)

    def __repr__(self):  # text/plain: what a terminal shows; never used by the book (it renders the HTML)
        import re  # noqa: PLC0415

        return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", str(self)))).strip()


def fmt_number(v, digits: int = 3) -> str:
    """``v`` for a reader: integers with thousands separators, other numbers to ``digits`` significant digits
    (scientific notation outside [1e-3, 1e5)), NaN and None as "–", infinities as ∞.

    Examples
    --------
    >>> from attnlab.audit.present import fmt_number
    >>> fmt_number(4096), fmt_number(0.123456), fmt_number(1.5e-7), fmt_number(float("nan"))
    ('4,096', '0.123', '1.50e-07', '–')
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (TypeError, ValueError):
            pass
    if isinstance(v, numbers.Integral):
        return f"{int(v):,}"
    if isinstance(v, numbers.Real):
        v = float(v)
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}"
        if v != 0 and not 1e-3 <= abs(v) < 1e5:
            return f"{v:.{digits - 1}e}"
        if abs(v) >= 10 ** (digits - 1):
            return f"{round(v):,}"
        return f"{v:.{digits}g}"
    return str(v)


def _badge(verdict: str) -> str:
    return (f'<span class="attnlab-badge" style="border-left: 4px solid {COLOUR.get(verdict, "#757575")}; '
            f'padding-left: 0.35em; white-space: nowrap">{html.escape(verdict)}</span>')


def findings(verdicts: Sequence[Verdict], *, titles: Mapping[str, str] | None = None,
             title: str = "What this chapter finds") -> Html:
    """The findings box a chapter opens with: one row per claim, its verdict and the verdict's headline.

    Parameters
    ----------
    verdicts : sequence of Verdict
        The chapter's computed verdicts, in the order the chapter discusses them.
    titles : mapping of claim ID to str, optional
        A few words naming each claim ("the JL lemma for PDA's projection"), shown before the headline.
    title : str
        The box's title.

    Returns
    -------
    Html
        A box in the book's admonition style (class ``attnlab-findings``), each claim linked to its verdict box.

    Raises
    ------
    TypeError
        If an element of ``verdicts`` is not a :class:`Verdict`.
    ValueError
        If ``verdicts`` is empty or names a claim twice.
    """
    verdicts = list(verdicts)
    if not verdicts:
        raise ValueError("verdicts must name at least one claim")
    for v in verdicts:
        if not isinstance(v, Verdict):
            raise TypeError(f"verdicts must hold Verdict objects, got {type(v).__name__}")
    ids = [v.claim for v in verdicts]
    if len(set(ids)) != len(ids):
        raise ValueError(f"verdicts name a claim twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    titles = dict(titles or {})
    counts = {k: sum(v.verdict == k for v in verdicts) for k in VERDICTS}
    tally = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    rows = []
    for v in verdicts:
        cid = html.escape(v.claim, quote=True)
        name = titles.get(v.claim)
        lead = f"<em>{html.escape(name)}.</em> " if name else ""
        rows.append(f'<tr data-claim="{cid}" data-verdict="{html.escape(v.verdict, quote=True)}">'
                    f'<td style="vertical-align: top"><a href="#verdict-{cid}"><strong>{html.escape(v.claim)}'
                    f'</strong></a></td><td style="vertical-align: top">{_badge(v.verdict)}</td>'
                    f'<td style="vertical-align: top">{lead}{html.escape(v.headline)}</td></tr>')
    return Html(
        f'<div class="admonition attnlab-findings {_NO_TEX}">'
        f'<p class="admonition-title">{html.escape(title)} ({html.escape(tally)})</p>'
        f'<table style="table-layout: fixed; width: 100%; overflow-wrap: anywhere; font-size: 0.92em">'
        f'<colgroup><col style="width: 8.2em"><col style="width: 8.6em"><col></colgroup><tbody>'
        f'{"".join(rows)}</tbody></table>'
        f'<p style="font-size: 0.85em; margin-top: 0.4em">Computed when this page was built '
        f"({html.escape(str(verdicts[0].scale))} scale); each claim links to its verdict and the numbers behind it.</p>"
        f"</div>")


def table(df, columns: Mapping[str, str] | None = None, *, formats: Mapping[str, object] | None = None,
          index: str | None = None, caption: str | None = None, digits: int = 3, wrap: bool = True) -> Html:
    """A :class:`pandas.DataFrame` as a table a reader can read, sized to the text column.

    Parameters
    ----------
    df : pandas.DataFrame
        The data. Its index is dropped unless ``index`` names it (a MultiIndex is shown as columns).
    columns : mapping of column name to header, optional
        The columns to show, in this order, with their headers in words or symbols; a header may hold TeX
        between dollars (``"error $\\norm{\\hat A - A}_F$"``), typeset like the prose. Default: all columns under
        their own names.
    formats : mapping of column name to a format spec or a callable, optional
        ``".2f"``-style specs or ``f(value) -> str``; other columns use :func:`fmt_number` with ``digits``.
    index : str, optional
        A header for the index, to show it as the first column.
    caption : str, optional
        A line above the table.
    digits : int
        Significant digits of numbers without a format.
    wrap : bool
        Fixed layout with wrapped cells (always fits the column); ``False`` lets the browser size the columns.

    Returns
    -------
    Html

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame.
    ValueError
        If ``columns`` or ``formats`` name a column ``df`` does not have.
    """
    import pandas as pd  # noqa: PLC0415

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    data = df.reset_index() if index is not None else df
    if index is not None:
        first = [c for c in data.columns if c not in df.columns]
        idx_header = {c: (index if len(first) == 1 else f"{index}: {c}") for c in first}
    else:
        idx_header = {}
    columns = dict(columns) if columns is not None else {c: str(c) for c in df.columns}
    unknown = [c for c in columns if c not in data.columns]
    if unknown:
        raise ValueError(f"columns names columns the table does not have: {unknown}")
    formats = dict(formats or {})
    unknown = [c for c in formats if c not in data.columns]
    if unknown:
        raise ValueError(f"formats names columns the table does not have: {unknown}")
    shown = {**idx_header, **columns}

    def cell(col, v):
        f = formats.get(col)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "–"
        if callable(f):
            return str(f(v))
        if f is not None:
            return format(v, f)
        return fmt_number(v, digits)

    head = "".join(f'<th style="text-align: left; vertical-align: bottom">{html.escape(str(h))}</th>'
                   for h in shown.values())
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(c, row[c]))}</td>" for c in shown) + "</tr>"
        for _, row in data[list(shown)].iterrows()
    )
    layout = ("table-layout: fixed; width: 100%; overflow-wrap: anywhere" if wrap
              else "max-width: 100%; overflow-wrap: anywhere")
    cap = (f'<caption style="caption-side: top; text-align: left">{html.escape(caption)}</caption>'
           if caption else "")
    return Html(f'<table class="attnlab-table" style="{layout}; font-size: 0.9em">{cap}'
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def parameters(params: Mapping, labels: Mapping[str, str] | None = None, *,
               summary: str = "Parameters of this run") -> Html:
    """The parameters of a run in a collapsed box: one line closed, a two-column table open.

    Parameters
    ----------
    params : mapping
        Name -> value (a scale preset); lists are shown as comma-separated values.
    labels : mapping of name to words, optional
        What each parameter is ("sizes L"); parameters without a label are shown by name.
    summary : str
        The line shown while the box is closed; the scale is appended when ``params`` has one.

    Returns
    -------
    Html

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping, got {type(params).__name__}")
    labels = dict(labels or {})

    def value(v):
        if isinstance(v, (list, tuple)):
            return ", ".join(value(x) for x in v)
        if isinstance(v, Mapping):
            return "; ".join(f"{k}: {value(x)}" for k, x in v.items())
        return fmt_number(v, 4)

    rows = "".join(f"<tr><td>{html.escape(labels.get(k, str(k)))}</td><td>{html.escape(value(v))}</td></tr>"
                   for k, v in params.items() if k != "scale")
    scale = f" ({html.escape(str(params['scale']))} scale)" if "scale" in params else ""
    return Html(f'<details class="attnlab-parameters {_NO_TEX}"><summary>{html.escape(summary)}{scale}</summary>'
                f'<table style="table-layout: fixed; width: 100%; overflow-wrap: anywhere; font-size: 0.9em">'
                f'<colgroup><col style="width: 45%"><col></colgroup><tbody>{rows}</tbody></table></details>')
