"""The verdicts page and the chapters' verdict boxes: one-line headlines, plain-text summaries, readable numbers."""
import doctest
import json

import pytest

from attnlab.audit import claims, verdict, verdicts_page
from attnlab.audit.claims import CLAIMS, S000, S004, SEEDS, seed_name
from attnlab.audit.verdict import Verdict, headline_of, numbers_html
from attnlab.audit.verdicts_page import chapter_href, claims_html, overview_html, verdict_counts


@pytest.mark.parametrize("module", [verdict, verdicts_page, claims])
def test_docstring_examples(module):
    assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0


# ------------------------------------------------------------------------------------------------ headline_of
@pytest.mark.parametrize("summary, expected", [
    ("Short. Second sentence.", "Short."),
    ("As printed (l. 227) it fails. Then more.", "As printed (l. 227) it fails."),
    ("Ratios e.g. 0.5 and 1.5e-16 hold. Next.", "Ratios e.g. 0.5 and 1.5e-16 hold."),
    ("no full stop at all", "no full stop at all"),
    ("It fails at every L. Then more.", "It fails at every L."),
    ("See ll. 3-4 and Fig. 2 here. Next.", "See ll. 3-4 and Fig. 2 here."),
    ("  spaces\n and  newlines ", "spaces and newlines"),
])
def test_headline_is_the_first_sentence(summary, expected):
    assert headline_of(summary) == expected


def test_headline_cuts_long_sentences_at_clauses_outside_parentheses():
    s = "A" * 60 + " (x; y, z) holds; " + "b" * 200
    assert headline_of(s, limit=100) == "A" * 60 + " (x; y, z) holds …"
    s = "word " * 60
    out = headline_of(s, limit=50)
    assert len(out) <= 50 and out.endswith(" …")
    s = "With ε (α from 0.54 to 0.73; α > 1 in 0 of 8), the bound holds: the rest " + "x" * 200
    assert headline_of(s, limit=120) == "With ε (α from 0.54 to 0.73; α > 1 in 0 of 8), the bound holds …"


@pytest.mark.parametrize("kw, exc, word", [
    (dict(summary=3), TypeError, "summary"),
    (dict(summary="x", limit=5), ValueError, "limit"),
    (dict(summary="x", limit=True), ValueError, "limit"),
])
def test_headline_bad_input(kw, exc, word):
    with pytest.raises(exc, match=word):
        headline_of(**kw)


def test_verdict_headline_is_derived_kept_and_round_trips():
    v = Verdict("PDA-jl", "loose", "First sentence. Second one.")
    assert v.headline == "First sentence."
    w = Verdict("PDA-jl", "loose", "First sentence. Second one.", headline="Set by the check")
    assert w.headline == "Set by the check"
    assert Verdict(**json.loads(v.to_json())) == v
    old = {k: x for k, x in v.to_dict().items() if k != "headline"}  # a verdict cached before the field existed
    assert Verdict(**old) == v
    with pytest.raises(TypeError, match="headline"):
        Verdict("PDA-jl", "loose", "s", headline=3)
    with pytest.raises(TypeError, match="summary"):
        Verdict("PDA-jl", "loose", None)


# ------------------------------------------------------------------------------------------------ the verdict box
UNDERSCORES = "‖A − A_r‖_F equals √(Σ_(k>r) σ_k²) *not* $x$ <b>bold</b> & co"


def test_verdict_box_shows_the_summary_as_plain_text():
    v = Verdict("PDA-ey", "loose", UNDERSCORES, numbers=dict(x=0.1234567890123456), scale="book")
    box = v._repr_html_()
    assert 'id="verdict-PDA-ey"' in box and 'class="admonition note attnlab-verdict-loose"' in box
    # HTML-escaped, its ASCII scripts typeset (attnlab.audit.evidence.script_html), nothing read as Markdown
    assert ("‖A − A<sub>r</sub>‖<sub>F</sub> equals √(Σ<sub>k&gt;r</sub> σ<sub>k</sub>²) *not* $x$ "
            "&lt;b&gt;bold&lt;/b&gt; &amp; co") in box
    assert "<em>" not in box and "<b>" not in box
    assert "tex2jax_ignore" in box  # MathJax leaves the dollar signs alone


def test_numbers_are_readable():
    nums = dict(f=0.1234567890123456, big=6.49e11, i=12, flag=True, none=None, nan=float("nan"),
                lst=[0.333333333333, 2.0], nested={"a": {"b": 1.0000000001}, "c": [1 / 3]},
                records=[dict(family="planted r=1", slope=0.44354), dict(family="sphere", slope=1.0512345)])
    out = numbers_html(nums, dict(tol=0.35))
    for shown in ("0.1235", "6.49 × 10¹¹", "12", "yes", "–", "NaN", "0.3333, 2", "planted r=1", "0.4435", "1.051",
                  "tolerance", "0.35", "stated before the run"):
        assert shown in out, shown
    assert "0.1234567890" not in out and "{'" not in out and "'a'" not in out and "threshold: tol" not in out
    assert 'table-layout: fixed; width: 100%' in out


