"""`activation calibrate --behavior`: prove a behavior suite can fail, stays quiet on A/A and
sees the skill's effect at all.

Two runs of the suite, on the working tree's skill: A/A (the skill against itself, with the
`none` arm beside it), which must flag nothing and whose lift over no skill must be shown
(else the suite cannot see what the skill does); and the broken-body control (`--broken`: a
SKILL.md whose body is plausible and wrong, an older API say), which must REGRESS.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from activation import __version__
from activation._behavior import BehaviorRunInputs
from activation._documents import document_json
from activation._errors import ExitCode, InputError
from activation._models import AnyInputs, RunOutcome, RunSpec, Status, Variant
from activation.commands.requests import BehaviorCalibrateRequest, parse_request
from activation.commands.runner import Stages, open_store, run_trials
from activation.commands.session import Session, stop_record_of
from activation.report.calibration import BehaviorCalibrationRecord

SCHEMA = "activation-behavior-calibration/1"
LOUD = (Status.REGRESSED, Status.IMPROVED, Status.WEAKENED)
"""What A/A must never find: the skill differs from itself."""


@dataclass(frozen=True)
class BehaviorCalibration:
    same: RunOutcome
    """The skill against itself, with the `none` arm."""
    broken: RunOutcome
    """The skill against the broken-body control."""
    notice: str | None = None
    """What every output says about the answers (a mock judge's mean nothing)."""

    @property
    def quiet(self) -> bool:
        return not self.same.ids_with(*LOUD)

    @property
    def caught(self) -> bool:
        return bool(self.broken.ids_with(Status.REGRESSED))

    @property
    def lift_shown(self) -> bool:
        from activation.verdicts.behavior import suite_lift

        lift = suite_lift(self.same.verdicts, self.same.spec.trials)
        return lift is not None and lift.shown

    @property
    def errors(self) -> bool:
        return any(run.ids_with(Status.ERROR) or run.unfinished for run in (self.same, self.broken))

    @property
    def exit_code(self) -> ExitCode:
        if not (self.quiet and self.caught and self.lift_shown):
            return ExitCode.REGRESSED
        return ExitCode.INCOMPLETE if self.errors else ExitCode.OK


def verdict_lines(found: BehaviorCalibration) -> list[str]:
    """What the calibration found, one line per check, then the verdict."""
    from activation.report.words import lift_text
    from activation.verdicts.behavior import suite_lift

    loud = found.same.ids_with(*LOUD)
    regressed = found.broken.ids_with(Status.REGRESSED)
    lift = suite_lift(found.same.verdicts, found.same.spec.trials)
    lines = [
        "A/A (the skill against itself): "
        + (
            "quiet"
            if not loud
            else f"flagged {', '.join(loud)}: the suite is noisier than its statistics assume"
        ),
        f"broken-body control ({found.broken.inputs.candidate.spec}): "
        + (
            f"caught, {len(regressed)} case(s) REGRESSED ({', '.join(regressed)})"
            if regressed
            else "NOT caught: no case regressed, the suite cannot tell a broken body"
        ),
        f"lift over no skill: {lift_text(lift)}"
        + ("" if found.lift_shown else "; the suite cannot see the skill's effect"),
    ]
    verdicts = {
        ExitCode.OK: "OK: the suite is calibrated.",
        ExitCode.REGRESSED: "FAILED: the suite is not calibrated.",
        ExitCode.INCOMPLETE: "INCOMPLETE: some trials errored, so the calibration fails closed.",
    }
    notes = [f"NOTE: {found.notice}"] if found.notice else []
    return [*lines, *notes, verdicts[found.exit_code]]


def calibration_record(found: BehaviorCalibration) -> BehaviorCalibrationRecord:
    from activation.report.model import build_report

    return BehaviorCalibrationRecord(
        version=__version__,
        exit_code=int(found.exit_code),
        quiet=found.quiet,
        caught=found.caught,
        lift_shown=found.lift_shown,
        notice=found.notice,
        same=build_report(found.same, __version__, notice=found.notice),
        broken=build_report(found.broken, __version__, notice=found.notice),
    )


DRY_RUN = (
    "calibrate --behavior would make two runs: 'same', the skill against itself with the "
    "none arm, then 'broken', the skill against {broken}"
)


def comparisons_of(
    spec: RunSpec, same: BehaviorRunInputs, broken: Variant
) -> list[tuple[RunSpec, AnyInputs]]:
    """The two runs, in order: A/A with the `none` arm, then the broken-body control."""
    return [(spec, same), (replace(spec, arms=()), replace(same, candidate=broken))]


def main_behavior_calibration(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_request("calibrate --behavior", BehaviorCalibrateRequest, argv)
    session.adopt(args.debug, args.json, stop_record_of(SCHEMA))
    from activation.commands.behavior import behavior_cells, refuse_unsound, say_suite, suite_of
    from activation.inputs.behavior_load import load_behavior_inputs, skipped_warning, with_tree
    from activation.inputs.load import resolve_variant
    from activation.trials.stage import stage_named

    stage = stages["C"] if stages and "C" in stages else stage_named("C")
    cwd = Path.cwd()
    suite = suite_of(args, cwd)
    if not args.broken.is_file():
        raise InputError(f"--broken {args.broken}: no such file (a SKILL.md with a wrong body)")
    same = load_behavior_inputs(cwd, suite, repo=args.repo, skill_path=args.skill_path,
                                only=args.only, alone=True)  # fmt: skip
    refuse_unsound(same.cases, suite)
    say_suite(session, args, suite, cwd)
    session.warn(skipped_warning(suite, same.behavior_skipped))
    broken = with_tree(resolve_variant(str(args.broken), same.target, cwd), same.target, suite)
    (spec, *more) = behavior_cells(args, stage, same.cases, ("none",), False, None)
    if more:
        raise InputError("calibrate --behavior runs one cell: pass one --model and one --agent")
    if args.dry_run:
        from activation.commands.run import show_plan

        session.out.print(DRY_RUN.format(broken=broken.spec), soft_wrap=True)
        return show_plan(session, stage, comparisons_of(spec, same, broken), settings)
    spec = stage.preflight(spec)
    comparisons = dict(zip(("same", "broken"), comparisons_of(spec, same, broken), strict=True))
    outcomes = {}
    with open_store(args) as store:
        for name, (cell, inputs) in comparisons.items():
            session.say(f"{name}: the skill vs {inputs.candidate.spec}")
            outcome = run_trials(session, stage, cell, inputs, store)
            if outcome.interrupted:
                raise KeyboardInterrupt
            outcomes[name] = outcome
    found = BehaviorCalibration(outcomes["same"], outcomes["broken"], stage.notice(spec))
    for line in verdict_lines(found):
        session.out.print(line, soft_wrap=True, markup=False)
    session.write_json(document_json(calibration_record(found)))
    return found.exit_code
