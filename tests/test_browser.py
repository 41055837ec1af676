"""Drive headless Chromium over the built book: typeset math, loaded images, working internal links, layout, text.

Needs the built HTML (`bash scripts/build-book.sh`) and Debian's `chromium` and `chromium-driver`.
Skipped, visibly, without them; `ATTNLAB_REQUIRE_BROWSER=1` (set by the build script in CI) turns the skip
into a failure. `ATTNLAB_BOOK_HTML` points the tests at another build's HTML folder (default `_build/html`).

Each page is loaded once per width (1280 px, and 390 px for the chapters) and one script (`REPORT`) collects
everything the checks read; the checks (`CHECKS`, registered with `@page_check`) then assert on that report.
"""
import os
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("ATTNLAB_BOOK_HTML") or ROOT / "_build" / "html")
REQUIRE = os.environ.get("ATTNLAB_REQUIRE_BROWSER") == "1"


def _missing():
    if not (HTML / "index.html").exists():
        return "the book is not built (_build/html)"
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return "chromium and chromedriver are not installed"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    return None


reason = _missing()
if reason and REQUIRE:
    raise RuntimeError(f"browser test required but {reason}")
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")

PAGES = sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
               and p.name not in ("genindex.html", "search.html")) if HTML.exists() else []


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--allow-file-access-from-files", "--disable-dev-shm-usage"):
        opts.add_argument(flag)
    opts.binary_location = shutil.which("chromium")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


