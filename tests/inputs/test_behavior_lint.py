"""Behavior cases are linted by the seeds' authoring rules, and a body's references checked."""

from __future__ import annotations

from activation._behavior import BehaviorCase, Grader
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.behavior_lint import (
    MANUAL,
    NO_JUDGE,
    NO_POSITIVE,
    lint_behavior,
    missing_references,
)
from activation.inputs.lint import Finding

JUDGE: dict[str, object] = {"type": "judge", "question": "Right?"}


def case(*graders: dict[str, object]) -> BehaviorCase:
    return BehaviorCase("c", "c", "p", "s", graders=parse_graders(list(graders), "s"))


def test_a_sound_case_has_no_findings() -> None:
    sound = case({"type": "contains", "value": "a", "level": "L1"}, JUDGE)
    assert lint_behavior([sound]) == []


def test_every_rule() -> None:
    findings = lint_behavior(
        [
            case({"type": "contains", "value": "a"}, {"type": "not_contains", "value": "b"}),
            case({"type": "not_contains", "value": "b", "level": "L2"}, JUDGE | {"level": "L1"}),
            BehaviorCase("m", "m", "p", "s", expectations=("uses the SDK",)),
        ]
    )
    assert findings == [
        Finding(
            "error",
            "c",
            "grader 1 (contains 'a') has no level: every grader but the final judge needs "
            "one of L1-L5",
        ),
        Finding("warning", "c", NO_JUDGE),
        Finding("warning", "c", NO_JUDGE),
        Finding("warning", "m", MANUAL),
    ]
    only_negative = case({"type": "not_contains", "value": "b", "level": "L2"})
    assert lint_behavior([only_negative]) == [
        Finding("warning", "c", NO_JUDGE),
        Finding("error", "c", NO_POSITIVE),
    ]


def test_a_pattern_built_in_code_is_compiled_too() -> None:
    bad = BehaviorCase(
        "r",
        "r",
        "p",
        "s",
        graders=(Grader("matches", "m", "L1", pattern="("), Grader("judge", "j", question="q")),
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
