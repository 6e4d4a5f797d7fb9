"""The train/select/holdback splits: seeded, stratified, and stable as a suite grows.

The ids below were picked for where their hashes fall at seed 0 (sha256 of `0:<id>`):
c34 0.0078, c29 0.0370 and c51 0.3936 (train band, [0, 0.4)); c2 0.5226 and
c40 0.6093 (select band, [0.4, 0.7)); c7 0.7537 and c31 0.8922 (holdback band, [0.7, 1)).
"""

from __future__ import annotations

import argparse
import hashlib
import json

import pytest

from activation import _config
from activation._errors import InputError
from activation._models import Case
from activation.inputs.cases import check_cases
from activation.inputs.splits import (
    SPLITS,
    Splits,
    assign_splits,
    case_hash,
    cases_needed,
    check_splits,
    parse_shares,
)
from activation.inputs.suite import BUNDLED_CASES

TARGET = "billing:refunds"


def case(
    case_id: str,
    positive: bool = True,
    group: str = "keyword-loss",
    expect: tuple[str, ...] | None = None,
) -> Case:
    return Case(case_id, f"prompt {case_id}", positive, "why", (group,), expect=expect)


def band(case_id: str, seed: int = 0) -> str:
    """The band by the rule, computed here without the module."""
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    place = int.from_bytes(digest[:8], "big") / 2**64
    return "train" if place < 0.4 else "select" if place < 0.7 else "holdback"


def layout(splits: Splits) -> dict[str, tuple[str, ...]]:
    return {split: splits.ids(split) for split in SPLITS}


def test_the_defaults() -> None:
    assert _config.SUGGEST_SHARES == (0.4, 0.3, 0.3)
    assert _config.SUGGEST_MIN_CASES == (6, 7, 7)
    assert _config.SUGGEST_STRATUM == 3


def test_the_hash_is_sha256_of_seed_and_id() -> None:
    expected = int.from_bytes(hashlib.sha256(b"0:c34").digest()[:8], "big") / 2**64
    assert case_hash("c34", 0) == expected
    assert round(case_hash("c34", 0), 4) == 0.0078
    assert case_hash("c34", 1) != case_hash("c34", 0)


def test_a_large_stratum_is_its_bands() -> None:
    cases = [case(f"c{i}") for i in range(60)]
    splits = assign_splits(cases, TARGET, 0)
    assert splits.moved == ()
    for split in SPLITS:
        assert splits.ids(split) == tuple(c.id for c in cases if band(c.id) == split)
    assert [len(splits.ids(split)) for split in SPLITS] == [28, 15, 17]


def test_adding_cases_moves_no_case_of_a_stratum_with_every_split() -> None:
    old = [case(f"c{i}") for i in range(60)]
    before = assign_splits(old, TARGET, 0)
    grown = [
        *old,
        *(case(f"new{i}") for i in range(40)),
        *(case(f"neg{i}", False, "negative") for i in range(3)),
    ]
    after = assign_splits(grown, TARGET, 0)
    assert [before.of(c.id) for c in old] == [after.of(c.id) for c in old]


def test_the_seed_changes_the_assignment() -> None:
    cases = [case(f"c{i}") for i in range(60)]
    assert layout(assign_splits(cases, TARGET, 0)) != layout(assign_splits(cases, TARGET, 1))
    assert layout(assign_splits(cases, TARGET, 7)) == layout(assign_splits(cases, TARGET, 7))


def test_a_stratum_of_three_gets_a_case_in_every_split() -> None:
    """All three hashes fall in train: c51 is nearest the select band, then of the two left
    in train c29 is nearer the holdback band."""
    splits = assign_splits([case("c34"), case("c29"), case("c51")], TARGET, 0)
    assert layout(splits) == {"train": ("c34",), "select": ("c51",), "holdback": ("c29",)}
    assert splits.moved == ("c29", "c51")


def test_a_stratum_of_two_keeps_its_bands() -> None:
    splits = assign_splits([case("c34"), case("c29")], TARGET, 0)
    assert layout(splits) == {"train": ("c34", "c29"), "select": (), "holdback": ()}
    assert splits.moved == ()


def test_strata_are_expected_skill_by_group() -> None:
    by_group = [case("c34"), case("c29", group="indirect"), case("c51", group="negative")]
    assert assign_splits(by_group, TARGET, 0).moved == ()
    by_skill = [case("c34"), case("c29", expect=("billing:disputes",)), case("c51", False)]
    assert assign_splits(by_skill, TARGET, 0).moved == ()
    same = [case("c34", expect=(TARGET,)), case("c29"), case("c51")]
    assert assign_splits(same, TARGET, 0).moved == ("c29", "c51")


def test_a_moved_case_goes_back_to_its_band_when_another_fills_the_split() -> None:
    three = [case("c34"), case("c29"), case("c51")]
    four = assign_splits([*three, case("c31")], TARGET, 0)
    assert layout(four) == {"train": ("c34", "c29"), "select": ("c51",), "holdback": ("c31",)}
    assert four.moved == ("c51",)
    five = assign_splits([*three, case("c31"), case("c2")], TARGET, 0)
    assert layout(five) == {
        "train": ("c34", "c29", "c51"),
        "select": ("c2",),
        "holdback": ("c31",),
    }
    assert five.moved == ()


