"""`activation suggest` end to end: the CLI, the real SDK over real HTTP to the local
stand-in, real git. The stand-in routes by the description (a prompt goes to the menu entry
it shares the most content words with) and answers the proposer's requests from a script,
so which proposal wins, and what the holdback shows, follow from the descriptions alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from markupsafe import escape as html_escape

from activation import __version__
from activation.commands.main import main
from activation.inputs.lint import echo
from activation.inputs.load import load_cases
from activation.inputs.splits import assign_splits
from activation.inputs.suite import no_cases_message
from activation.inputs.words import content_words, words
from activation.report.markdown import escape
from tests.support.cli import one_line_error
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply, Text
from tests.support.skill_repo import (
    DISTRACTORS,
    SKILL_ID,
    SKILL_PATH,
    SkillRepo,
    SkillRepos,
    case,
    skill_text,
    write_cases,
    write_distractors,
)

CURRENT = "Use when issuing refunds."
GOOD = "Use when issuing refunds or handling customer chargebacks."
GREEDY = "Use when issuing refunds or drawing charts."
"""Takes the charts distractor's prompts: negatives of this skill, so it regresses."""
CASES = (
    [case(f"refund-{i}", f"issuing refunds quickly {i}", True, ["refunds"]) for i in range(15)]
    + [case(f"chargeback-{i}", f"customer chargebacks piling {i}", True, ["chargebacks"])
       for i in range(15)]
    + [case(f"chart-{i}", f"drawing charts weekly {i}", False, ["negative"]) for i in range(15)]
)  # fmt: skip


def routed(request: FakeRequest) -> Reply:
    """The menu entry sharing the most content words with the prompt (ties: by name), or
    none when no entry shares one."""
    prompt = set(words(request.prompt))
    overlap = {name: len(prompt & content_words(text)) for name, text in request.menu.items()}
    best = max(overlap.values(), default=0)
    return Answer(sorted(name for name, n in overlap.items() if n == best)[:1] if best else [])


class Proposer:
    """Scripted proposals per round (the round is told by the description it starts from)."""

    def __init__(self, echo: str) -> None:
        self.echo = echo
        self.asked: list[str] = []

    def __call__(self, request: FakeRequest) -> Reply:
        text = request.prompt
        self.asked.append(text)
        if GOOD in text:  # round 2 starts from the good one
            return proposals([GOOD.replace(" or ", ", or "), GOOD])
        return proposals([GOOD, CURRENT, GREEDY, f"Use when {self.echo}."])


def proposals(texts: list[str]) -> Reply:
    return Text(json.dumps({"descriptions": texts}))


def is_proposer(request: FakeRequest) -> bool:
    return "descriptions" in ((request.schema or {}).get("properties") or {})


@pytest.fixture
def search_suite(tmp_path: Path, repo: SkillRepo) -> Path:
    """The 45-case suite a whole search runs on: thousands of requests (marked slow)."""
    return write_cases(tmp_path / "cases.json", CASES)


def a_train_prompt(cases: Path) -> str:
    loaded = load_cases(cases).cases
    splits = assign_splits(loaded, SKILL_ID, 0)
    train = [c for c in loaded if c.id in splits.train and c.id.startswith("chargeback")]
    return train[0].prompt


