"""One comparison run, for either stage: inputs validated up front, trials, verdicts.

The command line, `calibrate` and the benchmarks all go through `execute`, so the two stages
share one scheduler, one limiter, one progress display and one way of being interrupted.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import anthropic
import anyio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from activation import state
from activation.agent import AgentConfig, AgentRunner, check_claude
from activation.cases import Case, load_cases, select
from activation.classifier import DEFAULT_MODEL, Classifier, ClassifierConfig
from activation.distractors import BUNDLED_CASES, BUNDLED_DISTRACTORS, Skill, load_distractors
from activation.errors import InputError
from activation.menu import MenuEntry
from activation.plugin_copy import paired_copies
from activation.report import RunInfo, RunOutcome, VariantInfo, flagged_ids
from activation.scheduler import TrialRunner, run_trials, trial_keys
from activation.target import Target, resolve_target
from activation.trial import Trial
from activation.variants import Variant, resolve_variant, working_tree_spec
from activation.verdicts import judge_all

Stage = Literal["A", "B"]
MAX_RETRIES = 4
"""The SDK's own retries of 408/409/429/5xx, honouring `retry-after`."""
REQUEST_TIMEOUT = 180.0
DEFAULT_CONCURRENCY: dict[Stage, int] = {"A": 8, "B": 4}


@dataclass(frozen=True)
class Inputs:
    """Everything a run needs, validated before the first call."""

    target: Target
    cases: tuple[Case, ...]
    distractors: tuple[Skill, ...]
    baseline: Variant
    candidate: Variant


def load_inputs(
    cwd: Path,
    *,
    repo: Path | None,
    skill_path: str | None,
    cases: Path | None,
    distractors: Path | None,
    baseline: str | None,
    candidate: str | None,
    only: tuple[str, ...] | None = None,
) -> Inputs:
    """Specs left out (None) mean the working-tree SKILL.md."""
    target = resolve_target(repo, skill_path, cwd)
    matrix = load_cases(cases or BUNDLED_CASES)
    if only is not None:
        if not only:
            raise InputError("--only names no case id")
        matrix = select(matrix, only)
    menu = load_distractors(distractors or BUNDLED_DISTRACTORS)
    if any(skill.name == target.skill_id for skill in menu):
        raise InputError(f"a distractor is named {target.skill_id}, like the target skill")
    return Inputs(
        target,
        matrix,
        menu,
        resolve_variant(baseline or working_tree_spec(target), target, cwd),
        resolve_variant(candidate or working_tree_spec(target), target, cwd),
    )


@dataclass(frozen=True)
class Settings:
    stage: Stage
    trials: int = 3
    alpha: float = 0.05
    seed: int = 0
    model: str | None = None
    concurrency: int | None = None
    claude: str = "claude"
    max_turns: int = 8
    timeout: float = 300.0

    @property
    def effective_model(self) -> str | None:
        """Stage A needs a model id; Stage B leaves the CLI's own default alone."""
        return self.model or (DEFAULT_MODEL if self.stage == "A" else None)

    @property
    def effective_concurrency(self) -> int:
        return self.concurrency or DEFAULT_CONCURRENCY[self.stage]


def run_info(settings: Settings, inputs: Inputs) -> RunInfo:
    def info(variant: Variant) -> VariantInfo:
        return VariantInfo(variant.spec, variant.description, variant.source)

    return RunInfo(
        stage=settings.stage,
        model=settings.effective_model,
        trials=settings.trials,
        alpha=settings.alpha,
        seed=settings.seed,
        skill_id=inputs.target.skill_id,
        skill_path=inputs.target.skill_path.as_posix(),
        baseline=info(inputs.baseline),
        candidate=info(inputs.candidate),
    )


def require_credentials(stage: Stage) -> None:
    if os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return
    if stage == "B" and any(
        os.environ.get(name) for name in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
    ):
        return
    raise InputError("no API key: set ANTHROPIC_API_KEY (--dry-run needs none)")


def pair_key(inputs: Inputs) -> str:
    return state.pair_key(
        inputs.target.skill_id, inputs.baseline.description, inputs.candidate.description
    )


