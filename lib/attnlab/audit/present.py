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

And :func:`measured_quietly`, the one rule by which a page says whether a benchmark record was measured on a quiet
machine.
"""
from __future__ import annotations

import html
import math
import numbers
import re
from collections.abc import Mapping, Sequence

from .evidence import script_html
from .verdict import VERDICT_STYLE, VERDICTS, Verdict, badge_html, sci

__all__ = ["Html", "Table", "findings", "table", "parameters", "fmt_number", "measured_quietly"]

#: The colour of each verdict (:data:`attnlab.audit.verdict.VERDICT_STYLE`), for the bar beside the word.
COLOUR = {k: v[0] for k, v in VERDICT_STYLE.items()}
_NO_TEX = "tex2jax_ignore mathjax_ignore"


_MATH = re.compile(r"\$([^$]+)\$")


def _header_html(text: str, book: bool) -> str:
    """A header for the HTML table: text escaped (its ASCII scripts typeset, ``‖x‖_F`` as ‖x‖<sub>F</sub>:
    :func:`attnlab.audit.evidence.script_html`); ``$…$`` as inline math the book's MathJax typesets (an element of
    class ``math`` holding ``\\(…\\)``), or, outside the book, as the TeX between dollars."""
    if not book:
        return script_html(text)
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(script_html(text[pos:m.start()]))
        # the formula and the punctuation after it on one line: no ")" or "," starts a line
        punct = re.match(r"[.,;:)\]]*", text[m.end():]).group()
        out.append(f'<span class="attnlab-nowrap"><span class="math notranslate nohighlight">'
                   f'\\({html.escape(m.group(1))}\\)</span>{html.escape(punct)}</span>')
        pos = m.end() + len(punct)
    out.append(script_html(text[pos:]))
    return "".join(out)


class Html(str):
    """A string of HTML that IPython (and so the book and Colab) shows as HTML, and as the text of its cells
    where only plain text is shown."""

    def _repr_html_(self):
        return str(self)

    def __repr__(self):  # text/plain: what a terminal shows; never used by the book (it renders the HTML)
        return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", str(self)))).strip()


def fmt_number(v, digits: int = 3) -> str:
    """``v`` for a reader: integers with thousands separators, other numbers to ``digits`` significant digits
    (written m × 10ᵏ outside [10⁻³, 10⁵)), NaN and None as "–", infinities as ∞.

    Examples
    --------
    >>> from attnlab.audit.present import fmt_number
    >>> fmt_number(4096), fmt_number(0.123456), fmt_number(1.5e-7), fmt_number(float("nan"))
    ('4,096', '0.123', '1.50 × 10⁻⁷', '–')
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
        if v == int(v) and abs(v) < 1e6:
            return f"{int(v):,}"
        if v != 0 and not 1e-3 <= abs(v) < 1e5:
            m, e = f"{v:.{digits - 1}e}".split("e")
            return sci(m, int(e))
        if abs(v) >= 10 ** (digits - 1):
            return f"{round(v):,}"
        return f"{v:.{digits}g}"
    return str(v)


