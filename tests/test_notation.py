"""One notation across the book (book/notation.md), enforced where a pattern can tell.

Each rule of :data:`RULES` names what it forbids, where it looks (``prose``: the Markdown text outside math and
code; ``math``: inside ``$…$``, ``$$…$$`` and ``\\begin…\\end`` blocks; ``all``: both) and a regular expression.
The test reads the Markdown cells of every chapter (notebooks/*.ipynb) and every page of book/*.md; code cells,
inline code and roles' targets are not text, but the TeX between dollars inside code (table headers, figure
labels: in the chapters' code cells and in lib/attnlab/audit/*.py) is math. To add a rule, append a :class:`Rule`.

``PENDING`` lists the pages a rule still finds offenders on while their chapter's text is being fixed; each entry
is a (rule, page) pair, and the test fails if a listed page is already clean (so that the list only shrinks).
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Rule:
    name: str
    why: str
    where: str  # "prose", "math" or "all" (the text with its math in place)
    pattern: str


RULES = (
    Rule("k90-prose", "the 90%-energy count is written $k_{90}$ (math), never k90 or k₉₀ in the text", "prose",
         r"(?<![\w-])k90(?![\w-])|k₉₀"),
    Rule("k90-math", "in math the 90%-energy count is k_{90} (not k_90, k_{\\rm 90})", "math",
         r"k_(?:90|\{\s*\\(?:rm|mathrm|text)\s*\{?\s*90)"),
    Rule("lunate-epsilon", "ε (the text's epsilon), not the lunate ϵ", "all", r"ϵ"),
    Rule("varepsilon", "one epsilon in the sources: \\varepsilon (what MathJax, matplotlib and Colab all read), not "
         "the macros \\eps or \\epsilon", "math", r"\\(?:eps|epsilon)(?![A-Za-z])"),
    Rule("seed-as-document", 'a source document is named by what it is ("the PDA draft"), not "seed 00N"; '
         '"random seed" is the random seed', "prose", r"\b[Ss]eeds? 00\d\b|\(seed 00\d"),
    Rule("temperature-b", "the temperature multiplier is t (the Notation page): scores multiplied by t, not b",
         "all", r"multiplier \$b\$|\$b\s*S\$|(?<![\w\\])b\s*(?:\\,)?\s*S\s*\)|logits \$b"),
    Rule("norm-by-hand", "norms are \\norm{…} or \\|…\\| (the same glyphs); never \\left\\lVert…\\right\\rVert", "math",
         r"\\left\s*\\lVert"),
)

#: (rule, page) pairs whose offenders are in a chapter's text, to be fixed there (then removed from this list).
PENDING: set = set()

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$|\\begin\{(\w+\*?)\}.+?\\end\{\1\}", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")


def _markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    text = path.read_text()
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)  # front matter
    return re.sub(r"```\{code-cell\}.*?```", "", text, flags=re.S)  # code cells are code


_CODE_MATH = re.compile(r"\$[^$\n\"']+?\$")


def _code_math(path: Path) -> str:
    """The TeX between dollars in a page's code (table headers, figure labels)."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    elif path.suffix == ".py":
        code = path.read_text()
    else:
        code = "\n".join(re.findall(r"```\{code-cell\}.*?```", path.read_text(), flags=re.S))
    code = code.replace("{{", "{").replace("}}", "}")  # f-strings
    return "\n".join(m.group(0) for m in _CODE_MATH.finditer(code))


def _parts(text: str, code_math: str = "") -> dict:
    text = _ROLE.sub(" ", text)
    math = [m.group(0) for m in _MATH.finditer(text)] + [code_math]
    prose = _CODE.sub(" ", _MATH.sub(" ", text))
    return {"prose": prose, "math": "\n".join(math), "all": _CODE.sub(" ", text) + "\n" + code_math}


PAGES = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("book/*.md"), *ROOT.glob("lib/attnlab/audit/*.py")])


def offenders(rule: Rule) -> dict:
    """Page -> the offending snippets of ``rule``."""
    out = {}
    for page in PAGES:
        text = _parts(_markdown(page) if page.suffix != ".py" else "", _code_math(page))[rule.where]
        hits = [text[max(0, m.start() - 30):m.end() + 30].replace("\n", " ")
                for m in re.finditer(rule.pattern, text)]
        if hits:
            out[str(page.relative_to(ROOT))] = hits
    return out


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_one_notation(rule):
    found = offenders(rule)
    new = {p: h[:3] for p, h in found.items() if (rule.name, p) not in PENDING}
    assert not new, f"{rule.why}: {new}"
    cleared = sorted(p for r, p in PENDING if r == rule.name and p not in found)
    assert not cleared, f"no longer offends {rule.name!r}: remove it from PENDING: {cleared}"


def test_rules_see_what_they_should():
    """Each rule finds its own example and leaves the book's correct spelling alone."""
    bad = {"k90-prose": "the k90 count", "k90-math": "$k_90$", "lunate-epsilon": "ϵ = 0.1",
           "varepsilon": "$\\eps$", "seed-as-document": "the PDA draft (seed 000)",
           "temperature-b": "the multiplier $b$", "norm-by-hand": "$\\left\\lVert x \\right\\rVert$"}
    good = ("$k_{90}$ of the PDA draft at random seed 0, $\\varepsilon = 0.1$, ε, $tS$, $\\norm{x}$ "
            "({glue:text}`k90-max`)")
    for rule in RULES:
        assert re.search(rule.pattern, _parts(bad[rule.name])[rule.where]), rule.name
        assert not re.search(rule.pattern, _parts(good)[rule.where]), rule.name


def test_notation_page_decides_the_contested_symbols():
    page = (ROOT / "book" / "notation.md").read_text()
    assert "multiplies the scores by $t$" in page and "$k_{90}$" in page and "random seed" in page
