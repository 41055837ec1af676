"""Drive headless Chromium over the built book: typeset math, loaded images, working internal links.

Needs the built HTML (`bash scripts/build-book.sh`) and Debian's `chromium` and `chromium-driver`.
Skipped, visibly, without them; `ATTNLAB_REQUIRE_BROWSER=1` (set by the build script in CI) turns the skip
into a failure. `ATTNLAB_BOOK_HTML` points the tests at another build's HTML folder (default `_build/html`).
"""
import os
import shutil
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


MATHJAX_DONE = """
const done = arguments[arguments.length - 1];
const ready = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
let tries = 0;
(function wait() {
  if (ready()) { MathJax.startup.promise.then(() => done(true)).catch(e => done(String(e))); }
  else if (tries++ > 200) { done(false); } else { setTimeout(wait, 50); }
})();
"""

PAGE_REPORT = """
const math = [...document.querySelectorAll('span.math, div.math')];
const raw = math.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80));
const errors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')].map(e => e.textContent.slice(0, 80));
const body = document.querySelector('main') || document.body;
const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
const dollars = [];
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (p.closest('pre, code, script, style, mjx-container, .highlight')) continue;
  if (/\\$\\$|\\\\\\(|\\\\\\[|\\\\(frac|mathbb|left|langle)\\b/.test(n.textContent))
    dollars.push(n.textContent.trim().slice(0, 80));
}
const imgs = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
return {math: math.length, raw, errors, dollars, imgs, links};
"""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_page_renders(browser, page):
    browser.get(page.as_uri())
    browser.set_script_timeout(30)
    ok = browser.execute_async_script(MATHJAX_DONE)
    report = browser.execute_script(PAGE_REPORT)
    if report["math"]:
        assert ok is True, f"MathJax did not finish: {ok}"
    assert not report["raw"], f"untypeset math: {report['raw'][:3]}"
    assert not report["errors"], f"TeX errors: {report['errors'][:3]}"
    assert not report["dollars"], f"raw TeX in text: {report['dollars'][:3]}"
    assert not report["imgs"], f"broken images: {report['imgs']}"
    here = Path(unquote(urlparse(browser.current_url).path)).parent  # after any redirect
    broken = []
    for href in report["links"]:
        parsed = urlparse(href)
        if parsed.scheme or href.startswith("//") or href.startswith("mailto:"):
            continue  # external: not followed (no network here)
        target = urldefrag(unquote(parsed.path))[0]
        if not target:
            continue
        if not (here / target).resolve().exists():
            broken.append(href)
    assert not broken, f"broken internal links: {broken[:5]}"


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


# ------------------------------------------------------------------------------------------------ the verdicts page
VERDICTS_LAYOUT = """
document.querySelectorAll('details').forEach(d => { d.open = true; });   // the numbers too must fit
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const right = col.getBoundingClientRect().right;
const wide = [...col.querySelectorAll('table')]
  .filter(t => t.getBoundingClientRect().right > right + 1 || t.scrollWidth > t.clientWidth + 1)
  .map(t => (t.className || 'table') + ': ' + t.textContent.trim().slice(0, 60));
const scrolls = [...col.querySelectorAll('.cell_output, .output')]
  .filter(o => o.scrollWidth > o.clientWidth + 1).map(o => o.textContent.trim().slice(0, 60));
const ems = [...col.querySelectorAll('.attnlab-summary em, .attnlab-summary strong, .attnlab-summary i')]
  .map(e => e.textContent.slice(0, 60));
const first = document.querySelector('table.attnlab-overview');
return {width: col.getBoundingClientRect().width, wide, scrolls, ems, viewport: window.innerHeight,
        overviewBottom: first ? first.getBoundingClientRect().bottom + window.scrollY : null,
        rows: document.querySelectorAll('tr[data-claim]').length};
"""


def test_verdicts_page_fits_the_text_column_at_1280px(browser):
    """At 1280 px every table of the verdicts page (details opened) stays inside the text column, no output
    scrolls sideways, the overview table ends within the first 1.5 screens, and no summary shows emphasis."""
    from attnlab.audit.claims import CLAIMS

    browser.set_window_size(1280, 900)
    browser.get((HTML / "book" / "verdicts.html").as_uri())
    report = browser.execute_script(VERDICTS_LAYOUT)
    assert report["rows"] == len(CLAIMS)
    assert 500 < report["width"] < 1280
    assert not report["wide"], f"tables wider than the text column: {report['wide'][:3]}"
    assert not report["scrolls"], f"outputs that scroll sideways: {report['scrolls'][:3]}"
    assert not report["ems"], f"emphasis inside summaries: {report['ems'][:3]}"
    assert report["overviewBottom"] is not None and report["overviewBottom"] < 1.5 * report["viewport"]


