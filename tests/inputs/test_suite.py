"""The bundled suite: the case matrix, the distractor menu and the calibration controls."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from activation._config import DESCRIPTION_LIMIT
from activation._models import Case
from activation.inputs.cases import check_cases
from activation.inputs.frontmatter import split_document
from activation.inputs.lint import GROUPS, lint
from activation.inputs.load import load_cases, load_distractors
from activation.inputs.suite import (
    BUNDLED_CASES,
    BUNDLED_CONTROLS,
    BUNDLED_SKILL,
    BUNDLED_SUITE,
    DISTRACTOR_SETS,
)

REPO = Path(__file__).resolve().parents[2]

AUTH0_SHORT = (
    "Helps developers add or fix authentication with Auth0 in any framework, "
    "and use or configure any Auth0 feature."
)
AUTH0_LONG = (
    "Use when adding login or sign-up to any app, debugging auth errors (401s, CORS, callback "
    "mismatch, expired tokens), securing tokens and multi-tenant setups, adding MFA, passkeys, "
    "Organizations or custom domains, customizing the Universal Login page, or migrating users "
    "from Firebase Auth, Cognito, Clerk or another provider. Covers React, Next.js, Vue, "
    "Angular, Express, Flask, FastAPI, Django, Spring Boot, Laravel, Rails, ASP.NET Core, Go, "
    "Swift, Android, Flutter, React Native, Expo and more."
)
"""A feature- and framework-listing description: the hardest kind for the echo check."""

AUTH_ADJACENT = {"cloud-iam", "kubernetes-ops", "api-hardening", "session-cache-infra"}
ORDINARY = {"stripe-payments", "charts-dashboards", "test-writer", "database-performance"}


@pytest.fixture(scope="module")
def cases() -> tuple[Case, ...]:
    return load_cases(BUNDLED_CASES).cases


@pytest.fixture(scope="module")
def document() -> dict[str, object]:
    data = orjson.loads(BUNDLED_CASES.read_bytes())
    assert isinstance(data, dict)
    return data


def test_the_package_links_to_the_suite_at_the_top_of_the_repository() -> None:
    assert BUNDLED_SUITE == REPO / "activation" / "suite"
    assert BUNDLED_CASES.resolve() == REPO / "cases.json"
    for name, folder in DISTRACTOR_SETS.items():
        assert folder.resolve() == REPO / "distractors" / name
    assert BUNDLED_CONTROLS.resolve() == REPO / "calibration" / "controls"
    distractors = BUNDLED_SUITE / "distractors"
    for link in (BUNDLED_CASES, distractors, BUNDLED_CONTROLS):
        assert link.is_symlink() and not Path(link.readlink()).is_absolute(), link


def test_the_suite_says_which_skill_it_was_written_for(document: dict[str, object]) -> None:
    assert document["skill"] == BUNDLED_SKILL == "auth0:auth0"
    for control in ("narrow", "broad"):
        path = BUNDLED_CONTROLS / control / "SKILL.md"
        skill = split_document(path.read_text(encoding="utf-8"), str(path))
        assert skill.frontmatter["skill"] == "auth0:auth0"


def test_at_least_40_cases_in_every_group(cases: tuple[Case, ...]) -> None:
    assert len(cases) >= 40
    groups = Counter(tag for case in cases for tag in case.tags if tag in GROUPS)
    assert set(groups) == set(GROUPS)
    assert all(groups[group] >= 8 for group in GROUPS), groups
    for case in cases:
        assert sum(tag in GROUPS for tag in case.tags) == 1, case.id
        assert ("negative" in case.tags) == (not case.should_activate), case.id


def test_spot_checks_cover_both_polarities(cases: tuple[Case, ...]) -> None:
    spot = [case for case in cases if case.spot_check]
    assert len(spot) >= 12
    assert {case.should_activate for case in spot} == {True, False}
    assert min(Counter(case.should_activate for case in spot).values()) >= 5


def test_every_positive_has_a_negative_twin(cases: tuple[Case, ...]) -> None:
    by_id = {case.id: case for case in cases}
    for case in cases:
        if case.should_activate:
            assert case.twin in by_id, case.id
            assert not by_id[case.twin].should_activate, case.id


def test_negatives_include_near_misses_and_no_home_cases(cases: tuple[Case, ...]) -> None:
    negatives = [case for case in cases if not case.should_activate]
    assert sum("near-miss" in case.tags for case in negatives) >= 10
    assert sum("no-home" in case.tags for case in negatives) >= 10


def test_omissions_are_listed_with_reasons(document: dict[str, object]) -> None:
    omitted = document["_omitted_on_purpose"]
    assert isinstance(omitted, list) and omitted
    for entry in omitted:
        assert isinstance(entry, dict)
        assert entry["prompt"].strip() and entry["reason"].strip()


@pytest.mark.parametrize("description", [AUTH0_SHORT, AUTH0_LONG], ids=["short", "long"])
def test_bundled_cases_pass_lint_without_findings(
    document: dict[str, object], description: str
) -> None:
    assert lint(check_cases(document), description, strict=True) == ()


@pytest.mark.parametrize("control", ["narrow", "broad"])
def test_controls_parse_and_the_cases_lint_clean_against_them(
    document: dict[str, object], control: str
) -> None:
    path = BUNDLED_CONTROLS / control / "SKILL.md"
    skill = split_document(path.read_text(encoding="utf-8"), str(path))
    assert skill.name == "auth0"
    assert len(skill.description) <= DESCRIPTION_LIMIT
    assert skill.body.strip()
    findings = lint(check_cases(document), skill.description, strict=True)
    assert [finding for finding in findings if finding.level == "error"] == []


def test_controls_say_what_they_are() -> None:
    def description(control: str) -> str:
        path = BUNDLED_CONTROLS / control / "SKILL.md"
        return split_document(path.read_text(encoding="utf-8"), str(path)).description

    assert "explicitly asks for the auth0 skill by name" in description("narrow")
    assert "any software development task" in description("broad")


def test_bundled_distractors() -> None:
    skills = load_distractors(DISTRACTOR_SETS["auth0"])
    names = [skill.name for skill in skills]
    assert len(skills) >= 8
    assert len(set(names)) == len(names)
    assert set(names) >= AUTH_ADJACENT | ORDINARY
    assert "auth0" not in " ".join(names)
    for skill in skills:
        assert skill.name == skill.name.lower() and " " not in skill.name
        assert skill.description is not None
        assert "\n" not in skill.description
        assert skill.description.startswith("Use when")
        assert len(skill.description) < DESCRIPTION_LIMIT // 2
