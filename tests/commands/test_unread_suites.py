"""Suites the field writes that this tool does not read are named, with why, in repos written
here in the field's shapes (never copies of their files): Claude Code's own plugin-eval
cases (`claude plugin eval`: `<plugin>/evals/<case>/prompt.md` + `graders/*.md`),
skill-creator's workspace copy of a suite (`<skill>-workspace/iteration-N/evals.json`), and
an `evals/` folder that holds only activation cases, given to `behavior`."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.inputs.plugin_eval import suites
from tests.commands.test_repo_cases import changed, commit, run, skill

REASON = (
    "Claude Code plugin-eval cases (prompt.md + graders/): their llm rubrics and regex "
    "graders score the agent's reply, weighted, and this tool grades the files the agent "
    "leaves"
)
PROMPT = (
    "---\nmax_turns: 40\nallowed_tools: [Skill, Read, Write]\nmodel: sonnet\nruns: 3\n---\n"
    "Fix this rule and save it as fixed.rule in the current directory.\n"
)
FIRED = "---\ntype: tool_used\ntool: Skill\nmin: 1\n---\n"
WRITTEN = "---\ntype: file_exists\npath: fixed.rule\nexists: true\nweight: 1\n---\n"
RUBRIC = "---\ntype: llm\nfocus: last_message\nweight: 2\n---\nPASS if the reply says why.\n"
RULES = skill("rules", "Use when writing or fixing detection rules.")
MARKET = {"name": "tools", "plugins": [{"name": "ruler", "source": "./plugins/ruler"}]}
PLUGIN_EVALS = {
    ".claude-plugin/marketplace.json": orjson.dumps(MARKET).decode(),
    "plugins/ruler/.claude-plugin/plugin.json": '{"name": "ruler"}',
    "plugins/ruler/skills/rules/SKILL.md": RULES,
    "plugins/ruler/evals/README.md": "Run claude plugin eval . --ablation with-without\n",
    "plugins/ruler/evals/01-fix/prompt.md": PROMPT,
    "plugins/ruler/evals/01-fix/graders/skill-fired.md": FIRED,
    "plugins/ruler/evals/01-fix/graders/rule-written.md": WRITTEN,
    "plugins/ruler/evals/02-why/prompt.md": PROMPT,
    "plugins/ruler/evals/02-why/graders/explains.md": RUBRIC,
}
PLUGIN_LINE = f"plugins/ruler/evals/ holds {REASON} (01-fix, 02-why): not read"


def planned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], list[str]]:
    """`changed --dry-run`'s plan and its stderr, by line (it plans, exit 0)."""
    argv, _report = changed(tmp_path, "--dry-run")
    code, out, err = run(argv, capsys)
    assert code == 0
    return out.splitlines(), err.splitlines()


@pytest.fixture
def plugin_evals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A marketplace whose plugin keeps Claude Code's plugin-eval cases, its skill's body
    edited."""
    root = commit(tmp_path / "tools", PLUGIN_EVALS)
    monkeypatch.chdir(root)
    (root / "plugins/ruler/skills/rules/SKILL.md").write_text(RULES + "Check it twice.\n")
    return root


def test_plugin_eval_cases_are_named_as_not_read_where_changed_says_not_tested(
    plugin_evals: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = planned(tmp_path, capsys)
    # the skill's own line says it, once
    assert err[1:3] == ["  found no activation case file (behavior suites: each skill's line)"]
    assert out[1:5] == [
        "ruler:rules (plugins/ruler/skills/rules/SKILL.md): modified, body or references",
        "  not tested: body",
        f"  {PLUGIN_LINE}",
        "would run: nothing",
    ]
    argv, report = changed(tmp_path)
    code, _out, _err = run(argv, capsys)
    assert code == 1
    data = orjson.loads(report["path"].read_bytes())
    assert (data["skills"][0]["untested"], data["skills"][0]["note"]) == (["body"], PLUGIN_LINE)


def test_lint_names_plugin_eval_cases_and_says_why_a_folder_of_them_has_no_cases(
    plugin_evals: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run(["lint"], capsys)
    assert (code, f"warning  -  {PLUGIN_LINE}" in out.splitlines()) == (0, True)
    code, _out, err = run(["lint", "--cases", "plugins/ruler/evals"], capsys)
    assert (code, err) == (
        2,
        "activation lint: error: --cases plugins/ruler/evals: a folder with no case file in "
        f"it: it holds {REASON}: not read\n",
    )


def test_behavior_on_plugin_eval_cases_says_whose_they_are_not_to_write_prompt_md(
    plugin_evals: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["behavior", "--dry-run", "--skill-path", "plugins/ruler/skills/rules"]
    for suite in ("plugins/ruler/evals", "plugins/ruler/evals/01-fix"):
        code, _out, err = run([*argv, "--suite", suite], capsys)
        assert (code, err) == (
            2,
            f"activation behavior: error: {suite}: no behavior cases: it holds {REASON}: "
            "not read\n",
        )
    code, _out, err = run(argv, capsys)
    looked = ", ".join(
        str(plugin_evals / place)
        for place in ("plugins/ruler/skills/rules/evals", "evals/rules", "evals")
    )
    assert (code, err) == (
        2,
        f"activation behavior: error: no behavior suite: none of {looked} exists (pass "
        f"--suite PATH): plugins/ruler/evals/ holds {REASON}: not read\n",
    )


def test_plugin_eval_suites_are_found_by_the_clis_own_rule() -> None:
    """`<eval dir>/**/prompt.md` or `case.yaml`, the nearest `evals/` being the suite; a
    `prompt.md` beside `graders/` elsewhere; a seeds' PROMPT.md or a lone prompt.md is not."""
    assert suites(
        [
            "p/evals/cases/01-a/prompt.md",
            "p/evals/cases/02-b/case.yaml",
            "p/evals/README.md",
            "evals/prompt.md",
            "q/checks/03-c/prompt.md",
            "q/checks/03-c/graders/g.md",
            "r/docs/prompt.md",
            "s/evals/seed/PROMPT.md",
            "t/evals/x/graders/g.md",
        ]
    ) == {
        "evals": ("prompt.md",),
        "p/evals": ("cases/01-a", "cases/02-b"),
        "q/checks": ("03-c",),
    }


