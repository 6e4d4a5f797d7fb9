"""`activation init`: a suite drafted for a skill of the working tree's set, or for all.

The shell around inputs/draft.py: it finds the skills (as `changed` does), asks the model
once per skill through the one ask-and-cache path (`asking.call`, with the draft's JSON
schema; the answer kept in the response cache, so a rerun asks nothing again), or takes
the mock's labelled placeholders offline, and writes each skill's files in its folder,
where the loader finds them. Every file it would write is checked first: one
that exists stops the command before any model call, unless `--force`.

Exit 0 once written, 2 for bad input, 3 when the model gave no usable draft for a skill.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from activation._errors import ExitCode, InputError
from activation.commands.flags import DRAFT_FORMATS, INIT
from activation.commands.session import Session
from activation.inputs import draft
from activation.inputs.changes import SkillPlace

if TYPE_CHECKING:
    from activation.trials.cache import Store

PER_GROUP = 2
"""Positives a model drafts in each group (each with its twin)."""
MAX_TOKENS = 4_000
KIND = "init-draft"
"""The drafts' kind in the response cache's request digest."""


@dataclass(frozen=True)
class Planned:
    """A skill to draft for, where its files go, and what the model is told of it."""

    place: SkillPlace
    ask: draft.Ask


def description_of(repo: Path, place: SkillPlace) -> tuple[str, str]:
    """A skill's description and body, as its SKILL.md says them."""
    from activation.inputs.frontmatter import split_document

    document = split_document((repo / place.path).read_text(encoding="utf-8"), place.path)
    description = document.frontmatter.get("description")
    return (description if isinstance(description, str) else "").strip(), document.body


def set_of(place: SkillPlace) -> tuple[str, str]:
    """The set a skill is listed with: its folder of skill folders and its plugin (a
    marketplace serves one `skills/` folder as several plugins, each its own menu)."""
    return place.set_root, place.id.rpartition(":")[0]


def chosen(places: dict[str, SkillPlace], skill: str | None, every: bool) -> list[SkillPlace]:
    """The skills `--skill` or `--all` picks; the repo's only one when neither is given."""
    found = list(places.values())
    names = ", ".join(sorted(place.name for place in found))
    if skill is not None and every:
        raise InputError("--skill and --all: pass one of them")
    if skill is not None:
        picked = [p for p in found if skill in (p.name, p.id, p.alias)]
        if not picked:
            raise InputError(f"--skill {skill}: no skill of the working tree ({names})")
        if len(picked) > 1:
            ids = ", ".join(sorted(p.id for p in picked))
            raise InputError(f"--skill {skill}: names several skills ({ids}); pass its id")
        return picked
    if every or len(found) == 1:
        return found
    raise InputError(f"{len(found)} skills ({names}): pass --skill NAME or --all")


def planned(repo: Path, skill: str | None, every: bool) -> list[Planned]:
    from activation.inputs.repo_cases import repo_skills

    places = repo_skills(repo)
    if not places:
        raise InputError(f"{repo}: no SKILL.md in the working tree to draft cases for")
    listed = {
        path: draft.Listed(place.id, description_of(repo, place)[0])
        for path, place in places.items()
    }
    plans = []
    for place in chosen(places, skill, every):
        siblings = tuple(
            listed[path]
            for path, other in places.items()
            if set_of(other) == set_of(place) and path != place.path
        )
        body = description_of(repo, place)[1]
        plans.append(Planned(place, draft.Ask(listed[place.path], siblings, body)))
    return plans


def targets(repo: Path, plan: Planned, files: dict[str, bytes]) -> dict[Path, bytes]:
    """The files by where they go: the skill's folder."""
    return {repo / PurePosixPath(plan.place.folder) / name: data for name, data in files.items()}


def names_of(plan: Planned, format: str, behavior: bool) -> tuple[str, ...]:
    """Every file `init` writes for the skill."""
    name = plan.ask.skill.short
    return draft.file_names(name, format) + (draft.behavior_names(name) if behavior else ())


