"""The rendered Gemini CLI listing is the real CLI's, byte for byte.

Each test writes skills into a fresh workspace's `.agents/skills` (and `.gemini/skills`),
runs the pinned Gemini CLI headless (`gemini -p ... -m <id> --output-format stream-json`,
isolated HOME and GEMINI_CLI_HOME, the workspace trusted, GOOGLE_GEMINI_BASE_URL at the
local Gemini API stand-in) and compares the listing in its first request's system
instruction with `listing.render`'s, built-ins included. Inside one skills folder the CLI's
order is its glob's concurrent walk: mostly reverse byte order, which `render` follows, but
not always (seen: one entry of 30 elsewhere, two entries swapped), so the text is compared
in the order the CLI sent, and the order itself is checked only where it is fixed:
built-ins, then `.gemini/skills`, then `.agents/skills`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from activation.trials.agents.gemini.listing import (
    builtin_root,
    discovery_order,
    render,
    visibility,
)
from activation.trials.listing.model import ListedSkill, Listing
from tests.support.gemini_api import FakeGeminiAPI, GeminiRequest

RUN_TIMEOUT = 90.0
HEADING = "# Available Agent Skills"
LOCATION = re.compile(r"<location>.*/(?:skills|builtin)/(.*?)/SKILL\.md</location>")
CLOSE = "</available_skills>"


@dataclass(frozen=True)
class Spec:
    """A SKILL.md at `<root>/<folder>/SKILL.md`, its frontmatter as written."""

    folder: str
    frontmatter: str
    root: str = ".agents/skills"

    @property
    def text(self) -> str:
        return f"---\n{self.frontmatter}\n---\n\nBody of {self.folder}.\n"

    def listed(self) -> ListedSkill:
        fields = yaml.safe_load(self.frontmatter)
        return ListedSkill(
            id=self.folder,
            folder=self.folder,
            source="project",
            name=fields.get("name"),
            description=fields.get("description"),
        )


def first_request(gemini: Path, tmp: Path, specs: Sequence[Spec], model: str) -> GeminiRequest:
    """Install the skills, run the CLI once, return its first request."""
    tmp = tmp.resolve()
    home, work = tmp / "home", tmp / "work"
    for folder in (home / ".gemini", work, tmp / "tmp"):
        folder.mkdir(parents=True)
    for spec in specs:
        path = work / spec.root / spec.folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    with FakeGeminiAPI() as api:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "GEMINI_CLI_HOME": str(home),
            "TMPDIR": str(tmp / "tmp"),
            "GOOGLE_GEMINI_BASE_URL": api.base_url,
            "GEMINI_API_KEY": "standin-key",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        argv = [str(gemini), "-p", "Please help me.", "-m", model, "--output-format", "stream-json"]
        completed = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            cwd=work,
            env=env,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        requests = api.requests
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert requests, completed.stderr[-2000:]
    assert requests[0].model == model
    return requests[0]


def sent_listing(request: GeminiRequest) -> str:
    """The section of the system instruction that holds the listing, with the blank lines
    around it checked."""
    system = request.system
    start = system.index(HEADING)
    end = system.index(CLOSE, start) + len(CLOSE)
    assert system[start - 2 : start] == "\n\n" and system[end : end + 2] == "\n\n"
    return system[start:end]


def rendered(gemini: Path, tmp: Path, specs: Sequence[Spec], model: str) -> Listing:
    """What `render` makes of the skills, each skills folder in the CLI's order."""
    work = tmp.resolve() / "work"
    skills = {spec.folder: spec for spec in specs}
    ordered = [
        skill
        for root in (".gemini/skills", ".agents/skills")
        for skill in discovery_order([s.listed() for s in specs if s.root == root])
    ]
    return render(
        ordered,
        model,
        lambda skill: str(work / skills[skill.folder].root / skill.folder / "SKILL.md"),
        builtin_root=builtin_root(str(gemini)),
    )


