"""Reading the built book in headless Chromium (issue 25): figures, typeset evidence, typography, the verdicts page.

Each check is a function of ONE page load that computes everything in one JavaScript call (:data:`FIGURES`,
:data:`TYPOGRAPHY`, :data:`VERDICTS_PHONE`), so that a single pass over the pages can run them all; the fixture, the
pages and the skip logic are those of ``tests/test_browser.py``.
"""
import re

import pytest

from test_browser import HTML, MATHJAX_DONE, PAGES, browser, pytestmark  # noqa: F401 (fixture, skip mark)

#: The body text size (px) of the theme and the smallest text a figure may show, as a fraction of it.
BODY_PX = 16
MIN_TEXT_RATIO = 0.8
#: Okabe–Ito yellow: never a series on white.
YELLOW = "#f0e442"

# --------------------------------------------------------------------------------------------------- figures
#: Every figure image of the page: shown width against the column, alt text, and (for an SVG, read back with a
#: synchronous request: Chromium runs with --allow-file-access-from-files) the smallest text it shows and any
#: yellow stroke. Matplotlib writes text as glyph outlines under ``scale(s -s)`` with s = font size / 100 (points),
#: and the SVG's width in points: shown px = size × (4/3) × shown width / (width in pt × 4/3).
FIGURES = r"""
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const cs = getComputedStyle(col);  // the column's content box: what a figure can fill
const colWidth = col.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
const out = [];
for (const img of col.querySelectorAll('figure img, div.cell_output img')) {
  if (!img.clientWidth) continue;
  const src = img.getAttribute('src') || '';
  const rec = {src: src.slice(-60), shown: img.clientWidth, col: colWidth, alt: img.getAttribute('alt') || '',
               minText: null, yellow: false};
  if (/\.svg(\?|$)/.test(src)) {
    try {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', img.src, false);
      xhr.send();
      const svg = xhr.responseText;
      const w = svg.match(/<svg[^>]*\swidth="([\d.]+)(pt|px)?"/);
      const widthPx = w ? parseFloat(w[1]) * (w[2] === 'px' ? 1 : 4 / 3) : null;
      const sizes = [...svg.matchAll(/scale\(([\d.]+) -([\d.]+)\)/g)].map(m => parseFloat(m[1]) * 100);
      const texts = [...svg.matchAll(/font-size[:=]\s*"?([\d.]+)(px|pt)?/g)].map(m => parseFloat(m[1]) * (m[2] === 'px' ? 0.75 : 1));
      const all = sizes.concat(texts);
      if (widthPx && all.length) rec.minText = Math.min(...all) * (4 / 3) * img.clientWidth / widthPx;
      rec.yellow = /stroke:\s*#f0e442|stroke="#f0e442"/i.test(svg);
    } catch (e) { rec.error = String(e); }
  }
  out.push(rec);
}
return out;
"""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_figures_fill_the_column_and_read(browser, page):
    """At 1280 px: every figure at least 0.9 of the column wide, its alt text a description (not empty, not a file
    path), its smallest text at least 0.8 of the body size as shown, no yellow line on white."""
    browser.set_window_size(1280, 900)
    browser.get(page.as_uri())
    figs = browser.execute_script(FIGURES)
    narrow = [(f["src"], f["shown"], round(f["col"])) for f in figs if f["shown"] < 0.9 * f["col"]]
    assert not narrow, f"figures narrower than 0.9 of the column: {narrow[:3]}"
    bad_alt = [(f["src"], f["alt"][:40]) for f in figs
               if not f["alt"].strip() or re.fullmatch(r"\S*[/\\]\S*|\S+\.(svg|png|pdf|jpe?g)", f["alt"].strip())]
    assert not bad_alt, f"alt text missing or a file path: {bad_alt[:3]}"
    small = [(f["src"], round(f["minText"], 1)) for f in figs
             if f["minText"] is not None and f["minText"] < MIN_TEXT_RATIO * BODY_PX - 0.05]
    assert not small, f"figure text below {MIN_TEXT_RATIO * BODY_PX} px as shown: {small[:3]}"
    yellow = [f["src"] for f in figs if f["yellow"]]
    assert not yellow, f"yellow series on white: {yellow[:3]}"


