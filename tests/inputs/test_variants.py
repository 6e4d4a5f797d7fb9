"""Baseline and candidate are read from real git history and real files, never from a fake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import git
import pytest

from activation._errors import InputError
from activation._models import Target, Variant
from activation.inputs.load import resolve_target, resolve_variant
from activation.inputs.variants import (
    description_warnings,
    git_ref,
    unknown_ref_message,
    working_tree_spec,
)
from tests.support.skill_repo import SkillRepo, SkillRepos

SKILL_PATH = "plugins/p/skills/s/SKILL.md"
GIT_SOURCE = f"git:{{}}:{SKILL_PATH}"


def skill_text(description: str) -> str:
    return f"---\nname: s\ndescription: {description}\n---\n# Body\n"


def plugin_p(
    skill_repo: SkillRepos,
    root: Path,
    text: str,
    commit: str | None,
    under: str = "",
    then: Callable[[SkillRepo], None] | None = None,
) -> SkillRepo:
    """A repo at `root` holding skill `s` of plugin `p` (no manifest) in `<under>plugins/p`."""
    return skill_repo(
        root=root,
        plugin_dir=f"{under}plugins/p",
        plugin_name=None,
        skill_name="s",
        text=text,
        commit=commit,
        then=then,
    )


@dataclass(frozen=True)
class History:
    """v1 (branch `old`, tags `v1` and `v1-light`) -> v2 (HEAD) -> v3 (uncommitted edit)."""

    skill: SkillRepo
    target: Target
    first: git.Commit
    second: git.Commit


def v1_to_v3(skill: SkillRepo) -> None:
    first = skill.commit("v1", SKILL_PATH)
    skill.branch("old", first)
    skill.tag("v1", first, message="release v1")
    skill.tag("v1-light", first)
    skill.write_skill(skill_text("Version two."))
    skill.commit("v2", SKILL_PATH)
    skill.write_skill(skill_text("Version three."))


@pytest.fixture
def history(tmp_path: Path, skill_repo: SkillRepos) -> History:
    root = tmp_path.resolve() / "repo"
    skill = plugin_p(skill_repo, root, skill_text("Version one."), None, then=v1_to_v3)
    first, second = skill.repo.commit("v1"), skill.repo.commit("HEAD")
    return History(skill, resolve_target(root, None, root), first, second)


def message(spec: str, target: Target, cwd: Path) -> str:
    with pytest.raises(InputError) as error:
        resolve_variant(spec, target, cwd)
    return str(error.value)


# --- git refs ------------------------------------------------------------------------------


def test_head_against_the_working_tree_after_an_edit(history: History) -> None:
    target = history.target
    baseline = resolve_variant("git:HEAD", target, target.repo)
    candidate = resolve_variant(working_tree_spec(target), target, target.repo)
    assert baseline == Variant(
        spec="git:HEAD",
        description="Version two.",
        text=skill_text("Version two."),
        source=GIT_SOURCE.format("HEAD"),
    )
    assert candidate == Variant(
        spec=str(target.repo / SKILL_PATH),
        description="Version three.",
        text=skill_text("Version three."),
        source=str(target.repo / SKILL_PATH),
    )


def test_working_tree_spec_is_the_skill_file(history: History) -> None:
    assert working_tree_spec(history.target) == str(history.target.repo / SKILL_PATH)


@pytest.mark.parametrize("ref", ["old", "v1", "v1-light", "HEAD~1", "HEAD^", "refs/heads/old"])
def test_branches_tags_and_relative_refs(history: History, ref: str) -> None:
    variant = resolve_variant(f"git:{ref}", history.target, Path("/"))
    assert (variant.description, variant.source) == ("Version one.", GIT_SOURCE.format(ref))


def test_full_and_short_sha(history: History) -> None:
    sha = history.first.hexsha
    for ref in (sha, sha[:7]):
        variant = resolve_variant(f"git:{ref}", history.target, Path("/"))
        assert (variant.description, variant.text) == ("Version one.", skill_text("Version one."))


def test_unknown_ref_names_the_shallow_clone_fix(history: History) -> None:
    """A repo with no remote and its whole history: no fetch to suggest, its branches are
    named instead (a `git fetch origin` would name a remote it does not have)."""
    assert message("git:nope", history.target, history.target.repo) == (
        f"git:nope: no commit 'nope' in {history.target.repo} (its branches: main, old)"
    )


def test_unknown_remote_tracking_ref_hint_fetches_the_branch(tmp_path: Path) -> None:
    said = f"git:origin/main: no commit 'origin/main' in {tmp_path}"
    assert unknown_ref_message("git:origin/main", "origin/main", tmp_path, True, ["origin"]) == (
        f"{said} (a shallow clone: it may need `git fetch origin main`, or a checkout with "
        "fetch-depth: 0)"
    )
    assert unknown_ref_message("git:origin/main", "origin/main", tmp_path, False, ["up"]) == (
        f"{said} (if up has it: `git fetch up origin/main`)"
    )


def test_ref_missing_from_a_real_shallow_clone(history: History, tmp_path: Path) -> None:
    """The CI case: the ref's name resolves but its commit was never fetched."""
    clone = tmp_path.resolve() / "clone"
    git.Repo.clone_from(f"file://{history.target.repo}", clone, depth=1).close()
    target = resolve_target(clone, None, clone)
    assert resolve_variant("git:HEAD", target, clone).description == "Version two."
    assert message("git:HEAD~1", target, clone) == (
        f"git:HEAD~1: no commit 'HEAD~1' in {clone} "
        "(a shallow clone: it may need `git fetch --unshallow`, or a checkout with fetch-depth: 0)"
    )


