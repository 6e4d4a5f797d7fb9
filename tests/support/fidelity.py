"""What each pinned agent CLI sends its stand-in for a skill set: one small runner per agent
(its own install of the set, its headless run in an isolated home, its first request of the
loop), all behind `capture`. The conformance suite's listing fidelity checks
(tests/trials/agents/fidelity_cases.py) compare that request's listing with the renderer's.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import yaml

from activation._models import AgentSettings, Inputs, RunSpec, TrialKey
from activation.inputs.frontmatter import read_sibling
from activation.trials.agent.backend import AgentBackend
from activation.trials.agents.claude_code.adapter import agent_env, build_argv
from activation.trials.agents.codex.listing import Scope
from activation.trials.listing.model import ListedSkill
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.gemini_api import FakeGeminiAPI, GeminiRequest
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Text
from tests.support.npm_cli import processes_using
from tests.support.opencode_cli import (
    isolated_env,
    processes_with_env,
    run_headless,
    write_config,
)
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest
from tests.support.responses_api import Text as ResponsesText

CLAUDE_MODEL = "claude-sonnet-5-5"
PROMPT = "Please help me with the task."


def headless(
    argv: Sequence[str], cwd: Path, env: dict[str, str], timeout: float, prompt: str | None = None
) -> subprocess.CompletedProcess[str]:
    """One headless run of a CLI, its output kept; stdin the prompt, or nothing."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=prompt,
        stdin=None if prompt is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def claude_code_request(claude: Path, tmp: Path, inputs: Inputs) -> dict[str, Any]:
    """The CLI's first request when Stage B's backend runs the candidate on `inputs`."""
    spec = RunSpec(
        stage="B",
        model=CLAUDE_MODEL,
        agent=AgentSettings(1, 60.0, executables={"claude-code": str(claude)}),
    )
    with FakeMessagesAPI(Text("ok")) as api:
        env = {"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "sk-ant-fidelity",
               "ANTHROPIC_BASE_URL": api.base_url, "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip
        backend = AgentBackend(spec, inputs, tmp / "transcripts", env=env)

        async def one() -> None:
            async with backend:
                await backend.run(TrialKey(inputs.cases[0], "candidate", 0))

        anyio.run(one)
        body: dict[str, Any] = api.message_requests[0].body
    return body


def claude_code_headless(claude: Path, tmp: Path, work: Path) -> dict[str, Any]:
    """The CLI's first request when it runs in `work` with the argv and environment of
    Stage B's adapter, its home, config and scratch folders under `tmp`."""
    home, config, scratch = (tmp / name for name in ("home", "cfg", "tmp"))
    home.mkdir(exist_ok=True)
    scratch.mkdir(exist_ok=True)
    settings = AgentSettings(max_turns=1, executables={"claude-code": str(claude)})
    argv = build_argv(settings, CLAUDE_MODEL, str(claude), "hello")
    with FakeMessagesAPI(Text("ok")) as api:
        env = agent_env({"PATH": os.environ["PATH"]}, home, config, scratch)
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-ant-fidelity",
                   CLAUDE_CODE_MAX_RETRIES="0")  # fmt: skip
        headless(argv, work, env, 120)
        body: dict[str, Any] = api.message_requests[0].body
    return body


def opencode_system_text(opencode: Path, scratch: Path, project: Path) -> str:
    """The system text of the pinned OpenCode's first turn in `project` (its listing at
    the end), its home and state under `scratch`; nothing of the run left alive."""
    with FakeMessagesAPI(Text("ok")) as api:
        env = isolated_env(scratch, write_config(scratch / "opencode.json", api.base_url))
        completed = run_headless(opencode, project, env, PROMPT)
        turns = [request for request in api.message_requests if "skill" in request.tool_names]
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert processes_with_env(f"HOME={env['HOME']}") == []
    system = turns[0].body["system"]
    assert len(system) == 1
    text: str = system[0]["text"]
    return text


CODEX_TIMEOUT = 60.0


@dataclass(frozen=True)
class CodexSpec:
    """A SKILL.md under a root (`where`: "project", "home" or "codex_home") at `folder`."""

    folder: str
    description: str
    name: str | None = None
    where: str = "project"
    files: tuple[tuple[str, str], ...] = ()
    """Other files of its folder (path below it, text): `agents/openai.yaml`."""

    @property
    def text(self) -> str:
        lines = [f"name: {self.name}"] if self.name is not None else []
        lines.append(f"description: {json.dumps(self.description, ensure_ascii=False)}")
        return "---\n" + "\n".join(lines) + "\n---\n\nBody.\n"


