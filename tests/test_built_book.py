"""The built book reports, at the book scale, the verdicts the tests expect (``EXPECTED`` in tests/audit/test_claims.py).

The unit tests check every verdict at the smoke scale only; the book computes them again at the book scale on its
verdicts page, and this test reads them back from the built HTML. It runs after a build (the build script calls
it); without ``_build/html`` it is skipped, visibly, unless ``ATTNLAB_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from test_claims import EXPECTED

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "_build" / "html" / "book" / "verdicts.html"
REQUIRE = os.environ.get("ATTNLAB_REQUIRE_BROWSER") == "1"


def _skip_reason():
    if not PAGE.exists():
        return "the book is not built (_build/html)"
    sources = [*ROOT.glob("lib/attnlab/**/*.py"), ROOT / "tests" / "audit" / "test_claims.py", ROOT / "book" / "verdicts.md"]
    if PAGE.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        return "the built book is older than the sources: rebuild to compare its verdicts"
    return None


reason = _skip_reason()
if reason and REQUIRE:
    raise RuntimeError(reason)
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")


def test_book_scale_verdicts_match_expected():
    rows = BeautifulSoup(PAGE.read_text(), "html.parser").select("table tbody tr")
    built = {tr.find_all("td")[0].get_text(strip=True): tr.find_all("td")[2].get_text(strip=True) for tr in rows}
    assert len(built) >= 40
    wrong = {c: (built.get(c), v) for c, v in EXPECTED.items() if built.get(c) != v}
    assert not wrong, f"book-scale verdict != EXPECTED (built, expected): {wrong}"
    assert all(v == "pending" for c, v in built.items() if c not in EXPECTED)
