"""The verdict vocabulary and the :class:`Verdict` record that every claim check returns.

A verdict shows itself in a notebook (and in the book, through myst-nb) as a box in the admonition colour of its
verdict (:meth:`Verdict._repr_html_`): the claim, the verdict, the summary as plain text (HTML-escaped, never
read as Markdown or TeX) and the measured numbers behind a click, formatted to 4 significant digits. The box carries
the HTML id ``verdict-<claim>`` so that the verdicts page can link to it.
"""
from __future__ import annotations

import html
import json
import math
import re
from dataclasses import asdict, dataclass, field

__all__ = ["VERDICTS", "VERDICT_STYLE", "Verdict", "badge_html", "headline_of", "numbers_html", "summary_html", "sci", "readable",
           "number_text"]

#: Verdicts of ``claims.md``, plus ``pending`` for claims no chapter checks yet.
VERDICTS = {
    "verified": "the statement holds in every check, with the margin measured",
    "loose": "it holds, but a sharper constant or exponent holds too",
    "corrected": "as printed it is wrong; a corrected form holds",
    "refuted": "a counterexample or measurement contradicts it",
    "unverifiable-here": "it needs something this book cannot run",
    "pending": "no chapter checks it yet",
}

_ADMONITION = {
    "verified": "tip", "loose": "note", "corrected": "warning", "refuted": "danger",
    "unverifiable-here": "important", "pending": "seealso",
}

#: How each verdict looks wherever it is shown (badges, verdict boxes, tables): a colour, a line style and a symbol,
#: so that no two verdicts differ by colour alone (the book's stylesheet draws the same from the class
#: ``attnlab-verdict-<verdict>``); colour-blind-safe hues, each distinct in grey print by its line style.
VERDICT_STYLE = {
    "verified": ("#1b7837", "solid", "✓"),
    "loose": ("#2166ac", "double", "≈"),
    "corrected": ("#e66101", "dashed", "✎"),
    "refuted": ("#b2182b", "solid", "✗"),
    "unverifiable-here": ("#5e3c99", "dotted", "?"),
    "pending": ("#757575", "dotted", "…"),
}


def badge_html(verdict: str) -> str:
    """A verdict as a badge: its word behind a bar in its colour and line style (the book's stylesheet puts the
    symbol of ``data-symbol`` before the word; the text of the badge is the verdict alone).

    Examples
    --------
    >>> from attnlab.audit.verdict import badge_html
    >>> badge_html("refuted")  # doctest: +NORMALIZE_WHITESPACE
    '<span class="attnlab-badge attnlab-verdict-refuted" data-symbol="✗" style="border-left: 4px solid #b2182b;
    padding-left: 0.35em">refuted</span>'
    """
    if verdict not in VERDICT_STYLE:
        raise ValueError(f"verdict must be one of {sorted(VERDICTS)}, got {verdict!r}")
    colour, line, symbol = VERDICT_STYLE[verdict]
    width = "5px" if line == "double" else "4px"
    return (f'<span class="attnlab-badge attnlab-verdict-{verdict}" data-symbol="{symbol}" style="border-left: '
            f'{width} {line} {colour}; padding-left: 0.35em">{html.escape(verdict)}</span>')


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci(mantissa: str, exponent: int) -> str:
    """``mantissa × 10^exponent`` as a reader writes it: ``sci("3.2", 8) == "3.2 × 10⁸"``, ``sci("1", -12) == "10⁻¹²"``.

    Examples
    --------
    >>> from attnlab.audit.verdict import sci
    >>> sci("3.2", 8), sci("1", -12), sci("-2.50", -3)
    ('3.2 × 10⁸', '10⁻¹²', '−2.50 × 10⁻³')
    """
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    mantissa = mantissa.replace("-", "−")
    if mantissa.lstrip("−") in ("1", "1.0"):
        return ("−" if mantissa.startswith("−") else "") + power
    return f"{mantissa} × {power}"


_E_NOTATION = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")
_WHOLE_FLOAT = re.compile(r"(?<![\w.,])(-?\d{4,})\.0(?![\d.])")
_WHOLE_FLOAT_SEP = re.compile(r"(?<![\w.,])(-?\d{1,3}(?:,\d{3})+)\.0(?![\d.])")


