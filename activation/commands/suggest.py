"""`activation suggest`: propose a better description and prove it on cases no step has seen.

The cases are split three ways, once, by a seeded assignment that keeps a case's split when
others are added (inputs/splits.py). Each round: the current description runs on the train
split and its failures are described to a proposing model as categories of intent (never
the prompts' words); each of its proposals that breaks no rule (length, one line, no copied
train prompt) runs against the current description on the select split, in every cell,
with the set's siblings in the menu; the best that loses nothing anywhere and beats the
current description significantly becomes current (verdicts/selection.py). The search ends
when a round finds nothing better, at `--rounds`, or at the cost ceiling. Then the original
and the chosen description meet once on the holdback split: that is the result.

Exit 0 when the search ends and the holdback finds no regression; 1 when the chosen
description REGRESSED on the holdback; 3 when evidence is missing; 2 for bad input.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from activation import __version__, _config
from activation._errors import InputError
from activation._files import write_atomically
from activation._models import CaseVerdict, Inputs, RunOutcome, RunSpec, Usage, Variant
from activation.commands.requests import SuggestRequest, parse_request
from activation.commands.runner import Stages, cells_from, inputs_from, open_store, run_cells
from activation.commands.session import Session, stop_record_of
from activation.inputs.description_edit import replace_description
from activation.inputs.frontmatter import split_document
from activation.inputs.proposals import failure_categories, proposal_problems, proposer_instructions
from activation.inputs.splits import Splits, assign_splits, check_splits
from activation.report.matrix import Matrix
from activation.report.suggestion import SCHEMA as SUGGESTION_SCHEMA
from activation.report.suggestion import ProposalRecord, RoundRecord, Suggestion
from activation.report.suggestion import Splits as RecordedSplits
from activation.store import TrialStore
from activation.trials.agents import agent_named
from activation.trials.stage import Stage
from activation.verdicts.selection import Judged, judge_proposal, rejected, winner

Cells = list[tuple[RunSpec, Inputs]]
REFUSED = {
    "--shard": "suggest runs each split whole, in one process",
    "--batch": "suggest needs each run's answers before its next step; --batch is for a run",
    "--fail-on": "a proposal is already out on any REGRESSED or WEAKENED case",
}
"""Flags of a run that `suggest` shares the table of but cannot honour."""


@dataclass
class Search:
    """What the search needs at every step, and what it has spent."""

    session: Session
    stage: Stage
    specs: tuple[RunSpec, ...]
    inputs: Inputs
    splits: Splits
    store: TrialStore | None
    proposals: int
    proposer: str
    limit: int
    spent: Usage = field(default_factory=Usage)
    ceiling_hit: bool = False
    """The cost ceiling kept some trial from starting: the evidence is incomplete."""

    def cases(self, ids: Sequence[str]) -> Inputs:
        wanted = set(ids)
        return replace(self.inputs, cases=tuple(c for c in self.inputs.cases if c.id in wanted))

    @property
    def remaining(self) -> float | None:
        ceiling = self.specs[0].max_cost_usd
        if ceiling is None:
            return None
        return ceiling - (self.spent.cost_usd or 0.0)

    def run(self, baseline: Variant, candidate: Variant, ids: Sequence[str],
            fixed: bool = False) -> tuple[RunOutcome, ...]:  # fmt: skip
        """The two descriptions on these cases in every cell, within what is left to spend;
        `fixed`: no escalation (the train split only needs the current rates)."""
        inputs = replace(self.cases(ids), baseline=baseline, candidate=candidate)
        cells: Cells = [
            (
                replace(
                    spec,
                    max_trials=spec.trials if fixed else spec.max_trials,
                    max_cost_usd=self.remaining,
                ),
                inputs,
            )
            for spec in self.specs
        ]
        outcomes = run_cells(self.session, self.stage, cells, self.store)
        for outcome in outcomes:
            self.spent += outcome.usage
            self.ceiling_hit = self.ceiling_hit or outcome.ceiling_hit
        if any(outcome.interrupted for outcome in outcomes):
            raise KeyboardInterrupt
        return outcomes

    @property
    def out_of_money(self) -> bool:
        remaining = self.remaining
        return remaining is not None and remaining <= 0

    def over_budget(self) -> bool:
        """The ceiling is reached, or kept a trial from starting: the search ends."""
        if self.out_of_money:
            self.ceiling_hit = True
        return self.ceiling_hit


def variant_with(current: Variant, description: str, spec: str) -> Variant:
    """The measured skill's SKILL.md with another description, its siblings as they are."""
    text = replace_description(current.text, description, current.source)
    return replace(current, spec=spec, description=description, text=text, source=spec)


