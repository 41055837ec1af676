"""The attention-unit gradient (library, claim AT-grad): the corrected identity, the printed form, the d + 2
attention calls, array-API genericity (array_api_strict against NumPy), huge logits and bad input."""
import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlab
from attnlab.theory import gradient as gr
from attnlab.audit.gradient import central_difference_grad, random_instance
from conftest import gpu

FUNCS = [gr.attention_loss, gr.attention_loss_grad, gr.attention_loss_grad_printed,
         gr.attention_loss_grad_via_attention]
GRADS = FUNCS[1:]
#: the seed's worked example (§2.9), n = 2, d = 1
EX = dict(A1=np.array([[1.0], [2.0]]), A2=np.array([[-1.0], [1.0]]), A3=np.array([[1.0], [3.0]]),
          X=np.array([[0.4]]), Y=np.array([[1.0]]), E=np.array([[0.2], [-0.1]]))


def _inst(n, d, scale, seed):
    return random_instance(n, d, scale, np.random.default_rng(seed))


def _blocked(**kw):
    return gr.attention_loss_grad_via_attention(**kw, blocked=True, block=3)


def test_public_names():
    for f in FUNCS:
        assert getattr(attnlab, f.__name__) is f
    assert set(gr.__all__) == {f.__name__ for f in FUNCS}


def test_worked_example_values():
    assert float(gr.attention_loss_grad(**EX)[0, 0]) == pytest.approx(4.955746964223348, rel=1e-14)
    assert float(gr.attention_loss_grad_printed(**EX)[0, 0]) == pytest.approx(-0.45201333971841007, rel=1e-12)
    assert gr.attention_loss(**EX) == pytest.approx(6.196038, abs=1e-6)
    lists = {k: v.tolist() for k, v in EX.items()}                       # nested lists are read with NumPy
    assert np.array_equal(gr.attention_loss_grad(**lists), gr.attention_loss_grad(**EX))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 4), scale=st.sampled_from([0.1, 1.0, 5.0]), seed=st.integers(0, 10**6))
def test_property_corrected_gradient_matches_central_differences(n, d, scale, seed):
    inst = _inst(n, d, scale, seed)
    g = gr.attention_loss_grad(**inst)
    h = 1e-5 * max(1.0, float(np.abs(inst["X"]).max()))
    fd = central_difference_grad(**inst, h=h)
    assert np.linalg.norm(g - fd) <= 1e-5 * max(np.linalg.norm(g), 1.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), d=st.integers(1, 6), scale=st.sampled_from([0.1, 1.0, 30.0]), seed=st.integers(0, 10**6))
def test_property_d_plus_2_calls_equal_direct(n, d, scale, seed):
    inst = _inst(n, d, scale, seed)
    g = gr.attention_loss_grad(**inst)
    calls = []
    ga = gr.attention_loss_grad_via_attention(**inst)
    gc = gr.attention_loss_grad_via_attention(**inst, oracle=lambda Q, K, V: calls.append(1) or attnlab.attention(
        Q, K, V, beta=1.0))
    gb = gr.attention_loss_grad_via_attention(**inst, blocked=True, block=7)
    assert len(calls) == d + 2 and np.array_equal(gc, ga)
    tol = 1e-10 * max(np.abs(g).max(), 1.0)
    assert np.abs(ga - g).max() <= tol and np.abs(gb - g).max() <= tol


def test_printed_form_is_not_the_gradient_but_agrees_when_n_is_1():
    inst = _inst(5, 3, 1.0, 1)
    assert np.linalg.norm(gr.attention_loss_grad_printed(**inst) - gr.attention_loss_grad(**inst)) > 1e-3
    one = _inst(1, 2, 1.0, 2)   # n = 1: F = 1, both forms are 0
    assert np.allclose(gr.attention_loss_grad_printed(**one), 0) and np.allclose(gr.attention_loss_grad(**one), 0)


