"""Builds real skill repositories (git, plugin manifest, SKILL.md) in temp dirs for tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import git
import orjson
import yaml

PLUGIN_DIR = "plugins/payments"
SKILL_PATH = "plugins/payments/skills/refunds/SKILL.md"
SKILL_ID = "billing:refunds"
BODY = "# Refunds\n\nSteps for issuing refunds.\n"


def skill_text(description: str, name: str = "refunds") -> str:
    frontmatter = yaml.safe_dump(
        {"name": name, "description": description}, sort_keys=False, width=10_000
    )
    return f"---\n{frontmatter}---\n{BODY}"


@dataclass(frozen=True)
class SkillRepo:
    root: Path
    repo: git.Repo

    @property
    def skill_file(self) -> Path:
        return self.root / SKILL_PATH

    def write_description(self, description: str) -> None:
        self.skill_file.write_text(skill_text(description))

    def commit(self, message: str) -> str:
        self.repo.git.add(all=True)
        return self.repo.index.commit(message).hexsha


def make_skill_repo(root: Path, baseline: str, candidate: str | None = None) -> SkillRepo:
    """A repo whose HEAD holds `baseline`; the working tree holds `candidate` if given."""
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
    manifest = root / PLUGIN_DIR / ".claude-plugin" / "plugin.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_bytes(orjson.dumps({"name": "billing", "version": "1.0.0"}))
    skill = SkillRepo(root, repo)
    skill.skill_file.parent.mkdir(parents=True)
    skill.write_description(baseline)
    (root / PLUGIN_DIR / "skills" / "refunds" / "reference.md").write_text("Refund API notes.\n")
    skill.commit("baseline")
    if candidate is not None:
        skill.write_description(candidate)
    return skill


def write_cases(path: Path, cases: Sequence[dict[str, object]]) -> Path:
    path.write_bytes(orjson.dumps({"_comment": "test cases", "cases": list(cases)}))
    return path


def case(
    case_id: str, prompt: str, should_activate: bool, tags: Sequence[str] = ()
) -> dict[str, object]:
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