def smallest_limit(specs: Sequence[RunSpec], inputs: Inputs) -> int:
    """The most characters a proposal may have: the Agent Skills spec's limit, and each
    cell's agent's own cut (less what it appends, such as Claude Code's `when_to_use`)."""
    when = inputs.candidate.when_to_use
    cuts = [agent_named(spec.coding_agent).description_limit(when) for spec in specs]
    return min([_config.DESCRIPTION_LIMIT, *(cut for cut in cuts if cut is not None)])


def once_each(outcomes: Sequence[RunOutcome]) -> list[CaseVerdict]:
    """Each case once, as the first cell that got it wrong saw it (else the first cell):
    the proposer hears of a prompt once, however many cells missed it."""
    chosen: dict[str, CaseVerdict] = {}
    for outcome in outcomes:
        for verdict in outcome.verdicts:
            held = chosen.get(verdict.id)
            if held is None or (held.candidate.right and not verdict.candidate.right):
                chosen[verdict.id] = verdict
    return list(chosen.values())


def one_round(search: Search, number: int, current: Variant) -> tuple[RoundRecord, Variant | None]:
    """A round from `current`: its train failures, the proposals, each judged on select."""
    import anyio

    from activation.trials.suggest.proposer import propose, proposer_request

    target = search.inputs.target.skill_id
    before = search.spent
    train = search.run(current, current, search.splits.train, fixed=True)
    failures = failure_categories(once_each(train), target)
    siblings = [(s.name, s.description or "") for s in current.siblings if s.listed]
    body = split_document(current.text, current.source).body
    instructions = proposer_instructions(current.description, body, failures, search.proposals,
                                         search.limit, target, siblings)  # fmt: skip
    request = proposer_request(search.proposer, instructions, _config.SUGGEST_MAX_TOKENS)
    prices = search.specs[0].pricing.for_model(search.proposer) if search.specs[0].pricing else None
    proposed = anyio.run(propose, request, prices, search.store)
    search.spent += proposed.usage
    if proposed.problem is not None:
        record = RoundRecord(number, current.description, failures, (), None,
                             search.spent - before, proposed.problem)  # fmt: skip
        return record, None
    train_prompts = [c.prompt for c in search.cases(search.splits.train).cases]
    kept = [current.description, *(description for _name, description in siblings)]
    judged: list[Judged] = []
    variants: dict[str, Variant] = {}
    for index, text in enumerate(proposed.descriptions[: search.proposals], 1):
        problems = list(proposal_problems(text, train_prompts, search.limit, kept))
        if text == current.description:
            problems.append("it is the current description")
        if problems:
            judged.append(rejected(text, "; ".join(problems)))
            continue
        if search.out_of_money:
            judged.append(rejected(text, "not run: the cost ceiling was reached"))
            continue
        variant = variant_with(current, text, f"round {number}, proposal {index}")
        variants[text] = variant
        outcomes = search.run(current, variant, search.splits.select)
        judged.append(judge_proposal(text, {o.spec.cell: o.verdicts for o in outcomes}, target))
    best = winner(judged)
    record = RoundRecord(
        number,
        current.description,
        failures,
        tuple(ProposalRecord.of(item, best) for item in judged),
        None if best is None else best.text,
        search.spent - before,
    )
    return record, None if best is None else variants[best.text]