def suggest(tmp_path: Path, cases: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "suggestion.json"
    out.unlink(missing_ok=True)
    code = main([
        "suggest", "--cases", str(cases), "--distractors", str(tmp_path / "distractors"),
        "--json", str(out), *flags,
    ])  # fmt: skip
    return code, orjson.loads(out.read_bytes()) if out.exists() else {}


def script(fake_api: FakeMessagesAPI, proposer: Proposer) -> None:
    fake_api.script = lambda request: proposer(request) if is_proposer(request) else routed(request)


def test_the_proposal_that_wins_on_select_is_scored_once_on_the_holdback(
    tmp_path: Path,
    search_suite: Path,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    echo = a_train_prompt(search_suite)
    proposer = Proposer(echo)
    script(fake_api, proposer)
    code, found = suggest(tmp_path, search_suite)
    shown = capsys.readouterr()
    out = shown.out
    assert code == 0, shown.err
    assert found["original"] == CURRENT
    assert found["chosen"] == GOOD
    assert found["stopped"] == "round 2 found nothing better"
    first, second = found["rounds"]
    assert first["chosen"] == GOOD and second["chosen"] is None
    assert second["failures"] == []
    assert [p["verdict"] for p in second["proposals"]] == [
        "not significantly better",
        "out: it is the current description",
    ]
    verdicts = {p["text"]: p["verdict"] for p in first["proposals"]}
    assert verdicts[GOOD] == "chosen"
    assert verdicts[CURRENT] == "out: it is the current description"
    held_charts = [i for i in found["splits"]["select"] if i.startswith("chart-")]
    assert verdicts[GREEDY] == f"out: REGRESSED {', '.join(held_charts)} ({found['cells'][0]})"
    assert verdicts[f"Use when {echo}."].startswith("out: ")
    assert "train prompt" in verdicts[f"Use when {echo}."]
    # the proposer is told the failures as categories, never the prompts' words
    told = proposer.asked[0]
    assert "chargebacks" in first["failures"][0]
    assert all(c["prompt"] not in told for c in CASES)
    # the holdback: the original against the chosen one, on cases no step saw
    holdback = found["holdback"]
    held = {entry["id"] for entry in holdback["cases"]}
    assert held == set(found["splits"]["holdback"])
    assert not held & set(found["splits"]["train"]) and not held & set(found["splits"]["select"])
    improved = {e["id"] for e in holdback["cases"] if e["status"] == "IMPROVED"}
    assert improved == {i for i in held if i.startswith("chargeback")}
    assert "On the holdback (prompts no step saw):" in out


def test_a_rerun_is_free_and_write_keeps_the_yaml_style(
    tmp_path: Path, search_suite: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    script(fake_api, Proposer(a_train_prompt(search_suite)))
    suggest(tmp_path, search_suite)
    sent = len(fake_api.requests)
    skill = repo.root / SKILL_PATH
    before = skill.read_text()
    code, found = suggest(tmp_path, search_suite, "--write")
    assert code == 0
    assert len(fake_api.requests) == sent  # every answer and every proposal from the cache
    assert found["usage"]["requests"] == 0
    after = skill.read_text()
    assert after == before.replace(f"description: {CURRENT}", f"description: {GOOD}")
    assert found["written"] == str(skill)


def test_no_better_proposal_keeps_the_description_and_says_so(
    tmp_path: Path,
    search_suite: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = lambda r: proposals([GREEDY]) if is_proposer(r) else routed(r)
    code, found = suggest(tmp_path, search_suite, "--write")
    out = capsys.readouterr()
    assert code == 0
    assert found["chosen"] == CURRENT and found["holdback"] is None
    assert found["stopped"] == "round 1 found nothing better"
    assert "No proposal beat the current description on the select split" in out.out
    assert "--write: nothing to write" in out.err
    assert (repo.root / SKILL_PATH).read_text().count(CURRENT) == 1


def test_a_suite_too_small_for_three_splits_is_exit_2_before_any_call(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    small = write_cases(tmp_path / "small.json", CASES[:4] + CASES[15:19] + CASES[30:34])
    code, found = suggest(tmp_path, small)
    line = one_line_error(capsys)
    assert code == 2
    assert line.startswith("activation suggest: error: the suite has 12 cases")
    assert fake_api.requests == []
    assert found == {  # the suggestion's own stop record, never a run's report
        "schema": "activation-suggestion/1",
        "version": __version__,
        "exit_code": 2,
        "error": line.removeprefix("activation suggest: error: "),
    }


def test_the_dry_run_estimates_the_whole_search(
    tmp_path: Path,
    search_suite: Path,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _found = suggest(tmp_path, search_suite, "--dry-run", "--rounds", "2", "--proposals", "3")
    out = capsys.readouterr().out
    assert code == 0
    assert fake_api.requests == []
    assert "Dry run: suggest for billing:refunds" in out
    assert "the whole search, 2 round(s) and the holdback: about $" in out
    assert "3 proposal(s) on the select split" in out


SIBLING = "plugins/payments/skills/disputes/SKILL.md"
GRABS = "Use when issuing refunds, or customer disputes opened, or any disputes."
"""Claims the sibling's prompts: it shares more of their words than the sibling does."""


def routing_cases() -> list[dict[str, Any]]:
    """Refunds and chargebacks for billing:refunds, disputes for its sibling, charts for
    the distractor: every case names where it belongs, whichever skill is measured."""
    owners = {"refund": SKILL_ID, "chargeback": SKILL_ID, "chart": "charts"}
    return [
        *(
            {k: v for k, v in {**c, "expect": owners[str(c["id"]).split("-")[0]]}.items()
             if k != "should_activate"}
            for c in CASES
        ),
        *(
            {"id": f"dispute-{i}", "prompt": f"customer disputes opened {i}",
             "expect": "billing:disputes", "why": "the sibling's", "tags": ["disputes"]}
            for i in range(15)
        ),
    ]  # fmt: skip


@pytest.fixture
def search_with_sibling(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> SkillRepo:
    """A plugin whose refunds skill has a disputes sibling, for a whole search (marked slow)."""
    made = skill_repo(
        CURRENT,
        root=tmp_path / "plugin-repo",
        files={SIBLING: skill_text("Use when answering customer disputes.", "disputes")},
    )
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    monkeypatch.chdir(made.root)
    return made


def test_a_proposal_that_takes_a_siblings_cases_is_out(
    tmp_path: Path, search_with_sibling: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    cases = write_cases(tmp_path / "routing.json", routing_cases())
    fake_api.script = lambda r: proposals([GRABS, GOOD]) if is_proposer(r) else routed(r)
    code, found = suggest(tmp_path, cases, "--skill", SKILL_ID, "--rounds", "1")
    assert code == 0
    verdicts = {p["text"]: p["verdict"] for p in found["rounds"][0]["proposals"]}
    assert verdicts[GOOD] == "chosen"
    assert verdicts[GRABS].startswith("out: REGRESSED dispute-")
    disputes = [e for e in found["holdback"]["cases"] if e["id"].startswith("dispute-")]
    assert disputes and all(e["status"] == "PASS" for e in disputes)  # no sibling lost one


def test_skill_picks_the_sibling_to_improve(
    tmp_path: Path,
    search_with_sibling: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases = write_cases(tmp_path / "routing.json", routing_cases())
    fake_api.script = lambda r: (
        proposals(["Use when answering disputes."]) if is_proposer(r) else routed(r)
    )
    code, found = suggest(tmp_path, cases, "--skill", "billing:disputes", "--rounds", "1")
    assert code == 0
    assert (found["skill"], found["original"]) == (
        "billing:disputes",
        "Use when answering customer disputes.",
    )
    assert found["skill_path"] == SIBLING
    capsys.readouterr()
    code, _found = suggest(tmp_path, cases, "--skill", "billing:nonesuch")
    assert code == 2
    assert one_line_error(capsys) == (
        "activation suggest: error: --skill billing:nonesuch: no skill of the set "
        "(billing:disputes, billing:refunds)"
    )


def test_every_output_says_the_headline(
    tmp_path: Path, search_suite: Path, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(fake_api, Proposer(a_train_prompt(search_suite)))
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    md, page = tmp_path / "s.md", tmp_path / "s.html"
    code, found = suggest(tmp_path, search_suite, "--markdown", str(md), "--html", str(page))
    assert code == 0
    held = [e for e in found["holdback"]["cases"]]
    right = sum(e["candidate"]["right"] for e in held)
    before = sum(e["baseline"]["right"] for e in held)
    line = (
        f"On the holdback (prompts no step saw): {right} of {len(held)} (case, cell) pairs right "
        f"with the chosen description, {before} with the original"
    )
    text = md.read_text()
    assert line.replace("(", "\\(").replace(")", "\\)") in text
    assert "~~refunds.~~ **refunds or handling customer chargebacks.**" in text.replace("\\", "")
    assert summary.read_text() == text + "\n"
    html = page.read_text()
    assert line in html
    assert "<ins>refunds or handling customer chargebacks.</ins>" in html
    assert "http://" not in html and "https://" not in html


def test_a_proposal_that_costs_one_cell_a_case_is_out(
    tmp_path: Path, search_suite: Path, fake_api: FakeMessagesAPI
) -> None:
    """Sonnet routes by words; Haiku, shown a description that names chargebacks, stops
    picking the skill for plain refunds: the proposal helps one cell and hurts the other."""
    haiku, sonnet = "claude-haiku-4-5", "claude-sonnet-4-6"

    def two_models(request: FakeRequest) -> Reply:
        if is_proposer(request):
            return proposals([GOOD])
        confused = request.model == haiku and "chargebacks" in request.menu.get(SKILL_ID, "")
        if confused and request.prompt.startswith("issuing refunds"):
            return Answer([])
        return routed(request)

    fake_api.script = two_models
    code, found = suggest(tmp_path, search_suite, "--model", f"{haiku},{sonnet}", "--rounds", "1")
    assert code == 0
    assert found["cells"] == [f"A/claude-code/{haiku}", f"A/claude-code/{sonnet}"]
    (judged,) = found["rounds"][0]["proposals"]
    refunds = [i for i in found["splits"]["select"] if i.startswith("refund-")]
    assert judged["verdict"] == f"out: REGRESSED {', '.join(refunds)} (A/claude-code/{haiku})"
    assert judged["regressed"] == [f"A/claude-code/{haiku}: {id}" for id in refunds]
    assert (judged["weakened"], judged["errors"], judged["rejected"]) == ([], [], None)
    assert found["chosen"] == CURRENT and found["holdback"] is None


def test_the_cost_ceiling_ends_the_search_and_fails_closed(
    tmp_path: Path,
    search_suite: Path,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script(fake_api, Proposer(a_train_prompt(search_suite)))
    code, found = suggest(tmp_path, search_suite, "--max-cost-usd", "0.05", "--write")
    out = capsys.readouterr()
    assert code == 3
    assert found["ceiling_hit"] is True
    assert found["holdback"] is None
    assert 0 < found["usage"]["cost_usd"] <= 0.05 + 0.01  # at most what was in flight past it
    assert found["stopped"] == "the cost ceiling was reached in round 1"
    assert found["chosen"] == CURRENT
    assert "--write: nothing to write, the description stays as it is" in out.err


@pytest.mark.parametrize(
    ("flag", "reason"),
    [
        (["--shard", "1/2"], "--shard: suggest runs each split whole, in one process"),
        (["--batch"], "--batch: suggest needs each run's answers before its next step; "
                      "--batch is for a run"),
        (["--fail-on", "weakened"], "--fail-on: a proposal is already out on any REGRESSED or "
                                    "WEAKENED case"),
    ],
)  # fmt: skip
def test_a_runs_flag_suggest_cannot_honour_is_one_line(
    tmp_path: Path,
    search_suite: Path,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
    flag: list[str],
    reason: str,
) -> None:
    code, _found = suggest(tmp_path, search_suite, *flag)
    assert code == 2
    assert one_line_error(capsys) == f"activation suggest: error: {reason}"
    assert fake_api.requests == []


def test_an_openai_model_can_propose(
    tmp_path: Path, search_suite: Path, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proposer through the Responses API (the classifier stays Claude): its request
    carries the instructions as input and the schema as a strict JSON-schema format."""
    from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest
    from tests.support.responses_api import Text as ResponsesText

    fake_api.script = routed
    asked: list[ResponsesRequest] = []

    def propose(request: ResponsesRequest) -> ResponsesText:
        asked.append(request)
        return ResponsesText(json.dumps({"descriptions": [GOOD]}))

    with FakeResponsesAPI(propose) as openai_api:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{openai_api.base_url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-SECRET-0123456789")
        code, found = suggest(
            tmp_path, search_suite, "--proposer", "openai:gpt-5.5", "--rounds", "1"
        )
    assert code == 0
    assert found["chosen"] == GOOD
    (request,) = asked
    assert request.body["model"] == "gpt-5.5"
    assert request.body["text"]["format"]["schema"]["required"] == ["descriptions"]
    assert CURRENT in request.prompt and "6 prompts tagged 'chargebacks'" in request.prompt
    assert not any(is_proposer(r) for r in fake_api.requests)  # no proposal asked of Claude


ECHOED = "Use when issuing refunds for returned orders."
"""A current description three prompts of the suite already echo (they copy its phrase)."""
GENERAL = (
    "Use when money goes back to a customer: issuing refunds for returned orders or chargebacks."
)
"""The clearly better rewrite: it keeps the echoed phrase and adds the chargebacks."""
CASES_40 = (
    [case(f"returned-{i}", f"issuing refunds for returned orders {i}", True, ["refunds"])
     for i in range(3)]
    + [case(f"refund-{i}", f"issuing refunds quickly {i}", True, ["refunds"]) for i in range(12)]
    + [case(f"chargeback-{i}", f"customer chargebacks piling {i}", True, ["chargebacks"])
       for i in range(13)]
    + [case(f"chart-{i}", f"drawing charts weekly {i}", False, ["negative"]) for i in range(12)]
)  # fmt: skip


def test_prompts_that_echo_the_current_description_rule_out_no_proposal_that_keeps_it(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    """40 cases, 3 of whose prompts echo the current description: each proposal keeps that
    description's phrase, so judged whole each would echo them. Judged on what it adds, the
    general rewrite wins, the greedy one is out on select, and the paste is still out."""
    repo.write_description(ECHOED)
    cases = write_cases(tmp_path / "cases.json", CASES_40)
    loaded = load_cases(cases).cases
    assert [echo(c.prompt, ECHOED) is not None for c in loaded] == [True] * 3 + [False] * 37
    splits = assign_splits(loaded, SKILL_ID, 0)
    train = [c.prompt for c in loaded if c.id in splits.train]
    assert {"returned-0", "returned-1"} <= set(splits.train)  # echoing prompts among train's
    pasted_prompt = next(p for p in train if p.startswith("customer chargebacks"))
    greedy = "Use when issuing refunds for returned orders or drawing charts."
    pasted = f"Use when issuing refunds for returned orders or {pasted_prompt}."
    fake_api.script = lambda r: (
        proposals([GENERAL, greedy, pasted]) if is_proposer(r) else routed(r)
    )
    code, found = suggest(tmp_path, cases, "--rounds", "1")
    assert code == 0
    assert found["original"] == ECHOED
    verdicts = {p["text"]: p["verdict"] for p in found["rounds"][0]["proposals"]}
    select_charts = [i for i in splits.select if i.startswith("chart-")]
    assert verdicts == {
        GENERAL: "chosen",
        greedy: f"out: REGRESSED {', '.join(select_charts)} ({found['cells'][0]})",
        pasted: f"out: it echoes train prompt {train.index(pasted_prompt) + 1} (it copies a "
        "phrase of its words)",
    }
    assert found["chosen"] == GENERAL


def test_a_model_on_an_openai_compatible_server_can_propose(
    tmp_path: Path, search_suite: Path, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proposer through a local server's Chat Completions (the classifier stays
    Claude): the instructions as the user message, the schema as the response format."""
    from tests.support.chat_api import Answer as ChatAnswer
    from tests.support.chat_api import ChatRequest, FakeChatAPI

    fake_api.script = routed
    asked: list[ChatRequest] = []

    def propose(request: ChatRequest) -> ChatAnswer:
        asked.append(request)
        return ChatAnswer(json.dumps({"descriptions": [GOOD]}))

    with FakeChatAPI(propose) as server:
        monkeypatch.setenv("ACTIVATION_OPENAI_COMPATIBLE_BASE_URL", server.base_url_v1)
        code, found = suggest(
            tmp_path, search_suite, "--proposer", "openai-compatible:qwen3", "--rounds", "1"
        )
    assert code == 0
    assert found["chosen"] == GOOD
    (request,) = asked
    assert request.body["model"] == "qwen3"
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["descriptions"]
    assert CURRENT in request.prompt and "6 prompts tagged 'chargebacks'" in request.prompt
    assert not any(is_proposer(r) for r in fake_api.requests)  # no proposal asked of Claude


def test_the_mock_proposes_offline_and_every_output_says_so(
    tmp_path: Path,
    search_suite: Path,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--proposer mock` runs the whole search with no key and no request: the mock adds the
    failing groups' tags and the body's words to the current description, and every output
    (terminal, JSON, Markdown, HTML) says the answers and the proposals are the mock's."""
    markdown, html = tmp_path / "suggestion.md", tmp_path / "suggestion.html"
    flags = ["--model", "mock", "--proposer", "mock", "--rounds", "1", "--max-cost-usd", "5"]
    outputs = ["--markdown", str(markdown), "--html", str(html)]
    code, found = suggest(tmp_path, search_suite, *flags, *outputs)
    out = capsys.readouterr().out
    notice = (
        "answers from the mock model (word overlap, offline): the verdicts show how the "
        "pipeline works and mean nothing about the real agent; the proposals are mock's too"
    )
    assert code == 0
    assert fake_api.requests == []
    assert (found["proposer"], found["notice"]) == ("mock", notice)
    (first,) = found["rounds"]
    assert first["failures"] == [
        "6 prompts tagged 'chargebacks' that should load billing:refunds went to none (missed)"
    ]
    assert [(p["text"], p["verdict"]) for p in first["proposals"]] == [
        ("Use when issuing refunds. Also for chargebacks, steps.", "not significantly better")
    ]
    assert found["usage"]["cost_usd"] == 0.0
    assert f"NOTE: {notice}" in " ".join(out.split())
    assert "cells: A/claude-code/mock; proposer: mock" in out
    assert f"> **Note:** {escape(notice)}" in markdown.read_text(encoding="utf-8")
    assert f"Note: {html_escape(notice)}" in html.read_text(encoding="utf-8")


def test_a_users_skill_is_never_tuned_on_the_bundled_suite(
    repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """No `--cases`: the bundled suite is auth0's, so suggesting from it would rewrite this
    skill for another vendor's prompts: one line, exit 2, before any request."""
    code = main(["suggest", "--model", "mock", "--proposer", "mock", "--skill", SKILL_ID])
    assert code == 2
    assert one_line_error(capsys) == f"activation suggest: error: {no_cases_message(SKILL_ID)}"
    assert fake_api.requests == []


@pytest.mark.parametrize("mock", [["--model", "mock"], ["--proposer", "mock"]])
def test_write_with_the_mock_is_refused_and_the_skill_md_stays(
    tmp_path: Path,
    search_suite: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
    mock: list[str],
) -> None:
    skill = repo.root / SKILL_PATH
    before = skill.read_text()
    code, found = suggest(tmp_path, search_suite, *mock, "--write")
    refused = (
        "--write: the mock's proposals and verdicts mean nothing about the real agent, so "
        "they are not written into SKILL.md: drop --write, or pass a real --model and "
        "--proposer"
    )
    assert (code, found["error"]) == (2, refused)
    assert one_line_error(capsys) == f"activation suggest: error: {refused}"
    assert skill.read_text() == before
    assert fake_api.requests == []
