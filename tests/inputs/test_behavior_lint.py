"""Behavior cases are linted by the seeds' authoring rules, and a body's references checked."""

from __future__ import annotations

from activation._behavior import BehaviorCase
from activation.graders.judge import Judge
from activation.graders.matches import Matches
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.lint import (
    MANUAL,
    NO_JUDGE,
    NO_LEVEL,
    NO_POSITIVE,
    ON_LOAD,
    Finding,
    lint_behavior,
    unread_text,
)
from activation.inputs.references import (
    Around,
    Reference,
    missing_reference_lines,
    missing_references,
)

JUDGE: dict[str, object] = {"type": "judge", "question": "Right?"}


def case(*graders: dict[str, object]) -> BehaviorCase:
    return BehaviorCase("c", "c", "p", "s", graders=parse_graders(list(graders), "s"))


def test_a_sound_case_has_no_findings() -> None:
    sound = case({"type": "contains", "value": "a", "level": "L1"}, JUDGE)
    assert lint_behavior([sound]) == []


def test_every_rule() -> None:
    """Levels and the final judge are advice (warnings), as seed 002's own case files have
    neither; a case that can never pass is an error."""
    findings = lint_behavior(
        [
            case({"type": "contains", "value": "a"}, {"type": "not_contains", "value": "b"}),
            case({"type": "not_contains", "value": "b", "level": "L2"}, JUDGE | {"level": "L1"}),
            BehaviorCase("m", "m", "p", "s", expectations=("uses the SDK",)),
        ]
    )
    assert findings == [
        Finding("warning", "c", f"grader 1 (contains 'a') {NO_LEVEL}"),
        Finding("warning", "c", f"grader 2 (not_contains 'b') {NO_LEVEL}"),
        Finding("warning", "c", NO_JUDGE),
        Finding("warning", "c", NO_JUDGE),
        Finding("warning", "m", MANUAL),
    ]
    assert NO_LEVEL == (
        "has no level: every grader but a judge should have one of L1-L5 (outputs report it "
        "as unlevelled)"
    )
    only_negative = case({"type": "not_contains", "value": "b", "level": "L2"})
    assert lint_behavior([only_negative]) == [
        Finding("warning", "c", NO_JUDGE),
        Finding("error", "c", NO_POSITIVE),
    ]


def test_strict_makes_the_advice_errors_and_a_judge_needs_no_level() -> None:
    seeds = case({"type": "matches", "pattern": "Server", "description": "SDK"}, JUDGE, JUDGE)
    assert lint_behavior([seeds]) == [Finding("warning", "c", "grader 1 (SDK) " + NO_LEVEL)]
    assert lint_behavior([seeds], strict=True) == [
        Finding("error", "c", "grader 1 (SDK) " + NO_LEVEL)
    ]
    no_judge = case({"type": "contains", "value": "a", "level": "L1"})
    assert lint_behavior([no_judge], strict=True) == [Finding("error", "c", NO_JUDGE)]


def test_every_key_the_tool_does_not_use_is_named() -> None:
    unread = BehaviorCase("u", "u", "p", "s", expectations=("x",), unread=("notes", "weight"))
    assert lint_behavior([unread]) == [
        Finding("warning", "u", unread_text("notes")),
        Finding("warning", "u", unread_text("weight")),
        Finding("warning", "u", MANUAL),
    ]
    assert unread_text("notes") == (
        "its file's key 'notes' is not used by activation: it changes nothing in a run"
    )
    assert lint_behavior([unread], strict=True)[0].level == "error"


def test_a_key_many_cases_of_a_file_carry_is_said_once_with_the_count() -> None:
    """A skill-creator file whose 32 evals each carry a `category` is one line, not 32; a
    key one case of it carries, and another file's, are still said by case."""
    cases = [
        BehaviorCase(f"d-{n}", "d", "p", "evals/evals.json", expectations=("x",), unread=keys)
        for n, keys in enumerate((("category", "notes"), ("category",), ("category",)), 1)
    ]
    other = BehaviorCase("o", "o", "p", "other.json", expectations=("x",), unread=("category",))
    assert lint_behavior([*cases, other]) == [
        Finding(
            "warning",
            None,
            "evals/evals.json: the key 'category' of 3 cases is not used by activation: it "
            "changes nothing in a run",
        ),
        Finding("warning", "d-1", unread_text("notes")),
        Finding("warning", "d-1", MANUAL),
        Finding("warning", "d-2", MANUAL),
        Finding("warning", "d-3", MANUAL),
        Finding("warning", "o", unread_text("category")),
        Finding("warning", "o", MANUAL),
    ]
    assert lint_behavior(cases, strict=True)[0].level == "error"