SKILLS = (
    Spec("target-skill", "name: target-skill\ndescription: Use when the user asks for the target."),
    Spec("folder-x", "name: Named-X\ndescription: Its name is not its folder."),
    Spec("colon", 'name: "db:tune"\ndescription: A colon in the name becomes a dash.'),
    Spec("raw", "name: raw\ndescription: \"Kept <as> is & 'quoted', no escaping\""),
    Spec("block", "name: block\ndescription: |\n  Two lines,\n  kept as they are.\n"),
    Spec("folded", "name: folded\ndescription: >-\n  Folded into\n  one line."),
    Spec("nodesc", "name: nodesc"),
    Spec("Upper", "name: Upper\ndescription: An upper-case folder sorts before lower case."),
    Spec("a_under", "name: a_under\ndescription: Underscore after the dash."),
    Spec("a-dash", "name: a-dash\ndescription: Dash before the underscore."),
    Spec("a10", "name: a10\ndescription: Byte order, not number order."),
    Spec("a9", "name: a9\ndescription: Byte order, not number order."),
    Spec("ünï", "name: ünï\ndescription: Ünicode, sorted by its UTF-8 bytes."),
    *(
        Spec(f"many-{i:02d}", f"name: many-{i:02d}\ndescription: {'Long ' * 400}{i}")
        for i in range(24)
    ),
    Spec("gem-only", "name: gem-only\ndescription: From .gemini/skills.", root=".gemini/skills"),
    Spec("zz-both", "name: target-skill\ndescription: Replaced by .agents.", root=".gemini/skills"),
)
"""39 SKILL.md files, 2,000-character descriptions among them (no cut), one without a description
(not listed), and a `.gemini/skills` skill whose name the `.agents/skills` one replaces
(keeping the `.gemini` one's place)."""


@pytest.mark.parametrize(
    ("model", "wording"),
    [("gemini-3.1-pro-preview", "call the `activate_skill`"),
     ("gemini-2.5-pro", "you can call the `activate_skill`")],
    ids=["modern", "legacy"],
)  # fmt: skip
def test_the_listing_is_the_clis_own(
    gemini_cli: Path, tmp_path: Path, model: str, wording: str
) -> None:
    request = first_request(gemini_cli, tmp_path, SKILLS, model)
    expected = rendered(gemini_cli, tmp_path, SKILLS, model)
    sent = sent_listing(request)
    builtins = {"skill-creator", "antigravity-support"}
    ids = [folder if folder in builtins else folder.replace("zz-both", "target-skill")
           for folder in LOCATION.findall(sent)]  # fmt: skip
    assert sent == expected.text_in_order(ids)
    assert sorted(ids) == sorted(expected.ids)
    assert ids[:2] == ["skill-creator", "antigravity-support"]
    assert set(ids[2:4]) == {"target-skill", "gem-only"}  # .gemini/skills' places
    assert f"receive its detailed instructions, {wording}" in expected.text
    names = [entry.name for entry in expected.entries]
    assert names[:4] == ["skill-creator", "antigravity-support", "target-skill", "gem-only"]
    assert "nodesc" not in names and "db-tune" in names and len(names) == 2 + 37
    assert names.index("a9") < names.index("a10") < names.index("Upper")
    assert expected.entry("target-skill") is not None
    assert {entry.state for entry in expected.entries} == {"full"}
    # Headless with no policy rule the CLI removes the tool but keeps the listing: what
    # Stage B's one-rule policy file opens.
    assert "activate_skill" not in request.tool_names


def test_a_project_skill_replaces_the_users_copy_as_its_verdicts_say(
    gemini_cli: Path, tmp_path: Path
) -> None:
    """The same skill in `~/.agents/skills` and the workspace's `.agents/skills` (QA3 E29):
    the CLI lists the project's copy alone, in the user's copy's place, as the renderer
    does with the user's skills first, and the verdicts call the user's copy not listed."""
    user = tmp_path.resolve() / "home" / ".agents" / "skills" / "tdd" / "SKILL.md"
    user.parent.mkdir(parents=True)
    user.write_text("---\nname: tdd\ndescription: USER copy of tdd.\n---\n\nBody.\n")
    ours = Spec("tdd", "name: tdd\ndescription: PROJECT copy of tdd.")
    model = "gemini-3.1-pro-preview"
    sent = sent_listing(first_request(gemini_cli, tmp_path, [ours], model))
    mine = ListedSkill("tdd", "tdd", "user", "USER copy of tdd.", name="tdd")
    work = tmp_path.resolve() / "work"
    expected = render(
        [mine, ours.listed()],
        model,
        lambda skill: str(user if skill.source == "user" else work / ours.root / "tdd/SKILL.md"),
        builtin_root=builtin_root(str(gemini_cli)),
    )
    assert sent == expected.text
    assert "PROJECT copy of tdd." in sent and "USER copy" not in sent
    seen = visibility([ours.listed(), mine], expected)
    assert [item.state for item in seen] == ["full", "hidden"]
    assert seen[1].rule.startswith("a project skill of the same name ('tdd') replaces it: ")
