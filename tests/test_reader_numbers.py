"""The book's extension that writes numbers for a reader (book/_ext/reader_numbers.py)."""
import sys
from pathlib import Path

from docutils import nodes
from docutils.utils import new_document
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import reader_numbers  # noqa: E402


def test_html_text_is_rewritten_but_not_code_math_or_attributes():
    src = ('<p data-x="1e-12">err 3.2e+08 at n = 1000000.0</p><pre>x = 1e-12</pre><code>2.0e+03</code>'
           r'<span class="math">\(10^{-3} = 1e-3\)</span> and 4.5e-05')
    out = reader_numbers._html(src)
    assert 'data-x="1e-12"' in out and "err 3.2 × 10⁸ at n = 1,000,000" in out
    assert "<pre>x = 1e-12</pre>" in out and "<code>2.0e+03</code>" in out and r"1e-3\)" in out
    assert out.endswith("and 4.5 × 10⁻⁵")


def test_doctree_text_outside_literals_is_rewritten():
    doc = new_document("test", get_default_settings(Parser))
    para = nodes.paragraph("", "", nodes.Text("gap 1.0e-06 "), nodes.literal("", "keep 1e-6"))
    doc += para
    doc += nodes.literal_block("", "print(1e-6)")
    doc += nodes.raw("", "<b>7.5e+02</b>", format="html")
    reader_numbers._rewrite(None, doc, "test")
    text = doc.astext()
    assert "gap 10⁻⁶" in text and "keep 1e-6" in text and "print(1e-6)" in text and "7.5 × 10²" in text
