"""What a change breaks besides a SKILL.md fails `activation changed`, dry run included: a
file the body refers to that the change removes (lint's reference check, over both
versions), and a cases file anchored to a skill the change renames or removes. A renamed
skill is one change, not a removal and an addition. In repos written here in the shapes met
in the field: a root skill with references/ (a Diataxis docs skill), an `.agents/skills/`
set with a root routing suite (a dotfiles repo), a plugin skill with skill-creator's evals.
"""

from __future__ import annotations

import re
from pathlib import Path

import git
import orjson
import pytest

from activation.inputs.changes import SkillPlace, skill_changes
from tests.commands.test_repo_cases import changed, commit, run, skill

DOCS = (
    "---\nname: docs-audit\ndescription: Use when auditing documentation.\n---\n"
    "# Docs audit\n"
    "- `references/map.md`: the map of forms.\n"
    "- See [the guide](references/guide.md) first.\n"
)
REMOVED = (
    "SKILL.md:6 names references/map.md, which this change removes: the agent will not find it"
)
STILL = (
    "broken at git:main and still broken (not caused by this change): SKILL.md:7 refers to "
    "references/guide.md, which the skill lacks"
)


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A root skill whose body names a file of its references/ (there) and links another
    (missing since its first commit)."""
    root = commit(tmp_path / "docs", {"SKILL.md": DOCS, "references/map.md": "# Map\n"})
    monkeypatch.chdir(root)
    return root


def planned(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> list[str]:
    argv, _report = changed(tmp_path, "--dry-run", *flags)
    code, out, _err = run(argv, capsys)
    assert code == 0
    return out.splitlines()


def test_a_change_that_removes_a_file_the_body_names_fails_dry_run_included(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported false OK: `git rm references/template-map.md` passed `changed --dry-run
    --allow-untested` ("would run: nothing", exit 0) while lint said the body names it."""
    git.Repo(docs).git.rm("-q", "references/map.md")
    assert planned(tmp_path, capsys, "--allow-untested") == [
        "activation changed: git:main -> the working tree",
        "docs-audit (SKILL.md): modified, body or references",
        "  not tested: body",
        f"  BROKEN by this change: {REMOVED}",
        f"  {STILL}",
        "would run: nothing",
        f"the run would fail: the change breaks docs-audit: {REMOVED}",
    ]
    argv, report = changed(tmp_path, "--allow-untested")
    code, out, _err = run(argv, capsys)
    assert code == 1
    assert out.splitlines()[-1] == f"FAILED: the change breaks docs-audit: {REMOVED}."
    (skill_data,) = orjson.loads(report["path"].read_bytes())["skills"]
    assert (skill_data["breaks"], skill_data["known"]) == (
        [REMOVED],
        ["SKILL.md:7 refers to references/guide.md, which the skill lacks"],
    )
    junit, markdown, page = (tmp_path / name for name in ("c.xml", "c.md", "c.html"))
    files = ["--junit", str(junit), "--markdown", str(markdown), "--html", str(page)]
    assert main_code(tmp_path, capsys, "--allow-untested", *files) == 1
    assert f'type="BROKEN" message="{REMOVED}"' in junit.read_text()
    assert f"BROKEN by this change: {REMOVED}<br>{STILL}" in markdown.read_text()
    assert f"BROKEN by this change: {REMOVED}" in page.read_text()


