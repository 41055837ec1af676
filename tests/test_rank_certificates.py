"""The operator identity and the upper and lower certificates of approximation rank (attnlab.rank.certificates)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attnlab
from attnlab.rank import certificates as rc
from attnlab import softmax


def _stoch(rng, n, L, scale=3.0):
    return softmax(scale * rng.standard_normal((n, L)))


def test_exported():
    for name in rc.__all__:
        assert getattr(attnlab, name) is getattr(rc, name)


def test_row_l1_error_against_dense_formula():
    rng = np.random.default_rng(0)
    A, B = rng.random((3000, 7)), rng.random((3000, 7))
    assert rc.row_l1_error(A, B, block=100) == pytest.approx(np.abs(A - B).sum(axis=1).max(), rel=1e-15)
    assert rc.row_l1_error(A.astype(np.float32), B.astype(np.float32)) == pytest.approx(
        np.abs(A - B).sum(axis=1).max(), rel=1e-6)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_operator_identity_attained_and_not_exceeded(norm):
    rng = np.random.default_rng(1)
    A, B = _stoch(rng, 20, 9), _stoch(rng, 20, 9)
    target = rc.row_l1_error(A, B)
    V = rc.maximising_values(A, B, 4, norm)
    assert rc.operator_error(A, B, V, norm) == pytest.approx(target, rel=1e-13)
    for _ in range(200):  # random values in the unit ball of the norm never exceed it
        W = rng.standard_normal((9, 4))
        W /= rc._vec_norm(W, norm)[:, None]
        assert rc.operator_error(A, B, W, norm) <= target * (1 + 1e-12)


@pytest.mark.parametrize("method", ["greedy", "svd", "cover-svd", "best"])
def test_upper_certificates_are_certified(method):
    rng = np.random.default_rng(2)
    A = attnlab.family_attention("sphere-2", 400, 64, 30.0, rng=rng)
    for eps in (0.1, 0.5, 1.5):
        c = rc.rank_upper_certificate(A, eps, method)
        B = c.matrix()
        assert rc.row_l1_error(A, B) <= eps + 1e-12 and c.error <= eps + 1e-12
        assert np.linalg.matrix_rank(B, tol=1e-9) <= c.bound


def test_known_ranks_are_bracketed_exactly():
    """Block matrices of known rank M: both certificates equal M for ε < 1."""
    rng = np.random.default_rng(3)
    for M in (1, 4, 9):
        blocks = rng.random((M, 5 * M)) * (np.kron(np.eye(M), np.ones(5)) > 0)
        blocks /= blocks.sum(axis=1, keepdims=True)
        A = blocks[rng.integers(0, M, 300)]
        A[:M] = blocks  # every block present
        assert rc.rank_lower_certificate(A, 0.5).bound == M
        assert rc.rank_upper_certificate(A, 0.5, "greedy").bound == M
        assert rc.rank_upper_certificate(A, 0.5, "svd").bound == M


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), L=st.integers(1, 20),
       scale=st.floats(0.0, 30.0), eps=st.floats(0.01, 1.99))
def test_property_lower_below_upper(seed, n, L, scale, eps):
    """Any certified lower bound is at most any certified upper bound; the lower certificate's margin is > 0."""
    A = _stoch(np.random.default_rng(seed), n, L, scale)
    low = rc.rank_lower_certificate(A, eps)
    up = rc.rank_upper_certificate(A, eps, "best")
    assert low.bound <= up.bound
    if low.bound:
        assert rc.lower_certificate_margin(A, low) > 0 and rc.lower_certificate_dominance(up.matrix(), low) > 0


@settings(max_examples=40, deadline=None)
@given(A=arrays(np.float64, (6, 5), elements=st.floats(0, 1)), eps=st.floats(0.05, 1.9))
def test_property_one_hot_and_ties(A, eps):
    A = A + 1e-300
    A /= A.sum(axis=1, keepdims=True)
    c = rc.rank_upper_certificate(A, eps, "svd")
    assert rc.row_l1_error(A, c.matrix()) <= eps + 1e-12


def test_lower_certificate_margin_of_an_empty_certificate_and_by_hand():
    A = np.full((3, 4), 0.25)
    empty = rc.rank_lower_certificate(A, 1.5)  # no set carries mass > 1.25
    assert empty.bound == 0 and rc.lower_certificate_margin(A, empty) == np.inf
    assert rc.lower_certificate_dominance(A, empty) == np.inf
    cert = rc.LowerCertificate(1, 0.5, [0], [np.arange(4)], [1.0])
    assert rc.lower_certificate_margin(A, cert) == pytest.approx(0.5)


