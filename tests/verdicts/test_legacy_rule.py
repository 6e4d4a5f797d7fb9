"""Every `should_activate` cases file judges exactly as before routing: the bundled suite's
file, its trials judged by the old rule (right when "the target fired" equals
`should_activate`) and by the new one (the skills that fired, in order), gives the same
counts, p-values, q-values and statuses."""

from __future__ import annotations

import random

from activation._models import VARIANTS, TrialKey
from activation.inputs.load import load_cases
from activation.inputs.suite import BUNDLED_CASES
from activation.verdicts.judge import Evidence, judge_all

TARGET = "auth0:auth0"
OTHERS = ("okta-cli", "aws-iam", "charts")
"""Skills a trial may choose besides the target (any names: the old rule never saw them)."""


def fired_at_random(rng: random.Random) -> tuple[str, ...]:
    """Nothing, the target, another skill, or both in either order."""
    other = rng.choice(OTHERS)
    return rng.choice([(), (TARGET,), (other,), (TARGET, other), (other, TARGET)])


def test_the_bundled_suite_judges_the_same_by_the_old_rule_and_the_new() -> None:
    cases = load_cases(BUNDLED_CASES).cases
    assert len(cases) > 30
    assert all(case.expect is None and not case.must_not for case in cases)
    rng = random.Random(14)
    old, new = [], []
    for case in cases:
        trials = rng.choice([3, 6, 9, 30])
        lean = {variant: rng.random() for variant in VARIANTS}
        old_trials, new_trials = [], []
        for index in range(trials):
            for variant in VARIANTS:
                key = TrialKey(case, variant, index)
                chose = fired_at_random(rng) if rng.random() < lean[variant] else ()
                if rng.random() < 0.02:
                    old_trials.append(key.failed("timed out"))
                    new_trials.append(key.failed("timed out"))
                    continue
                old_trials.append(key.answer(TARGET in chose))
                new_trials.append(key.fired(chose, TARGET))
        old.append(Evidence(case, old_trials))
        new.append(Evidence(case, new_trials))
    by_old, by_new = judge_all(old, 0.05), judge_all(new, 0.05)
    assert [v.status for v in by_new] == [v.status for v in by_old]
    assert [(v.p_value, v.q_value) for v in by_new] == [(v.p_value, v.q_value) for v in by_old]
    for before, after in zip(by_old, by_new, strict=True):
        for side in VARIANTS:
            was, now = getattr(before, side), getattr(after, side)
            assert (now.activated, now.valid, now.errors, now.correct) == (
                was.activated, was.valid, was.errors, was.correct,
            )  # fmt: skip
    assert len({v.status for v in by_new}) >= 4  # the trials reach several statuses
