"""The rendered GitHub Copilot CLI listing is the real CLI's, byte for byte.

Each test writes skills into a fresh project (its `.github/skills`, `.agents/skills` and
`.claude/skills`), runs the pinned CLI headless in its offline provider mode (isolated HOME
and TMPDIR, the Messages API stand-in as its provider) and compares the `<skill>` block of
its first request's system text with `copilot.render`'s; and once over the Responses API.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

from activation.inputs.frontmatter import read_sibling
from activation.trials.agents.copilot.listing import render, visibility
from activation.trials.listing.model import ListedSkill
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Text
from tests.support.npm_cli import processes_using
from tests.support.responses_api import FakeResponsesAPI
from tests.support.responses_api import Text as ResponsesText

OPEN, CLOSE = "<skill>\n<available_skills>", "</available_skills>\n</skill>"


def frontmatter(name: str | None, description: str | None, extra: str = "") -> str:
    lines = [f"name: {json.dumps(name)}"] if name is not None else []
    if description is not None:
        lines.append(f"description: {json.dumps(description, ensure_ascii=False)}")
    return (
        "---\n" + "\n".join(lines) + "\n" + extra + "---\n\n# Title\n\nBody line one\nline two.\n"
    )


def write_skills(project: Path, skills: dict[str, str]) -> list[ListedSkill]:
    """The SKILL.md files, and each skill as the pipeline reads it."""
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


def first_request(copilot: Path, tmp: Path, skills: dict[str, str], **env: str) -> tuple[
    FakeRequest, list[ListedSkill]
]:  # fmt: skip
    tmp = tmp.resolve()
    home, project, temp = tmp / "home", tmp / "proj", tmp / "tmp"
    for folder in (home, project / ".git", temp):
        folder.mkdir(parents=True)
    found = write_skills(project, skills)
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
        argv = [str(copilot), "-p", "Please help me with the task.", "--output-format", "json",
                "--allow-all-tools", "--no-ask-user", "--no-auto-update",
                "--disable-client-telemetry"]  # fmt: skip
        completed = subprocess.run(argv, cwd=project, env=run_env, capture_output=True,
                                   text=True, timeout=120, stdin=subprocess.DEVNULL,
                                   check=False)  # fmt: skip
        requests = api.message_requests
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert processes_using(str(tmp)) == []
    return requests[0], found


def sent_listing(request: FakeRequest) -> str:
    """The `<skill>` tool-guidance block of the request's system text."""
    (text,) = (block["text"] for block in request.body["system"] if OPEN in block["text"])
    start = text.index(OPEN)
    return text[start : text.index(CLOSE, start) + len(CLOSE)]


SKILLS = {
    ".github/skills/zebra": frontmatter("Zebra", "Draw zebras."),
    ".github/skills/alpha": frontmatter("alpha", "A <b> & \"q\" 'a'."),
    ".agents/skills/under": frontmatter("_under", "Fails: a name must start with a letter."),
    ".agents/skills/dotted": frontmatter("ok.dot", "From .agents/skills."),
    ".claude/skills/dash": frontmatter("a-b", "Dash."),
    ".github/skills/upper": frontmatter("ALPHA2", "Upper case sorts first."),
    ".github/skills/unnamed": frontmatter(None, "Listed by its folder."),
    ".github/skills/bodied": frontmatter("bodied", None),
    ".github/skills/spaced": frontmatter("spaced", "  Two  spaces\tand a tab  "),
    ".github/skills/e1024": frontmatter("e1024", "é" * 1024),
    ".github/skills/e1025": frontmatter("e1025", "é" * 1025),
    ".github/skills/hidden": frontmatter("hidden", "Hidden.", "disable-model-invocation: true\n"),
}


def test_the_listing_is_the_clis(copilot_cli: Path, tmp_path: Path) -> None:
    request, found = first_request(copilot_cli, tmp_path, SKILLS)
    shown = render(found)
    assert sent_listing(request) == shown.text
    assert [entry.name for entry in shown.entries] == [
        "ALPHA2", "Zebra", "a-b", "alpha", "bodied", "e1024", "ok.dot", "spaced", "unnamed",
        "customize-cloud-agent", "github-pr-media",
    ]  # fmt: skip
    alpha = shown.entry("alpha")
    assert alpha is not None
    assert alpha.line == (
        "<skill>\n  <name>alpha</name>\n"
        "  <description>A &lt;b&gt; &amp; &quot;q&quot; &apos;a&apos;.</description>\n"
        "  <location>project</location>\n</skill>"
    )
    bodied = shown.entry("bodied")
    assert (
        bodied is not None and "<description>Body line one line two.</description>" in bodied.line
    )
    assert shown.budget == 15000 and shown.width == sum(len(e.line) + 1 for e in shown.entries)


