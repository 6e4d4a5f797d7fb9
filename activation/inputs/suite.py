"""Where the bundled suite lives, and what it is for.

The real files sit at the top of the repository (`cases.json`, `distractors/<set>/`,
`calibration/controls/`); `activation/suite/` holds relative links to them, which setuptools
follows when it builds the wheel, so an installed package finds the same files.

Asking "would you invoke this skill?" with the target alone on the menu primes a yes and makes
every negative case meaningless, so a lone target is listed among distractor skills
(inputs/distractors.py). The auth0 set's are auth-adjacent on purpose: a near-miss negative
of the bundled suite then has a correct home to go to, and only a description that really
discriminates keeps the target out of it.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

BUNDLED_SUITE: Path = Path(str(importlib.resources.files("activation") / "suite"))
BUNDLED_CASES: Path = BUNDLED_SUITE / "cases.json"
BUNDLED_SKILL = "auth0:auth0"
"""The skill the bundled cases and the auth0 distractor set were written for."""
DISTRACTOR_SETS: dict[str, Path] = {
    name: BUNDLED_SUITE / "distractors" / name for name in ("auth0", "generic")
}
"""The bundled distractor sets by the name `--distractors` takes (inputs/distractors.py)."""
BUNDLED_CONTROLS: Path = BUNDLED_SUITE / "calibration"
"""The narrow and broad control descriptions `calibrate` compares the real one with."""


def suite_mismatch(written_for: str | None, skill_id: str, bundled: bool) -> str | None:
    """One line when the case matrix was written for another skill than the one measured."""
    if written_for is None or written_for in (skill_id, skill_id.rsplit(":", 1)[-1]):
        return None  # a file that names its skill by its folder name names it too
    if bundled:
        return (
            f"the bundled suite was written for {written_for}; "
            f"pass --cases and --distractors for {skill_id}"
        )
    return f"the cases file was written for {written_for}, not {skill_id}"


LOOKED = (
    "files named as cases (cases.json, *.cases.json, *trigger*eval*.json, "
    "*trigger*test*.yaml, *skill*test*.yaml) anywhere",
    "each skill's folder and its evals/",
    "evals/ and tests/ folders (.txt prompts in their prompts/ folders)",
    "beside the skill folders and at the repo's top",
)
"""Where `repo_cases.find_case_files` looks, in words, for the line that says so."""


def no_cases_message(skill_id: str) -> str:
    """Why a run without `--cases` refuses a skill other than the bundled one: the bundled
    cases measure auth0, and a verdict from them would say nothing about this skill."""
    return (
        f"no cases for {skill_id}: --cases was not given, none about it were found (looked in "
        f"{'; '.join(LOOKED)}), and the bundled suite is only for {BUNDLED_SKILL}; pass "
        f"--cases FILE with cases for {skill_id} (docs/formats.md)"
    )
