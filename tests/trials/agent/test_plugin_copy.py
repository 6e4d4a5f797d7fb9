"""Paired copies of a skill set: only the listed fields differ, they read back exactly, and
the temp folders go away on every way out."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import yaml

from activation._errors import InputError
from activation._models import Skill, Target, Variant, VariantName
from activation.inputs.frontmatter import split_document
from activation.trials.agent.plugin_copy import (
    TEMP_PREFIX,
    make_catalog_copy,
    make_set_copy,
    paired_copies,
    set_folders,
)
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


def variant(description: str, text: str = ORIGINAL, when_to_use: str | None = None) -> Variant:
    return Variant("spec", description, text, "source", when_to_use)


def make_plugin_copy(
    target: Target, description: str, dest: Path, skill_text: str = ORIGINAL
) -> Path:
    return make_set_copy(target, variant(description, skill_text), dest)


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


def test_a_skill_the_working_tree_lacks_is_written_from_the_variants_text(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    target.skill_file.unlink()
    copy = make_plugin_copy(target, "Given", tmp_path / "out", skill_text=ORIGINAL)
    text = (copy / "skills" / "deploy" / "SKILL.md").read_text()
    assert split_document(text, "copy").description == "Given"
    assert text.endswith(f"\n---{BODY}")


def test_a_variants_text_without_frontmatter_is_an_input_error(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    target.skill_file.unlink()
    with pytest.raises(InputError, match="frontmatter"):
        make_plugin_copy(target, "x", tmp_path / "out", skill_text="no frontmatter\n")


def test_paired_copies_differ_only_in_the_description(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    pair = variant("Baseline words."), variant("Candidate: words #2")
    with paired_copies(target, *pair) as both:
        copies = both.sets
        assert set(copies) == {"baseline", "candidate"}
        baseline, candidate = snapshot(copies["baseline"]), snapshot(copies["candidate"])
        assert set(baseline) == set(candidate)
        differing = {name for name in baseline if baseline[name] != candidate[name]}
        assert differing == {"skills/deploy/SKILL.md"}
        descriptions: tuple[tuple[VariantName, str], ...] = (
            ("baseline", "Baseline words."),
            ("candidate", "Candidate: words #2"),
        )
        for name, description in descriptions:
            skill = copies[name] / "skills" / "deploy" / "SKILL.md"
            assert split_document(skill.read_text(), name).description == description
        parent = copies["baseline"].parent.parent
        assert parent.name.startswith(TEMP_PREFIX)
        assert parent.parent == private_tmp
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_when_the_body_raises(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    with (
        pytest.raises(RuntimeError, match="boom"),
        paired_copies(target, variant("a"), variant("b")) as copies,
    ):
        assert copies.sets["baseline"].is_dir()
        raise RuntimeError("boom")
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_when_building_fails(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    target.skill_file.write_text("no frontmatter here\n")
    with pytest.raises(InputError), paired_copies(target, variant("a"), variant("b")):
        pass
    assert list(private_tmp.iterdir()) == []


def test_paired_copies_removed_on_cancellation(private_tmp: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    entered = []

    async def main() -> None:
        with anyio.move_on_after(0.05):
            with paired_copies(target, variant("a"), variant("b")) as copies:
                entered.append(copies)
                await anyio.sleep(10)

    anyio.run(main)
    assert entered
    assert list(private_tmp.iterdir()) == []


# --- the whole set: siblings, when_to_use, skills folders, the catalog ----------------------

SIBLING = "---\nname: rollback\ndescription: Roll a deploy back.\n---\nRollback body\n"


def sibling(description: str, when_to_use: str | None = None) -> Skill:
    path = "plugins/acme/skills/rollback/SKILL.md"
    return Skill("acme-tools:rollback", description, when_to_use, path=path, text=SIBLING)


def listed(copy: Path, skill: str) -> dict[str, object]:
    return split_document((copy / "skills" / skill / "SKILL.md").read_text(), skill).frontmatter


def test_each_copy_lists_its_variants_siblings(private_tmp: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    (target.plugin_root / "skills" / "rollback").mkdir()
    (target.plugin_root / "skills" / "rollback" / "SKILL.md").write_text(SIBLING)
    baseline = Variant("b", "Deploy.", ORIGINAL, "b", siblings=(sibling("Roll back."),))
    candidate = Variant(
        "c", "Deploy.", ORIGINAL, "c", "When shipping.", (sibling("Undo.", "After a bad one."),)
    )
    with paired_copies(target, baseline, candidate) as copies:
        old, new = copies.sets["baseline"], copies.sets["candidate"]
        assert listed(old, "rollback")["description"] == "Roll back."
        assert "when_to_use" not in listed(old, "rollback")
        assert listed(new, "rollback") == {
            "name": "rollback",
            "description": "Undo.",
            "when_to_use": "After a bad one.",
        }
        assert listed(new, "deploy")["when_to_use"] == "When shipping."
        assert (
            (new / "skills" / "rollback" / "SKILL.md").read_text().endswith("---\nRollback body\n")
        )


def test_a_nested_skill_lists_what_each_variant_lists_and_is_no_folder_of_its_own(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    """A `git:` baseline's copy is the working tree's files with the baseline's listed
    fields: a SKILL.md inside a skill's folder (Codex and OpenCode list it) too."""
    target = acme_target(skill_repo)
    config = target.plugin_root / "skills" / "deploy" / "config"
    config.mkdir()
    text = "---\nname: config\ndescription: Edit deploy config.\n---\nConfig body\n"
    (config / "SKILL.md").write_text(text)

    def nested(description: str) -> Skill:
        path = "plugins/acme/skills/deploy/config/SKILL.md"
        return Skill("acme-tools:config", description, path=path, text=text,
                     nested="deploy/config")  # fmt: skip

    baseline = Variant("b", "Deploy.", ORIGINAL, "b", siblings=(nested("Old config."),))
    candidate = Variant("c", "Deploy.", ORIGINAL, "c", siblings=(nested("Edit deploy config."),))
    with paired_copies(target, baseline, candidate) as copies:
        said: dict[VariantName, str] = {"baseline": "Old config.",
                                        "candidate": "Edit deploy config."}  # fmt: skip
        for name, description in said.items():
            copied = (copies.sets[name] / "skills" / "deploy" / "config" / "SKILL.md").read_text()
            assert split_document(copied, "config").frontmatter["description"] == description
            assert copied.endswith("---\nConfig body\n")
        root = copies.sets["baseline"]
        assert set_folders(target, baseline, root) == (
            ("acme-tools:deploy", root / "skills" / "deploy"),
        )
        assert set_folders(target, baseline, root, nested=True) == (
            ("acme-tools:config", root / "skills" / "deploy" / "config"),
        )