def test_over_the_budget_the_rest_is_named_on_one_line(copilot_cli: Path, tmp_path: Path) -> None:
    """Fifteen entries of 977 to 991 characters (and their newlines) fit 15,000; the
    sixteenth does not, so it, the small one after it and the built-ins are only named."""
    many = {
        f".github/skills/s{i:02d}": frontmatter(f"s{i:02d}", "x" * (880 + i)) for i in range(16)
    }
    many[".github/skills/tiny"] = frontmatter("tiny", "Small enough to fit.")
    request, found = first_request(copilot_cli, tmp_path, many)
    shown = render(found)
    assert sent_listing(request) == shown.text
    assert shown.ids == tuple(f"s{i:02d}" for i in range(15))
    assert shown.width == sum(977 + i for i in range(15))
    assert shown.closing == (
        "\nAdditional skills available (invoke by name): s15, tiny, customize-cloud-agent, "
        "github-pr-media\n</available_skills>\n</skill>"
    )


def test_skill_char_budget_replaces_the_budget(copilot_cli: Path, tmp_path: Path) -> None:
    """995 + 1,005 characters and their two newlines are 2,002: over a budget of 2,000."""
    two = {".github/skills/b1": frontmatter("b1", "x" * 900),
           ".github/skills/b2": frontmatter("b2", "y" * 910)}  # fmt: skip
    request, found = first_request(copilot_cli, tmp_path, two, SKILL_CHAR_BUDGET="2000")
    shown = render(found, budget=2000)
    assert sent_listing(request) == shown.text
    assert shown.ids == ("b1",)
    assert render(found, budget=2002).ids == ("b1", "b2")


def test_the_listing_is_the_same_over_the_responses_api(copilot_cli: Path, tmp_path: Path) -> None:
    """`--model openai:<id>`: the Responses API wire (COPILOT_PROVIDER_WIRE_API=responses);
    the listing is in the request's `instructions`, the same bytes."""
    tmp = tmp_path.resolve()
    project = tmp / "proj"
    for folder in (tmp / "home", project / ".git", tmp / "tmp"):
        folder.mkdir(parents=True)
    found = write_skills(project, SKILLS)
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
        argv = [str(copilot_cli), "-p", "Please help me with the task.", "--output-format",
                "json", "--allow-all-tools", "--no-ask-user"]  # fmt: skip
        completed = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                                   timeout=120, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        (first, *_) = [request for request in api.requests if request.is_responses]
    assert completed.returncode == 0, completed.stderr[-2000:]
    instructions = first.body["instructions"]
    start = instructions.index(OPEN)
    sent = instructions[start : instructions.index(CLOSE, start) + len(CLOSE)]
    assert sent == render(found).text
    assert first.body["model"] == "gpt-5.5"


def test_a_project_skill_replaces_the_built_in_of_its_name(
    copilot_cli: Path, tmp_path: Path
) -> None:
    request, found = first_request(copilot_cli, tmp_path, {
        ".agents/skills/github-pr-media": frontmatter("github-pr-media", "My own PR media skill."),
    })  # fmt: skip
    shown = render(found)
    assert sent_listing(request) == shown.text
    assert [(entry.name, entry.source) for entry in shown.entries] == [
        ("github-pr-media", "project"), ("customize-cloud-agent", "builtin"),
    ]  # fmt: skip


def test_the_users_skills_follow_the_projects_and_yield_a_name_to_them(
    copilot_cli: Path, tmp_path: Path
) -> None:
    """User skills (`~/.copilot/skills`, `~/.agents/skills`; not `~/.claude/skills`) are
    listed after the project's, labelled `user`; a user's copy of a project skill is not
    listed (QA3 E29)."""
    user = {
        "../home/.copilot/skills/tdd": frontmatter("tdd", "USER copy of tdd."),
        "../home/.copilot/skills/mine": frontmatter("mine", "Only mine."),
        "../home/.agents/skills/shared": frontmatter("shared", "From ~/.agents/skills."),
        "../home/.claude/skills/claude": frontmatter("claude", "Never read."),
    }
    ours = {".github/skills/tdd": frontmatter("tdd", "PROJECT copy of tdd.")}
    request, found = first_request(copilot_cli, tmp_path, {**ours, **user})
    sent = sent_listing(request)
    project, *mine = found[:4]  # ~/.claude/skills' is no user skill of Copilot CLI
    skills = [project, *(replace(skill, source="user") for skill in mine)]
    listing = render(skills)
    assert sent == listing.text
    assert [(entry.name, entry.source) for entry in listing.entries] == [
        ("tdd", "project"), ("mine", "user"), ("shared", "user"),
        ("customize-cloud-agent", "builtin"), ("github-pr-media", "builtin"),
    ]  # fmt: skip
    assert "USER copy" not in sent and "Never read." not in sent
    assert "<location>user</location>" in sent
    seen = visibility(skills, listing)
    assert [item.state for item in seen] == ["full", "hidden", "full", "full"]
    assert seen[1].rule.startswith("a project skill of the same name ('tdd') replaces it: ")