def test_a_small_stratum_may_move_a_case_that_was_in_its_band() -> None:
    """What the rule lets move: with select holding two, c40 (nearer holdback than the
    train cases) can be given up, and c29 goes back to train."""
    before = assign_splits([case("c34"), case("c29"), case("c40")], TARGET, 0)
    assert layout(before) == {"train": ("c34",), "select": ("c40",), "holdback": ("c29",)}
    after = assign_splits([case("c34"), case("c29"), case("c40"), case("c2")], TARGET, 0)
    assert layout(after) == {"train": ("c34", "c29"), "select": ("c2",), "holdback": ("c40",)}
    assert after.moved == ("c40",)


def test_shares_are_scaled_to_add_up_to_one() -> None:
    cases = [case(f"c{i}") for i in range(60)]
    scaled = assign_splits(cases, TARGET, 0, (4.0, 3.0, 3.0))
    assert layout(scaled) == layout(assign_splits(cases, TARGET, 0))
    even = assign_splits(cases, TARGET, 0, (0.5, 0.25, 0.25))
    assert even.of("c51") == "train" and even.of("c40") == "select" and even.of("c7") == "holdback"


def test_shares_must_be_three_positive_numbers() -> None:
    with pytest.raises(ValueError, match=r"shares must be three positive numbers"):
        assign_splits([case("c1")], TARGET, 0, (0.5, 0.5, 0.0))


def test_of_names_the_split_and_refuses_an_unknown_id() -> None:
    splits = Splits(("a",), ("b",), ("c",), 0, (0.4, 0.3, 0.3))
    assert [splits.of(i) for i in "abc"] == ["train", "select", "holdback"]
    with pytest.raises(KeyError):
        splits.of("d")


@pytest.mark.parametrize(
    ("value", "shares"),
    [
        ("40/30/30", (0.4, 0.3, 0.3)),
        ("50/25/25", (0.5, 0.25, 0.25)),
        ("0.6/0.2/0.2", (0.6, 0.2, 0.2)),
    ],
)
def test_parse_shares(value: str, shares: tuple[float, float, float]) -> None:
    assert parse_shares(value) == pytest.approx(shares)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("40/60", "must be three shares train/select/holdback adding up to 100, like 40/30/30; "
                  "got '40/60'"),
        ("a/b/c", "must be three shares train/select/holdback adding up to 100, like 40/30/30; "
                  "got 'a/b/c'"),
        ("nan/50/50", "must be three shares train/select/holdback adding up to 100, like "
                      "40/30/30; got 'nan/50/50'"),
        ("50/30/30", "must be three shares train/select/holdback adding up to 100, like "
                     "40/30/30; '50/30/30' adds up to 110"),
        ("0/50/50", "every split needs a share above 0; got '0/50/50'"),
    ],
)  # fmt: skip
def test_parse_shares_refuses_in_one_line(value: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        parse_shares(value)
    assert str(raised.value) == message


def test_cases_needed() -> None:
    assert cases_needed() == 40
    assert cases_needed((0.8, 0.1, 0.1)) == 120


def small_splits() -> tuple[Splits, list[Case]]:
    """12 cases: train 6, select 3 (all positive), holdback 3 (all negative)."""
    cases = [case(f"p{i}") for i in range(9)] + [case(f"n{i}", False) for i in range(3)]
    ids = [c.id for c in cases]
    return Splits(tuple(ids[:6]), tuple(ids[6:9]), tuple(ids[9:]), 0, (0.4, 0.3, 0.3)), cases


def test_check_splits_says_what_is_missing_and_how_many_cases_it_takes() -> None:
    splits, cases = small_splits()
    with pytest.raises(InputError) as raised:
        check_splits(splits, cases, TARGET)
    assert str(raised.value) == (
        "the suite has 12 cases: the select split has 3 (needs 7), the holdback split has 3 "
        "(needs 7), the select split has no case that should not load billing:refunds, the "
        "holdback split has no case that should load billing:refunds: suggest needs about "
        "40 cases"
    )


def test_check_splits_on_sides_alone_asks_for_such_cases() -> None:
    cases = [case(f"p{i}") for i in range(20)] + [case(f"n{i}", False) for i in range(7)]
    train, select = [c.id for c in cases[:6]], [c.id for c in cases[6:13]]
    splits = Splits(tuple(train), tuple(select), tuple(c.id for c in cases[13:]), 0, (1, 1, 1))
    with pytest.raises(InputError) as raised:
        check_splits(splits, cases, TARGET)
    assert str(raised.value) == (
        "the suite has 27 cases: the select split has no case that should not load "
        "billing:refunds: add such cases, or try another --seed"
    )


def test_a_routing_positive_counts_for_its_skill() -> None:
    """A case expecting the target is a positive; one expecting a sibling is a negative."""
    cases = [case(f"p{i}", expect=(TARGET,)) for i in range(13)]
    cases += [case(f"s{i}", expect=("billing:disputes",)) for i in range(8)]
    ids = [c.id for c in cases]
    splits = Splits(tuple(ids[:6]), (*ids[6:10], *ids[13:16]), (*ids[10:13], *ids[16:]), 0,
                    (0.4, 0.3, 0.3))  # fmt: skip
    check_splits(splits, cases, TARGET)


def test_the_bundled_suite_passes_at_every_seed_tried() -> None:
    cases = check_cases(json.loads(BUNDLED_CASES.read_text())).cases
    target = "auth0:auth0"
    for seed in range(50):
        splits = assign_splits(cases, target, seed)
        check_splits(splits, cases, target)
        assert sorted((*splits.train, *splits.select, *splits.holdback)) == sorted(
            c.id for c in cases
        )
