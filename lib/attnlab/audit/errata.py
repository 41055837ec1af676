"""Errata sheets: for each of the five documents, every statement the book finds wrong as printed.

One sheet per document, in the order its claims are registered: the claim, where it is printed, what the document
says, the verdict (``corrected``: a corrected form holds; ``refuted``: it does not) and what the check found — its
summary, which names the smallest counterexample, the measured margin and the corrected form. The sheets are written
for the documents' authors, as Markdown and CSV files (:func:`write_errata`), and shown on the book's closing chapter
(:func:`errata_html`), each claim linked to its verdict box.
"""
from __future__ import annotations

import csv
import html
import io
from pathlib import Path

from .claims import SEEDS, seed_name
from .evidence import script_html
from .verdict import badge_html
from .verdicts_page import chapter_href

__all__ = ["WRONG", "errata", "errata_markdown", "errata_csv", "errata_html", "write_errata"]

#: The verdicts that put a claim on its document's errata sheet.
WRONG = ("corrected", "refuted")


def _rows(rows) -> list[dict]:
    if not isinstance(rows, (list, tuple)):
        raise TypeError(f"rows must be the list that evaluate_all returns, got {type(rows).__name__}")
    for r in rows:
        if not isinstance(r, dict) or not {"id", "seed", "section", "statement", "verdict"} <= set(r):
            raise ValueError("rows must be the dicts that evaluate_all returns (id, seed, section, statement, verdict)")
    return list(rows)


def errata(rows) -> dict[str, list[dict]]:
    """The claims of each document whose verdict is corrected or refuted, document by document (every document
    appears, with an empty list when nothing it says is wrong)."""
    out: dict[str, list[dict]] = {s: [] for s in SEEDS}
    for r in _rows(rows):
        v = r["verdict"]
        if v["verdict"] in WRONG:
            out.setdefault(r["seed"], []).append(dict(
                claim=r["id"], where=r["section"], printed=r["statement"], verdict=v["verdict"],
                found=v["summary"], chapter=r.get("chapter"), scale=v.get("scale")))
    return out


def errata_markdown(seed: str, entries: list[dict]) -> str:
    """One document's errata sheet as Markdown (a heading, then one section per wrong statement)."""
    title = SEEDS[seed][1] if seed in SEEDS else seed
    lines = [f"# Errata: {title}", "",
             f"Statements of {seed_name(seed) if seed in SEEDS else seed} that attnlab finds wrong as printed, "
             "with what its checks measured. *corrected*: a corrected form holds; *refuted*: it does not.", ""]
    if not entries:
        lines.append("No statement of this document is wrong as printed.")
    for e in entries:
        lines += [f"## {e['claim']} ({e['where']}): {e['verdict']}", "", f"**Printed.** {e['printed']}", "",
                  f"**Found** ({e['scale']} scale). {e['found']}", ""]
    return "\n".join(lines).rstrip() + "\n"


def errata_csv(entries: list[dict]) -> str:
    """One document's errata sheet as CSV: claim, where, verdict, printed, found."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["claim", "where", "verdict", "printed", "found"])
    for e in entries:
        w.writerow([e["claim"], e["where"], e["verdict"], e["printed"], e["found"]])
    return buf.getvalue()


def write_errata(rows, out_dir: str | Path) -> dict[str, tuple[Path, Path]]:
    """Write ``errata-NNN.md`` and ``errata-NNN.csv`` for each document into ``out_dir``; returns their paths by
    document."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for seed, entries in errata(rows).items():
        md, cv = out_dir / f"errata-{seed[:3]}.md", out_dir / f"errata-{seed[:3]}.csv"
        md.write_text(errata_markdown(seed, entries), encoding="utf-8")
        cv.write_text(errata_csv(entries), encoding="utf-8")
        paths[seed] = (md, cv)
    return paths


def errata_html(entries: list[dict], page: str = "book/conclusions") -> str:
    """One document's errata as a table that fits the text column: claim (linked to its verdict box), verdict,
    what is printed, what the book found."""
    if not entries:
        return '<p class="attnlab-summary">No statement of this document is wrong as printed.</p>'
    body = "".join(
        f'<tr data-erratum="{html.escape(e["claim"], quote=True)}" data-verdict="{html.escape(e["verdict"], quote=True)}">'
        f'<td style="vertical-align: top"><a href="{html.escape(chapter_href(e["chapter"], e["claim"], page), quote=True)}">'
        f'<strong>{html.escape(e["claim"])}</strong></a><br><span style="font-size: 0.85em">'
        f'{html.escape(e["where"])}</span></td><td style="vertical-align: top">{badge_html(e["verdict"])}</td>'
        f'<td style="vertical-align: top">{script_html(e["printed"])}</td>'
        f'<td style="vertical-align: top">{script_html(e["found"])}</td></tr>'
        for e in entries)
    return ('<table class="attnlab-table attnlab-errata tex2jax_ignore mathjax_ignore" style="table-layout: fixed; '
            'width: 100%; overflow-wrap: break-word; font-size: 0.85em"><colgroup><col style="width: 17%">'
            '<col style="width: 15%"><col style="width: 28%"><col></colgroup><thead><tr><th>claim</th><th>verdict</th>'
            f"<th>printed</th><th>found</th></tr></thead><tbody>{body}</tbody></table>")