def test_ref_beyond_the_history(history: History) -> None:
    assert message("git:HEAD~5", history.target, Path("/")).startswith(
        "git:HEAD~5: no commit 'HEAD~5' in "
    )


def test_ref_that_is_not_a_commit(history: History) -> None:
    assert message("git:HEAD^{tree}", history.target, Path("/")) == (
        "git:HEAD^{tree}: 'HEAD^{tree}' names a tree, not a commit"
    )


@pytest.mark.parametrize("spec", ["git:", "git:  "])
def test_git_with_an_empty_ref(history: History, spec: str) -> None:
    assert message(spec, history.target, Path("/")) == (
        f"{spec!r}: 'git:' needs a ref (a branch, tag or commit), e.g. git:HEAD"
    )


def test_file_missing_at_the_ref(history: History) -> None:
    root = history.target.repo
    (root / "plugins/p/skills/new/SKILL.md").parent.mkdir(parents=True)
    (root / "plugins/p/skills/new/SKILL.md").write_text(skill_text("New."), encoding="utf-8")
    target = resolve_target(root, "plugins/p/skills/new/SKILL.md", root)
    assert message("git:v1", target, root) == (
        f"git:v1: plugins/p/skills/new/SKILL.md does not exist at v1 ({history.first.hexsha[:12]})"
    )


def test_path_that_is_a_folder_at_the_ref(history: History) -> None:
    target = replace(history.target, skill_path=Path("plugins/p/skills"))
    assert message("git:HEAD", target, Path("/")) == (
        "git:HEAD: plugins/p/skills is a tree at HEAD, not a file"
    )


def test_symlink_at_the_ref(history: History) -> None:
    root = history.target.repo
    link = root / "plugins/q/skills/s/SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(root / SKILL_PATH)
    history.skill.commit("link", "plugins/q/skills/s/SKILL.md")
    target = resolve_target(root, "plugins/q/skills/s/SKILL.md", root)
    assert message("git:HEAD", target, Path("/")) == (
        "git:HEAD: plugins/q/skills/s/SKILL.md is a symbolic link at HEAD; pass the file it names"
    )


def test_repo_that_is_not_a_git_repository(tmp_path: Path) -> None:
    root = tmp_path.resolve() / "plain"
    (root / "plugins/p/skills/s").mkdir(parents=True)
    (root / SKILL_PATH).write_text(skill_text("Plain."), encoding="utf-8")
    target = resolve_target(root, None, root)
    assert resolve_variant(working_tree_spec(target), target, root).description == "Plain."
    assert message("git:HEAD", target, root) == (
        f"git:HEAD: {root} is not a git repository (pass a file path instead)"
    )


def test_repo_without_commits(tmp_path: Path, skill_repo: SkillRepos) -> None:
    root = tmp_path.resolve() / "fresh"
    plugin_p(skill_repo, root, skill_text("Fresh."), None)
    target = resolve_target(root, None, root)
    assert message("git:HEAD", target, root) == (
        f"git:HEAD: no commit 'HEAD' in {root} (it has no branch yet: commit first)"
    )


