"""A verdict's evidence as a reader reads it: the measured numbers as a small table of named quantities, and the
formula fragments of a summary typeset.

- :func:`numbers_table`: the ``numbers`` and ``thresholds`` of a :class:`~attnlab.audit.verdict.Verdict` as a table,
  one row per quantity: its label in words or symbols (:data:`LABELS`, else :func:`label_of` builds one from the
  key: never snake_case), the value by the book's one rule for numbers (3.2 × 10⁸, thousands separators), the
  threshold that bounds it beside it; nested mappings become sub-tables (keys that are values, under ``per_d`` or
  ``by_L``, read "d = 64"), lists of records become small tables, an estimate with its ``lo``/``hi`` reads
  "5.09 [2.72, 10.8]", never Python's dict or list syntax.
- :func:`script_html`: plain text with its ASCII scripts typeset (``L^1.98``, ``τ_W``, ``C_r = 2^(r/2)`` as
  superscripts and subscripts), ``<=`` as ≤; what the verdict boxes, the findings boxes and the verdicts page show.

A label is words with TeX between dollars (``"fitted constant $c_{\\rm PDA}$"``): in the book it is typeset by
MathJax (an element of class ``math``, which MathJax reads inside the boxes' ``tex2jax_ignore``); elsewhere (the
Colab edition, plain Jupyter, where HTML outputs are not typeset) the TeX is written as HTML (``c<sub>PDA</sub>``).
"""
from __future__ import annotations

import html
import re

__all__ = ["LABELS", "label_of", "label_html", "numbers_table", "script_html", "tex_html"]

#: Labels of the keys the checks use most (words, TeX between dollars). Add a key here when a verdict's table shows
#: it badly; :func:`label_of` builds the label of any other key.
LABELS = {
    # sizes
    "L": "length $L$", "d": "head dimension $d$", "d_v": "value dimension $d_v$", "m": "projection dimension $m$",
    "r": "rank $r$", "n": "$n$", "k": "$k$", "B": "entry bound $B$", "head_dim": "head dimension $d$",
    "heads": "heads", "cases": "cases", "draws": "draws", "trials": "trials", "runs": "runs", "points": "points",
    "instances": "instances", "configs": "configurations", "families": "families", "family": "family",
    "set": "input set", "geometry": "geometry", "degree": "degree", "g": "degree $g$", "seed": "random seed",
    # tolerances and parameters
    "eps": "tolerance $\\varepsilon$", "eps0": "$\\varepsilon_0$", "delta": "failure probability $\\delta$",
    "eta": "$\\eta$", "beta": "$\\beta$", "gamma": "$\\gamma$", "tau": "$\\tau$", "alpha": "$\\alpha$",
    "b": "temperature multiplier $t$", "t": "$t$", "tol": "tolerance", "target": "target",
    "beta_min": "smallest $\\beta$", "beta_max": "largest $\\beta$", "gamma_max": "largest $\\gamma$",
    "M": "$M$", "M_min": "smallest $M$", "M_max": "largest $M$", "ell": "$\\ell$", "ell_d": "$\\ell^d$",
    "ell_min": "smallest $\\ell$", "ell_star": "$\\ell^*$", "R_star": "$R^*$", "C0": "$C_0$", "S": "$S$",
    "Gamma": "$\\Gamma$", "Gamma_over_beta": "$\\Gamma/\\beta$", "Gamma_over_beta_min": "smallest $\\Gamma/\\beta$",
    "Gamma_over_beta_max": "largest $\\Gamma/\\beta$", "beta_over_gamma2": "$\\beta/\\gamma^2$",
    # fits
    "slope": "slope", "lo": "interval, lower end", "hi": "interval, upper end", "ci": "95% interval",
    "ci99": "99% interval", "r2": "$R^2$", "r2_pda": "$R^2$ of PDA's fit", "r2_exact": "$R^2$ of exact attention's fit",
    "theory": "theory", "elasticity": "elasticity", "elasticity_ci": "elasticity, interval",
    "exponent": "exponent", "exponent_limit": "limit of the exponent", "intercept": "intercept",
    "gamma_slope": "slope in $\\log\\gamma$", "beta_slope": "slope in $\\log\\beta$",
    "upper_slope": "upper certificate's slope", "lower_slope": "lower certificate's slope",
    "rel_dev": "relative deviation", "margin": "margin", "decades": "decades spanned",
    # spectra and ranks
    "k90": "$k_{90}$", "k90_limit": "limit of $k_{90}$", "rank": "rank", "r_lower": "rank, lower certificate",
    "r_upper": "rank, upper certificate", "distinct": "distinct rows", "share": "share", "share_min": "smallest share",
    "row_max": "largest entry of a row", "row_l1": "row-$\\ell_1$ error", "top_share": "share of the top eigenvalue",
    # errors and ratios
    "ratio": "ratio", "error": "error", "bias": "bias", "bias_se": "standard error of the bias",
    "bias_rms": "root-mean-square bias", "bias_z": "bias / standard error", "max_rel_err": "largest relative error",
    "rel_O": "relative error in $O$", "rel_V": "error relative to $\\lVert V\\rVert_F$", "gap": "gap",
    "fail": "failures", "failures": "failures", "bound": "bound", "total": "total", "count": "count",
    # costs
    "exact": "exact attention", "pda": "PDA", "impl": "PDA as implemented", "dense": "dense", "blocked": "blocked",
    "pda-stored": "PDA, stored", "pda-streamed": "PDA, streamed", "flops": "floating-point operations",
    "c_pda": "fitted constant $c_{\\rm PDA}$", "c_exact": "fitted constant $c_{\\rm exact}$", "model": "model",
    "example_fd_h1e4": "finite-difference example, $h = 10^{-4}$", "by_L": "by length $L$", "per_d": "by head dimension $d$", "rows": "rows", "expr": "expression",
    # verdict words and rules (thresholds)
    "rule": "decision rule", "verified": "verified if", "loose": "loose if", "corrected": "corrected if",
    "refuted": "refuted if", "unverifiable-here": "unverifiable here if", "combine": "how the parts combine",
    "combination": "how the parts combine", "verdict": "verdict",
}