def main_code(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> int:
    argv, _report = changed(tmp_path, *flags)
    return run(argv, capsys)[0]


def test_a_reference_broken_before_the_change_is_named_and_does_not_fail_it(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs / "SKILL.md").write_text(DOCS + "Check every page.\n")
    assert planned(tmp_path, capsys, "--allow-untested") == [
        "activation changed: git:main -> the working tree",
        "docs-audit (SKILL.md): modified, body or references",
        "  not tested: body",
        f"  {STILL}",
        "would run: nothing",
    ]
    assert main_code(tmp_path, capsys, "--allow-untested") == 0


def test_a_link_the_change_adds_to_no_file_breaks_it(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs / "SKILL.md").write_text(DOCS + "Read [the forms](references/forms.md).\n")
    added = (
        "SKILL.md:8 refers to references/forms.md, which the skill lacks: the agent will not "
        "find it"
    )
    assert planned(tmp_path, capsys, "--allow-untested")[3:] == [
        f"  BROKEN by this change: {added}",
        f"  {STILL}",
        "would run: nothing",
        f"the run would fail: the change breaks docs-audit: {added}",
    ]


ROUTING = {
    "skill": "vite",
    "cases": [
        {"id": "v1", "prompt": "Speed up my Vite build", "expect": "vite", "why": "a build"},
        {"id": "t1", "prompt": "Write the failing test first", "expect": "tdd", "why": "tdd"},
    ],
}
TDD_CASES = {
    "skill": "tdd",
    "cases": [
        {"id": "red", "prompt": "Write a failing test for the parser", "expect": "tdd",
         "why": "test first"},
        {"id": "tea", "prompt": "Write a haiku about tea", "expect": None, "why": "unrelated"},
    ],
}  # fmt: skip
STALE = (
    "evals/routing.cases.json is about vite, which this change renames to vitejs: update its "
    "'skill'"
)


VITE = ".agents/skills/vite"


def agents_set(
    root: Path, monkeypatch: pytest.MonkeyPatch, sibling_cases: bool, *change: str
) -> None:
    """Skills in `.agents/skills/` and a root routing suite anchored to one of them (and the
    sibling's own cases, when asked), committed, then `git <change>` in the working tree."""
    files = {
        f"{VITE}/SKILL.md": skill("vite", "Use when configuring Vite builds."),
        ".agents/skills/tdd/SKILL.md": skill("tdd", "Use when writing tests first."),
        "evals/routing.cases.json": orjson.dumps(ROUTING).decode(),
    }
    if sibling_cases:
        files[".agents/skills/tdd/cases.json"] = orjson.dumps(TDD_CASES).decode()
    commit(root, files)
    monkeypatch.chdir(root)
    git.Repo(root).git.execute(["git", *change])


def test_a_renamed_skill_is_one_change_and_the_suite_anchored_to_its_old_name_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported rename: "vite: removed, removed" beside "vitejs: added", "would run:
    nothing", exit 0, and no word of the suite that names vite."""
    agents_set(tmp_path / "dot", monkeypatch, False, "mv", VITE, f"{VITE}js")
    assert planned(tmp_path, capsys) == [
        "activation changed: git:main -> the working tree",
        "vitejs (.agents/skills/vitejs/SKILL.md): renamed from vite",
        "  the same body in a new folder: no sibling has cases of its own to run",
        f"  BROKEN by this change: {STALE}",
        "would run: nothing",
        f"the run would fail: the change breaks vitejs: {STALE}",
    ]
    argv, report = changed(tmp_path)
    code, out, _err = run(argv, capsys)
    assert (code, out.splitlines()[-1]) == (1, f"FAILED: the change breaks vitejs: {STALE}.")
    (data,) = orjson.loads(report["path"].read_bytes())["skills"]
    assert (data["status"], data["renamed_from"], data["kinds"]) == ("renamed", "vite", [])


def test_a_renamed_skills_siblings_cases_run_as_promised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agents_set(tmp_path / "dot", monkeypatch, True, "mv", VITE, f"{VITE}js")
    assert planned(tmp_path, capsys)[1:5] == [
        "vitejs (.agents/skills/vitejs/SKILL.md): renamed from vite",
        "  the same body in a new folder: its siblings' cases run",
        f"  BROKEN by this change: {STALE}",
        "would run: activation gate of tdd on .agents/skills/tdd/cases.json (because of vitejs)",
    ]
    argv, report = changed(tmp_path)
    assert run(argv, capsys)[0] == 1
    gates = orjson.loads(report["path"].read_bytes())["gates"]
    assert [(gate["skill"], len(gate["run"]["cases"])) for gate in gates] == [("tdd", 2)]


def test_a_removed_skills_suite_is_stale_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agents_set(tmp_path / "dot", monkeypatch, False, "rm", "-rq", VITE)
    stale = (
        "evals/routing.cases.json is about vite, which this change removes: anchor it to "
        "another skill or remove it"
    )
    assert planned(tmp_path, capsys)[1:] == [
        "vite (.agents/skills/vite/SKILL.md): removed",
        "  removed: no sibling has cases of its own to run",
        f"  BROKEN by this change: {stale}",
        "would run: nothing",
        f"the run would fail: the change breaks vite: {stale}",
    ]


def test_a_rename_is_told_by_the_same_body_in_the_same_set() -> None:
    """An edit made with the move is told as if made in place; two skills that share a body
    are no rename (which one moved is not known)."""
    base = {
        ".agents/skills/vite/SKILL.md": vite_skill("vite"),
        ".agents/skills/vite/references/ssr.md": b"# SSR\n",
    }
    head = {
        ".agents/skills/vitejs/SKILL.md": vite_skill("vitejs"),
        ".agents/skills/vitejs/references/ssr.md": b"# SSR, again\n",
    }
    (change,) = skill_changes(base, head)
    assert (change.id, change.status, change.kinds, change.files) == (
        "vitejs",
        "renamed",
        ("description", "body"),
        (".agents/skills/vitejs/SKILL.md", ".agents/skills/vitejs/references/ssr.md"),
    )
    assert change.renamed_from == SkillPlace(
        ".agents/skills/vite/SKILL.md", ".agents/skills", "vite"
    )
    twin = {".agents/skills/vite-copy/SKILL.md": vite_skill("vite-copy")}
    found = skill_changes({**base, **twin}, head)
    assert [(change.id, change.status) for change in found] == [
        ("vite-copy", "removed"),
        ("vite", "removed"),
        ("vitejs", "added"),
    ]


def vite_skill(name: str) -> bytes:
    """A SKILL.md named `name` whose body is the same whatever its name."""
    body = "# Vite\nRead references/ssr.md for SSR.\n"
    return f"---\nname: {name}\ndescription: Use for Vite.\n---\n{body}".encode()


EVALS = {
    "skill_name": "rails",
    "evals": [{"id": 1, "prompt": "Add a model", "expected_output": "A model",
               "files": [], "assertions": ["app/models/post.rb exists"]}],
}  # fmt: skip


def test_the_behavior_gates_missing_price_asks_for_the_flags_that_reach_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported hint asked for `--model`, which sets the activation gates only; and
    `--price-in`/`--price-out` never reached the behavior gate."""
    root = commit(
        tmp_path / "kit",
        {
            ".claude-plugin/plugin.json": '{"name": "kit"}',
            "skills/rails/SKILL.md": skill("rails", "Use when writing Rails code."),
            "skills/rails/evals/evals.json": orjson.dumps(EVALS).decode(),
        },
    )
    monkeypatch.chdir(root)
    (root / "skills/rails/SKILL.md").write_text(
        skill("rails", "Use when writing Rails code.") + "Run the tests.\n"
    )
    argv = ["changed", "--base", "git:main", "--dry-run", "--model", "claude-haiku-4-5"]
    code, out, _err = run(argv, capsys)
    assert code == 0
    assert out.splitlines()[-1] == (
        "cost of the behavior gate of kit:rails: unknown (no price for Claude Code's default "
        "model: the behavior gate runs it (--model sets the activation gates only): pass "
        "--price-in and --price-out (Claude Code reports each run's cost))"
    )
    code, out, _err = run([*argv, "--price-in", "3", "--price-out", "15"], capsys)
    assert code == 0
    assert re.fullmatch(
        r"cost of the behavior gate of kit:rails: first round \$\d+\.\d{2}, worst case "
        r"\$\d+\.\d{2}",
        out.splitlines()[-1],
    )
