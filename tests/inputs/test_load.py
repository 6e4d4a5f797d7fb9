"""Reading inputs from disk: the distractors folder, one skill per file."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._errors import InputError
from activation._models import Skill
from activation.inputs.load import folder_skill, load_distractors


def write(folder: Path, file_name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file_name).write_text(text, encoding="utf-8")


def test_load_distractors_sorts_by_file_name_and_falls_back_to_the_stem(tmp_path: Path) -> None:
    write(tmp_path, "b.md", "---\nname: zeta\ndescription: Use when Z.\n---\n")
    write(tmp_path, "a.md", "---\ndescription: >\n  Use when A,\n  folded.\n---\nbody\n")
    write(tmp_path, "notes.txt", "not a skill")
    assert load_distractors(tmp_path) == (
        Skill("a", "Use when A, folded.", path=str(tmp_path / "a.md")),
        Skill("zeta", "Use when Z.", path=str(tmp_path / "b.md")),
    )


def test_load_distractors_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^distractors folder not found: .*nowhere$"):
        load_distractors(tmp_path / "nowhere")


def test_load_distractors_empty_folder(tmp_path: Path) -> None:
    write(tmp_path, "readme.txt", "nothing here")
    with pytest.raises(InputError, match=r"no distractor skills \(expected one \*\.md file"):
        load_distractors(tmp_path)


def test_load_distractors_duplicate_names(tmp_path: Path) -> None:
    write(tmp_path, "one.md", "---\nname: charts\ndescription: Use when A.\n---\n")
    write(tmp_path, "two.md", "---\nname: charts\ndescription: Use when B.\n---\n")
    with pytest.raises(
        InputError, match=r"^duplicate distractor name 'charts' in one.md and two.md$"
    ):
        load_distractors(tmp_path)


def test_load_distractors_name_clash_with_a_stem(tmp_path: Path) -> None:
    write(tmp_path, "charts.md", "---\ndescription: Use when A.\n---\n")
    write(tmp_path, "other.md", "---\nname: charts\ndescription: Use when B.\n---\n")
    with pytest.raises(InputError, match="duplicate distractor name 'charts'"):
        load_distractors(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\ndescription: y\n", "no YAML frontmatter"),
        ("---\nname: x\ndescription: y\n", "not closed"),
        ('---\nname: "x\n---\n', "not valid YAML"),
        ("---\nname: x\n---\nbody\n", "has no 'description'"),
        ("---\nname: '  '\ndescription: y\n---\n", "the frontmatter 'name' is empty"),
    ],
)
def test_load_distractors_bad_frontmatter(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path, "bad.md", text)
    with pytest.raises(InputError, match=message) as raised:
        load_distractors(tmp_path)
    assert "\n" not in str(raised.value)
    assert "bad.md" in str(raised.value)


def test_load_distractors_unreadable_text(tmp_path: Path) -> None:
    tmp_path.joinpath("latin.md").write_bytes(b"---\nname: x\ndescription: caf\xe9\n---\n")
    with pytest.raises(InputError, match=r"latin.md: not UTF-8 text \(byte 28\)"):
        load_distractors(tmp_path)


def test_a_relative_cases_path_inside_a_skill_folder_names_that_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--cases evals/trigger-eval.json` given from the skill's own folder keeps the skill
    folder it lies in (as the same file given from the repo root does)."""
    skill = tmp_path / "skills" / "commit"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: commit\ndescription: Use when committing.\n---\n")
    monkeypatch.chdir(skill)
    assert folder_skill(Path("evals/trigger-eval.json")) == "commit"
    assert folder_skill(Path("trigger-eval.json")) == "commit"
