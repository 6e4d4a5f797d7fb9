"""Paired plugin copies: only the description differs, it reads back exactly, and the temp
folders go away on every way out."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import yaml

from activation._errors import InputError
from activation._models import Target, VariantName
from activation.inputs.frontmatter import split_document
from activation.trials.agent.plugin_copy import TEMP_PREFIX, make_plugin_copy, paired_copies
from tests.support.skill_repo import SkillRepos

BODY = (
    "\n# Deploy helper\n\n"
    "Steps: run `deploy --prod`; key: value # not a comment\n"
    "---\n"
    "A line that looks like a fence, trailing spaces   \n"
    "unicode: déploiement ✓\n"
)
FRONTMATTER = (
    "name: deploy\n"
    "description: Use when deploying the app to production or staging.\n"
    "allowed-tools:\n"
    "  - Read\n"
    "  - Grep\n"
    "metadata:\n"
    "  owner: platform\n"
    "  version: 2\n"
    "license: MIT\n"
)
ORIGINAL = f"---\n{FRONTMATTER}---{BODY}"

TRICKY = {
    "colon": "Use when: deploying. Also: rollbacks",
    "hash": "Use for #deploys and # comments",
    "quotes": "Use for \"prod\" and 'staging' deploys",
    "multi-line": "First line.\nSecond line: with colon.\n\nAfter a blank line.",
    "unicode": "Déploie l'app ✓ — 部署 🚀",
    "leading-gt": "> starts like a folded block",
    "leading-pipe": "| starts like a literal block",
    "leading-dash": "- looks like a list item",
    "fence-line": "before\n---\nafter",
    "yaml-bool": "yes",
    "yaml-null": "null",
    "yaml-number": "1024",
    "flow": "{not: a mapping} [nor, a list]",
    "at-backtick": "@mention `code` %percent &anchor *alias !tag",
    "tabs": "tab\there",
    "long": "Use when deploying. " * 80,
}


def acme_target(skill_repo: SkillRepos, text: str = ORIGINAL) -> Target:
    """The acme-tools plugin: its deploy skill with a reference, an executable script, a
    binary asset, and a `.git` folder of its own that no copy may carry."""
    target = skill_repo(
        plugin_dir="plugins/acme",
        plugin_name="acme-tools",
        skill_name="deploy",
        text=text,
        files={
            "plugins/acme/skills/deploy/reference.md": "Reference notes.\n",
            "plugins/acme/skills/deploy/scripts/run.sh": "#!/bin/sh\necho hi\n",
            "plugins/acme/assets.bin": bytes(range(256)),
            "plugins/acme/.git/HEAD": "ref: refs/heads/main\n",
        },
        commit=None,
    ).target
    (target.plugin_root / "skills" / "deploy" / "scripts" / "run.sh").chmod(0o755)
    return target


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Temp folders go here, so "nothing left behind" is checked without other tests' noise."""
    folder = tmp_path / "systemp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


