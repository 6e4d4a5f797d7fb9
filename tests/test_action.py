"""The GitHub Action (action.yml) and its step, `python -m activation.commands.ci_comment`:
the pin, the step's shell, the gate's run, and the one pull-request comment kept against a
local stand-in of GitHub's REST API on 127.0.0.1 (list with pagination, create, update),
with the exact requests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import activation
from activation import _config
from activation.commands import ci_comment
from activation.commands.main import main as activation_main
from activation.report.pr_comment import comment_body
from tests.support.local_server import StandIn
from tests.test_docs import tool_versions

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text())
TOKEN = "ghs_test_token_7"
COMMENTS = "/repos/org/skills/issues/7/comments"
MOCK_RUN = "changed --base git:HEAD --model mock"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Seen:
    method: str
    path: str
    body: Any


class FakeGitHub(StandIn):
    """Issue comments of pull request 7 of org/skills, `page_size` to a page, as GitHub
    pages them (a `Link` header with rel="next"); every request is noted in `seen`."""

    def __init__(self, bodies: list[str], page_size: int = 2) -> None:
        super().__init__("fake-github")
        self.comments = [{"id": index + 1, "body": body} for index, body in enumerate(bodies)]
        self.page_size = page_size
        self.seen: list[Seen] = []

    async def _handle(self, http: Request) -> Response:
        try:
            return await self._answer(http)
        except Exception as error:
            self._script_errors.append(error)
            return Response(status_code=500)

    async def _answer(self, http: Request) -> Response:
        raw = await http.body()
        path = http.url.path + (f"?{http.url.query}" if http.url.query else "")
        self.seen.append(Seen(http.method, path, json.loads(raw) if raw else None))
        if http.headers.get("authorization") != f"Bearer {TOKEN}":
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        if http.url.path == COMMENTS and http.method == "GET":
            page = int(http.query_params.get("page", "1"))
            size = min(int(http.query_params["per_page"]), self.page_size)
            shown = self.comments[(page - 1) * size : page * size]
            headers = {}
            if page * size < len(self.comments):
                following = f"{self.base_url}{COMMENTS}?per_page={size}&page={page + 1}"
                headers["Link"] = f'<{following}>; rel="next"'
            return JSONResponse(shown, headers=headers)
        if http.url.path == COMMENTS and http.method == "POST":
            created = {"id": 100 + len(self.comments), "body": json.loads(raw)["body"]}
            self.comments.append(created)
            return JSONResponse(created, status_code=201)
        found = re.fullmatch(r"/repos/org/skills/issues/comments/(\d+)", http.url.path)
        if found and http.method == "PATCH":
            comment = next(c for c in self.comments if c["id"] == int(found.group(1)))
            comment["body"] = json.loads(raw)["body"]
            return JSONResponse(comment)
        return JSONResponse({"message": "Not Found"}, status_code=404)


def ours(verdict: str, text: str) -> str:
    return comment_body(
        command="changed", verdict=verdict, exit_code=0, markdown=text, skipped=(), footer="f"
    )


@pytest.fixture
def github_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workflow's environment for pull request 7 of org/skills (not a fork), with no
    model key, in an empty folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    event = {"pull_request": {"number": 7, "head": {"repo": {"full_name": "org/skills"}},
                              "base": {"repo": {"full_name": "org/skills"}}}}  # fmt: skip
    (tmp_path / "event.json").write_text(json.dumps(event))
    for name in ("summary.md", "output.txt"):
        (tmp_path / name).write_text("")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output.txt"))
    monkeypatch.setenv("GITHUB_REPOSITORY", "org/skills")
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return tmp_path


def lay_out_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The billing example in `demo`, its edit in the working tree (its own run is kept
    out of the job summary)."""
    with monkeypatch.context() as scoped:
        scoped.delenv("GITHUB_STEP_SUMMARY")
        assert activation_main(["example", "billing", "demo"]) == 1


def test_the_action_installs_the_pinned_distribution_and_runs_its_step() -> None:
    inputs = ACTION["inputs"]
    assert inputs["install"]["default"] == f"{_config.DISTRIBUTION}=={activation.__version__}"
    assert ACTION["runs"]["using"] == "composite"
    assert tool_versions((REPO / "action.yml").read_text()) == [activation.__version__]
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    gate = ACTION["runs"]["steps"][-1]
    assert gate["id"] == "gate"
    assert "-m activation.commands.ci_comment" in gate["run"]
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.gate.outputs.exit-code }}"


