"""The record of verdict changes (book/verdict-changes.toml) is well formed and ends where the book's verdicts are."""
import datetime as dt

import pytest

from attnlab.audit.changes import Change, changes_html, latest_verdicts, load_changes
from test_claims import EXPECTED


def test_record_is_valid_and_ends_on_the_reported_verdicts():
    changes = load_changes()
    assert changes, "the record is empty"
    for claim, verdict in latest_verdicts(changes).items():
        assert claim in EXPECTED, f"{claim} has recorded changes but no registered check"
        assert EXPECTED[claim] == verdict, (
            f"{claim}: the record's last change ends on {verdict!r}, the book reports {EXPECTED[claim]!r}: "
            "add an entry to book/verdict-changes.toml")


def _write(tmp_path, body):
    p = tmp_path / "c.toml"
    p.write_text(body, encoding="utf-8")
    return p


ENTRY = '[[change]]\ndate = {date}\nclaim = "{claim}"\nold = "{old}"\nnew = "{new}"\nwhy = "{why}"\n'


@pytest.mark.parametrize("entries, match", [
    ([dict(date="2026-01-02", claim="PDA-nope", old="loose", new="verified", why="x")], "unknown claim"),
    ([dict(date="2026-01-02", claim="PDA-jl", old="loose", new="loose", why="x")], "both"),
    ([dict(date="2026-01-02", claim="PDA-jl", old="probably", new="loose", why="x")], "must be a verdict"),
    ([dict(date="2026-01-02", claim="PDA-jl", old="verified", new="loose", why=" ")], "why is empty"),
    ([dict(date="2026-01-02", claim="PDA-jl", old="verified", new="loose", why="x"),
      dict(date="2026-01-01", claim="PDA-row", old="verified", new="loose", why="x")], "before the entry"),
    ([dict(date="2026-01-02", claim="PDA-jl", old="verified", new="loose", why="x"),
      dict(date="2026-01-03", claim="PDA-jl", old="refuted", new="verified", why="x")], "previous entry"),
    ([dict(date='"yesterday"', claim="PDA-jl", old="verified", new="loose", why="x")], "TOML date"),
])
def test_bad_records_are_refused(tmp_path, entries, match):
    with pytest.raises(ValueError, match=match):
        load_changes(_write(tmp_path, "\n".join(ENTRY.format(**e) for e in entries)))


def test_page_lists_newest_first_and_links_the_verdicts_page():
    changes = [Change(dt.date(2026, 1, 1), "PDA-jl", "verified", "loose", "a <b>"),
               Change(dt.date(2026, 2, 1), "PDA-jl", "loose", "corrected", "second")]
    page = changes_html(changes)
    assert page.index("second") < page.index("a &lt;b&gt;")
    assert 'href="verdicts.html#claim-PDA-jl"' in page and "1 Feb 2026" in page