def test_repo_option_inside_a_larger_git_repository(tmp_path: Path, skill_repo: SkillRepos) -> None:
    """Git's tree is rooted at the work tree, so a --repo below it must be prefixed."""
    outer = tmp_path.resolve() / "mono"
    plugin_p(skill_repo, outer, skill_text("Nested."), "nested", under="packages/skills/")
    target = resolve_target(outer / "packages/skills", None, outer)
    variant = resolve_variant("git:HEAD", target, outer)
    assert (variant.description, variant.source) == (
        "Nested.",
        f"git:HEAD:packages/skills/{SKILL_PATH}",
    )


def test_frontmatter_errors_name_the_ref(history: History) -> None:
    history.skill.write_skill("---\nname: s\n---\n")
    history.skill.commit("drop the description", SKILL_PATH)
    assert message("git:HEAD", history.target, Path("/")) == (
        f"git:HEAD:{SKILL_PATH}: the frontmatter has no 'description'"
    )


def test_bom_and_crlf_at_a_ref(history: History) -> None:
    text = "\ufeff---\r\ndescription: >-\r\n  Windows\r\n  edited.\r\n---\r\n"
    history.skill.write_skill(text.encode("utf-8"))
    history.skill.commit("crlf", SKILL_PATH)
    variant = resolve_variant("git:HEAD", history.target, Path("/"))
    assert (variant.description, variant.text) == ("Windows edited.", text.removeprefix("\ufeff"))


# --- paths ---------------------------------------------------------------------------------


def test_path_relative_to_cwd(history: History, tmp_path: Path) -> None:
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "SKILL.md").write_text(skill_text("Draft."), encoding="utf-8")
    variant = resolve_variant("drafts/SKILL.md", history.target, tmp_path)
    assert variant == Variant(
        spec="drafts/SKILL.md",
        description="Draft.",
        text=skill_text("Draft."),
        source="drafts/SKILL.md",
    )


def test_absolute_path(history: History, tmp_path: Path) -> None:
    path = tmp_path / "abs.md"
    path.write_text(skill_text("Absolute."), encoding="utf-8")
    assert resolve_variant(str(path), history.target, Path("/nowhere")).description == "Absolute."


def test_missing_path(history: History, tmp_path: Path) -> None:
    assert message("drafts/NOPE.md", history.target, tmp_path) == (
        f"drafts/NOPE.md: no such file ({tmp_path}/drafts/NOPE.md)"
    )


def test_path_that_is_a_directory(history: History, tmp_path: Path) -> None:
    """The hint names the SKILL.md inside only when there is one."""
    assert message(".", history.target, tmp_path) == ".: is a directory; it holds no SKILL.md"
    (tmp_path / "draft").mkdir()
    (tmp_path / "draft" / "SKILL.md").write_text(skill_text("Draft."))
    assert message("draft", history.target, tmp_path) == (
        "draft: is a directory; pass draft/SKILL.md"
    )


def test_path_that_is_not_utf8(history: History, tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes(skill_text("Café.").encode("latin-1"))
    assert message("latin1.md", history.target, tmp_path) == ("latin1.md: not UTF-8 text (byte 28)")


def test_path_with_bom_and_crlf(history: History, tmp_path: Path) -> None:
    (tmp_path / "win.md").write_bytes(b"\xef\xbb\xbf---\r\ndescription: 'a: b #c'\r\n---\r\n")
    assert resolve_variant("win.md", history.target, tmp_path).description == "a: b #c"


# --- pure helpers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("git:main", "main"), ("git: v1 ", "v1"), ("SKILL.md", None), ("./git:x", None)],
)
def test_git_ref(spec: str, expected: str | None) -> None:
    assert git_ref(spec) == expected


def variant_with(description: str) -> Variant:
    return Variant("git:main", description, skill_text(description), "git:main:SKILL.md")


def test_description_over_the_limit_warns_with_its_length() -> None:
    assert description_warnings(variant_with("x" * 1025)) == [
        "git:main: the description is 1,025 characters, over the agent's limit of 1,024"
    ]


def test_description_at_the_limit_does_not_warn() -> None:
    assert description_warnings(variant_with("x" * 1024)) == []


def test_over_limit_description_read_from_a_file_warns(history: History, tmp_path: Path) -> None:
    (tmp_path / "long.md").write_text(skill_text("word " * 300), encoding="utf-8")
    variant = resolve_variant("long.md", history.target, tmp_path)
    assert len(variant.description) == 1499
    assert description_warnings(variant) == [
        "long.md: the description is 1,499 characters, over the agent's limit of 1,024"
    ]