@pytest.mark.parametrize("description", TRICKY.values(), ids=TRICKY.keys())
def test_description_reads_back_exactly(
    description: str, tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    copy = make_plugin_copy(target, description, tmp_path / "out")
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text(encoding="utf-8")
    document = split_document(text, "copy")
    assert document.frontmatter["description"] == description
    assert document.description == description.strip()


@pytest.mark.parametrize("description", TRICKY.values(), ids=TRICKY.keys())
def test_only_the_description_changes(
    description: str, tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    before = snapshot(target.repo)
    copy = make_plugin_copy(target, description, tmp_path / "out")
    skill = copy / "skills" / "deploy" / "SKILL.md"
    text = skill.read_text(encoding="utf-8")

    # The body after the closing fence is byte-identical.
    assert text.endswith(f"\n---{BODY}")
    # Other keys keep their values and their order.
    original = yaml.safe_load(FRONTMATTER)
    rewritten = split_document(text, "copy").frontmatter
    assert list(rewritten) == list(original)
    assert {**rewritten, "description": None} == {**original, "description": None}
    # Every other file is identical; .git is not copied.
    copied = snapshot(copy)
    originals = snapshot(target.plugin_root)
    assert set(copied) == set(originals) - {".git/HEAD"}
    for name, data in copied.items():
        if name != "skills/deploy/SKILL.md":
            assert data == originals[name], name
    assert os.access(copy / "skills" / "deploy" / "scripts" / "run.sh", os.X_OK)
    # The working tree is untouched.
    assert snapshot(target.repo) == before


def test_multi_line_description_stays_on_one_frontmatter_line(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    copy = make_plugin_copy(target, TRICKY["multi-line"], tmp_path / "out")
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text()
    line = next(line for line in text.splitlines() if line.startswith("description:"))
    assert line == 'description: "First line.\\nSecond line: with colon.\\n\\nAfter a blank line."'


def test_long_description_is_not_folded(tmp_path: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    copy = make_plugin_copy(target, TRICKY["long"], tmp_path / "out")
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text()
    assert len(TRICKY["long"]) > 1024
    assert text.splitlines()[2].startswith("description: ")
    assert text.splitlines()[3] == "allowed-tools:"


def test_copy_keeps_the_plugin_folder_name_and_skill_path(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    copy = make_plugin_copy(target, "x", tmp_path / "out")
    assert copy == tmp_path / "out" / "acme"
    assert (copy / ".claude-plugin" / "plugin.json").is_file()
    assert (copy / target.skill_file.relative_to(target.plugin_root)).is_file()


def test_crlf_and_bom_are_kept(tmp_path: Path, skill_repo: SkillRepos) -> None:
    original = "\ufeff" + ORIGINAL.replace("\n", "\r\n")
    target = acme_target(skill_repo, original)
    copy = make_plugin_copy(target, "New: description", tmp_path / "out")
    data = (copy / "skills" / "deploy" / "SKILL.md").read_bytes()
    assert data.startswith("\ufeff---\r\n".encode())
    assert data.endswith(("\r\n---" + BODY.replace("\n", "\r\n")).encode())
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert split_document(data.decode(), "copy").description == "New: description"


def test_block_scalar_description_is_replaced(tmp_path: Path, skill_repo: SkillRepos) -> None:
    original = "---\nname: deploy\ndescription: >\n  Folded old\n  text.\nlicense: MIT\n---\nBody\n"
    target = acme_target(skill_repo, original)
    copy = make_plugin_copy(target, "New one", tmp_path / "out")
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text()
    assert text == "---\nname: deploy\ndescription: New one\nlicense: MIT\n---\nBody\n"


def test_symlinked_skill_file_is_never_written_through(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    shared = tmp_path / "shared-SKILL.md"
    shared.write_text(ORIGINAL)
    target.skill_file.unlink()
    target.skill_file.symlink_to(shared)
    (target.plugin_root / "dangling").symlink_to(tmp_path / "missing")
    copy = make_plugin_copy(target, "Changed", tmp_path / "out")
    assert shared.read_text() == ORIGINAL
    skill = copy / "skills" / "deploy" / "SKILL.md"
    assert not skill.is_symlink()
    assert split_document(skill.read_text(), "copy").description == "Changed"


def test_missing_working_tree_skill_file_is_an_input_error(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    target.skill_file.unlink()
    with pytest.raises(InputError, match=r"working-tree SKILL\.md"):
        make_plugin_copy(target, "x", tmp_path / "out")


def test_skill_text_can_be_given(tmp_path: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    target.skill_file.unlink()
    copy = make_plugin_copy(target, "Given", tmp_path / "out", skill_text=ORIGINAL)
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text()
    assert split_document(text, "copy").description == "Given"


def test_paired_copies_differ_only_in_the_description(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    with paired_copies(target, "Baseline words.", "Candidate: words #2") as copies:
        assert set(copies) == {"baseline", "candidate"}
        baseline, candidate = snapshot(copies["baseline"]), snapshot(copies["candidate"])
        assert set(baseline) == set(candidate)
        differing = {name for name in baseline if baseline[name] != candidate[name]}
        assert differing == {"skills/deploy/SKILL.md"}
        descriptions: tuple[tuple[VariantName, str], ...] = (
            ("baseline", "Baseline words."),
            ("candidate", "Candidate: words #2"),
        )
        for variant, description in descriptions:
            skill = copies[variant] / "skills" / "deploy" / "SKILL.md"
            assert split_document(skill.read_text(), variant).description == description
        parent = copies["baseline"].parent.parent
        assert parent.name.startswith(TEMP_PREFIX)
        assert parent.parent == private_tmp
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_when_the_body_raises(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    with pytest.raises(RuntimeError, match="boom"), paired_copies(target, "a", "b") as copies:
        assert copies["baseline"].is_dir()
        raise RuntimeError("boom")
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_when_building_fails(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    target.skill_file.write_text("no frontmatter here\n")
    with pytest.raises(InputError), paired_copies(target, "a", "b"):
        pass
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_on_cancellation(private_tmp: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    entered = []

    async def main() -> None:
        with anyio.move_on_after(0.05):
            with paired_copies(target, "a", "b") as copies:
                entered.append(copies)
                await anyio.sleep(10)

    anyio.run(main)
    assert entered
    assert list(private_tmp.iterdir()) == []