#: Words for parts of a key (split at underscores) that have no label of their own.
_WORDS = {
    "max": "largest", "min": "smallest", "lo": "lower end", "hi": "upper end", "ci": "interval", "rel": "relative",
    "err": "error", "dev": "deviation", "abs": "absolute", "num": "number of", "std": "standard", "se": "standard error",
    "rms": "root mean square", "f64": "float64", "f32": "float32", "fd": "finite-difference", "sq": "squared",
    "pct": "percent", "frac": "fraction", "cert": "certificate", "avg": "mean", "diag": "diagonal",
    "sqrt": "√", "over": "/", "vs": "against", "l1": "$\\ell_1$", "ell": "$\\ell$", "pda": "PDA", "svd": "SVD",
    "rsvd": "randomized SVD", "alg1": "Algorithm 1", "dup": "duplicated", "approx": "approximate",
    "log10": "$\\log_{10}$", "log2": "$\\log_2$", "log": "log", "r2": "$R^2$", "k90": "$k_{90}$",
}

_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "lambda", "mu", "nu", "sigma", "tau", "phi",
          "psi", "omega", "rho", "kappa", "Gamma", "Delta", "Lambda", "Sigma", "Omega", "Phi", "Psi", "Theta"}

#: Keys of a mapping whose own keys are values of one quantity: ``per_d: {64: …}`` reads "d = 64".
_PER = re.compile(r"(?:^|_)(?:per|by)_(\w+)$")


def _symbol(token: str) -> str | None:
    if token in _GREEK:
        return "\\" + token
    if token == "eps":
        return "\\varepsilon"
    if re.fullmatch(r"[A-Za-z]", token):
        return token
    m = re.fullmatch(r"([A-Za-z]+?)(\d+)", token)  # k90 -> k_{90}, sigma2 -> \sigma_{2}
    if m and (len(m.group(1)) == 1 or m.group(1) in _GREEK):
        base = m.group(1) if len(m.group(1)) == 1 else "\\" + m.group(1)
        return f"{base}_{{{m.group(2)}}}"
    return None