A3 = np.full((3, 4), 0.25)
CERT = rc.LowerCertificate(1, 0.5, [0], [np.array([0, 1, 2])], [0.75])
BAD = [  # (function, args, kwargs, exception, message naming the argument)
    (rc.row_l1_error, ("x", A3), {}, TypeError, "A must be"),
    (rc.row_l1_error, (A3, np.zeros((3, 5))), {}, ValueError, "B must have the shape"),
    (rc.row_l1_error, (A3, A3), dict(block=0), ValueError, "block"),
    (rc.row_l1_error, (A3, A3), dict(block=2.0), TypeError, "block"),
    (rc.row_l1_error, (A3, A3), dict(block=True), TypeError, "block"),
    (rc.row_l1_error, (A3 > 0, A3), {}, TypeError, "A must be a real floating array, not dtype bool"),
    (rc.row_l1_error, (np.full((3, 4), np.nan), A3), {}, ValueError, "A contains NaN"),
    (rc.row_l1_error, (np.zeros(4), A3), {}, ValueError, "A must be 2-dimensional"),
    (rc.row_l1_error, (np.zeros((0, 4)), np.zeros((0, 4))), {}, ValueError, "A must have positive dimensions"),
    (rc.operator_error, (A3, A3, np.zeros((3, 2))), {}, ValueError, "V must have 4 rows"),
    (rc.operator_error, (A3, A3, np.zeros((4, 2)), "l3"), {}, ValueError, "norm"),
    (rc.operator_error, (A3, A3, np.full((4, 2), np.inf)), {}, ValueError, "V contains"),
    (rc.operator_error, (A3, A3, [[1, 2], [3]]), {}, TypeError, "V must be an array"),
    (rc.maximising_values, (A3, A3, 0), {}, ValueError, "m must be >= 1"),
    (rc.maximising_values, (A3, A3, 1.5), {}, TypeError, "m must be an integer"),
    (rc.maximising_values, (A3, A3, 2, "max"), {}, ValueError, "norm"),
    (rc.maximising_values, (A3, np.zeros((2, 4))), {}, ValueError, "B must have the shape"),
    (rc.rank_upper_certificate, (A3, 2.0), {}, ValueError, "eps"),
    (rc.rank_upper_certificate, (A3, 0.0), {}, ValueError, "eps"),
    (rc.rank_upper_certificate, (A3, float("nan")), {}, ValueError, "eps"),
    (rc.rank_upper_certificate, (A3, "0.5"), {}, TypeError, "eps"),
    (rc.rank_upper_certificate, (A3, 0.5, "magic"), {}, ValueError, "method"),
    (rc.rank_upper_certificate, (A3, 0.5, None), {}, ValueError, "method"),
    (rc.rank_upper_certificate, (A3 * 2, 0.5), {}, ValueError, "A must be row-stochastic"),
    (rc.rank_upper_certificate, (np.eye(3) > 0, 0.5), {}, TypeError, "A must be a real floating array"),
    (rc.rank_lower_certificate, (A3, 0.0), {}, ValueError, "eps"),
    (rc.rank_lower_certificate, (A3 * 2, 0.5), {}, ValueError, "A must be row-stochastic"),
    (rc.rank_lower_certificate, (-A3, 0.5), {}, ValueError, "A must be row-stochastic"),
    (rc.rank_lower_certificate, (np.array([[np.inf, 0.0]]), 0.5), {}, ValueError, "A contains"),
    (rc.lower_certificate_margin, (A3, "cert"), {}, TypeError, "cert must be a LowerCertificate"),
    (rc.lower_certificate_dominance, (A3, "cert"), {}, TypeError, "cert must be a LowerCertificate"),
    (rc.lower_certificate_dominance, (A3, rc.LowerCertificate(1, 0.5, [7], [np.array([0])], [1.0])), {},
     ValueError, "cert has rows or columns outside"),
    (rc.lower_certificate_dominance, (np.ones(4), CERT), {}, ValueError, "B must be 2-dimensional"),
    (rc.svd_upper_certificates, (A3, 0.5), {}, TypeError, "eps must be a sequence"),
    (rc.svd_upper_certificates, (A3, "0.5"), {}, TypeError, "eps must be a sequence"),
    (rc.svd_upper_certificates, (A3, np.array(0.5)), {}, TypeError, "eps must be a sequence"),
    (rc.svd_upper_certificates, (A3, [0.5, 2.5]), {}, ValueError, "eps"),
    (rc.svd_upper_certificates, (A3 * 2, [0.5]), {}, ValueError, "A must be row-stochastic"),
    (rc.lower_certificate_margin, (A3, rc.LowerCertificate(1, 0.5, [7], [np.array([0])], [1.0])), {}, ValueError,
     "cert has rows or columns outside A"),
    (rc.lower_certificate_margin, (A3, rc.LowerCertificate(1, 0.5, [0], [np.array([9])], [1.0])), {}, ValueError,
     "cert has rows or columns outside A"),
    (rc.row_norms, (np.ones(3),), {}, ValueError, "X must be 2-dimensional"),
    (rc.row_norms, (A3, "l3"), {}, ValueError, "norm"),
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    covered = {fn.__name__ for fn, *_ in BAD}
    assert {n for n in rc.__all__ if n[0].islower()} <= covered


# ------------------------------------------------------------------- error metrics at the edge of the float range
@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)),
              elements=st.floats(-1.7e308, 1.7e308, allow_nan=False, allow_infinity=False)),
       st.data())