# ------------------------------------------------------------------------------------------------ one report per page
#: The one script run on each page at each width: it waits for MathJax, measures what needs the page as loaded
#: (the findings box, the first screen, the links), then opens every <details> and measures what a reader sees
#: with everything open (tables, formulas, figures, the text, the page's length). Every check reads this report.
REPORT = r"""
const done = arguments[arguments.length - 1];
const ready = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
let tries = 0;
(function wait() {
  if (ready()) { MathJax.startup.promise.then(() => done(measure(true))).catch(e => done(measure(String(e)))); }
  else if (tries++ > 200) { done(measure(false)); } else { setTimeout(wait, 50); }
})();
function measure(mathjax) {
  const R = {mathjax, viewport: window.innerHeight};
  const short = e => (e.className && typeof e.className === 'string' ? e.className + ': ' : '')
    + (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 70);
  // ---- as loaded: typesetting, images, links
  const math = [...document.querySelectorAll('span.math, div.math')];
  R.math = math.length;
  R.raw = math.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80));
  R.errors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')].map(e => e.textContent.slice(0, 80));
  const body = document.querySelector('main') || document.body;
  R.dollars = [];
  const w0 = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let n = w0.nextNode(); n; n = w0.nextNode()) {
    const p = n.parentElement;
    if (p.closest('pre, code, script, style, mjx-container, .highlight')) continue;
    if (/\$\$|\\\(|\\\[|\\(frac|mathbb|left|langle)\b/.test(n.textContent))
      R.dollars.push(n.textContent.trim().slice(0, 80));
  }
  R.imgs = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  R.links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  R.url = window.location.href;
  // ---- as loaded: the findings box, the first screen, the landing table, the verdict styles
  const f = document.querySelector('div.attnlab-findings');
  if (f) {
    const edge = f.getBoundingClientRect().right;
    R.findings = {
      top: f.getBoundingClientRect().top + window.scrollY,
      past: [...f.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > edge + 1)
        .map(e => (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60)),
      over: [...f.querySelectorAll('.attnlab-badge')].filter(b => {
        const cell = b.closest('td');
        return cell && b.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1;
      }).map(b => (b.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60)),
      rows: [...f.querySelectorAll('tr[data-claim]')].map(r => [r.dataset.claim, r.dataset.verdict])};
  } else { R.findings = null; }
  R.verdictBoxes = [...document.querySelectorAll('div.admonition[id^="verdict-"]')]
    .map(d => [d.id.slice(8), d.querySelector('.admonition-title strong').textContent.trim()]);
  const t = document.querySelector('table.attnlab-landing');
  R.landing = t ? {top: t.getBoundingClientRect().top + window.scrollY,
                   bottom: t.getBoundingClientRect().bottom + window.scrollY,
                   claims: [...t.querySelectorAll('a[href*="#claim-"]')].map(a => a.textContent)} : null;
  R.looks = [];
  document.querySelectorAll('.attnlab-badge').forEach(b => {
    const s = getComputedStyle(b), before = getComputedStyle(b, '::before');
    R.looks.push([b.textContent.trim(), 'badge ' + s.borderLeftStyle + ' ' + before.content]); });
  document.querySelectorAll('div.admonition[id^="verdict-"]').forEach(d => {
    const s = getComputedStyle(d), a = getComputedStyle(d.querySelector('.admonition-title'), '::after');
    R.looks.push([d.querySelector('.admonition-title strong').textContent.trim(),
                  'box ' + s.borderLeftStyle + ' ' + s.borderLeftWidth + ' ' + a.content]); });
  R.heightClosed = Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);
  // ---- every <details> open: what a reader sees
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const box = col.getBoundingClientRect();
  R.width = box.width;
  R.wideTables = [...col.querySelectorAll('table')]
    .filter(t => t.getBoundingClientRect().right > box.right + 1 || t.scrollWidth > t.clientWidth + 1).map(short);
  R.wideMath = [...col.querySelectorAll('mjx-container')].filter(m => {
    // the typeset formula (MathJax's svg) must end inside the column; a display formula must not scroll either
    const svg = m.querySelector('svg') || m;
    const display = m.getAttribute('display') === 'true';
    return svg.getBoundingClientRect().right > box.right + 1 || (display && m.scrollWidth > m.clientWidth + 1);
  }).map(m => (m.getAttribute('display') === 'true' ? 'display: ' : 'inline: ') + short(m.closest('p, div') || m));
  R.figures = [...col.querySelectorAll('figure img, div.cell_output img')].filter(i => i.clientWidth > 0).map(i => ({
    src: (i.getAttribute('src') || '').slice(0, 80), natural: i.naturalWidth, shown: i.clientWidth,
    vector: /\.svg(\?|$)|^data:image\/svg/.test(i.getAttribute('src') || '')}));
  const clone = col.cloneNode(true);  // the page as read: outputs and prose, not the source of code cells
  clone.querySelectorAll('.cell_input, div.highlight-python, div.highlight-ipython3, script, style, mjx-container')
    .forEach(e => e.remove());
  R.text = clone.textContent;
  // text nodes as a reader sees them (typeset math removed, code excluded): for raw TeX and programmer floats
  const w1 = document.createTreeWalker(col, NodeFilter.SHOW_TEXT);
  R.shown = [];
  for (let n = w1.nextNode(); n; n = w1.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('pre, code, script, style, mjx-container, .highlight, .cell_input, .attnlab-cite')) continue;
    R.shown.push(n.textContent);
  }
  R.headers = [...col.querySelectorAll('th')].map(t => t.textContent.trim())
    .filter(t => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(t));
  R.nanCells = [...col.querySelectorAll('td')].filter(t => /^\s*(nan|NaN|None)\s*$/.test(t.textContent)).length;
  R.scrolls = [...col.querySelectorAll('.cell_output, .output')]
    .filter(o => o.scrollWidth > o.clientWidth + 1).map(o => o.textContent.trim().slice(0, 60));
  R.ems = [...col.querySelectorAll('.attnlab-summary em, .attnlab-summary strong, .attnlab-summary i')]
    .map(e => e.textContent.slice(0, 60));
  const first = document.querySelector('table.attnlab-overview');
  R.overviewBottom = first ? first.getBoundingClientRect().bottom + window.scrollY : null;
  R.claimRows = document.querySelectorAll('tr[data-claim]').length;
  R.height = Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);
  return R;
}
"""