def label_of(key) -> str:
    """The label of a key: :data:`LABELS` if it has one, else words and symbols built from the key (underscores
    split it; a Greek name or a single letter is a symbol; ``x_y`` with short ``y`` is a subscript; ``max``,
    ``min``, ``lo``, ``hi`` … are words). A key that is not an identifier (``"d=64 L=512"``, ``"(256, 16, 0.5)"``)
    is a value: ``=`` is spaced, nothing else changes. A programmer float in a key (``bytes_at_1e6``) reads 10⁶.

    Examples
    --------
    >>> from attnlab.audit.evidence import label_of
    >>> label_of("c_pda"), label_of("beta_max"), label_of("sigma2_over_sigma1"), label_of("d=64 L=512")
    ('fitted constant $c_{\\\\rm PDA}$', 'largest $\\\\beta$', '$\\\\sigma_{2}$ / $\\\\sigma_{1}$', '$d = 64$, $L = 512$')
    """
    from .verdict import readable  # noqa: PLC0415

    return readable(_label_of(key))


def _label_of(key) -> str:
    # the rules of label_of, before programmer floats are rewritten
    key = str(key)
    if key in LABELS:
        return LABELS[key]
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
        # a value used as a key: "d=64 L=512" -> "d = 64, L = 512"; "ball, d = 2, ε = 0.25" as it is
        parts = re.findall(r"([A-Za-zα-ωΑ-Ω]\w*)\s*=\s*([^\s,]+)", key)
        if parts and re.fullmatch(r"(?:\s*[A-Za-zα-ωΑ-Ω]\w*\s*=\s*[^\s,]+\s*,?)+", key):
            return ", ".join(f"${_symbol(k) or k} = {v}$" if _symbol(k) else f"{k} = {v}" for k, v in parts)
        return key.replace("_", " ")
    tokens = key.split("_")
    out = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        sym = _symbol(tok)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if sym is not None and nxt is not None and nxt not in _WORDS and len(nxt) <= 3 and not _symbol(nxt) \
                and "_" not in sym:
            out.append(f"${sym}_{{\\rm {nxt}}}$")  # d_v, B_T, C_r: a subscript
            i += 2
            continue
        if sym is not None and nxt is not None and _symbol(nxt) and len(nxt) == 1 and len(tok) == 1:
            out.append(f"${sym}_{nxt}$")
            i += 2
            continue
        if sym is not None:
            out.append(f"${sym}$")
        elif tok in _WORDS:
            out.append(_WORDS[tok])
        elif tok:
            out.append(tok)
        i += 1
    # "largest"/"smallest" read before what they qualify: beta_max -> largest β
    if len(out) >= 2 and out[-1] in ("largest", "smallest"):
        out = [out[-1]] + out[:-1]
    if len(out) >= 2 and out[-1] in ("lower end", "upper end", "interval"):
        out = out[:-1] + [f"({out[-1]})"]
    return " ".join(out)


# ------------------------------------------------------------------------------------------------ TeX to HTML
_TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "eta": "η", "theta": "θ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "sigma": "σ", "tau": "τ", "phi": "φ", "psi": "ψ", "omega": "ω", "rho": "ρ",
    "kappa": "κ", "Gamma": "Γ", "Delta": "Δ", "Lambda": "Λ", "Sigma": "Σ", "Omega": "Ω", "Phi": "Φ", "Psi": "Ψ",
    "Theta": "Θ", "ell": "ℓ", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "cdot": "·", "times": "×", "infty": "∞",
    "lVert": "‖", "rVert": "‖", "|": "‖", "lvert": "|", "rvert": "|", "log": "log", "exp": "exp", "min": "min",
    "max": "max", "sqrt": "√", "approx": "≈", "ll": "≪", "gg": "≫", "to": "→", "pm": "±", ",": " ", ";": " ",
}


