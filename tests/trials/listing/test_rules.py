"""An agent's rules record is read from its data file by field name (`rules_from`)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

import pytest

from activation.trials.agents.gemini.listing import GeminiRules, packaged_rules
from activation.trials.listing.model import packaged, rules_from


@dataclass(frozen=True)
class Facts:
    version: str
    cut: int
    names: frozenset[str]


def test_each_field_comes_from_the_first_table_that_has_it_unless_computed() -> None:
    budget = {"cut": 9, "version": "2.0"}
    data = {"version": "1.0", "cut": 5, "budget": budget}
    facts = rules_from(Facts, (budget, data), names=frozenset({"a"}))
    assert facts == Facts(version="2.0", cut=9, names=frozenset({"a"}))


def test_a_field_no_table_has_is_a_key_error_naming_it() -> None:
    with pytest.raises(KeyError) as raised:
        rules_from(Facts, ({"version": "1.0"},), names=frozenset())
    assert raised.value.args == ("cut",)


def test_the_packaged_rules_are_read_once() -> None:
    assert packaged_rules() is packaged_rules()
    text = packaged("activation.trials.agents.gemini", "gemini-cli-0.61.0.toml")
    assert packaged_rules() == GeminiRules.from_data(tomllib.loads(text))
