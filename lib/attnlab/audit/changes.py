"""The book's page of changes: every change of a registered verdict, with its date and why.

The record is ``book/verdict-changes.toml``, one ``[[change]]`` table per change of one claim's verdict::

    [[change]]
    date = 2026-11-30
    claim = "PDA-time"
    old = "refuted"
    new = "unverifiable-here"
    why = "..."

Textbooks keep errata on one page; so does this book. The chapters and the verdicts page show the rule in force
and its evidence; how the book's own verdicts changed over time is read here. :func:`load_changes` reads and
validates the record (the tests also check that each claim's latest entry is the verdict the book reports), and
:func:`changes_html` renders it, newest first, each claim linked to its row on the verdicts page.
"""
from __future__ import annotations

import datetime as _dt
import html
import posixpath
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .claims import get_claim
from .evidence import script_html
from .verdict import VERDICTS, badge_html

__all__ = ["Change", "RECORD", "load_changes", "latest_verdicts", "changes_html"]

#: Where the record lives (the repository's ``book/`` folder).
RECORD = Path(__file__).resolve().parents[3] / "book" / "verdict-changes.toml"


@dataclass(frozen=True)
class Change:
    """One change of one claim's registered verdict: when, from what, to what, and why (one or two sentences)."""

    date: _dt.date
    claim: str
    old: str
    new: str
    why: str


def load_changes(path: str | Path | None = None) -> list[Change]:
    """The changes in the record at ``path`` (default :data:`RECORD`), in the order written (oldest first).

    Raises
    ------
    ValueError
        If an entry lacks a field, names an unknown claim or verdict, does not change the verdict, is dated before
        the entry above it, or does not start from the verdict the claim's previous entry ended on.

    Examples
    --------
    >>> from attnlab.audit.changes import load_changes
    >>> all(c.old != c.new for c in load_changes())
    True
    """
    path = RECORD if path is None else Path(path)
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("change", [])
    out: list[Change] = []
    last: dict[str, str] = {}
    for k, e in enumerate(entries, 1):
        missing = {"date", "claim", "old", "new", "why"} - set(e)
        if missing:
            raise ValueError(f"change {k} in {path.name} lacks {sorted(missing)}")
        if not isinstance(e["date"], _dt.date):
            raise ValueError(f"change {k}: date must be a TOML date (YYYY-MM-DD), got {e['date']!r}")
        try:
            claim = get_claim(e["claim"]).id
        except KeyError:
            raise ValueError(f"change {k}: unknown claim {e['claim']!r}") from None
        for f in ("old", "new"):
            if e[f] not in VERDICTS or e[f] == "pending":
                raise ValueError(f"change {k} ({claim}): {f} must be a verdict, got {e[f]!r}")
        if e["old"] == e["new"]:
            raise ValueError(f"change {k} ({claim}): old and new verdicts are both {e['old']!r}")
        if not str(e["why"]).strip():
            raise ValueError(f"change {k} ({claim}): why is empty")
        if out and e["date"] < out[-1].date:
            raise ValueError(f"change {k} ({claim}) is dated {e['date']}, before the entry above it")
        if claim in last and last[claim] != e["old"]:
            raise ValueError(f"change {k} ({claim}) starts from {e['old']!r}, but the claim's previous entry "
                             f"ended on {last[claim]!r}")
        last[claim] = e["new"]
        out.append(Change(e["date"], claim, e["old"], e["new"], " ".join(str(e["why"]).split())))
    return out


def latest_verdicts(changes: list[Change] | None = None) -> dict[str, str]:
    """Each claim's verdict after its last recorded change."""
    out: dict[str, str] = {}
    for c in load_changes() if changes is None else changes:
        out[c.claim] = c.new
    return out


def changes_html(changes: list[Change] | None = None, page: str = "book/changes") -> str:
    """The record as one table, newest first: date, claim (linked to the verdicts page), from, to, why."""
    changes = load_changes() if changes is None else changes
    href = posixpath.relpath("book/verdicts.html", posixpath.dirname(page) or ".")

    def word(v):
        return badge_html(v)

    rows = "".join(
        f'<tr><td style="white-space: nowrap">{c.date:%-d %b %Y}</td>'
        f'<td><a href="{href}#claim-{html.escape(c.claim, quote=True)}">{html.escape(c.claim)}</a></td>'
        f"<td>{word(c.old)}</td><td>{word(c.new)}</td><td>{script_html(c.why)}</td></tr>"
        for c in reversed(changes))
    return ('<table class="attnlab-table tex2jax_ignore mathjax_ignore" style="table-layout: fixed; width: 100%; '
            'overflow-wrap: break-word; font-size: 0.9em"><colgroup><col style="width: 14%"><col style="width: 15%">'
            '<col style="width: 15%"><col style="width: 15%"><col></colgroup><thead><tr><th>date</th><th>claim</th>'
            f"<th>was</th><th>now</th><th>why</th></tr></thead><tbody>{rows}</tbody></table>")