# ---------------------------------------------------------------------------- reading at laptop width (issue 18)
READING = r"""
document.querySelectorAll('details').forEach(d => { d.open = true; });
const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const box = col.getBoundingClientRect();
const short = e => (e.className ? e.className + ': ' : '')
  + (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 70);
const wideTables = [...col.querySelectorAll('table')]
  .filter(t => t.getBoundingClientRect().right > box.right + 1 || t.scrollWidth > t.clientWidth + 1).map(short);
const wideMath = [...col.querySelectorAll('mjx-container')].filter(m => {
  // the typeset formula (MathJax's svg) must end inside the column; a display formula must not scroll either
  const svg = m.querySelector('svg') || m;
  const display = m.getAttribute('display') === 'true';
  return svg.getBoundingClientRect().right > box.right + 1 || (display && m.scrollWidth > m.clientWidth + 1);
}).map(m => (m.getAttribute('display') === 'true' ? 'display: ' : 'inline: ') + short(m.closest('p, div') || m));
const figures = [...col.querySelectorAll('figure img, div.cell_output img')].filter(i => i.clientWidth > 0).map(i => ({
  src: (i.getAttribute('src') || '').slice(0, 80), natural: i.naturalWidth, shown: i.clientWidth,
  vector: /\.svg(\?|$)|^data:image\/svg/.test(i.getAttribute('src') || '')}));
const clone = col.cloneNode(true);  // the page as read: outputs and prose, not the source of code cells
clone.querySelectorAll('.cell_input, div.highlight-python, div.highlight-ipython3, script, style, mjx-container')
  .forEach(e => e.remove());
const text = clone.textContent;
// text nodes as a reader sees them (typeset math removed, code excluded): for raw TeX and programmer floats
const walker = document.createTreeWalker(col, NodeFilter.SHOW_TEXT);
const shown = [];
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (!p || p.closest('pre, code, script, style, mjx-container, .highlight, .cell_input, .attnlab-cite')) continue;
  shown.push(n.textContent);
}
const headers = [...col.querySelectorAll('th')].map(t => t.textContent.trim())
  .filter(t => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(t));
const nanCells = [...col.querySelectorAll('td')].filter(t => /^\s*(nan|NaN|None)\s*$/.test(t.textContent)).length;
return {width: box.width, wideTables, wideMath, figures, text, headers, nanCells, shown};
"""

#: TeX a reader should never see as source: dollars around math, MathJax delimiters, macros (the book's and TeX's).
RAW_TEX = [r"\$[^$\s][^$]*?[^$\s\\]\$", r"\$[^$\s]\$", r"\\\(", r"\\\)", r"\\\[", r"\\\]",
           r"\\(operatorname|mathrm|rm|eps|epsilon|norm|abs|lVert|rVert|frac|sqrt|mathbb|mathcal|left|right|langle|"
           r"rangle|cdot|times|le|ge|leq|geq|hat|tilde|alpha|beta|sigma|log|exp|top|ip|osc|softmax)(?![A-Za-z])"]
#: Numbers as a program prints them (3.2e+08, 1.00e-03, 1000000.0), not as a reader writes them.
PROGRAMMER_FLOATS = [r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])", r"(?<![\w.,])\d{4,}\.0(?![\d.])",
                     r"(?<![\w.])\d{1,3}(?:,\d{3})+\.0(?![\d.])"]

FIRST_SCREEN = """
const f = document.querySelector('div.attnlab-findings');
return f ? {top: f.getBoundingClientRect().top + window.scrollY, height: window.innerHeight} : null;
"""

REPRS = [r"\{'[^']*':", r"array\(\[", r"dtype=", r"dtype: (float|int|object)", r"Name: \w+, dtype",
         r"chapter computed in", r"<IPython\.", r"<Figure size"]
CHAPTERS = sorted(p for p in PAGES if p.parent.name == "notebooks")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_page_reads_at_1280px(browser, page):
    """At 1280 px (every <details> opened): no table and no formula wider than the text column, every figure
    sharp for the width it is shown at (vector, or a bitmap at least twice its CSS width), no Python repr in the
    text outside the source of code cells, no snake_case table header, no table cell reading NaN."""
    import re

    browser.set_window_size(1280, 900)
    browser.get(page.as_uri())
    browser.set_script_timeout(30)
    browser.execute_async_script(MATHJAX_DONE)
    r = browser.execute_script(READING)
    assert 500 < r["width"] < 1280
    assert not r["wideTables"], f"tables wider than the text column: {r['wideTables'][:3]}"
    assert not r["wideMath"], f"formulas wider than the text column: {r['wideMath'][:3]}"
    blurry = [f for f in r["figures"] if not f["vector"] and f["natural"] < 2 * f["shown"]]
    assert not blurry, f"figures coarser than 2x their shown width: {blurry[:3]}"
    found = [(p, m.group(0)) for p in REPRS for m in [re.search(p, r["text"])] if m]
    assert not found, f"plumbing in the page text: {found[:3]}"
    assert not r["headers"], f"snake_case table headers: {r['headers'][:5]}"
    assert not r["nanCells"], f"{r['nanCells']} table cells read NaN"


