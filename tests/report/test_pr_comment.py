"""The GitHub Action's pull-request comment: its body, which comment is ours, update or post,
and the fork rule (pure functions, no request)."""

from __future__ import annotations

from typing import Any

import pytest

from activation.report.pr_comment import (
    Comment,
    Create,
    Leave,
    Update,
    comment_body,
    decide,
    from_fork,
    keyless_commands,
    missing_key,
    pull_number,
    shown_verdict,
    skipped_lines,
    verdict_of,
)

FOOTER = "activation 0.3.0: the run"


def body(verdict: str, text: str = "### ✅ activation changed: OK: every gate passed.") -> str:
    return comment_body(
        command="changed", verdict=verdict, exit_code=0, markdown=text, skipped=(), footer=FOOTER
    )


def test_the_body_is_the_marker_the_summary_and_the_footer() -> None:
    assert body("OK") == (
        "<!-- activation-pr-comment verdict=OK -->\n"
        "### ✅ activation changed: OK: every gate passed.\n"
        "\n"
        "<sub>activation 0.3.0: the run</sub>\n"
    )


def test_a_summary_too_long_for_a_comment_is_cut_and_says_where_the_rest_is() -> None:
    text = body("FAILED", "x" * 70_000)
    assert text == (
        "<!-- activation-pr-comment verdict=FAILED -->\n"
        + "x" * 60_000
        + "\n\n… (cut here: the job summary has the whole report)\n\n"
        "<sub>activation 0.3.0: the run</sub>\n"
    )
    assert body("FAILED", "x" * 60_000).count("x") == 60_000


def test_a_run_that_wrote_no_summary_says_its_exit_and_what_it_means() -> None:
    text = comment_body(
        command="changed", verdict="BAD-INPUT", exit_code=2, markdown=None, skipped=(), footer="f"
    )
    assert text.splitlines()[:2] == [
        "<!-- activation-pr-comment verdict=BAD-INPUT -->",
        "### ❌ `activation changed`: exit 2: bad input or settings, or the API refused the "
        "key: the log's one `error:` line says which; no model call was made.",
    ]


def test_a_skipped_gate_says_so_and_lists_what_it_skipped() -> None:
    skipped = skipped_lines(["changed", "--base", "git:origin/main"], fork=True)
    text = comment_body(command="changed", verdict="SKIPPED", exit_code=0, markdown=None,
                        skipped=skipped, footer="f")  # fmt: skip
    assert text == (
        "<!-- activation-pr-comment verdict=SKIPPED -->\n"
        "### ⏭️ activation: no model was called, the gate did not run\n"
        "\n"
        "**Skipped:**\n"
        "\n"
        "- `activation changed --base git:origin/main`: no API key (a pull request from a fork "
        "gets no secrets); ran `activation lint` and its `--dry-run` instead, which call no "
        "model. A maintainer can re-run it from a branch of this repository.\n"
        "\n"
        "<sub>f</sub>\n"
    )
    assert "the key input is empty" in skipped_lines(["changed"], fork=False)[0]


def test_verdicts_by_exit_code() -> None:
    assert [verdict_of(code) for code in (0, 1, 2, 3, 4, 130, 5)] == [
        "OK", "FAILED", "BAD-INPUT", "INCOMPLETE", "CRASHED", "INTERRUPTED", "EXIT-5",
    ]  # fmt: skip


def test_our_comment_is_found_by_its_marker_only_at_the_start() -> None:
    assert shown_verdict(body("FAILED")) == "FAILED"
    assert shown_verdict("quoting: <!-- activation-pr-comment verdict=OK -->") is None
    assert shown_verdict("LGTM") is None


def test_the_latest_comment_of_ours_is_updated_when_the_verdict_holds() -> None:
    comments = [Comment(5, body("OK", "old")), Comment(9, "LGTM"), Comment(12, body("OK", "x"))]
    assert decide(comments, body("OK")) == Update(12, body("OK"))


def test_a_new_comment_when_there_is_none_or_the_verdict_changed() -> None:
    assert decide([Comment(9, "LGTM")], body("OK")) == Create(body("OK"))
    assert decide([Comment(3, body("OK"))], body("FAILED")) == Create(body("FAILED"))
    changed_back = [Comment(3, body("OK")), Comment(4, body("FAILED"))]
    assert decide(changed_back, body("FAILED", "new")) == Update(4, body("FAILED", "new"))


def test_no_request_when_our_comment_already_says_it() -> None:
    assert decide([Comment(3, body("OK"))], body("OK")) == Leave(3)


def pull(head: str | None, base: str = "org/skills") -> dict[str, Any]:
    repo = None if head is None else {"full_name": head}
    return {"pull_request": {"number": 7, "head": {"repo": repo},
                             "base": {"repo": {"full_name": base}}}}  # fmt: skip


def test_the_fork_rule() -> None:
    assert not from_fork(pull("org/skills"))
    assert from_fork(pull("someone/skills"))
    assert from_fork(pull(None))
    assert not from_fork({"ref": "refs/heads/main"})
    assert pull_number(pull("org/skills")) == 7
    assert pull_number({"ref": "refs/heads/main"}) is None


@pytest.mark.parametrize(
    ("command", "environ", "missing"),
    [
        (["changed", "--base", "git:origin/main"], {}, True),
        (["changed", "--base", "git:origin/main"], {"ANTHROPIC_API_KEY": "sk"}, False),
        (["--real"], {"OPENAI_API_KEY": "sk"}, True),
        (["behavior", "--model", "mock"], {}, False),
        (["changed", "--model=mock"], {}, False),
        (["changed", "--model", "mock,openai:gpt-5.5"], {}, True),
        (["changed", "--model", "openai:gpt-5.5"], {"OPENAI_API_KEY": "sk"}, False),
        (["changed", "--dry-run"], {}, False),
        (["lint", "--strict"], {}, False),
        (["visibility"], {}, False),
    ],
)
def test_which_commands_miss_a_key(
    command: list[str], environ: dict[str, str], missing: bool
) -> None:
    assert missing_key(command, environ) is missing


def test_without_a_key_the_lint_and_the_dry_run_stand_in() -> None:
    assert keyless_commands(["changed", "--base", "git:origin/main"]) == [
        ["lint"], ["changed", "--base", "git:origin/main", "--dry-run"],
    ]  # fmt: skip
