"""Project settings: `activation.toml` or `[tool.activation]`, `ACTIVATION_*` variables and
the command line, in that rising order; every key from the flags; every error exit 2.

In-process on the in-memory fake (`FakeStages` records the spec each run asked for).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pytest

from activation import _config
from activation._errors import InputError
from activation._models import RunSpec, Setting
from activation.commands.config import configurable_keys, env_name, resolve
from activation.commands.flags import (
    BEHAVIOR,
    CALIBRATE,
    CHANGED,
    INTEGER,
    LINT,
    NUMBER,
    PATH,
    RUN,
    SUGGEST,
    VISIBILITY,
    Flag,
    positive_float,
    switch,
)
from activation.commands.main import main
from activation.inputs.load import load_pricing
from activation.trials.agents import every
from tests.commands.test_run import model
from tests.support.cli import STATUS_CASES, one_line_error, read_report
from tests.support.fake_stages import FakeStages
from tests.support.skill_repo import SkillRepo, write_cases

TWO_CASES = STATUS_CASES[:2]


@pytest.fixture
def suite(tmp_path: Path, repo: SkillRepo) -> SkillRepo:
    """The repo with its cases and distractors inside it, where a settings file names them."""
    (repo.root / "activation").mkdir()
    write_cases(repo.root / "activation" / "cases.json", TWO_CASES)
    (tmp_path / "distractors").rename(repo.root / "activation" / "distractors")
    return repo


def settings_rows(out: str) -> dict[str, tuple[str, str]]:
    """key -> (value, source) from the `--dry-run` settings table."""
    rows = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) == 3 and cells[0] not in ("key", ""):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def test_command_line_then_environment_then_file_then_default(
    suite: SkillRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = suite.write(
        "activation.toml",
        'cases = "activation/cases.json"\ndistractors = "activation/distractors"\n'
        'trials = 4\nseed = 7\nalpha = 0.1\nmodel = "file-model"\n',
    )
    monkeypatch.setenv("ACTIVATION_SEED", "8")
    monkeypatch.setenv("ACTIVATION_ALPHA", "0.2")
    monkeypatch.setenv("ACTIVATION_NOT_A_SETTING", "ignored: another version's key")
    backends = model()
    assert main(["--dry-run", "--alpha", "0.3"], backends) == 0
    rows = settings_rows(capsys.readouterr().out)
    assert rows["trials"] == ("4", str(settings))
    assert rows["model"] == ("file-model", str(settings))
    assert rows["cases"] == (str(suite.root / "activation" / "cases.json"), str(settings))
    assert rows["seed"] == ("8", "ACTIVATION_SEED")
    assert rows["alpha"] == ("0.3", "command line")
    assert rows["dry-run"] == ("true", "command line")
    # cache-dir and sandbox come from ACTIVATION_CACHE_DIR and ACTIVATION_SANDBOX, which
    # every test sets (tests/conftest.py).
    assert rows["sandbox"] == ("host", "ACTIVATION_SANDBOX")
    assert set(rows) == {
        "cases",
        "distractors",
        "trials",
        "model",
        "seed",
        "alpha",
        "dry-run",
        "cache-dir",
        "sandbox",
    }
    assert main(["--dry-run", "--verbose"], backends) == 0
    rows = settings_rows(capsys.readouterr().out)
    assert rows["concurrency"] == ("-", "default")
    assert rows["max-turns"] == (str(_config.MAX_TURNS), "default")
    assert rows["baseline"] == (_config.BASELINE, "default")
    assert set(rows) == {
        "repo", "skill-path", "cases", "cases-format", "distractors", "catalog", "trials",
        "max-trials", "model",
        "seed", "alpha", "concurrency", "agent", "fail-on", "min-coverage", "json", "real",
        *(agent.command for agent in every()), "sandbox", "no-canary", "executor", "image",
        "max-turns", "timeout",
        "baseline",
        "candidate", "only", "only-from", "full-record", "junit", "markdown", "html", "against",
        "no-summary", "show",
        "dry-run",
        "simulate", "verbose", "show-listing", "debug", "shard", "durations", "batch", "resume",
        "cache-dir",
        "no-cache",
        "cache-ttl", "price-in", "price-out", "max-cost-usd",
    }  # fmt: skip
    prepared = backends.prepared[0]
    assert prepared.spec == RunSpec(
        model="file-model",
        trials=4,
        max_trials=_config.MAX_TRIALS,
        alpha=0.3,
        seed=8,
        concurrency=_config.CONCURRENCY,
        max_concurrency=_config.MAX_CONCURRENCY,
        pricing=load_pricing(None, None),
    )


def test_pyproject_table_paths_relative_to_the_file_from_a_subfolder(
    suite: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.write(
        "pyproject.toml",
        '[project]\nname = "skills"\n\n[tool.activation]\ncases = "activation/cases.json"\n'
        'distractors = "activation/distractors"\nmax-trials = 3\njson = "report.json"\n',
    )
    monkeypatch.chdir(suite.root / "plugins")
    backends = model()
    assert main([], backends) == 1
    report = read_report(suite.root / "report.json")
    assert [entry["id"] for entry in report["cases"]] == ["stripe-dispute", "plain-refund"]
    assert report["max_trials"] == 3
    assert not (suite.root / "plugins" / "report.json").exists()


def test_an_empty_activation_toml_leaves_pyproject_in_charge(
    suite: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.write("activation.toml", "# settings live in pyproject.toml\n")
    pyproject = suite.write("pyproject.toml", "[tool.activation]\ntrials = 5\n")
    assert main(["--dry-run", "--cases", "activation/cases.json"], model()) == 0
    rows = settings_rows(capsys.readouterr().out)
    assert rows["trials"] == ("5", f"{pyproject} [tool.activation]")


def test_settings_in_both_files_are_refused(
    suite: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    own = suite.write("activation.toml", "trials = 4\n")
    pyproject = suite.write("pyproject.toml", "[tool.activation]\ntrials = 5\n")
    backends = model()
    assert main(["--dry-run"], backends) == 2
    assert one_line_error(capsys) == (
        f"activation: error: settings in both {own} and {pyproject} [tool.activation]: keep one"
    )
    assert backends.prepared == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("trails = 3", "unknown key 'trails' (keys are the long flags without --, e.g. "
         "trials, max-trials, cases)"),
        ('trials = "3"', "trials must be an integer, got a string '3'"),
        ("trials = 2.5", "trials must be an integer, got a number 2.5"),
        ('trials = "three"', "trials must be an integer, got a string 'three'"),
        ("trials = 0", "trials: must be at least 1, got 0"),
        ("alpha = true", "alpha must be a number, got a boolean True"),
        ("alpha = 2", "alpha: must be between 0 and 1, got 2.0"),
        ('real = "yes"', "real must be a boolean (true or false), got a string"),
        ("cases = 3", "cases must be a path (a string), got an integer 3"),
        ("only = ['a']", "only must be a string, got a list ['a']"),
        ("model = ''", "model: must not be empty"),
        ("[activation]\ntrials = 3", "unknown key 'activation' (keys are the long flags "
         "without --, e.g. trials, max-trials, cases)"),
    ],
)  # fmt: skip
def test_every_file_error_is_exit_2_naming_the_file_and_the_key(
    line: str, message: str, suite: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = suite.write("activation.toml", line + "\n")
    backends = model()
    assert main(["--dry-run"], backends) == 2
    assert one_line_error(capsys) == f"activation: error: {settings}: {message}"
    assert backends.prepared == []


def test_a_broken_toml_file_is_exit_2(suite: SkillRepo, capsys: pytest.CaptureFixture[str]) -> None:
    settings = suite.write("pyproject.toml", "[tool.activation\ntrials = 3\n")
    assert main(["--dry-run"], model()) == 2
    assert one_line_error(capsys).startswith(f"activation: error: {settings}: not valid TOML (")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("ACTIVATION_TRIALS", "abc", "invalid literal for int() with base 10: 'abc'"),
        ("ACTIVATION_TRIALS", "0", "must be at least 1, got 0"),
        ("ACTIVATION_REAL", "maybe", "must be one of 1, true, yes, on, 0, false, no, off"),
    ],
)
def test_every_environment_error_is_exit_2_naming_the_variable(
    name: str,
    value: str,
    message: str,
    suite: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(name, value)
    assert main(["--dry-run"], model()) == 2
    assert one_line_error(capsys) == f"activation: error: {name}={value!r}: {message}"


def test_environment_switches_and_paths(
    suite: SkillRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.write("activation.toml", 'cases = "activation/cases.json"\nreal = true\n')
    monkeypatch.setenv("ACTIVATION_REAL", "off")
    monkeypatch.setenv("ACTIVATION_DISTRACTORS", "activation/distractors")
    assert main(["--dry-run"], model()) == 0
    rows = settings_rows(capsys.readouterr().out)
    assert rows["real"] == ("false", "ACTIVATION_REAL")
    assert rows["distractors"] == ("activation/distractors", "ACTIVATION_DISTRACTORS")


def test_the_repo_flag_or_variable_says_whose_settings_apply(
    suite: SkillRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.write("activation.toml", 'cases = "activation/cases.json"\nmax-trials = 3\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    distractors = str(suite.root / "activation" / "distractors")
    backends = model()
    assert main(["--repo", str(suite.root), "--distractors", distractors], backends) == 1
    monkeypatch.setenv("ACTIVATION_REPO", str(suite.root))
    assert main(["--distractors", distractors], backends) == 1
    assert [opened.spec.max_trials for opened in backends.opened] == [3, 3]
    assert [len(opened.inputs.cases) for opened in backends.opened] == [2, 2]


def test_one_file_serves_every_command(
    suite: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """calibrate's keys do not trouble the main run, and lint reads the same cases."""
    suite.write(
        "activation.toml",
        'cases = "activation/missing.json"\nnarrow = "controls/narrow.md"\nrecord = true\n',
    )
    assert main(["lint"]) == 2
    missing = suite.root / "activation" / "missing.json"
    assert one_line_error(capsys) == (f"activation lint: error: --cases {missing}: no such file")
    assert main(["--dry-run"], model()) == 2
    assert one_line_error(capsys) == f"activation: error: --cases {missing}: no such file"
    args, settings = resolve(CALIBRATE, [], suite.root, {}, configurable_keys())
    assert args.narrow == suite.root / "controls" / "narrow.md"
    assert args.record == Path("calibration/records")
    assert (
        Setting("record", Path("calibration/records"), str(suite.root / "activation.toml"))
        in settings
    )


