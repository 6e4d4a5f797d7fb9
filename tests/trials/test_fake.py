"""The in-memory backend: scripted answers, seeded rates that do not depend on the order trials
run in, and trials shaped as the real backends shape them."""

from __future__ import annotations

import random

import anyio

from activation._models import Case, ErrorClass, Trial, TrialKey, Usage, VariantName
from activation.trials.fake import CaseKey, FakeBackend, Script, at_rates, scripted

A = Case("a", "refund order 1234", True, "names refunds")
B = Case("b", "plot monthly revenue", False, "charts")


def keys(*cases: Case, trials: int = 10) -> list[TrialKey]:
    variants: tuple[VariantName, ...] = ("baseline", "candidate")
    return [
        TrialKey(case, variant, i) for case in cases for variant in variants for i in range(trials)
    ]


def answers(script: Script, case: Case, variant: VariantName, trials: int = 10) -> list[int]:
    """The answers as 1 (activated), 0 (not) or -1 (error), by trial index."""
    coded = {True: 1, False: 0, None: -1}
    return [coded[script(TrialKey(case, variant, index))] for index in range(trials)]


# --- scripted -------------------------------------------------------------------------------


def test_scripted_answers_by_index_and_repeats_the_sequence() -> None:
    script = scripted({"a": [True, False, None]})
    assert answers(script, A, "baseline", 7) == [1, 0, -1, 1, 0, -1, 1]
    assert answers(script, A, "candidate", 7) == [1, 0, -1, 1, 0, -1, 1]


def test_scripted_pair_wins_over_the_case_and_unknown_cases_get_the_default() -> None:
    script = scripted({"a": [True], ("a", "candidate"): [False, None]}, default=None)
    assert answers(script, A, "baseline", 3) == [1, 1, 1]
    assert answers(script, A, "candidate", 3) == [0, -1, 0]
    assert answers(script, B, "baseline", 2) == [-1, -1]
    assert answers(scripted({}), B, "candidate", 2) == [0, 0]


# --- at_rates -------------------------------------------------------------------------------


def test_at_rates_draws_each_trial_from_its_own_seeded_stream() -> None:
    """The draw depends on the seed, the case, the variant and the index, nothing else."""
    script = at_rates({"a": 0.5, "b": 0.5}, seed=7)
    drawn = answers(script, A, "baseline", 40)
    assert answers(at_rates({"a": 0.5}, seed=7), A, "baseline", 40) == drawn
    assert answers(at_rates({"a": 0.5}, seed=8), A, "baseline", 40) != drawn
    assert answers(script, A, "candidate", 40) != drawn
    assert answers(script, B, "baseline", 40) != drawn
    assert set(drawn) == {0, 1}


def test_at_rates_pair_wins_and_a_higher_rate_only_adds_activations() -> None:
    """Each trial's draw is compared with the rate, so raising a rate turns some answers
    from False to True and never one from True to False."""
    lower = at_rates({"a": 0.2, ("a", "candidate"): 1.0}, default=0.0, seed=5)
    higher = at_rates({"a": 0.6, ("a", "candidate"): 1.0}, default=0.0, seed=5)
    assert answers(lower, A, "candidate", 20) == [1] * 20
    assert answers(lower, B, "baseline", 20) == [0] * 20
    low, high = answers(lower, A, "baseline", 100), answers(higher, A, "baseline", 100)
    assert [max(a, b) for a, b in zip(low, high, strict=True)] == high
    assert sum(low) < sum(high)


def test_at_rates_gives_the_same_answer_for_a_key_whatever_the_order() -> None:
    rates: dict[CaseKey, float] = {"a": 0.5, "b": 0.3}
    in_order = at_rates(rates, seed=3)
    expected = {key: in_order(key) for key in keys(A, B)}
    shuffled = keys(A, B)
    random.Random(1).shuffle(shuffled)
    again = at_rates(rates, seed=3)
    assert {key: again(key) for key in shuffled} == expected
    assert {key: again(key) for key in reversed(shuffled)} == expected


# --- FakeBackend ----------------------------------------------------------------------------


def run_all(backend: FakeBackend, trial_keys: list[TrialKey]) -> list[Trial]:
    """The trials run concurrently, as the engine runs them; returned in key order."""
    done: dict[TrialKey, Trial] = {}

    async def one(key: TrialKey) -> None:
        done[key] = await backend.run(key)

    async def main() -> None:
        async with backend, anyio.create_task_group() as group:
            for key in trial_keys:
                group.start_soon(one, key)

    anyio.run(main)
    return [done[key] for key in trial_keys]


def test_fake_trials_read_as_the_real_backends_trials() -> None:
    backend = FakeBackend(scripted({"a": [True, False, None]}))
    trial_keys = [TrialKey(A, "baseline", index) for index in range(3)]
    assert run_all(backend, trial_keys) == [
        Trial("a", "baseline", 0, True, evidence="scripted: activated", usage=Usage(requests=1),
              correct=A.should_activate),
        Trial("a", "baseline", 1, False, "scripted: not activated", usage=Usage(requests=1),
              correct=not A.should_activate),
        Trial("a", "baseline", 2, None, error="scripted error", usage=Usage(requests=1),
              error_class=ErrorClass.MODEL),
    ]  # fmt: skip
    assert backend.calls == 3
    assert [trial.is_error for trial in run_all(backend, trial_keys)] == [False, False, True]
    assert backend.calls == 6


def test_concurrent_trials_with_latency_get_the_answers_of_their_keys() -> None:
    script = at_rates({"a": 0.5, "b": 0.3}, seed=3)
    trial_keys = keys(A, B)
    trials = run_all(FakeBackend(script, latency=0.001), trial_keys)
    assert [trial.activated for trial in trials] == [script(key) for key in trial_keys]