# --------------------------------------------------------------------------- array API: array_api_strict vs NumPy
@pytest.mark.parametrize("f", FUNCS + [_blocked], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_array_api_strict_equals_numpy(f, dtype):
    inst = {k: v.astype(dtype) for k, v in _inst(9, 3, 2.0, 5).items()}
    ref = f(**inst)
    out = f(**{k: xs.asarray(v) for k, v in inst.items()})
    if f is gr.attention_loss:
        assert isinstance(out, float) and out == pytest.approx(ref, rel=1e-5 if dtype == "float32" else 1e-12)
        return
    assert type(out).__module__.startswith("array_api_strict") and out.dtype == getattr(xs, dtype)
    tol = 1e-4 if dtype == "float32" else 1e-12
    assert np.allclose(np.asarray(out), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_array_api_strict_blocked_equals_dense_and_counts_calls():
    inst = {k: xs.asarray(v) for k, v in _inst(10, 2, 1.0, 6).items()}
    g = gr.attention_loss_grad_via_attention(**inst, blocked=True, block=4)
    calls = []
    gr.attention_loss_grad_via_attention(**inst, oracle=lambda Q, K, V: calls.append(1) or attnlab.attention(
        Q, K, V, beta=1.0))
    assert len(calls) == 4
    assert np.allclose(np.asarray(g), np.asarray(gr.attention_loss_grad(**inst)), rtol=1e-12, atol=1e-12)


@gpu
@pytest.mark.parametrize("f", FUNCS + [_blocked], ids=lambda f: f.__name__)
def test_cupy_equals_numpy(f):
    import cupy

    inst = _inst(33, 3, 2.0, 11)
    ref = f(**inst)
    out = f(**{k: cupy.asarray(v) for k, v in inst.items()})
    if f is gr.attention_loss:
        assert out == pytest.approx(ref, rel=1e-12)
        return
    assert isinstance(out, cupy.ndarray)
    assert np.allclose(cupy.asnumpy(out), ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("dtype, out", [("float16", "float32"), ("int64", "float64"), ("float32", "float32")])
def test_dtypes(dtype, out):
    inst = {k: (np.round(v * 2) if dtype == "int64" else v).astype(dtype) for k, v in _inst(6, 2, 1.0, 7).items()}
    for f in GRADS:
        assert f(**inst).dtype == np.dtype(out)
    mixed = {**_inst(6, 2, 1.0, 7), "X": inst["X"]}
    assert gr.attention_loss_grad(**mixed).dtype == np.float64


# --------------------------------------------------------------------------- huge inputs: right answer or ValueError
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_huge_logits_are_finite(dtype):
    inst = _inst(16, 2, 1.0, 3)
    inst["X"] = inst["X"] * 1e4
    inst = {k: v.astype(dtype) for k, v in inst.items()}
    for f in GRADS + [_blocked]:
        assert np.isfinite(f(**inst)).all()
    assert np.isfinite(gr.attention_loss(**inst))
    # every row is one-hot: the gradient is ~0, the d + 2 calls reach it up to cancellation (~1e3·eps absolute)
    atol = 1e3 * np.finfo(dtype).eps
    g = gr.attention_loss_grad(**inst)
    assert np.abs(g).max() <= atol
    assert np.abs(gr.attention_loss_grad_via_attention(**inst) - g).max() <= atol


def test_scores_near_the_dtype_limit_give_the_argmax_answer():
    inst = _inst(8, 2, 1.0, 4)
    inst["X"] = inst["X"] * 1e300           # finite scores ~1e300: F is the argmax, the gradient is 0 (rows one-hot)
    for f in GRADS + [_blocked]:
        assert np.isfinite(f(**inst)).all()


@pytest.mark.parametrize("f", FUNCS + [_blocked], ids=lambda f: f.__name__)
@pytest.mark.parametrize("change, words", [
    (dict(A1=1e200, A2=1e200), ["overflow", "A1, X or A2"]),      # scores beyond float64
    (dict(A3=1e200, Y=1e200), ["overflow", "A3 or Y"]),            # A3 Y beyond float64
])
def test_overflowing_products_raise_value_error_naming_the_arguments(f, change, words):
    inst = _inst(6, 2, 1.0, 8)
    for k, s in change.items():
        inst[k] = inst[k] * s
    with pytest.raises(ValueError) as err:
        f(**inst)
    if f in (gr.attention_loss_grad_via_attention, _blocked) and "A1, X or A2" in words:
        # the d + 2 attention calls never form the scores: attention itself stays finite at any temperature,
        # so the overflow shows up in the gradient, whose message names all six arguments
        words = ["overflow", "A1, A2"]
    assert all(w in str(err.value) for w in words), str(err.value)


def test_loss_beyond_the_dtype():
    inst = {k: v.astype(np.float32) for k, v in _inst(6, 2, 1.0, 9).items()}
    inst["E"] = inst["E"] * np.float32(1e30)        # loss ~1e60: beyond float32, returned as a Python float
    ref = gr.attention_loss(**{k: v.astype(float) for k, v in inst.items()})
    assert gr.attention_loss(**inst) == pytest.approx(ref, rel=1e-5)
    inst = _inst(6, 2, 1.0, 9)
    inst["E"] = inst["E"] * 1e200                   # loss ~1e400: beyond any float
    with pytest.raises(ValueError, match="A3, Y or E"):
        gr.attention_loss(**inst)


# --------------------------------------------------------------------------- bad input, every public function
_BASE = _inst(4, 2, 1.0, 0)
BAD = [
    (dict(X=np.ones((3, 3))), ValueError, "X must have shape"),
    (dict(E=np.ones((5, 2))), ValueError, "E must have shape"),
    (dict(A2=np.ones(4)), ValueError, "A2 must be 2-dimensional"),
    (dict(A3=np.ones((4, 2, 1))), ValueError, "A3 must be 2-dimensional"),
    (dict(A1=np.ones((0, 2))), ValueError, "A1 must have positive dimensions"),
    (dict(A1=np.full((4, 2), np.nan)), ValueError, "A1 contains NaN"),
    (dict(Y=np.full((2, 2), np.inf)), ValueError, "Y contains NaN or inf"),
    (dict(E=np.ones((4, 2), complex)), TypeError, "E must be a real"),
    (dict(X=np.ones((2, 2), bool)), TypeError, "X must be a real"),
    (dict(A2=np.array([["a", "b"]] * 4)), TypeError, "A2 must be a real"),
    (dict(A1=[[1.0, 2.0], [3.0]]), TypeError, "A1 must be an array"),
    (dict(Y=None), TypeError, "Y must be"),
    (dict(X=np.ones((2, 2), complex)), TypeError, "X must be a real floating array"),
    (dict(X=xs.ones((2, 2), dtype=xs.float64)), TypeError, "arrays of one library"),
]


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("change, exc, words", BAD, ids=[b[2] for b in BAD])
def test_bad_input(f, change, exc, words):
    if "longdouble" in repr(change) and np.finfo(np.longdouble).bits <= 64:
        pytest.skip("longdouble is float64 on this platform")
    with pytest.raises(exc, match=words):
        f(**{**_BASE, **change})


@pytest.mark.parametrize("kw, exc, words", [
    (dict(block=2.5), TypeError, "block must be an integer"),
    (dict(block=True), TypeError, "block must be an integer"),
    (dict(block=0), ValueError, "block must be >= 1"),
    (dict(blocked=True, threads=0), ValueError, "threads must be >= 1"),
    (dict(blocked=True, threads="2"), TypeError, "threads must be an integer"),
    (dict(blocked="yes"), TypeError, "blocked must be True or False"),
    (dict(return_calls=1), TypeError, "return_calls must be True or False"),
])
def test_bad_options_of_the_attention_route(kw, exc, words):
    with pytest.raises(exc, match=words):
        gr.attention_loss_grad_via_attention(**_BASE, **kw)


@pytest.mark.parametrize("oracle, exc, words", [
    ("attention", TypeError, "oracle must be callable"),
    (lambda Q, K, V: np.zeros((1, 1)), ValueError, "oracle must return an array of shape"),
    (lambda Q, K, V: np.full((Q.shape[0], V.shape[1]), np.nan), ValueError, "oracle returned NaN or inf"),
])
def test_bad_oracle_of_the_attention_route(oracle, exc, words):
    with pytest.raises(exc, match=words):
        gr.attention_loss_grad_via_attention(**_BASE, oracle=oracle)


def test_exact_oracle_gives_the_gradient_and_sees_the_calls_in_order():
    from attnlab import attention
    inst = {k: np.asarray(v, float) for k, v in _BASE.items()}
    seen = []

    def oracle(Q, K, V):
        seen.append(V.copy())
        return attention(Q, K, V, beta=1.0)

    g = gr.attention_loss_grad_via_attention(**inst, oracle=oracle)
    assert np.allclose(g, gr.attention_loss_grad(**inst), rtol=1e-12, atol=1e-12)
    H = inst["A3"] @ inst["Y"]
    d = inst["A1"].shape[1]
    assert len(seen) == d + 2 and np.allclose(seen[0], H) and np.allclose(seen[1], inst["A2"])
    assert all(np.allclose(seen[2 + p], H[:, p:p + 1] * inst["A2"]) for p in range(d))


def test_deprecated_return_calls_warns_and_gives_the_same_gradient():
    inst = _inst(6, 3, 1.0, 7)
    g = gr.attention_loss_grad_via_attention(**inst, blocked=True, block=4)
    with pytest.warns(DeprecationWarning, match=r"return_calls=True\) is deprecated"):
        old, calls = gr.attention_loss_grad_via_attention(**inst, blocked=True, block=4, return_calls=True)
    assert calls == 3 + 2 and np.array_equal(old, g)
    assert np.array_equal(gr.attention_loss_grad_via_attention(**inst, blocked=True, block=4, return_calls=False), g)