def test_calibrate_takes_its_trials_from_the_file(suite: SkillRepo) -> None:
    suite.write(
        "activation.toml",
        'cases = "activation/cases.json"\ndistractors = "activation/distractors"\n'
        "trials = 2\nmax-trials = 2\n",
    )
    backends = FakeStages(by_description=lambda _description, _key: True)
    main(["calibrate"], backends)
    assert {opened.spec.trials for opened in backends.opened} == {2}
    assert len(backends.opened) == 3


def test_behavior_and_visibility_read_no_settings_file_but_the_variables(
    suite: SkillRepo,
) -> None:
    """The documented file (an activation run's trials, model and report paths) neither
    breaks nor steers `activation behavior`, whose trials are agent runs."""
    suite.write(
        "activation.toml",
        'trials = 5\nmodel = "claude-sonnet-5-5"\njson = "activation-report.json"\n',
    )
    args, settings = resolve(BEHAVIOR, [], suite.root, {}, configurable_keys())
    assert (args.trials, args.model, args.json) == (_config.BEHAVIOR_TRIALS, None, None)
    assert {setting.source for setting in settings} == {"default"}
    args, _ = resolve(VISIBILITY, [], suite.root, {}, configurable_keys())
    assert args.json is None
    environ = {"ACTIVATION_TRIALS": "2", "ACTIVATION_CACHE_DIR": "cache"}
    args, _ = resolve(BEHAVIOR, [], suite.root, environ, configurable_keys())
    assert (args.trials, args.cache_dir) == (2, Path("cache"))


