"""The built book reports, at the book scale, the verdicts the tests expect (``EXPECTED`` of test_claims.py).

The unit tests check every verdict at the smoke scale only; the book computes them again at the book scale on its
verdicts page, and this test reads them back from the built HTML. It runs after a build (the build script calls
it); without ``_build/html`` it is skipped, visibly, unless ``ATTNLAB_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""
import os
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest
from bs4 import BeautifulSoup
from test_claims import EXPECTED

from attnlab.audit.claims import CLAIMS

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("ATTNLAB_BOOK_HTML") or ROOT / "_build" / "html")  # another build's HTML, if set
PAGE = HTML / "book" / "verdicts.html"
REQUIRE = os.environ.get("ATTNLAB_REQUIRE_BROWSER") == "1"


def _skip_reason():
    if not PAGE.exists():
        return "the book is not built (_build/html)"
    sources = [*ROOT.glob("lib/attnlab/**/*.py"), ROOT / "tests" / "audit" / "test_claims.py",
               ROOT / "book" / "verdicts.md"]
    if PAGE.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        return "the built book is older than the sources: rebuild to compare its verdicts"
    return None


reason = _skip_reason()
if reason and REQUIRE:
    raise RuntimeError(reason)
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")


def _soup():
    return BeautifulSoup(PAGE.read_text(), "html.parser")


def test_book_scale_verdicts_match_expected():
    rows = _soup().select("tr[data-claim]")
    built = {tr["data-claim"]: tr["data-verdict"] for tr in rows}
    assert len(built) >= 40
    assert all(tr.find_all("td")[1].get_text(strip=True) == tr["data-verdict"] for tr in rows)
    wrong = {c: (built.get(c), v) for c, v in EXPECTED.items() if built.get(c) != v}
    assert not wrong, f"book-scale verdict != EXPECTED (built, expected): {wrong}"
    assert all(v == "pending" for c, v in built.items() if c not in EXPECTED)


def test_every_claim_has_a_row_and_a_link_to_its_verdict_box():
    """Each registered claim has one row; a checked claim links to its chapter, and the link's target page and
    anchor (the verdict box, id ``verdict-<ID>``) exist in the built book."""
    soup = _soup()
    rows = {tr["data-claim"]: tr for tr in soup.select("tr[data-claim]")}
    assert sorted(rows) == sorted(c.id for c in CLAIMS)
    assert len(soup.select("tr[data-claim]")) == len(CLAIMS)
    broken, targets = [], {}
    for c in CLAIMS:
        links = rows[c.id].find_all("td")[-1].find_all("a", href=True)
        if c.chapter is None:
            assert not links, c.id
            continue
        assert len(links) == 1, c.id
        path, frag = urldefrag(unquote(links[0]["href"]))
        target = (PAGE.parent / path).resolve()
        if not target.exists():
            broken.append(f"{c.id}: {links[0]['href']} (no page)")
            continue
        if target not in targets:
            targets[target] = {t["id"] for t in BeautifulSoup(target.read_text(), "html.parser").find_all(id=True)}
        if frag != f"verdict-{c.id}" or frag not in targets[target]:
            broken.append(f"{c.id}: {links[0]['href']} (no anchor)")
    assert not broken, f"links that do not resolve: {broken}"


def test_summaries_are_plain_text():
    """Summaries are the text the checks wrote, with their scripts typeset (``‖·‖_F`` → ‖·‖<sub>F</sub>,
    ``L^1.98`` → L<sup>1.98</sup>: attnlab.audit.evidence.script_html) and no other element inside (an underscore
    never becomes <em>); several summaries carry such subscripts."""
    summaries = _soup().select(".attnlab-summary")
    assert len(summaries) == len(CLAIMS)
    assert not [s.get_text()[:60] for s in summaries if s.find(lambda t: t.name not in ("sub", "sup")) is not None]
    assert sum(s.find("sub") is not None for s in summaries) >= 3