#: Heights of the windows the pages are read in (the width varies); a "screen" is 1280 × 800.
WINDOW_HEIGHT, SCREEN = 900, 800
_REPORTS: dict = {}


class Extra:
    """A further script run on the loaded page after :data:`REPORT` (every <details> then open), on ``pages`` (None:
    all) at ``widths``; its result is the report's entry of the same name."""

    def __init__(self, script, pages, widths):
        self.script, self.pages, self.widths = script, pages, widths


#: The further scripts by report entry (registered beside the checks that read them).
EXTRA: dict = {}


def page_report(browser, page: Path, width: int) -> dict:
    """The report of ``page`` at ``width`` px (:data:`REPORT` and the :data:`EXTRA` scripts that apply), loading the
    page once per width for all checks."""
    key = (page, width)
    if key not in _REPORTS:
        browser.set_window_size(width, WINDOW_HEIGHT)
        browser.get(page.as_uri())
        browser.set_script_timeout(60)
        report = browser.execute_async_script(REPORT)
        report["window"] = width
        for name, extra in EXTRA.items():
            if width in extra.widths and (extra.pages is None or page in extra.pages):
                report[name] = browser.execute_script(extra.script)
        _REPORTS[key] = report
    return _REPORTS[key]


CHAPTERS = sorted(p for p in PAGES if p.parent.name == "notebooks")


def _claim_pages():
    from attnlab.audit.claims import CLAIMS  # noqa: PLC0415

    stems = {Path(c.chapter).name for c in CLAIMS if c.chapter}
    return [p for p in CHAPTERS if p.stem in stems]


#: The chapter pages that show verdicts (a page of further evidence, such as 12-decoder-structure, has none).
VERDICT_PAGES = _claim_pages()


class Check:
    """One check of the per-page report: ``fn(report, page)`` asserts; it runs on ``pages`` at each of ``widths``."""

    def __init__(self, fn, pages, widths):
        self.fn, self.pages, self.widths = fn, pages, widths


#: Every per-page check, by name. Add one with ``@page_check(pages=..., widths=...)`` over a function that reads
#: the report (add what it needs to :data:`REPORT`): each page is still loaded once per width.
CHECKS: dict[str, Check] = {}


def page_check(pages=None, widths=(1280,)):
    def register(fn):
        CHECKS[fn.__name__] = Check(fn, PAGES if pages is None else pages, widths)
        return fn
    return register


@page_check()
def renders(r, page):
    """Math typeset (no untypeset span, no TeX error, no raw TeX in the text), every image loaded, every internal
    link resolving to a file of the build."""
    if r["math"]:
        assert r["mathjax"] is True, f"MathJax did not finish: {r['mathjax']}"
    assert not r["raw"], f"untypeset math: {r['raw'][:3]}"
    assert not r["errors"], f"TeX errors: {r['errors'][:3]}"
    assert not r["dollars"], f"raw TeX in text: {r['dollars'][:3]}"
    assert not r["imgs"], f"broken images: {r['imgs']}"
    here = Path(unquote(urlparse(r["url"]).path)).parent  # after any redirect
    broken = []
    for href in r["links"]:
        parsed = urlparse(href)
        if parsed.scheme or href.startswith("//") or href.startswith("mailto:"):
            continue  # external: not followed (no network here)
        target = urldefrag(unquote(parsed.path))[0]
        if not target:
            continue
        if not (here / target).resolve().exists():
            broken.append(href)
    assert not broken, f"broken internal links: {broken[:5]}"


REPRS = [r"\{'[^']*':", r"array\(\[", r"dtype=", r"dtype: (float|int|object)", r"Name: \w+, dtype",
         r"chapter computed in", r"<IPython\.", r"<Figure size"]