def test_a_skill_the_variant_lacks_is_not_in_its_copy(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    (target.plugin_root / "skills" / "rollback").mkdir()
    (target.plugin_root / "skills" / "rollback" / "SKILL.md").write_text(SIBLING)
    with_it = Variant("b", "Deploy.", ORIGINAL, "b", siblings=(sibling("Roll back."),))
    with paired_copies(target, with_it, variant("Deploy.")) as copies:
        assert (copies.sets["baseline"] / "skills" / "rollback" / "SKILL.md").is_file()
        assert not (copies.sets["candidate"] / "skills" / "rollback").exists()
        assert (copies.sets["candidate"] / "skills" / "deploy" / "reference.md").is_file()


def test_a_skill_only_the_variant_has_is_written_into_its_copy(
    private_tmp: Path, skill_repo: SkillRepos
) -> None:
    target = acme_target(skill_repo)
    added = Variant("b", "Deploy.", ORIGINAL, "b", siblings=(sibling("New sibling."),))
    with paired_copies(target, added, variant("Deploy.")) as copies:
        assert listed(copies.sets["baseline"], "rollback")["description"] == "New sibling."
        assert not (copies.sets["candidate"] / "skills" / "rollback").exists()


def test_a_skills_folder_is_copied_as_a_folder_of_skills(private_tmp: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("notes", "todo"):
        (repo / ".claude" / "skills" / name).mkdir(parents=True)
        (repo / ".claude" / "skills" / name / "SKILL.md").write_text(
            f"---\ndescription: {name} old\n---\n{name} body\n"
        )
    target = Target(repo, Path(".claude/skills/notes/SKILL.md"), repo / ".claude/skills", None,
                    "notes")  # fmt: skip
    todo = Skill("todo", "todo new", path=".claude/skills/todo/SKILL.md",
                 text="---\ndescription: todo old\n---\ntodo body\n")  # fmt: skip
    notes = Variant("c", "notes new", "---\ndescription: notes old\n---\nnotes body\n", "c",
                    siblings=(todo,))  # fmt: skip
    copy = make_set_copy(target, notes, tmp_path / "out")
    assert copy == tmp_path / "out" / "skills"
    assert snapshot(copy) == {
        "notes/SKILL.md": b"---\ndescription: notes new\n---\nnotes body\n",
        "todo/SKILL.md": b"---\ndescription: todo new\n---\ntodo body\n",
    }


def test_a_root_skill_is_copied_under_its_name_not_the_checkouts(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    text = "---\nname: app-review\ndescription: old\n---\nbody\n"
    (repo / "SKILL.md").write_text(text)
    (repo / "references").mkdir()
    (repo / "references" / "rules.md").write_text("rules\n")
    target = Target(repo, Path("SKILL.md"), repo, None, "app-review")
    copy = make_set_copy(target, Variant("c", "new", text, "c"), tmp_path / "out")
    assert copy == tmp_path / "out" / "app-review"
    assert snapshot(copy) == {
        "SKILL.md": b"---\nname: app-review\ndescription: new\n---\nbody\n",
        "references/rules.md": b"rules\n",
    }


def test_the_catalog_is_copied_as_user_skills_and_plugins(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    files = {
        "mine/SKILL.md": "---\ndescription: Mine.\n---\n",
        "mine/notes.md": "notes",
        "shop/.claude-plugin/plugin.json": '{"name": "shop"}',
        "shop/skills/cart/SKILL.md": "---\ndescription: Cart.\n---\n",
        "shop/skills/pay/SKILL.md": "---\ndescription: Pay.\n---\n",
    }
    for relative, text in files.items():
        (catalog / relative).parent.mkdir(parents=True, exist_ok=True)
        (catalog / relative).write_text(text)
    skills = [
        Skill("mine", "Mine.", source="user", path=str(catalog / "mine/SKILL.md")),
        Skill(
            "shop:cart", "Cart.", source="plugin", path=str(catalog / "shop/skills/cart/SKILL.md")
        ),
        Skill("shop:pay", "Pay.", source="plugin", path=str(catalog / "shop/skills/pay/SKILL.md")),
    ]
    copy = make_catalog_copy(skills, tmp_path / "out")
    assert copy.user_skills == tmp_path / "out" / "user-skills"
    assert snapshot(copy.user_skills) == {"mine/SKILL.md": b"---\ndescription: Mine.\n---\n",
                                          "mine/notes.md": b"notes"}  # fmt: skip
    assert copy.plugins == (tmp_path / "out" / "plugins" / "0" / "shop",)
    assert set(snapshot(copy.plugins[0])) == {
        ".claude-plugin/plugin.json",
        "skills/cart/SKILL.md",
        "skills/pay/SKILL.md",
    }
    assert make_catalog_copy([], tmp_path / "none").user_skills is None


def test_a_copy_leaves_out_each_skills_evals_folder(tmp_path: Path, skill_repo: SkillRepos) -> None:
    target = acme_target(skill_repo)
    skill = target.plugin_root / "skills" / "deploy"
    (skill / "evals").mkdir()
    (skill / "evals" / "evals.json").write_text('{"evals": []}\n')
    (target.plugin_root / "evals").mkdir()
    (target.plugin_root / "evals" / "notes.md").write_text("not beside a SKILL.md\n")
    copy = make_plugin_copy(target, "Use when deploying.", tmp_path / "copy")
    assert not (copy / "skills" / "deploy" / "evals").exists()
    assert (copy / "skills" / "deploy" / "reference.md").read_text() == "Reference notes.\n"
    assert (copy / "evals" / "notes.md").read_text() == "not beside a SKILL.md\n"