def tex_html(tex: str) -> str:
    """Simple TeX (symbols, ``_``/``^`` scripts, ``\\rm``) as HTML for a renderer without MathJax:
    ``c_{\\rm PDA}`` → ``<i>c</i><sub>PDA</sub>``."""
    out, i, n = [], 0, len(tex)

    def group(j):
        if j < n and tex[j] == "{":
            depth, k = 1, j + 1
            while k < n and depth:
                depth += {"{": 1, "}": -1}.get(tex[k], 0)
                k += 1
            return tex[j + 1:k - 1], k
        if j < n and tex[j] == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[j:])
            return m.group(0), j + len(m.group(0))
        return tex[j:j + 1], j + 1

    while i < n:
        c = tex[i]
        if c in "_^":
            arg, i = group(i + 1)
            tag = "sub" if c == "_" else "sup"
            out.append(f"<{tag}>{tex_html(arg)}</{tag}>")
        elif c == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            name = m.group(1)
            i += len(m.group(0))
            if name in ("rm", "mathrm", "text", "operatorname", "mathbf", "left", "right", "big", "Big"):
                continue
            sym = _TEX_SYMBOLS.get(name, name)
            out.append(f" {sym} " if sym in "≤≥×≈≪≫→±" and len(sym) == 1 else html.escape(sym))
        elif c in "=<>+":
            out.append(f" {html.escape(c)} ")
            i += 1
        elif c in "{} ":
            i += 1
        elif c.isalpha() and c.isascii():
            m = re.match(r"[A-Za-z]+", tex[i:])
            word = m.group(0)
            out.append(f"<i>{word}</i>" if len(word) == 1 else html.escape(word))
            i += len(word)
        else:
            out.append(html.escape(c.replace("-", "−")))
            i += 1
    return "".join(out)


_DOLLARS = re.compile(r"\$([^$]+)\$")


def label_html(text: str, book: bool) -> str:
    """Words with TeX between dollars as HTML: the TeX as inline math for the book's MathJax, or (``book`` false)
    as HTML (:func:`tex_html`); the words escaped, their ASCII scripts typeset (a key "2^r" reads 2<sup>r</sup>)."""
    out, pos = [], 0
    for m in _DOLLARS.finditer(text):
        out.append(script_html(text[pos:m.start()]))
        if book:
            out.append(f'<span class="math notranslate nohighlight">\\({html.escape(m.group(1))}\\)</span>')
        else:
            out.append(f'<span class="attnlab-tex">{tex_html(m.group(1))}</span>')
        pos = m.end()
    out.append(script_html(text[pos:]))
    return "".join(out)


