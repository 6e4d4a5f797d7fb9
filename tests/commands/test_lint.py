"""`activation lint` end to end: the rendering, the exit code, the command line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import git
import orjson
import pytest

from activation.commands.lint import lint_exit_code, render_findings
from activation.commands.main import main
from activation.inputs.lint import GROUPS, Finding
from activation.inputs.target import WHERE
from tests.inputs.test_lint import DESCRIPTION, raw
from tests.support.skill_repo import (
    REFERENCE,
    SKILL_PATH,
    SkillRepo,
    SkillRepos,
    case,
    skill_text,
    write_cases,
)


def test_render_findings() -> None:
    findings = (
        Finding("error", "kw-1", "same prompt as 'kw-0'"),
        Finding("warning", None, "no case in group 'indirect' (tag a case with it)"),
    )
    assert render_findings(findings) == (
        "error    kw-1  same prompt as 'kw-0'\n"
        "warning  -     no case in group 'indirect' (tag a case with it)\n"
        "lint: 1 error, 1 warning"
    )
    assert render_findings(()) == "lint: no problems found"
    assert render_findings(findings[1:], "2 skills in skills/ (frontmatter) and 0 case files") == (
        "warning  -  no case in group 'indirect' (tag a case with it)\n"
        "lint: checked 2 skills in skills/ (frontmatter) and 0 case files: 0 errors, 1 warning"
    )


def test_exit_code_fails_only_on_errors() -> None:
    assert lint_exit_code(()) == 0
    assert lint_exit_code((Finding("warning", None, "w"),)) == 0
    assert lint_exit_code((Finding("warning", None, "w"), Finding("error", "a", "e"))) == 1


# --- the CLI end to end ---------------------------------------------------------------------


@pytest.fixture
def repo(skill_repo: SkillRepos) -> Path:
    return skill_repo(DESCRIPTION, files=REFERENCE).root


ONE_FILE = f"{SKILL_PATH} (its description and menu, the files it refers to)"
"""What `--cases` checks of the skill it is measured with."""
REPO_CHECKS = "(frontmatter, the files each refers to, what 5 agents list)"
"""What a lint with no flags checks of each SKILL.md."""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["lint", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_reports_errors_and_exits_1(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_bytes(
        orjson.dumps(
            {
                "_comment": "broken on purpose",
                "cases": [
                    raw("pos", "refund order 12", True, twin="ghost", tags=GROUPS),
                    raw("pos", "chargeback on order 9", True, why=None),
                    raw("neg", "REFUND order 12"),
                ],
            }
        )
    )
    code, out, err = run(["--cases", str(cases), "--repo", str(repo)], capsys)
    assert code == 1
    assert err == ""
    assert out.splitlines() == [
        "error    pos  missing 'why': it is what makes the ground truth reviewable",
        "error    pos  duplicate id: 2 cases share it",
        "error    neg  same prompt as 'pos'",
        "error    pos  twin 'ghost' names no case",
        f"lint: checked {ONE_FILE} and 1 case file ({cases}): 4 errors, 0 warnings",
    ]


def test_cli_warnings_alone_exit_0_and_strict_holds_the_groups(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_bytes(
        orjson.dumps(
            [
                raw("neg", "export the orders table to csv"),
                raw("ne2", "export the order table to csv"),
            ]
        )
    )
    checked = f"lint: checked {ONE_FILE} and 1 case file ({cases})"
    code, out, _ = run(["--cases", str(cases), "--repo", str(repo)], capsys)
    assert (code, out.splitlines()[-1]) == (0, f"{checked}: 0 errors, 1 warning")
    code, out, _ = run(["--cases", str(cases), "--repo", str(repo), "--strict"], capsys)
    assert code == 1
    assert out.splitlines()[-1] == f"{checked}: 3 errors, 1 warning"


def test_cli_twins_are_errors_only_when_strict(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_bytes(orjson.dumps([raw("pos", "refund order 12", True, tags=GROUPS)]))
    line = "pos  positive without a twin: name a negative that shares its vocabulary"
    code, out, _ = run(["--cases", str(cases), "--repo", str(repo)], capsys)
    assert (code, out.splitlines()[0]) == (0, f"warning  {line}")
    code, out, _ = run(["--cases", str(cases), "--repo", str(repo), "--strict"], capsys)
    assert (code, out.splitlines()[0]) == (1, f"error    {line}")


def test_cli_bundled_suite_passes_only_when_asked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--repo", str(repo), "--skill-path", SKILL_PATH], capsys)
    assert (code, err) == (0, "")
    assert out == f"lint: checked {SKILL_PATH} {REPO_CHECKS} and 0 case files: no problems found\n"
    code, out, err = run(["--repo", str(repo), "--skill-path", SKILL_PATH, "--bundled"], capsys)
    assert (code, out) == (0, f"lint: checked {ONE_FILE} and 1 case file (the bundled suite): "
                              "no problems found\n")  # fmt: skip
    assert err == (
        "warning: the bundled suite was written for auth0:auth0; "
        "pass --cases and --distractors for billing:refunds\n"
    )


def test_cli_lints_the_candidate_description(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_skill = tmp_path / "SKILL.md"
    long_skill.write_text(f"---\nname: refunds\ndescription: {'refunds ' * 200}\n---\nbody\n")
    code, out, _ = run(["--repo", str(repo), "--candidate", str(long_skill)], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        f"error    -  {SKILL_PATH} at {long_skill}: the description is 1,599 characters, over "
        "the agent's 1,024-character limit"
    )


def test_cli_reads_a_git_candidate(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--repo", str(repo), "--candidate", "git:HEAD"], capsys)
    assert (code, out) == (
        0, f"lint: checked {SKILL_PATH} {REPO_CHECKS} and 0 case files: no problems found\n"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--cases", "bad.json"],
            "bad.json: not valid JSON at line 1, column 2 (",
        ),
        (
            ["--candidate", "nowhere/SKILL.md"],
            "nowhere/SKILL.md: no such file",
        ),
        (["--candidate", "git:no-such-ref"], "git:no-such-ref: no commit"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    code, out, err = run([*args, "--repo", str(repo)], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"activation lint: error: {message}")
    assert err.count("\n") == 1


def test_cli_outside_a_repo_says_there_is_nothing_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No flags lint the repository's own skills: with no repository, one line and exit 2
    (never "no problems found" about the bundled suite); --bundled still lints it."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run([], capsys)
    assert (code, out) == (2, "")
    assert (
        err
        == f"activation lint: error: {tmp_path} is not inside a git repository: pass --repo DIR\n"
    )
    code, out, err = run(["--bundled"], capsys)
    assert (code, out) == (0, "lint: checked 1 case file (the bundled suite): no problems found\n")
    assert err.startswith("warning: no skill found here, so only the cases were checked")


def test_cli_candidate_path_needs_no_repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    skill = tmp_path / "SKILL.md"
    skill.write_text("---\nname: x\ndescription: " + "y" * 1100 + "\n---\n")
    code, out, _ = run(["--candidate", str(skill)], capsys)
    assert code == 1
    assert "the description is 1,100 characters" in out


def test_cli_explicit_repo_that_is_not_one_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["--repo", str(tmp_path)], capsys)
    assert code == 2
    assert err.startswith("activation lint: error: ")


def test_cli_bad_flag_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--no-such-flag"]) == 2
    assert capsys.readouterr().err == (
        "activation lint: error: unrecognized arguments: --no-such-flag "
        "(see activation lint --help)\n"
    )


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior"
EXAMPLE_SKILL = "plugins/greetlib/skills/greetlib/SKILL.md"


def lint_example(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["lint", "--repo", str(folder), "--skill-path", EXAMPLE_SKILL,
                 "--behavior", str(folder / "evals")])  # fmt: skip
    return code, capsys.readouterr().out


def test_the_example_behavior_suite_lints_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "behavior"
    shutil.copytree(EXAMPLE, folder)
    assert lint_example(folder, capsys) == (
        0,
        f"lint: checked {EXAMPLE_SKILL} {REPO_CHECKS} and 1 case file (evals/): "
        "no problems found\n",
    )


def test_lint_finds_a_grader_the_scaffold_passes_and_a_missing_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "behavior"
    shutil.copytree(EXAMPLE, folder)
    graders = folder / "evals" / "welcome-banner" / "graders.yaml"
    graders.write_text(
        "- type: contains\n  value: welcome_banner\n  description: Has the banner function\n"
        "  level: L1\n" + graders.read_text()
    )
    skill = folder / EXAMPLE_SKILL
    skill.write_text(
        skill.read_text()
        + "\nFor Django, read [the notes](references/django.md); for Flask, "
        + "`references/flask.md`.\n"
    )
    code, out = lint_example(folder, capsys)
    found = [line for line in out.splitlines() if line.startswith(("error", "warning"))]
    assert code == 1
    assert len(found) == 3
    assert f"{EXAMPLE_SKILL}:43 refers to references/django.md, which its skill lacks" in found[0]
    assert "welcome_banner" in found[1] and "Has the banner function" in found[1]
    assert found[2].startswith("warning")
    assert found[2].endswith(
        f"{EXAMPLE_SKILL}:43 may refer to references/flask.md, which is not in its skill, its "
        "plugin or its project (a path in code or a table, not a link: fine if it is a file of "
        "the user's project or another skill's)"
    )
    assert out.splitlines()[-1] == (
        f"lint: checked {EXAMPLE_SKILL} {REPO_CHECKS} and 1 case file (evals/): 2 errors, 1 warning"
    )


# --- a repo of many skills: what was found, and what to pass --------------------------------

SIBLINGS = ("chargebacks", "disputes", "payouts")
FOLDER_SKILLS = ("changelog", "docs-style", "release-notes", "triage")
FOUND = (
    "found 8 skills in 2 sets: plugins/payments/skills/ (chargebacks, disputes, payouts, "
    "refunds), skills/ (changelog, docs-style, release-notes, triage)"
)
PASS = (
    "pass --skill-path (relative to --repo) to choose one, "
    'or --cases with a file that names it ("skill": "<id>")'
)


@pytest.fixture
def many(skill_repo: SkillRepos) -> Path:
    """A plugin of four skills and a skills folder of four more, as in a real skill repo."""
    files = {
        **{
            f"plugins/payments/skills/{name}/SKILL.md": skill_text(f"Use for {name}.", name)
            for name in SIBLINGS
        },
        **{
            f"skills/{name}/SKILL.md": skill_text(f"Use for {name}.", name)
            for name in FOLDER_SKILLS
        },
    }
    return skill_repo(DESCRIPTION, files=files).root


def test_the_run_and_lint_say_what_they_found_and_what_to_pass(
    many: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(many)
    cases = write_cases(tmp_path / "cases.json", [case("neg", "export the orders", False)])
    assert main(["--cases", str(cases), "--dry-run", "--model", "mock"]) == 2
    assert capsys.readouterr().err == f"activation: error: {FOUND}; {PASS}\n"
    code, out, err = run(["--cases", str(cases)], capsys)
    assert (code, out) == (0, f"lint: checked 1 case file ({cases}): no problems found\n")
    assert err == (
        f"warning: {FOUND}; only the cases were checked: {PASS}, to check its description too\n"
    )


def test_a_cases_file_naming_a_skill_of_a_repo_of_many_chooses_it(
    many: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(many)
    cases = tmp_path / "cases.json"
    cases.write_bytes(
        orjson.dumps({"skill": "triage", "cases": [case("neg", "export the orders", False)]})
    )
    code, out, err = run(["--cases", str(cases)], capsys)
    assert (code, err) == (0, "")
    assert [line.split(":")[0] for line in out.splitlines()] == [
        f"warning  -  no case expects {name}" for name in ("triage", *FOLDER_SKILLS[:3])
    ] + ["lint"]


def routed(case_id: str, prompt: str, expect: object, **extra: object) -> dict[str, object]:
    return {"id": case_id, "prompt": prompt, "why": "its home", "expect": expect, **extra}


def test_strict_holds_routing_cases_to_the_policy_with_the_users_own_set(
    many: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = write_cases(
        tmp_path / "cases.json",
        [
            routed("ref", "refund order 1234", "refunds", twin="cb"),
            routed("cb", "a chargeback on order 1234", "chargebacks"),
            routed("po", "when is the next payout", "payouts", twin="ref"),
        ],
    )
    argv = ["--cases", str(cases), "--repo", str(many), "--skill-path", SKILL_PATH]
    code, out, _ = run([*argv, "--strict"], capsys)
    assert code == 1
    assert out.splitlines() == [
        "error    cb  positive without a twin: name a case of another skill or none that "
        "shares its vocabulary",
        "error    -   no case expects billing:disputes: add positives for it, or a prompt it "
        "loses to a sibling goes unseen",
        'error    -   no case expects no skill: add a prompt no skill should take ("expect": null)',
        f"lint: checked {ONE_FILE} and 1 case file ({cases}): 3 errors, 0 warnings",
    ]
    code, out, _ = run(argv, capsys)
    assert (code, out.splitlines()) == (
        0,
        [
            "warning  -  no case expects billing:disputes: add positives for it, or a prompt it "
            "loses to a sibling goes unseen",
            f"lint: checked {ONE_FILE} and 1 case file ({cases}): 0 errors, 1 warning",
        ],
    )


def test_a_case_expecting_a_hidden_sibling_is_told_it_is_hidden(
    skill_repo: SkillRepos, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hidden = (
        "---\nname: payouts\ndescription: Use for payouts.\ndisable-model-invocation: true\n---\n"
    )
    root = skill_repo(DESCRIPTION, files={"plugins/payments/skills/payouts/SKILL.md": hidden}).root
    cases = write_cases(tmp_path / "cases.json", [routed("po", "next payout date", "payouts")])
    code, out, _ = run(
        ["--cases", str(cases), "--repo", str(root), "--skill-path", SKILL_PATH], capsys
    )
    assert (code, out.splitlines()) == (
        1,
        [
            "error    -  case 'po': 'payouts' is hidden from the model (its SKILL.md says "
            "disable-model-invocation: true), so no prompt can make it fire",
            f"lint: checked {ONE_FILE} and 1 case file ({cases}): 1 error, 0 warnings",
        ],
    )


def test_path_errors_say_what_each_path_is_relative_to(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--cases is relative to the current folder, --skill-path to --repo: the errors say so."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    for command in (["lint"], ["--dry-run", "--model", "mock"]):
        prefix = f"activation{' lint' if command == ['lint'] else ''}: error: "
        assert main([*command, "--repo", str(repo), "--cases", "cases.json"]) == 2
        assert capsys.readouterr().err == (
            f"{prefix}--cases cases.json: no such file (relative to the current folder {here})\n"
        )
        missing = "plugins/payments/skills/refundz/SKILL.md"
        assert main([*command, "--repo", str(repo), "--skill-path", missing]) == 2
        assert capsys.readouterr().err == (
            f"{prefix}--skill-path {missing}: no such file (relative to --repo {repo})\n"
        )


def test_the_flag_help_says_what_each_path_is_relative_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "--cases FILE one cases file to lint, relative to the current folder (not to --repo), "
        "instead of the case files found in the repo" in help_text
    )
    assert (
        "--skill-path PATH SKILL.md or its folder, relative to --repo (not to the current folder)"
        in help_text
    )


# --- no flags: the repository's own skills and case files ------------------------------------

SHELF = {
    "skills/atlas/SKILL.md": skill_text("Use when drawing tile maps.", "atlas")
    + "See [the tile guide](guide.md) before you draw.\n",
    "skills/atlas/guide.md": "Tiles are 16 pixels.\n",
    "skills/bestiary/SKILL.md": skill_text(
        "Use when balancing enemy stats and loot tables.", "bestiary"
    ),
    "skills/crafting/SKILL.md": skill_text("Use when pricing shop items in gold.", "crafting"),
}
SHELF_SKILLS = "3 skills in skills/ " + REPO_CHECKS


@pytest.fixture
def shelf(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    """A skills folder of three, as obra/superpowers keeps them (no plugin folder)."""
    made = skill_repo(
        "Use when scripting cutscenes on a timeline.",
        plugin_dir=".",
        plugin_name=None,
        skill_name="levels",
        files=SHELF,
    )
    monkeypatch.chdir(made.root)
    return made


def test_no_flags_lint_every_skill_and_find_a_deleted_reference(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pre-commit hook's command: the repo's own skills, not the bundled suite."""
    code, out, err = run([], capsys)
    assert (code, err) == (0, "")
    assert out == "lint: checked 4 skills in skills/ " + REPO_CHECKS + (
        " and 0 case files: no problems found\n"
    )
    (shelf.root / "skills/atlas/guide.md").unlink()
    code, out, err = run([], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "error    -  skills/atlas/SKILL.md:8 refers to guide.md, which its skill lacks",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 1 error, 0 warnings",
    ]


