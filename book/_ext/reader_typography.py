"""Typography of the built pages that no chapter has to think about.

- **Figure alt text.** A figure's image gets as ``alt`` the first sentence of its caption, as plain text (math as
  its symbols), instead of the file path Sphinx writes by default (``{glue:figure}`` gives its image no alt).
- **No orphaned punctuation.** Inline math and the punctuation right after it (``$x$).``) are kept on one line
  (a ``span.attnlab-nowrap``; the stylesheet gives it ``white-space: nowrap``), so that no line starts with ")",
  "." or ",".
- **Glyphs every font has.** Emoji marks (myst-nb's execution table writes ✅ and ❌) become ✓ and ✗, which the
  book's text fonts draw (an emoji shows as an empty box without an emoji font).
- **ASCII scripts typeset.** ``L^1.98``, ``τ_W``, ``2^(r/2)`` in the text (a glued summary or rule) are set as
  superscripts and subscripts, as :func:`attnlab.audit.evidence.script_html` sets them in the verdict boxes.
- **MathJax wherever math is.** A page whose only math is in raw HTML (the verdicts page: the labels of its
  numbers tables, elements of class ``math`` written by :mod:`attnlab.audit.evidence`) loads MathJax as a page
  with math nodes does.
"""
import re

from docutils import nodes

_PUNCT = re.compile(r"^[.,;:)\]!?’”]+")
_TEX = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "eps": "ϵ", "eta": "η",
    "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "rho": "ρ",
    "Gamma": "Γ", "Sigma": "Σ", "ell": "ℓ", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "cdot": "·", "times": "×",
    "infty": "∞", "lVert": "‖", "rVert": "‖", "|": "‖", "sqrt": "√", "approx": "≈", "to": "→", "ll": "≪", "pm": "±",
    "top": "ᵀ", "sim": "∼", "in": "∈", "log": "log", "exp": "exp", "min": "min", "max": "max",
}


def plain_math(tex: str) -> str:
    """TeX as plain text for an alt attribute: symbols for the common commands, scripts written inline.

    >>> plain_math(r"\\sigma_k \\le C k^{-\\alpha}")
    'σk ≤ C k^−α'
    """
    text = re.sub(r"\\(?:operatorname|mathrm|text|mathbf|rm|left|right|big|Big)\b", "", tex)
    text = re.sub(r"\\([A-Za-z]+|\|)", lambda m: _TEX.get(m.group(1), m.group(1)), text)
    text = text.replace("_", "").replace("{", "").replace("}", "").replace("-", "−")
    return " ".join(text.split())


def _plain(node) -> str:
    out = []
    for n in node.findall(lambda x: isinstance(x, (nodes.Text, nodes.math))):
        if isinstance(n, nodes.math):
            out.append(plain_math(n.astext()))
        elif not isinstance(n.parent, nodes.math):
            out.append(str(n))
    return " ".join("".join(out).split())


def first_sentence(text: str, limit: int = 240) -> str:
    """The first sentence of ``text`` (up to a full stop before a capital, not after an abbreviation), at most
    ``limit`` characters."""
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)(?<!\bFig)(?<!\bch)[.!?](?=\s+[A-Z(\"“]|$)", text)
    sentence = text[:m.end()] if m else text
    return sentence if len(sentence) <= limit else sentence[:limit - 1].rsplit(" ", 1)[0] + "…"


def _alt_text(app, doctree, docname):
    for fig in doctree.findall(nodes.figure):
        caption = next(iter(fig.findall(nodes.caption)), None)
        if caption is None:
            continue
        alt = first_sentence(_plain(caption))
        if not alt:
            continue
        for img in fig.findall(nodes.image):
            current = img.get("alt", "")
            if not current or "/" in current or re.search(r"\.(svg|png|pdf|jpe?g)$", current):
                img["alt"] = alt


def _nowrap(app, doctree, docname):
    for math in list(doctree.findall(nodes.math)):
        parent = math.parent
        if parent is None or isinstance(parent, nodes.inline) and "attnlab-nowrap" in parent.get("classes", []):
            continue
        i = parent.index(math)
        if i + 1 >= len(parent.children):
            continue
        nxt = parent[i + 1]
        if not isinstance(nxt, nodes.Text):
            continue
        m = _PUNCT.match(str(nxt))
        if not m:
            continue
        rest = str(nxt)[m.end():]
        box = nodes.inline(classes=["attnlab-nowrap"])
        del parent[i]  # the math; the text after it is now at i
        box += math
        box += nodes.Text(m.group())
        if rest:
            parent[i] = nodes.Text(rest)
        else:
            del parent[i]
        parent.insert(i, box)


#: Emoji -> a text glyph of the same meaning.
GLYPHS = {"\u2705": "\u2713", "\u274c": "\u2717", "\u2714\ufe0f": "\u2713", "\u2714": "\u2713",
          "\u26a0\ufe0f": "\u26a0"}


def _glyphs(app, doctree, docname):
    for node in list(doctree.findall(nodes.Text)):
        text = str(node)
        if any(e in text for e in GLYPHS):
            for e, g in GLYPHS.items():
                text = text.replace(e, g)
            node.parent.replace(node, nodes.Text(text))


_SKIP = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.comment, nodes.doctest_block,
         nodes.raw, nodes.subscript, nodes.superscript, nodes.reference, nodes.target, nodes.image)


def _in_code(node) -> bool:
    p = node.parent
    while p is not None:
        if isinstance(p, _SKIP) or "cell_input" in p.get("classes", []):
            return True
        p = p.parent
    return False


def _scripts(app, doctree, docname):
    from attnlab.audit.evidence import _SCRIPT  # noqa: PLC0415

    for node in list(doctree.findall(nodes.Text)):
        text = str(node)
        if not ("^" in text or "_" in text) or node.parent is None or _in_code(node):
            continue
        matches = list(_SCRIPT.finditer(text))
        if not matches:
            continue
        parts, pos = [], 0
        for m in matches:
            arg = m.group("arg")
            if arg[0] in "({" and arg[-1] in ")}":
                arg = arg[1:-1]
            parts.append(nodes.Text(text[pos:m.start()] + m.group("base")))
            parts.append((nodes.superscript if m.group("op") == "^" else nodes.subscript)(arg, arg))
            pos = m.end()
        parts.append(nodes.Text(text[pos:]))
        parent = node.parent
        i = next(k for k, c in enumerate(parent.children) if c is node)  # by identity: Text compares by value
        del parent[i]
        for k, part in enumerate(p for p in parts if not (isinstance(p, nodes.Text) and not str(p))):
            parent.insert(i + k, part)


def _math_in_raw_html(app, pagename, templatename, context, doctree):
    body = context.get("body", "")
    if 'class="math notranslate' in body:
        domain = app.env.get_domain("math")
        domain.data.setdefault("has_equations", {})[pagename] = True


def setup(app):
    app.connect("doctree-resolved", _alt_text)
    app.connect("doctree-resolved", _nowrap)
    app.connect("doctree-resolved", _glyphs)
    app.connect("doctree-resolved", _scripts)
    app.connect("html-page-context", _math_in_raw_html, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