def readable(text: str) -> str:
    """``text`` with programmer floats written for a reader: ``3.2e+08`` as ``3.2 × 10⁸`` and ``1000000.0`` as
    ``1,000,000`` (what a check's summary holds after an f-string's ``:.1e`` or a float's ``str``).

    Examples
    --------
    >>> from attnlab.audit.verdict import readable
    >>> readable("err 3.2e+08 at n = 1000000.0 or 2,981.0, eps=1e-12 (x.1e5 kept)")
    'err 3.2 × 10⁸ at n = 1,000,000 or 2,981, eps=10⁻¹² (x.1e5 kept)'
    """
    text = _E_NOTATION.sub(lambda m: sci(m.group(1), int(m.group(2))), text)
    text = _WHOLE_FLOAT_SEP.sub(lambda m: m.group(1), text)
    return _WHOLE_FLOAT.sub(lambda m: f"{int(m.group(1)):,}", text)


def format_float(v: float, digits: int = 4) -> str:
    """A float for a reader: ``digits`` significant digits, ``m × 10ᵏ`` outside [10⁻³, 10⁵) (whole numbers below 10⁶
    keep their digits, with thousands separators), "NaN" and "∞" spelled out."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == int(v) and abs(v) < 1e6:
        return f"{int(v):,}"
    if v != 0 and not 1e-3 <= abs(v) < 1e5:
        m, e = f"{v:.{digits - 1}e}".split("e")
        return sci(f"{float(m):.{digits}g}", int(e))
    if abs(v) >= 10 ** (digits - 1):
        return f"{round(v):,}"
    return f"{v:.{digits}g}"


def number_text(v: float, *, percent: bool = False) -> str:
    """A constant of a check's rule as its texts write it, by the rule of the verdicts' numbers tables: an integer
    with thousands separators, a float by :func:`format_float` (``1e-12`` as 10⁻¹², ``0.05`` as 0.05), with the minus
    sign −; with ``percent``, ``v`` as a percentage (``0.01`` as 1%).

    A decision threshold is one named constant: the check compares with it and its ``thresholds`` and summary texts
    format it with this function, so that the two cannot drift apart (``tests/audit/test_thresholds.py``).

    Examples
    --------
    >>> from attnlab.audit.verdict import number_text
    >>> ATTAIN_TOL = 1e-12
    >>> f"attained error <= {number_text(ATTAIN_TOL)}", number_text(17_850_625), number_text(0.1, percent=True)
    ('attained error <= 10⁻¹²', '17,850,625', '10%')
    """
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"v must be an int or a float, got {type(v).__name__}")
    if percent:
        return number_text(round(100 * v, 10)) + "%"
    return (f"{v:,}" if isinstance(v, int) else format_float(v, 4)).replace("-", "−")


@dataclass
class Verdict:
    """A computed verdict: the claim, the verdict, why (one sentence with numbers), and the numbers.

    ``numbers`` holds the measured quantities the verdict was computed from and
    ``thresholds`` the stated cut-offs it compared them with; both are plain
    JSON-serialisable values. ``headline`` is the one-line version of ``summary`` shown on the verdicts page;
    a check may set it, otherwise it is derived from the summary by :func:`headline_of`.
    """

    claim: str
    verdict: str
    summary: str
    numbers: dict = field(default_factory=dict)
    thresholds: dict = field(default_factory=dict)
    scale: str | None = None
    headline: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {sorted(VERDICTS)}, got {self.verdict!r}")
        if not isinstance(self.summary, str):
            raise TypeError(f"summary must be a string, got {type(self.summary).__name__}")
        if not isinstance(self.headline, str):
            raise TypeError(f"headline must be a string, got {type(self.headline).__name__}")
        self.summary = readable(self.summary)
        self.headline = readable(self.headline.strip()) or headline_of(self.summary)
        # plain JSON values (str keys, Python numbers), so a verdict read back from JSON compares equal
        self.numbers = json.loads(json.dumps(self.numbers, default=_plain))
        self.thresholds = json.loads(json.dumps(self.thresholds, default=_plain))

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def _repr_html_(self) -> str:
        kind = _ADMONITION[self.verdict]
        return (
            f'<div class="admonition {kind} attnlab-verdict-{self.verdict}" '
            f'id="verdict-{html.escape(self.claim, quote=True)}">'
            f'<p class="admonition-title">{html.escape(self.claim)}: <strong>{html.escape(self.verdict)}</strong></p>'
            f"{summary_html(self.summary)}"
            f'<details><summary>measured numbers ({html.escape(str(self.scale))} scale)</summary>'
            f"{numbers_html(self.numbers, self.thresholds)}</details></div>"
        )


def _plain(v):
    if hasattr(v, "tolist"):  # NumPy scalars and arrays
        return v.tolist()
    raise TypeError(f"not JSON-serialisable: {type(v).__name__}")


#: Abbreviations after which a full stop does not end a sentence (the seeds' line numbers "l. 227" above all).
_ABBREVIATIONS = {"l", "ll", "e.g", "i.e", "cf", "vs", "al", "thm", "thms", "eq", "eqs", "fig", "sec", "resp", "no",
                  "approx", "ch", "cor", "def", "prop"}


def headline_of(summary: str, limit: int = 160) -> str:
    """The one-line version of a verdict's summary: its first sentence, shortened to a clause if it is long.

    The rule, applied to the text as it is (deterministic, no rewording): take the summary up to the first full
    stop, question or exclamation mark followed by a space (not after an abbreviation such as "l." or "e.g.");
    if that is longer than ``limit`` characters, keep the longest run of whole clauses (ending before "; ") that
    fits, else of parts ending before ", " or ": ", else of words, cutting only outside parentheses and brackets, and mark
    the cut with " …".

    Examples
    --------
    >>> from attnlab.audit.verdict import headline_of
    >>> headline_of("It holds (l. 227). The rest.")
    'It holds (l. 227).'
    >>> headline_of("a first clause here; and a second one", limit=25)
    'a first clause here …'
    """
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a string, got {type(summary).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 20:
        raise ValueError(f"limit must be an integer >= 20, got {limit!r}")
    text = " ".join(summary.split())
    for m in re.finditer(r"[.!?](?=\s)", text):
        word = re.search(r"([\w.]*)$", text[:m.start()]).group(1)
        if len(word) > 2:  # "Fig.", "e.g."; but "L." ends a sentence where "l." (a line number) does not
            word = word.casefold()
        if m.group() == "." and word in _ABBREVIATIONS:
            continue
        text = text[:m.end()]
        break
    if len(text) <= limit:
        return text
    depth, top = 0, []  # positions outside parentheses and brackets: a cut never leaves one open
    for i, ch in enumerate(text[:limit - 1]):
        depth += (ch in "([{⟨") - (ch in ")]}⟩")
        if depth <= 0:
            top.append(i)
    for seps in (("; ",), (", ", ": "), (" ",)):
        cuts = [i for i in top if text.startswith(seps, i)]
        if cuts:
            return text[:cuts[-1]].rstrip(" ,;:") + " …"
    return text[:limit - 2] + " …"


def summary_html(summary: str) -> str:
    """The summary as a paragraph of plain text: HTML-escaped, so that no underscore, asterisk or dollar sign is
    read as Markdown or TeX (the ``tex2jax_ignore`` class keeps MathJax off it), with its ASCII scripts typeset
    (``L^1.98`` as L<sup>1.98</sup>: :func:`attnlab.audit.evidence.script_html`)."""
    from .evidence import script_html  # noqa: PLC0415

    return f'<p class="attnlab-summary tex2jax_ignore mathjax_ignore">{script_html(summary)}</p>'


def numbers_html(numbers: dict, thresholds: dict | None = None) -> str:
    """The measured numbers and the thresholds as a small table of named quantities that fits the text column
    (:func:`attnlab.audit.evidence.numbers_table`): labels in words or symbols, numbers by the book's one rule
    (3.2 × 10⁸, thousands separators), each threshold beside the value it bounds, nested values as sub-tables."""
    from .evidence import numbers_table  # noqa: PLC0415

    return numbers_table(numbers, thresholds)


def _fmt_entry(v) -> str:
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
        return "\n".join(_fmt(x) for x in v)  # a list of records: one a line
    return _fmt(v)


def _fmt(v, nested: bool = False) -> str:
    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "–"}[v]
    if isinstance(v, float):
        return format_float(v, 4)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x, True) for x in v) + "]"
    if isinstance(v, dict):
        inner = ", ".join(f"{k}: {_fmt(x, True)}" for k, x in v.items())
        return f"({inner})" if nested else inner
    return str(v)
