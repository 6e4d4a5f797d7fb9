"""`activation calibrate`: prove the suite can fail, on both axes, and stays quiet on A/A.

One pipeline for every stage: the comparisons, validated before the first call, then each
run in turn (`run_comparisons`). With `--behavior`, Stage C's two runs of a behavior suite on
the working tree's skill: A/A (the skill against itself, with the `none` arm beside it),
which must flag nothing and whose lift over no skill must be shown (else the suite cannot
see what the skill does); and the broken-body control (`--broken`: a SKILL.md whose body is
plausible and wrong, an older API say), which must REGRESS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from activation import __version__
from activation._behavior import BehaviorRunInputs
from activation._documents import document_json
from activation._errors import ExitCode, InputError
from activation._models import AnyInputs, Inputs, RunOutcome, RunSpec, Status, Variant
from activation.commands.flags import COMMANDS, switch_given
from activation.commands.requests import (
    BehaviorCalibrateRequest,
    CalibrateRequest,
    parse_request,
)
from activation.commands.runner import (
    Stages,
    inputs_from,
    one_cell,
    open_store,
    run_trials,
    spec_from,
    stage_of,
)
from activation.commands.session import Session, stop_record_of
from activation.inputs.frontmatter import split_document
from activation.inputs.sibling_control import sibling_control
from activation.report.agreement import SCHEMA as AGREEMENT_SCHEMA
from activation.report.calibration import SCHEMA as CALIBRATION_SCHEMA
from activation.report.calibration import (
    BehaviorCalibrationRecord,
    Calibration,
    calibration_markdown,
    calibration_record,
    record_stem,
    render_calibration,
)
from activation.report.plan import run_warnings
from activation.store import TrialStore
from activation.trials.stage import Stage

BEHAVIOR_SCHEMA = "activation-behavior-calibration/1"


def comparison_inputs(args: CalibrateRequest, cwd: Path) -> tuple[dict[str, Inputs], str | None]:
    """The comparisons, all validated before the first call, and the sibling whose
    territory the sibling control claims (None, and no such control, when no case expects
    a sibling)."""
    real = inputs_from(args, cwd, None, args.baseline)
    if args.baseline is None:  # the real description is the working tree's
        real = replace(real, baseline=real.candidate)
    controls = {
        name: control_variant(given, name, real, args.cases is None, cwd)
        for name, given in (("narrow", args.narrow), ("broad", args.broad))
    }
    controls["self"] = real.baseline
    claimed = sibling_control(real, real.baseline)
    if claimed is not None:
        controls["sibling"] = claimed[1]
    comparisons = {name: replace(real, candidate=control) for name, control in controls.items()}
    return comparisons, None if claimed is None else claimed[0].name


def control_variant(
    given: Path | None, name: str, real: Inputs, bundled: bool, cwd: Path
) -> Variant:
    """The control `name` ("narrow", "broad"): the SKILL.md given, else the bundled one for
    the bundled suite, else one derived from the measured skill (inputs/controls.py)."""
    from activation.inputs.controls import derived_control
    from activation.inputs.load import resolve_variant
    from activation.inputs.suite import BUNDLED_CONTROLS

    if given is None and not bundled:
        return derived_control(real.baseline, real.target.skill_name, name)
    path = given or BUNDLED_CONTROLS / name / "SKILL.md"
    return resolve_variant(str(path), real.target, cwd)


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
    session: Session,
    stage: Stage,
    spec: RunSpec,
    comparisons: dict[str, Inputs],
    sibling: str | None,
    only: bool,
    store: TrialStore | None = None,
) -> Calibration:
    """The runs in turn; an interruption stops them all."""
    cells = {name: (spec, inputs) for name, inputs in comparisons.items()}
    outcomes = run_comparisons(session, stage, cells, "real description", only, store)
    return Calibration(
        outcomes["narrow"],
        outcomes["broad"],
        outcomes["self"],
        outcomes.get("sibling"),
        sibling,
        stage.notice(spec),
    )


def run_comparisons(
    session: Session,
    stage: Stage,
    comparisons: Mapping[str, tuple[RunSpec, AnyInputs]],
    measured: str,
    only: bool,
    store: TrialStore | None,
) -> dict[str, RunOutcome]:
    """The calibration's runs in turn, whatever the stage, each named with what it sets
    against the `measured` side (`only`: `--only`'s cases, else the stage's pick); an
    interruption stops them all."""
    outcomes = {}
    for name, (spec, inputs) in comparisons.items():
        session.say(f"{name}: {measured} vs {inputs.candidate.spec}")
        outcome = run_trials(
            session, stage, spec, inputs if only else stage.select(inputs, session.say), store
        )
        if outcome.interrupted:
            raise KeyboardInterrupt
        outcomes[name] = outcome
    return outcomes


def keep_record(session: Session, folder: Path, stem: str, data: bytes, markdown: str) -> None:
    """A dated JSON and Markdown entry; only ever for a run that really happened."""
    folder.mkdir(parents=True, exist_ok=True)
    for path, content in (
        (folder / f"{stem}.json", data),
        (folder / f"{stem}.md", markdown.encode()),
    ):
        if session.write_file(path, content, "record"):
            session.out.print(f"recorded {path}", soft_wrap=True, markup=False)


def main_calibrate(session: Session, argv: list[str], stages: Stages | None) -> int:
    """`calibrate`, or with the `--behavior` switch (read as a flag, never found in a value)
    Stage C's calibration, whose flags are its own."""
    if switch_given("--behavior", (COMMANDS["calibrate"], COMMANDS["calibrate --behavior"]), argv):
        return main_behavior_calibration(session, argv, stages)
    args, settings = parse_request("calibrate", CalibrateRequest, argv)
    schema = AGREEMENT_SCHEMA if args.agreement else CALIBRATION_SCHEMA
    session.adopt(args.debug, args.json, stop_record_of(schema))
    if args.cases is None:
        from activation.commands.run import own_cases

        args = replace(args, cases=own_cases(session, args))
    if args.record is not None and args.record.exists() and not args.record.is_dir():
        raise InputError(f"--record {args.record}: is a file, not a folder")
    if args.agreement:
        if args.dry_run:
            raise InputError("--dry-run plans calibrate's comparisons: leave out --agreement")
        return main_agreement(session, args, stages)
    stage = stage_of(args, stages)
    spec = spec_from(args, stage, "calibrate")
    comparisons, sibling = comparison_inputs(args, Path.cwd())
    bundled = args.cases is None
    warnings = [w for inputs in comparisons.values() for w in run_warnings(spec, inputs, bundled)]
    session.warn(list(dict.fromkeys([*warnings, *control_warnings(comparisons)])))
    if args.dry_run:
        from activation.commands.run import show_plan

        session.out.print(
            f"calibrate would make {len(comparisons)} runs, the real description against "
            f"each of: {', '.join(comparisons)}",
            soft_wrap=True,
        )
        return show_plan(session, stage, [(spec, inputs) for inputs in comparisons.values()],
                         settings)  # fmt: skip
    spec = stage.preflight(spec)
    with open_store(args) as store:
        calibration = run_calibration(
            session, stage, spec, comparisons, sibling, args.only is not None, store
        )
    session.out.print(render_calibration(calibration))
    data = document_json(calibration_record(calibration, __version__))
    session.write_json(data)
    if args.record:
        when = datetime.now(UTC)
        markdown = calibration_markdown(calibration, when)
        keep_record(session, args.record, record_stem(calibration, when), data, markdown)
    return calibration.exit_code


