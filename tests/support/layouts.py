"""One small repository per layout the agents load skills from, built as a git repo in a
temp dir: the contract with the field's repositories (docs/formats.md, "Layouts").

Each layout holds the measured skill `refunds` and a sibling `invoices` in the same set, and
a skill of another set where the layout has one (the marketplace's second plugin, the mixed
repo's skills folders); the layout says where each SKILL.md is and the id the agent gives
it. The repo is committed with BASELINE as the measured skill's description, and the
working tree holds CANDIDATE; a cases file (`cases.json`, naming the measured skill) and a
behavior suite (`evals/<case>/`) sit at the root, where each command is pointed at them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git
import orjson
import yaml

from tests.support.skill_repo import init_repo

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."
INVOICES = "Use when generating or emailing invoices and receipts."
OTHER = "Use when writing release notes for a product manual."
BODY = "# {name}\n\nSteps for {name}.\n"


@dataclass(frozen=True)
class Layout:
    """Where a layout keeps its skills and what the agent calls them."""

    name: str
    skills: dict[str, str]
    """Every SKILL.md (repo-relative) -> the id the agent lists it by."""
    files: dict[str, object]
    """The other files that make the layout (manifests, a marketplace file) -> JSON data."""
    measured: str
    """The measured skill's SKILL.md."""
    set_root: str
    """The folder the agent loads the measured skill's set from (`.`: the repo root)."""

    @property
    def skill_id(self) -> str:
        return self.skills[self.measured]

    @property
    def sibling(self) -> str:
        """The id of `invoices`, the one other skill of the measured skill's set."""
        return self.skills[self.measured.replace("/refunds/", "/invoices/")]


def _plugin(root: str, name: str) -> dict[str, object]:
    prefix = "" if root == "." else f"{root}/"
    return {f"{prefix}.claude-plugin/plugin.json": {"name": name, "version": "1.0.0"}}


def _folder(folder: str, plugin: str | None = None) -> dict[str, str]:
    ids = {"refunds": "refunds", "invoices": "invoices"}
    return {
        f"{folder}/{skill}/SKILL.md": f"{plugin}:{id}" if plugin else id
        for skill, id in ids.items()
    }


MARKETPLACE = {
    "name": "shop-skills",
    "owner": {"name": "Test"},
    "plugins": [
        {"name": "billing", "source": "./", "strict": False,
         "skills": ["./skills/refunds", "./skills/invoices"]},
        {"name": "manuals", "source": "./", "strict": False, "skills": ["./skills/notes"]},
    ],
}  # fmt: skip
"""Two plugins served from the repo's root, each naming its skills (anthropics/skills)."""


def _served_from(folder: str) -> dict[str, object]:
    """A marketplace serving the plugins billing and manuals from `./<folder><plugin>`."""
    plugins = [{"name": name, "source": f"./{folder}{name}"} for name in ("billing", "manuals")]
    return {"name": "shop-skills", "owner": {"name": "Test"}, "plugins": plugins}


NESTED_MARKETPLACE = _served_from("skills/")
"""Two plugins each in its own folder under `skills/` (dbt Labs' skills): each loads its
own `skills/` folder."""

FOLDER_MARKETPLACE = _served_from("")
"""Two plugins each in a folder of its own at the repo's root, outside every folder where
skills are looked for without a marketplace."""