@page_check()
def reads_at_1280px(r, page):
    """At 1280 px (every <details> opened): no table and no formula wider than the text column, every figure
    sharp for the width it is shown at (vector, or a bitmap at least twice its CSS width), no Python repr in the
    text outside the source of code cells, no snake_case table header, no table cell reading NaN."""
    import re

    assert 500 < r["width"] < 1280
    assert not r["wideTables"], f"tables wider than the text column: {r['wideTables'][:3]}"
    assert not r["wideMath"], f"formulas wider than the text column: {r['wideMath'][:3]}"
    blurry = [f for f in r["figures"] if not f["vector"] and f["natural"] < 2 * f["shown"]]
    assert not blurry, f"figures coarser than 2x their shown width: {blurry[:3]}"
    if page.name != "api.html":  # the API reference shows signatures and examples (``dtype=``, ``array([...])``)
        found = [(p, m.group(0)) for p in REPRS for m in [re.search(p, r["text"])] if m]
        assert not found, f"plumbing in the page text: {found[:3]}"
    assert not r["headers"], f"snake_case table headers: {r['headers'][:5]}"
    assert not r["nanCells"], f"{r['nanCells']} table cells read NaN"


#: TeX a reader should never see as source: dollars around math, MathJax delimiters, macros (the book's and TeX's).
RAW_TEX = [r"\$[^$\s][^$]*?[^$\s\\]\$", r"\$[^$\s]\$", r"\\\(", r"\\\)", r"\\\[", r"\\\]",
           r"\\(operatorname|mathrm|rm|eps|epsilon|norm|abs|lVert|rVert|frac|sqrt|mathbb|mathcal|left|right|langle|"
           r"rangle|cdot|times|le|ge|leq|geq|hat|tilde|alpha|beta|sigma|log|exp|top|ip|osc|softmax)(?![A-Za-z])"]
#: Numbers as a program prints them (3.2e+08, 1.00e-03, 1000000.0), not as a reader writes them.
PROGRAMMER_FLOATS = [r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])", r"(?<![\w.,])\d{4,}\.0(?![\d.])",
                     r"(?<![\w.])\d{1,3}(?:,\d{3})+\.0(?![\d.])"]


def _hits(patterns, texts, width=40):
    import re

    out = []
    for t in texts:
        for p in patterns:
            for m in re.finditer(p, t):
                out.append(t[max(0, m.start() - width):m.end() + width].strip())
    return out


@page_check()
def text_is_typeset_and_reads_as_numbers(r, page):
    """With every <details> open, the text a reader sees (outside code) holds no TeX source (dollars, MathJax
    delimiters, macros: a header or a summary that was not typeset) and no programmer float (3.2e+08, 1000000.0)."""
    tex = _hits(RAW_TEX, r["shown"])
    assert not tex, f"{len(tex)} raw TeX in the rendered text: {tex[:3]}"
    floats = _hits(PROGRAMMER_FLOATS, r["shown"])
    assert not floats, f"{len(floats)} programmer floats in the text: {floats[:3]}"


@page_check(pages=VERDICT_PAGES, widths=(1280, 390))
def findings_box_holds_its_contents(r, page):
    """No element of a chapter's findings box reaches past the box's right edge, and no verdict badge runs out of
    its cell over the summary beside it, at 1280 px and on a 390 px phone."""
    f = r["findings"]
    assert f is not None, "no findings box"
    assert not f["past"], f"past the box's edge: {f['past'][:3]}"
    assert not f["over"], f"badges printed over their neighbours: {f['over'][:3]}"


@page_check(pages=VERDICT_PAGES)
def chapter_opens_with_its_findings(r, page):
    """Each chapter's findings box (attnlab.audit.present.findings) starts on the first screen at 1280 × 900 and
    lists every claim whose verdict box is on the page, with the same verdict."""
    f = r["findings"]
    assert f is not None, "no findings box"
    assert f["top"] < r["viewport"], f"the findings box starts at {f['top']:.0f} px, below the first screen"
    assert sorted(map(list, f["rows"])) == sorted(map(list, r["verdictBoxes"])), \
        "the findings box and the verdict boxes disagree"