def test_a_pattern_built_in_code_is_compiled_too() -> None:
    bad = BehaviorCase(
        "r",
        "r",
        "p",
        "s",
        graders=(
            Matches(description="m", level="L1", pattern="("),
            Judge(description="j", question="q"),
        ),
    )
    assert lint_behavior([bad]) == [
        Finding(
            "error",
            "r",
            "grader 1: the pattern '(' is not a valid regular expression "
            "(missing ), unterminated subpattern at position 0)",
        )
    ]


SKILL_FILES = {"references/api.md", "references/v1.md", "scripts/check.py", "FORMS.md"}
BODY = """# greetlib

Read [the API](references/api.md) and [forms](FORMS.md#fields), and
![diagram](assets/flow.png "Flow"). Older: [v1](./references/v1.md).
See [the docs](https://example.org/greetlib.md), [top](#greetlib), [root](/etc/x.md),
[mail](mailto:a@b.c), [parent](../shared/common.md) and [refs](references/).

| Framework | File |
|---|---|
| Django | references/django.md |
| Flask | `references/flask.md`, references/api.md |

Run `scripts/check.py` then `scripts/missing.sh`; edit `src/app.py` and `package.json`.
Call `greetlib.greet()`.

```bash
cat references/in-a-fence.md
```

[defined]: references/defined.md
[ok]: <references/api.md>
"""


def test_missing_references_lists_every_file_the_body_names_that_is_not_there() -> None:
    assert missing_references(BODY, SKILL_FILES) == (
        "assets/flow.png",
        "references/django.md",
        "references/flask.md",
        "scripts/missing.sh",
        "references/defined.md",
    )


def test_a_body_whose_files_all_exist_misses_nothing() -> None:
    body = "See [api](references/api.md) and `scripts/check.py`.\n| x | references/v1.md |\n"
    assert missing_references(body, SKILL_FILES) == ()


def test_any_folder_of_the_skill_counts_for_backticked_paths() -> None:
    assert missing_references("Use `guides/setup.md`.", {"guides/intro.md"}) == ("guides/setup.md",)
    assert missing_references("Use `guides/setup.md`.", set()) == ()
    assert missing_references("[a](my%20notes/a%20b.md)", {"my notes/a b.md"}) == ()


def test_a_link_inside_a_code_span_or_a_fence_is_an_example_not_a_reference() -> None:
    body = (
        "- `[markdown](links)` to journal entries\n"
        "Use relative markdown links ``[text](path.md)`` in notes.\n"
        "~~~md\n[x](fenced.md)\n~~~\n"
        "But [real](gone.md) is one.\n"
    )
    assert missing_references(body, set()) == ("gone.md",)


def test_a_link_inside_a_quoted_example_is_not_certain() -> None:
    body = (
        '- Link to references: "For API details, see [reference.md](references/api-guide.md)"\n'
        "> Write [the guide](references/guide.md) like this.\n"
        "Say \u201cread [setup](references/setup.md)\u201d.\n"
        'The "Setup" page is [setup](references/real.md).\n'
    )
    assert missing_reference_lines(body, set()) == (
        Reference("references/api-guide.md", 1, None, "skill", certain=False, quoted=True),
        Reference("references/guide.md", 2, None, "skill", certain=False, quoted=True),
        Reference("references/setup.md", 3, None, "skill", certain=False, quoted=True),
        Reference("references/real.md", 4, None, "skill", certain=True),
    )


def test_each_missing_reference_names_its_line_and_a_file_that_differs_in_case() -> None:
    body = (
        "Intro.\n\n```\n[x](a.md)\n```\nSee REFERENCE.md and `scripts/run.sh`.\n"
        "read FORMS.md; every skill.md has frontmatter\n"
    )
    files = {"reference.md", "FORMS.md", "SKILL.md"}
    assert missing_reference_lines(body, files) == (
        Reference("REFERENCE.md", 6, "reference.md"),
        Reference("scripts/run.sh", 6, None, "skill", certain=False),
    )


