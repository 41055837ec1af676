"""A common battery over the public functions of attnlab (as scikit-learn's estimator checks run over every estimator).

Every public name of attnlab (``attnlab.<module>.__all__`` over ``attnlab.MODULES``; ``attnlab.__all__`` is the
short index of these) is in :data:`TABLE` (a new public function fails :func:`test_every_public_name_is_in
_the_table` until it is added): either a recipe ``Case`` that calls it with small valid inputs, or ``None`` with the
reason it takes no arrays (a record, a scalar bound, a backend helper). Each recipe is then checked against the
library's input contract (the Conventions page): lists accepted; NaN and inf rejected with ``ValueError`` naming the
argument; a wrong number of dimensions rejected naming it; bool arrays rejected with ``TypeError`` naming it; integer
arrays computed as float64; float32 in, float32 out where the function documents it; for functions that draw random
numbers, the same seed gives the same result, ``np.random``'s global state is untouched, and ``rng`` accepts
everything SciPy's SPEC 7 accepts (None, int, SeedSequence, BitGenerator, Generator).
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field

import numpy as np
import pytest

import attnlab as al

PUBLIC = sorted({n for mod in al.MODULES for n in importlib.import_module(f"attnlab.{mod}").__all__})

R = np.random.default_rng(12345)
Q, K, V = (R.standard_normal((6, 3)) for _ in range(3))
A = al.softmax(Q @ K.T)                       # a 6 x 6 row-stochastic attention matrix
B = al.softmax(K @ Q.T)
P8 = np.eye(8)[R.permutation(8)]              # a permutation pattern
S = np.linalg.svd(A, compute_uv=False)
B01 = (R.random((4, 3)) < 0.5).astype(float)
W = al.draw_omega(8, 3, rng=0)
H = R.standard_normal((3, 5))
AB = (R.standard_normal((3, 2)), R.standard_normal((5, 2)), R.standard_normal(5))


@dataclass
class Case:
    """How to call a function: positional ``args`` and keyword ``kwargs``; ``arrays`` names the array arguments
    (positions or keywords) the battery perturbs, as ``{name: position or keyword}``."""
    args: tuple
    kwargs: dict = field(default_factory=dict)
    arrays: dict = field(default_factory=dict)
    ndim_checked: bool = True        # a wrong number of dimensions is an error (not for any-ndim functions)
    float32_kept: bool = False       # float32 in -> float32 out (documented)
    random: bool = False             # takes ``rng``
    same_for_lists: bool = True      # the result compares equal (False: it records timings)
    int_seed_is_a_key: bool = False  # an int rng is used as a key (chain_measure), not as default_rng(int)
    batched: bool = False            # leading batch axes are valid (exact attention): too FEW dimensions is the error


def _qkv(**kw):
    return dict(arrays={"Q": 0, "K": 1, "V": 2}, **kw)


NO_ARRAYS = "takes no arrays"
TABLE: dict[str, Case | str] = {
    # exact attention and logits
    "attention": Case((Q, K, V), **_qkv(float32_kept=True, batched=True)),
    "attention_blocked": Case((Q, K, V), dict(block=4), **_qkv(float32_kept=True, batched=True)),
    "attention_matrix": Case((Q, K), arrays={"Q": 0, "K": 1}, float32_kept=True, batched=True),
    "softmax": Case((Q,), arrays={"x": 0}, ndim_checked=False, float32_kept=True),
    "log_softmax": Case((Q,), arrays={"x": 0}, ndim_checked=False, float32_kept=True),
    "logsumexp": Case((Q,), arrays={"x": 0}, ndim_checked=False, float32_kept=True),
    # approximations
    "performer_attention": Case((Q, K, V, 16), dict(rng=1), **_qkv(float32_kept=True, random=True)),
    "linformer_attention": Case((Q, K, V, 3), dict(rng=1), **_qkv(float32_kept=True, random=True)),
    "favor_attention": Case((Q, K, V, W), arrays={"Q": 0, "K": 1, "V": 2, "omega": 3}, float32_kept=True),
    "favor_features": Case((Q, W), arrays={"X": 0, "omega": 1}, float32_kept=True),
    "favor_kernel_variance": Case((Q[0] / 3, K[0] / 3, 8), arrays={"q": 0, "k": 1}),
    "draw_omega": Case((8, 3), dict(rng=1), random=True),
    "pda_attention": Case((Q, K, V, 4, 3), dict(rng=1), **_qkv(float32_kept=True, random=True)),
    "pda_attention_parts": Case((Q, K, V, 4, 3), dict(rng=1), **_qkv(random=True)),  # factors: float64
    "gaussian_projection": Case((3, 4), dict(rng=1), random=True),
    "projected_logits": Case((Q, K, np.eye(3)), arrays={"Q": 0, "K": 1, "P": 2}, float32_kept=True),
    "randomized_svd_op": NO_ARRAYS + " (operators)",
    "attention_1d": Case((Q[:, 0], K[:, 0], V[:, 0], 1e-3), arrays={"q": 0, "k": 1, "v": 2}),
    "attention_1d_count": Case((Q[:, 0], K[:, 0], 1e-3), arrays={"q": 0, "k": 1}),
    "attention_1d_counted": Case((Q[:, 0], K[:, 0], V[:, 0], 1e-3), arrays={"q": 0, "k": 1, "v": 2}),
    "attention_gauss_1d": Case((Q[:, 0], K[:, 0], V[:, 0], 1e-3), arrays={"q": 0, "k": 1, "v": 2}),
    "attention_2d": Case((Q[:, :2], K[:, :2], V[:, 0], 1e-2), arrays={"q": 0, "k": 1, "v": 2}),
    "attention_1d_at": Case((Q[:, 0], K[:, 0], V[:, 0], 12.0, 30), arrays={"q": 0, "k": 1, "v": 2}),
    "grid_max_search": Case((al.BruteForceHalfspaceOracle(K, np.ones(6)), Q[0], 0, 64, 0.1), arrays={"q": 1}),
    "attention_halfspace": Case((Q[:, :2], K[:, :2], V[:, 0], 1e-2), arrays={"q": 0, "k": 1, "v": 2}),
    "attention_halfspace_counted": Case((Q[:, :2], K[:, :2], V[:, 0], 1e-2), arrays={"q": 0, "k": 1, "v": 2}),
    # rank certificates and spectra
    "row_l1_error": Case((A, B), arrays={"A": 0, "B": 1}),
    "row_norms": Case((V,), arrays={"X": 0}),
    "operator_error": Case((A, B, V), arrays={"A": 0, "B": 1, "V": 2}),
    "maximising_values": Case((A, B), arrays={"A": 0, "B": 1}),
    "rank_upper_certificate": Case((A, 0.5), arrays={"A": 0}, same_for_lists=False),
    "rank_lower_certificate": Case((A, 0.5), arrays={"A": 0}, same_for_lists=False),
    "svd_upper_certificates": Case((A, [0.5]), arrays={"A": 0}, same_for_lists=False),
    "singular_values": Case((A,), arrays={"A": 0}),
    "energy_count": Case((S,), arrays={"s": 0}),
    "tail_norm": Case((S, 2), arrays={"s": 0}),
    "envelope_constant": Case((S, 1.0), arrays={"s": 0}),
    "powerlaw_fit": Case((np.arange(1, 20.0) ** -1.5,), arrays={"s": 0}),
    "softmax_kernel": Case((Q, K), arrays={"X": 0, "Y": 1}),
    "visible_interaction_dim": Case((Q, K), arrays={"Q": 0, "K": 1}),
    "gibbs_matrix": Case(AB, arrays={"a": 0, "b": 1, "log_pi": 2}),
    "bridge_subspace": Case((Q, K, 2), arrays={"Q": 0, "K": 1}),
    "svd_bridge": Case((Q, K, 0.5, 2), arrays={"Q": 0, "K": 1}),
    "chebyshev_radius": Case((Q,), arrays={"X": 0}),
    # perturbation
    "oscillation": Case((H,), arrays={"h": 0}, ndim_checked=False),
    "tanh_bound": Case((H,), arrays={"h": 0}, ndim_checked=False),
    "lipschitz_bound": Case((H,), arrays={"h": 0}, ndim_checked=False),
    "l1_change": Case((H, H / 10), arrays={"x": 0, "h": 1}, ndim_checked=False),
    "l1_change_grad": Case((H, H / 10), arrays={"x": 0, "h": 1}),
    "chain_measure": Case((Q, K, V, 0.1), dict(beta=1.0, rng=1, block=4), **_qkv(random=True, int_seed_is_a_key=True)),
    # sparse patterns
    "pattern_profile": Case((P8,), arrays={"A": 0}),
    "log_target": Case((P8, 1.0, 0.5), arrays={"A": 0}),
    "element_ratio_error": Case((P8, P8), arrays={"M": 0, "A": 1}),
    "moment_curve_attention": Case((P8,), dict(eps1=1.0, eps2=0.5), arrays={"A": 0}),
    "resample_success": Case((P8, [4, 8]), dict(eps1=1.0, eps2=0.5, rng=1, draws=2), arrays={"A": 0}, random=True),
    "construct_sparse_attention": Case((P8, 8), dict(eps1=1.0, eps2=0.5, rng=1), arrays={"A": 0}, random=True),
    "construction_operation_count": Case((P8, 8, 2), arrays={"A": 0}),
    # hardness
    "sentinel_instance": Case((Q, K, np.ones(6)), arrays={"Q": 0, "K": 1, "log_c": 2}),
    "sentinel_attention": Case((Q, K, np.ones(6)), arrays={"Q": 0, "K": 1, "log_c": 2}),
    "rowsum_search": Case((Q / 3, K / 3, 0.1), arrays={"Q": 0, "K": 1}),
    "one_sided_factorisation": Case((Q, K), arrays={"Q": 0, "K": 1}),
    "temperature_absorbed": Case((Q, K, V, 2.0), **_qkv()),
    "maxip_instance": Case((B01, B01, 1.0), arrays={"A": 0, "Bv": 1}),
    "maxip_decode": Case((B01, B01, 1.0), arrays={"A": 0, "Bv": 1}),
    "ov_instance": Case((B01, B01), arrays={"A": 0, "Bv": 1}),
    "ov_decode": Case((B01, B01), arrays={"A": 0, "Bv": 1}),
    "parity_instance": Case((B01, B01, 0.8), arrays={"A": 0, "Bv": 1}),
    "parity_decode": Case((B01, B01, 0.8, 3), dict(rng=1), arrays={"A": 0, "Bv": 1}, random=True),
    "approximate_oracle": NO_ARRAYS + " (returns an oracle)",
    # JL and projections
    "sample_inner_product_error": Case((0.5, 8, 10), dict(rng=1), random=True),
    "sample_row_max_error": Case((K, Q[0], 8, 10), dict(rng=1), arrays={"K": 0, "q": 1}, random=True),
    # gradients
    "attention_loss": Case(tuple(R.standard_normal((3, 3)) for _ in range(3)) + (H[:, :3], H[:, :3], H[:, 2:]),
                           arrays={"A1": 0, "X": 3}),
    "attention_loss_grad": Case(tuple(R.standard_normal((3, 3)) for _ in range(3)) + (H[:, :3], H[:, :3], H[:, 2:]),
                                arrays={"A1": 0, "X": 3}),
    "attention_loss_grad_printed": Case(tuple(R.standard_normal((3, 3)) for _ in range(3))
                                        + (H[:, :3], H[:, :3], H[:, 2:]), arrays={"A1": 0, "X": 3}),
    "attention_loss_grad_via_attention": Case(tuple(R.standard_normal((3, 3)) for _ in range(3))
                                              + (H[:, :3], H[:, :3], H[:, 2:]), arrays={"A1": 0, "X": 3}),
    # rank instances (random draws, no array inputs)
    "sphere_points": Case((4, 3), dict(rng=1), random=True),
    "ball_points": Case((4, 3), dict(rng=1), random=True),
    "family_attention": Case(("sphere-3", 4, 5, 2.0), dict(rng=1), random=True),
    "planted_head": Case((4, 5, 3, 1), dict(rng=1), random=True),
    "noisy_head": Case((4, 5, 3, 1, 0.1), dict(rng=1), random=True),
    "sphere_packing": Case((3, 0.5, 10), dict(rng=1), random=True),
    "sphere_lower_count": Case((3, 10.0, 0.5, 10), dict(rng=1), random=True),
    "kron_error_bound": Case((np.eye(3), np.eye(3), 2), arrays={"A1": 0, "B1": 1}),
    "lower_certificate_margin": NO_ARRAYS + " besides A, with a certificate (tested in test_rank_certificates)",
    "lower_certificate_dominance": NO_ARRAYS + " besides B, with a certificate (tested in test_rank_certificates)",
    "bregman_gap": Case((K, np.zeros(6), 1.0, Q[0], Q[1]), arrays={"Kx": 0, "log_pi": 1, "x": 3, "y": 4}),
    "smallest_m": NO_ARRAYS + " (a predicate: tested in test_jl)",
    "sup_ratio": NO_ARRAYS + " (a function and a start point: tested in test_adversarial)",
    "lipschitz_ratio": Case((R.standard_normal((2, 6)),), arrays={"Z": 0}, ndim_checked=False),
    "tanh_ratio": Case((R.standard_normal((2, 6)),), arrays={"Z": 0}, ndim_checked=False),
    "lipschitz_ratio_grad": Case((R.standard_normal((2, 6)),), arrays={"Z": 0}, ndim_checked=False),
    "tanh_ratio_grad": Case((R.standard_normal((2, 6)),), arrays={"Z": 0}, ndim_checked=False),
    "chain_bounds": Case((0.1, 6, V), arrays={"V": 2}),
    # the real models: their own contract (token ids, configs), tested in test_decoder / test_encoder
    **{n: "a model loader or tokenizer (tested in test_decoder / test_encoder)" for n in
       ("bert_heads", "bert_tokenize", "llama_heads", "llama_tokenize", "llama_tokenizer", "load_bert",
        "load_llama_gguf", "random_bert", "random_llama")},
}
for _n in PUBLIC:  # records, constants and scalar functions: no array argument
    _o = getattr(al, _n)
    if _n not in TABLE and (isinstance(_o, type) or not callable(_o)):
        TABLE[_n] = "a record or constant"
SCALAR_ONLY = ("attention_1d_plan", "attention_halfspace_plan", "cap_area", "cap_radius", "cell_half_width",
               "harmonic_dimension", "inner_product_tail", "jl_bound_chernoff", "jl_bound_printed", "kron_factor",
               "large_deviation_rate", "lattice_1d", "lattice_beta", "lattice_gamma", "lattice_instance",
               "lattice_kron_upper", "lattice_lower_count", "lattice_materialised", "lattice_query_radius",
               "lattice_row_count", "lipschitz_instance", "m_required", "m_sup_row", "m_theorem", "m_union_exact",
               "packing_dimension_bound", "powerlaw_tail_bound", "sparse_dimension_bound", "sphere_cap_mass",
               "sphere_gv_lower", "sphere_harmonic_upper", "sup_row_tail", "tanh_sharp_instance", "two_key_instance",
               "worst_pair_tail", "default_backend", "default_xp", "get_array_module", "is_cupy", "make_rng",
               "to_numpy", "band_degree", "exp_poly_degree", "harmonic_coefficients", "cpu_count")
TABLE.update({n: NO_ARRAYS + " (scalars, or a backend helper)" for n in SCALAR_ONLY if n not in TABLE})
CASES = {n: c for n, c in TABLE.items() if isinstance(c, Case)}
WITH_ARRAYS = {n: c for n, c in CASES.items() if c.arrays}
RANDOM = {n: c for n, c in CASES.items() if c.random}


def _call(name, case, replace=None, kwargs=None):
    args, kw = list(case.args), dict(case.kwargs)
    for where, value in (replace or {}).items():
        if isinstance(where, int):
            args[where] = value
        else:
            kw[where] = value
    kw.update(kwargs or {})
    return getattr(al, name)(*args, **kw)


def _arrays_of(out):
    """The floating arrays in a result (an array, a tuple, a dict or a record)."""
    if isinstance(out, np.ndarray):
        return [out]
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _arrays_of(o)]
    if isinstance(out, dict):
        return [a for o in out.values() for a in _arrays_of(o)]
    if hasattr(out, "__dict__") and not isinstance(out, type):
        return [a for o in vars(out).values() for a in _arrays_of(o)]
    if hasattr(out, "_asdict"):
        return _arrays_of(out._asdict())
    return [np.asarray(out)] if isinstance(out, (float, np.floating)) else []


def _same(a, b):
    xa, xb = _arrays_of(a), _arrays_of(b)
    assert len(xa) == len(xb)
    for x, y in zip(xa, xb):
        np.testing.assert_array_equal(x, y)


def test_every_public_name_is_in_the_table():
    missing = sorted(set(PUBLIC) - set(TABLE))
    assert not missing, f"add these public names to TABLE in tests/test_api_battery.py: {missing}"
    assert not sorted(set(TABLE) - set(PUBLIC)), "TABLE names that are not public"


@pytest.mark.parametrize("name", sorted(CASES))
def test_valid_call_runs(name):
    _call(name, CASES[name])


@pytest.mark.parametrize("name", sorted(WITH_ARRAYS))
def test_lists_are_accepted_and_mean_the_same(name):
    case = WITH_ARRAYS[name]
    ref = _call(name, case)
    got = _call(name, case, {w: case.args[w].tolist() if isinstance(w, int) else case.kwargs[w].tolist()
                             for w in case.arrays.values()})
    if case.same_for_lists:
        _same(ref, got)


def _items(table):
    return [(n, a, w) for n, c in sorted(table.items()) for a, w in c.arrays.items()]


def _value(case, where):
    return case.args[where] if isinstance(where, int) else case.kwargs[where]


@pytest.mark.parametrize("name, arg, where", _items(WITH_ARRAYS))
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_are_rejected_naming_the_argument(name, arg, where, bad):
    case = WITH_ARRAYS[name]
    x = np.array(_value(case, where), dtype=float)
    x.flat[0] = bad
    with pytest.raises(ValueError, match=rf"\b{arg}\b"):
        _call(name, case, {where: x})


@pytest.mark.parametrize("name, arg, where", _items({n: c for n, c in WITH_ARRAYS.items() if c.ndim_checked}))
def test_wrong_ndim_is_rejected_naming_the_argument(name, arg, where):
    case = WITH_ARRAYS[name]
    x = np.asarray(_value(case, where))
    x = x[0] if case.batched else x[None]
    with pytest.raises(ValueError, match=rf"\b{arg}\b"):
        _call(name, case, {where: x})


@pytest.mark.parametrize("name, arg, where", _items(WITH_ARRAYS))
def test_bool_arrays_are_rejected_naming_the_argument(name, arg, where):
    case = WITH_ARRAYS[name]
    x = np.asarray(_value(case, where)) > 0
    with pytest.raises(TypeError, match=rf"\b{arg}\b"):
        _call(name, case, {where: x})


@pytest.mark.parametrize("name", sorted(n for n, c in WITH_ARRAYS.items() if c.float32_kept))
def test_float32_in_float32_out_and_float16_in_float32(name):
    case = WITH_ARRAYS[name]
    for dt, want in ((np.float32, np.float32), (np.float16, np.float32)):
        out = _call(name, case, {w: np.asarray(_value(case, w)).astype(dt) for w in case.arrays.values()})
        assert all(a.dtype == want for a in _arrays_of(out)), (dt, [a.dtype for a in _arrays_of(out)])


@pytest.mark.parametrize("name", sorted(n for n, c in WITH_ARRAYS.items() if c.float32_kept))
def test_integer_arrays_are_computed_in_float64(name):
    case = WITH_ARRAYS[name]
    ints = {w: np.round(np.asarray(_value(case, w)) * 3).astype(np.int64) for w in case.arrays.values()}
    out = _call(name, case, ints)
    ref = _call(name, case, {w: a.astype(np.float64) for w, a in ints.items()})
    _same(out, ref)


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_functions_follow_spec_7(name):
    case = RANDOM[name]
    sig = inspect.signature(getattr(al, name))
    assert sig.parameters["rng"].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters["rng"].default is None
    state = np.random.get_state()[1].copy()
    _same(_call(name, case, kwargs=dict(rng=7)), _call(name, case, kwargs=dict(rng=7)))
    ref = _call(name, case, kwargs=dict(rng=np.random.default_rng(7)))
    for rng in ((() if case.int_seed_is_a_key else (7,)) + (np.random.SeedSequence(7), np.random.PCG64(7))):
        _same(ref, _call(name, case, kwargs=dict(rng=rng)))
    _call(name, case, kwargs=dict(rng=None))
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    for bad in (1.5, "7", np.random.RandomState(7)):
        with pytest.raises(TypeError, match="rng"):
            _call(name, case, kwargs=dict(rng=bad))


def test_dtype_arguments_accept_every_spelling():
    ref = al.gaussian_projection(3, 4, rng=0, dtype="float32")
    for dt in (np.float32, np.dtype("float32")):
        _same(ref, al.gaussian_projection(3, 4, rng=0, dtype=dt))
    with pytest.raises(ValueError, match="dtype"):
        al.gaussian_projection(3, 4, rng=0, dtype=np.float16)
    with pytest.raises(TypeError, match="dtype"):
        al.gaussian_projection(3, 4, rng=0, dtype=3.5)


def test_old_positional_rng_warns_and_gives_the_same_draws():
    with pytest.warns(DeprecationWarning, match="passing 'rng' by position"):
        old = al.gaussian_projection(3, 4, np.random.default_rng(0))
    _same(old, al.gaussian_projection(3, 4, rng=np.random.default_rng(0)))