# ------------------------------------------------------------------------------------------------ summaries
_OPERATORS = (("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("<<", "≪"), (">>", "≫"), ("->", "→"))
#: A script: a one-symbol base (a letter not inside a word, a digit run, a closing bracket, ‖) then ^ or _ and its
#: argument, bracketed or a run of letters, digits, dots and commas.
_SCRIPT = re.compile(
    r"(?P<base>(?<![A-Za-zÀ-ÖØ-öø-ÿα-ωΑ-Ωℓ])[A-Za-zÀ-ÖØ-öø-ÿα-ωΑ-Ωℓ](?:[′']|\u0303)?|\d+|[)\]‖|])"
    r"(?P<op>[\^_])"
    r"(?P<arg>\((?:[^()]|\([^()]*\))*\)|\{[^{}]*\}|[−\-]?(?:(?![²³¹⁰⁴⁵⁶⁷⁸⁹ᵀ])[^\W_]|∞)+(?:[.,](?:(?![²³¹⁰⁴⁵⁶⁷⁸⁹ᵀ])[^\W_])+)*)")


def script_html(text: str) -> str:
    """Plain text as HTML, HTML-escaped, with its ASCII scripts typeset and its ASCII operators as symbols:
    ``L^1.98`` → L<sup>1.98</sup>, ``C_r = 2^(r/2)`` → C<sub>r</sub> = 2<sup>r/2</sup>, ``<=`` → ≤.

    A word with an underscore inside it (``attention_1d``, a function's name) is left as it is.

    Examples
    --------
    >>> from attnlab.audit.evidence import script_html
    >>> script_html("C_r = 2^(r/2), ‖A − Ã‖_F <= 10^88,946 for attention_1d.")
    'C<sub>r</sub> = 2<sup>r/2</sup>, ‖A − Ã‖<sub>F</sub> ≤ 10<sup>88,946</sup> for attention_1d.'
    """
    for a, b in _OPERATORS:
        text = text.replace(a, b)
    out, pos = [], 0
    for m in _SCRIPT.finditer(text):
        arg = m.group("arg")
        if arg[0] in "({" and arg[-1] in ")}":
            arg = arg[1:-1]
        tag = "sup" if m.group("op") == "^" else "sub"
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'{html.escape(m.group("base"))}<{tag}>{html.escape(arg)}</{tag}>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


# ------------------------------------------------------------------------------------------------ numbers
def _number(v) -> str:
    from .verdict import number_text  # noqa: PLC0415

    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "–"}[v]
    if isinstance(v, (int, float)):
        return number_text(v)
    return None


_EXPR = re.compile(r"^[\w\s*+\-/().]+$")


def _string(v: str, book: bool) -> str:
    """A string value: a SymPy-readable formula (``L**2 + L*d*m``) typeset, other text with its scripts."""
    s = v.strip()
    if _EXPR.match(s) and re.search(r"\*|/|\*\*", s) and not re.search(r"[A-Za-z]{4,}", s.replace("sqrt", "")
                                                                          .replace("log", "").replace("delta", "")
                                                                          .replace("eta", "").replace("epsilon", "")):
        try:
            import sympy  # noqa: PLC0415

            tex = sympy.latex(sympy.sympify(s, evaluate=False))
            return label_html(f"${tex}$", book)
        except Exception:  # noqa: BLE001 - not a formula after all: shown as text
            pass
    from .verdict import readable  # noqa: PLC0415

    return script_html(readable(s.replace("**", "^")))


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _value(v, book: bool, key: str = "", depth: int = 0) -> str:
    """A value as HTML: numbers by the one rule, lists comma-separated, mappings and records as sub-tables."""
    num = _number(v) if not isinstance(v, str) else None
    if num is not None:
        return num
    if isinstance(v, str):
        return _string(v, book)
    if isinstance(v, (list, tuple)):
        if not v:
            return "none"
        if all(isinstance(x, dict) for x in v):
            return _records(v, book, depth)
        items = [_value(x, book, depth=depth + 1) if not isinstance(x, (list, tuple))
                 else "(" + ", ".join(_value(y, book, depth=depth + 1) for y in x) + ")" for x in v]
        if len(items) > 12:
            items = items[:10] + [f"… ({len(v):,} values)"]
        text = ", ".join(items)
        if len(v) == 2 and re.search(r"(^|_)(ci\d*|interval|range|bracket|bounds?)$", key):
            return f"[{text}]"
        return text
    if isinstance(v, dict):
        return _mapping(v, book, key, depth)
    return html.escape(str(v))


def _merge_intervals(d: dict) -> list[tuple[str, object, object]]:
    """(key, value, interval) triples: ``x`` with ``x_lo``/``x_hi`` (or ``slope`` with ``lo``/``hi``) become one."""
    keys = list(d)
    used, out = set(), []
    for k in keys:
        if k in used:
            continue
        lo_hi = None
        for lo, hi in ((f"{k}_lo", f"{k}_hi"), (f"lo_{k}", f"hi_{k}")):
            if lo in d and hi in d:
                lo_hi = (lo, hi)
        if lo_hi is None and k not in ("lo", "hi") and "lo" in d and "hi" in d and "lo" not in used \
                and isinstance(d[k], (int, float)) and not isinstance(d[k], bool) \
                and keys.index(k) == min(keys.index(x) for x in keys if x not in ("lo", "hi")):
            lo_hi = ("lo", "hi")
        if lo_hi is not None and all(isinstance(d[x], (int, float)) and not isinstance(d[x], bool) for x in lo_hi):
            used.update(lo_hi)
            out.append((k, d[k], (d[lo_hi[0]], d[lo_hi[1]])))
        else:
            out.append((k, d[k], None))
        used.add(k)
    return out


def _with_interval(v, interval, book, key, depth) -> str:
    text = _value(v, book, key, depth)
    if interval is not None:
        text += f" [{_number(interval[0])}, {_number(interval[1])}]"
    return text


def _child_label(parent: str, key) -> str:
    m = _PER.match(parent or "")
    if m and not re.fullmatch(r"[A-Za-z_]\w*", str(key)):
        sym = _symbol(m.group(1))
        return f"${sym} = {key}$" if sym else f"{m.group(1)} = {key}"
    return label_of(key)


def _mapping(d: dict, book: bool, parent: str, depth: int) -> str:
    triples = _merge_intervals(d)
    if depth >= 1 or all(_is_scalar(v) for _, v, _ in triples) and len(triples) <= 4:
        # inline: "ratio 5.09 [2.72, 10.8]; model 4.5"
        def sep(label):
            return ": " if "=" in label else " "

        # "\u2060" (word joiner): no line starts with the ";" after a typeset value
        return "\u2060; ".join(f"{label_html(lab, book)}{sep(lab)}{_with_interval(v, iv, book, str(k), depth + 1)}"
                         for k, v, iv in triples for lab in [_child_label(parent, k)])
    rows = "".join(f"<tr><td>{label_html(_child_label(parent, k), book)}</td>"
                   f"<td>{_with_interval(v, iv, book, str(k), depth + 1)}</td></tr>" for k, v, iv in triples)
    return f'<table class="attnlab-numbers-sub"><tbody>{rows}</tbody></table>'


def _records(recs: list, book: bool, depth: int) -> str:
    cols = []
    for r in recs:
        cols += [k for k in r if k not in cols]
    if depth >= 1 or len(cols) > 9:
        return "<br>".join(_mapping(r, book, "", depth + 1) for r in recs)
    head = "".join(f"<th>{label_html(label_of(c), book)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_value(r.get(c), book, c, depth + 1) if c in r else '–'}</td>"
                                    for c in cols) + "</tr>" for r in recs)
    return f'<table class="attnlab-numbers-sub"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


