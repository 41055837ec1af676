"""Every figure of the built book can be cited: a ``cite`` item under it, beside its downloads, whose BibTeX entry
parses, names a commit and the figure's anchor on its page, and equals the entry in the figure's provenance JSON;
the "How to cite" page shows the book, a figure and a verdict.

Reads ``_build/html`` (or the folder in ``$ATTNLAB_BUILT_HTML``, e.g. a small test book); without it, or when it is
older than the citation code, the tests are skipped, visibly, unless ``ATTNLAB_REQUIRE_BROWSER=1`` (CI) makes that a
failure. The build script runs them after the build. The entries are made by ``book/_ext/attnlab_cite.py``.
"""
import json
import os
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from bs4 import BeautifulSoup
from pybtex.database import parse_string

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("ATTNLAB_BUILT_HTML", ROOT / "_build" / "html"))
REQUIRE = os.environ.get("ATTNLAB_REQUIRE_BROWSER") == "1"


def _skip_reason():
    page = HTML / "book" / "cite.html"
    if not page.exists():
        return f"the book is not built ({HTML})"
    sources = [ROOT / "CITATION.cff", ROOT / "book" / "_ext" / "attnlab_cite.py",
               ROOT / "lib" / "attnlab" / "citation.py"]
    if "ATTNLAB_BUILT_HTML" not in os.environ and page.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        return "the built book is older than the citation code: rebuild to check its cite items"
    return None


reason = _skip_reason()
if reason and REQUIRE:
    raise RuntimeError(reason)
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")

PAGES = sorted(p for p in HTML.rglob("*.html") if not {"_static", "_sources", "_downloads"} & set(p.parts)
               and p.name not in ("genindex.html", "search.html")) if reason is None else []
COMMIT = re.compile(r"\bcommit ([0-9a-f]{40})\b")


def _soup(page):
    return BeautifulSoup(page.read_text(), "html.parser")


def _main(soup):
    return soup.select_one("main") or soup


def _entry(details):
    bibtex = details.select_one("pre.attnlab-cite-bibtex").get_text()
    entries = parse_string(bibtex, "bibtex").entries
    assert len(entries) == 1, bibtex
    (key, entry), = entries.items()
    return bibtex, key, entry, details.select_one("p.attnlab-cite-text").get_text()


def _figures():
    out = []
    for page in PAGES:
        soup = _soup(page)
        out += [(page, soup, fig) for fig in _main(soup).find_all("figure")]
    return out


FIGURES = _figures() if reason is None else []


def test_the_book_has_figures():
    assert len(FIGURES) >= (40 if HTML == ROOT / "_build" / "html" else 1)


@pytest.mark.parametrize("item", FIGURES, ids=lambda it: f"{it[0].relative_to(HTML)}#{it[2].get('id')}")
def test_every_figure_has_a_cite_item_beside_its_downloads(item):
    page, soup, fig = item
    anchor = fig.get("id")
    assert anchor, "a figure without an anchor cannot be cited"
    box = fig.find_next_sibling()
    assert box is not None and "attnlab-figure-files" in box.get("class", []), "no downloads under the figure"
    assert {a["href"].rsplit(".", 1)[-1] for a in box.select("a.download")} == {"pdf", "png", "csv", "json"}
    details = box.select_one("details.attnlab-cite-figure")
    assert details is not None and details.get("id") == f"cite-{anchor}"
    assert details.summary.get_text(strip=True) == "cite"

    bibtex, key, entry, text = _entry(details)
    url = entry.fields["url"]
    assert url.endswith(f"#{anchor}") and url in text
    assert urlparse(url).path.endswith("/" + page.relative_to(HTML).as_posix())
    assert soup.find(id=urlparse(url).fragment) is fig  # the anchor exists on the page, on this figure
    commit = COMMIT.search(entry.fields["note"])
    assert commit and commit.group(1) in text
    assert re.search(r"^Figure \d+(\.\d+)* \(", entry.fields["title"]), entry.fields["title"]
    caption = fig.find("figcaption").get_text(" ", strip=True)
    number = re.match(r"Figure (\S+) ", entry.fields["title"]).group(1)
    assert caption.startswith(f"Fig. {number} "), (caption[:40], number)

    # the same entry is in the provenance JSON that the page offers for download
    href = next(a["href"] for a in box.select("a.download") if a["href"].endswith(".json"))
    prov = json.loads((page.parent / href).resolve().read_text())
    assert prov["cite"]["bibtex"] == bibtex and prov["cite"]["key"] == key
    assert prov["git_commit"] == commit.group(1) and prov["figure"] == prov["cite"]["figure"]
    assert key == f"attnlab-{prov['figure']}"


def test_figure_keys_and_names_are_unique_across_the_book():
    keys = [_entry(fig.find_next_sibling().select_one("details.attnlab-cite-figure"))[1] for _, _, fig in FIGURES]
    assert len(keys) == len(set(keys))


def test_cite_page_says_how_to_cite_the_book_a_figure_and_a_verdict():
    soup = _soup(HTML / "book" / "cite.html")
    section = soup.find(id="how-to-cite")
    assert section is not None
    kinds = {}
    for d in section.select("details.attnlab-cite"):
        kind = next(c for c in d["class"] if c.startswith("attnlab-cite-")).removeprefix("attnlab-cite-")
        kinds[kind] = _entry(d)
    assert set(kinds) == {"book", "figure", "verdict"}
    _, key, book, text = kinds["book"]
    assert key == "attnlab" and COMMIT.search(book.fields["note"]) and book.fields["version"] in text
    _, _, fig, _ = kinds["figure"]
    assert "#" in fig.fields["url"] and COMMIT.search(fig.fields["note"])
    _, key, verdict, text = kinds["verdict"]
    assert key.startswith("attnlab-verdict-") and COMMIT.search(verdict.fields["note"])
    claim = key.removeprefix("attnlab-verdict-")
    assert claim in text and verdict.fields["version"] == book.fields["version"]
    prose = section.get_text(" ", strip=True)
    assert f"Claim {claim} has the verdict" in prose