def searched(search: Search, rounds: int) -> tuple[list[RoundRecord], Variant, str]:
    """Every round until one finds nothing better, `rounds`, or the ceiling."""
    original = search.inputs.candidate
    current = original
    records: list[RoundRecord] = []
    for number in range(1, rounds + 1):
        if search.over_budget():
            return records, current, "the cost ceiling was reached"
        record, chosen = one_round(search, number, current)
        records.append(record)
        if record.problem:
            return records, current, f"round {number}'s proposer request failed"
        if search.over_budget():
            return records, current, f"the cost ceiling was reached in round {number}"
        if chosen is None:
            return records, current, f"round {number} found nothing better"
        current = chosen
    return records, current, f"{rounds} round(s) done"


def proposer_preflight(proposer: str) -> None:
    """The proposer's provider, its credentials and API, checked before any call (the
    cells' stage has checked its own)."""
    from activation.trials.providers import provider_of

    _found, provider = provider_of(proposer)
    if not provider.proposes:
        raise InputError(
            f"--proposer {proposer}: {provider.name} proposes no descriptions: pass a real model"
        )
    provider.preflight(calls=True)


def suggestion_notice(stage: Stage, specs: Sequence[RunSpec], proposer: str) -> str | None:
    """What every output says about the cells' answers and the proposals (the mock's)."""
    from activation.trials.providers import provider_of

    notices = [notice for spec in specs if (notice := stage.notice(spec))]
    proposing = provider_of(proposer)[1].notice()
    if proposing in notices:
        notices.append(f"the proposals are {proposer}'s too")
    elif proposing:
        notices.append(f"the proposals: {proposing}")
    return "; ".join(dict.fromkeys(notices)) or None


def target_inputs(args: SuggestRequest) -> Inputs:
    """The skill to improve (`--skill` picks one of the set by id), its working-tree
    description the current one, on both sides."""
    from activation.inputs.target import SkillNotChosen

    try:
        inputs = inputs_from(args, Path.cwd(), None, alone=True, measured=args.skill)
    except SkillNotChosen as error:
        if args.skill is None:
            raise
        raise InputError(
            f"--skill {args.skill}: no skill of the repository ({error.found})"
        ) from None
    target = inputs.target
    if args.skill is not None and args.skill != target.skill_id:
        ids = [target.skill_id, *(s.name for s in inputs.candidate.siblings)]
        if args.skill not in ids:
            raise InputError(
                f"--skill {args.skill}: no skill of the set ({', '.join(sorted(ids))})"
            )
        raise InputError(
            f"--skill {args.skill}: not the skill at {target.skill_path.as_posix()} "
            f"({target.skill_id}); pass one of them only"
        )
    return inputs


def refuse_mock_write(args: SuggestRequest, specs: Sequence[RunSpec], proposer: str) -> None:
    """`--write` with the mock model or proposer: its proposal and verdicts mean nothing,
    and would silently replace a real SKILL.md's description."""
    from activation.trials.providers import provider_of

    models = [proposer, *(spec.model for spec in specs if spec.model is not None)]
    # a provider whose answers are free answers offline, by word overlap: the mock
    if args.write and any(provider_of(model)[1].free is not None for model in models):
        raise InputError(
            "--write: the mock's proposals and verdicts mean nothing about the real agent, "
            "so they are not written into SKILL.md: drop --write, or pass a real --model and "
            "--proposer"
        )