@dataclass(frozen=True)
class CodexRun:
    request: ResponsesRequest
    codex_home: str
    roots: dict[str, tuple[Scope, str]]


def codex_request(
    codex: Path,
    tmp: Path,
    specs: Sequence[CodexSpec],
    model: str | None = None,
    args: Sequence[str] = (),
    config: str = "",
) -> CodexRun:
    """Install the skills in a fresh project (a `.git` folder, so it is the project root),
    its `$HOME/.agents/skills` and `$CODEX_HOME/skills`, run `codex exec --json` once
    (isolated HOME and CODEX_HOME, its model provider at the Responses API stand-in), return
    its first request."""
    tmp = tmp.resolve()
    home, project = tmp / "home", tmp / "proj"
    codex_home = home / ".codex"
    roots: dict[str, tuple[Scope, str]] = {
        "project": ("repo", str(project / ".agents" / "skills")),
        "home": ("user", str(home / ".agents" / "skills")),
        "codex_home": ("user", str(codex_home / "skills")),
    }
    for folder in (codex_home, project / ".git", tmp / "tmp"):
        folder.mkdir(parents=True)
    for spec in specs:
        path = Path(roots[spec.where][1]) / spec.folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")
        for relative, text in spec.files:
            (path.parent / relative).parent.mkdir(parents=True, exist_ok=True)
            (path.parent / relative).write_text(text, encoding="utf-8")
    with FakeResponsesAPI() as api:
        (codex_home / "config.toml").write_text(
            "\n".join(
                [
                    *([f'model = "{model}"'] if model else []),
                    'model_provider = "standin"',
                    config,
                    "[model_providers.standin]",
                    'name = "standin"',
                    f'base_url = "{api.base_url}/v1"',
                    'wire_api = "responses"',
                    'env_key = "STANDIN_KEY"',
                    "",
                ]
            ),
            encoding="utf-8",
        )
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "CODEX_HOME": str(codex_home),
            "STANDIN_KEY": "sk-fake",
            "LANG": "C.UTF-8",
            "TMPDIR": str(tmp / "tmp"),
        }
        flags = ["--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps"]
        argv = [str(codex), "exec", "--json", "--skip-git-repo-check", *flags, *args, "-"]
        completed = headless(argv, project, env, CODEX_TIMEOUT, PROMPT)
        requests = [r for r in api.requests if r.is_responses]
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert requests, completed.stderr[-2000:]
    return CodexRun(requests[0], str(codex_home), roots)


def copilot_frontmatter(name: str | None, description: str | None, extra: str = "") -> str:
    lines = [f"name: {json.dumps(name)}"] if name is not None else []
    if description is not None:
        lines.append(f"description: {json.dumps(description, ensure_ascii=False)}")
    return (
        "---\n" + "\n".join(lines) + "\n" + extra + "---\n\n# Title\n\nBody line one\nline two.\n"
    )


def copilot_skills(project: Path, skills: Mapping[str, str]) -> list[ListedSkill]:
    """The SKILL.md files (`<folder under the project>`: text), and each skill as the
    pipeline reads it."""
    found = []
    for folder, text in skills.items():
        path = project / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        read = read_sibling(text, str(path))
        fields = read.frontmatter
        found.append(
            ListedSkill(
                id=path.parent.name,
                folder=path.parent.name,
                source="project",
                description=fields.get("description"),
                name=fields.get("name"),
                body=read.body,
                disable_model_invocation=fields.get("disable-model-invocation") is True,
            )
        )
    return found


def copilot_request(
    copilot: Path, tmp: Path, skills: Mapping[str, str], **env: str
) -> tuple[FakeRequest, list[ListedSkill]]:
    """Write the skills into a fresh project (its `.github/skills`, `.agents/skills` and
    `.claude/skills`), run the pinned CLI headless in its offline provider mode (isolated
    HOME and TMPDIR, the Messages API stand-in as its provider), return its first request."""
    tmp = tmp.resolve()
    home, project, temp = tmp / "home", tmp / "proj", tmp / "tmp"
    for folder in (home, project / ".git", temp):
        folder.mkdir(parents=True)
    found = copilot_skills(project, skills)
    with FakeMessagesAPI(Text("ok")) as api:
        run_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(temp),
            "COPILOT_PKG_CACHE_HOME": str(PACKAGE_CACHE),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_BASE_URL": api.base_url,
            "COPILOT_PROVIDER_API_KEY": "sk-fake-copilot",
            "COPILOT_MODEL": "claude-sonnet-4.6",
            **env,
        }
        argv = [str(copilot), "-p", PROMPT, "--output-format", "json",
                "--allow-all-tools", "--no-ask-user", "--no-auto-update",
                "--disable-client-telemetry"]  # fmt: skip
        completed = headless(argv, project, run_env, 120)
        requests = api.message_requests
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert processes_using(str(tmp)) == []
    return requests[0], found


