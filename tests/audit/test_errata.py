"""Errata sheets (attnlab.audit.errata): every wrong statement of a document, and nothing else, on its sheet."""
import csv
import io

import pytest

from attnlab.audit.claims import CLAIMS, S000, S001, SEEDS
from attnlab.audit.errata import errata, errata_csv, errata_html, errata_markdown, write_errata


def _rows(verdicts):
    rows = []
    for c in CLAIMS:
        v = verdicts.get(c.id, "verified")
        rows.append(dict(id=c.id, seed=c.seed, section=c.section, statement=c.statement, chapter=c.chapter or
                         "notebooks/01-jl", verdict=dict(verdict=v, summary=f"found <{c.id}>", scale="smoke")))
    return rows


def test_sheets_hold_exactly_the_corrected_and_refuted_claims():
    rows = _rows({"PDA-alg": "corrected", "PDA-time": "refuted", "LR-rank": "loose", "LR-cutoff": "refuted"})
    sheets = errata(rows)
    assert set(sheets) == set(SEEDS)
    assert [e["claim"] for e in sheets[S000]] == ["PDA-alg", "PDA-time"]
    assert [e["claim"] for e in sheets[S001]] == ["LR-cutoff"]
    assert all(not v for s, v in sheets.items() if s not in (S000, S001))


def test_sheet_formats(tmp_path):
    sheets = errata(_rows({"PDA-alg": "corrected"}))
    md = errata_markdown(S000, sheets[S000])
    assert md.startswith("# Errata: ") and "## PDA-alg (" in md and "found <PDA-alg>" in md
    assert "No statement" in errata_markdown(S001, [])
    table = list(csv.reader(io.StringIO(errata_csv(sheets[S000]))))
    assert table[0] == ["claim", "where", "verdict", "printed", "found"] and table[1][0] == "PDA-alg"
    page = errata_html(sheets[S000])
    assert "found &lt;PDA-alg&gt;" in page and 'href="../notebooks/01-jl-scaling.html#verdict-PDA-alg"' in page
    paths = write_errata(_rows({}), tmp_path)
    assert len(paths) == len(SEEDS) and all(md.exists() and cv.exists() for md, cv in paths.values())


@pytest.mark.parametrize("bad, err", [("rows", TypeError), ([{"id": "x"}], ValueError)])
def test_bad_rows(bad, err):
    with pytest.raises(err, match="rows"):
        errata(bad)