# ------------------------------------------------------------------------------------------------ the page
def _rows():
    rows = []
    for c in CLAIMS:
        v = Verdict(c.id, "pending" if c.check is None else "verified",
                    UNDERSCORES if c.id == "PDA-ey" else f"Summary of {c.id}. More.", numbers=dict(x=1.0),
                    scale="smoke")
        rows.append({"id": c.id, "seed": c.seed, "section": c.section, "statement": c.statement, "chapter": c.chapter,
                     "check": c.check, "verdict": v.to_dict()})
    rows[0]["verdict"]["verdict"] = "refuted"
    return rows


def test_seed_names():
    assert seed_name(S000) == "the PDA draft"
    assert seed_name(S004) == "the approximation-rank notes" and len(SEEDS) == 5
    assert {c.seed for c in CLAIMS} == set(SEEDS)
    with pytest.raises(ValueError, match="seed"):
        seed_name("005.txt")


def test_chapter_href():
    assert chapter_href("notebooks/01-jl", "PDA-jl") == "../notebooks/01-jl.html#verdict-PDA-jl"
    assert chapter_href("notebooks/01-jl", "PDA-jl", page="index") == "notebooks/01-jl.html#verdict-PDA-jl"


def test_overview_counts_every_claim_by_seed_and_verdict():
    rows = _rows()
    out = overview_html(rows)
    counts = verdict_counts(rows)
    assert counts["refuted"] == 1 and sum(counts.values()) == len(CLAIMS)
    assert f"all documents ({len(CLAIMS)})" in out
    for s in SEEDS:
        n = sum(r["seed"] == s for r in rows)
        assert f"{seed_name(s)[:1].upper()}{seed_name(s)[1:]} <span style=\"color: #757575\">({n})</span>" in out
    for v in verdicts_page.VERDICT_ORDER:
        assert f">{v}</span>" in out
    assert 'table-layout: fixed; width: 100%' in out


def test_claims_table_one_row_per_claim_with_link_and_plain_summary():
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(claims_html(_rows()), "html.parser")
    trs = soup.select("tr[data-claim]")
    by_seed = [c for s in SEEDS for c in CLAIMS if c.seed == s]  # grouped by seed, registry order within
    assert [tr["data-claim"] for tr in trs] == [c.id for c in by_seed] and len(trs) == len(CLAIMS)
    for tr, c in zip(trs, by_seed):
        tds = tr.find_all("td", recursive=False)
        assert len(tds) == 4 and tds[0].get_text(strip=True) == c.id
        assert tds[1].get_text(strip=True) == tr["data-verdict"]
        summary = tr.find(class_="attnlab-summary").get_text()
        assert tds[2].find("details").find("summary").get_text() == headline_of(summary)
        link = tds[3].find("a")
        if c.chapter:
            assert link["href"] == f"../{c.chapter}.html#verdict-{c.id}"
        else:
            assert link is None and tds[3].get_text(strip=True) == "—"
    ey = soup.select_one('tr[data-claim="PDA-ey"] .attnlab-summary')
    # the text as it is (nothing read as Markdown or TeX), its ASCII scripts as <sub>/<sup> and nothing else
    assert ey.get_text() == "‖A − Ar‖F equals √(Σk>r σk²) *not* $x$ <b>bold</b> & co"
    assert {e.name for e in ey.find_all()} == {"sub"}
    assert len(soup.select("table.attnlab-claims")) == 5
    assert all("table-layout: fixed; width: 100%" in t["style"] for t in soup.select("table"))


@pytest.mark.parametrize("bad, exc", [(None, TypeError), ([{"id": "x"}], ValueError)])
def test_page_bad_input(bad, exc):
    with pytest.raises(exc, match="rows"):
        overview_html(bad)
    with pytest.raises(exc, match="rows"):
        claims_html(bad)


def test_landing_findings_group_every_claim_by_seed():
    import re

    from attnlab.audit.verdicts_page import FINDING_GROUPS, findings_html

    rows = _rows()
    rows[1]["verdict"]["verdict"] = "unverifiable-here"
    rows[2]["verdict"]["verdict"] = "loose"
    out = findings_html(rows)
    links = re.findall(r'href="verdicts.html#claim-([^"]+)" title="([^"]+)"', out)
    assert sorted(c for c, _ in links) == sorted(c.id for c in CLAIMS)  # every claim once
    assert dict(links)[rows[0]["id"]] == "refuted"
    assert [g for g, _ in FINDING_GROUPS] == ["holds", "is wrong as printed", "not decided here"]
    seed_rows = re.findall(r'<tr data-seed="(\d{3})">(.*?)</tr>', out)
    assert len(seed_rows) == len(SEEDS)
    first = dict(seed_rows)[rows[0]["seed"][:3]]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", first)
    assert rows[0]["id"] in cells[1] and rows[1]["id"] in cells[2] and rows[2]["id"] in cells[0]
    assert any("(pending)" in r for _, r in seed_rows) == any(r["verdict"]["verdict"] == "pending" for r in rows)
    assert 'table-layout: fixed; width: 100%' in out
    with pytest.raises(ValueError, match="rows"):
        findings_html([{"id": "x"}])
