"""Reading a behavior suite from disk: every shape a path can take, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from activation._errors import InputError
from activation.inputs.installed import without_graders
from activation.inputs.load import load_behavior_inputs, load_behavior_suite
from tests.support.skill_repo import commit_all

PROMPT = "---\nid: {id}\n---\n## Task\nDo {id}.\n"
GRADERS = '[{"type": "contains", "value": "x", "level": "L1"}]'


def eval_folder(folder: Path, eval_id: str, scaffold: dict[str, bytes] | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "PROMPT.md").write_text(PROMPT.format(id=eval_id))
    (folder / "graders.json").write_text(GRADERS)
    for name, content in (scaffold or {}).items():
        path = folder / "scaffold" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return folder


def case_file(path: Path, slug: str, evals: int = 1) -> Path:
    data = {"slug": slug, "evals": [{"prompt": f"p{n}"} for n in range(evals)], "graders": None}
    path.write_text(json.dumps(data))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_behavior_suite(path)
    return str(caught.value)


def test_a_folder_of_case_files_and_eval_folders(tmp_path: Path) -> None:
    case_file(tmp_path / "b.json", "beta", evals=2)
    case_file(tmp_path / "a.json", "alpha")
    eval_folder(tmp_path / "quickstarts" / "vue", "vue_quickstart", {"src/App.vue": b"<x/>"})
    eval_folder(tmp_path / "top", "top_level")
    suite = load_behavior_suite(tmp_path)
    assert suite.source == str(tmp_path)
    assert [(c.id, c.source, c.category) for c in suite.cases] == [
        ("alpha", str(tmp_path / "a.json"), None),
        ("beta", str(tmp_path / "b.json"), None),
        ("beta-2", str(tmp_path / "b.json"), None),
        ("vue_quickstart", str(tmp_path / "quickstarts" / "vue"), "quickstarts"),
        ("top_level", str(tmp_path / "top"), None),
    ]
    assert suite.cases[3].scaffold == (("src/App.vue", b"<x/>"),)
    assert [c.id for c in suite.graded] == ["vue_quickstart", "top_level"]


def test_a_prompt_md_inside_a_scaffold_or_node_modules_is_not_an_eval(tmp_path: Path) -> None:
    eval_folder(tmp_path / "one", "one", {"PROMPT.md": PROMPT.format(id="inner").encode()})
    eval_folder(tmp_path / "node_modules" / "pkg", "vendored")
    eval_folder(tmp_path / ".hidden", "hidden")
    suite = load_behavior_suite(tmp_path)
    assert [c.id for c in suite.cases] == ["one"]
    assert suite.cases[0].scaffold == (("PROMPT.md", PROMPT.format(id="inner").encode()),)


def test_a_single_case_file_eval_folder_or_prompt_md(tmp_path: Path) -> None:
    path = case_file(tmp_path / "flask.json", "flask")
    assert [c.id for c in load_behavior_suite(path).cases] == ["flask"]
    folder = eval_folder(tmp_path / "e", "solo")
    assert [c.id for c in load_behavior_suite(folder).cases] == ["solo"]
    assert [c.id for c in load_behavior_suite(folder / "PROMPT.md").cases] == ["solo"]


def test_errors(tmp_path: Path) -> None:
    assert error_of(tmp_path / "nope") == f"behavior cases not found: {tmp_path / 'nope'}"
    assert error_of(tmp_path) == (
        f"{tmp_path}: no behavior cases (expected *.json case files or folders with a PROMPT.md)"
    )
    (tmp_path / "bad.json").write_text("{")
    assert error_of(tmp_path / "bad.json").startswith(f"{tmp_path / 'bad.json'}: not valid JSON")


def test_duplicate_ids_name_both_sources(tmp_path: Path) -> None:
    case_file(tmp_path / "a.json", "same_id")
    eval_folder(tmp_path / "x", "same_id")
    assert error_of(tmp_path) == (
        f"duplicate behavior case id 'same_id' in {tmp_path / 'a.json'} and {tmp_path / 'x'}"
    )


def test_a_graders_ts_alone_is_refused(tmp_path: Path) -> None:
    folder = eval_folder(tmp_path / "ts", "ts_only")
    (folder / "graders.json").unlink()
    (folder / "graders.ts").write_text("export function defineGraders() { return []; }")
    assert error_of(tmp_path) == (
        f"{folder}: case 'ts_only': a graders.ts cannot be run here: write the same graders "
        "in graders.yaml (or graders.json)"
    )


def debugging_plugin(root: Path) -> Path:
    """A plugin at the repo's root (obra/superpowers' layout) that git-ignores `evals/` and
    `*.log`, its skill's own skill-creator suite in the ignored `skills/debugging/evals/`."""
    skill = root / "skills" / "debugging"
    (skill / "evals").mkdir(parents=True)
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "powers"}\n')
    (root / ".gitignore").write_text("evals/\n*.log\n")
    (skill / "SKILL.md").write_text(
        "---\nname: debugging\ndescription: Use when a test fails.\n---\nFind the cause.\n"
    )
    (skill / "reference.md").write_text("Read the trace.\n")
    commit_all(root, "skill")
    evals = {
        "skill_name": "debugging",
        "evals": [{"id": 1, "prompt": "Fix the bug.", "expectations": ["The cause is named"]}],
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    (skill / "debug.log").write_text("ignored\n")
    (skill / "checklist.md").write_text("untracked, not ignored\n")
    (skill / "SKILL.md").write_text(
        "---\nname: debugging\ndescription: Use when a test fails.\n---\nFind the root cause.\n"
    )
    return skill / "evals"


def test_both_arms_hold_the_same_kind_of_files_and_never_the_graders(tmp_path: Path) -> None:
    suite = debugging_plugin(tmp_path)
    inputs = load_behavior_inputs(
        tmp_path,
        load_behavior_suite(suite),
        skill_path="skills/debugging/SKILL.md",
        baseline="git:HEAD",
    )
    assert sorted(dict(inputs.baseline.tree)) == [
        ".claude-plugin/plugin.json",
        ".gitignore",
        "skills/debugging/SKILL.md",
        "skills/debugging/reference.md",
    ]
    assert sorted(dict(inputs.candidate.tree)) == [
        ".claude-plugin/plugin.json",
        ".gitignore",
        "skills/debugging/SKILL.md",
        "skills/debugging/checklist.md",
        "skills/debugging/reference.md",
    ]


def test_the_suite_and_each_skills_evals_are_left_out_of_an_installed_set() -> None:
    files = {
        "SKILL.md": b"root skill",
        "evals/evals.json": b"its answers",
        "skills/a/SKILL.md": b"a",
        "skills/a/evals/case.json": b"a's answers",
        "skills/a/evalsx.md": b"kept",
        "suite/PROMPT.md": b"the suite being run",
        "tests/prompts/one.txt": b"kept",
    }
    assert without_graders(files, "suite") == (
        ("SKILL.md", b"root skill"),
        ("skills/a/SKILL.md", b"a"),
        ("skills/a/evalsx.md", b"kept"),
        ("tests/prompts/one.txt", b"kept"),
    )
    assert [path for path, _ in without_graders(files, ".")] == [
        "SKILL.md",
        "skills/a/SKILL.md",
        "skills/a/evalsx.md",
        "suite/PROMPT.md",
        "tests/prompts/one.txt",
    ]
