"""`activation changed`: what a change touched decides what runs, in a real git repo of two
plugins (billing: refunds, disputes and invoices; docs: style). The activation gates run on
the mock model (or the local Messages API stand-in, to count requests), the behavior suite
on the scripted Stage C (tests/support/fake_behavior.py)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import git
import orjson
import pytest

from activation._config import BEHAVIOR_JUDGE_MODEL
from activation.commands.main import main
from activation.trials.behavior.stage import options_of
from activation.trials.stage import Stage
from tests.support.behavior_repo import example_repo
from tests.support.browser import Launcher, visit
from tests.support.cli import one_line_error
from tests.support.fake_agent_runs import fake_agent_on_path
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.fake_stages import FakeStages
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply
from tests.support.skill_repo import DISTRACTORS, RepoTemplates, commit_all, write_distractors

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "billing"
BILLING = "plugins/billing/skills"
STEALING = (EXAMPLE / "edits" / "refunds-takes-disputes.md").read_text()
STYLE = "---\nname: style\ndescription: Edit prose for the house style guide.\n---\n# Style\n"
PROMPT = "---\nid: refund_note\nname: A refund note\n---\n\n## Task\n\nWrite refund.txt.\n"
GRADERS = "- type: contains\n  value: refunded\n  description: Says refunded\n  level: L1\n"
STOLEN = ["chargeback-evidence", "bank-dispute", "bank-chargeback"]
"""The cases the mock model sends to refunds once its description takes disputes and asks
what to send (the example's edit; the README's run loses the same three)."""
BROKEN_ONE = {
    "welcome_banner": {"baseline": 3, "candidate": 0},
    "configure_once": {"baseline": 3, "candidate": 3},
    "batch_cards": {"baseline": 3, "candidate": 3},
}
"""The broken body breaks one case of the behavior example (as in test_behavior_command)."""


def cases_for(skill: str) -> bytes:
    data = orjson.loads((EXAMPLE / "cases.json").read_bytes())
    return orjson.dumps({**data, "skill": skill})


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_templates: RepoTemplates) -> Path:
    """Two plugins, committed on main: billing's refunds and disputes have cases (refunds
    a behavior suite too), invoices none; docs:style its own cases."""
    root = tmp_path / "repo"
    repo_templates.copy((two_plugins,), root, two_plugins)
    monkeypatch.chdir(root)
    return root


def two_plugins(root: Path) -> git.Repo:
    shutil.copytree(EXAMPLE / "plugins", root / "plugins")
    (root / BILLING / "refunds" / "cases.json").write_bytes(cases_for("billing:refunds"))
    (root / "billing-disputes.cases.json").write_bytes(cases_for("billing:disputes"))
    evals = root / BILLING / "refunds" / "evals" / "refund-note"
    evals.mkdir(parents=True)
    (evals / "PROMPT.md").write_text(PROMPT)
    (evals / "graders.yaml").write_text(GRADERS)
    style = root / "plugins" / "docs" / "skills" / "style"
    style.mkdir(parents=True)
    (style / "SKILL.md").write_text(STYLE)
    (style / "cases.json").write_bytes(
        orjson.dumps(
            {
                "skill": "docs:style",
                "cases": [
                    {
                        "id": "tone",
                        "prompt": "Edit this prose for the style guide",
                        "expect": "style",
                        "why": "house style",
                    }
                ],
            }
        )
    )
    return commit_all(root, "two plugins")


def edit(repo: Path, skill: str, old: str, new: str) -> None:
    path = repo / BILLING / skill / "SKILL.md"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def changed(
    tmp_path: Path,
    *flags: str,
    stages: Mapping[str, Stage] | None = None,
    name: str = "changed.json",
    summary: bool = False,
) -> tuple[int, dict[str, Any]]:
    report = tmp_path / name
    distractors = write_distractors(tmp_path / "distractors", DISTRACTORS)
    argv = [
        "changed",
        "--base",
        "git:main",
        "--json",
        str(report),
        *(() if summary else ("--no-summary",)),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--distractors",
        str(distractors),
        *flags,
    ]
    code = main(argv, stages or FakeBehavior(passing({})))
    return code, orjson.loads(report.read_bytes()) if report.exists() else {}


def gates(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, str]]:
    """(kind, skill) -> case id -> status, over every cell."""
    return {
        (gate["kind"], gate["skill"]): {
            entry["id"]: entry["status"] for cell in cells(gate["run"]) for entry in cell["cases"]
        }
        for gate in report["gates"]
    }


def cells(run: dict[str, Any]) -> list[dict[str, Any]]:
    """A gate's cell reports: a run of one cell is saved as that cell's report."""
    return list(run["cells"]) if "cells" in run else [run]


def flagged(statuses: dict[str, str]) -> dict[str, str]:
    return {case: status for case, status in statuses.items() if status not in ("PASS", "FAIL")}


def skills(report: dict[str, Any]) -> dict[str, tuple[str, list[str], list[str]]]:
    return {
        skill["id"]: (skill["status"], skill["kinds"], skill["untested"])
        for skill in report["skills"]
    }


def test_nothing_relevant_changed_exits_0_at_once_with_no_request(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_api: FakeMessagesAPI
) -> None:
    (repo / "README.md").write_text("A change outside every skill.\n")
    code, report = changed(tmp_path, "--model", "claude-haiku-4-5")
    assert fake_api.requests == []
    assert code == 0
    assert (report["skills"], report["gates"], report["exit_code"]) == ([], [], 0)
    captured = capsys.readouterr()
    assert "no skill changed between git:main and the working tree: nothing to run" in captured.err
    assert "OK: no skill changed; nothing to run." in captured.out


def test_a_description_change_gates_the_skill_and_its_siblings(repo: Path, tmp_path: Path) -> None:
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    stages = FakeBehavior(passing({}))
    code, report = changed(tmp_path, "--model", "mock", stages=stages)
    assert code == 1
    assert skills(report) == {"billing:refunds": ("modified", ["description"], [])}
    found = gates(report)
    assert sorted(found) == [("activation", "billing:disputes"), ("activation", "billing:refunds")]
    assert flagged(found[("activation", "billing:refunds")]) == dict.fromkeys(STOLEN, "REGRESSED")
    assert flagged(found[("activation", "billing:disputes")]) == dict.fromkeys(STOLEN, "REGRESSED")
    assert [gate["because"] for gate in report["gates"]] == [["billing:refunds"]] * 2
    assert stages.calls == 0  # no behavior suite: the body did not change


def test_a_body_change_runs_the_behavior_suite_only(repo: Path, tmp_path: Path) -> None:
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 0}}))
    code, report = changed(
        tmp_path, "--model", "mock", "--trials", "3", "--fail-on", "weakened", stages=stages
    )
    assert code == 1
    assert skills(report) == {"billing:refunds": ("modified", ["body"], [])}
    assert gates(report) == {("behavior", "billing:refunds"): {"refund_note": "REGRESSED"}}
    (spec, inputs, _backend) = stages.opened[0]
    assert (spec.stage, spec.model, spec.fail_on) == ("C", None, ("weakened",))
    assert inputs.target.skill_id == "billing:refunds"
    assert "Email the customer" in inputs.candidate.text
    assert "Email the customer" not in inputs.baseline.text


def test_a_schema_beside_the_suite_is_named_and_the_gate_still_runs(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rubric.schema.json in the suite's folder (as ond keeps one) holds no cases: named
    in one warning, skipped; the behavior gate plans as without it."""
    suite = repo / BILLING / "refunds" / "evals"
    (suite / "rubric.schema.json").write_text('{"type": "object", "properties": {}}')
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    code, report = changed(tmp_path, "--model", "mock", "--dry-run")
    assert (code, report) == (0, {})
    captured = capsys.readouterr()
    assert (
        "would run: behavior gate of billing:refunds on plugins/billing/skills/refunds/evals "
        "(because of billing:refunds)"
    ) in captured.out.splitlines()
    assert (
        f"warning: {BILLING}/refunds/evals: not read (no behavior or trigger cases in them): "
        "rubric.schema.json"
    ) in captured.err.splitlines()


