"""`activation detect`: a saved transcript read with the very detector Stage B uses."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from tests.trials.agent.test_stream import SKILL, STREAMS
from tests.trials.agents.test_conformance import CAPTURES

REAL_READINGS = {name: outcome for name, (outcome, _) in CAPTURES["claude-code"].readings.items()}


def run_detect(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes = b"",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(["detect", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_detect_plain_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run_detect(
        [str(STREAMS / "skill.jsonl"), "--skill", SKILL], capsys, monkeypatch
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "reading: activated"
    assert out.splitlines()[1].startswith("reason: the agent called Skill 'auth0:auth0'")
    assert "evidence:" in out
    assert "  line 4: Skill 'auth0:auth0' succeeded: Launching skill: auth0:auth0" in out


@pytest.mark.parametrize(("name", "expected"), sorted(REAL_READINGS.items()))
def test_detect_json_for_every_fixture(
    name: str, expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run_detect(
        [str(STREAMS / name), "--skill", SKILL, "--json"], capsys, monkeypatch
    )
    assert code == 0  # any reading, errors included, exits 0
    data = orjson.loads(out)
    assert data["reading"] == expected
    assert data["reason"]
    assert isinstance(data["evidence"], list)
    assert data["skill"] == SKILL


def test_detect_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = (STREAMS / "text.jsonl").read_bytes()
    code, out, _ = run_detect(["-", "--skill", SKILL, "--json"], capsys, monkeypatch, stdin=stream)
    assert code == 0
    assert orjson.loads(out)["reading"] == "not_activated"


def test_detect_error_reading_exits_0_with_reason(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run_detect(
        [str(STREAMS / "plugin-load-error.jsonl"), "--skill", SKILL], capsys, monkeypatch
    )
    assert code == 0
    assert "reading: error" in out
    assert "corrupt manifest file" in out


@pytest.mark.parametrize(
    "content",
    [b"", b"hello world\nnot json\n", b'{"type": "result", "is_error": false}\n', b"[1]\n"],
    ids=["empty", "text", "no-init", "json-array"],
)
def test_detect_not_a_transcript_exits_2(
    content: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "file.jsonl"
    path.write_bytes(content)
    code, out, err = run_detect([str(path), "--skill", SKILL], capsys, monkeypatch)
    assert code == 2
    assert out == ""
    assert "not a" in err


def test_detect_missing_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run_detect([str(tmp_path / "nope.jsonl"), "--skill", SKILL], capsys, monkeypatch)
    assert code == 2
    assert "cannot read" in err


def test_detect_requires_skill(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, _ = run_detect([str(STREAMS / "skill.jsonl")], capsys, monkeypatch)
    assert code == 2
