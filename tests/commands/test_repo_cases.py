"""Case files where the field keeps them, in repos written here in the field's shapes (never
copies of their files): a skill whose `evals/` holds waza's suite, obra/superpowers' plain
text prompts in `tests/`, skill-creator's `evals/trigger_eval.json` at the root of a
one-skill repo; `--cases` given several times, as a comma list or a folder; and a
multi-skill suite made by `activation import` run with no `--skill-path`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.skill_repo import init_repo

DEPLOY = (
    "---\nname: deploy\ndescription: Deploy a containerised app to the cloud with one "
    "command. Use when the user asks to deploy, ship or publish an app.\n---\n# Deploy\n"
    "Run the deploy script.\n"
)
WAZA_EVAL = (
    "name: deploy-eval\nskill: deploy\nconfig:\n  executor: mock\ntasks:\n  - tasks/*.yaml\n"
)
WAZA_TASK = (
    "id: basic-deploy\ninputs:\n  prompt: Deploy my app to production\n"
    "expected:\n  output_contains: [deployed]\n"
)
TRIGGERS = (
    "skill: deploy\nshould_trigger_prompts:\n  - prompt: Ship this containerised app to the "
    "cloud\n    reason: a deploy\n  - Publish my app with one command\n"
    "should_not_trigger_prompts:\n  - prompt: Write a haiku about tea\n    reason: unrelated\n"
)
LOOKED = (
    "cases: looked in files named as cases (cases.json, *.cases.json, *trigger*eval*.json, "
    "*trigger*test*.yaml, *skill*test*.yaml) anywhere; each skill's folder and its evals/; "
    "evals/ and tests/ "
    "folders (.txt prompts in their prompts/ folders); beside the skill folders and at the "
    "repo's top"
)


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nThe steps.\n"


def commit(root: Path, files: dict[str, str]) -> Path:
    """A git repo at `root` holding `files`, committed on main."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    made = init_repo(root)
    made.git.add(all=True)
    made.index.commit("the skills")
    made.close()
    return root


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def changed(tmp_path: Path, *flags: str) -> tuple[list[str], dict[str, Any]]:
    report = tmp_path / "changed.json"
    return [
        "changed",
        "--base",
        "git:main",
        "--model",
        "mock",
        "--no-summary",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--json",
        str(report),
        *flags,
    ], {"path": report}


# --- a skill whose evals/ is waza's ---------------------------------------------------------


