"""The result-object policy (book/conventions.md, Results): NamedTuples whose former dict spellings still work,
each with a DeprecationWarning; the tuple's own behaviour (indexing, unpacking, membership of values) unchanged."""
import pickle
import warnings
from typing import NamedTuple

import pytest

from attnlab.core._results import former_dict


@former_dict
class Fit(NamedTuple):
    slope: float
    intercept: float


def test_fields_indexing_and_unpacking_are_the_tuples_and_silent():
    fit = Fit(2.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        slope, intercept = fit
        assert (slope, intercept, fit[0], fit[-1], fit.slope) == (2.0, 1.0, 2.0, 1.0, 2.0)
        assert 2.0 in fit and 5.0 not in fit
        assert fit._asdict() == {"slope": 2.0, "intercept": 1.0}
    assert pickle.loads(pickle.dumps(fit)) == fit


@pytest.mark.parametrize("spelling, expected", [
    (lambda r: r["slope"], 2.0),
    (lambda r: r.get("intercept"), 1.0),
    (lambda r: r.get("missing", 7), 7),
    (lambda r: "slope" in r, True),
    (lambda r: list(r.keys()), ["slope", "intercept"]),
    (lambda r: list(r.values()), [2.0, 1.0]),
    (lambda r: dict(r.items()), {"slope": 2.0, "intercept": 1.0}),
])
def test_dict_spellings_work_with_a_warning_that_names_the_replacement(spelling, expected):
    with pytest.warns(DeprecationWarning, match="Fit is no longer a dict"):
        assert spelling(Fit(2.0, 1.0)) == expected


def test_a_missing_key_is_a_key_error():
    with pytest.warns(DeprecationWarning), pytest.raises(KeyError, match="missing"):
        Fit(2.0, 1.0)["missing"]


@former_dict(M="bound")
class Count(NamedTuple):
    bound: int
    eps: float


def test_a_renamed_key_reads_its_new_field_and_lists_under_its_old_name():
    count = Count(12, 0.1)
    with pytest.warns(DeprecationWarning, match=r"use \.bound"):
        assert count["M"] == 12
    with pytest.warns(DeprecationWarning):
        assert count.get("M") == 12 and "M" in count
    with pytest.warns(DeprecationWarning):
        assert list(count.keys()) == ["M", "eps"] and dict(count.items()) == {"M": 12, "eps": 0.1}
    with pytest.warns(DeprecationWarning):
        assert count["bound"] == 12  # the new name works as a key too
    with pytest.warns(DeprecationWarning), pytest.raises(KeyError):
        count["rank"]
