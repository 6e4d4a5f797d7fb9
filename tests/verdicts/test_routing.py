"""The routing figures of a catalog run, on verdicts made from trials that fired named
skills: recall and precision by majority route, what each skill lost and took, and how the
cases with several acceptable homes split. Every figure is an exact count."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from activation._models import VARIANTS, Case, CaseVerdict, TrialKey, VariantName
from activation.verdicts.figures import Count
from activation.verdicts.judge import judge
from activation.verdicts.routing import (
    SPLIT,
    Ambiguous,
    Cell,
    Routing,
    Share,
    both_cells,
    changed_cells,
    routing,
)
from activation.verdicts.stats import wilson_interval

TARGET = "cat:alpha"


def case(case_id: str, expect: Sequence[str] | None, should: bool = False) -> Case:
    return Case(case_id, f"prompt {case_id}", should, "why", expect=None if expect is None
                else tuple(expect))  # fmt: skip


def verdict(
    given: Case,
    candidate: Sequence[Sequence[str]],
    baseline: Sequence[Sequence[str]] | None = None,
) -> CaseVerdict:
    """A case judged on trials that fired these skills (first first; `[]`: nothing)."""
    sides: dict[VariantName, Sequence[Sequence[str]]] = {
        "baseline": candidate if baseline is None else baseline,
        "candidate": candidate,
    }
    trials = [
        TrialKey(given, variant, index).fired(chose, TARGET)
        for variant, fired in sides.items()
        for index, chose in enumerate(fired)
    ]
    return judge(given, trials, 0.05)


ALPHA, BETA, GAMMA = "cat:alpha", "cat:beta", "cat:gamma"
RUN = [
    # alpha's own four: three go home, one to beta
    verdict(case("a1", [ALPHA]), [[ALPHA]] * 3),
    verdict(case("a2", [ALPHA]), [[ALPHA]] * 3),
    verdict(case("a3", [ALPHA]), [[ALPHA], [ALPHA], [BETA]]),
    verdict(case("a4", [ALPHA]), [[BETA], [BETA], [ALPHA]]),
    # beta's own two: one home, one split three ways (no majority)
    verdict(case("b1", [BETA]), [[BETA]] * 3),
    verdict(case("b2", [BETA]), [[BETA], [GAMMA], []]),
    # a case for no skill that alpha takes
    verdict(case("n1", []), [[ALPHA], [ALPHA], []]),
    # two cases that may go to alpha or gamma
    verdict(case("ag1", [ALPHA, GAMMA]), [[GAMMA], [GAMMA], [ALPHA]]),
    verdict(case("ag2", [ALPHA, GAMMA]), [[BETA], [BETA], [GAMMA]]),
]


def figures(found: Routing) -> dict[str, tuple[Count, Count, tuple[Share, ...], tuple[Share, ...]]]:
    return {f.skill: (f.recall, f.precision, f.lost_to, f.took_from) for f in found.skills}


def test_each_skill_counts_its_own_cases_and_those_it_took() -> None:
    found = routing(RUN, "candidate", TARGET, with_interval=True)
    assert figures(found) == {
        ALPHA: (
            Count(3, 4),  # a1-a3 home; a4 went to beta
            Count(3, 4),  # a1-a3 are its own; n1 is not
            (Share(BETA, 1),),
            (Share("none", 1),),
        ),
        BETA: (
            Count(1, 2),  # b1 home, b2 split
            Count(1, 3),  # b1 of b1, a4, ag2
            (Share(SPLIT, 1),),
            (Share(ALPHA, 1), Share(f"{ALPHA}|{GAMMA}", 1)),  # a tie: by name
        ),
        GAMMA: (
            Count(0, 0),  # no case has gamma as its one home
            Count(1, 1),  # ag1 may go to gamma
            (),
            (),
        ),
    }
    alpha = found.skills[0]
    assert alpha.recall_interval == wilson_interval(3, 4)
    assert alpha.precision_interval == wilson_interval(3, 4)
    assert found.skills[2].recall_interval is None  # no case: no interval


def test_the_misses_by_name_add_up_to_the_rates() -> None:
    for entry in routing(RUN, "candidate", TARGET, with_interval=False).skills:
        assert sum(s.count for s in entry.lost_to) == entry.recall.total - entry.recall.hits
        assert sum(s.count for s in entry.took_from) == (
            entry.precision.total - entry.precision.hits
        )
        assert entry.recall_interval is None and entry.precision_interval is None


def test_a_case_with_several_homes_says_how_often_each_was_picked() -> None:
    found = routing(RUN, "candidate", TARGET, with_interval=True)
    assert found.ambiguous == (
        Ambiguous("ag1", (ALPHA, GAMMA), (Share(GAMMA, 2), Share(ALPHA, 1)), 3),
        Ambiguous("ag2", (ALPHA, GAMMA), (Share(BETA, 2), Share(GAMMA, 1)), 3),
    )


def test_the_matrix_keeps_only_its_non_empty_cells_and_names_what_went_astray() -> None:
    found = routing(RUN, "candidate", TARGET, with_interval=True)
    assert found.cells == (
        Cell(ALPHA, ALPHA, 9),
        Cell(ALPHA, BETA, 3),
        Cell(f"{ALPHA}|{GAMMA}", ALPHA, 1),
        Cell(f"{ALPHA}|{GAMMA}", BETA, 2),
        Cell(f"{ALPHA}|{GAMMA}", GAMMA, 3),
        Cell(BETA, BETA, 4),
        Cell(BETA, GAMMA, 1),
        Cell(BETA, "none", 1),
        Cell("none", ALPHA, 2),
        Cell("none", "none", 1),
    )
    assert found.astray == (
        Cell(ALPHA, BETA, 3),
        Cell(f"{ALPHA}|{GAMMA}", BETA, 2),
        Cell(BETA, GAMMA, 1),
        Cell(BETA, "none", 1),
        Cell("none", ALPHA, 2),
    )


def test_a_case_that_only_keeps_the_measured_skill_out_may_go_anywhere_else() -> None:
    """`should_activate: false` is "anything but the target": landing on a sibling is no
    precision miss for the sibling; landing on the target is one for the target."""
    run = [
        verdict(case("pos", None, should=True), [[ALPHA]] * 3),
        verdict(case("neg-sibling", None), [[BETA]] * 3),
        verdict(case("neg-target", None), [[ALPHA]] * 3),
    ]
    assert figures(routing(run, "candidate", TARGET, with_interval=False)) == {
        ALPHA: (Count(1, 1), Count(1, 2), (), (Share("other", 1),)),
        BETA: (Count(0, 0), Count(1, 1), (), ()),
    }


def test_error_cases_are_left_out() -> None:
    broken = case("broken", [BETA])
    trials = [TrialKey(broken, variant, 0).failed("boom") for variant in ("baseline", "candidate")]
    run = [verdict(case("a1", [ALPHA]), [[ALPHA]] * 3), judge(broken, trials, 0.05)]
    found = routing(run, "candidate", TARGET, with_interval=False)
    assert figures(found) == {ALPHA: (Count(1, 1), Count(1, 1), (), ())}
    assert found.cells == (Cell(ALPHA, ALPHA, 3),)


@pytest.mark.parametrize("variant", ["baseline", "candidate"])
def test_both_variants_cells_side_by_side(variant: VariantName) -> None:
    run = [
        verdict(case("a1", [ALPHA]), [[BETA]] * 3, baseline=[[ALPHA]] * 3),
        verdict(case("b1", [BETA]), [[BETA]] * 3),
    ]
    routes = {name: routing(run, name, TARGET, with_interval=False) for name in VARIANTS}
    assert both_cells(routes) == [(ALPHA, ALPHA, 3, 0), (ALPHA, BETA, 0, 3), (BETA, BETA, 3, 3)]
    assert changed_cells(routes) == [(ALPHA, ALPHA, 3, 0), (ALPHA, BETA, 0, 3)]
    assert routes[variant].ambiguous == ()