@pytest.fixture
def waza(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = commit(
        tmp_path / "waza",
        {
            "skills/deploy/SKILL.md": DEPLOY,
            "skills/deploy/evals/eval.yaml": WAZA_EVAL,
            "skills/deploy/evals/tasks/basic.yaml": WAZA_TASK,
            "skills/deploy/evals/trigger_tests.yaml": TRIGGERS,
        },
    )
    monkeypatch.chdir(root)
    text = (root / "skills/deploy/SKILL.md").read_text()
    (root / "skills/deploy/SKILL.md").write_text(
        text.replace("one command", "a single command").replace("script.", "script, then check.")
    )
    return root


WAZA_LINE = (
    "  skills/deploy/evals/ holds waza's suite (eval.yaml and tasks/): its tasks grade the "
    "agent's reply text, and this tool grades the files the agent leaves (eval.yaml, "
    "tasks/basic.yaml): not read"
)


def test_a_waza_suite_is_not_tested_with_its_files_and_why_and_the_trigger_gate_runs(
    waza: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, report = changed(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 1  # the body changed and nothing here tests it
    assert err.splitlines()[:2] == [
        LOOKED,
        "  found skills/deploy/evals/trigger_tests.yaml: deploy",
    ]
    assert WAZA_LINE not in err  # the skill's own line below says it, once
    summary = out[out.index("activation changed: git:main") :].splitlines()
    assert summary[:5] == [
        "activation changed: git:main -> the working tree",
        "deploy (skills/deploy/SKILL.md): description, body or references",
        WAZA_LINE,
        "  not tested: its body or references changed and it has no behavior suite",
        "  activation gate of deploy (skills/deploy/evals/trigger_tests.yaml): OK: 3 PASS",
    ]
    assert summary[-1] == (
        "FAILED: a changed skill is not tested (pass --allow-untested to accept it)."
    )
    data = orjson.loads(report["path"].read_bytes())
    assert [(gate["kind"], gate["suite"]) for gate in data["gates"]] == [
        ("activation", "skills/deploy/evals/trigger_tests.yaml")
    ]
    assert len(data["gates"][0]["run"]["cases"]) == 3
    assert data["skills"][0]["untested"] == ["body"]
    assert data["skills"][0]["note"] == WAZA_LINE.strip()


def test_a_waza_suite_with_allow_untested_and_dry_run_plans_the_other_gates(
    waza: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, _report = changed(tmp_path, "--allow-untested")
    assert run(argv, capsys)[0] == 0
    argv, _report = changed(tmp_path, "--dry-run")
    code, out, _err = run(argv, capsys)
    assert code == 0
    assert out.splitlines()[:5] == [
        "activation changed: git:main -> the working tree",
        "deploy (skills/deploy/SKILL.md): modified, description, body or references",
        "  not tested: body",
        WAZA_LINE,
        "would run: activation gate of deploy on skills/deploy/evals/trigger_tests.yaml "
        "(because of deploy)",
    ]


def test_an_evals_folder_of_no_known_format_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(
        tmp_path / "repo",
        {"skills/deploy/SKILL.md": DEPLOY, "skills/deploy/evals/checks.toml": "x = 1\n"},
    )
    monkeypatch.chdir(root)
    (root / "skills/deploy/SKILL.md").write_text(DEPLOY.replace("script.", "script twice."))
    argv, _report = changed(tmp_path, "--dry-run")
    code, out, _err = run(argv, capsys)
    assert code == 0
    assert out.splitlines()[1:4] == [
        "deploy (skills/deploy/SKILL.md): modified, body or references",
        "  not tested: body",
        "  skills/deploy/evals/ holds no format this tool reads (behavior cases are *.json "
        "case files or PROMPT.md folders) (checks.toml): not read",
    ]


# --- obra/superpowers: a plugin at the root, prompts in tests/ ---------------------------


SUPER = {
    "skills/brainstorming/SKILL.md": skill(
        "brainstorming", "Use before creative work, to explore the idea and the design first."
    ),
    "skills/systematic-debugging/SKILL.md": skill(
        "systematic-debugging", "Use when a bug or test failure appears, before any fix."
    ),
    "tests/requests/prompts/please-use-brainstorming.txt": "please use brainstorming here\n",
    "tests/requests/prompts/use-systematic-debugging.txt": "use systematic debugging on this bug\n",
    "tests/requests/prompts/after-planning.txt": "The plan is done. Start, please.\n",
    "tests/requests/prompts/negative/systematic-debugging-haiku.txt": "a haiku on bugs\n",
    "README.txt": "not a prompt\n",
}


def test_prompt_files_in_tests_are_cases_named_by_their_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fixture of the tests shaped as cases but not one is left out, and said."""
    fixture = {"tests/fixtures/report.json": '{"skill": 3, "cases": []}'}
    root = commit(tmp_path / "powers", {**SUPER, **fixture})
    monkeypatch.chdir(root)
    path = root / "skills/systematic-debugging/SKILL.md"
    path.write_text(path.read_text().replace("before any fix", "before any fix or patch"))
    argv, report = changed(tmp_path)
    code, _out, err = run(argv, capsys)
    assert code == 0
    assert err.splitlines()[:3] == [
        LOOKED,
        "  found tests/requests/prompts/*.txt: no skill, systematic-debugging (2 files), "
        "brainstorming",
        "  not read: tests/fixtures/report.json: 'skill' must be a skill id like plugin:skill",
    ]
    data = orjson.loads(report["path"].read_bytes())
    suites = {gate["skill"]: gate["suite"] for gate in data["gates"]}
    assert suites == {
        "brainstorming": "tests/requests/prompts/please-use-brainstorming.txt",
        "systematic-debugging": "tests/requests/prompts/",
    }
    debugging = next(g for g in data["gates"] if g["skill"] == "systematic-debugging")
    cases = {c["id"]: c["should_activate"] for c in debugging["run"]["cases"]}
    assert cases == {"use-systematic-debugging": True, "systematic-debugging-haiku": False}


def test_the_run_with_no_cases_uses_the_repos_prompts_and_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(tmp_path / "powers", SUPER)
    monkeypatch.chdir(root)
    code, out, err = run(["--model", "mock", "--dry-run"], capsys)
    assert code == 0
    assert err.splitlines()[2] == "cases: using tests/requests/prompts/*.txt (3)"
    assert (
        "3 case(s): 1 expect brainstorming, 1 expect another skill, "
        "1 expect any skill but their must_not"
    ) in out
    code, out, err = run(
        ["--model", "mock", "--dry-run", "--skill-path", "skills/brainstorming"], capsys
    )
    assert code == 0
    assert err.splitlines()[2] == "cases: using tests/requests/prompts/please-use-brainstorming.txt"
    assert "1 case(s): 1 should activate, 0 should not" in out


def test_the_bundled_target_keeps_the_bundled_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The auth0 default skill is what the bundled suite was written for: no search."""
    root = commit(
        tmp_path / "auth",
        {
            "plugins/auth0/skills/auth0/SKILL.md": skill("auth0", "Add Auth0 login to an app."),
            "evals/trigger_eval.json": '[{"query": "add a login", "should_trigger": true}]',
        },
    )
    monkeypatch.chdir(root)
    code, out, err = run(["--model", "mock", "--dry-run"], capsys)
    assert code == 0
    assert "cases:" not in err
    assert "95 case(s)" in out


# --- skill-creator: a one-skill repo's root evals/ ----------------------------------------


def test_a_one_skill_repos_root_trigger_eval_is_its_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(
        tmp_path / "refunds",
        {
            "skills/refunds/SKILL.md": skill("refunds", "Refund a customer's order in full."),
            "evals/trigger_eval.json": orjson.dumps(
                [
                    {"query": "order 4417 wants its money back", "should_trigger": True},
                    {"query": "write a haiku about tea", "should_trigger": False},
                ]
            ).decode(),
        },
    )
    monkeypatch.chdir(root)
    (root / "skills/refunds/SKILL.md").write_text(
        skill("refunds", "Refund a customer's order, in full or in part.")
    )
    argv, report = changed(tmp_path)
    code, _out, err = run(argv, capsys)
    assert code == 0
    assert "  found evals/trigger_eval.json: refunds" in err.splitlines()
    data = orjson.loads(report["path"].read_bytes())
    assert [(g["skill"], g["suite"]) for g in data["gates"]] == [
        ("refunds", "evals/trigger_eval.json")
    ]
    assert data["skills"][0]["untested"] == []
    code, _out, err = run(["--model", "mock", "--dry-run"], capsys)
    assert (code, err.splitlines()[2]) == (0, "cases: using evals/trigger_eval.json")


def test_calibrate_and_suggest_with_no_cases_use_the_skills_own_and_say_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like the run, calibrate and suggest measure a skill on its own cases, never on the
    bundled auth0 suite (which they refuse for any other skill)."""
    queries = [{"query": f"refund order {n} in full", "should_trigger": True} for n in range(3)]
    root = commit(
        tmp_path / "refunds",
        {
            "skills/refunds/SKILL.md": skill("refunds", "Refund a customer's order in full."),
            "skills/refunds/evals/trigger-eval.json": orjson.dumps(queries).decode(),
        },
    )
    monkeypatch.chdir(root)
    code, _out, err = run(["calibrate", "--model", "mock", "--trials", "1"], capsys)
    assert code == 1  # three positives alone: blind on false positives, so not calibrated
    assert "cases: using skills/refunds/evals/trigger-eval.json" in err.splitlines()
    code, _out, err = run(["suggest", "--model", "mock", "--proposer", "mock"], capsys)
    assert "cases: using skills/refunds/evals/trigger-eval.json" in err.splitlines()
    assert (code, err.splitlines()[-1]) == (
        2,
        "activation suggest: error: the suite has 3 cases: the train split has 1 (needs 6), "
        "the select split has 1 (needs 7), the holdback split has 1 (needs 7), the select "
        "split has no case that should not load refunds, the holdback split has no case that "
        "should not load refunds: suggest needs about 40 cases",
    )


# --- several --cases --------------------------------------------------------------------


@pytest.fixture
def two_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = commit(
        tmp_path / "refunds",
        {"skills/refunds/SKILL.md": skill("refunds", "Refund a customer's order in full.")},
    )
    suite = root / "suite"
    suite.mkdir()
    (suite / "refunds.jsonl").write_text(
        '{"id": "r1", "prompt": "Refund order 4417 in full"}\n'
        '{"id": "r2", "prompt": "Give the money back for order 9"}\n'
    )
    (suite / "negatives.jsonl").write_text(
        '{"id": "n1", "prompt": "Write a haiku about tea", "expected_skill": ""}\n'
    )
    (suite / "extra.yaml").write_text(
        "skill: refunds\nshould_not_trigger_prompts:\n  - Summarise this spreadsheet\n"
    )
    (suite / "notes.md").write_text("not cases\n")
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize(
    "cases",
    [
        ["--cases", "suite/refunds.jsonl", "--cases", "suite/extra.yaml"],
        ["--cases", "suite/refunds.jsonl,suite/extra.yaml"],
        ["--cases", "suite"],
    ],
)
def test_several_cases_files_are_read_together(
    two_files: Path, cases: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run(["--model", "mock", "--dry-run", *cases], capsys)
    assert code == 0
    assert "4 case(s): 2 expect refunds, 1 expect none, 1 expect anything but refunds" in out
    code, out, _err = run(["lint", *cases], capsys)
    assert "no such file" not in out


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ("suite/nope.jsonl", "--cases suite/nope.jsonl: no such file"),
        ("suite/refunds.jsonl,nope.yaml", "--cases nope.yaml: no such file"),
        ("skills", "--cases skills: a folder with no case file in it"),
    ],
)
def test_a_cases_path_that_is_not_there_is_one_line(
    two_files: Path, cases: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--model", "mock", "--dry-run", "--cases", cases], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"activation: error: {message}")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--trials", "3", "--trials", "5"], "--trials given twice: it takes one value"),
        (
            ["--model", "mock", "--model", "mock"],
            "--model given twice: it takes one value (several go comma-separated in one)",
        ),
        (["lint", "--catalog", "a", "--catalog", "b"], "--catalog given twice"),
        (
            ["--only", "a", "--only", "b"],
            "--only given twice: it takes one value (several go comma-separated in one)",
        ),
        (["import", "x.json", "--out", "a.json", "--out", "b.json"], "--out given twice"),
    ],
)
def test_a_one_value_flag_given_twice_is_refused(
    two_files: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1


# --- an imported multi-skill suite ----------------------------------------------------------


def test_an_imported_two_skill_suite_runs_as_a_routing_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative of aspire-deployment is that skill's only: the router, whose own file
    claims the prompt, is never told to stay quiet on it."""
    root = commit(
        tmp_path / "deploys",
        {
            "skills/router/SKILL.md": skill(
                "router", "Route any cloud deployment request to the right deploy tool."
            ),
            "skills/aspire-deployment/SKILL.md": skill(
                "aspire-deployment", "Deploy .NET Aspire apps to Azure Container Apps."
            ),
            "router.yaml": "skill: router\nshould_trigger_prompts:\n  - Deploy my app to the "
            "cloud\nshould_not_trigger_prompts:\n  - Write a haiku\n",
            "aspire.yaml": "skill: aspire-deployment\nshould_trigger_prompts:\n  - Deploy my "
            "Aspire app to Azure Container Apps\nshould_not_trigger_prompts:\n  - Deploy my "
            "app to the cloud\n  - Set up a Kubernetes cluster\n",
        },
    )
    monkeypatch.chdir(root)
    code, _out, _err = run(["import", "router.yaml", "aspire.yaml", "--out", "cases.json"], capsys)
    assert code == 0
    written = {c["id"]: c for c in orjson.loads((root / "cases.json").read_bytes())["cases"]}
    assert {
        k: (c.get("expect"), c.get("must_not"), "should_activate" in c) for k, c in written.items()
    } == {
        "router-should-1": ("router", ["aspire-deployment"], False),
        "router-should-not-1": ("*", ["router"], False),
        "aspire-deployment-should-1": ("aspire-deployment", None, False),
        "aspire-deployment-should-not-2": ("*", ["aspire-deployment"], False),
    }
    report = tmp_path / "run.json"
    code, out, _err = run(
        ["--model", "mock", "--cases", "cases.json", "--json", str(report), "--no-summary"],
        capsys,
    )
    assert code == 0
    data = orjson.loads(report.read_bytes())
    assert data["skill"]["id"] == "aspire-deployment"  # a routing suite: the set's first
    assert {c["id"]: (c["expect"], c["should_activate"]) for c in data["cases"]} == {
        "router-should-1": (["router"], False),
        "router-should-not-1": (["*"], False),  # router's negative: says nothing of aspire
        "aspire-deployment-should-1": (["aspire-deployment"], True),
        "aspire-deployment-should-not-2": (None, False),  # the measured skill's own negative
    }
    assert "OK: no case regressed, no case errored." in out


def test_every_flag_that_takes_a_value_accumulates_or_refuses_a_repeat() -> None:
    """No flag of any command keeps its last value in silence."""
    import argparse

    from activation.commands.flags import COMMANDS, Once

    kinds = set()
    for command in COMMANDS.values():
        parsers = [command.parser(), *(action.parser() for action in command.actions.values())]
        for parser in parsers:
            for action in parser._actions:
                if action.option_strings and action.nargs != 0:
                    kinds.add(type(action).__name__)
                    assert isinstance(action, Once | argparse._AppendAction), action.dest
    assert kinds == {"Once", "_AppendAction"}


def test_waza_suites_in_the_roots_evals_per_skill_are_each_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """waza's layout of a repo of several skills: `evals/<skill>/eval.yaml` at the root."""
    root = commit(
        tmp_path / "several",
        {
            "skills/deploy/SKILL.md": DEPLOY,
            "skills/prepare/SKILL.md": skill("prepare", "Prepare an app for the cloud."),
            "evals/deploy/eval.yaml": WAZA_EVAL,
            "evals/deploy/tasks/basic.yaml": WAZA_TASK,
            "evals/prepare/eval.yaml": "name: p\nskill: prepare\ntasks: []\n",
        },
    )
    monkeypatch.chdir(root)
    (root / "skills/deploy/SKILL.md").write_text(DEPLOY + "Then check it.\n")
    argv, _report = changed(tmp_path, "--dry-run")
    code, out, _err = run(argv, capsys)
    assert code == 0
    assert out.splitlines()[1:5] == [
        "deploy (skills/deploy/SKILL.md): modified, body or references",
        "  not tested: body",
        "  evals/deploy/ holds waza's suite (eval.yaml and tasks/): its tasks grade the agent's "
        "reply text, and this tool grades the files the agent leaves (eval.yaml, "
        "tasks/basic.yaml): not read",
        "would run: nothing",
    ]


def test_import_reads_a_folder_of_prompt_files_and_names_the_unnamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(tmp_path / "powers", SUPER)
    monkeypatch.chdir(root)
    code, _out, err = run(["import", "tests/requests/prompts", "--out", "cases.json"], capsys)
    assert code == 0
    assert err.splitlines() == [
        "wrote 4 case(s) from 4 file(s) (prompt-text) to cases.json",
        "warning: 4 cases have no 'why': their ground truth cannot be reviewed",
        "warning: 1 case(s) from files that name no skill stay about the skill a run measures "
        "(--skill-path): after-planning",
    ]
    written = orjson.loads((root / "cases.json").read_bytes())["cases"]
    assert [(c["id"], c.get("expect"), c.get("must_not")) for c in written] == [
        ("after-planning", None, None),
        ("systematic-debugging-haiku", "*", ["systematic-debugging"]),
        ("please-use-brainstorming", "brainstorming", None),
        ("use-systematic-debugging", "systematic-debugging", None),
    ]


def test_import_of_waza_files_names_waza_and_why(
    waza: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """waza's eval.yaml and a task of it are not cases: the line says whose files they are
    and why this tool does not read them (not the nearest of this tool's formats)."""
    why = (
        "not a cases file: waza's tasks grade the text of the agent's reply, and this tool "
        "measures whether the agent loads the skill (trigger cases) and grades the files it "
        "leaves; write the prompts as trigger cases (docs/formats.md)"
    )
    for path, what in (
        ("skills/deploy/evals/eval.yaml", "waza's eval suite (an eval.yaml that lists tasks)"),
        (
            "skills/deploy/evals/tasks/basic.yaml",
            "a waza task (a prompt under 'inputs', checks of the reply under 'expected')",
        ),
    ):
        code, _out, err = run(["import", path, "--out", "x.json"], capsys)
        assert (code, err) == (2, f"activation import: error: {path}: {what}, {why}\n")
    code, _out, err = run(["import", "skills/deploy/evals/tasks", "--out", "x.json"], capsys)
    assert (code, err) == (
        2,
        "activation import: error: skills/deploy/evals/tasks: a folder with no case file in it\n",
    )
    (waza / "skills/deploy/evals/trigger_tests.yaml").unlink()
    code, _out, err = run(["import", "skills/deploy/evals", "--out", "x.json"], capsys)
    assert (code, err) == (
        2,
        "activation import: error: skills/deploy/evals: a folder with no case file in "
        f"it: it holds waza's suite (eval.yaml and tasks/), {why}\n",
    )


SCENARIOS = {
    "skills/run/SKILL.md": skill("run", "Use when running the project's commands."),
    "evals/scenarios/job-failure/prompt.txt": "My nightly job failed, find out why\n",
    "evals/scenarios/job-failure/skill-sets.yaml": "sets:\n  - name: run\n    skills: [run]\n",
    "evals/scenarios/job-failure/context/log.txt": "ERROR at step 3\n",
    "evals/scenarios/docs-lookup/prompt.txt": "What does the retry flag do?\n",
    "evals/scenarios/docs-lookup/scenario.md": "# Docs lookup\n",
}


def test_import_of_case_folders_names_each_case_by_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One folder a case, each with a `prompt.txt` (dbt Labs' scenarios): the ids were all
    "prompt" (exit 2); the folder names the case, a folder's other text (its context) is
    not a prompt, and a file beside a prompt that names skills is said to be unread."""
    root = commit(tmp_path / "scenarios", SCENARIOS)
    monkeypatch.chdir(root)
    code, _out, err = run(["import", "evals/scenarios", "--out", "cases.json"], capsys)
    assert code == 0
    assert err.splitlines() == [
        "wrote 2 case(s) from 2 file(s) (prompt-text) to cases.json",
        "warning: 2 cases have no 'why': their ground truth cannot be reviewed",
        "warning: evals/scenarios/job-failure/skill-sets.yaml: names skills for the prompt "
        "files beside them, in a format this tool does not read: not read; those cases are "
        "about the skill a run measures (--skill-path), or write 'expect' in the imported file",
    ]
    written = orjson.loads((root / "cases.json").read_bytes())["cases"]
    assert [(case["id"], case["prompt"]) for case in written] == [
        ("docs-lookup", "What does the retry flag do?"),
        ("job-failure", "My nightly job failed, find out why"),
    ]


def test_import_names_a_root_skills_cases_by_its_name_not_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """skill-creator's one-skill layout, checked out in a folder named otherwise: the
    imported file was written for the checkout's folder (`checkout`), which the run then
    warned was not the skill."""
    trigger = [{"query": "tidy my utility classes", "should_trigger": True}]
    root = commit(
        tmp_path / "checkout",
        {
            "SKILL.md": skill("tailwind", "Use when writing Tailwind classes."),
            "evals/trigger-eval.json": orjson.dumps(trigger).decode(),
        },
    )
    monkeypatch.chdir(root)
    assert run(["import", "evals/trigger-eval.json", "--out", "cases.json"], capsys)[0] == 0
    written = orjson.loads((root / "cases.json").read_bytes())
    assert written["skill"] == "tailwind"
    assert [case["id"] for case in written["cases"]] == ["tailwind-trigger-eval-1"]


def test_csv_files_of_another_header_are_named_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CSV table beside the cases (results, fixtures) was passed over without a word; a
    folder of them is one line."""
    prompts = "id,should_trigger,prompt\nd-1,true,Deploy my app now\nd-2,false,Write a haiku\n"
    root = commit(
        tmp_path / "tables",
        {
            "skills/deploy/SKILL.md": DEPLOY,
            "evals/deploy/prompts.csv": prompts,
            "evals/deploy/results.csv": "case,score\nd-1,1\n",
            "evals/deploy/fixtures/a.csv": "city,population\nRome,2\n",
            "evals/deploy/fixtures/b.csv": "x,y\n1,2\n",
        },
    )
    monkeypatch.chdir(root)
    (root / "skills/deploy/SKILL.md").write_text(DEPLOY.replace("one command", "a command"))
    argv, _report = changed(tmp_path, "--dry-run")
    code, _out, err = run(argv, capsys)
    assert code == 0
    assert err.splitlines()[1:4] == [
        "  found evals/deploy/prompts.csv: deploy",
        "  not read: evals/deploy/fixtures/: 2 CSV files (a.csv, b.csv) whose header is not "
        "the CSV case format's (id,should_trigger,prompt)",
        "  not read: evals/deploy/results.csv: a CSV file whose header (case,score) is not the "
        "CSV case format's (id,should_trigger,prompt)",
    ]


def test_a_partly_read_evals_folder_names_only_its_unread_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """evals/ holding a skill's read suite and a template of another tool: the line said
    "evals/ holds no format this tool reads" although a file in it was read."""
    evals = {"skill_name": "deploy", "evals": [{"id": 1, "prompt": "Deploy it", "files": []}]}
    root = commit(
        tmp_path / "partly",
        {
            "skills/deploy/SKILL.md": DEPLOY,
            "evals/deploy/evals.json": orjson.dumps(evals).decode(),
            "evals/README.md": "# Evals\n",
            "evals/_template/checks.md": "- a check\n",
        },
    )
    monkeypatch.chdir(root)
    code, out, _err = run(["lint"], capsys)
    assert code == 0
    assert (
        "  in evals/, README.md, _template/checks.md: no format this tool reads (behavior "
        "cases are *.json case files or PROMPT.md folders): not read\n"
    ) in out
    assert "evals/ holds" not in out


def test_a_marketplace_entry_claude_code_cannot_parse_is_said_by_lint_and_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """heygen-com/heygen-stack: a root skill, and a marketplace whose plugin lists its
    skills as `{name, path}` objects, which Claude Code's schema refuses. lint said nothing
    of it, and an edit to such a skill gave "no skill changed" without a word."""
    market = {
        "name": "studio",
        "plugins": [{"name": "studio", "source": "./", "skills": [{"name": "cam", "path": "cam"}]}],
    }
    root = commit(
        tmp_path / "studio",
        {
            "SKILL.md": skill("studio", "Use when making studio videos."),
            ".claude-plugin/marketplace.json": orjson.dumps(market).decode(),
            "cam/SKILL.md": skill("cam", "Use when setting up the camera."),
        },
    )
    monkeypatch.chdir(root)
    why = (
        "its 'skills' item 1 is an object (name, path), and Claude Code reads only paths "
        '("./my-skill") there: it keeps the plugin as unsupported, which cannot be '
        "installed, so none of its skills load"
    )
    code, out, _err = run(["lint"], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        f"error    -  .claude-plugin/marketplace.json: the plugin studio: {why}"
    )
    (root / "cam/SKILL.md").write_text(skill("cam", "Use when framing a shot."))
    argv, _report = changed(tmp_path, "--dry-run")
    code, _out, err = run(argv, capsys)
    assert code == 0
    assert err.splitlines()[0] == (
        "warning: cam/SKILL.md changed, but no agent loads that skill from here: "
        ".claude-plugin/marketplace.json names it for the plugin studio, but "
        f"{why}: not tested"
    )


def test_a_suite_of_positives_only_says_no_case_to_count_without_blaming_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """dbt Labs' one positive, nothing errored: the line read "n/a (no case to count: ERROR
    cases are left out)", as if a case had errored."""
    trigger = [{"query": "deploy my app to the cloud", "should_trigger": True}]
    root = commit(
        tmp_path / "positives",
        {"SKILL.md": DEPLOY, "evals/trigger-eval.json": orjson.dumps(trigger).decode()},
    )
    monkeypatch.chdir(root)
    argv = ["--model", "mock", "--skill-path", "SKILL.md", "--cases", "evals/trigger-eval.json"]
    code, out, _err = run([*argv, "--cache-dir", str(tmp_path / "cache")], capsys)
    assert code == 0
    assert out.count("          false positives n/a (no case to count)\n") == 2
    assert "ERROR cases are left out" not in out


# --- microsoft/skills: scenario suites in tests/scenarios/<skill>/ ---------------------------

SCENARIO_SUITE = (
    "config:\n  model: gpt-4\nscenarios:\n  - name: deploy_basic\n    prompt: Deploy my app\n"
    '    expected_patterns:\n      - "deploy\\\\("\n    forbidden_patterns:\n      - sudo\n'
    "    tags: [basic]\n    mock_response: deploy()\n"
)
SCENARIO_WHY = (
    "scenarios (scenarios.yaml: expected_patterns and forbidden_patterns): their patterns "
    "grade the code text of the agent's reply, and this tool grades the files the agent leaves"
)


@pytest.fixture
def scenario_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = commit(
        tmp_path / "scenarios",
        {
            "plugins/cloud/skills/deploy/SKILL.md": DEPLOY,
            "plugins/cloud/skills/prepare/SKILL.md": skill("prepare", "Prepare an app."),
            "tests/scenarios/deploy/scenarios.yaml": SCENARIO_SUITE,
            "tests/scenarios/deploy/acceptance-criteria.md": "# Criteria\n",
            "tests/scenarios/prepare/scenarios.yaml": SCENARIO_SUITE,
        },
    )
    monkeypatch.chdir(root)
    return root


def test_a_scenario_suite_is_named_for_its_skill_in_changed_and_lint(
    scenario_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder `changed` said it looked in is named, with why, for the skill it is about,
    and once (not once a skill) where it says what it found and in lint."""
    skill_md = scenario_repo / "plugins/cloud/skills/deploy/SKILL.md"
    skill_md.write_text(DEPLOY + "Then check it.\n")
    argv, _report = changed(tmp_path, "--dry-run")
    code, out, err = run(argv, capsys)
    assert code == 0
    assert err.splitlines()[:3] == [
        LOOKED,
        "  found no activation case file (behavior suites: each skill's line)",
        f"  tests/scenarios/ holds {SCENARIO_WHY} (deploy, prepare): not read",
    ]
    assert out.splitlines()[:5] == [
        "activation changed: git:main -> the working tree",
        "cloud:deploy (plugins/cloud/skills/deploy/SKILL.md): modified, body or references",
        "  not tested: body",
        f"  tests/scenarios/deploy/ holds {SCENARIO_WHY} (acceptance-criteria.md, "
        "scenarios.yaml): not read",
        "would run: nothing",
    ]
    code, out, _err = run(["lint"], capsys)
    assert f"tests/scenarios/ holds {SCENARIO_WHY} (deploy, prepare): not read" in out
    assert out.count("scenarios.yaml") == 1


@pytest.mark.parametrize(
    "given",
    ["tests/scenarios/deploy/scenarios.yaml", "tests/scenarios/deploy"],
)
def test_import_of_a_scenario_suite_says_whose_and_why_in_one_line(
    scenario_repo: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    code, out, err = run(["import", given, "--out", "cases.json"], capsys)
    assert code == 2
    assert out == ""
    why = (
        f"tests/scenarios/deploy/scenarios.yaml: {SCENARIO_WHY}: not a cases file; write "
        "the prompts as trigger cases (docs/formats.md)"
        if given.endswith(".yaml")
        else f"{given}: a folder with no case file in it: it holds {SCENARIO_WHY}: not read"
    )
    assert err == f"activation import: error: {why}\n"
    assert not (scenario_repo / "cases.json").exists()


def test_a_routing_suite_with_no_skill_path_measures_the_skill_its_cases_are_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA5 F1: prompts about `commit` and `site` in a set whose first skill is `add-backlog`:
    the run, calibrate and suggest act on `commit` (three cases), never on a skill no case
    names."""
    files = {
        **{f"skills/{name}/SKILL.md": skill(name, f"Use for {name} work.")
           for name in ("add-backlog", "commit", "site")},
        **{f"tests/commit/prompts/ask-{n}.txt": f"please commit my work {n}" for n in range(3)},
        "tests/explicit/prompts/use-site.txt": "Use the site skill to build a page.",
    }  # fmt: skip
    root = commit(tmp_path / "trinity", files)
    monkeypatch.chdir(root)
    code, out, err = run(["--model", "mock", "--dry-run"], capsys)
    assert code == 0
    assert (
        "Dry run: Stage A, skill commit\n4 case(s): 3 expect commit, 1 expect another skill\n"
        in out
    )
    code, out, err = run(["calibrate", "--model", "mock"], capsys)
    assert "narrow: real description vs the narrow control for commit\n" in out + err
