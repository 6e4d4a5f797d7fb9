"""What a change touched per skill (inputs/changes.py) and what it must run
(inputs/change_plan.py): pure, on trees written here, no disk and no git."""

from __future__ import annotations

from pathlib import Path

import git
import orjson
import pytest

from activation.inputs.change_plan import CasesFile, GateRun, Suites, find_suites, plan_runs
from activation.inputs.changes import (
    SkillChange,
    in_skill_roots,
    is_cases_file,
    may_hold_cases,
    skill_changes,
    skills_in,
)
from activation.inputs.git_tree import deleted_paths


def skill(description: str, body: str = "Steps.\n", **more: str) -> bytes:
    extra = "".join(f"{key}: {value}\n" for key, value in more.items())
    return f"---\ndescription: {description}\n{extra}---\n{body}".encode()


MANIFEST = orjson.dumps({"name": "billing"})
BASE = {
    "plugins/pay/.claude-plugin/plugin.json": MANIFEST,
    "plugins/pay/skills/refunds/SKILL.md": skill("Use when issuing refunds."),
    "plugins/pay/skills/refunds/reference.md": b"Refund API.\n",
    "plugins/pay/skills/refunds/cases.json": b"{}",
    "plugins/pay/skills/disputes/SKILL.md": skill("Use when answering disputes."),
    "plugins/docs/skills/style/SKILL.md": skill("Use when editing prose."),
    ".claude/skills/deploy/SKILL.md": skill("Use when deploying."),
}


def changed(edits: dict[str, bytes | None]) -> dict[str, bytes]:
    """BASE with files replaced (None: removed)."""
    head = dict(BASE)
    for path, value in edits.items():
        if value is None:
            head.pop(path)
        else:
            head[path] = value
    return head


def kinds(base: dict[str, bytes], head: dict[str, bytes]) -> dict[str, tuple[str, ...]]:
    return {change.id: change.kinds for change in skill_changes(base, head)}


def test_skills_are_found_with_their_sets_and_ids() -> None:
    found = skills_in(BASE)
    assert {path: (place.id, place.set_root) for path, place in found.items()} == {
        ".claude/skills/deploy/SKILL.md": ("deploy", ".claude/skills"),
        "plugins/docs/skills/style/SKILL.md": ("docs:style", "plugins/docs/skills"),
        "plugins/pay/skills/disputes/SKILL.md": ("billing:disputes", "plugins/pay/skills"),
        "plugins/pay/skills/refunds/SKILL.md": ("billing:refunds", "plugins/pay/skills"),
    }


def test_where_skills_are_looked_for() -> None:
    assert in_skill_roots("plugins/a/skills/b/SKILL.md")
    assert in_skill_roots("skills/b/ref.md")
    assert in_skill_roots("tools/.claude/skills/b/SKILL.md")
    assert not in_skill_roots("README.md")
    assert not in_skill_roots("src/skills/b/SKILL.md")


def test_nothing_changed_is_no_change() -> None:
    assert skill_changes(BASE, dict(BASE)) == ()


def test_a_description_edit_is_a_description_change() -> None:
    head = changed(
        {"plugins/pay/skills/refunds/SKILL.md": skill("Use for refunds and chargebacks.")}
    )
    assert kinds(BASE, head) == {"billing:refunds": ("description",)}


@pytest.mark.parametrize("key", ["when_to_use", "name", "disable-model-invocation"])
def test_every_listed_key_is_a_description_change(key: str) -> None:
    head = changed(
        {"plugins/pay/skills/refunds/SKILL.md": skill("Use when issuing refunds.", **{key: "x"})}
    )
    assert kinds(BASE, head) == {"billing:refunds": ("description",)}


def test_a_body_edit_and_a_reference_edit_are_body_changes() -> None:
    body = changed(
        {"plugins/pay/skills/refunds/SKILL.md": skill("Use when issuing refunds.", "New steps.\n")}
    )
    assert kinds(BASE, body) == {"billing:refunds": ("body",)}
    reference = changed({"plugins/pay/skills/refunds/reference.md": b"Refund API v2.\n"})
    assert kinds(BASE, reference) == {"billing:refunds": ("body",)}
    added = changed({"plugins/pay/skills/refunds/scripts/run.py": b"print(1)\n"})
    assert kinds(BASE, added) == {"billing:refunds": ("body",)}


