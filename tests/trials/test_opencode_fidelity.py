"""The OpenCode renderer is the CLI's listing: for a project of skills that exercise every
rule (order by collation, raw name and description, an escaped location, a multi-line and an
empty description, a file without a name, one without a description, `when_to_use`), the
section `opencode.render` returns is byte for byte the end of the system text of the real
CLI's first model request.
"""

from __future__ import annotations

from pathlib import Path

from activation.inputs.frontmatter import read_sibling
from activation.trials.agents.opencode.listing import render
from activation.trials.listing.model import ListedSkill
from tests.support.opencode_cli import first_system

SKILLS = {  # in the CLI's discovery order: .claude, then .agents, then .opencode
    ".claude/skills/review": "name: code-check\n"
    'description: Check a diff for <risky> & "odd" changes.\n',
    ".agents/skills/zebra": "name: Zebra-Tools\ndescription: Draw zebras.\n",
    ".opencode/skills/deploy": "name: deploy\ndescription: Deploy the app to staging.\n"
    "when_to_use: When the user asks to ship.\n",
    ".opencode/skills/notes": "name: notes\ndescription: |\n  Summarise release notes.\n"
    "  Keep entries short.\n",
    ".opencode/skills/_private": "name: _private\ndescription: Underscore first.\n",
    ".opencode/skills/blank": "name: blank\ndescription: ''\n",
    ".opencode/skills/silent": "name: silent\n",
    ".opencode/skills/nameless": "description: Has no name, so the CLI skips it.\n",
}
LISTED = ["_private", "blank", "review", "customize-opencode", "deploy", "notes", "zebra"]


def write_project(project: Path) -> list[tuple[ListedSkill, str]]:
    """The skills on disk, and each as the pipeline reads it with its SKILL.md path."""
    found = []
    for folder, frontmatter in SKILLS.items():
        path = project / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        text = f"---\n{frontmatter}---\n\n# {path.parent.name}\n\nBody.\n"
        path.write_text(text, encoding="utf-8")
        fields = read_sibling(text, str(path)).frontmatter
        skill = ListedSkill(
            id=path.parent.name,
            folder=path.parent.name,
            source="project",
            description=fields.get("description"),
            when_to_use=fields.get("when_to_use"),
            name=fields.get("name"),
        )
        found.append((skill, str(path)))
    return found


def test_the_listing_is_the_clis(opencode_cli: Path, tmp_path: Path) -> None:
    scratch = tmp_path.resolve()
    project = scratch / "proj & 'co' <x>"  # the location is escaped, the CLI's too
    found = write_project(project)
    locations = {skill.id: path for skill, path in found}
    system = first_system(opencode_cli, scratch, project)
    assert len(system) == 1
    sent: str = system[0]["text"]

    shown = render([skill for skill, _ in found], lambda skill: locations[skill.id])
    assert sent.endswith("</env>\n" + shown.text)
    assert list(shown.ids) == LISTED
    review = shown.entry("review")
    assert review is not None
    assert review.line == (
        "  <skill>\n"
        "    <name>code-check</name>\n"
        '    <description>Check a diff for <risky> & "odd" changes.</description>\n'
        f"    <location>{scratch}/proj &amp; &#39;co&#39; &lt;x&gt;/.claude/skills/review/"
        "SKILL.md</location>\n"
        "  </skill>"
    )
    notes = shown.entry("notes")
    assert notes is not None
    assert "<description>Summarise release notes.\nKeep entries short.\n</description>" in (
        notes.line
    )
    assert "When the user asks to ship" not in sent
