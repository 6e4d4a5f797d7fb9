"""Agreement between two cells: the share rated alike, Cohen's kappa and its interval.

The kappa values and intervals below were computed once with statsmodels'
`cohens_kappa` (the same Fleiss-Cohen-Everitt variance) on the same 2x2 tables.
"""

from __future__ import annotations

import pytest

from activation._models import Case, CaseVerdict
from activation.verdicts.agreement import agreement, cohens_kappa
from tests.support.verdicts import judge, tally


def table(both: int, first_only: int, second_only: int, neither: int) -> list[tuple[bool, bool]]:
    """Rating pairs making a 2x2 table: right in both cells, in one of them, in neither."""
    return (
        [(True, True)] * both
        + [(True, False)] * first_only
        + [(False, True)] * second_only
        + [(False, False)] * neither
    )


@pytest.mark.parametrize(
    ("pairs", "kappa", "low", "high"),
    [
        (table(20, 5, 10, 15), 0.4, 0.151092290476661, 0.6489077095233389),
        (table(8, 1, 2, 4), 0.5714285714285715, 0.1451032023780477, 0.9977539404790954),
        (table(5, 0, 0, 5), 1.0, 1.0, 1.0),
    ],
)
def test_kappa_and_its_interval_match_the_textbook_variance(
    pairs: list[tuple[bool, bool]], kappa: float, low: float, high: float
) -> None:
    found, interval = cohens_kappa(pairs)
    assert found == pytest.approx(kappa, abs=1e-12)
    assert interval == pytest.approx((low, high), abs=1e-12)


def test_kappa_is_undefined_when_chance_explains_all_of_it() -> None:
    assert cohens_kappa(table(6, 0, 0, 0)) == (None, None)
    assert cohens_kappa([]) == (None, None)


def test_kappa_is_zero_without_an_interval_when_one_cell_never_varies() -> None:
    assert cohens_kappa(table(11, 0, 1, 0)) == (0.0, None)


def test_kappa_below_zero_when_the_cells_disagree_more_than_chance() -> None:
    found, interval = cohens_kappa(table(1, 5, 5, 1))
    assert found == pytest.approx(-2 / 3)
    assert interval == pytest.approx((-1.0, -0.24494956270611273), abs=1e-12)  # low clipped


def verdict(case_id: str, right: int, valid: int = 3, errors: int = 0) -> CaseVerdict:
    """A positive case whose candidate was right `right` times of `valid`."""
    case = Case(case_id, f"prompt {case_id}", True, "why", ("keyword-loss",))
    return judge(case, tally(3, 3), tally(right, valid, errors), alpha=0.05)


def test_agreement_counts_the_cases_both_cells_have_evidence_for() -> None:
    first = [verdict("a", 3), verdict("b", 0), verdict("c", 3), verdict("d", 2), verdict("e", 3)]
    second = [verdict("a", 3), verdict("b", 3), verdict("c", 0), verdict("d", 3),
              verdict("e", 2, valid=2, errors=1)]  # fmt: skip
    found = agreement(("A", "B"), first, second, "candidate")
    assert (found.cases, found.same, found.disagree) == (4, 2, ("b", "c"))
    assert found.share == 0.5
    # a: right in both, d: right in both, b: wrong then right, c: right then wrong
    assert found.kappa == pytest.approx(cohens_kappa(table(2, 1, 1, 0))[0])
    assert found.cells == ("A", "B")


def test_agreement_on_the_baseline_uses_the_baselines_ratings() -> None:
    first = [verdict("a", 0), verdict("b", 0)]
    second = [verdict("a", 3), verdict("b", 0)]
    found = agreement(("A", "B"), first, second, "baseline")
    assert (found.cases, found.same, found.disagree, found.kappa) == (2, 2, (), None)