def _badge(verdict: str) -> str:
    return badge_html(verdict)


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
        lead = f"<em>{script_html(name)}.</em> " if name else ""
        rows.append(f'<tr data-claim="{cid}" data-verdict="{html.escape(v.verdict, quote=True)}">'
                    f'<td style="vertical-align: top"><a href="#verdict-{cid}"><strong>{html.escape(v.claim)}'
                    f'</strong></a></td><td style="vertical-align: top">{_badge(v.verdict)}</td>'
                    f'<td style="vertical-align: top">{lead}{script_html(v.headline)}</td></tr>')
    return Html(
        f'<div class="admonition attnlab-findings {_NO_TEX}">'
        f'<p class="admonition-title">{html.escape(title)} ({html.escape(tally)})</p>'
        f'<div class="attnlab-findings-body"><table style="table-layout: fixed; width: 100%; '
        f'overflow-wrap: break-word; font-size: 0.92em">'
        f'<colgroup><col class="attnlab-findings-id"><col class="attnlab-findings-verdict"><col></colgroup><tbody>'
        f'{"".join(rows)}</tbody></table></div>'
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
        between dollars (``"error $\\lVert \\hat A - A \\rVert_F$"``, standard TeX: the Colab edition has no book
        macros), typeset like the prose: in the book as inline math for its MathJax; elsewhere (the Colab edition)
        the table is shown as Markdown, whose renderer reads dollars. Default: all columns under their own names.
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
    Table
        An :class:`Html` string; outside the book, with TeX in a header, it displays as a Markdown table.

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

    from .edition import in_book  # noqa: PLC0415

    book = in_book()
    head = "".join(f'<th style="text-align: left; vertical-align: bottom">{_header_html(str(h), book)}</th>'
                   for h in shown.values())
    body = "".join(
        "<tr>" + "".join(f"<td>{_header_html(cell(c, row[c]), book)}</td>" for c in shown) + "</tr>"
        for _, row in data[list(shown)].iterrows()
    )
    layout = ("table-layout: fixed; width: 100%; overflow-wrap: break-word" if wrap
              else "max-width: 100%; overflow-wrap: break-word")
    cap = (f'<caption style="caption-side: top; text-align: left">{_header_html(caption, book)}</caption>'
           if caption else "")
    out = Table(f'<table class="attnlab-table" style="{layout}; font-size: 0.9em">{cap}'
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    has_math = any(_MATH.search(str(h)) for h in shown.values()) or any(
        _MATH.search(cell(c, row[c])) for _, row in data[list(shown)].iterrows() for c in shown)
    if not book and has_math:
        # Outside the book (the Colab edition, Jupyter) TeX in HTML is not typeset: show a Markdown table, whose
        # dollars the notebook's Markdown renderer typesets (headers and cells alike).
        def md(text):
            return str(text).replace("|", "\\|").replace("\n", " ")

        lines = ([f"*{md(caption)}*", ""] if caption else []) + [
            "| " + " | ".join(md(h) for h in shown.values()) + " |",
            "|" + "---|" * len(shown)]
        lines += ["| " + " | ".join(md(cell(c, row[c])) for c in shown) + " |"
                  for _, row in data[list(shown)].iterrows()]
        out.markdown = "\n".join(lines)
    return out


class Table(Html):
    """A table from :func:`table`: HTML, or (outside the book, when a header or a cell holds TeX) a Markdown table."""

    markdown: str | None = None

    def _repr_html_(self):
        return None if self.markdown else str(self)

    def _repr_markdown_(self):
        return self.markdown


def parameters(params: Mapping, labels: Mapping[str, str] | None = None, *,
               summary: str = "Parameters of this run") -> Html:
    """The parameters of a run in a collapsed box: one line closed, a two-column table open.

    Parameters
    ----------
    params : mapping
        Name -> value (a scale preset); lists are shown as comma-separated values.
    labels : mapping of name to words, optional
        What each parameter is ("sizes $L$": TeX between dollars is typeset); a parameter without a label is
        named from its key (:func:`attnlab.audit.evidence.label_of`: words and symbols, never snake_case).
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

    from .edition import in_book  # noqa: PLC0415
    from .evidence import label_html, label_of  # noqa: PLC0415

    book = in_book()
    # a parameter without a label is named from its key (words and symbols, never snake_case: evidence.label_of)
    rows = "".join(f"<tr><td>{label_html(labels[k], book) if k in labels else label_html(label_of(k), book)}</td>"
                   f"<td>{html.escape(value(v))}</td></tr>" for k, v in params.items() if k != "scale")
    scale = f" ({html.escape(str(params['scale']))} scale)" if "scale" in params else ""
    return Html(f'<details class="attnlab-parameters {_NO_TEX}"><summary>{html.escape(summary)}{scale}</summary>'
                f'<table style="table-layout: fixed; width: 100%; overflow-wrap: anywhere; font-size: 0.9em">'
                f'<colgroup><col style="width: 45%"><col></colgroup><tbody>{rows}</tbody></table></details>')


def measured_quietly(record: Mapping) -> bool | None:
    """Whether a benchmark record (``data/benchmarks/*.json``) was measured on a quiet machine: the 1-minute load
    average at its start, before the benchmark's own threads ran, at most half the cores (the load at the end counts
    those threads). None if the record has no start load."""
    if "loadavg_start" not in record:
        return None
    return record["loadavg_start"][0] <= record["cores"] / 2