def hours(value: str) -> float:
    """A converter of the kind a later flag may have: text in, a number out."""
    if not value.endswith("h"):
        raise argparse.ArgumentTypeError(f"must be like 12h, got {value!r}")
    return float(value[:-1]) * 3600


def test_a_flag_added_later_gets_a_key_and_a_variable(tmp_path: Path) -> None:
    later = replace(
        RUN,
        sections=(
            *RUN.sections,
            (
                "later",
                (
                    Flag("--max-minutes", "N", "a number", positive_float, toml=NUMBER),
                    switch("--verbose-trials", "a switch"),
                    Flag("--notes-dir", "DIR", "a folder", Path, toml=PATH),
                    Flag("--grace", "AGE", "a duration", hours),
                    Flag("--retries", "N", "an integer", int, toml=INTEGER),
                ),
            ),
        ),
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / "activation.toml").write_text(
        'max-minutes = 2\nnotes-dir = "notes"\ngrace = "12h"\nretries = 3\n'
    )
    keys = configurable_keys() | {"max-minutes", "verbose-trials", "notes-dir", "grace", "retries"}
    env = {"ACTIVATION_VERBOSE_TRIALS": "1"}
    args, settings = resolve(later, [], tmp_path, env, keys)
    assert (args.max_minutes, args.verbose_trials, args.notes_dir, args.retries) == (
        2.0,
        True,
        tmp_path / "notes",
        3,
    )
    assert args.grace == 43_200.0
    assert env_name("max-minutes") == "ACTIVATION_MAX_MINUTES"
    assert Setting("verbose-trials", True, "ACTIVATION_VERBOSE_TRIALS") in settings
    (tmp_path / "activation.toml").write_text('max-minutes = "2"\n')
    with pytest.raises(InputError, match=r"max-minutes must be a number, got a string '2'$"):
        resolve(later, [], tmp_path, {}, keys)
    (tmp_path / "activation.toml").write_text("retries = 2.5\n")
    with pytest.raises(InputError, match=r"retries must be an integer, got a number 2.5$"):
        resolve(later, [], tmp_path, {}, keys)
    (tmp_path / "activation.toml").write_text('grace = "soon"\n')
    with pytest.raises(InputError, match=r"grace: must be like 12h, got 'soon'$"):
        resolve(later, [], tmp_path, {}, keys)