async def asked(model: str, asks: list[draft.Ask], store: Store | None) -> list[draft.Answer | str]:
    """Each skill's answer from the model (from the response cache when an earlier run asked
    the same), or why there is none."""
    from activation.trials.backend import request_digest
    from activation.trials.providers import provider_of
    from activation.trials.providers.asking import Kept, Unanswered, answer_payload, call

    def read(message: Any) -> draft.Answer:
        if message.get("stop_reason") in ("refusal", "max_tokens"):
            raise Unanswered(f"stop reason {message.get('stop_reason')}")
        answer = draft.read_answer(answer_payload(message.get("content") or ()))
        if answer is None:
            raise Unanswered("no draft of the schema's shape")
        return answer

    answers: list[draft.Answer | str] = []
    async with provider_of(model)[1].asker(None) as asker:
        for ask in asks:
            request = {
                "model": model,
                "max_tokens": MAX_TOKENS,
                "messages": [{"role": "user", "content": draft.instructions(ask, PER_GROUP)}],
                "output_config": {"format": {"type": "json_schema", "schema": draft.SCHEMA}},
            }
            kept = None
            if store is not None:
                key = request_digest(KIND, request)
                kept = Kept(store, key, "draft", draft.read_answer, draft.answer_data)
            got = await call(asker, request, read, kept=kept)
            answers.append(got.value if got.value is not None else got.problem)
    return answers


def answers_for(
    model: str, asks: list[draft.Ask], cache: Path | None, ttl: float
) -> list[draft.Answer | str]:
    """The mock's placeholders (offline, free), else the model's drafts; `cache`: the
    response cache's folder (None: `--no-cache`)."""
    from activation.trials.providers import provider_of

    provider = provider_of(model)[1]
    if provider.free is not None:  # a provider whose answers are free: the offline mock
        return [draft.placeholders(ask) for ask in asks]
    from activation.trials.api_check import MissingKey

    try:
        provider.preflight(calls=True)
    except MissingKey as missing:
        raise missing.needed_by(
            " to draft cases", "--model mock drafts placeholders offline"
        ) from None
    import anyio

    from activation.store import TrialStore

    if cache is None:
        return anyio.run(asked, model, asks, None)
    store = TrialStore(cache, ttl)
    try:
        return anyio.run(asked, model, asks, store)
    finally:
        store.close()


def main_init(session: Session, argv: list[str]) -> int:
    args = INIT.parse(argv)
    session.debug = session.debug or args.debug
    repo = Path.cwd()
    plans = planned(repo, args.skill, args.all)
    existing = [
        path
        for plan in plans
        for path in targets(
            repo, plan, dict.fromkeys(names_of(plan, args.format, args.behavior), b"")
        )
        if path.exists()
    ]
    if existing and not args.force:
        shown = ", ".join(str(path.relative_to(repo)) for path in existing)
        raise InputError(f"{shown}: exists; pass --force to overwrite")
    from activation.store import cache_folder

    cache = None if args.no_cache else cache_folder(args.cache_dir, os.environ)
    answers = answers_for(args.model, [plan.ask for plan in plans], cache, args.cache_ttl)
    code = ExitCode.OK
    for plan, answer in zip(plans, answers, strict=True):
        name = plan.place.name
        if isinstance(answer, str):
            session.error_line(f"{name}: no draft from {args.model} ({answer}); nothing written")
            code = ExitCode.INCOMPLETE
            continue
        drafted = draft.build(plan.ask, answer)
        files = draft.rendered(drafted, args.format)
        if args.behavior:
            files |= draft.behavior_skeleton(plan.ask)
        for path, data in targets(repo, plan, files).items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if not session.write_file(path, data, "draft"):
                return ExitCode.INTERNAL
        where = ", ".join(f"{plan.place.folder}/{file}" for file in files)
        session.say(f"{name}: drafted {len(drafted.cases)} case(s) into {where}")
        session.warn(list(drafted.refused))
    if args.format != DRAFT_FORMATS[0]:
        session.warn([f"--format {args.format} has {draft.UNSAID}"])
    session.say(f"init: {draft.REVIEW}")
    return code
