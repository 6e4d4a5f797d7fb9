"""`activation calibrate`: show that the suite can fail, on both axes, and stays quiet on A/A.

The real description is compared with a narrow control (fires only when asked by name: the
suite must catch lost recall) and a broad control (claims nearly all software work: it must
catch new false positives), and with itself (A/A: any REGRESSED there is a false alarm).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import orjson
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation.arguments import OneLineParser, add_run_arguments, settings_from
from activation.cases import parse_only
from activation.distractors import BUNDLED_CALIBRATION
from activation.errors import AuthError, InputError
from activation.frontmatter import split_document
from activation.report import INTERRUPTED, RunOutcome, report_data
from activation.run import Inputs, Settings, execute, load_inputs, prepare, stage_b_selection
from activation.terminal import consoles, run_warnings, warn
from activation.variants import resolve_variant
from activation.verdicts import Rate, Status

SCHEMA = "activation-calibration/1"
COMPARISONS = ("narrow", "broad", "self")


@dataclass(frozen=True)
class Calibration:
    """The three outcomes and what they say about the suite."""

    narrow: RunOutcome
    broad: RunOutcome
    itself: RunOutcome

    def regressed(self, outcome: RunOutcome, should_activate: bool) -> list[str]:
        return [
            verdict.case.id
            for verdict in outcome.verdicts
            if verdict.status is Status.REGRESSED
            and verdict.case.should_activate is should_activate
        ]

    @property
    def narrow_caught(self) -> list[str]:
        return self.regressed(self.narrow, should_activate=True)

    @property
    def broad_caught(self) -> list[str]:
        return self.regressed(self.broad, should_activate=False)

    @property
    def false_alarms(self) -> list[str]:
        return [v.case.id for v in self.itself.verdicts if v.status is Status.REGRESSED]

    @property
    def errors(self) -> list[str]:
        return sorted(
            {
                f"{name}:{verdict.case.id}"
                for name, outcome in self.outcomes()
                for verdict in outcome.verdicts
                if verdict.status is Status.ERROR
            }
        )

    def outcomes(self) -> list[tuple[str, RunOutcome]]:
        return list(zip(COMPARISONS, (self.narrow, self.broad, self.itself), strict=True))

    @property
    def problems(self) -> list[str]:
        """What the suite is blind to, in words a suite author can act on."""
        found = []
        if not self.narrow_caught:
            found.append(
                "blind on recall: the narrow control regressed no positive case "
                "(add positives the real description covers and a narrow one would miss)"
            )
        if not self.broad_caught:
            found.append(
                "blind on false positives: the broad control regressed no negative case "
                "(add negatives that a description claiming all software work would take)"
            )
        if self.false_alarms:
            found.append(
                f"raises false alarms: A/A regressed {', '.join(self.false_alarms)} "
                "although nothing changed (more --trials, or fix flaky cases)"
            )
        return found

    @property
    def exit_code(self) -> int:
        if self.problems:
            return 1
        return 3 if self.errors else 0


def calibration_data(calibration: Calibration) -> dict[str, object]:
    first = calibration.narrow.info
    return {
        "schema": SCHEMA,
        "stage": first.stage,
        "model": first.model,
        "trials": first.trials,
        "alpha": first.alpha,
        "skill": {"id": first.skill_id, "path": first.skill_path},
        "narrow": {
            "detected": bool(calibration.narrow_caught),
            "regressed": calibration.narrow_caught,
        },
        "broad": {
            "detected": bool(calibration.broad_caught),
            "regressed": calibration.broad_caught,
        },
        "self": {"false_alarms": calibration.false_alarms},
        "errors": calibration.errors,
        "problems": calibration.problems,
        "reports": {name: report_data(outcome) for name, outcome in calibration.outcomes()},
        "exit_code": calibration.exit_code,
    }


EXPECTATIONS = {
    "narrow": "positives REGRESSED",
    "broad": "negatives REGRESSED",
    "self": "no REGRESSED (A/A)",
}


def fraction(value: Rate) -> str:
    return f"{value.hits}/{value.total}"


def _rows(calibration: Calibration) -> list[tuple[str, ...]]:
    found = {
        "narrow": calibration.narrow_caught,
        "broad": calibration.broad_caught,
        "self": calibration.false_alarms,
    }
    rows = []
    for name, outcome in calibration.outcomes():
        ok = bool(found[name]) if name != "self" else not found[name]
        base, cand = outcome.figures("baseline"), outcome.figures("candidate")
        rows.append(
            (
                name,
                EXPECTATIONS[name],
                "yes" if ok else "NO",
                ", ".join(found[name]) or "-",
                f"{fraction(base.recall)} / {fraction(cand.recall)}",
                f"{fraction(base.false_positives)} / {fraction(cand.false_positives)}",
            )
        )
    return rows


HEADERS = ("comparison", "expected", "met", "REGRESSED", "recall real / other", "FP real / other")


def render_calibration(calibration: Calibration) -> RenderableType:
    table = Table(title="Calibration", title_justify="left")
    for header in HEADERS:
        table.add_column(header)
    for row in _rows(calibration):
        table.add_row(*row)
    parts: list[RenderableType] = [table]
    if calibration.errors:
        parts.append(Text(f"ERROR cases: {', '.join(calibration.errors)}", style="magenta"))
    if calibration.problems:
        parts += [
            Text(f"The suite is {problem}", style="bold red") for problem in calibration.problems
        ]
    else:
        parts.append(
            Text("The suite caught both controls and raised no A/A alarm.", style="bold green")
        )
    return Group(*parts)


def calibration_markdown(calibration: Calibration, when: datetime) -> str:
    info = calibration.narrow.info
    lines = [
        f"# Calibration {when:%Y-%m-%d %H:%M} UTC",
        "",
        f"Stage {info.stage}, model `{info.model or 'CLI default'}`, {info.trials} trials, "
        f"alpha {info.alpha}, skill `{info.skill_id}`. Exit code {calibration.exit_code}.",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "---|" * len(HEADERS),
        *("| " + " | ".join(row) + " |" for row in _rows(calibration)),
        "",
    ]
    lines += [f"- The suite is {problem}" for problem in calibration.problems]
    return "\n".join(lines) + "\n"


def record(folder: Path, calibration: Calibration, when: datetime) -> tuple[Path, Path]:
    """A dated JSON and Markdown entry; only ever for a run that really happened."""
    info = calibration.narrow.info
    model = (info.model or "cli-default").replace("/", "-")
    stem = f"{when:%Y-%m-%dT%H%M%S}-stage-{info.stage.lower()}-{model}"
    folder.mkdir(parents=True, exist_ok=True)
    json_path, md_path = folder / f"{stem}.json", folder / f"{stem}.md"
    json_path.write_bytes(orjson.dumps(calibration_data(calibration), option=orjson.OPT_INDENT_2))
    md_path.write_text(calibration_markdown(calibration, when))
    return json_path, md_path


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="activation calibrate",
        description="Run the suite against a narrow control, a broad control and the real "
        "description itself; exit 0 only when both controls are caught and A/A is quiet.",
    )
    parser.add_argument(
        "--baseline", help="the real description: git:<ref> or a path (the working tree)"
    )
    parser.add_argument("--narrow", type=Path, default=BUNDLED_CALIBRATION / "narrow" / "SKILL.md")
    parser.add_argument("--broad", type=Path, default=BUNDLED_CALIBRATION / "broad" / "SKILL.md")
    parser.add_argument("--only", type=parse_only, help="comma-separated case ids")
    parser.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=Path("calibration"),
        metavar="DIR",
        help="write a dated JSON and Markdown entry (default DIR: ./calibration)",
    )
    add_run_arguments(parser)
    return parser


def comparison_inputs(args: argparse.Namespace, cwd: Path) -> dict[str, Inputs]:
    """The three comparisons, all validated before the first call."""
    real = load_inputs(
        cwd,
        repo=args.repo,
        skill_path=args.skill_path,
        cases=args.cases,
        distractors=args.distractors,
        baseline=args.baseline,
        candidate=None,
        only=args.only,
    )
    controls = {
        "narrow": resolve_variant(str(args.narrow), real.target, cwd),
        "broad": resolve_variant(str(args.broad), real.target, cwd),
        "self": real.baseline,
    }
    return {name: replace(real, candidate=control) for name, control in controls.items()}


def control_warnings(comparisons: dict[str, Inputs]) -> list[str]:
    """A control written for another skill still works, but the user should know."""
    warnings = []
    for name in ("narrow", "broad"):
        inputs = comparisons[name]
        written_for = split_document(inputs.candidate.text, inputs.candidate.source).name
        if written_for not in (None, inputs.target.skill_name):
            warnings.append(
                f"the {name} control ({inputs.candidate.spec}) is written for the skill "
                f"{written_for!r}, not {inputs.target.skill_name!r}: pass --{name} with a "
                "control of your own for a sharper check"
            )
    return warnings


def run_calibration(
    settings: Settings, comparisons: dict[str, Inputs], only: bool, err: Console
) -> Calibration | None:
    """The three runs in turn; None when Ctrl-C cut one short."""
    outcomes = []
    for name, inputs in comparisons.items():
        err.print(f"{name}: real description vs {inputs.candidate.spec}", soft_wrap=True)
        if settings.stage == "B" and not only:
            inputs = stage_b_selection(inputs, err)
        outcome = execute(settings, inputs, err)
        if outcome.interrupted:
            return None
        outcomes.append(outcome)
    return Calibration(*outcomes)


def main_calibrate(argv: Sequence[str]) -> int:
    out, err = consoles()
    try:
        args = build_parser().parse_args(argv)
        settings = settings_from(args)
        comparisons = comparison_inputs(args, Path.cwd())
        warnings = [w for inputs in comparisons.values() for w in run_warnings(inputs, settings)]
        warn(err, dict.fromkeys([*warnings, *control_warnings(comparisons)]))
        prepare(settings)
        calibration = run_calibration(settings, comparisons, args.only is not None, err)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    except (InputError, AuthError) as error:
        err.print(f"activation calibrate: error: {error}", markup=False, soft_wrap=True)
        return 2
    if calibration is None:
        err.print("activation calibrate: interrupted", style="bold yellow")
        return INTERRUPTED
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(
            orjson.dumps(calibration_data(calibration), option=orjson.OPT_INDENT_2)
        )
    out.print(render_calibration(calibration))
    if args.record:
        for path in record(args.record, calibration, datetime.now(UTC)):
            out.print(f"recorded {path}")
    return calibration.exit_code