def test_the_cost_cache_and_shard_flags_are_settings_too(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "activation.toml").write_text(
        'max-cost-usd = 2\ncache-dir = "cache"\ncache-ttl = "12h"\nshard = "2/3"\n'
        "price-in = 1\nprice-out = 5\n"
    )
    env = {"ACTIVATION_NO_CACHE": "1"}
    args, settings = resolve(RUN, [], tmp_path, env, configurable_keys())
    assert (args.max_cost_usd, args.cache_dir, args.cache_ttl) == (
        2.0,
        tmp_path / "cache",
        43_200.0,
    )
    assert (args.shard, args.price_in, args.price_out, args.no_cache) == ((2, 3), 1.0, 5.0, True)
    assert Setting("no-cache", True, "ACTIVATION_NO_CACHE") in settings


def test_every_configured_command_has_its_keys() -> None:
    keys = configurable_keys()
    assert {"narrow", "broad", "record", "strict", "junit", "html", "no-summary"} <= keys
    assert not {"help", "version"} & keys
    parsed = {
        key
        for command in (RUN, CALIBRATE, SUGGEST, LINT, CHANGED)
        for action in command.parser()._actions
        for key in [flag[2:] for flag in action.option_strings if flag.startswith("--")]
    }
    assert keys == parsed - {"help", "version"}


@pytest.mark.parametrize(
    ("written", "read"), [("none", "none"), ("skills/others", "{root}/skills/others")]
)
def test_distractors_none_in_a_file_is_no_path(tmp_path: Path, written: str, read: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "activation.toml").write_text(f'distractors = "{written}"\n')
    args, _settings = resolve(RUN, [], tmp_path, {}, configurable_keys())
    expected = read.format(root=tmp_path)
    assert str(args.distractors) == expected
    assert type(args.distractors) is (str if written == "none" else type(tmp_path))
    args, _settings = resolve(CHANGED, ["--base", "git:main"], tmp_path, {}, configurable_keys())
    assert str(args.distractors) == expected