WORKSPACE_LINE = (
    "skills/rails-workspace/iteration-1/evals.json, "
    "skills/rails-workspace/iteration-2/evals.json are skill-creator's workspace copies: "
    "not read; its suite belongs in skills/rails/evals/"
)


def test_skill_creators_workspace_copy_is_named_where_its_suite_belongs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = {"skill_name": "rails", "evals": [{"id": 1, "prompt": "Add a model", "files": []}]}
    root = commit(
        tmp_path / "kit",
        {
            ".claude-plugin/plugin.json": '{"name": "kit"}',
            "skills/rails/SKILL.md": skill("rails", "Use when writing Rails code."),
            "skills/rails-workspace/iteration-1/evals.json": orjson.dumps(copy).decode(),
            "skills/rails-workspace/iteration-2/evals.json": orjson.dumps(copy).decode(),
            "skills/rails-workspace/iteration-2/eval-1/with_skill/grading.json": "{}",
        },
    )
    monkeypatch.chdir(root)
    code, out, _err = run(["lint"], capsys)
    assert (code, f"warning  -  {WORKSPACE_LINE}" in out.splitlines()) == (0, True)
    (root / "skills/rails/SKILL.md").write_text(
        skill("rails", "Use when writing Rails code.") + "Run the tests.\n"
    )
    plan, said = planned(tmp_path, capsys)
    assert plan[1:5] == [
        "kit:rails (skills/rails/SKILL.md): modified, body or references",
        "  not tested: body",
        f"  {WORKSPACE_LINE}",
        "would run: nothing",
    ]
    assert [*plan, *said].count(f"  {WORKSPACE_LINE}") == 1  # it was said twice


def test_behavior_on_an_evals_folder_of_activation_cases_says_pass_it_to_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    routing = {"cases": [{"id": "a", "prompt": "Build with vite", "should_activate": True}]}
    root = commit(
        tmp_path / "web",
        {
            ".agents/skills/vite/SKILL.md": skill("vite", "Use when building with Vite."),
            "evals/routing.cases.json": orjson.dumps(routing).decode(),
        },
    )
    monkeypatch.chdir(root)
    argv = ["behavior", "--dry-run", "--skill-path", ".agents/skills/vite", "--suite", "evals"]
    code, _out, err = run(argv, capsys)
    assert (code, err) == (
        2,
        "activation behavior: error: evals: no behavior cases: evals/routing.cases.json is an "
        "activation cases file, not behavior cases (pass it to --cases)\n",
    )
    (root / "evals/more.cases.json").write_text(orjson.dumps(routing).decode())
    code, _out, err = run(argv, capsys)
    assert (code, err) == (
        2,
        "activation behavior: error: evals: no behavior cases: evals/more.cases.json, "
        "evals/routing.cases.json are activation cases files, not behavior cases (pass them "
        "to --cases)\n",
    )


def test_a_root_plugins_eval_cases_are_about_each_of_its_skills_and_other_files_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plugin at the repo's root (`claude plugin eval .`): its `evals/` cases test every
    skill of it, while a root `evals/` of no format is no suite of any one of several."""
    root = commit(
        tmp_path / "kit",
        {
            ".claude-plugin/plugin.json": '{"name": "kit"}',
            "skills/rules/SKILL.md": RULES,
            "skills/lint/SKILL.md": skill("lint", "Use when linting detection rules."),
            "evals/01-fix/prompt.md": PROMPT,
            "evals/01-fix/graders/rule-written.md": WRITTEN,
        },
    )
    monkeypatch.chdir(root)
    (root / "skills/rules/SKILL.md").write_text(RULES + "Check it twice.\n")
    assert planned(tmp_path, capsys)[0][1:4] == [
        "kit:rules (skills/rules/SKILL.md): modified, body or references",
        "  not tested: body",
        f"  evals/ holds {REASON} (01-fix): not read",
    ]
    for case in ("prompt.md", "graders/rule-written.md"):
        (root / "evals/01-fix" / case).unlink()
    (root / "evals/notes.toml").write_text("x = 1\n")
    assert planned(tmp_path, capsys)[0][1:4] == [
        "kit:rules (skills/rules/SKILL.md): modified, body or references",
        "  not tested: body",
        "would run: nothing",
    ]