def test_a_placeholder_path_is_the_skills_or_the_plugins_file_and_other_variables_are_left() -> (
    None
):
    """trailofbits/skills links `{baseDir}/references/x.md` (the "Base directory for this
    skill" Claude Code heads the body with) and runs `${CLAUDE_PLUGIN_ROOT}/scripts/x`
    (Claude Code fills in the plugin's root); a root only the run knows is not checked."""
    body = (
        "Read [a]({baseDir}/references/a.md) and [b]({baseDir}/references/gone.md).\n"
        "Run `${CLAUDE_SKILL_DIR}/scripts/check.py`, `${CLAUDE_PLUGIN_ROOT}/scripts/plan.py`\n"
        "and [c](${CLAUDE_PLUGIN_ROOT}/scripts/gone.py); `${SKILL_ROOT}/references/t.md`,\n"
        "[d](${C_REVIEW_PLUGIN_ROOT}/scripts/x.py), [e](${CLAUDE_PROJECT_DIR}/notes.md).\n"
    )
    plugin = Around(plugin={"scripts/plan.py", "references/gone.md"}.__contains__)
    assert missing_reference_lines(body, SKILL_FILES | {"references/a.md"}, plugin) == (
        Reference("{baseDir}/references/gone.md", 1, None, "skill", certain=True),
        Reference("${CLAUDE_PLUGIN_ROOT}/scripts/gone.py", 3, None, "plugin", certain=True),
    )
    assert missing_references("`${CLAUDE_PLUGIN_ROOT}/scripts/plan.py`", set()) == (
        "${CLAUDE_PLUGIN_ROOT}/scripts/plan.py",
    )


def test_a_path_at_the_plugins_or_the_projects_root_is_not_missing() -> None:
    """A plugin's `scripts/` beside its `skills/`, a project's `assets/` for a skill of its
    `.claude/skills/`: the agent finds them, so only what is nowhere is said."""
    body = (
        "Plan with `scripts/build_run_plan.py`; see `agents/worker.md` and [w](agents/w.md).\n"
        "Brand from `assets/branding/brand-config.json`; run `scripts/fetch.js`.\n"
    )
    around = Around(
        plugin={"scripts/build_run_plan.py", "agents/worker.md", "agents/w.md"}.__contains__,
        project={"assets/branding/brand-config.json"}.__contains__,
    )
    assert missing_reference_lines(body, {"agents/own.md"}, around) == (
        Reference("scripts/fetch.js", 2, None, "skill", certain=False),
    )
    assert missing_references(body, {"agents/own.md"}) == (
        "scripts/build_run_plan.py",
        "agents/worker.md",
        "agents/w.md",
        "assets/branding/brand-config.json",
        "scripts/fetch.js",
    )


def test_only_a_link_or_a_case_twin_surely_means_a_file_of_the_skill() -> None:
    """A path in a code span or a table may be a file of the user's project ("Delegate to
    scripts (`./scripts/build.sh`)") or of another skill ("the SDK skill's
    `references/tracing.md`"); a link, or a name a skill file has in another case, is the
    skill's."""
    body = (
        "| Complex logic | Delegate to scripts (`./scripts/build.sh`) |\n"
        "| Django | references/django.md |\n"
        "See the SDK skill's `references/tracing.md`, [api](references/gone.md) and\n"
        "`scripts/CHECK.py`.\n"
    )
    assert [
        (found.path, found.line, found.certain)
        for found in missing_reference_lines(body, SKILL_FILES)
    ] == [
        ("scripts/build.sh", 1, False),
        ("references/django.md", 2, False),
        ("references/tracing.md", 3, False),
        ("references/gone.md", 3, True),
        ("scripts/CHECK.py", 4, True),
    ]