def copilot_responses_request(
    copilot: Path, tmp: Path, skills: Mapping[str, str]
) -> tuple[ResponsesRequest, list[ListedSkill]]:
    """As `copilot_request`, with `--model openai:<id>`'s wire: the Responses API
    (COPILOT_PROVIDER_WIRE_API=responses)."""
    tmp = tmp.resolve()
    project = tmp / "proj"
    for folder in (tmp / "home", project / ".git", tmp / "tmp"):
        folder.mkdir(parents=True)
    found = copilot_skills(project, skills)
    with FakeResponsesAPI(lambda request: ResponsesText("ok")) as api:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp / "home"),
            "TMPDIR": str(tmp / "tmp"),
            "COPILOT_PKG_CACHE_HOME": str(PACKAGE_CACHE),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_WIRE_API": "responses",
            "COPILOT_PROVIDER_BASE_URL": f"{api.base_url}/v1",
            "COPILOT_PROVIDER_API_KEY": "sk-fake-copilot",
            "COPILOT_MODEL": "gpt-5.5",
        }
        argv = [str(copilot), "-p", PROMPT, "--output-format",
                "json", "--allow-all-tools", "--no-ask-user"]  # fmt: skip
        completed = headless(argv, project, env, 120)
        (first, *_) = [request for request in api.requests if request.is_responses]
    assert completed.returncode == 0, completed.stderr[-2000:]
    return first, found


GEMINI_TIMEOUT = 90.0


@dataclass(frozen=True)
class GeminiSpec:
    """A SKILL.md at `<root>/<folder>/SKILL.md`, its frontmatter as written."""

    folder: str
    frontmatter: str
    root: str = ".agents/skills"

    @property
    def text(self) -> str:
        return f"---\n{self.frontmatter}\n---\n\nBody of {self.folder}.\n"

    def listed(self) -> ListedSkill:
        fields = yaml.safe_load(self.frontmatter)
        return ListedSkill(
            id=self.folder,
            folder=self.folder,
            source="project",
            name=fields.get("name"),
            description=fields.get("description"),
        )


def gemini_request(gemini: Path, tmp: Path, specs: Sequence[GeminiSpec], model: str) -> (
    GeminiRequest
):  # fmt: skip
    """Install the skills in a fresh workspace, run the pinned CLI once (`gemini -p ... -m
    <id> --output-format stream-json`, isolated HOME and GEMINI_CLI_HOME, the workspace
    trusted, GOOGLE_GEMINI_BASE_URL at the stand-in), return its first request."""
    tmp = tmp.resolve()
    home, work = tmp / "home", tmp / "work"
    for folder in (home / ".gemini", work, tmp / "tmp"):
        folder.mkdir(parents=True)
    for spec in specs:
        path = work / spec.root / spec.folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    with FakeGeminiAPI() as api:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "GEMINI_CLI_HOME": str(home),
            "TMPDIR": str(tmp / "tmp"),
            "GOOGLE_GEMINI_BASE_URL": api.base_url,
            "GEMINI_API_KEY": "standin-key",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        argv = [str(gemini), "-p", "Please help me.", "-m", model, "--output-format", "stream-json"]
        completed = headless(argv, work, env, GEMINI_TIMEOUT)
        requests = api.requests
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert requests, completed.stderr[-2000:]
    assert requests[0].model == model
    return requests[0]


RUNNERS: Mapping[str, Callable[..., Any]] = {
    "claude-code": claude_code_request,
    "opencode": opencode_system_text,
    "codex": codex_request,
    "copilot": copilot_request,
    "gemini": gemini_request,
}
"""Each agent's runner: its pinned CLI, a scratch folder, the skill set (Stage B's inputs,
a project folder, the SKILL.md specs), then its own options."""


def capture(agent: str, cli: Path, tmp: Path, skills: Any, **options: Any) -> Any:
    """The request (or the part of it that holds the listing) that `agent`'s pinned CLI
    sends its stand-in first when it runs on `skills`."""
    return RUNNERS[agent](cli, tmp, skills, **options)
