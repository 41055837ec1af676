"""Each decision threshold of a check is one constant, used by the check and formatted into its texts.

The defect this guards against: a number compared in the decision code (``attain <= 1e-12``, or a named constant
``VIOLATION_TOL``) and typed again in the texts that state the rule ("… <= 1e-12"), so that the two drift apart when
one is edited. The rule, read from the source of each audit module in :data:`CONVERTED`: no number other than
:data:`TRIVIAL` that the decision code compares (a literal in a comparison or a keyword argument of a ``check_*`` or
``*verdict*`` function, or the value of a module-level constant named there) is typed in the literal text of the
rule: the strings of those functions and of the module-level constants they name (the ``RULES`` texts, imported
ones included). A text writes such a number by formatting the constant
(:func:`attnlab.audit.verdict.number_text`). Docstrings are not texts a verdict shows and are not read.
"""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

AUDIT = Path(__file__).resolve().parents[2] / "lib" / "attnlab" / "audit"

#: The audit modules whose checks follow the rule (the lead extends the list as chapters are converted).
CONVERTED = [
    "softmax_stability", "softmax_chain", "softmax_amplify", "pda", "pda_bound", "pda_cost", "pda_speed", "jl",
    "jl_scaling", "gradient", "gradient_precision", "rank_lower", "rank_lower_counts", "spectrum", "spectrum_kernel",
    "spectrum_sparse", "hardness", "hardness_bounds", "hardness_decoders", "hardness_lowrank", "hardness_parity",
    "any_temperature", "any_temperature_cost", "any_temperature_cancel", "any_temperature_fixed_d",
    "random_features", "random_features_bias", "random_features_linformer", "jl_dimension", "spectrum_rank",
    "sparse_patterns", "sparse_patterns_inputs", "sparse_patterns_runs", "real_heads", "decoder_heads",
    "rank_upper", "rank_upper_law", "rank_upper_worst", "rank_upper_robust", "rank_upper_coarse", "_rank_common",
    "changes", "verdicts_page",
]

#: Numbers too common in formulas and texts ("2ε", "1/2", "1 + tol") to be read as a typed threshold.
TRIVIAL = {0, 1, 2}

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:[eE]([-+]?\d+)|(%))?(?![\w^])")
_POWER = re.compile(r"10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def numbers_in(text: str) -> list[tuple[float, str]]:
    """The numbers a text states, with their spelling: 1e-12, 10⁻¹², 0.05, 17,850,625, 10% (read as 0.1); not the
    base of a power (the 10 of "β_max/10^k")."""
    out = [(10.0 ** int(m.group(1).translate(_PLAIN)), m.group()) for m in _POWER.finditer(text)]
    for m in _NUMBER.finditer(_POWER.sub(" ", text)):
        v = float(m.group(1).replace(",", ""))
        v *= 10.0 ** int(m.group(2)) if m.group(2) else 1
        out.append((v / 100 if m.group(3) else v, m.group()))
    return out


def _is_decision(name: str) -> bool:
    return name.startswith("check_") or "verdict" in name


def _literal_strings(node: ast.AST, skip: set[int]) -> list[ast.Constant]:
    """The string literals under ``node`` (an f-string's literal parts, not its format specs), less ``skip``."""
    specs = {id(x) for n in ast.walk(node) if isinstance(n, ast.FormattedValue) and n.format_spec
             for x in ast.walk(n.format_spec)}
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in specs and id(n) not in skip]


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _constants(tree: ast.Module) -> dict[str, ast.AST]:
    """Module-level assignments: name -> value node."""
    out = {}
    for st in tree.body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name) and st.value is not None:
                out[t.id] = st.value
    return out


def _numeric(node: ast.AST):
    """The value of a numeric literal or of a constant expression of them (``1 - 1e-3``), else None."""
    allowed = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)
    if not all(isinstance(n, allowed) for n in ast.walk(node)):
        return None
    try:
        v = eval(compile(ast.Expression(node), "<constant>", "eval"), {"__builtins__": {}})  # noqa: S307 - literals
    except (ArithmeticError, TypeError):
        return None
    return v if type(v) in (int, float) else None


def _rule_texts(f: ast.FunctionDef, consts: dict[str, ast.AST], skip: set[int]) -> list[tuple[int, str]]:
    """The texts of the module-level constants that ``f`` names: ``RULES["X"]`` is the entry X of a dict display,
    a bare name the whole value."""
    named, entries = [], set()
    for n in ast.walk(f):
        if (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and isinstance(consts.get(n.value.id),
                                                                                         ast.Dict)
                and isinstance(n.slice, ast.Constant)):
            entries.add(id(n.value))
            named += [v for k, v in zip(consts[n.value.id].keys, consts[n.value.id].values)
                      if isinstance(k, ast.Constant) and k.value == n.slice.value]
    for n in ast.walk(f):
        if isinstance(n, ast.Name) and id(n) not in entries and n.id in consts and _numeric(consts[n.id]) is None:
            named.append(consts[n.id])
    return [(s.lineno, s.value) for node in named for s in _literal_strings(node, skip)]