_BOUND_AFFIXES = ("_max", "_min", "_limit", "_tol", "_threshold", "_cut", "_bound", "_needed", "_allowed")


def _bound_of(tkey: str, numbers: dict) -> str | None:
    """The key of ``numbers`` that the threshold ``tkey`` bounds, if one does."""
    if tkey in numbers:
        return tkey
    for a in _BOUND_AFFIXES:
        if tkey.endswith(a) and tkey[: -len(a)] in numbers:
            return tkey[: -len(a)]
    for p in ("max_", "min_"):
        if tkey.startswith(p) and tkey[len(p):] in numbers:
            return tkey[len(p):]
    return None


def numbers_table(numbers: dict, thresholds: dict | None = None, *, book: bool | None = None) -> str:
    """The measured numbers and the thresholds of a verdict as an HTML table of named quantities.

    Columns: the quantity (its label), what was measured, and the threshold that bounds it where one does; the
    thresholds that bound no single quantity (the decision rule, the verdicts' conditions) follow as rows of their
    own. Everything is HTML-escaped; nothing is shown as a Python key, dict or list.
    """
    if book is None:
        from .edition import in_book  # noqa: PLC0415

        book = in_book()
    numbers = dict(numbers or {})
    thresholds = dict(thresholds or {})
    beside, alone = {}, {}
    for k, v in thresholds.items():
        target = _bound_of(str(k), numbers) if _is_scalar(v) and not isinstance(v, str) else None
        if target is not None and target not in beside:
            beside[target] = (k, v)
        else:
            alone[k] = v
    has_bound = bool(beside)
    rows = []
    for k, v, iv in _merge_intervals(numbers):
        bound = ""
        if has_bound:
            if k in beside:
                tk, tv = beside[k]
                what = "" if tk == k else f"{label_html(label_of(tk), book)}: "
                bound = f"<td>{what}{_value(tv, book, str(tk))}</td>"
            else:
                bound = "<td></td>"
        rows.append(f'<tr><th scope="row">{label_html(label_of(k), book)}</th>'
                    f"<td>{_with_interval(v, iv, book, str(k), 0)}</td>{bound}</tr>")
    span = 2 if has_bound else 1
    if alone:
        rows.append(f'<tr class="attnlab-numbers-section"><th colspan="{span + 1}">stated before the run</th></tr>')
        for k, v in alone.items():
            rows.append(f'<tr><th scope="row">{label_html(label_of(k), book)}</th>'
                        f'<td colspan="{span}">{_value(v, book, str(k))}</td></tr>')
    head = ("<thead><tr><th>quantity</th><th>measured</th>" + ("<th>threshold</th>" if has_bound else "")
            + "</tr></thead>")
    cols = ('<colgroup><col style="width: 30%"><col>' + ('<col style="width: 22%">' if has_bound else "")
            + "</colgroup>")
    return (f'<table class="attnlab-numbers" style="table-layout: fixed; width: 100%; overflow-wrap: break-word">'
            f"{cols}{head}<tbody>{''.join(rows)}</tbody></table>")