def test_an_agents_metadata_file_is_part_of_the_listing() -> None:
    policy = b"policy:\n  allow_implicit_invocation: false\n"
    added = changed({"plugins/pay/skills/refunds/agents/openai.yaml": policy})
    assert kinds(BASE, added) == {"billing:refunds": ("description",)}
    other = changed({"plugins/pay/skills/refunds/agents/notes.md": b"Notes.\n"})
    assert kinds(BASE, other) == {"billing:refunds": ("body",)}
    deeper = changed({"plugins/pay/skills/refunds/scripts/agents/openai.yaml": policy})
    assert kinds(BASE, deeper) == {"billing:refunds": ("body",)}


def test_both_at_once_and_other_frontmatter() -> None:
    head = changed(
        {
            "plugins/pay/skills/refunds/SKILL.md": skill(
                "Use for chargebacks.", "New.\n", license="MIT"
            )
        }
    )
    assert kinds(BASE, head) == {"billing:refunds": ("description", "body", "other")}


def test_the_skills_own_cases_and_evals_are_other_changes() -> None:
    head = changed(
        {
            "plugins/pay/skills/refunds/cases.json": b'{"cases": []}',
            "plugins/pay/skills/disputes/evals/one/PROMPT.md": b"Do it.\n",
        }
    )
    assert kinds(BASE, head) == {"billing:disputes": ("other",), "billing:refunds": ("other",)}


def test_files_outside_any_skill_folder_change_no_skill() -> None:
    head = changed({"plugins/pay/README.md": b"About.\n", "README.md": b"Hello.\n"})
    assert skill_changes(BASE, head) == ()


def test_added_and_removed_skills() -> None:
    head = changed(
        {
            "plugins/pay/skills/payouts/SKILL.md": skill("Use when paying out."),
            ".claude/skills/deploy/SKILL.md": None,
        }
    )
    found = {change.id: (change.status, change.kinds) for change in skill_changes(BASE, head)}
    assert found == {
        "billing:payouts": ("added", ("description", "body")),
        "deploy": ("removed", ()),
    }


def test_a_broken_head_frontmatter_is_the_skills_finding_not_an_error() -> None:
    """Changed behaviour: it was an input error that stopped every other skill's gates.
    Changed again on purpose: its kinds are told by the text (the description's line and
    the body both changed), where they were "description" whatever changed."""
    head = changed({"plugins/pay/skills/refunds/SKILL.md": b'---\ndescription: "unclosed\n---\n'})
    (change,) = skill_changes(BASE, head)
    assert (change.id, change.kinds, change.status, change.broken_before) == (
        "billing:refunds",
        ("description", "body"),
        "modified",
        False,
    )
    assert change.broken == (
        "head:plugins/pay/skills/refunds/SKILL.md:2: the frontmatter is not valid YAML "
        "(while scanning a quoted scalar)"
    )


UNPARSED = "---\ndescription: |\n  Use when issuing refunds.\ncompatibility: Needs A. Optional: B\n"


@pytest.mark.parametrize(
    ("edited", "kinds"),
    [
        (UNPARSED + "---\nSteps.\nMore steps.\n", ("body",)),
        (UNPARSED.replace("issuing", "making") + "---\nSteps.\n", ("description",)),
        (UNPARSED.replace("Needs A", "Needs C") + "---\nSteps.\n", ("other",)),
        ("# no frontmatter\nSteps.\n", ("description", "body")),
    ],
)
def test_a_skill_broken_at_both_versions_changed_where_its_text_did(
    edited: str, kinds: tuple[str, ...]
) -> None:
    base = changed({"plugins/pay/skills/refunds/SKILL.md": (UNPARSED + "---\nSteps.\n").encode()})
    head = {**base, "plugins/pay/skills/refunds/SKILL.md": edited.encode()}
    (change,) = skill_changes(base, head)
    assert (change.kinds, change.broken_before, change.broken is not None) == (kinds, True, True)


