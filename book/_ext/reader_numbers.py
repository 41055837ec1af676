"""Numbers as a reader writes them, everywhere on the built page: ``3.2e+08`` becomes ``3.2 × 10⁸`` and
``1000000.0`` becomes ``1,000,000`` (:func:`attnlab.audit.verdict.readable`).

Chapters glue values with format specs (``{glue:text}`x:.1e```) that Python writes in e-notation, and outputs carry
numbers a check formatted for a program. After Sphinx resolves a page, this extension rewrites the text a reader
sees: text nodes, and the text between the tags of raw HTML outputs; never code (literal blocks, inline literals,
``<pre>``, ``<code>``), math, scripts or styles. The Colab edition does the same when it fills its glued values
(:func:`attnlab.audit.edition.text`).
"""
import re

from docutils import nodes

from attnlab.audit.verdict import readable

_SKIP = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.comment, nodes.doctest_block)
_TAG = re.compile(r"(<[^>]*>)")
_OPAQUE = re.compile(r"<(pre|code|script|style|math|svg)\b", re.I)
_MATH = re.compile(r"(\\\(.*?\\\)|\\\[.*?\\\])", re.S)


def _html(text: str) -> str:
    out, depth = [], 0
    for part in _TAG.split(text):
        if part.startswith("<"):
            m = _OPAQUE.match(part)
            if m and not part.endswith("/>"):
                depth += 1
            elif depth and re.match(r"</(pre|code|script|style|math|svg)\b", part, re.I):
                depth -= 1
            out.append(part)
        elif depth:
            out.append(part)
        else:
            out.append("".join(p if _MATH.fullmatch(p) else readable(p) for p in _MATH.split(part)))
    return "".join(out)


def _in_code(node) -> bool:
    p = node.parent
    while p is not None:
        if isinstance(p, _SKIP) or "cell_input" in p.get("classes", []):
            return True
        p = p.parent
    return False


def _rewrite(app, doctree, docname):
    for node in list(doctree.findall(nodes.Text)):
        if _in_code(node):
            continue
        new = readable(str(node))
        if new != str(node):
            node.parent.replace(node, nodes.Text(new))
    for node in list(doctree.findall(nodes.raw)):
        if "html" not in node.get("format", "").split() or _in_code(node):
            continue
        text = node.astext()
        new = _html(text)
        if new != text:
            node.parent.replace(node, nodes.raw(new, new, format=node["format"]))


def setup(app):
    app.connect("doctree-resolved", _rewrite)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
