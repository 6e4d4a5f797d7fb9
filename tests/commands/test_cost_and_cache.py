"""Cost, the ceiling and the response cache end to end: the CLI, the real SDK, real HTTP to
the local stand-in, the cache on disk."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from activation.store import cache_info
from tests.support.cli import STATUS_CASES, by_id, run
from tests.support.messages_api import FakeMessagesAPI, PromptCache, estimate_tokens
from tests.support.scripted_model import refunds_fire
from tests.support.skill_repo import SKILL_ID, SkillRepo, case

CASES = [
    case("refund", "refund order 1234", True),
    case("charts", "plot monthly revenue", False),
]


def sonnet_cost(report: dict) -> float:
    """Tokens times the list prices of claude-sonnet-5-5 per million: $2 in, $10 out, $2.50
    a cache write, $0.20 a cache read."""
    usage = report["usage"]
    return (
        usage["input_tokens"] * 2
        + usage["output_tokens"] * 10
        + usage["cache_write_tokens"] * 2.5
        + usage["cache_read_tokens"] * 0.2
    ) / 1_000_000


def test_a_warm_rerun_sends_no_request_and_says_so(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = refunds_fire
    code, cold = run(tmp_path, CASES, "--max-trials", "3")
    assert code == 0
    assert len(fake_api.message_requests) == 12
    assert cold["usage"]["requests"] == 12
    assert cold["usage"]["from_cache"] == 0
    assert cold["usage"]["cost_usd"] == pytest.approx(sonnet_cost(cold))
    assert cold["usage"]["cost_usd"] > 0
    assert cold["usage"]["cache_read_tokens"] > 0  # the listing is a cached prefix
    assert all(not t["cached"] for entry in cold["cases"] for t in entry["trials"])
    assert cache_info(cache_dir).entries == 12
    capsys.readouterr()

    fake_api.clear()
    code, warm = run(tmp_path, CASES, "--max-trials", "3")
    out = capsys.readouterr().out
    assert code == 0
    assert fake_api.message_requests == []
    assert warm["usage"] == {
        "requests": 0,
        "from_cache": 12,
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_write_tokens": 0,
        "cache_read_tokens": 0,
        "cost_usd": 0.0,
        "throttled": 0,
    }
    assert all(t["cached"] for entry in warm["cases"] for t in entry["trials"])
    assert [e["status"] for e in warm["cases"]] == [e["status"] for e in cold["cases"]]
    assert "12 trial(s) from the cache (no request, no cost)" in out

    code, fresh = run(tmp_path, CASES, "--max-trials", "3", "--no-cache")
    assert (code, fresh["usage"]["requests"], fresh["usage"]["from_cache"]) == (0, 12, 0)
    assert len(fake_api.message_requests) == 12


def test_a_changed_candidate_reuses_only_the_baseline(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = refunds_fire
    run(tmp_path, CASES, "--max-trials", "3")
    repo.write_description("Use when issuing refunds or credits.")
    fake_api.clear()
    code, report = run(tmp_path, CASES, "--max-trials", "3")
    assert code == 0
    assert report["usage"]["from_cache"] == 6  # the baseline side: git:HEAD did not change
    assert len(fake_api.message_requests) == 6
    assert {r.menu[SKILL_ID] for r in fake_api.message_requests} == {
        "Use when issuing refunds or credits."
    }
    for entry in report["cases"]:
        assert {t["variant"] for t in entry["trials"] if t["cached"]} == {"baseline"}


def test_a_ttl_of_zero_and_another_folder_miss(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = refunds_fire
    run(tmp_path, CASES, "--max-trials", "3")
    fake_api.clear()
    _code, expired = run(tmp_path, CASES, "--max-trials", "3", "--cache-ttl", "0s")
    assert expired["usage"]["from_cache"] == 0
    other = tmp_path / "other-cache"
    _code, elsewhere = run(tmp_path, CASES, "--max-trials", "3", "--cache-dir", str(other))
    assert elsewhere["usage"]["from_cache"] == 0
    assert cache_info(other).entries == 12
    assert len(fake_api.message_requests) == 24


def test_cache_info_and_clear(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = refunds_fire
    run(tmp_path, CASES, "--max-trials", "3")
    capsys.readouterr()
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"folder: {cache_dir}"
    assert out[1] == "entries: 12"
    assert out[2].startswith("size: ")
    assert main(["cache", "clear", "--older-than", "30d"]) == 0
    assert capsys.readouterr().out.startswith("removed 0 entries older than")
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.strip() == f"removed 12 entries from {cache_dir}"
    assert main(["cache", "info", "--cache-dir", str(tmp_path / "none")]) == 0
    assert "entries: 0" in capsys.readouterr().out
    assert main(["cache", "clear", "--older-than", "soon"]) == 2
    assert main(["cache"]) == 2


def test_the_ceiling_stops_the_run_with_exit_3(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = refunds_fire
    fake_api.prompt_cache = PromptCache(min_tokens=10**9)  # nothing cached: equal trials
    # Measure one trial's cost, then allow about 4.5 of them, one trial at a time.
    _code, probe = run(tmp_path, CASES[:1], "--trials", "1", "--max-trials", "1", "--no-cache")
    assert probe["usage"]["requests"] == 2
    per_trial = probe["usage"]["cost_usd"] / 2
    ceiling = per_trial * 4.5
    fake_api.clear()
    capsys.readouterr()
    code, report = run(
        tmp_path, CASES, "--max-trials", "3", "--concurrency", "1", "--no-cache",
        "--max-cost-usd", f"{ceiling:.10f}",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 3
    assert report["ceiling_hit"] is True
    assert report["max_cost_usd"] == pytest.approx(ceiling)
    assert len(fake_api.message_requests) == 4
    assert report["usage"]["cost_usd"] <= ceiling
    errors = [t["error"] for e in report["cases"] for t in e["trials"] if t["reading"] == "error"]
    assert errors == ["cost ceiling"] * 8
    assert report["summary"]["errors"] == ["refund", "charts"]
    assert "cost ceiling" in out
    assert f"cost ceiling ${ceiling:g} reached" in out


def test_an_unknown_model_has_an_unknown_cost_and_cannot_have_a_ceiling(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = refunds_fire
    code, report = run(tmp_path, CASES, "--trials", "1", "--model", "claude-nonesuch-1")
    out = capsys.readouterr().out
    assert code == 0
    assert report["usage"]["cost_usd"] is None
    assert report["cases"][0]["trials"][0]["usage"]["cost_usd"] is None
    assert "cost unknown (no price for claude-nonesuch-1" in out
    fake_api.clear()
    code, report = run(tmp_path, CASES, "--model", "claude-nonesuch-1", "--max-cost-usd", "1")
    assert code == 2
    assert report["error"] == (
        "cannot enforce a cost ceiling: no price for claude-nonesuch-1: "
        "pass --price-in and --price-out"
    )
    assert fake_api.message_requests == []
    code, report = run(
        tmp_path, CASES, "--trials", "1", "--model", "claude-nonesuch-1", "--no-cache",
        "--price-in", "1", "--price-out", "5",
    )  # fmt: skip
    usage = report["usage"]
    assert usage["cost_usd"] == pytest.approx(
        (
            usage["input_tokens"] * 1
            + usage["output_tokens"] * 5
            + usage["cache_write_tokens"] * 1.25
            + usage["cache_read_tokens"] * 0.1
        )
        / 1_000_000
    )
    assert report["pricing"]["override"] == {
        "input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.1,
    }  # fmt: skip


def test_dry_run_estimates_the_cost_from_characters_without_a_key(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run")
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "cost at list prices of 2026-11-30; the listing cached, 8 prefix(es) written once: "
        "first round $"
    ) in out
    assert "(every case escalated to 30 trials)" in out
    assert "input tokens (estimated from characters / 4: no API key to count with)" in out


def test_a_dry_run_with_a_key_but_no_api_estimates_from_characters(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An API that cannot be reached is found by one connection, before any count (the SDK
    would retry each for seconds); an API that answers an error reaches the dry run wrapped
    in an exception group (counting is a task group). Either is a reason to count
    characters, not a crash."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-SECRET-0123456789")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
    for proxy in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run")
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "input tokens (estimated from characters / 4: token counting failed (the API could "
        "not be reached))"
    ) in out
    with FakeMessagesAPI() as api:  # every path under /elsewhere is a 404
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"{api.base_url}/elsewhere")
        code, _report = run(tmp_path, STATUS_CASES, "--dry-run")
    out = capsys.readouterr().out
    assert code == 0
    assert {(r.method, r.path) for r in api.requests} == {
        ("POST", "/elsewhere/v1/messages/count_tokens")  # the first 404 cancels the others
    }
    assert "input tokens (estimated from characters / 4: token counting failed (HTTP 404))" in out


def test_dry_run_counts_tokens_with_a_key(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _report = run(tmp_path, CASES, "--dry-run", "--batch")
    out = capsys.readouterr().out
    counted = [r for r in fake_api.requests if r.path == "/v1/messages/count_tokens"]
    assert code == 0
    assert fake_api.message_requests == []
    assert len(counted) == 4  # one per case and variant
    tokens = [estimate_tokens({k: r.body.get(k) for k in ("system", "messages", "tools")})
              for r in counted]  # fmt: skip
    mean = sum(tokens) / len(tokens)
    per_trial = (mean * 2 + 100 * 10) / 1_000_000 * 0.5
    assert f"first round ${per_trial * 12:,.4f}" in out
    assert f"worst case ${per_trial * 2 * 2 * 30:,.4f}" in out
    assert "at the batch discount (half)" in out
    assert (
        f"per trial about {mean:,.0f} input tokens (counted by the token-counting endpoint)" in out
    )


def test_a_cached_report_reads_back(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    from activation.report.codec import parse_report, report_json

    fake_api.script = refunds_fire
    run(tmp_path, CASES, "--trials", "1")
    run(tmp_path, CASES, "--trials", "1")
    saved = (tmp_path / "report.json").read_bytes()
    assert report_json(parse_report(orjson.loads(saved), "r"), full=True) == saved
    assert by_id(orjson.loads(saved))["refund"]["trials"][0]["cached"] is True
