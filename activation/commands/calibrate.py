"""`activation calibrate`: prove the suite can fail, on both axes, and stays quiet on A/A."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from activation import __version__
from activation._documents import document_json
from activation._errors import InputError
from activation._models import Inputs, RunSpec
from activation.commands.requests import CalibrateRequest, parse_request
from activation.commands.runner import (
    Stages,
    inputs_from,
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
    Calibration,
    calibration_markdown,
    calibration_record,
    record_stem,
    render_calibration,
)
from activation.report.plan import run_warnings
from activation.store import TrialStore
from activation.trials.stage import Stage


def comparison_inputs(args: CalibrateRequest, cwd: Path) -> tuple[dict[str, Inputs], str | None]:
    """The comparisons, all validated before the first call, and the sibling whose
    territory the sibling control claims (None, and no such control, when no case expects
    a sibling)."""
    from activation.inputs.load import resolve_variant

    real = inputs_from(args, cwd, None, args.baseline)
    if args.baseline is None:  # the real description is the working tree's
        real = replace(real, baseline=real.candidate)
    controls = {
        "narrow": resolve_variant(str(args.narrow), real.target, cwd),
        "broad": resolve_variant(str(args.broad), real.target, cwd),
        "self": real.baseline,
    }
    claimed = sibling_control(real, real.baseline)
    if claimed is not None:
        controls["sibling"] = claimed[1]
    comparisons = {name: replace(real, candidate=control) for name, control in controls.items()}
    return comparisons, None if claimed is None else claimed[0].name


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
    outcomes = {}
    for name, inputs in comparisons.items():
        session.say(f"{name}: real description vs {inputs.candidate.spec}")
        if not only:
            inputs = stage.select(inputs, session.say)
        outcome = run_trials(session, stage, spec, inputs, store)
        if outcome.interrupted:
            raise KeyboardInterrupt
        outcomes[name] = outcome
    return Calibration(
        outcomes["narrow"],
        outcomes["broad"],
        outcomes["self"],
        outcomes.get("sibling"),
        sibling,
        stage.notice(spec),
    )


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
    if "--behavior" in argv:
        from activation.commands.behavior_calibrate import main_behavior_calibration

        return main_behavior_calibration(session, argv, stages)
    args, _settings = parse_request("calibrate", CalibrateRequest, argv)
    schema = AGREEMENT_SCHEMA if args.agreement else CALIBRATION_SCHEMA
    session.adopt(args.debug, args.json, stop_record_of(schema))
    if args.cases is None:
        from activation.commands.run import own_cases

        args = replace(args, cases=own_cases(session, args))
    if args.record is not None and args.record.exists() and not args.record.is_dir():
        raise InputError(f"--record {args.record}: is a file, not a folder")
    if args.agreement:
        return main_agreement(session, args, stages)
    stage = stage_of(args, stages)
    spec = spec_from(args, stage, "calibrate")
    comparisons, sibling = comparison_inputs(args, Path.cwd())
    bundled = args.cases is None
    warnings = [w for inputs in comparisons.values() for w in run_warnings(spec, inputs, bundled)]
    session.warn(list(dict.fromkeys([*warnings, *control_warnings(comparisons)])))
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