def test_a_missing_link_inside_a_quoted_example_is_a_warning(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill-authoring guide shows how to write a link (trinity's skill-builder): a
    warning, so the repo's pre-commit hook still passes."""
    atlas = shelf.root / "skills/atlas/SKILL.md"
    example = '- Link to references: "For API details, see [reference.md](references/api.md)"\n'
    atlas.write_text(atlas.read_text() + example)
    code, out, err = run([], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "warning  -  skills/atlas/SKILL.md:9 links to references/api.md, which its skill lacks, "
        "inside a quoted example (in double quotes or a blockquote): fine if it shows how to "
        "write a link",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 0 errors, 1 warning",
    ]


def test_a_deleted_file_named_only_in_prose_is_an_error_at_its_line(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """anthropics/skills' pdf skill says "read FORMS.md" in prose, no link: deleting
    forms.md drew no line. A file of the skill deleted since the last commit that the body
    still names is caught; a workspace file named in prose (IDENTITY.md) is not."""
    atlas = shelf.root / "skills/atlas/SKILL.md"
    (shelf.root / "skills/atlas/forms.md").write_text("Fields.\n")
    atlas.write_text(atlas.read_text() + "Read IDENTITY.md first.\nTo fill a form, see FORMS.md.\n")
    made = git.Repo(shelf.root)
    made.git.add(all=True)
    made.index.commit("forms")
    made.close()
    (shelf.root / "skills/atlas/forms.md").unlink()
    code, out, err = run([], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "error    -  skills/atlas/SKILL.md:10 names FORMS.md, which was deleted since the last "
        "commit: the agent will not find it",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 1 error, 0 warnings",
    ]


def test_a_name_outside_the_agent_skills_rule_is_a_warning(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """`name: Not_Valid Name` drew no line; nor did a name that is not its folder's."""
    atlas = shelf.root / "skills/atlas/SKILL.md"
    atlas.write_text(atlas.read_text().replace("name: atlas", "name: Not_Valid Name"))
    bestiary = shelf.root / "skills/bestiary/SKILL.md"
    bestiary.write_text(bestiary.read_text().replace("name: bestiary", "name: monsters"))
    code, out, err = run([], capsys)
    assert (code, err) == (0, "")
    rule = (
        "(the Agent Skills specification's rule: lowercase letters, digits and single "
        "hyphens, not at either end, at most 64 characters, the same as the skill's folder)"
    )
    assert out.splitlines() == [
        "warning  -  skills/atlas/SKILL.md: the name 'Not_Valid Name' is not lowercase "
        f"letters, digits and single hyphens {rule}",
        "warning  -  skills/bestiary/SKILL.md: the name 'monsters' is not its folder's name "
        f"'bestiary' {rule}",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 0 errors, 2 warnings",
    ]


def test_markdown_examples_in_code_are_not_references_and_a_case_mismatch_is_named(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link written in backticks or a fence is an example (the pre-commit hook must not
    block on it); `FORMS.md` beside forms.md is a file the agent cannot read on Linux."""
    atlas = shelf.root / "skills/atlas/SKILL.md"
    (shelf.root / "skills/atlas/forms.md").write_text("Fields.\n")
    atlas.write_text(
        atlas.read_text()
        + "- `[markdown](links)` to journal entries\n"
        + "```md\n[text](path.md)\n```\n"
        + "To fill a form, read FORMS.md.\n"
    )
    code, out, err = run([], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "error    -  skills/atlas/SKILL.md:13 refers to FORMS.md, but the skill's file is "
        "forms.md (the names differ in case: the agent cannot read it on a case-sensitive "
        "file system)",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 1 error, 0 warnings",
    ]


def deleted_line(at: str, name: str) -> str:
    """lint's line for a file the body names that was deleted since the last commit."""
    return (
        f"error    -  {at} names {name}, which was deleted since the last commit: the agent "
        "will not find it"
    )


AUDITOR = "plugins/auditor/skills/auditor/SKILL.md"
AUDITOR_FILES = {
    "plugins/auditor/skills/auditor/references/vectors.md": "Vectors.\n",
    "plugins/auditor/scripts/plan.py": "print('plan')\n",
    "plugins/auditor/agents/worker.md": "Worker.\n",
}
AUDITOR_BODY = (
    "Read [vectors]({baseDir}/references/vectors.md) first.\n"
    "Run `${CLAUDE_PLUGIN_ROOT}/scripts/plan.py` (and `scripts/plan.py`),\n"
    "see [w](agents/worker.md).\n"
)


def test_placeholders_and_the_plugins_own_files_are_found_as_claude_code_finds_them(
    skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """trailofbits/skills: 38 false errors blocked every commit (`{baseDir}/references/...`
    read literally, the plugin's `scripts/` and `agents/` beside `skills/` called missing).
    Only what is really not there is an error, said as written; a plugin file named in code
    and deleted since the last commit is one too."""
    made = skill_repo(
        "Use when auditing CI workflows for injection.",
        plugin_dir="plugins/auditor",
        plugin_name="auditor",
        skill_name="auditor",
        text=skill_text("Use when auditing CI workflows for injection.", "auditor") + AUDITOR_BODY,
        files=AUDITOR_FILES,
    )
    monkeypatch.chdir(made.root)
    code, out, _err = run([], capsys)
    assert (code, out) == (
        0,
        f"lint: checked plugins/auditor/skills/auditor/SKILL.md {REPO_CHECKS} and 0 case "
        "files: no problems found\n",
    )
    made.write_skill(
        made.skill_file.read_text()
        + "Then [gaps]({baseDir}/references/gaps.md) and `${CLAUDE_PLUGIN_ROOT}/scripts/gone.py`.\n"
    )
    code, out, _err = run([], capsys)
    assert code == 1
    assert out.splitlines() == [
        f"error    -  {AUDITOR}:11 refers to {{baseDir}}/references/gaps.md, which its skill lacks",
        f"error    -  {AUDITOR}:11 refers to ${{CLAUDE_PLUGIN_ROOT}}/scripts/gone.py, which its "
        "plugin lacks",
        f"lint: checked {AUDITOR} {REPO_CHECKS} and 0 case files: 2 errors, 0 warnings",
    ]
    made.commit("gaps")
    (made.root / "plugins/auditor/scripts/plan.py").unlink()
    code, out, _err = run([], capsys)
    assert code == 1
    assert out.splitlines() == [
        deleted_line(f"{AUDITOR}:9", "scripts/plan.py"),
        f"error    -  {AUDITOR}:9 refers to ${{CLAUDE_PLUGIN_ROOT}}/scripts/plan.py, which its "
        "plugin lacks",
        f"error    -  {AUDITOR}:11 refers to {{baseDir}}/references/gaps.md, which its skill lacks",
        f"error    -  {AUDITOR}:11 refers to ${{CLAUDE_PLUGIN_ROOT}}/scripts/gone.py, which its "
        "plugin lacks",
        f"lint: checked {AUDITOR} {REPO_CHECKS} and 0 case files: 4 errors, 0 warnings",
    ]


def project_skill(
    skill_repo: SkillRepos,
    name: str,
    description: str,
    body: str,
    files: dict[str, str] | None = None,
) -> SkillRepo:
    """A repo whose one skill is a project skill of `.claude/skills/<name>/`."""
    text = skill_text(description, name) + body
    return skill_repo(
        description, plugin_dir=".claude", plugin_name=None, skill_name=name, text=text,
        files=files,
    )  # fmt: skip


def test_a_project_skill_finds_the_projects_files_and_a_code_path_nowhere_is_a_warning(
    skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill of `.claude/skills/` runs with the project as its working folder: the
    project's `scripts/fetch.js` is there, and "the SDK skill's `references/tracing.md`" is
    the sibling skill's. A path in a code span that is nowhere ("Delegate
    to scripts (`./scripts/build.sh`)") may be the user's: a warning, which does not block
    the pre-commit hook; the same path deleted since the last commit is an error."""
    body = (
        "Write the ID into `scripts/fetch.js`; see the SDK skill's `references/tracing.md`.\n\n"
        "| Complex logic | Delegate to scripts (`./scripts/build.sh`) |\n"
        "|---|---|\n"
    )
    made = project_skill(
        skill_repo,
        "fetch",
        "Use when fetching analytics reports.",
        body,
        files={
            "scripts/fetch.js": "fetch()\n",
            ".claude/skills/fetch/scripts/build.sh": "make\n",
            ".claude/skills/sdk/SKILL.md": skill_text("Use when setting up the SDK.", "sdk"),
            ".claude/skills/sdk/references/tracing.md": "Tracing.\n",
        },
    )
    monkeypatch.chdir(made.root)
    skill = ".claude/skills/fetch/SKILL.md"
    checked = f"2 skills in .claude/skills/ {REPO_CHECKS} and 0 case files"
    code, out, _err = run([], capsys)
    assert (code, out) == (
        0,
        f"lint: checked {checked}: no problems found\n",
    )
    (made.root / ".claude/skills/fetch/scripts/build.sh").unlink()
    code, out, _err = run([], capsys)
    assert code == 1
    assert out.splitlines() == [
        deleted_line(f"{skill}:10", "scripts/build.sh"),
        f"lint: checked {checked}: 1 error, 0 warnings",
    ]
    made.commit("no build script")
    code, out, _err = run([], capsys)
    assert code == 0
    assert out.splitlines() == [
        f"warning  -  {skill}:10 may refer to scripts/build.sh, which is not in its skill, its "
        "plugin or its project (a path in code or a table, not a link: fine if it is a file of "
        "the user's project or another skill's)",
        f"lint: checked {checked}: 0 errors, 1 warning",
    ]


def test_a_root_skills_evals_are_counted_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """skill-creator's layout at a repo's root: `--behavior evals/evals.json` and the evals/
    it lies in are one suite, checked and counted once; its evals' `name` is read."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "SKILL.md").write_text(skill_text("Use when looping agent sessions.", "loop"))
    evals: list[dict[str, object]] = [
        {"id": n, "name": f"loop {n}", "prompt": "Loop it", "files": []} for n in (1, 2)
    ]
    (tmp_path / "evals/evals.json").write_text(json.dumps({"skill_name": "loop", "evals": evals}))
    trigger = [{"query": "loop my agent session", "should_trigger": False}]
    (tmp_path / "evals/trigger-eval.json").write_text(json.dumps(trigger))
    made = git.Repo.init(tmp_path)
    made.git.add(A=True)
    made.git.commit(m="loop", author="a <a@b.c>")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["--behavior", "evals/evals.json", "--skill-path", "SKILL.md"], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    manual = [line.split()[1] for line in lines if "expectations only" in line]
    assert manual == ["loop-1", "loop-2"]
    named = [line.split()[1] for line in lines if "evals/trigger-eval.json: no" in line]
    assert named == ["loop-trigger-eval-1"]  # named by the SKILL.md's name, not the checkout
    assert len(lines) == len(set(lines))  # each warning once
    assert not any("'name'" in line for line in lines)
    assert lines[-1].startswith(
        f"lint: checked SKILL.md {REPO_CHECKS} and 2 case files "
        "(evals/trigger-eval.json, evals/evals.json): 0 errors, "
    )


def test_a_suite_it_cannot_read_is_named_and_not_counted_as_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An evals.json whose assertions are neither text nor named checks is not read: lint
    says so and counts only the files it read (never "checked 1 case file: 0 errors")."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "SKILL.md").write_text(skill_text("Use when looping agent sessions.", "loop"))
    evals = [{"id": 1, "prompt": "Loop it", "assertions": [{"name": "no text"}]}]
    (tmp_path / "evals/evals.json").write_text(json.dumps({"skill_name": "loop", "evals": evals}))
    made = git.Repo.init(tmp_path)
    made.git.add(A=True)
    made.git.commit(m="loop", author="a <a@b.c>")
    monkeypatch.chdir(tmp_path)
    code, out, err = run([], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert (
        f"warning  -  not read as behavior cases: {tmp_path}/evals/evals.json: case 'loop-1': "
        "each of "
        "'assertions' must be text or an object with a 'description' (or 'text' or 'check') "
        "and an optional 'name'"
    ) in lines
    assert lines[-1].startswith(f"lint: checked SKILL.md {REPO_CHECKS} and 0 case files: ")


def test_a_broken_skill_md_is_a_finding_and_the_other_skills_are_still_checked(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agents skip a SKILL.md they cannot parse and list the rest: so does lint's
    listing check (a long sibling's cut is still found)."""
    (shelf.root / "skills/bestiary/SKILL.md").write_text('---\nname: "bestiary\n---\nbody\n')
    (shelf.root / "skills/atlas/guide.md").unlink()
    long = "Use when pricing shop items in gold. " + "Covers every shop and item. " * 40
    (shelf.root / "skills/crafting/SKILL.md").write_text(skill_text(long.strip(), "crafting"))
    code, out, err = run([], capsys)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert (
        lines[0] == "error    -  skills/atlas/SKILL.md:8 refers to guide.md, which its skill lacks"
    )
    # the YAML error as the frontmatter reader words it (with the line, where it says it)
    (broken,) = [line for line in lines if "bestiary" in line]
    assert re.fullmatch(
        r"error    -  skills/bestiary/SKILL\.md(:\d+)?: the frontmatter is not valid YAML "
        r"\(while scanning a quoted scalar\): Claude Code 2\.1\.332 lists it as 'body' \(its "
        r"body's first line\); OpenCode 1\.18\.33, Codex 0\.171\.0, GitHub Copilot CLI "
        r"1\.0\.102 and Gemini CLI 0\.61\.0 skip it",
        broken,
    ), broken
    assert any(
        line.startswith("warning  -  skills/crafting/SKILL.md: Codex ") and "cut" in line
        for line in lines
    ), out
    assert lines[-1].startswith(f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case")


def test_what_each_agent_lists_is_checked_and_a_skill_hidden_on_purpose_is_left_alone(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "Use when balancing enemy stats, " + "with loot tables and drop rates " * 34
    (shelf.root / "skills/bestiary/SKILL.md").write_text(skill_text(long.strip(), "bestiary"))
    hidden = (
        "---\nname: crafting\ndescription: Use for recipes.\ndisable-model-invocation: true\n---\n"
    )
    (shelf.root / "skills/crafting/SKILL.md").write_text(hidden)
    code, out, _ = run([], capsys)
    assert code == 1
    assert out.splitlines() == [
        "error    -  skills/bestiary/SKILL.md: the description is 1,119 characters, over the "
        "agent's 1,024-character limit",
        "warning  -  skills/bestiary/SKILL.md: Codex 0.171.0: cut (1,021 of 1,119 characters): "
        "over 1,024 characters, Codex keeps 1,021 and '...'",
        "warning  -  skills/bestiary/SKILL.md: GitHub Copilot CLI 1.0.102: not listed: a "
        "description over 1,024 characters: Copilot CLI rejects the skill",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 1 error, 2 warnings",
    ]


def test_found_case_files_are_linted_with_their_skill_and_named(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    write_cases(
        shelf.root / "skills/atlas/cases.json",
        [case("map", "draw the map of level 3", True), case("map", "tidy my desk", False)],
    )
    (shelf.root / "skills/atlas/evals").mkdir()
    (shelf.root / "skills/atlas/evals/trigger-eval.json").write_text(
        orjson.dumps([{"query": "sketch a dungeon map", "should_trigger": True}]).decode()
    )
    code, out, err = run([], capsys)
    assert code == 1
    assert out.splitlines() == [
        "error    map                   skills/atlas/cases.json: duplicate id: 2 cases share it",
        "warning  map                   skills/atlas/cases.json: positive without a twin: name "
        "a negative that shares its vocabulary",
        "warning  atlas-trigger-eval-1  skills/atlas/evals/trigger-eval.json: no 'why' (the "
        "file gives none): say why this is the right answer, so it can be reviewed",
        "warning  atlas-trigger-eval-1  skills/atlas/evals/trigger-eval.json: positive without "
        "a twin: name a negative that shares its vocabulary",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 2 case files "
        "(skills/atlas/cases.json, skills/atlas/evals/trigger-eval.json): 1 error, 3 warnings",
    ]
    assert err == ""


def test_bundled_and_cases_together_are_one_line_and_exit_2(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--bundled", "--cases", "cases.json"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "activation lint: error: --bundled lints the bundled suite, --cases your own: pass one\n"
    )


def test_a_repo_with_no_skill_and_no_case_file_says_there_is_nothing_to_lint(
    skill_repo: SkillRepos, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    (empty / ".git").mkdir(parents=True)
    code, out, err = run(["--repo", str(empty)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"activation lint: error: no SKILL.md under {WHERE} and no case file in {empty}: "
        "nothing to lint (--bundled lints the bundled suite, --cases FILE a case matrix)\n"
    )


def test_a_case_file_about_a_skill_the_repo_no_longer_holds_is_said(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {"skill": "quests", "cases": [case("q", "write a fetch quest", True)]}
    (shelf.root / "cases.json").write_bytes(orjson.dumps(cases))
    code, out, _ = run([], capsys)
    assert code == 0
    assert out.splitlines() == [
        "warning  -  cases.json: names quests, and no skill of this repo holds it: its cases "
        "were checked without a description or menu",
        "warning  q  cases.json: positive without a twin: name a negative that shares its "
        "vocabulary",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 1 case file (cases.json): "
        "0 errors, 2 warnings",
    ]


def test_a_frontmatter_only_claude_code_reads_is_a_warning_and_the_run_goes_on(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    (shelf.root / "skills/bestiary/SKILL.md").write_text(
        "---\nname: bestiary\ndescription: Monster stats: use when balancing enemies\n---\nbody\n"
    )
    code, out, err = run([], capsys)
    assert code == 0
    assert out.splitlines() == [
        "warning  -  skills/bestiary/SKILL.md:3: the frontmatter is not valid YAML (mapping "
        "values are not allowed here); Claude Code reads it after quoting the value, other "
        "agents parse YAML strictly and may refuse the skill: quote the value",
        # Codex and Copilot CLI parse strictly: they skip the file (their sources, measured)
        "warning  -  skills/bestiary/SKILL.md: Codex 0.171.0: not listed: its frontmatter is "
        "not valid YAML (Codex skips the file)",
        "warning  -  skills/bestiary/SKILL.md: GitHub Copilot CLI 1.0.102: not listed: its "
        "frontmatter is not valid YAML (Copilot CLI skips the file)",
        f"lint: checked 4 skills in skills/ {REPO_CHECKS} and 0 case files: 0 errors, 3 warnings",
    ]
    assert err == ""
    cases = write_cases(shelf.root.parent / "bestiary.json",
                        [case("b-1", "balance the goblin's hit points", True)])  # fmt: skip
    flags = ["--skill-path", "skills/bestiary/SKILL.md", "--cases", str(cases), "--dry-run"]
    assert main(["--model", "mock", *flags]) == 0


def test_a_link_to_a_page_the_skill_writes_is_a_warning_and_a_missing_reference_an_error(
    skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """microsoft/skills' wiki-onboarding: the index page the agent writes links the guides
    its fenced tree lists; the link is the user's page, not the skill's, so the pre-commit
    hook is not blocked, while a missing `references/` link still is."""
    body = (
        "Generate an `onboarding/` folder:\n\n```\nonboarding/\n└── contributor-guide.md\n```\n\n"
        "| Guide | Audience |\n|---|---|\n| [Contributor Guide](./contributor-guide.md) | New |\n"
    )
    made = project_skill(skill_repo, "wiki", "Use when writing onboarding guides.", body)
    monkeypatch.chdir(made.root)
    skill = ".claude/skills/wiki/SKILL.md"
    checked = f"{skill} {REPO_CHECKS} and 0 case files"
    code, out, _err = run([], capsys)
    assert (code, out.splitlines()) == (
        0,
        [
            f"warning  -  {skill}:17 links to contributor-guide.md, which is not in its skill, "
            "its plugin or its project: the body names it as a file the agent writes (in a "
            "fenced block or after 'generate', 'write' or 'create'), fine if it is a page of "
            "the user's project",
            f"lint: checked {checked}: 0 errors, 1 warning",
        ],
    )
    (made.root / skill).write_text(
        (made.root / skill).read_text() + "See [the guide](references/contributor-guide.md).\n"
    )
    code, out, _err = run([], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        f"error    -  {skill}:18 refers to references/contributor-guide.md, which its skill lacks"
    )
    assert out.splitlines()[2] == f"lint: checked {checked}: 1 error, 1 warning"


def test_skills_that_read_alike_are_said_once_though_a_routing_file_covers_their_set(
    shelf: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A set's own finding, not its routing file's: `init` drafts routing files, and a
    repo's set whose skills read alike got the same error once per file besides."""
    (shelf.root / "skills/atlas-v2").mkdir()
    (shelf.root / "skills/atlas-v2/SKILL.md").write_text(
        skill_text("Use when drawing tile maps.", "atlas-v2")
    )
    write_cases(
        shelf.root / "skills/atlas/cases.json",
        [routed("map", "sketch a dungeon map", "atlas"), routed("quiet", "tidy my desk", None)],
    )
    code, out, err = run([], capsys)
    alike = [line for line in out.splitlines() if "read alike" in line]
    assert (code, err) == (1, "")
    assert alike == [
        "error    -  atlas and atlas-v2 read alike (similarity 1.00, error from 0.75): the agent "
        "may confuse them"
    ]