def spot_checks(inputs: Inputs, only: bool) -> Inputs:
    """The cases both stages run: `--only`'s, else the spot checks."""
    if only:
        return inputs
    chosen = tuple(case for case in inputs.cases if case.spot_check)
    if not chosen:
        raise InputError(
            "--agreement runs the spot checks: mark some cases `spot_check: true` or pass --only"
        )
    return replace(inputs, cases=chosen)


def main_agreement(session: Session, args: CalibrateRequest, stages: Stages | None) -> int:
    """Stage A, then Stage B, on the same cases: how far the cheap stage can be trusted."""
    from activation.report.agreement import (
        StageAgreement,
        agreement_markdown,
        agreement_record,
        record_stem,
        render_agreement,
    )

    if args.real:
        raise InputError("--agreement runs both stages: leave out --real")
    comparisons, _sibling = comparison_inputs(args, Path.cwd())
    inputs = spot_checks(comparisons["narrow"], args.only is not None)
    picked = {}
    for real in (False, True):
        asked = replace(args, real=real)
        stage = stage_of(asked, stages)
        spec = spec_from(asked, stage, "calibrate --agreement")
        picked[real] = (stage, stage.preflight(spec))
    session.warn(run_warnings(picked[False][1], inputs, args.cases is None))
    outcomes = []
    with open_store(args) as store:
        for stage, spec in picked.values():
            session.say(f"{spec.cell}: {len(inputs.cases)} case(s)")
            outcome = run_trials(session, stage, spec, inputs, store)
            if outcome.interrupted:
                raise KeyboardInterrupt
            outcomes.append(outcome)
    run = StageAgreement(*outcomes)
    session.out.print(render_agreement(run))
    data = document_json(agreement_record(run, __version__))
    session.write_json(data)
    if args.record:
        when = datetime.now(UTC)
        keep_record(
            session, args.record, record_stem(run, when), data, agreement_markdown(run, when)
        )
    return run.exit_code


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
    """What the calibration found, one line per check, how often each judge grader
    disagreed with itself on the A/A run, then the verdict."""
    from activation.report.behavior_words import lift_text
    from activation.report.judge_view import agreement_lines
    from activation.verdicts.behavior import suite_lift
    from activation.verdicts.judge_agreement import judge_agreement

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
    same = (trial for verdict in found.same.verdicts for trial in verdict.trials)
    lines += [f"A/A {line}" for line in agreement_lines(judge_agreement(same))]
    verdicts = {
        ExitCode.OK: "OK: the suite is calibrated.",
        ExitCode.REGRESSED: "FAILED: the suite is not calibrated.",
        ExitCode.INCOMPLETE: "INCOMPLETE: some trials errored, so the calibration fails closed.",
    }
    notes = [f"NOTE: {found.notice}"] if found.notice else []
    return [*lines, *notes, verdicts[found.exit_code]]


