"""A one-skill repo (SKILL.md at the root, skill-creator's layout) in every command: found,
named by its frontmatter `name` and never by the checkout's folder; and the repo-wide
commands (`visibility` with no target, `changed`) with one broken SKILL.md among others."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import git
import pytest

from activation.commands.main import main
from activation.inputs.load import load_inputs
from tests.support.cli import read_report
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.layouts import (
    CANDIDATE,
    LAYOUTS,
    ROOT_SKILL,
    Layout,
    build_layout,
    skill_text,
)

BROKEN = '---\nname: invoices\ndescription: "unclosed\n---\n# Invoices\n'


def built(folder: Path, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The layout built at `folder`, the current folder."""
    build_layout(folder, layout)
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return built(tmp_path / "checkout", ROOT_SKILL, monkeypatch)


def test_every_command_finds_the_root_skill_by_its_name(
    checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = load_inputs(checkout, cases=Path("cases.json"))
    assert (inputs.target.skill_id, inputs.candidate.description) == ("refunds-desk", CANDIDATE)
    assert inputs.candidate.siblings == ()
    assert main(["lint"]) == 0
    assert "lint: checked SKILL.md (frontmatter" in capsys.readouterr().out
    assert main(["visibility", "--agent", "claude-code", "--no-listing"]) == 0
    assert "  refunds-desk: listed whole\n" in capsys.readouterr().out
    report = tmp_path / "report.json"
    flags = ["--cases", "cases.json", "--max-trials", "3", "--json", str(report)]
    assert main(["--model", "mock", *flags]) == 1
    assert read_report(report)["skill"] == {"id": "refunds-desk", "path": "SKILL.md"}
    capsys.readouterr()
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    out = capsys.readouterr().out
    assert "refunds-desk (SKILL.md): modified, description\n" in out
    assert "would run: activation gate of refunds-desk on cases.json" in out


def test_an_edit_below_the_root_skill_is_its_body(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / "references").mkdir()
    (checkout / "references/steps.md").write_text("# Steps\n")
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    said = "refunds-desk (SKILL.md): modified, description, body or references\n"
    assert said in capsys.readouterr().out


def test_behavior_and_calibrate_name_the_root_skill(checkout: Path, tmp_path: Path) -> None:
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    flags = ["--suite", "evals", "--baseline", "git:HEAD", "--trials", "3", "--max-trials", "3"]
    assert main(["behavior", *flags], stages) == 0
    (_spec, inputs, _backend), *_ = stages.opened
    assert inputs.target.skill_id == "refunds-desk"
    assert "SKILL.md" in dict(inputs.candidate.tree)
    broken = tmp_path / "broken.md"
    broken.write_text(skill_text("refunds-desk", CANDIDATE).replace("Steps for", "Never do"))
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    controls = ["--suite", "evals", "--broken", str(broken), "--trials", "3", "--max-trials", "3"]
    assert main(["calibrate", "--behavior", *controls], stages) == 1  # the stand-in passes all
    assert {inputs.target.skill_id for _spec, inputs, _backend in stages.opened} == {"refunds-desk"}


def test_without_cases_a_skill_is_refused_not_measured_on_the_bundled_suite(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / "cases.json").unlink()  # no case file of its own anywhere
    assert main(["--model", "mock"]) == 2
    assert capsys.readouterr().err == (
        "activation: error: no cases for refunds-desk: --cases was not given, "
        "none about it were found (looked in files named as cases (cases.json, *.cases.json, "
        "*trigger*eval*.json, *trigger*test*.yaml, *skill*test*.yaml) anywhere; each skill's "
        "folder and its evals/; "
        "evals/ and tests/ folders (.txt prompts in their prompts/ folders); beside the skill "
        "folders and at the repo's top), and the bundled suite is only for auth0:auth0; "
        "pass --cases FILE with cases for refunds-desk (docs/formats.md)\n"
    )


def test_visibility_reports_every_set_and_what_the_agent_does_with_a_broken_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = built(tmp_path / "repo", LAYOUTS["root-plugin-mixed"], monkeypatch)
    (root / ".agents/skills/aaa/SKILL.md").parent.mkdir()
    (root / ".agents/skills/aaa/SKILL.md").write_text(BROKEN)
    (root / "SKILL.md").write_text(BROKEN)  # a set of its own: no other skill warns of it
    assert main(["visibility", "--agent", "claude-code", "--no-listing"]) == 0
    captured = capsys.readouterr()
    why = "the frontmatter is not valid YAML (while scanning a quoted scalar)"
    alone = "no skill of its set parses, and a set is read by one that does"
    assert captured.err == (
        f"warning: .agents/skills/aaa/SKILL.md:3: {why}: Claude Code 2.1.332 lists it as "
        "'Invoices' (its body's first line)\n"
        f"warning: SKILL.md:3: {why}: not shown ({alone}; `activation lint` shows it)\n"
    )
    for id in ("billing:refunds", "billing:invoices", "notes", "triage"):
        assert f"  {id}: listed whole\n" in captured.out


def test_a_change_that_breaks_one_skill_gates_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = built(tmp_path / "repo", LAYOUTS["skills"], monkeypatch)
    (root / "skills/invoices/SKILL.md").write_text(BROKEN)
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    captured = capsys.readouterr()
    assert "refunds (skills/refunds/SKILL.md): modified, description\n" in captured.out
    git.Repo(root).git.checkout("skills/refunds/SKILL.md")
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    captured = capsys.readouterr()
    assert (
        "would run: activation gate of refunds on cases.json (because of invoices)" in captured.out
    )
    broken = (
        "  broken: head:skills/invoices/SKILL.md:3: the frontmatter is not valid YAML "
        "(while scanning a quoted scalar) (the agents differ on it: some skip it, Claude Code "
        "lists a project skill by the first line of its body; `activation visibility` says "
        "what each does)\n"
    )
    # its description's line and its body both changed, as its text tells (it was
    # "description" whatever changed in a SKILL.md that does not parse)
    assert (
        f"invoices (skills/invoices/SKILL.md): modified, description, body or references\n{broken}"
        in captured.out
    )
    junit = tmp_path / "changed.xml"
    flags = ["--model", "mock", "--max-trials", "3", "--junit", str(junit)]
    assert main(["changed", "--base", "git:HEAD", *flags]) == 1
    out = capsys.readouterr().out
    failure = ElementTree.parse(junit).find("testsuite[@name='broken']/testcase/failure")
    assert failure is not None and failure.attrib["type"] == "BROKEN"
    assert failure.attrib["message"] == broken.strip()
    assert f"invoices (skills/invoices/SKILL.md): description, body or references\n{broken}" in out
    assert "  activation gate of refunds (cases.json), for invoices: OK" in out
    assert out.endswith(
        "FAILED: the change breaks the SKILL.md of invoices (the agents differ on it: some "
        "skip it, Claude Code lists a project skill by the first line of its body; "
        "`activation visibility` says what each does).\n"
    )


def test_project_skills_beside_a_root_plugin_keep_their_bare_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code lists a project skill by its name: a plugin.json at the root does not
    adopt `.claude/skills` or `.agents/skills`."""
    root = built(tmp_path / "repo", LAYOUTS["root-plugin-mixed"], monkeypatch)
    for path, id in ((".claude/skills/notes", "notes"), (".agents/skills/triage", "triage")):
        inputs = load_inputs(root, skill_path=path, cases=Path("cases.json"))
        assert (inputs.target.skill_id, inputs.target.plugin_name) == (id, None)
        (root / path / "SKILL.md").write_text(skill_text(id, "Use when writing notes."))
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    out = capsys.readouterr().out
    assert "notes (.claude/skills/notes/SKILL.md): modified, description\n" in out
    assert "triage (.agents/skills/triage/SKILL.md): modified, description\n" in out