def test_row_l1_error_never_returns_inf_silently(A, data):
    """Entries up to ±1.7e308: the error is finite and equals the exact (rational) row sum, rounded; or, when the
    true value exceeds the largest float64, a ValueError names A and B (never a silent inf or NaN)."""
    from fractions import Fraction

    B = data.draw(arrays(np.float64, A.shape, elements=st.floats(-1.7e308, 1.7e308, allow_nan=False,
                                                                    allow_infinity=False)))
    exact = max(sum(abs(Fraction(a) - Fraction(b)) for a, b in zip(ra, rb)) for ra, rb in zip(A, B))
    if exact > Fraction(np.finfo(np.float64).max):
        with pytest.raises(ValueError, match="A and B"):
            rc.row_l1_error(A, B)
        return
    got = rc.row_l1_error(A, B, block=data.draw(st.integers(1, 3)))
    assert np.isfinite(got)
    assert abs(Fraction(got) - exact) <= Fraction(A.shape[1] * 4e-16) * exact + Fraction(0)


def test_operator_error_rescales_instead_of_overflowing():
    assert rc.operator_error(np.array([[1e300, 1e300]]), np.zeros((1, 2)), np.array([[1e-300], [1e-300]]), "l1") == 2.0
    with pytest.raises(ValueError, match="A, B and V"):
        rc.operator_error(np.array([[1e300]]), np.zeros((1, 1)), np.array([[1e300]]), "l1")


@pytest.mark.parametrize("norm, order", [("l1", 1), ("l2", 2), ("linf", np.inf)])
def test_row_norms_against_numpy(norm, order):
    X = np.random.default_rng(3).standard_normal((5, 4))
    assert np.allclose(rc.row_norms(X, norm), np.linalg.norm(X, ord=order, axis=1))


def test_both_certificates_name_their_bound_bound():
    """One field name for a certificate's bound; the earlier names read the same number and the records are frozen."""
    import dataclasses

    A = softmax(np.random.default_rng(4).standard_normal((6, 5)) * 3)
    up, low = rc.rank_upper_certificate(A, 0.5, "svd"), rc.rank_lower_certificate(A, 0.5)
    with pytest.warns(DeprecationWarning, match="use .bound"):
        assert up.rank == up.bound
    with pytest.warns(DeprecationWarning, match="use .bound"):
        assert low.M == low.bound
    for cert in (up, low):
        assert "bound" in {f.name for f in dataclasses.fields(cert)}
        with pytest.raises(dataclasses.FrozenInstanceError):
            cert.bound = 0


def test_svd_upper_certificates_are_the_svd_certificates_at_each_eps():
    """One SVD for several ε gives, per ε, the certificate rank_upper_certificate(A, ε, "svd") gives alone."""
    A = softmax(np.random.default_rng(5).standard_normal((40, 12)) * 4)
    eps = [0.6, 0.1, 0.3]
    certs = rc.svd_upper_certificates(A, eps)
    assert [c.eps for c in certs] == eps and all(c.method == "svd" for c in certs)
    for c, e in zip(certs, eps):
        alone = rc.rank_upper_certificate(A, e, "svd")
        assert (c.bound, c.error) == (alone.bound, alone.error)
        assert rc.row_l1_error(A, c.matrix()) == pytest.approx(c.error) and c.error <= e
    assert certs[1].bound >= certs[2].bound >= certs[0].bound
    assert rc.svd_upper_certificates(A, ()) == []
    assert [c.bound for c in rc.svd_upper_certificates(A, np.array(eps))] == [c.bound for c in certs]


def test_lower_certificate_dominance_against_the_definition():
    """The dominance margin is min_a C_aa − Σ_{b≠a} |C_ab| with C_ab = Σ_{j∈S_b} B_{i_a j}, computed by hand."""
    rng = np.random.default_rng(6)
    B = rng.standard_normal((5, 6))
    cert = rc.LowerCertificate(2, 0.5, [3, 1], [np.array([0, 4]), np.array([2])], [])
    C = np.array([[B[i, s].sum() for s in cert.sets] for i in cert.rows])
    expected = min(abs(C[a, a]) - sum(abs(C[a, b]) for b in range(2) if b != a) for a in range(2))
    assert rc.lower_certificate_dominance(B, cert) == pytest.approx(expected)


def test_lower_certificate_margin_with_B_is_deprecated_and_returns_both_margins():
    A = np.repeat(np.eye(3), 4, axis=0)
    low = rc.rank_lower_certificate(A, 0.5)
    B = 0.9 * A + 0.1 / 3
    with pytest.warns(DeprecationWarning, match="lower_certificate_dominance"):
        pair = rc.lower_certificate_margin(A, low, B)
    assert pair == (rc.lower_certificate_margin(A, low), rc.lower_certificate_dominance(B, low))
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="B must have the shape"):
        rc.lower_certificate_margin(A3, CERT, np.zeros((2, 4)))