# --- the planner -------------------------------------------------------------------------

HEAD = skills_in(BASE)
REFUNDS, DISPUTES = "plugins/pay/skills/refunds/SKILL.md", "plugins/pay/skills/disputes/SKILL.md"
STYLE = "plugins/docs/skills/style/SKILL.md"
SUITES = {
    REFUNDS: Suites("plugins/pay/skills/refunds/cases.json", "plugins/pay/skills/refunds/evals"),
    DISPUTES: Suites("plugins/pay/skills/disputes/cases.json"),
    STYLE: Suites("plugins/docs/skills/style/cases.json"),
}


def change(path: str, *kinds: str, status: str = "modified") -> SkillChange:
    return SkillChange(HEAD[path], kinds, (path,), status)  # type: ignore[arg-type]


def runs(plan_: tuple[GateRun, ...]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(run.kind, run.place.id, run.because) for run in plan_]


def test_a_description_change_gates_the_skill_and_its_set_not_other_sets() -> None:
    plan = plan_runs([change(REFUNDS, "description")], HEAD, SUITES)
    assert runs(plan.runs) == [
        ("activation", "billing:disputes", ("billing:refunds",)),
        ("activation", "billing:refunds", ("billing:refunds",)),
    ]
    assert plan.untested == ()


def test_a_body_change_runs_the_behavior_suite_only() -> None:
    plan = plan_runs([change(REFUNDS, "body")], HEAD, SUITES)
    assert runs(plan.runs) == [("behavior", "billing:refunds", ("billing:refunds",))]
    assert plan.runs[0].suite == "plugins/pay/skills/refunds/evals"


def test_a_body_change_without_a_behavior_suite_is_untested() -> None:
    plan = plan_runs([change(DISPUTES, "body")], HEAD, SUITES)
    assert plan.runs == ()
    assert [(item.change.id, item.untested) for item in plan.untested] == [
        ("billing:disputes", ("body",))
    ]


def test_a_description_change_without_cases_is_untested_but_its_siblings_still_run() -> None:
    suites = {DISPUTES: SUITES[DISPUTES]}
    plan = plan_runs([change(REFUNDS, "description", "body")], HEAD, suites)
    assert runs(plan.runs) == [("activation", "billing:disputes", ("billing:refunds",))]
    assert plan.untested[0].untested == ("description", "body")


def test_two_changed_siblings_share_one_gate_each() -> None:
    plan = plan_runs(
        [change(DISPUTES, "description"), change(REFUNDS, "description")], HEAD, SUITES
    )
    assert runs(plan.runs) == [
        ("activation", "billing:disputes", ("billing:disputes", "billing:refunds")),
        ("activation", "billing:refunds", ("billing:disputes", "billing:refunds")),
    ]


def test_other_changes_run_nothing_and_are_not_untested() -> None:
    plan = plan_runs([change(STYLE, "other")], HEAD, {})
    assert (plan.runs, plan.untested, plan.relevant) == ((), (), True)


def test_no_change_plans_nothing() -> None:
    plan = plan_runs([], HEAD, SUITES)
    assert (plan.runs, plan.skills, plan.relevant) == ((), (), False)


def test_an_added_skill_gates_its_siblings_and_without_cases_is_untested() -> None:
    head = skills_in(
        changed({"plugins/pay/skills/payouts/SKILL.md": skill("Use when paying out.")})
    )
    added = SkillChange(
        head["plugins/pay/skills/payouts/SKILL.md"], ("description", "body"), (), "added"
    )
    plan = plan_runs([added], head, SUITES)
    assert runs(plan.runs) == [
        ("activation", "billing:disputes", ("billing:payouts",)),
        ("activation", "billing:refunds", ("billing:payouts",)),
    ]
    assert plan.untested[0].untested == ("description", "body")
    with_cases = {**SUITES, "plugins/pay/skills/payouts/SKILL.md": Suites("payouts.cases.json")}
    assert plan_runs([added], head, with_cases).untested == ()