def _hits(patterns, texts, width=40):
    import re

    out = []
    for t in texts:
        for p in patterns:
            for m in re.finditer(p, t):
                out.append(t[max(0, m.start() - width):m.end() + width].strip())
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_page_text_is_typeset_and_reads_as_numbers(browser, page):
    """With every <details> open, the text a reader sees (outside code) holds no TeX source (dollars, MathJax
    delimiters, macros: a header or a summary that was not typeset) and no programmer float (3.2e+08, 1000000.0)."""
    browser.set_window_size(1280, 900)
    browser.get(page.as_uri())
    browser.set_script_timeout(30)
    browser.execute_async_script(MATHJAX_DONE)
    r = browser.execute_script(READING)
    tex = _hits(RAW_TEX, r["shown"])
    assert not tex, f"{len(tex)} raw TeX in the rendered text: {tex[:3]}"
    floats = _hits(PROGRAMMER_FLOATS, r["shown"])
    assert not floats, f"{len(floats)} programmer floats in the text: {floats[:3]}"


FINDINGS_GEOMETRY = r"""
const f = document.querySelector('div.attnlab-findings');
if (!f) return null;
const edge = f.getBoundingClientRect().right;
const short = e => (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
const past = [...f.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > edge + 1).map(short);
const over = [...f.querySelectorAll('.attnlab-badge')].filter(b => {
  const cell = b.closest('td');
  return cell && b.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1;
}).map(short);
return {past, over};
"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_findings_box_holds_its_contents(browser, page, width):
    """No element of a chapter's findings box reaches past the box's right edge, and no verdict badge runs out of
    its cell over the summary beside it, at 1280 px and on a 390 px phone."""
    browser.set_window_size(width, 900)
    browser.get(page.as_uri())
    r = browser.execute_script(FINDINGS_GEOMETRY)
    assert r is not None, "no findings box"
    assert not r["past"], f"past the box's edge at {width} px: {r['past'][:3]}"
    assert not r["over"], f"badges printed over their neighbours at {width} px: {r['over'][:3]}"


def test_verdicts_look_different_without_colour(browser):
    """Every verdict's badge (verdicts page) and verdict box (chapters) differs from every other verdict's by line
    style or symbol, not by colour alone."""
    browser.set_window_size(1280, 900)
    looks = {}
    for page in [HTML / "book" / "verdicts.html", *CHAPTERS]:
        browser.get(page.as_uri())
        for verdict, look in browser.execute_script(r"""
            const out = [];
            document.querySelectorAll('.attnlab-badge').forEach(b => {
              const s = getComputedStyle(b), before = getComputedStyle(b, '::before');
              out.push([b.textContent.trim(), 'badge ' + s.borderLeftStyle + ' ' + before.content]); });
            document.querySelectorAll('div.admonition[id^="verdict-"]').forEach(d => {
              const s = getComputedStyle(d), t = getComputedStyle(d.querySelector('.admonition-title'), '::after');
              out.push([d.querySelector('.admonition-title strong').textContent.trim(),
                        'box ' + s.borderLeftStyle + ' ' + s.borderLeftWidth + ' ' + t.content]); });
            return out;"""):
            looks.setdefault(verdict, set()).add(look)
    shared = [(a, b, looks[a] & looks[b]) for a in looks for b in looks if a < b and looks[a] & looks[b]]
    assert len(looks) >= 4 and not shared, f"verdicts that look alike but for colour: {shared[:3]}"


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_opens_with_its_findings(browser, page):
    """Each chapter's findings box (attnlab.audit.present.findings) starts on the first screen at 1280 × 900 and
    lists every claim whose verdict box is on the page, with the same verdict."""
    browser.set_window_size(1280, 900)
    browser.get(page.as_uri())
    pos = browser.execute_script(FIRST_SCREEN)
    assert pos is not None, "no findings box"
    assert pos["top"] < pos["height"], f"the findings box starts at {pos['top']:.0f} px, below the first screen"
    box = browser.execute_script("""return [...document.querySelectorAll('div.attnlab-findings tr[data-claim]')]
        .map(r => [r.dataset.claim, r.dataset.verdict]);""")
    boxes = browser.execute_script("""return [...document.querySelectorAll('div.admonition[id^="verdict-"]')]
        .map(d => [d.id.slice(8), d.querySelector('.admonition-title strong').textContent.trim()]);""")
    assert sorted(box) == sorted(boxes), "the findings box and the verdict boxes disagree"


def test_landing_page_opens_with_the_findings(browser):
    """The landing page's first screen (1280 × 900) shows the findings by seed, every claim in it once."""
    from attnlab.audit.claims import CLAIMS

    browser.set_window_size(1280, 900)
    browser.get((HTML / "book" / "intro.html").as_uri())
    r = browser.execute_script("""const t = document.querySelector('table.attnlab-landing');
        return t ? {top: t.getBoundingClientRect().top + window.scrollY, bottom: t.getBoundingClientRect().bottom
                    + window.scrollY, height: window.innerHeight,
                    claims: [...t.querySelectorAll('a[href*="#claim-"]')].map(a => a.textContent)} : null;""")
    assert r is not None, "no findings table on the landing page"
    assert r["top"] < 0.6 * r["height"] and r["bottom"] < 1.25 * r["height"], r
    assert sorted(c.split(" ")[0] for c in r["claims"]) == sorted(c.id for c in CLAIMS)