def test_a_code_path_another_skill_beside_it_has_is_that_skills_file() -> None:
    """ "see the matching SDK skill's `references/tracing.md`": a sibling's file, not this
    skill's; a link to it is still this skill's (the agent reads it relative to the skill)."""
    body = "See the SDK skill's `references/tracing.md`, and [t](references/tracing.md).\n"
    sibling = Around(sibling={"references/tracing.md"}.__contains__)
    assert missing_reference_lines(body, set(), sibling) == (
        Reference("references/tracing.md", 1, None, "skill", certain=True),
    )
    assert missing_reference_lines(body.split(", and")[0], set(), sibling) == ()


def test_a_link_to_a_file_the_skill_has_the_agent_write_is_not_certain() -> None:
    """microsoft/skills' wiki-onboarding lists the guides it generates in a fenced tree and
    links them from the index page it has the agent write: pages of the user's project.
    A link named after "write" is one too; a `references/` link stays the skill's."""
    body = (
        "Generate a folder with these files:\n"
        "```\nguide/\n├── index.md\n└── contributor-guide.md   # for contributors\n```\n"
        "| Guide | Audience |\n|---|---|\n"
        "| [Contributor Guide](./contributor-guide.md) | New contributors |\n"
        "Write the summary to [the summary](summary.md); see [api](references/api-guide.md).\n"
        "Read [setup](setup.md) to create a skill, and [gone](references/index.md).\n"
    )
    assert missing_reference_lines(body, set()) == (
        Reference("contributor-guide.md", 9, None, "skill", certain=False, output=True),
        Reference("summary.md", 10, None, "skill", certain=False, output=True),
        Reference("references/api-guide.md", 10, None, "skill", certain=True),
        Reference("setup.md", 11, None, "skill", certain=True),
        Reference("references/index.md", 11, None, "skill", certain=True),
    )


def skill_case(*graders: dict[str, object]) -> BehaviorCase:
    return BehaviorCase("c", "c", "p", "s", graders=parse_graders([*graders, JUDGE], "s"),
                        skills=("pdf-tools:pdf",))  # fmt: skip


def test_a_trajectory_grader_the_load_alone_passes_is_an_error() -> None:
    """Each passes on every trial where the skill merely loaded (Claude Code's Skill call,
    Gemini CLI's activate_skill, Codex's `cat` of SKILL.md): it checks the load."""
    vacuous: list[dict[str, object]] = [
        {"type": "tool_used", "name": "Skill"},
        {"type": "tool_used", "name": "activate_skill", "input": '"name":"pdf"'},
        {"type": "command_ran", "pattern": r"SKILL\.md"},
        {"type": "file_read", "file_pattern": "SKILL.md"},
        {"type": "file_read", "file_pattern": "pdf/*.md"},
    ]
    for raw in vacuous:
        (grader,) = parse_graders([raw], "s")
        assert lint_behavior([skill_case(raw | {"level": "L4"})]) == [
            Finding("error", "c", f"grader 1 ({grader.description}) {ON_LOAD}")
        ], raw
    assert ON_LOAD == (
        "passes when the skill is merely loaded (its load tool, or a read of its SKILL.md): it "
        "checks the load, which every trial records already, not that the agent followed the "
        "skill"
    )


def test_a_trajectory_grader_of_what_the_body_asks_is_sound() -> None:
    sound: list[dict[str, object]] = [
        {"type": "tool_used", "name": "Skill", "input": "other-skill"},
        {"type": "tool_used", "name": "Bash", "input": "validate"},
        {"type": "command_ran", "pattern": r"scripts/validate\.py"},
        {"type": "file_read", "file_pattern": "references/*.md"},
    ]
    for raw in sound:
        assert lint_behavior([skill_case(raw | {"level": "L4"})]) == [], raw


def test_a_negative_trajectory_grader_alone_is_an_error() -> None:
    """Each passes with the skill not loaded and nothing done, so alone it is void in
    every trial: the case can never pass."""
    for raw in (
        {"type": "tool_not_used", "name": "WebFetch"},
        {"type": "command_not_ran", "pattern": "rm -rf"},
        {"type": "max_turns", "max": 5},
        {"type": "max_tool_calls", "max": 9},
    ):
        alone = BehaviorCase(
            "c", "c", "p", "s", graders=parse_graders([raw | {"level": "L4"}], "s")
        )
        assert lint_behavior([alone]) == [
            Finding("warning", "c", NO_JUDGE),
            Finding("error", "c", NO_POSITIVE),
        ], raw