def test_a_removed_skill_gates_its_siblings() -> None:
    removed = SkillChange(HEAD[DISPUTES], (), (DISPUTES,), "removed")
    head = {path: place for path, place in HEAD.items() if path != DISPUTES}
    plan = plan_runs([removed], head, SUITES)
    assert runs(plan.runs) == [("activation", "billing:refunds", ("billing:disputes",))]
    assert plan.untested == ()
    assert [skill.note for skill in plan.skills] == ["removed: its siblings' cases run"]


def test_a_removed_skill_whose_siblings_have_no_cases_says_none_run_and_names_its_file() -> None:
    """The note promised siblings' cases that never ran ("would run: nothing"), and the
    suite anchored to the removed skill went stale without a word."""
    removed = SkillChange(HEAD[DISPUTES], (), (DISPUTES,), "removed")
    head = {path: place for path, place in HEAD.items() if path != DISPUTES}
    files = [
        CasesFile("evals/routing.cases.json", "disputes"),
        CasesFile("suites/refunds.cases.json", "billing:refunds"),
    ]
    plan = plan_runs([removed], head, {}, files)
    assert plan.runs == ()
    assert [skill.note for skill in plan.skills] == [
        "removed: no sibling has cases of its own to run"
    ]
    # Changed on purpose: the stale file is a finding of the change (it fails), not a note.
    assert [skill.breaks for skill in plan.skills] == [
        (
            "evals/routing.cases.json is about billing:disputes, which this change removes: "
            "anchor it to another skill or remove it",
        )
    ]
    assert plan.breaking == plan.skills


# --- where each skill's suites are -----------------------------------------------------------


def test_cases_beside_a_skill_come_first_then_files_that_name_it() -> None:
    """Every file about a skill is its gate's, as the main run reads them (this changed on
    purpose: the first file found used to stand for all)."""
    files = [
        CasesFile("plugins/pay/skills/refunds/cases.json", None),
        CasesFile("suites/disputes.cases.json", "billing:disputes"),
        CasesFile("suites/style.cases.json", "style"),
        CasesFile("suites/refunds-too.cases.json", "billing:refunds"),
    ]
    folders = frozenset({"plugins/pay/skills/refunds/evals", "evals"})
    found = find_suites(HEAD, files, folders)
    assert found == {
        ".claude/skills/deploy/SKILL.md": Suites(None, None),
        DISPUTES: Suites("suites/disputes.cases.json", None),
        REFUNDS: Suites(
            "plugins/pay/skills/refunds/cases.json, suites/refunds-too.cases.json",
            "plugins/pay/skills/refunds/evals",
            ("plugins/pay/skills/refunds/cases.json", "suites/refunds-too.cases.json"),
        ),
        STYLE: Suites("suites/style.cases.json", None),  # a bare name names the folder
    }


def test_a_file_that_names_no_skill_is_the_only_skills() -> None:
    """Found or given: skill-creator keeps a one-skill repo's `evals/trigger-eval.json` at
    its root, naming no skill (this changed on purpose: a found file was no one's)."""
    only = {REFUNDS: HEAD[REFUNDS]}
    found = CasesFile("evals/trigger-eval.json", None)
    assert find_suites(only, [found], frozenset()) == {
        REFUNDS: Suites("evals/trigger-eval.json", None)
    }
    assert find_suites(only, [found], frozenset({"evals"})) == {
        REFUNDS: Suites("evals/trigger-eval.json", "evals")
    }
    assert find_suites(HEAD, [found], frozenset({"evals"}))[REFUNDS] == Suites()


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("cases.json", True),
        ("suites/billing-disputes.cases.json", True),
        ("plugins/pay/skills/refunds/evals/trigger-eval.json", True),
        ("evals/Trigger_Eval_Set.json", True),
        ("refunds-trigger-evals.json", True),
        ("trigger_tests.yaml", True),
        ("evals/refunds-trigger-evals.yml", True),
        ("evals/refunds.trigger.yml", False),
        (".github/workflows/trigger-deploy.yml", False),
        ("evals/eval-trigger.json", False),
        ("evals/refunds.jsonl", False),
        ("refunds.json", False),
        ("evals/graders.yaml", False),
        ("trigger-eval.md", False),
    ],
)
def test_cases_files_known_by_their_names(path: str, named: bool) -> None:
    assert is_cases_file(path) is named