# ------------------------------------------------------------------------------------------------ typography
#: Text nodes as a reader sees them (every <details> open, typeset math and code excluded): ASCII pseudo-math
#: (``^(``, ``x^2``, ``τ_W``) and programmer syntax in the evidence; lines that start with ")" "." "," right after
#: inline math; glued values in bold; the check mark glyphs a font may lack; book macros in the numbers tables.
TYPOGRAPHY = r"""
document.querySelectorAll('details').forEach(d => { d.open = true; });
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const walker = document.createTreeWalker(col, NodeFilter.SHOW_TEXT);
const ascii = [], orphans = [], emoji = [];
const skip = 'pre, code, script, style, mjx-container, .highlight, .cell_input, .attnlab-cite, svg';
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (!p || p.closest(skip)) continue;
  const t = n.textContent;
  const a = t.match(/\^\(|\^[A-Za-z0-9{]|(^|[^A-Za-z])[A-Za-zα-ωΑ-Ω‖)]_[A-Za-z0-9(]/);
  if (a) ascii.push(t.slice(Math.max(0, a.index - 30), a.index + 30).trim());
  if (/[\u2705\u274c]/.test(t)) emoji.push(t.trim().slice(0, 40));
  // a text node right after inline math whose first character starts a new line
  const prev = n.previousSibling;
  if (prev && prev.nodeType === 1 && (prev.matches('mjx-container, span.math') || prev.querySelector('mjx-container'))
      && /^[).,;:]/.test(t)) {
    const r = document.createRange();
    r.setStart(n, 0); r.setEnd(n, 1);
    const a = r.getBoundingClientRect(), b = prev.getBoundingClientRect();
    if (a.height && b.height && a.top > b.bottom - 2) orphans.push((prev.textContent + t).trim().slice(0, 60));
  }
}
const bold = [...col.querySelectorAll('span.pasted-text')].filter(s => {
  const w = getComputedStyle(s).fontWeight;
  return (parseInt(w) >= 600 || w === 'bold') && !s.closest('strong, b, th, .admonition-title');
}).map(s => s.textContent.trim().slice(0, 60));
const numbers = [];
for (const t of col.querySelectorAll('table.attnlab-numbers th')) {  // the labels: never a Python key
  const c = t.cloneNode(true);
  c.querySelectorAll('mjx-container, span.math').forEach(e => e.remove());
  if (/_|\{|\}/.test(c.textContent)) numbers.push(c.textContent.trim().slice(0, 60));
}
for (const t of col.querySelectorAll('table.attnlab-numbers')) {  // the values: never dict or list syntax
  const m = t.textContent.match(/\{'|'\s*:|\[\{|\}\]/);
  if (m) numbers.push(t.textContent.slice(Math.max(0, m.index - 30), m.index + 30));
}
return {ascii, orphans, emoji, bold, numbers};
"""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_typography_of_computed_values(browser, page):
    """At 1280 px, every <details> open: no ASCII pseudo-math (``^(``, ``L^1.98``, ``τ_W``) in the text, no ")"
    "." "," orphaned at a line start after inline math, no glued value in bold (outside a bold context), no ✅/❌
    (empty boxes without an emoji font), no Python key or dict syntax in a verdict's numbers."""
    browser.set_window_size(1280, 900)
    browser.get(page.as_uri())
    browser.set_script_timeout(30)
    browser.execute_async_script(MATHJAX_DONE)
    r = browser.execute_script(TYPOGRAPHY)
    assert not r["ascii"], f"ASCII pseudo-math: {r['ascii'][:3]}"
    assert not r["orphans"], f"punctuation orphaned after math: {r['orphans'][:3]}"
    assert not r["bold"], f"glued values in bold: {r['bold'][:3]}"
    assert not r["emoji"], f"emoji marks: {r['emoji'][:3]}"
    assert not r["numbers"], f"Python syntax in the measured numbers: {r['numbers'][:3]}"


# ------------------------------------------------------------------------------------------- verdicts page
#: The verdicts page at a phone's width: typeset math (MathJax loaded and done), headers that neither overprint
#: nor break inside a word, and the page's length in screens.
VERDICTS_PHONE = r"""
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const overlaps = [];
for (const table of col.querySelectorAll('table')) {
  const cells = [...table.querySelectorAll(':scope > thead > tr > th')]  // this table's own headers.filter(c => c.offsetParent !== null && c.clientWidth > 0);
  for (let i = 0; i + 1 < cells.length; i++) {
    const a = cells[i].getBoundingClientRect(), b = cells[i + 1].getBoundingClientRect();
    if (a.right > b.left + 1 && a.bottom > b.top + 1 && b.bottom > a.top + 1) overlaps.push(cells[i].textContent.trim());
  }
  for (const c of cells) if (c.scrollWidth > c.clientWidth + 1) overlaps.push('overflow: ' + c.textContent.trim());
}
// a header word broken across lines: the word's range spans two line boxes
const broken = [];
for (const th of col.querySelectorAll('th')) {
  if (th.offsetParent === null || th.clientWidth === 0) continue;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.textContent.matchAll(/[A-Za-z]{3,}/g)) {
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      if (r.getClientRects().length > 1) broken.push(m[0]);
    }
  }
}
return {mathjax: !!(window.MathJax && MathJax.startup), typeset: col.querySelectorAll('mjx-container').length,
        overlaps, broken, screens: document.documentElement.scrollHeight / window.innerHeight};
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_verdicts_page_typesets_and_fits_a_phone(browser, width):
    """The verdicts page loads MathJax and typesets its formulas (the labels of its numbers tables); its headers
    neither overprint nor break inside a word, at 1280 px and at 390 px; on a phone it is at most 20 screens."""
    browser.set_window_size(width, 844 if width < 640 else 800)
    browser.get((HTML / "book" / "verdicts.html").as_uri())
    browser.set_script_timeout(30)
    browser.execute_async_script(MATHJAX_DONE)
    r = browser.execute_script(VERDICTS_PHONE)
    assert r["mathjax"] and r["typeset"] > 0, "the verdicts page typesets no math"
    assert not r["overlaps"], f"headers overprinted or clipped: {r['overlaps'][:3]}"
    assert not r["broken"], f"header words broken across lines: {r['broken'][:3]}"
    if width < 640:
        assert r["screens"] <= 20, f"the verdicts page is {r['screens']:.1f} screens on a phone"
