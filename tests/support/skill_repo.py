"""The one builder of skill repositories for tests: a real git repo (gitpython) in a temp dir
holding a plugin (its folder, an optional `.claude-plugin/plugin.json` manifest) and a
SKILL.md, plus any extra files. Tests get it as the `skill_repo` fixture (tests/conftest.py).

Also the other pieces of a suite on disk: a cases file and a distractors folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import git
import orjson
import yaml

from activation._models import Target

PLUGIN_DIR = "plugins/payments"
PLUGIN_NAME = "billing"
SKILL_NAME = "refunds"
SKILL_PATH = "plugins/payments/skills/refunds/SKILL.md"
SKILL_ID = "billing:refunds"
DESCRIPTION = "Use when issuing refunds."
BODY = "# Refunds\n\nSteps for issuing refunds.\n"
REFERENCE = {"plugins/payments/skills/refunds/reference.md": "Refund API notes.\n"}
"""A file beside the default SKILL.md, which a plugin copy must carry along."""


def skill_text(description: str, name: str = SKILL_NAME) -> str:
    frontmatter = yaml.safe_dump(
        {"name": name, "description": description}, sort_keys=False, width=10_000
    )
    return f"---\n{frontmatter}---\n{BODY}"


@dataclass(frozen=True)
class SkillRepo:
    """A built repo: its paths, the skill's names, and helpers to change and commit it."""

    root: Path
    repo: git.Repo
    plugin_dir: str
    plugin_name: str | None
    """The manifest's name; None when the plugin has no manifest."""
    skill_name: str

    @property
    def skill_path(self) -> str:
        """The SKILL.md, relative to the repo (POSIX)."""
        return f"{self.plugin_dir}/skills/{self.skill_name}/SKILL.md"

    @property
    def skill_file(self) -> Path:
        return self.root / self.skill_path

    @property
    def plugin_root(self) -> Path:
        return self.root / self.plugin_dir

    @property
    def target(self) -> Target:
        """The target as the tool resolves it: the plugin is named by its manifest, else by
        its folder."""
        return Target(
            self.root,
            Path(self.skill_path),
            self.plugin_root,
            self.plugin_name or self.plugin_root.name,
            self.skill_name,
        )

    def write(self, relative: str, content: str | bytes) -> Path:
        """A file of the working tree (text as UTF-8), its folders made as needed."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return path

    def write_skill(self, content: str | bytes) -> Path:
        return self.write(self.skill_path, content)

    def write_description(self, description: str) -> Path:
        return self.write_skill(skill_text(description, self.skill_name))

    def commit(self, message: str, *paths: str) -> git.Commit:
        """Stage `paths` (every change when none is given) and commit them."""
        if paths:
            self.repo.index.add(list(paths))
        else:
            self.repo.git.add(all=True)
        return self.repo.index.commit(message)

    def branch(self, name: str, commit: git.Commit) -> None:
        self.repo.create_head(name, commit)

    def tag(self, name: str, commit: git.Commit, message: str | None = None) -> None:
        """An annotated tag with a message, else a lightweight one."""
        self.repo.create_tag(name, ref=commit, message=message)


RepoShape = tuple[object, ...]
"""Everything a built repo is made of (the builder's arguments, bar where it goes)."""


class RepoTemplates:
    """Repos built once per test session, one per shape, and copied for each test that asks
    for that shape: a copy of a repo is the same repo (git keeps no absolute path in it),
    and takes a few milliseconds where `git init`, `git add` and a commit take tens. A
    template's objects are packed: each copy is then a dozen files fewer to write, and to
    delete when pytest clears an old run's temp files."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[RepoShape, Path] = {}

    def copy(self, shape: RepoShape, root: Path, build: Callable[[Path], git.Repo]) -> None:
        """The repo of `shape` at `root` (which must not exist yet), built on first use."""
        template = self.made.get(shape)
        if template is None:
            template = self.folder / str(len(self.made))
            repo = build(template)
            repo.git.repack("-a", "-d", "-q")
            repo.close()
            self.made[shape] = template
        shutil.copytree(template, root, symlinks=True)


class SkillRepos:
    """The `skill_repo` fixture: builds repos under the test's temp dir (copies of the
    session's `templates` when given), closes them after."""

    def __init__(self, tmp_path: Path, templates: RepoTemplates | None = None) -> None:
        self.tmp_path = tmp_path
        self.templates = templates
        self.built: list[SkillRepo] = []

    def __call__(
        self,
        description: str = DESCRIPTION,
        *,
        root: Path | None = None,
        plugin_dir: str = PLUGIN_DIR,
        plugin_name: str | None = PLUGIN_NAME,
        skill_name: str = SKILL_NAME,
        text: str | bytes | None = None,
        files: Mapping[str, str | bytes] | None = None,
        commit: str | None = "baseline",
        candidate: str | None = None,
        then: Callable[[SkillRepo], None] | None = None,
    ) -> SkillRepo:
        """A repo at `root` (default `<tmp>/repo`) whose SKILL.md holds `text`, else a
        frontmatter with `description`; `files` are extra files, relative to the repo.

        The manifest is written when `plugin_name` is given. Everything is committed as
        `commit` (None: no commit at all); then `candidate`, if given, becomes the working
        tree's description, and `then` (a module-level function: it is part of the shape)
        takes the repo further, e.g. through a history of commits and tags. A `root` that
        already holds files is built in place (its files are committed too); any other is a
        copy of the session's template of that shape.
        """
        root = self.tmp_path / "repo" if root is None else root

        def build(where: Path) -> SkillRepo:
            made = _build(where, description, plugin_dir, plugin_name, skill_name, text,
                          files, commit, candidate)  # fmt: skip
            if then is not None:
                then(made)
            return made

        if self.templates is None or (root.exists() and any(root.iterdir())):
            made = build(root)
        else:
            shape = (description, plugin_dir, plugin_name, skill_name, text,
                     tuple((files or {}).items()), commit, candidate, then)  # fmt: skip
            if root.exists():
                root.rmdir()
            self.templates.copy(shape, root, lambda where: build(where).repo)
            made = SkillRepo(root, git.Repo(root), plugin_dir, plugin_name, skill_name)
        self.built.append(made)
        return made

    def close(self) -> None:
        """Stops gitpython's `git cat-file` helpers."""
        for made in self.built:
            made.repo.close()


def init_repo(root: Path) -> git.Repo:
    """An empty git repo at `root` (made as needed) on `main`, committing as a test user,
    unsigned whatever the machine's git configuration says."""
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
        config.set_value("commit", "gpgsign", "false")
        config.set_value("tag", "gpgsign", "false")
    return repo


def _build(
    root: Path,
    description: str,
    plugin_dir: str,
    plugin_name: str | None,
    skill_name: str,
    text: str | bytes | None,
    files: Mapping[str, str | bytes] | None,
    commit: str | None,
    candidate: str | None,
) -> SkillRepo:
    repo = init_repo(root)
    made = SkillRepo(root, repo, plugin_dir, plugin_name, skill_name)
    if plugin_name is not None:
        manifest = {"name": plugin_name, "version": "1.0.0"}
        made.write(f"{plugin_dir}/.claude-plugin/plugin.json", orjson.dumps(manifest))
    made.write_skill(skill_text(description, skill_name) if text is None else text)
    for relative, content in (files or {}).items():
        made.write(relative, content)
    if commit is not None:
        made.commit(commit)
    if candidate is not None:
        made.write_description(candidate)
    return made


class CaseEntry(TypedDict):
    """One entry of a cases file, as `case` writes it."""

    id: str
    prompt: str
    should_activate: bool
    why: str
    tags: list[str]


def write_cases(path: Path, cases: Sequence[Mapping[str, object]]) -> Path:
    path.write_bytes(orjson.dumps({"_comment": "test cases", "cases": list(cases)}))
    return path


def case(case_id: str, prompt: str, should_activate: bool, tags: Sequence[str] = ()) -> CaseEntry:
    return {
        "id": case_id,
        "prompt": prompt,
        "should_activate": should_activate,
        "why": f"ground truth for {case_id}",
        "tags": list(tags),
    }


def write_distractors(folder: Path, skills: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, description in skills.items():
        (folder / f"{name}.md").write_text(skill_text(description, name))
    return folder


DISTRACTORS = {
    "invoices": "Use when generating or emailing invoices and receipts.",
    "charts": "Use when drawing charts and dashboards.",
    "tax-rules": "Use when computing sales tax or VAT for an order.",
}


def commit_all(root: Path, message: str) -> git.Repo:
    """Everything under `root`, committed on `main` (`init_repo`)."""
    repo = init_repo(root)
    repo.git.add(all=True)
    repo.index.commit(message)
    return repo