FOLDERS = ("plugins/pay/skills/refunds", "plugins/pay/skills/disputes")


@pytest.mark.parametrize(
    ("path", "held"),
    [
        ("plugins/pay/skills/refunds/refunds.json", True),
        ("plugins/pay/skills/refunds/evals/evals.json", True),
        ("plugins/pay/skills/refunds.jsonl", True),
        ("plugins/pay/evals/negatives.jsonl", True),
        ("evals/refunds.ndjson", True),
        ("trigger_tests.yaml", True),
        ("plugins/pay/skills/refunds/scripts/data/rates.yml", True),
        ("plugins/pay/skills/refunds/reference.md", False),
        ("plugins/pay/.claude-plugin/plugin.json", False),
        ("docs/refunds.json", False),
        ("plugins/pay/skills/refunds-old/cases.yaml", False),
    ],
)
def test_where_case_files_may_lie(path: str, held: bool) -> None:
    assert may_hold_cases(path, FOLDERS) is held


def test_a_trigger_file_in_a_skill_folder_tests_it_rather_than_being_part_of_it() -> None:
    trigger = "plugins/pay/skills/refunds/trigger_tests.yaml"
    assert kinds(BASE, changed({trigger: b"should_trigger_prompts: [a]\n"})) == {
        "billing:refunds": ("other",)
    }


def test_a_skills_own_file_comes_before_one_elsewhere_and_evals_files_are_behavior() -> None:
    files = [
        CasesFile("evals/refunds.jsonl", "refunds"),
        CasesFile("plugins/pay/skills/refunds/evals/trigger-eval.json", "refunds"),
        CasesFile("plugins/pay/skills/disputes.jsonl", "disputes"),
        CasesFile("evals/negatives.jsonl", None),
    ]
    behavior = [
        CasesFile("suites/disputes.json", "billing:disputes"),
        CasesFile("suites/refunds.json", "billing:refunds"),
    ]
    folders = frozenset({"plugins/pay/skills/refunds/evals"})
    found = find_suites(HEAD, files, folders, behavior)
    assert found == {
        ".claude/skills/deploy/SKILL.md": Suites(None, None),
        DISPUTES: Suites("plugins/pay/skills/disputes.jsonl", "suites/disputes.json"),
        REFUNDS: Suites(
            "plugins/pay/skills/refunds/evals/trigger-eval.json, evals/refunds.jsonl",
            "plugins/pay/skills/refunds/evals",
            ("plugins/pay/skills/refunds/evals/trigger-eval.json", "evals/refunds.jsonl"),
        ),
        STYLE: Suites(None, None),
    }


def test_deleted_paths_are_the_last_commits_files_gone_from_the_working_tree(
    tmp_path: Path,
) -> None:
    """What lint checks a SKILL.md's prose against: none before the first commit or
    outside a repository; a deleted file, staged or not, relative to the folder asked."""
    assert deleted_paths(tmp_path) == []
    made = git.Repo.init(tmp_path)
    assert deleted_paths(tmp_path) == []  # no commit yet
    for name in ("skills/pdf/forms.md", "skills/pdf/reference.md", "skills/pdf/SKILL.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    made.git.add(A=True)
    made.git.commit(m="pdf", author="a <a@b.c>")
    (tmp_path / "skills/pdf/forms.md").unlink()
    made.git.rm("skills/pdf/reference.md")
    made.close()
    assert deleted_paths(tmp_path) == ["skills/pdf/forms.md", "skills/pdf/reference.md"]
    assert deleted_paths(tmp_path / "skills") == ["pdf/forms.md", "pdf/reference.md"]