def run_step(tmp_path: Path, inputs: dict[str, str]) -> list[str]:
    """The gate step's shell as the runner runs it, its expressions filled in, with a
    stand-in for the installed Python that records its arguments."""
    python = tmp_path / "runner" / "activation" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        '#!/bin/sh\nprintf "%s\\n" "$@" "key=${OPENAI_API_KEY-unset}/${API_KEY-unset}" '
        '> "$RUNNER_TEMP/args"\n'
    )
    python.chmod(0o755)
    gate = ACTION["runs"]["steps"][-1]
    values = {f"inputs.{name}": spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values |= {f"inputs.{name}": value for name, value in inputs.items()}
    values |= {"github.base_ref": "release", "github.token": TOKEN}
    env = {name: EXPRESSION.sub(lambda m: values[m.group(1)], str(value))
           for name, value in gate["env"].items()}  # fmt: skip
    env |= {"RUNNER_TEMP": str(tmp_path / "runner"), "PATH": os.environ["PATH"]}
    script = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", gate["run"]]
    subprocess.run(script, env=env, check=True)
    return (tmp_path / "runner" / "args").read_text().splitlines()


def test_the_step_runs_changed_against_the_base_branch_by_default(tmp_path: Path) -> None:
    assert run_step(tmp_path, {}) == [
        "-m", "activation.commands.ci_comment",
        "--command", "changed --base git:origin/release",
        "--json", "activation-report.json", "--markdown", "activation-report.md",
        "--max-cost-usd", "", "key=unset/unset",
    ]  # fmt: skip


def test_the_step_passes_the_command_the_ceiling_the_key_and_no_comment(tmp_path: Path) -> None:
    inputs = {"command": "behavior --trials 5", "max-cost-usd": "2.50", "comment": "false",
              "api-key": "sk-test", "api-key-env": "OPENAI_API_KEY"}  # fmt: skip
    assert run_step(tmp_path, inputs)[2:] == [
        "--command", "behavior --trials 5",
        "--json", "activation-report.json", "--markdown", "activation-report.md",
        "--max-cost-usd", "2.50", "--no-comment",
        "key=sk-test/unset",
    ]  # fmt: skip


def test_a_comment_on_a_later_page_is_updated_in_place(
    github_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = ours("FAILED", "the last push")
    with FakeGitHub(["LGTM", ours("OK", "older"), old, "ship it", "nit: typo"]) as api:
        monkeypatch.setenv("GITHUB_API_URL", api.base_url)
        new = ours("FAILED", "this push")
        assert ci_comment.keep_comment(7, new) == "updated comment 3"
    assert [(seen.method, seen.path, seen.body) for seen in api.seen] == [
        ("GET", f"{COMMENTS}?per_page=100", None),
        ("GET", f"{COMMENTS}?per_page=2&page=2", None),
        ("GET", f"{COMMENTS}?per_page=2&page=3", None),
        ("PATCH", "/repos/org/skills/issues/comments/3", {"body": new}),
    ]
    assert api.comments[1]["body"] == ours("OK", "older")


def test_the_gate_posts_its_summary_then_leaves_it_when_nothing_changed(
    github_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lay_out_demo(monkeypatch)
    monkeypatch.chdir(github_env / "demo")
    with FakeGitHub(["LGTM"]) as api:
        monkeypatch.setenv("GITHUB_API_URL", api.base_url)
        assert ci_comment.main(["--command", MOCK_RUN, "--max-cost-usd", "1"]) == 1
        markdown = (github_env / "demo" / "activation-report.md").read_text()
        assert markdown.startswith(
            "### ❌ activation changed: FAILED: activation gate of billing:refunds (cases.json) "
            "regressed.\n"
        )
        body = (
            "<!-- activation-pr-comment verdict=FAILED -->\n"
            + markdown.strip()
            + "\n\n<sub>activation 0.3.0: [the run](https://github.example/org/skills/actions/"
            "runs/42) has the log and the reports. This comment is updated on every push; a "
            "new one is posted when the verdict changes.</sub>\n"
        )
        assert [(seen.method, seen.path, seen.body) for seen in api.seen] == [
            ("GET", f"{COMMENTS}?per_page=100", None),
            ("POST", COMMENTS, {"body": body}),
        ]
        assert "activation: posted comment 101 on pull request 7" in capsys.readouterr().out
        assert ci_comment.main(["--command", MOCK_RUN, "--max-cost-usd", "1"]) == 1
    assert [seen.method for seen in api.seen] == ["GET", "POST", "GET"]
    assert "activation: comment 101 already says this" in capsys.readouterr().out
    report = json.loads((github_env / "demo" / "activation-report.json").read_text())
    assert report["gates"][0]["run"]["max_cost_usd"] == 1.0
    assert stage_two(github_env / "demo") == (1, "regressed: billing:refunds\n")
    assert (github_env / "output.txt").read_text() == ("exit-code=1\nverdict=FAILED\n" * 2)
    assert (github_env / "summary.md").read_text().count(markdown.strip()) == 2


def stage_two(folder: Path) -> tuple[int, str]:
    """docs/ci.md's second stage of adoption: its step that blocks on a regressed
    description, run on the JSON report in `folder`."""
    page = (REPO / "docs" / "ci.md").read_text()
    stages = page[page.index("## Adopting the gate in stages") :]
    block = re.findall(r"```yaml\n(.*?)```", stages, re.DOTALL)[1]
    step = yaml.safe_load(textwrap.dedent(block))[1]
    assert step["name"] == "Block on a regressed description"
    script = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]
    done = subprocess.run(script, cwd=folder, capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


def test_a_forks_pull_request_runs_what_needs_no_key_and_posts_nothing(
    github_env: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    event = {"pull_request": {"number": 7, "head": {"repo": {"full_name": "someone/skills"}},
                              "base": {"repo": {"full_name": "org/skills"}}}}  # fmt: skip
    (github_env / "event.json").write_text(json.dumps(event))
    lay_out_demo(monkeypatch)
    monkeypatch.chdir(github_env / "demo")
    with FakeGitHub([]) as api:
        monkeypatch.setenv("GITHUB_API_URL", api.base_url)
        assert ci_comment.main(["--command", "changed --base git:HEAD"]) == 0
    assert api.seen == []
    out = capfd.readouterr().out
    assert "would run: activation gate of billing:refunds on cases.json" in out
    assert out.endswith(
        "activation: a fork's pull request has a read-only token: no comment; the job summary "
        "has the verdict\n"
    )
    assert not (github_env / "demo" / "activation-report.json").exists()
    assert (github_env / "summary.md").read_text() == (
        "### ⏭️ activation: no model was called, the gate did not run\n\n**Skipped:**\n\n"
        "- `activation changed --base git:HEAD`: no API key (a pull request from a fork gets "
        "no secrets); ran `activation lint` and its `--dry-run` instead, which call no model. "
        "A maintainer can re-run it from a branch of this repository.\n"
    )
    assert (github_env / "output.txt").read_text() == "exit-code=0\nverdict=SKIPPED\n"


def test_a_comment_the_api_refuses_is_a_warning_not_the_verdict(
    github_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "read-only")
    with FakeGitHub([]) as api:
        monkeypatch.setenv("GITHUB_API_URL", api.base_url)
        assert ci_comment.main(["--command", "lint"]) == 2
    assert [seen.method for seen in api.seen] == ["GET"]
    assert capsys.readouterr().out.endswith(
        "::warning::activation could not keep its pull-request comment: HTTP Error 401: "
        "Unauthorized\n"
    )


def test_the_module_runs_as_the_action_calls_it(github_env: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "activation.commands.ci_comment", "--command", "lint",
         "--no-comment"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stdout.endswith(
        "activation: no pull-request comment (comment off, or no pull request)\n"
    )


def test_the_second_stage_leaves_the_behavior_gates_advisory(tmp_path: Path) -> None:
    gates = [
        {"kind": "behavior", "skill": "billing:refunds", "run": {"exit_code": 1}},
        {"kind": "activation", "skill": "billing:invoices", "run": {"exit_code": 0}},
    ]
    (tmp_path / "activation-report.json").write_text(json.dumps({"gates": gates}))
    assert stage_two(tmp_path) == (0, "")