def test_a_git_ignored_suite_is_named_as_not_part_of_the_change(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """obra/superpowers git-ignores `evals/`: the suite on disk is no part of the change,
    and the plan says so where the body is not tested, never a bare "would run: nothing"."""
    made = git.Repo(repo)
    made.git.rm("-r", "--cached", "-q", f"{BILLING}/refunds/evals")
    (repo / ".gitignore").write_text("evals/\n")
    made.git.add(".gitignore")
    made.git.commit("-q", "-m", "ignore evals")
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    code, report = changed(tmp_path, "--model", "mock", "--dry-run")
    assert (code, report) == (0, {})
    assert capsys.readouterr().out.splitlines() == [
        "activation changed: git:main -> the working tree",
        "billing:refunds (plugins/billing/skills/refunds/SKILL.md): modified, body or references",
        "  not tested: body",
        f"  {BILLING}/refunds/evals/ is git-ignored: its behavior suite is not part of the change",
        "would run: nothing",
        "the run would fail: billing:refunds not tested (pass --allow-untested to accept it)",
    ]
    assert changed(tmp_path, "--model", "mock", "--dry-run", "--allow-untested") == (0, {})
    assert capsys.readouterr().out.splitlines()[-1] == "would run: nothing"


def test_a_csv_of_trigger_prompts_in_the_skills_evals_is_its_cases(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`evals/prompts.csv` (`id,should_trigger,prompt`), as the field keeps trigger prompts:
    found, and the description change is gated on it, not "not tested"."""
    style = repo / "plugins" / "docs" / "skills" / "style"
    (style / "cases.json").unlink()
    (style / "evals").mkdir()
    (style / "evals" / "prompts.csv").write_text(
        "id,should_trigger,prompt\ntone,true,Edit this prose for the style guide\n"
    )
    commit_all(repo, "csv prompts")
    skill = style / "SKILL.md"
    skill.write_text(skill.read_text().replace("house style guide", "house style guide, tone"))
    code, report = changed(tmp_path, "--model", "mock", "--dry-run")
    assert (code, report) == (0, {})
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "activation changed: git:main -> the working tree",
        "docs:style (plugins/docs/skills/style/SKILL.md): modified, description",
        "would run: activation gate of docs:style on plugins/docs/skills/style/evals/prompts.csv "
        "(because of docs:style)",
    ]


def test_the_agents_path_flags_reach_the_behavior_gate(repo: Path, tmp_path: Path) -> None:
    """`--claude PATH` (and each agent's flag) is the executable the behavior gate runs."""
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    code, _report = changed(
        tmp_path, "--model", "mock", "--claude", "/opt/cli/claude", "--codex", "/opt/cli/codex",
        "--agent", "claude-code,codex", stages=stages,
    )  # fmt: skip
    assert code == 0
    found = [spec.agent.executables if spec.agent else {} for spec, _inputs, _ in stages.opened]
    assert [(paths["claude-code"], paths["codex"]) for paths in found] == [
        ("/opt/cli/claude", "/opt/cli/codex")
    ] * 2


def test_the_judge_model_reaches_the_behavior_gate(repo: Path, tmp_path: Path) -> None:
    """`--judge-model mock` answers a behavior gate's judge graders offline, as in
    `activation behavior`; by default the gate's judge is behavior's own default."""
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    script = {"refund_note": {"baseline": 3, "candidate": 3}}
    default, mock = FakeBehavior(passing(script)), FakeBehavior(passing(script))
    assert changed(tmp_path, "--model", "mock", stages=default)[0] == 0
    assert changed(tmp_path, "--model", "mock", "--judge-model", "mock", stages=mock)[0] == 0
    judges = [options_of(spec).judge_model for spec, _inputs, _ in default.opened]
    assert judges == [BEHAVIOR_JUDGE_MODEL]
    assert [options_of(spec).judge_model for spec, _inputs, _ in mock.opened] == ["mock"]


def test_both_changes_run_both_gates_and_one_report_says_all(repo: Path, tmp_path: Path) -> None:
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    edit(repo, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    markdown, junit, page = tmp_path / "changed.md", tmp_path / "changed.xml", tmp_path / "c.html"
    code, report = changed(
        tmp_path,
        "--model",
        "mock",
        "--markdown",
        str(markdown),
        "--junit",
        str(junit),
        "--html",
        str(page),
        stages=stages,
    )
    assert skills(report) == {"billing:refunds": ("modified", ["description", "body"], [])}
    found = gates(report)
    assert sorted(found) == [
        ("activation", "billing:disputes"),
        ("activation", "billing:refunds"),
        ("behavior", "billing:refunds"),
    ]
    assert found[("behavior", "billing:refunds")] == {"refund_note": "PASS"}
    assert {key: flagged(value) for key, value in found.items()} == {key: {} for key in found}
    assert code == 0
    text = markdown.read_text()
    assert text.startswith("### ")
    assert "| `billing:refunds` | description, body or references |" in text
    assert "behavior suite of billing:refunds" in text
    assert junit.read_bytes().count(b"<testsuite ") == 3
    html = page.read_text()
    assert "<h1>activation changed: git:main -&gt; the working tree</h1>" in html
    assert html.count('<section class="cell" id="gate-') == 3  # each gate's cell, in full
    assert 'href="#gate-3-cell-1-report">behavior suite of billing:refunds' in html


def test_a_behavior_gate_that_passes_no_trial_in_any_arm_says_it_measures_nothing(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported false comfort (a skill-creator suite of expectations about the reply,
    which the judge never sees): "OK: 2 FAIL" and "every gate passed". It still exits 0:
    nothing regressed, and no rerun would fill the gap (exit 3 says evidence is missing);
    every output says the gate is blind."""
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    stages = FakeBehavior(passing({}))
    markdown, junit, page = tmp_path / "changed.md", tmp_path / "changed.xml", tmp_path / "c.html"
    outputs = ["--markdown", str(markdown), "--junit", str(junit), "--html", str(page)]
    code, report = changed(tmp_path, "--model", "mock", *outputs, stages=stages)
    assert code == 0
    (gate,) = report["gates"]
    assert (gate["kind"], gate["measures_nothing"]) == ("behavior", True)
    blind = (
        "no trial passed in any arm (baseline, candidate, none), so it cannot see a "
        "regression (see calibrate --behavior)"
    )
    title = "behavior suite of billing:refunds (plugins/billing/skills/refunds/evals)"
    line = f"  {title}: OK, but it measures nothing: 1 FAIL; {blind}"
    overall = (
        f"OK, but the {title} measures nothing: it cannot see a regression "
        "(see calibrate --behavior)."
    )
    out = capsys.readouterr().out.splitlines()
    assert f"OK, but it measures nothing: {blind}." in out  # the gate's own run
    assert (line in out, out[-1]) == (True, overall)
    text = markdown.read_text()
    assert text.splitlines()[0] == f"### ✅ activation changed: {overall}"
    assert f"OK, but it measures nothing: 1 FAIL; {blind}" in text
    assert f'<property name="measures_nothing" value="{blind}" />' in junit.read_text()
    assert f"OK, but it measures nothing: 1 FAIL; {blind}" in page.read_text()


def test_a_changed_skill_with_no_cases_is_untested(
    repo: Path, tmp_path: Path, fake_api: FakeMessagesAPI
) -> None:
    edit(repo, "invoices", "Create, send and correct", "Create and send")
    code, report = changed(tmp_path, "--model", "claude-haiku-4-5")
    requests_untested = len(fake_api.requests)
    # invoices has no cases: not tested; its siblings' cases still run (they may lose
    # prompts to it), here at the stand-in.
    assert skills(report) == {"billing:invoices": ("modified", ["description"], ["description"])}
    assert code == 1
    assert sorted(gates(report)) == [
        ("activation", "billing:disputes"),
        ("activation", "billing:refunds"),
    ]
    assert requests_untested > 0
    code, report = changed(tmp_path, "--model", "mock", "--allow-untested", name="allowed.json")
    assert code == 0
    assert report["allow_untested"] is True


def test_an_untested_body_change_fails_with_no_model_call(
    repo: Path, tmp_path: Path, fake_api: FakeMessagesAPI
) -> None:
    edit(repo, "invoices", "2. Send the invoice", "2. Email the invoice")
    code, report = changed(tmp_path, "--model", "claude-haiku-4-5")
    assert fake_api.requests == []
    assert (code, report["gates"]) == (1, [])
    assert skills(report) == {"billing:invoices": ("modified", ["body"], ["body"])}
    code, _report = changed(
        tmp_path, "--model", "claude-haiku-4-5", "--allow-untested", name="allowed.json"
    )
    assert code == 0


def test_another_plugins_change_does_not_gate_billing(repo: Path, tmp_path: Path) -> None:
    style = repo / "plugins" / "docs" / "skills" / "style" / "SKILL.md"
    style.write_text(STYLE.replace("house style guide", "house style guide and tone"))
    code, report = changed(tmp_path, "--model", "mock")
    assert code == 0
    assert gates(report) == {("activation", "docs:style"): {"tone": "PASS"}}


def test_every_configured_cell_runs(repo: Path, tmp_path: Path) -> None:
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    code, report = changed(tmp_path, "--model", "mock", "--agent", "claude-code,codex")
    assert code == 1
    for gate in report["gates"]:
        found = [
            (cell["stage"], cell["coding_agent"], cell["model"]) for cell in cells(gate["run"])
        ]
        assert found == [("A", "claude-code", "mock"), ("A", "codex", "mock")]


def test_head_at_a_ref(repo: Path, tmp_path: Path) -> None:
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    made = git.Repo(repo)
    made.git.checkout("-b", "wide")
    made.git.commit("-am", "refunds takes disputes")
    made.git.checkout("main")
    made.close()
    code, report = changed(tmp_path, "--model", "mock", "--head", "git:wide")
    assert (code, report["head"]) == (1, "git:wide")
    assert skills(report) == {"billing:refunds": ("modified", ["description"], [])}


def test_bad_input_is_one_line_before_any_call(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["changed", "--base", "main"]) == 2
    assert one_line_error(capsys) == "activation changed: error: --base main: pass git:main"
    assert main(["changed", "--base", "nowhere"]) == 2
    assert one_line_error(capsys) == (
        "activation changed: error: --base nowhere: pass a git ref (git:<branch>, git:<tag> or "
        "git:<commit>)"
    )
    assert main(["changed", "--base", "git:nowhere"]) == 2
    assert "no commit 'nowhere'" in capsys.readouterr().err


def test_a_missing_key_names_the_gate_what_needs_it_and_the_keyless_way(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported dead end (a skill-creator suite of judge questions): `changed --model
    mock` stopped with "no API key" and no word of what needs it or of `--judge-model mock`.
    Both keys are checked before any gate runs, the agent's first."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    fake_agent_on_path(tmp_path / "bin", monkeypatch)
    graders = repo / BILLING / "refunds" / "evals" / "refund-note" / "graders.yaml"
    graders.write_text(GRADERS + "- type: judge\n  question: Is the note polite?\n")
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    flags = ["changed", "--base", "git:main", "--model", "mock", "--no-summary"]
    gate = "billing:refunds's behavior suite (plugins/billing/skills/refunds/evals)"
    assert main([*flags, "--agent", "claude-code"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"activation changed: error: {gate}: no API key: set ANTHROPIC_API_KEY for Claude "
        "Code, the agent that does the suite's tasks (--dry-run needs none); --judge-model "
        "mock spares the judge only: the agent runs for real, with its key"
    )
    assert main([*flags, "--agent", "fake"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"activation changed: error: {gate}: no API key: set ANTHROPIC_API_KEY for the judge "
        f"{BEHAVIOR_JUDGE_MODEL}, which the suite's judge graders ask (or pass --judge-model "
        "mock to judge offline; --dry-run needs none)"
    )
    assert main([*flags, "--agent", "fake", "--judge-model", "mock"]) in (0, 1)


FIRST_EDIT = "asked to undo, or disputes."
SECOND_EDIT = "asked to undo, or chargebacks."


def answer_refunds(request: FakeRequest) -> Reply:
    return Answer(["billing:refunds"] if "refund" in request.prompt.lower() else [])


def test_the_baseline_is_served_from_the_cache_on_the_next_run(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_api: FakeMessagesAPI
) -> None:
    edit(repo, "refunds", "asked to undo.", FIRST_EDIT)
    with FakeMessagesAPI(answer_refunds) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        changed(tmp_path, "--model", "claude-haiku-4-5", "--max-trials", "3", name="1.json")
        first = len(api.requests)
    # 12 cases x 3 trials x 2 variants; the sibling's gate sends the very same requests
    # (the same listing and prompts), so they come from the cache in the same run.
    assert first == 72
    with FakeMessagesAPI(answer_refunds) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        changed(tmp_path, "--model", "claude-haiku-4-5", "--max-trials", "3", name="2.json")
        assert api.requests == []  # the same change again: every answer is cached
    edit(repo, "refunds", FIRST_EDIT, SECOND_EDIT)
    with FakeMessagesAPI(answer_refunds) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        changed(tmp_path, "--model", "claude-haiku-4-5", "--max-trials", "3", name="3.json")
        third = len(api.requests)
        menus = {request.menu.get("billing:refunds", "") for request in api.requests}
    # A new candidate: only its requests are sent; the baseline's are the cache's.
    assert third * 2 == first
    assert {menu.endswith(SECOND_EDIT) for menu in menus} == {True}


def test_only_runs_the_named_cases_in_each_gate_that_has_them(repo: Path, tmp_path: Path) -> None:
    (repo / BILLING / "refunds" / "SKILL.md").write_text(
        STEALING.replace("3. Tell the customer", "3. Email the customer")
    )
    stages = FakeBehavior(passing({}))
    code, report = changed(tmp_path, "--model", "mock", "--only", "bank-dispute", stages=stages)
    assert code == 1
    assert skills(report) == {"billing:refunds": ("modified", ["description", "body"], [])}
    assert gates(report) == {
        ("activation", "billing:disputes"): {"bank-dispute": "REGRESSED"},
        ("activation", "billing:refunds"): {"bank-dispute": "REGRESSED"},
    }  # the behavior suite has no case of that id: its gate is left out
    assert stages.calls == 0


def test_a_dry_run_shows_the_plan_with_no_request(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_api: FakeMessagesAPI
) -> None:
    edit(repo, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    edit(repo, "invoices", "2. Send the invoice", "2. Email the invoice")
    code, report = changed(tmp_path, "--model", "claude-haiku-4-5", "--dry-run")
    assert (code, report, fake_api.requests) == (0, {}, [])
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "activation changed: git:main -> the working tree",
        "billing:invoices (plugins/billing/skills/invoices/SKILL.md): modified, body or references",
        "  not tested: body",
        "billing:refunds (plugins/billing/skills/refunds/SKILL.md): modified, description",
        "would run: activation gate of billing:disputes on billing-disputes.cases.json "
        "(because of billing:refunds)",
        "would run: activation gate of billing:refunds on "
        "plugins/billing/skills/refunds/cases.json (because of billing:refunds)",
        "the run would fail: billing:invoices not tested (pass --allow-untested to accept it)",
        # The same cases and listing: the same estimate (from characters, no call).
        "cost of the activation gate of billing:disputes: first round $0.0670, worst case $0.5179",
        "cost of the activation gate of billing:refunds: first round $0.0670, worst case $0.5179",
        "cost of every gate: first round $0.1341, worst case $1.04",
    ]


def test_the_job_summary_gets_the_one_report(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    edit(repo, "invoices", "2. Send the invoice", "2. Email the invoice")
    code, _report = changed(tmp_path, "--model", "mock", summary=True)
    assert code == 1
    text = summary.read_text()
    assert text.startswith(
        "### ❌ activation changed: FAILED: activation gate of billing:disputes "
        "(billing-disputes.cases.json), for billing:refunds; activation gate of "
        "billing:refunds (plugins/billing/skills/refunds/cases.json) regressed.\n"
    )
    assert (
        "| `billing:invoices` | body or references | nothing | not tested: its body or "
        "references changed and it has no behavior suite |"
    ) in text
    assert "- bank-dispute: " in text


def test_a_single_skill_repo_uses_its_root_evals_for_a_body_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = example_repo(tmp_path / "greetlib", broken=True)
    monkeypatch.chdir(root)
    stages = FakeBehavior(passing(BROKEN_ONE))
    code, report = changed(tmp_path, "--trials", "3", stages=stages)
    assert code == 1
    assert skills(report) == {"greetlib:greetlib": ("modified", ["body"], [])}
    assert [(gate["kind"], gate["suite"]) for gate in report["gates"]] == [("behavior", "evals")]
    assert gates(report) == {
        ("behavior", "greetlib:greetlib"): {
            "batch_cards": "PASS",
            "configure_once": "PASS",
            "welcome_banner": "REGRESSED",
        }
    }


def test_an_added_skill_without_cases_gates_its_siblings_and_is_untested(
    repo: Path, tmp_path: Path
) -> None:
    payouts = repo / BILLING / "payouts" / "SKILL.md"
    payouts.parent.mkdir()
    payouts.write_text(
        "---\nname: payouts\ndescription: Pay out refunds to a bank.\n---\n# Payouts\n"
    )
    code, report = changed(tmp_path, "--model", "mock")
    assert code == 1
    assert skills(report) == {
        "billing:payouts": ("added", ["description", "body"], ["description", "body"])
    }
    found = gates(report)
    assert sorted(found) == [("activation", "billing:disputes"), ("activation", "billing:refunds")]
    run = cells(report["gates"][0]["run"])[0]
    listed = {
        variant: [entry["id"] for entry in run[variant]["skills"]]
        for variant in ("baseline", "candidate")
    }
    assert "billing:payouts" in listed["candidate"] and "billing:payouts" not in listed["baseline"]


def test_a_behavior_suite_run_again_is_answered_from_the_cache(repo: Path, tmp_path: Path) -> None:
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    script = passing({"refund_note": {"baseline": 3, "candidate": 3}})
    first, again = FakeBehavior(script), FakeBehavior(script)
    assert changed(tmp_path, "--trials", "3", stages=first)[0] == 0
    assert changed(tmp_path, "--trials", "3", stages=again, name="again.json")[0] == 0
    assert (first.calls, again.calls) == (9, 0)  # baseline, candidate and none, 3 trials each


def test_the_html_page_works_in_a_browser(repo: Path, tmp_path: Path, chromium: Launcher) -> None:
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    page_file = tmp_path / "changed.html"
    assert changed(tmp_path, "--model", "mock", "--html", str(page_file))[0] == 1
    with chromium() as browser, visit(browser, page_file) as seen:
        page = seen.page
        assert page.locator("#skills tbody tr").count() == 2  # refunds, then its sibling
        first, second = "#gate-1-cell-1-", "#gate-2-cell-1-"

        def shown(prefix: str) -> list[str]:
            return page.locator(f"{prefix}cases tbody tr:visible td.id").all_inner_texts()

        assert len(shown(first)) == len(shown(second)) == 12
        page.select_option(f"{second}status-filter", "REGRESSED")
        assert sorted(shown(second)) == sorted(STOLEN)
        assert len(shown(first)) == 12
        page.click('#skills a[href="#gate-2-cell-1-report"]')
        assert seen.errors == []
        assert seen.requests == [page_file.as_uri()]


def test_real_runs_each_gates_spot_checks_and_leaves_out_a_gate_with_none(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    style = repo / "plugins" / "docs" / "skills" / "style" / "SKILL.md"
    style.write_text(STYLE.replace("house style guide", "house style guide and tone"))
    fake = FakeStages(lambda key: key.trigger.should_activate)
    stages = {"A": fake["A"], "B": fake["B"], "C": FakeBehavior(passing({}))}
    code, report = changed(tmp_path, "--real", stages=stages)
    assert code == 0
    # The fake says only whether the gate's own skill fired, on both sides alike: each
    # gate's spot checks, the case its skill owns PASS, the other's (nothing fired where a
    # sibling should have) FAIL on both sides; no case of style's, which has no spot check.
    assert gates(report) == {
        ("activation", "billing:disputes"): {"refund-order": "FAIL", "chargeback-evidence": "PASS"},
        ("activation", "billing:refunds"): {"refund-order": "PASS", "chargeback-evidence": "FAIL"},
    }
    assert [opened.spec.stage for opened in fake.opened] == ["B", "B"]
    assert (
        "docs:style: its activation gate is left out: no case selected for --real "
        "(spot checks only (no Stage A run on these two descriptions yet)): pass --only ids"
    ) in capsys.readouterr().err


# --- cases in other tools' formats (docs/formats.md), where each format keeps them --------

EXAMPLE_CASES = orjson.loads((EXAMPLE / "cases.json").read_bytes())["cases"]
POSITIVES = [case for case in EXAMPLE_CASES if case["expect"] == "refunds"]
NEGATIVES = [case for case in EXAMPLE_CASES if case["expect"] != "refunds"]
REFUNDS_CASES = f"{BILLING}/refunds/cases.json"


def refunds_cases_as(repo: Path, files: Mapping[str, bytes]) -> None:
    """refunds' cases moved out of its cases.json into `files`, committed on main."""
    (repo / REFUNDS_CASES).unlink()
    for path, content in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(content)
    made = git.Repo(repo)
    made.git.add(all=True)
    made.index.commit("refunds' cases in another format")
    made.close()


def refunds_gate(tmp_path: Path, repo: Path, suite: str) -> dict[str, str]:
    """The flagged cases of refunds' activation gate once its description takes disputes,
    after checking that the gate ran on `suite`."""
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    code, report = changed(tmp_path, "--model", "mock")
    assert code == 1
    assert [(gate["kind"], gate["skill"], gate["suite"]) for gate in report["gates"]] == [
        ("activation", "billing:disputes", "billing-disputes.cases.json"),
        ("activation", "billing:refunds", suite),
    ]
    found = gates(report)
    assert flagged(found[("activation", "billing:disputes")]) == dict.fromkeys(STOLEN, "REGRESSED")
    return found[("activation", "billing:refunds")]


def test_a_skill_creator_trigger_eval_set_in_the_skills_evals(repo: Path, tmp_path: Path) -> None:
    suite = f"{BILLING}/refunds/evals/trigger-eval.json"
    rows = [{"query": case["prompt"], "should_trigger": True} for case in POSITIVES] + [
        {"query": case["prompt"], "should_trigger": False, "expected_skill": case["expect"]}
        for case in NEGATIVES
    ]
    refunds_cases_as(repo, {suite: orjson.dumps(rows)})
    statuses = refunds_gate(tmp_path, repo, suite)
    assert len(statuses) == 12
    # rows 1-3 are the positives; the stolen prompts are rows 4, 5 and 6
    assert flagged(statuses) == dict.fromkeys(
        ["refunds-trigger-eval-4", "refunds-trigger-eval-5", "refunds-trigger-eval-6"], "REGRESSED"
    )


def test_json_lines_per_skill_with_shared_negatives(repo: Path, tmp_path: Path) -> None:
    def lines(rows: list[dict[str, Any]]) -> bytes:
        return b"".join(orjson.dumps(row) + b"\n" for row in rows)

    positives = [{"id": case["id"], "prompt": case["prompt"]} for case in POSITIVES]
    negatives = [
        {"id": case["id"], "prompt": case["prompt"], "expected_skill": case["expect"] or ""}
        for case in NEGATIVES
    ]
    refunds_cases_as(
        repo,
        {"evals/refunds.jsonl": lines(positives), "evals/negatives.jsonl": lines(negatives)},
    )
    statuses = refunds_gate(tmp_path, repo, "evals/refunds.jsonl")
    assert sorted(statuses) == sorted(case["id"] for case in EXAMPLE_CASES)
    assert flagged(statuses) == dict.fromkeys(STOLEN, "REGRESSED")


def test_yaml_trigger_tests_in_the_skills_folder(repo: Path, tmp_path: Path) -> None:
    suite = f"{BILLING}/refunds/trigger_tests.yaml"
    document = {
        "should_trigger_prompts": [case["prompt"] for case in POSITIVES],
        "should_not_trigger_prompts": [
            {"prompt": case["prompt"], "reason": case["why"]} for case in NEGATIVES
        ],
    }
    refunds_cases_as(repo, {suite: orjson.dumps(document)})  # JSON is YAML
    statuses = refunds_gate(tmp_path, repo, suite)
    assert len(statuses) == 12
    # a YAML negative says only "not refunds": the stolen prompts fail it all the same
    assert flagged(statuses) == dict.fromkeys(
        ["refunds-should-not-1", "refunds-should-not-2", "refunds-should-not-3"], "REGRESSED"
    )


SKILL_JSON = {
    "skill_name": "refunds",
    "trigger": {
        "positive": [case["prompt"] for case in POSITIVES],
        "negative": [{"prompt": case["prompt"], "owner": case["expect"]} for case in NEGATIVES],
    },
    "evals": [
        {
            "id": "note",
            "prompt": "Refund order 4417 and write refund.txt",
            "expectations": ["refund.txt says the order was refunded"],
        }
    ],
}


def test_one_json_per_skill_its_trigger_part_gated(repo: Path, tmp_path: Path) -> None:
    suite = f"{BILLING}/refunds.json"
    refunds_cases_as(repo, {suite: orjson.dumps(SKILL_JSON)})
    statuses = refunds_gate(tmp_path, repo, suite)
    assert len(statuses) == 12
    assert flagged(statuses) == dict.fromkeys(
        ["refunds-negative-1", "refunds-negative-2", "refunds-negative-3"], "REGRESSED"
    )


def test_one_json_per_skill_its_evals_are_the_behavior_suite(repo: Path, tmp_path: Path) -> None:
    suite = f"{BILLING}/refunds.json"
    shutil.rmtree(repo / BILLING / "refunds" / "evals")
    refunds_cases_as(repo, {suite: orjson.dumps(SKILL_JSON)})
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    stages = FakeBehavior(passing({"refunds-note": {"baseline": 3, "candidate": 0}}))
    code, report = changed(tmp_path, "--model", "mock", "--trials", "3", stages=stages)
    assert code == 1
    assert [(gate["kind"], gate["suite"]) for gate in report["gates"]] == [("behavior", suite)]
    assert gates(report) == {("behavior", "billing:refunds"): {"refunds-note": "REGRESSED"}}


def test_a_file_of_no_format_is_no_cases_file_but_a_broken_one_is_an_input_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "evals").mkdir()
    (repo / "evals" / "settings.json").write_bytes(b'{"theme": "dark"}')
    (repo / "evals" / "notes.yaml").write_text("not: [valid")
    (repo / "evals" / "rates.jsonl").write_text('{"currency": "EUR"}\n')
    (repo / BILLING / "refunds" / "SKILL.md").write_text(STEALING)
    code, report = changed(tmp_path, "--model", "mock", "--dry-run")
    assert code == 0
    broken = [{"query": "Refund order 4417", "should_trigger": "yes"}]
    (repo / "evals" / "refunds.json").write_bytes(orjson.dumps(broken))
    code, report = changed(tmp_path, "--model", "mock", name="broken.json")
    assert code == 2
    error = "evals/refunds.json: case 'refunds-1': 'should_trigger' must be true or false"
    assert report["error"] == error
    assert capsys.readouterr().err.splitlines()[-1] == f"activation changed: error: {error}"


def test_every_report_validates_against_the_shipped_schema(repo: Path, tmp_path: Path) -> None:
    import jsonschema

    from activation.report.schemas import shipped_schema

    validator = jsonschema.Draft202012Validator(orjson.loads(shipped_schema("changed")))
    edit(repo, "refunds", "3. Tell the customer", "3. Email the customer")
    edit(repo, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    code, both = changed(tmp_path, "--model", "mock", stages=stages)
    assert [(gate["kind"], "cells" in gate["run"]) for gate in both["gates"]] == [
        ("activation", False),
        ("activation", False),
        ("behavior", False),
    ]
    two = ("--agent", "claude-code,codex", "--only", "bank-dispute")
    code, matrix = changed(tmp_path, "--model", "mock", *two, name="matrix.json")
    assert [gate["run"]["schema"] for gate in matrix["gates"]] == ["activation-matrix/1"] * 2
    code, stopped = changed(tmp_path, "--model", "mock", "--cases", "missing.json", name="no.json")
    assert (code, sorted(stopped)) == (2, ["error", "exit_code", "schema", "version"])
    for report in (both, matrix, stopped):
        assert report["schema"] == "activation-changed/1"
        validator.validate(report)
    both["gates"][2]["run"]["cases"][0]["status"] = "BROKEN"
    assert not validator.is_valid(both)
