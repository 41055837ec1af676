"""The verdict vocabulary and the :class:`Verdict` record that every claim check returns."""
from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field

__all__ = ["VERDICTS", "Verdict"]

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
    "unverifiable-here": "caution", "pending": "seealso",
}


@dataclass
class Verdict:
    """A computed verdict: the claim, the verdict, why (one sentence with numbers), and the numbers.

    ``numbers`` holds the measured quantities the verdict was computed from and
    ``thresholds`` the stated cut-offs it compared them with; both are plain
    JSON-serialisable values.
    """

    claim: str
    verdict: str
    summary: str
    numbers: dict = field(default_factory=dict)
    thresholds: dict = field(default_factory=dict)
    scale: str | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {sorted(VERDICTS)}, got {self.verdict!r}")
        # plain JSON values (str keys, Python numbers), so a verdict read back from JSON compares equal
        self.numbers = json.loads(json.dumps(self.numbers, default=_plain))
        self.thresholds = json.loads(json.dumps(self.thresholds, default=_plain))

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def _repr_html_(self) -> str:
        kind = _ADMONITION[self.verdict]
        rows = "".join(
            f"<tr><td><code>{html.escape(str(k))}</code></td><td>{html.escape(_fmt(v))}</td></tr>"
            for k, v in {**self.numbers, **{f"threshold: {k}": v for k, v in self.thresholds.items()}}.items()
        )
        return (
            f'<div class="admonition {kind}"><p class="admonition-title">{html.escape(self.claim)}: '
            f"<strong>{html.escape(self.verdict)}</strong></p><p>{html.escape(self.summary)}</p>"
            f'<details><summary>measured numbers ({html.escape(str(self.scale))} scale)</summary>'
            f"<table>{rows}</table></details></div>"
        )


def _plain(v):
    if hasattr(v, "tolist"):  # NumPy scalars and arrays
        return v.tolist()
    raise TypeError(f"not JSON-serialisable: {type(v).__name__}")


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)