def behavior_record(found: BehaviorCalibration) -> BehaviorCalibrationRecord:
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
    from activation.trials.behavior.stage import options_of

    no_control = replace(spec, behavior=replace(options_of(spec), arms=()))
    return [(spec, same), (no_control, replace(same, candidate=broken))]


def main_behavior_calibration(session: Session, argv: list[str], stages: Stages | None) -> int:
    """`calibrate --behavior`: the calibrate pipeline on Stage C's runs."""
    args, settings = parse_request("calibrate --behavior", BehaviorCalibrateRequest, argv)
    session.adopt(args.debug, args.json, stop_record_of(BEHAVIOR_SCHEMA))
    from activation.commands.behavior import behavior_cells, graded_suite, stage_c
    from activation.inputs.installed import with_tree
    from activation.inputs.load import resolve_variant, skipped_warning

    stage = stage_c(stages)
    if not args.broken.is_file():
        raise InputError(f"--broken {args.broken}: no such file (a SKILL.md with a wrong body)")
    same, loaded = graded_suite(session, args, None)
    suite = Path(loaded.source)
    session.warn(skipped_warning(suite, loaded.skipped))
    broken = with_tree(
        resolve_variant(str(args.broken), same.target, Path.cwd()), same.target, suite
    )
    cells = behavior_cells(args, stage, same.cases, ("none",), False, None, suite=suite)
    spec = one_cell(cells, "calibrate --behavior")
    if args.verbose and not args.dry_run:
        raise InputError("--verbose goes with --dry-run")
    if args.dry_run:
        from activation.commands.run import show_plan

        session.out.print(DRY_RUN.format(broken=broken.spec), soft_wrap=True)
        return show_plan(
            session, stage, comparisons_of(spec, same, broken), settings, verbose=args.verbose
        )
    spec = stage.preflight(spec)
    comparisons = dict(zip(("same", "broken"), comparisons_of(spec, same, broken), strict=True))
    with open_store(args) as store:
        outcomes = run_comparisons(session, stage, comparisons, "the skill", True, store)
    found = BehaviorCalibration(outcomes["same"], outcomes["broken"], stage.notice(spec))
    for line in verdict_lines(found):
        session.out.print(line, soft_wrap=True, markup=False)
    session.write_json(document_json(behavior_record(found)))
    return found.exit_code
