"""attnlab.theory.adversarial: the batched multi-start search for the supremum of a ratio."""
import numpy as np
import pytest

from attnlab import SupResult, sup_ratio


def test_sup_ratio_finds_known_maximum_and_beats_starts():
    # r(z) = 1 - |z - 0.3|^2 on a box: sup 1 at 0.3; starts far away
    f = lambda Z: 1 - ((Z - 0.3) ** 2).sum(1)  # noqa: E731
    res = sup_ratio(f, np.full((5, 4), -2.0) + np.arange(5)[:, None] * 0.1, bounds=(-3, 3))
    assert res.value == pytest.approx(1.0, abs=1e-9) and np.allclose(res.argmax, 0.3, atol=1e-4)
    assert res.values.shape == (5,) and np.all(res.values >= res.initial)
    # a box that excludes the maximiser: the optimum sits on the boundary
    res = sup_ratio(f, np.zeros((3, 2)), bounds=(-1, 0.1))
    assert np.allclose(res.argmax, 0.1, atol=1e-6)


def test_sup_ratio_returns_a_supresult_and_is_deterministic():
    f = lambda Z: np.sin(Z[:, 0]) * np.cos(Z[:, 1])  # noqa: E731
    x0 = np.random.default_rng(0).uniform(-3, 3, (6, 2))
    a, b = sup_ratio(f, x0, maxiter=30), sup_ratio(f, x0.copy(), maxiter=30)
    assert isinstance(a, SupResult) and a.value == b.value and np.array_equal(a.points, b.points)
    assert a.initial.shape == (6,) and a.n_evals > 0


def test_sup_ratio_non_finite_values_count_as_minus_infinity():
    f = lambda Z: np.where(Z[:, 0] > 0, np.nan, -Z[:, 0] ** 2)  # noqa: E731
    res = sup_ratio(f, np.full((2, 1), -1.0), bounds=(-2, 1), polish=0)
    assert np.isfinite(res.value) and res.argmax[0] <= 0


def test_sup_ratio_bounds_per_start_and_open_sides():
    f = lambda Z: Z.sum(1)  # noqa: E731
    lo = np.zeros((2, 1))
    hi = np.array([[1.0], [2.0]])
    res = sup_ratio(f, np.zeros((2, 1)), bounds=(lo, hi), polish=0)
    assert np.allclose(res.values, [1.0, 2.0])
    res = sup_ratio(lambda Z: -(Z ** 2).sum(1), np.ones((2, 2)), bounds=(-np.inf, np.inf))
    assert res.value == pytest.approx(0.0, abs=1e-12)


_F = lambda Z: Z[:, 0]  # noqa: E731
_X0 = np.zeros((2, 2))

#: (keyword arguments, exception, fragment of the message naming the argument)
BAD = [
    (dict(fun=3), TypeError, "fun must be callable"),
    (dict(fun=None), TypeError, "fun must be callable"),
    (dict(grad="g"), TypeError, "grad must be callable"),
    (dict(x0=np.zeros(3)), ValueError, "x0"),
    (dict(x0=np.zeros((0, 2))), ValueError, "x0"),
    (dict(x0=np.zeros((2, 0))), ValueError, "x0"),
    (dict(x0=np.array([[0.0, np.nan]])), ValueError, "x0 contains"),
    (dict(x0=np.array([[0.0, np.inf]])), ValueError, "x0 contains"),
    (dict(x0=np.array([["a", "b"]])), TypeError, "x0"),
    (dict(x0="abc"), TypeError, "x0"),
    (dict(bounds=(1, 0)), ValueError, "bounds"),
    (dict(bounds=(0,)), TypeError, "bounds"),
    (dict(bounds=(0, 1, 2)), TypeError, "bounds"),
    (dict(bounds=5.0), TypeError, "bounds"),
    (dict(bounds=(np.zeros(3), 1)), ValueError, "bounds: lo"),
    (dict(bounds=(0, np.ones((3, 2)))), ValueError, "bounds: hi"),
    (dict(bounds=(np.nan, 1)), ValueError, "bounds: lo contains NaN"),
    (dict(bounds=(0, "x")), TypeError, "bounds: hi"),
    (dict(bounds=(np.inf, np.inf)), ValueError, "bounds"),
    (dict(maxiter=0), ValueError, "maxiter"),
    (dict(maxiter=-3), ValueError, "maxiter"),
    (dict(maxiter=2.5), TypeError, "maxiter"),
    (dict(maxiter=True), TypeError, "maxiter"),
    (dict(polish=-1), ValueError, "polish"),
    (dict(polish=1.0), TypeError, "polish"),
    (dict(polish=False), TypeError, "polish"),
    (dict(fd_step=0.0), ValueError, "fd_step"),
    (dict(fd_step=-1e-6), ValueError, "fd_step"),
    (dict(fd_step=float("nan")), ValueError, "fd_step"),
    (dict(fd_step="1e-6"), TypeError, "fd_step"),
    (dict(fun=lambda Z: Z), ValueError, "fun must return one value per row"),
    (dict(fun=lambda Z: Z[0]), ValueError, "fun must return one value per row"),
    (dict(grad=lambda Z: Z[:, 0]), ValueError, "grad must return one gradient row"),
]


@pytest.mark.parametrize("kwargs, exc, msg", BAD, ids=[f"{i}-{next(iter(b[0]))}" for i, b in enumerate(BAD)])
def test_sup_ratio_bad_input_names_the_argument(kwargs, exc, msg):
    args = dict(fun=_F, x0=_X0)
    args.update(kwargs)
    fun, x0 = args.pop("fun"), args.pop("x0")
    with pytest.raises(exc, match=msg):
        sup_ratio(fun, x0, **args)


def test_sup_result_is_a_named_tuple():
    res = sup_ratio(lambda Z: -((Z - 1.0) ** 2).sum(1), np.zeros((2, 1)), polish=0)
    assert res._fields == ("value", "argmax", "values", "initial", "points", "n_evals")
    value, argmax, values, initial, points, n_evals = res
    assert value == res.value == pytest.approx(0.0, abs=1e-12) and argmax is res.argmax
    assert points.shape == (2, 1) and n_evals == res.n_evals > 0 and res._asdict()["value"] == value