@page_check(pages=[p for p in PAGES if p.name == "verdicts.html" and p.parent.name == "book"])
def verdicts_page_fits_the_text_column_at_1280px(r, page):
    """At 1280 px every table of the verdicts page (details opened) stays inside the text column, no output
    scrolls sideways, the overview table ends within the first 1.5 screens, and no summary shows emphasis."""
    from attnlab.audit.claims import CLAIMS

    assert r["claimRows"] == len(CLAIMS)
    assert 500 < r["width"] < 1280
    assert not r["wideTables"], f"tables wider than the text column: {r['wideTables'][:3]}"
    assert not r["scrolls"], f"outputs that scroll sideways: {r['scrolls'][:3]}"
    assert not r["ems"], f"emphasis inside summaries: {r['ems'][:3]}"
    assert r["overviewBottom"] is not None and r["overviewBottom"] < 1.5 * r["viewport"]


@page_check(pages=[p for p in PAGES if p.name == "intro.html" and p.parent.name == "book"])
def landing_page_opens_with_the_findings(r, page):
    """The landing page's first screen (1280 × 900) shows the findings by seed, every claim in it once."""
    from attnlab.audit.claims import CLAIMS

    t = r["landing"]
    assert t is not None, "no findings table on the landing page"
    assert t["top"] < 0.6 * r["viewport"] and t["bottom"] < 1.25 * r["viewport"], t
    assert sorted(c.split(" ")[0] for c in t["claims"]) == sorted(c.id for c in CLAIMS)


