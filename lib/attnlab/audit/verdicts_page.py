"""The verdicts page of the book (``book/verdicts.md``), rendered from the rows of :func:`~attnlab.audit.claims.evaluate_all`.

Two HTML blocks, both sized to the text column (fixed table layout, long words wrapped), with every text taken from
the registry and the computed verdicts and HTML-escaped (a summary is shown as the text it is, never as Markdown or
TeX):

- :func:`overview_html`: claims by seed × verdict, with the count of each verdict (one screen);
- :func:`claims_html`: one table per seed, one row per claim: its ID, its verdict, one line (the verdict's
  ``headline``) that opens on a click to the claim as the seed states it, the full summary and the measured numbers,
  and a link to the claim's verdict box in the chapter that checks it (the box's id is ``verdict-<claim>``).
"""
from __future__ import annotations

import html
import posixpath
import re
from collections import Counter

from .claims import SEEDS, seed_name
from .evidence import script_html
from .verdict import VERDICT_STYLE, VERDICTS, Verdict, badge_html, numbers_html

__all__ = ["VERDICT_ORDER", "verdict_counts", "chapter_href", "overview_html", "claims_html", "findings_html"]

#: The order verdicts are listed in, from "holds" to "not checked".
VERDICT_ORDER = ("verified", "loose", "corrected", "refuted", "unverifiable-here", "pending")

#: A colour per verdict (:data:`attnlab.audit.verdict.VERDICT_STYLE`), for a bar beside the word.
_COLOUR = {k: v[0] for k, v in VERDICT_STYLE.items()}

#: Overview column widths (% of the text column) per verdict; the document names take the rest (22%).
_WIDTH = {"verified": 13, "loose": 10, "corrected": 14.5, "refuted": 12.5, "unverifiable-here": 16, "pending": 12}

_FIT = "table-layout: fixed; width: 100%; overflow-wrap: break-word"  # never wider than the text column
_NO_TEX = "tex2jax_ignore mathjax_ignore"


def _check_rows(rows) -> list[dict]:
    if not isinstance(rows, (list, tuple)):
        raise TypeError(f"rows must be the list that evaluate_all returns, got {type(rows).__name__}")
    for r in rows:
        if not isinstance(r, dict) or not {"id", "seed", "chapter", "verdict"} <= set(r):
            raise ValueError("rows must be the dicts that evaluate_all returns (id, seed, chapter, verdict, ...)")
    return list(rows)


def verdict_counts(rows) -> Counter:
    """How many claims have each verdict."""
    return Counter(r["verdict"]["verdict"] for r in _check_rows(rows))


def chapter_href(chapter: str, claim_id: str, page: str = "book/verdicts") -> str:
    """The relative link from ``page`` to the verdict box of ``claim_id`` in ``chapter`` (both docnames).

    Examples
    --------
    >>> from attnlab.audit.verdicts_page import chapter_href
    >>> chapter_href("notebooks/01-jl", "PDA-jl")
    '../notebooks/01-jl.html#verdict-PDA-jl'
    """
    target = posixpath.relpath(f"{chapter}.html", posixpath.dirname(page) or ".")
    return f"{target}#verdict-{claim_id}"


def _chapter_label(chapter: str) -> str:
    m = re.match(r"(\d+)-", posixpath.basename(chapter))
    return f"ch. {int(m.group(1))}" if m else posixpath.basename(chapter)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _badge(verdict: str) -> str:
    return badge_html(verdict)