LAYOUTS = {
    layout.name: layout
    for layout in (
        Layout("root-plugin", _folder("skills", "billing"), _plugin(".", "billing"),
               "skills/refunds/SKILL.md", "."),
        Layout("plugins", _folder("plugins/payments/skills", "billing"),
               _plugin("plugins/payments", "billing"),
               "plugins/payments/skills/refunds/SKILL.md", "plugins/payments"),
        Layout("marketplace",
               {**_folder("skills", "billing"), "skills/notes/SKILL.md": "manuals:notes"},
               {".claude-plugin/marketplace.json": MARKETPLACE}, "skills/refunds/SKILL.md", "."),
        Layout("marketplace-nested",
               {**_folder("skills/billing/skills", "billing"),
                "skills/manuals/skills/notes/SKILL.md": "manuals:notes"},
               {".claude-plugin/marketplace.json": NESTED_MARKETPLACE,
                **_plugin("skills/billing", "billing")},
               "skills/billing/skills/refunds/SKILL.md", "skills/billing"),
        Layout("marketplace-folder",
               {**_folder("billing/skills", "billing"),
                "manuals/skills/notes/SKILL.md": "manuals:notes"},
               {".claude-plugin/marketplace.json": FOLDER_MARKETPLACE,
                **_plugin("billing", "billing")},
               "billing/skills/refunds/SKILL.md", "billing"),
        Layout("skills", _folder("skills"), {}, "skills/refunds/SKILL.md", "skills"),
        Layout("claude-skills", _folder(".claude/skills"), {},
               ".claude/skills/refunds/SKILL.md", ".claude/skills"),
        Layout("agents-skills", _folder(".agents/skills"), {},
               ".agents/skills/refunds/SKILL.md", ".agents/skills"),
        Layout("github-skills", _folder(".github/skills"), {},
               ".github/skills/refunds/SKILL.md", ".github/skills"),
        Layout("mixed",
               {**_folder("plugins/payments/skills", "billing"),
                ".claude/skills/notes/SKILL.md": "notes",
                ".agents/skills/triage/SKILL.md": "triage"},
               _plugin("plugins/payments", "billing"),
               "plugins/payments/skills/refunds/SKILL.md", "plugins/payments"),
        Layout("root-plugin-mixed",
               {**_folder("skills", "billing"),
                ".claude/skills/notes/SKILL.md": "notes",
                ".agents/skills/triage/SKILL.md": "triage"},
               _plugin(".", "billing"), "skills/refunds/SKILL.md", "."),
    )
}  # fmt: skip
"""Every layout, by name: a plugin at the root (obra/superpowers), plugins in `plugins/`, a
marketplace naming its plugins' skills (anthropics/skills), a marketplace of plugins in
folders under `skills/` (dbt Labs' skills) or at the root, the three skills folders and
Copilot's own project folder (`.github/skills/`, as microsoft/skills keeps them), and
repos with several sets at once (a project's skills folders beside plugins in `plugins/` or
at the root: they are sets of their own, never the plugin's)."""

ROOT_SKILL = Layout("root-skill", {"SKILL.md": "refunds-desk"}, {}, "SKILL.md", ".")
"""A one-skill repo, SKILL.md at its root (skill-creator's layout): the id is its `name`
(`refunds-desk`), never the checkout folder's; no sibling, so it is not in LAYOUTS."""

CASES = [
    {"id": "dispute", "prompt": "a customer opened a stripe dispute, what now",
     "should_activate": True, "why": "disputes are refunds' work"},
    {"id": "refund", "prompt": "refund order 1234", "should_activate": True,
     "why": "a refund"},
    {"id": "charts", "prompt": "plot monthly revenue", "should_activate": False,
     "why": "charts are nobody's here"},
]  # fmt: skip
PROMPT = """---
id: refund_note
name: Refund note
skills: refunds
---

## Task

Write refund.txt saying that order 1234 is refunded.
"""
GRADERS = [
    {"type": "contains", "value": "refunded", "description": "Says it is refunded",
     "level": "L1"},
    {"type": "judge", "question": "Does refund.txt say that order 1234 is refunded?"},
]  # fmt: skip


def skill_text(name: str, description: str) -> str:
    frontmatter = yaml.safe_dump({"name": name, "description": description}, sort_keys=False)
    return f"---\n{frontmatter}---\n{BODY.format(name=name)}"


def build_layout(root: Path, layout: Layout) -> git.Repo:
    """The layout as a committed git repo at `root`, the measured skill's description then
    edited in the working tree (BASELINE at HEAD, CANDIDATE on disk)."""
    repo = init_repo(root)
    for relative, data in layout.files.items():
        _write(root / relative, orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    for path, id in layout.skills.items():
        name = Path(path).parent.name if path != "SKILL.md" else id
        description = (
            BASELINE if path == layout.measured else {"invoices": INVOICES}.get(name, OTHER)
        )
        _write(root / path, skill_text(name, description))
    cases = {"skill": layout.skill_id, "cases": CASES}
    _write(root / "cases.json", orjson.dumps(cases, option=orjson.OPT_INDENT_2).decode())
    _write(root / "evals/refund_note/PROMPT.md", PROMPT)
    _write(root / "evals/refund_note/graders.yaml", yaml.safe_dump(GRADERS, sort_keys=False))
    repo.git.add(A=True)
    repo.index.commit("the skills")
    measured = layout.skill_id if layout.measured == "SKILL.md" else "refunds"
    _write(root / layout.measured, skill_text(measured, CANDIDATE))
    return repo


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