def typed_twice(source: str, imported: dict[str, dict[str, ast.AST]] | None = None) -> list[str]:
    """Numbers the decision code of ``source`` compares that its rule texts type again, one line each.

    ``imported`` maps a sibling module's name to its module-level constants, for names imported from it.
    """
    tree = ast.parse(source)
    skip = _docstrings(tree)
    consts = dict(_constants(tree))
    for st in tree.body:
        if isinstance(st, ast.ImportFrom) and st.level == 1 and imported and st.module in imported:
            for a in st.names:
                if a.name in imported[st.module]:
                    consts.setdefault(a.asname or a.name, imported[st.module][a.name])
    decisions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and _is_decision(f.name)}
    out = []
    for f in decisions.values():  # a check with the decision helpers it calls: their comparisons and their texts
        group = [f] + [decisions[n.func.id] for n in ast.walk(f) if isinstance(n, ast.Call)
                       and isinstance(n.func, ast.Name) and n.func.id in decisions and n.func.id != f.name]
        compared, texts = [], []
        for g in group:
            texts += [(s.lineno, s.value) for s in _literal_strings(g, skip)] + _rule_texts(g, consts, skip)
            for n in ast.walk(g):
                roots = [n] if isinstance(n, ast.Compare) else [n.value] if isinstance(n, ast.keyword) else []
                for k in (k for r in roots for k in ast.walk(r)):
                    if isinstance(k, ast.Constant) and type(k.value) in (int, float):
                        compared.append((f"{g.name}, line {k.lineno}", k.value))
                    elif isinstance(k, ast.Name) and k.id in consts and _numeric(consts[k.id]) is not None:
                        compared.append((f"{g.name}, line {k.lineno} ({k.id})", _numeric(consts[k.id])))
        stated = [(ln, v, s) for ln, t in texts for v, s in numbers_in(t)]
        for where, v in compared:
            if v in TRIVIAL:
                continue
            hits = sorted({f"{s!r} (line {ln})" for ln, w, s in stated if math.isclose(w, v, rel_tol=1e-9)})
            if hits:
                out.append(f"{where}: {v!r} is typed in the rule text as {', '.join(hits[:3])}")
    return sorted(set(out))


def _module_constants() -> dict[str, dict[str, ast.AST]]:
    return {p.stem: _constants(ast.parse(p.read_text())) for p in AUDIT.glob("*.py")}


@pytest.mark.parametrize("module", CONVERTED)
def test_thresholds_are_one_constant(module):
    found = typed_twice((AUDIT / f"{module}.py").read_text(), _module_constants())
    assert not found, f"{module}: format the constant into the text instead:\n" + "\n".join(found)


PLANTED = '''
TOL = 1e-9
RULES = {"X": "refuted if a ratio exceeds 1 + 1e-9"}


def check_x(data):
    attain = min(data)
    ok = attain <= 1e-12 and max(data) <= 1 + TOL
    return Verdict("X", "verified" if ok else "refuted", f"attained to {attain:.1e}",
                   thresholds=dict(attain="attained error <= 1e-12", rule=RULES["X"]))
'''

FIXED = '''
from .verdict import number_text

TOL = 1e-9
ATTAIN_TOL = 1e-12
RULES = {"X": f"refuted if a ratio exceeds 1 + {number_text(TOL)}"}


def check_x(data):
    attain = min(data)
    ok = attain <= ATTAIN_TOL and max(data) <= 1 + TOL
    return Verdict("X", "verified" if ok else "refuted", f"attained to {attain:.1e}",
                   thresholds=dict(attain=f"attained error <= {number_text(ATTAIN_TOL)}", rule=RULES["X"]))
'''


def test_a_planted_typed_threshold_is_found():
    found = typed_twice(PLANTED)
    assert len(found) == 2, found
    assert "check_x, line 8: 1e-12 is typed in the rule text as '1e-12' (line 10)" in found
    assert any("(TOL): 1e-09" in f and "'1e-9' (line 3)" in f for f in found), found
    assert typed_twice(FIXED) == []


def test_numbers_in_texts():
    text = "δ ≤ 1e-6, 10⁻¹², 17,850,625 = (2m+1)^d, 10% and 0.05; x1, β_2 and 10^k skipped"
    assert [v for v, _ in numbers_in(text)] == [1e-12, 1e-6, 17_850_625.0, 1.0, 0.1, 0.05]
