"""A verdict's evidence as a reader reads it (attnlab.audit.evidence): named quantities, no Python syntax."""
import re

import pytest

from attnlab.audit.claims import CLAIMS, evaluate
from attnlab.audit.evidence import LABELS, label_html, label_of, numbers_table, script_html, tex_html

#: What no rendered numbers table may show outside its math: Python's dict and list syntax, reprs, e-notation.
DICT_SYNTAX = re.compile(r"\{'|'\}|\{\"|\[\{|\}\]|'\s*:|\"\s*:|\bNone\b|\bTrue\b|\bFalse\b|\d[eE][+-]?\d")


def _soup(out):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(out, "html.parser")
    for m in soup.select("span.math"):  # typeset by MathJax in the book: TeX is expected there
        m.decompose()
    return soup


def test_labels_are_words_or_symbols():
    assert label_of("c_pda") == "fitted constant $c_{\\rm PDA}$"
    assert label_of("beta_max") == "largest $\\beta$" and label_of("k90") == "$k_{90}$"
    assert label_of("gamma_lo") == "$\\gamma$ (lower end)"
    assert label_of("d=64 L=512") == "$d = 64$, $L = 512$"
    assert label_of("err_at_k_max") == "error at $k$ largest" or "_" not in label_of("err_at_k_max")
    for key in ("some_new_key", "B_T", "sigma2_over_sigma1", "upper_too_slow", "alg1_f64_ratio"):
        assert "_" not in re.sub(r"\$[^$]*\$", "", label_of(key)), key
    assert all("_" not in re.sub(r"\$[^$]*\$", "", v) for v in LABELS.values())


def test_labels_typeset_in_the_book_and_as_html_elsewhere():
    assert label_html("fitted constant $c_{\\rm PDA}$", book=True) == (
        'fitted constant <span class="math notranslate nohighlight">\\(c_{\\rm PDA}\\)</span>')
    assert tex_html("c_{\\rm PDA}") == "<i>c</i><sub>PDA</sub>"
    assert tex_html("\\lVert V\\rVert_F") == "‖<i>V</i>‖<sub><i>F</i></sub>"


def test_table_shows_quantities_intervals_and_bounds():
    nums = {"per_d": {"64": {"ratio": 5.094, "lo": 2.715, "hi": 10.81, "c_pda": 8.405e-08}},
            "slope": -0.47, "slope_lo": -0.51, "slope_hi": -0.43, "ratio": 0.8, "big": 3.2e8, "n": 1000000,
            "rows": [{"m": 128, "r": 32, "ratio": 2.25}, {"m": 256, "r": 64, "ratio": 5.0}],
            "dropped": "L**2 + L*d*m", "flag": False}
    out = numbers_table(nums, {"ratio_max": 1.0, "rule": "verified if ratio <= 1"}, book=False)
    soup = _soup(out)
    text = " ".join(soup.get_text(" ").split())
    assert "d = 64" in text and "5.094 [2.715, 10.81]" in text and "8.405 × 10⁻⁸" in text
    assert "−0.47 [−0.51, −0.43]" in text and "3.2 × 10⁸" in text and "1,000,000" in text
    assert "≤ 1" in text and "stated before the run" in text and "decision rule" in text
    ratio_row = [tr for tr in soup.select("table.attnlab-numbers > tbody > tr")
                 if tr.th and tr.th.get_text() == "ratio"]
    assert ratio_row and "1" in ratio_row[0].find_all("td")[-1].get_text()  # the bound beside the value
    assert soup.select("table.attnlab-numbers-sub thead th")  # records as a small table
    assert not DICT_SYNTAX.search(text) and "_" not in text


def test_scripts_typeset_in_summaries():
    assert script_html("L^1.98 and τ_W, C_r = 2^(r/2).") == (
        "L<sup>1.98</sup> and τ<sub>W</sub>, C<sub>r</sub> = 2<sup>r/2</sup>.")
    assert script_html("a <= b, attention_1d") == "a ≤ b, attention_1d"
    assert script_html("x < y & z") == "x &lt; y &amp; z"


@pytest.mark.slow  # every claim at smoke: minutes when the cache is cold (any change under lib/ makes it so)
@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS])
def test_every_verdicts_numbers_read_as_named_quantities(claim_id):
    """At smoke, for every registered claim: no label with an underscore, no dict or list syntax, no e-notation
    outside the math of its rendered numbers table (cached verdicts: seconds once the cache is warm)."""
    v = evaluate(claim_id, "smoke")
    soup = _soup(numbers_table(v.numbers, v.thresholds, book=True))
    labels = [th.get_text(" ") for th in soup.find_all("th")]
    bad = [t for t in labels if "_" in t or "{" in t or "}" in t]
    assert not bad, f"labels that read as Python keys: {bad[:5]}"
    text = soup.get_text(" ")
    m = DICT_SYNTAX.search(text)
    assert m is None, f"Python syntax in the numbers of {claim_id}: …{text[max(0, m.start() - 40):m.end() + 40]}…"
