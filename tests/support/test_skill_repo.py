"""The skill repo builder's session templates: a repo of a shape seen before is a copy of
the same repo, and a root that already holds files is built in place."""

from __future__ import annotations

from pathlib import Path

from tests.support.skill_repo import DESCRIPTION, SKILL_PATH, RepoTemplates, SkillRepos, skill_text


def test_a_repo_of_a_shape_seen_before_is_a_copy_of_the_same_repo(tmp_path: Path) -> None:
    templates = RepoTemplates(tmp_path / "templates")
    (tmp_path / "templates").mkdir()
    repos = [SkillRepos(tmp_path / name, templates) for name in ("a", "b", "c")]
    first = repos[0](candidate="Use when refunding twice.")
    second = repos[1](candidate="Use when refunding twice.")
    other = repos[2]("Use when charting.")
    assert (first.root, second.root) == (tmp_path / "a" / "repo", tmp_path / "b" / "repo")
    assert len(templates.made) == 2
    assert first.repo.head.commit.hexsha == second.repo.head.commit.hexsha
    assert other.repo.head.commit.hexsha != first.repo.head.commit.hexsha
    assert second.repo.git.show(f"HEAD:{SKILL_PATH}") + "\n" == skill_text(DESCRIPTION)
    assert second.skill_file.read_text() == skill_text("Use when refunding twice.")
    assert [d.a_path for d in second.repo.index.diff(None)] == [SKILL_PATH]
    second.write_description("Use when refunding once.")
    second.commit("changed")
    assert first.repo.head.commit.hexsha != second.repo.head.commit.hexsha
    assert first.skill_file.read_text() == skill_text("Use when refunding twice.")
    for made in repos:
        made.close()


def test_a_root_that_holds_files_is_built_in_place_with_them(tmp_path: Path) -> None:
    templates = RepoTemplates(tmp_path / "templates")
    (tmp_path / "templates").mkdir()
    root = tmp_path / "here"
    root.mkdir()
    (root / "notes.md").write_text("kept\n")
    repos = SkillRepos(tmp_path, templates)
    made = repos(root=root)
    assert templates.made == {}
    assert made.repo.git.show("HEAD:notes.md") == "kept"
    repos.close()
