"""The findings box, the reader's tables and the parameters box (attnlab.audit.present)."""
import math
import re

import pandas as pd
import pytest

from attnlab.audit.present import Html, findings, fmt_number, parameters, table
from attnlab.audit.verdict import Verdict


def _v(cid, verdict, summary="It holds. Details.", scale="book"):
    return Verdict(cid, verdict, summary, scale=scale)


def test_findings_lists_each_claim_with_its_verdict_headline_and_link():
    box = findings([_v("PDA-jl", "verified", "It holds, margin 3. More words."), _v("PDA-ey", "refuted", "a < b & c")],
                   titles={"PDA-jl": "the JL lemma"})
    assert isinstance(box, Html) and box._repr_html_() == str(box)
    rows = re.findall(r'<tr data-claim="([^"]+)" data-verdict="([^"]+)"', box)
    assert rows == [("PDA-jl", "verified"), ("PDA-ey", "refuted")]
    assert 'href="#verdict-PDA-jl"' in box and "the JL lemma" in box
    assert "It holds, margin 3." in box and "More words" not in box  # the headline, not the summary
    assert "a &lt; b &amp; c" in box  # escaped
    assert "(1 verified, 1 refuted)" in box and "book scale" in box
    assert "It holds" in repr(box) and "<td" not in repr(box) and "a < b" in repr(box)


@pytest.mark.parametrize("bad, err", [([], ValueError), (["x"], TypeError),
                                      ([_v("A", "verified"), _v("A", "loose")], ValueError)])
def test_findings_rejects_bad_input(bad, err):
    with pytest.raises(err, match="verdicts"):
        findings(bad)


def test_table_headers_rounding_index_and_nan():
    df = pd.DataFrame({"n": [4096, 8192], "rel_V": [0.1234567, math.nan], "t": [1e-7, 2.5]})
    out = table(df, {"n": "L", "rel_V": "relative error"}, formats={"t": ".1f"})
    assert "<th" in out and ">L<" in out and ">relative error<" in out
    assert "rel_V" not in out and ">t<" not in out  # only the named columns
    assert "4,096" in out and "0.123" in out and "–" in out and "0.1234567" not in out
    assert "table-layout: fixed; width: 100%" in out
    idx = table(df.set_index("n"), {"rel_V": "error"}, index="L")
    assert re.search(r"<th[^>]*>L</th><th[^>]*>error</th>", idx)
    assert ">4,096<" in idx


@pytest.mark.parametrize("kw, err, match", [
    (dict(df=[1, 2]), TypeError, "df"),
    (dict(columns={"zz": "z"}), ValueError, "columns"),
    (dict(formats={"zz": ".2f"}), ValueError, "formats"),
])
def test_table_rejects_bad_input(kw, err, match):
    args = dict(df=pd.DataFrame({"a": [1.0]}))
    args.update(kw)
    with pytest.raises(err, match=match):
        table(**args)


def test_parameters_box_is_collapsed_and_labelled():
    out = parameters({"scale": "book", "ns": [128, 256], "eps": 0.5}, {"ns": "sizes L"})
    assert out.startswith('<details class="attnlab-parameters') and "<details open" not in out
    assert "(book scale)" in out and "sizes L" in out and "128, 256" in out
    assert ">eps<" not in out and "tolerance" in out  # an unlabelled key is named in words (evidence.label_of)
    assert "q_delta" not in parameters({"q_delta": [0.1]})
    with pytest.raises(TypeError, match="params"):
        parameters([1, 2])


@pytest.mark.parametrize("v, s", [(4096, "4,096"), (0.123456, "0.123"), (1.5e-7, "1.50 × 10⁻⁷"),
                                  (6.49e11, "6.49 × 10¹¹"), (1e-12, "1.00 × 10⁻¹²"), (math.nan, "–"),
                                  (None, "–"), (math.inf, "∞"), (2.0, "2"), (123.456, "123"), (True, "yes"),
                                  (12345.6, "12,346"), ("text", "text")])
def test_fmt_number(v, s):
    assert fmt_number(v) == s


def test_fmt_number_rejects_bad_digits():
    with pytest.raises(ValueError, match="digits"):
        fmt_number(1.0, 0)


def test_table_typesets_tex_in_headers_and_cells_for_each_target(monkeypatch):
    import pandas as pd

    df = pd.DataFrame({"x": ["$8 L^{2} + 16 L d$", "plain"], "y": [1.5e-7, 2]})
    book = table(df, {"x": "bytes $b(L)$", "y": "error"})
    assert r'<span class="math notranslate nohighlight">\(b(L)\)</span>' in book
    assert r'<span class="math notranslate nohighlight">\(8 L^{2} + 16 L d\)</span>' in book
    assert "$" not in book and book._repr_html_() == str(book) and book._repr_markdown_() is None
    monkeypatch.setenv("ATTNLAB_EDITION", "colab")
    colab = table(df, {"x": "bytes $b(L)$", "y": "error"})
    assert colab._repr_html_() is None
    assert colab._repr_markdown_().splitlines()[:3] == ["| bytes $b(L)$ | error |", "|---|---|",
                                                        "| $8 L^{2} + 16 L d$ | 1.50 × 10⁻⁷ |"]
    assert table(df[["y"]], {"y": "error"})._repr_markdown_() is None  # no TeX: HTML everywhere


def test_measured_quietly_is_the_start_load_against_half_the_cores():
    from attnlab.audit.present import measured_quietly

    assert measured_quietly({"loadavg_start": [1.0, 2.0, 3.0], "cores": 2}) is True
    assert measured_quietly({"loadavg_start": [1.01, 0.0, 0.0], "cores": 2}) is False
    assert measured_quietly({"loadavg_start": [3.9, 0.0, 0.0], "cores": 8}) is True
    assert measured_quietly({"cores": 2}) is None