# ------------------------------------------------------------------ reading: figures, typography, the verdicts page
#: The body text size (px) of the theme and the smallest text a figure may show, as a fraction of it.
BODY_PX = 16
MIN_TEXT_RATIO = 0.8

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
      const texts = [...svg.matchAll(/font-size[:=]\s*"?([\d.]+)(px|pt)?/g)]
        .map(m => parseFloat(m[1]) * (m[2] === 'px' ? 0.75 : 1));
      const all = sizes.concat(texts);
      if (widthPx && all.length) rec.minText = Math.min(...all) * (4 / 3) * img.clientWidth / widthPx;
      rec.yellow = /stroke:\s*#f0e442|stroke="#f0e442"/i.test(svg);
    } catch (e) { rec.error = String(e); }
  }
  out.push(rec);
}
return out;
"""


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


# ------------------------------------------------------------------------------------------- verdicts page
#: The verdicts page at a phone's width: typeset math (MathJax loaded and done), headers that neither overprint
#: nor break inside a word, and the page's length in screens.
VERDICTS_PHONE = r"""
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const overlaps = [];
for (const table of col.querySelectorAll('table')) {
  const cells = [...table.querySelectorAll(':scope > thead > tr > th')]  // this table's own headers
    .filter(c => c.offsetParent !== null && c.clientWidth > 0);
  for (let i = 0; i + 1 < cells.length; i++) {
    const a = cells[i].getBoundingClientRect(), b = cells[i + 1].getBoundingClientRect();
    if (a.right > b.left + 1 && a.bottom > b.top + 1 && b.bottom > a.top + 1)
      overlaps.push(cells[i].textContent.trim());
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


VERDICTS_PAGE = [p for p in PAGES if p.name == "verdicts.html" and p.parent.name == "book"]
EXTRA.update(figureText=Extra(FIGURES, None, (1280,)), typography=Extra(TYPOGRAPHY, None, (1280,)),
             phone=Extra(VERDICTS_PHONE, VERDICTS_PAGE, (1280, 390)))


@page_check()
def figures_fill_the_column_and_read(r, page):
    """At 1280 px: every figure at least 0.9 of the column wide, its alt text a description (not empty, not a file
    path), its smallest text at least 0.8 of the body size as shown, no yellow line on white."""
    figs = r["figureText"]
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


@page_check()
def typography_of_computed_values(r, page):
    """At 1280 px, every <details> open: no ASCII pseudo-math (``^(``, ``L^1.98``, ``τ_W``) in the text, no ")"
    "." "," orphaned at a line start after inline math, no glued value in bold (outside a bold context), no ✅/❌
    (empty boxes without an emoji font), no Python key or dict syntax in a verdict's numbers."""
    t = r["typography"]
    assert not t["ascii"], f"ASCII pseudo-math: {t['ascii'][:3]}"
    assert not t["orphans"], f"punctuation orphaned after math: {t['orphans'][:3]}"
    assert not t["bold"], f"glued values in bold: {t['bold'][:3]}"
    assert not t["emoji"], f"emoji marks: {t['emoji'][:3]}"
    assert not t["numbers"], f"Python syntax in the measured numbers: {t['numbers'][:3]}"


@page_check(pages=VERDICTS_PAGE, widths=(1280, 390))
def verdicts_page_typesets_and_fits_a_phone(r, page):
    """The verdicts page loads MathJax and typesets its formulas (the labels of its numbers tables); its headers
    neither overprint nor break inside a word, at 1280 px and at 390 px; on a phone, as loaded, it is at most 20
    screens."""
    v = r["phone"]
    assert v["mathjax"] and v["typeset"] > 0, "the verdicts page typesets no math"
    assert not v["overlaps"], f"headers overprinted or clipped: {v['overlaps'][:3]}"
    assert not v["broken"], f"header words broken across lines: {v['broken'][:3]}"
    if r["window"] < 640:
        screens = r["heightClosed"] / r["viewport"]
        assert screens <= 20, f"the verdicts page is {screens:.1f} screens on a phone"


@page_check(pages=VERDICTS_PAGE + CHAPTERS)
def verdicts_look_different_without_colour(r, page):
    """Every verdict's badge (verdicts page: all of them) and verdict box (chapters) differs from every other verdict's
    shown on the page by line style or symbol, not by colour alone (the looks are the book's one stylesheet)."""
    looks = {}
    for verdict, look in r["looks"]:
        looks.setdefault(verdict, set()).add(look)
    shared = [(a, b, looks[a] & looks[b]) for a in looks for b in looks if a < b and looks[a] & looks[b]]
    assert not shared, f"verdicts that look alike but for colour: {shared[:3]}"
    if page in VERDICTS_PAGE:
        assert len(looks) >= 4, f"the verdicts page shows {len(looks)} verdicts"


#: Where each chapter page's length is written (one line per page, "page  as loaded  every <details> open", in
#: screens of 1280 × 800); the build script prints it after the checks.
SCREENS_FILE = HTML.parent / "screens.txt"
#: The most screens of 1280 × 800 a chapter page may take with every <details> open (issue 25): a longer chapter
#: is split into section pages, or its evidence made compact.
MAX_SCREENS = 16


@page_check(pages=CHAPTERS)
def length_is_reported(r, page):
    """Records how many 1280 × 800 screens the page takes, as loaded and with every <details> open, in
    :data:`SCREENS_FILE`, and fails if it takes more than :data:`MAX_SCREENS` with every <details> open."""
    assert r["height"] >= r["heightClosed"] > 0
    with open(SCREENS_FILE, "a") as f:
        f.write(f"{page.stem}\t{r['heightClosed'] / SCREEN:.1f}\t{r['height'] / SCREEN:.1f}\n")
    screens = r["height"] / SCREEN
    assert screens <= MAX_SCREENS, (f"{page.stem} takes {screens:.1f} screens of 1280 × 800 with every <details> "
                                    f"open, more than {MAX_SCREENS}: split it into sections or make its evidence "
                                    "compact")


#: (page, width, check) in page order, so each page is loaded once per width and its report serves every check;
#: under pytest-xdist (``--dist loadgroup``) a page's checks stay on one worker, so it is still loaded once.
CASES = [(page, width, name) for page in PAGES for width in (1280, 390) for name, c in CHECKS.items()
         if width in c.widths and page in c.pages]


@pytest.mark.parametrize("page,width,check", [pytest.param(p, w, n, marks=pytest.mark.xdist_group(str(p)))
                                              for p, w, n in CASES],
                         ids=[f"{p.relative_to(HTML)}-{w}-{n}" for p, w, n in CASES])
def test_page(browser, page, width, check):
    """Every registered check (:data:`CHECKS`) on every page it covers, from the page's one report per width."""
    CHECKS[check].fn(page_report(browser, page, width), page)


def test_checks_fail_on_a_broken_page(browser, tmp_path):
    """The registered checks still fail when a page is broken: a planted page with raw TeX, a programmer float, a
    broken image, a broken link, a snake_case header and a table wider than the column."""
    page = tmp_path / "broken.html"
    page.write_text("""<html><body><main><article class="bd-article" style="width: 700px">
      <p>Raw $x^2$ and \\frac{a}{b}, a float 3.2e+08.</p><img src="missing.png">
      <a href="nowhere.html">a link</a>
      <table><tr><th>snake_case_header</th></tr><tr><td style="white-space: nowrap">""" + "wide " * 400 + """
      </td></tr></table></article></main></body></html>""")
    r = page_report(browser, page, 1280)
    for name in ("renders", "reads_at_1280px", "text_is_typeset_and_reads_as_numbers"):
        with pytest.raises(AssertionError):
            CHECKS[name].fn(r, page)


def test_length_check_fails_on_a_long_page(browser, tmp_path, monkeypatch):
    """The length check fails on a page that is short as loaded but longer than MAX_SCREENS with its <details> open,
    and passes a short one (the lines go to a scratch file, not the build's report)."""
    monkeypatch.setattr(sys.modules[__name__], "SCREENS_FILE", tmp_path / "screens.txt")
    pages = {}
    for name, height in (("long", (MAX_SCREENS + 2) * SCREEN), ("short", SCREEN)):
        pages[name] = tmp_path / f"{name}.html"
        pages[name].write_text(f"""<html><body><main><article class="bd-article" style="width: 700px">
          <p>Findings.</p><details><summary>measured numbers</summary><div style="height: {height}px"></div>
          </details></article></main></body></html>""")
    long = page_report(browser, pages["long"], 1280)
    assert long["heightClosed"] < 2 * SCREEN < long["height"]
    with pytest.raises(AssertionError, match="screens"):
        CHECKS["length_is_reported"].fn(long, pages["long"])
    CHECKS["length_is_reported"].fn(page_report(browser, pages["short"], 1280), pages["short"])
    assert [line.split("\t")[0] for line in (tmp_path / "screens.txt").read_text().splitlines()] == ["long", "short"]


def test_mathjax_is_served_locally():
    index = (HTML / "book" / "intro.html").read_text()
    assert "tex-svg-full.js" in index and "cdn" not in index.split("tex-svg-full.js")[0].rsplit("<script", 1)[-1]
    assert (HTML / "_static" / "mathjax" / "tex-svg-full.js").exists()


def test_colab_launch_button():
    import yaml

    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    path = repo["url"].split("github.com/", 1)[1].rstrip("/")
    base = f"colab.research.google.com/github/{path}/blob/{repo['branch']}"
    for page in sorted((HTML / "notebooks").glob("*.html")):  # every chapter's button opens its Colab edition
        text = page.read_text()
        assert f"{base}/colab/{page.stem}.ipynb" in text, page.name
        assert (ROOT / "colab" / f"{page.stem}.ipynb").exists(), page.name
        assert f"{base}/notebooks/" not in text, f"{page.name}: a Colab link still opens the MyST source"


def test_figure_downloads_present():
    chapter = (HTML / "notebooks" / "01-jl.html").read_text()
    for ext in ("pdf", "png", "csv", "json"):
        assert f"jl-tail-vs-m.{ext}" in chapter, ext