def stage_b_selection(inputs: Inputs, console: Console) -> Inputs:
    """Without `--only`: the spot checks plus what the latest Stage A run on this pair flagged."""
    flagged = state.last_flagged(inputs.target.repo, pair_key(inputs))
    chosen = {case.id for case in inputs.cases if case.spot_check} | set(flagged or ())
    selection = tuple(case for case in inputs.cases if case.id in chosen)
    origin = (
        "spot checks and the cases the latest Stage A run on these descriptions flagged"
        if flagged is not None
        else "spot checks only (no Stage A run on these two descriptions yet)"
    )
    if not selection:
        raise InputError(f"no case selected for --real ({origin}): pass --only ids")
    console.print(f"--real selection: {len(selection)} case(s), {origin}", soft_wrap=True)
    return replace(inputs, cases=selection)


def prepare(settings: Settings, *, need_credentials: bool = True) -> None:
    """The checks that need the environment; all before any model call."""
    if need_credentials:
        require_credentials(settings.stage)
    if settings.stage == "B":
        check_claude(settings.claude)


class Reporter:
    """The live progress bar (done/total, errors so far), collecting trials as they end."""

    def __init__(self, console: Console, total: int, label: str) -> None:
        self.trials: list[Trial] = []
        self.errors = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors: {task.fields[errors]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self._progress.add_task(label, total=total, errors=0)

    def __enter__(self) -> Reporter:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, trial: Trial) -> None:
        self.trials.append(trial)
        self.errors += trial.is_error
        self._progress.update(self._task, advance=1, errors=self.errors)


@asynccontextmanager
async def stage_runner(settings: Settings, inputs: Inputs) -> AsyncIterator[TrialRunner]:
    """The stage's trial runner, with what it holds (a client, plugin copies) released after."""
    if settings.stage == "A":
        async with anthropic.AsyncAnthropic(
            max_retries=MAX_RETRIES, timeout=REQUEST_TIMEOUT
        ) as client:
            yield Classifier(
                client,
                ClassifierConfig(
                    model=settings.effective_model or DEFAULT_MODEL,
                    seed=settings.seed,
                    target_id=inputs.target.skill_id,
                    descriptions={
                        "baseline": inputs.baseline.description,
                        "candidate": inputs.candidate.description,
                    },
                    distractors=tuple(MenuEntry(s.name, s.description) for s in inputs.distractors),
                ),
            )
        return
    config = AgentConfig(
        claude=settings.claude,
        transcripts_dir=state.new_run_dir(inputs.target.repo, "B"),
        max_turns=settings.max_turns,
        timeout=settings.timeout,
        model=settings.model,
    )
    with paired_copies(
        inputs.target, inputs.baseline.description, inputs.candidate.description
    ) as copies:
        yield AgentRunner(config, inputs.target.skill_id, copies)


def execute(settings: Settings, inputs: Inputs, console: Console) -> RunOutcome:
    """Run every trial, judge, and remember what Stage A flagged for a later `--real`.

    Ctrl-C stops the trials (the runners clean up after themselves) and returns the cases
    whose trials all finished, marked interrupted; the others are listed as unfinished.
    """
    keys = trial_keys(inputs.cases, settings.trials)
    limiter = anyio.CapacityLimiter(settings.effective_concurrency)
    interrupted = False

    async def go(reporter: Reporter) -> None:
        async with stage_runner(settings, inputs) as runner:
            await run_trials(keys, runner, limiter, reporter)

    with Reporter(console, len(keys), f"Stage {settings.stage} trials") as reporter:
        try:
            anyio.run(go, reporter)
        except KeyboardInterrupt:
            interrupted = True
    done = Counter(trial.key.case.id for trial in reporter.trials)
    finished = [case for case in inputs.cases if done[case.id] == 2 * settings.trials]
    verdicts = judge_all(finished, reporter.trials, settings.alpha)
    outcome = RunOutcome(
        run_info(settings, inputs),
        verdicts,
        tuple(reporter.trials),
        interrupted,
        unfinished=tuple(case.id for case in inputs.cases if case not in finished),
    )
    if settings.stage == "A" and not interrupted:
        state.record_flagged(
            inputs.target.repo,
            pair_key(inputs),
            [verdict.case.id for verdict in verdicts],
            flagged_ids(verdicts),
            settings.effective_model,
        )
    return outcome