def main_suggest(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, _settings = parse_request("suggest", SuggestRequest, argv)
    from activation.commands.outputs import chosen_outputs
    from activation.commands.runner import stage_of

    session.adopt(args.debug, args.json, stop_record_of(SUGGESTION_SCHEMA))
    for flag, why in REFUSED.items():
        if getattr(args, flag.removeprefix("--").replace("-", "_")):
            raise InputError(f"{flag}: {why}")
    files = {"markdown": args.markdown, "html": args.html}
    outputs = chosen_outputs(files, args.no_summary, os.environ)
    stage = stage_of(args, stages)
    specs = cells_from(args, stage)
    proposer = args.proposer or _config.MODEL
    refuse_mock_write(args, specs, proposer)
    if args.cases is None:
        from activation.commands.run import own_cases

        args = replace(args, cases=own_cases(session, args))
    inputs = target_inputs(args)
    target = inputs.target.skill_id
    splits = assign_splits(inputs.cases, target, args.seed, args.splits)
    check_splits(splits, inputs.cases, target)
    limit = smallest_limit(specs, inputs)
    if args.dry_run:
        from activation.report.suggestion_plan import render_suggestion_plan

        specs = tuple(stage.preflight(spec, calls=False) for spec in specs)
        notice = suggestion_notice(stage, specs, proposer)
        session.out.print(
            render_suggestion_plan(
                stage, specs, inputs, splits, args.rounds, args.proposals, proposer, notice
            )
        )
        return 0
    specs = tuple(stage.preflight(spec) for spec in specs)
    proposer_preflight(proposer)
    with open_store(args) as store:
        search = Search(session, stage, specs, inputs, splits, store, args.proposals, proposer,
                        limit)  # fmt: skip
        records, chosen, stopped = searched(search, args.rounds)
        holdback = None
        if chosen.description != inputs.candidate.description and not search.ceiling_hit:
            outcomes = search.run(inputs.candidate, chosen, splits.holdback)
            matrix = holdback_report(outcomes)
            holdback = matrix.single or matrix
    suggestion = Suggestion(
        version=__version__,
        skill=target,
        skill_path=inputs.target.skill_path.as_posix(),
        original=inputs.candidate.description,
        chosen=chosen.description,
        cells=tuple(spec.cell for spec in specs),
        proposer=proposer,
        notice=suggestion_notice(stage, specs, proposer),
        splits=RecordedSplits(splits.train, splits.select, splits.holdback),
        rounds=tuple(records),
        stopped=stopped,
        holdback=holdback,
        usage=search.spent,
        ceiling_hit=search.ceiling_hit,
    )
    from activation.report.suggestion_terminal import render_suggestion

    session.show(render_suggestion(suggestion))
    if args.write:
        suggestion = write_chosen(session, suggestion, inputs, chosen)
    write_suggestion(session, args, suggestion, outputs.summary)
    return suggestion.exit_code


def holdback_report(outcomes: Sequence[RunOutcome]) -> Matrix:
    """The holdback run as a run of its cells reports it."""
    from activation.report.matrix import build_matrix

    return build_matrix(outcomes, __version__)


def write_chosen(
    session: Session, suggestion: Suggestion, inputs: Inputs, chosen: Variant
) -> Suggestion:
    """`--write`: the chosen description into the working-tree SKILL.md, only once the
    holdback has been shown and found no regression."""
    if not suggestion.changed:
        session.say("--write: nothing to write, the description stays as it is")
        return suggestion
    if suggestion.exit_code != 0:
        session.say("--write: not written, the holdback run found a regression or is incomplete")
        return suggestion
    path = inputs.target.skill_file
    text = path.read_text(encoding="utf-8")
    written = replace_description(text, chosen.description, str(path)).encode("utf-8")
    write_atomically(path, written)
    session.say(f"--write: wrote the chosen description into {path}")
    return replace(suggestion, written=str(path))


def write_suggestion(
    session: Session, args: SuggestRequest, suggestion: Suggestion, summary: Path | None
) -> None:
    """The JSON, Markdown and HTML files asked for, and the job summary (the Markdown)."""
    from activation._documents import document_json
    from activation.report.suggestion_html import render_suggestion_html
    from activation.report.suggestion_markdown import render_suggestion_markdown

    session.write_json(document_json(suggestion))
    files = {"markdown": args.markdown, "html": args.html}
    render = {
        "markdown": lambda: render_suggestion_markdown(suggestion).encode(),
        "html": lambda: render_suggestion_html(suggestion).encode(),
    }
    for name, path in files.items():
        if path is not None:
            session.write_file(path, render[name](), f"{name} report")
    if summary is not None:
        session.append_summary(summary, render["markdown"]())
