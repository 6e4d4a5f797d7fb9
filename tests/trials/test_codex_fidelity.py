"""The rendered Codex listing is the real CLI's, byte for byte.

Each test writes skills into a fresh project (a `.git` folder, so it is the project root),
its `$HOME/.agents/skills` and `$CODEX_HOME/skills`, runs the pinned Codex CLI headless
(`codex exec --json`, isolated HOME and CODEX_HOME, its model provider pointing at the local
Responses API stand-in) and compares the listing of its first request with `codex.render`'s.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from activation.trials.agents.codex.listing import Scope, render, visibility
from activation.trials.listing.model import ListedSkill, Listing
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest

RUN_TIMEOUT = 60.0
LONG = ("Use when the long workflow applies. " * 40)[:1100]
"""Over the 1,024-character cut."""


@dataclass(frozen=True)
class Spec:
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
class Run:
    request: ResponsesRequest
    codex_home: str
    roots: dict[str, tuple[Scope, str]]


def first_request(
    codex: Path,
    tmp: Path,
    specs: Sequence[Spec],
    model: str | None,
    args: Sequence[str],
    config: str,
) -> Run:
    """Install the skills, run `codex exec --json` once, return its first request."""
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
        completed = subprocess.run(
            [str(codex), "exec", "--json", "--skip-git-repo-check", *flags, *args, "-"],
            input="Please help me with the task.",
            capture_output=True,
            text=True,
            cwd=project,
            env=env,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        requests = [r for r in api.requests if r.is_responses]
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert requests, completed.stderr[-2000:]
    return Run(requests[0], str(codex_home), roots)


def rendered(
    run: Run,
    specs: Sequence[Spec],
    model: str | None,
    *,
    bundled: bool = True,
    context_window: int | None = None,
) -> Listing:
    """What `render` makes of the skills the run installed."""
    skills = [
        ListedSkill(
            id=f"{spec.where}/{spec.folder}",
            folder=spec.folder,
            source="project" if spec.where == "project" else "user",
            description=spec.description,
            name=spec.name,
        )
        for spec in specs
    ]
    where = {f"{spec.where}/{spec.folder}": spec.where for spec in specs}

    def location(skill: ListedSkill) -> tuple[Scope, str, str]:
        scope, root = run.roots[where[skill.id]]
        return scope, root, f"{skill.folder}/SKILL.md"

    return render(
        skills,
        model,
        location,
        codex_home=run.codex_home,
        context_window=context_window,
        bundled=bundled,
    )


SKILLS = (
    Spec("target-skill", "Use when the user asks for the target workflow."),
    Spec("long-one", LONG),
    Spec("spaced", "  Several   spaces,\ta tab\n\nand a blank line.  "),
    Spec("dir-x", "Its name is not its folder.", name="Named-X"),
    Spec("_under", "Sorts after upper case, before lower case."),
    Spec("group/nested", "Two folders deep.", name="nested"),
    Spec("home-skill", "From $HOME/.agents/skills.", where="home"),
    Spec("codex-home-skill", "From $CODEX_HOME/skills.", where="codex_home"),
)


def test_the_default_model_with_its_bundled_skills(codex_cli: Path, tmp_path: Path) -> None:
    run = first_request(codex_cli, tmp_path, SKILLS, None, [], "")
    assert run.request.body["model"] == "gpt-6.2-sol"
    expected = rendered(run, SKILLS, None)
    assert run.request.listing == expected.text
    entry = expected.entry("project/long-one")
    assert entry is not None and entry.state == "cut"
    assert entry.line == f"- long-one: {LONG[:1021]}... (file: r3/long-one/SKILL.md)"
    assert expected.ids[:4] == ("imagegen", "openai-docs", "skill-creator", "skill-installer")


def test_gpt_5_5_gets_the_how_to_use_block(codex_cli: Path, tmp_path: Path) -> None:
    args = ["-c", "skills.bundled.enabled=false"]
    run = first_request(codex_cli, tmp_path, SKILLS, "gpt-5.5", args, "")
    expected = rendered(run, SKILLS, "gpt-5.5", bundled=False)
    assert run.request.listing == expected.text
    assert expected.closing.startswith("\n### How to use skills\n")


MANY = tuple(
    Spec(f"skill-{i:02d}", f"Skill {i:02d} " + "lorem ipsum dolor " * 16) for i in range(12)
)


@pytest.mark.parametrize(
    ("window", "kept", "state"),
    [(10000, 12, "cut"), (3000, 5, "collapsed")],
    ids=["spread-round-robin", "bare-lines-greedy"],
)
def test_a_listing_over_its_budget(
    codex_cli: Path, tmp_path: Path, window: int, kept: int, state: str
) -> None:
    """At 200 tokens the bare lines (11 tokens each) fit and the rest is spread over the
    descriptions; at 60 they do not, and only the first five bare lines are kept."""
    args = ["-c", "skills.bundled.enabled=false"]
    run = first_request(codex_cli, tmp_path, MANY, None, args, f"model_context_window = {window}")
    expected = rendered(run, MANY, None, bundled=False, context_window=window)
    assert run.request.listing == expected.text
    assert expected.budget == window // 50
    assert expected.ids == tuple(f"project/skill-{i:02d}" for i in range(kept))
    assert {entry.state for entry in expected.entries} == {state}


def test_a_users_copy_of_a_project_skill_is_listed_beside_it(
    codex_cli: Path, tmp_path: Path
) -> None:
    """The same skill in the project's and the user's `.agents/skills` (QA3 E29): the CLI
    lists both, each with its own file, as the renderer does, and the verdicts call both
    listed."""
    specs = (Spec("tdd", "PROJECT copy of tdd."), Spec("tdd", "USER copy of tdd.", where="home"))
    run = first_request(codex_cli, tmp_path, specs, None, [], "")
    skills = [
        ListedSkill("tdd", "tdd", "project" if spec.where == "project" else "user",
                    spec.description)
        for spec in specs
    ]  # fmt: skip

    def location(skill: ListedSkill) -> tuple[Scope, str, str]:
        scope, root = run.roots["project" if skill.source == "project" else "home"]
        return scope, root, "tdd/SKILL.md"

    expected = render(skills, None, location, codex_home=run.codex_home)
    assert run.request.listing == expected.text
    assert "- tdd: PROJECT copy of tdd. (file: r" in expected.text
    assert "- tdd: USER copy of tdd. (file: r" in expected.text
    assert [seen.state for seen in visibility(skills, expected)] == ["full", "full"]