def overview_html(rows) -> str:
    """Claims by seed × verdict: one row per seed (named by what it is, with its number of claims), one column per
    verdict, the totals in the last row, and what each verdict means."""
    rows = _check_rows(rows)
    seeds = [s for s in SEEDS if any(r["seed"] == s for r in rows)]
    seeds += sorted({r["seed"] for r in rows} - set(seeds))
    cols = [v for v in VERDICT_ORDER if v in VERDICTS] + [v for v in VERDICTS if v not in VERDICT_ORDER]

    def cells(counts):
        return "".join(f'<td data-verdict="{html.escape(v, quote=True)}" style="text-align: center'
                       f'{"; color: #9e9e9e" if not counts[v] else ""}">{counts[v]}</td>' for v in cols)

    body = []
    for s in seeds:
        counts = Counter(r["verdict"]["verdict"] for r in rows if r["seed"] == s)
        name = _capital(seed_name(s)) if s in SEEDS else s
        body.append(f'<tr><th scope="row" style="text-align: left; font-weight: normal">{html.escape(name)} '
                    f'<span style="color: #757575">({sum(counts.values())})</span></th>{cells(counts)}</tr>')
    body.append(f'<tr><th scope="row" style="text-align: left">all documents ({len(rows)})</th>'
                f"{cells(verdict_counts(rows))}</tr>")
    head = "".join(f'<th style="text-align: center; font-size: 0.8em">{_badge(v)}</th>' for v in cols)
    legend = "; ".join(f"<strong>{html.escape(v)}</strong>: {html.escape(VERDICTS[v])}" for v in cols)
    # widths that hold each header word ("corrected", "unverifiable-" + "here") in a 650 px column
    widths = "".join(f'<col style="width: {_WIDTH.get(v, 11)}%">' for v in cols)
    return (f'<table class="attnlab-overview {_NO_TEX}" style="table-layout: fixed; width: 100%; font-size: 0.9em">'
            f"<colgroup><col>{widths}</colgroup>"
            f'<thead><tr><th style="text-align: left">document (claims)</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            f'<p class="{_NO_TEX}" style="font-size: 0.9em">{legend}.</p>')


def claims_html(rows, page: str = "book/verdicts") -> str:
    """One table per seed, one row per claim: ID, verdict, one line that opens to the details, chapter link.

    Each row carries ``data-claim`` and ``data-verdict`` attributes (the built-book tests read them) and the id
    ``claim-<ID>``.
    """
    rows = _check_rows(rows)
    seeds = [s for s in SEEDS if any(r["seed"] == s for r in rows)]
    seeds += sorted({r["seed"] for r in rows} - set(seeds))
    top = 'style="vertical-align: top"'
    out = []
    for s in seeds:
        mine = [r for r in rows if r["seed"] == s]
        name = _capital(seed_name(s)) if s in SEEDS else s
        what = SEEDS[s][1] if s in SEEDS else ""
        body = []
        for r in mine:
            v = Verdict(**r["verdict"])
            cid = html.escape(r["id"], quote=True)
            if r["chapter"]:
                link = (f'<a href="{html.escape(chapter_href(r["chapter"], r["id"], page), quote=True)}">'
                        f'{html.escape(_chapter_label(r["chapter"]))}</a>')
            else:
                link = "—"
            where = html.escape(f"{name}, {r.get('section', '')}")
            details = (f"<details><summary>{script_html(v.headline)}</summary>"
                       f'<p style="overflow-wrap: break-word"><em>The claim</em> ({where}): '
                       f"{script_html(r.get('statement', ''))}</p>"
                       f'<p style="overflow-wrap: break-word"><em>What the check found</em> ({html.escape(str(v.scale))} '
                       f'scale):</p><p class="attnlab-summary" style="overflow-wrap: break-word">{script_html(v.summary)}</p>'
                       + (numbers_html(v.numbers, v.thresholds) if (v.numbers or v.thresholds) else "")
                       + "</details>")
            body.append(f'<tr id="claim-{cid}" data-claim="{cid}" data-verdict="{html.escape(v.verdict, quote=True)}">'
                        f"<td {top}><strong>{html.escape(r['id'])}</strong></td><td {top}>{_badge(v.verdict)}</td>"
                        f"<td {top}>{details}</td><td {top}>{link}</td></tr>")
        out.append(
            f'<table class="attnlab-claims {_NO_TEX}" style="{_FIT}; font-size: 0.9em">'
            f'<caption style="caption-side: top; text-align: left"><strong>{html.escape(name)}'
            f"</strong>: {html.escape(what)} ({len(mine)} claims)</caption>"
            '<colgroup><col style="width: 7.6em"><col style="width: 8.4em"><col><col style="width: 4.6em"></colgroup>'
            '<thead><tr><th style="text-align: left">claim</th><th style="text-align: left">verdict</th>'
            '<th style="text-align: left">what the check found (click for the numbers)</th>'
            '<th style="text-align: left">page</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')
    return "".join(out)


#: What holds, what is wrong, what this book cannot decide: the columns of the landing page's findings table.
FINDING_GROUPS = (("holds", ("verified", "loose")), ("is wrong as printed", ("corrected", "refuted")),
                  ("not decided here", ("unverifiable-here", "pending")))


def findings_html(rows, page: str = "book/intro") -> str:
    """The landing page's findings: one row per seed (named by what it is), with the claims that hold, those that
    are wrong as printed and those this book cannot decide, each claim linked to its row on the verdicts page and
    coloured by its verdict. Claims still ``pending`` are listed (with that word) under "not decided here"."""
    rows = _check_rows(rows)
    seeds = [s for s in SEEDS if any(r["seed"] == s for r in rows)]
    seeds += sorted({r["seed"] for r in rows} - set(seeds))
    verdicts_href = posixpath.relpath("book/verdicts.html", posixpath.dirname(page) or ".")

    def claim_link(r):
        v = r["verdict"]["verdict"]
        cid = html.escape(r["id"], quote=True)
        mark = " (pending)" if v == "pending" else ""
        return (f'<a href="{verdicts_href}#claim-{cid}" title="{html.escape(v, quote=True)}" '
                f'class="attnlab-verdict-{v}" style="border-left: 3px {VERDICT_STYLE[v][1]} {_COLOUR[v]}; '
                f'padding-left: 0.25em; white-space: nowrap; '
                f'text-decoration: none">{html.escape(r["id"])}{mark}</a>')

    body = []
    for s in seeds:
        mine = [r for r in rows if r["seed"] == s]
        name = _capital(SEEDS[s][0]) if s in SEEDS else s
        cells = []
        for _, kinds in FINDING_GROUPS:
            hit = [r for r in mine if r["verdict"]["verdict"] in kinds]
            cells.append(f'<td style="vertical-align: top">{", ".join(claim_link(r) for r in hit) or "–"}</td>')
        body.append(f'<tr data-seed="{html.escape(s[:3], quote=True)}"><th scope="row" style="text-align: left; '
                    f'vertical-align: top; font-weight: normal">{html.escape(name)}</th>{"".join(cells)}</tr>')
    head = "".join(f'<th style="text-align: left">{html.escape(g)}</th>' for g, _ in FINDING_GROUPS)
    legend = ", ".join(f"{_badge(v)}" for v in VERDICT_ORDER if any(r["verdict"]["verdict"] == v for r in rows))
    return (f'<table class="attnlab-landing {_NO_TEX}" style="{_FIT}; font-size: 0.82em; line-height: 1.3">'
            '<colgroup><col style="width: 17%"><col style="width: 31%"><col style="width: 31%"><col></colgroup>'
            f'<thead><tr><th style="text-align: left">document</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            f'<p class="{_NO_TEX}" style="font-size: 0.85em">The bar beside each claim is its verdict: {legend}.</p>')
