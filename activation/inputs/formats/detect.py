"""Which format a case file is in, told by its shape, and its cases read in that format.

Each format says how the document fits it; the first that fits is the one. A file that
fits none is one input error naming the nearest format (the one that found most of its
shape) and what the file lacks for it; `--cases-format` forces a format, and a file that
does not fit the forced one is refused the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from activation._errors import InputError
from activation.inputs.cases import CaseFile
from activation.inputs.formats import (
    NATIVE,
    PROMPT_TEXT,
    PROMPTS_JSONL,
    SHAPED,
    SKILL_CREATOR,
    SKILL_JSON,
    TRIGGER_YAML,
    native,
    prompts_jsonl,
    skill_creator,
    skill_json,
    trigger_yaml,
)
from activation.inputs.formats.shape import Document, Fit

TITLES: Mapping[str, str] = {
    NATIVE: "this tool's cases file",
    SKILL_CREATOR: "skill-creator's trigger eval set",
    PROMPTS_JSONL: "per-skill JSON Lines prompts",
    TRIGGER_YAML: "YAML trigger tests",
    SKILL_JSON: "a per-skill JSON case file",
    PROMPT_TEXT: "a plain-text prompt file",
}
_FITS: Mapping[str, Callable[[Document], Fit]] = {
    NATIVE: native.fit,
    SKILL_CREATOR: skill_creator.fit,
    PROMPTS_JSONL: prompts_jsonl.fit,
    TRIGGER_YAML: trigger_yaml.fit,
    SKILL_JSON: skill_json.fit,
}


WAZA_WHY = (
    "not a cases file: waza's tasks grade the text of the agent's reply, and this tool "
    "measures whether the agent loads the skill (trigger cases) and grades the files it "
    "leaves; write the prompts as trigger cases (docs/formats.md)"
)


def foreign_kind(data: object) -> str | None:
    """What another tool's suite file the data is, and why it is not cases: waza's (below),
    or a scenario suite (scenarios.py); None for anything else."""
    from activation.inputs.scenarios import REASON

    listed = data.get("scenarios") if isinstance(data, dict) else None
    patterns = {"expected_patterns", "forbidden_patterns"}
    if isinstance(listed, list) and any(
        isinstance(s, dict) and patterns & s.keys() for s in listed
    ):
        return f"{REASON}: not a cases file; write the prompts as trigger cases (docs/formats.md)"
    kind = waza_kind(data)
    return None if kind is None else f"{kind}, {WAZA_WHY}"


def waza_kind(data: object) -> str | None:
    """What part of a waza suite (an eval tool whose `eval.yaml` lists tasks) the data is:
    the suite's `eval.yaml`, or one of its tasks (a prompt under `inputs`, the reply's
    checks under `expected`); None for anything else."""
    if not isinstance(data, dict):
        return None
    if "tasks" in data and ({"graders", "config", "skill"} & data.keys()):
        return "waza's eval suite (an eval.yaml that lists tasks)"
    inputs = data.get("inputs")
    if isinstance(inputs, dict) and "prompt" in inputs and "expected" in data:
        return "a waza task (a prompt under 'inputs', checks of the reply under 'expected')"
    return None


def fits(document: Document) -> tuple[Fit, ...]:
    """How the document fits each format, in detection order."""
    return tuple(_FITS[name](document) for name in SHAPED)


def is_trigger_cases(document: Document) -> bool:
    """Whether the document is a cases file of some format (not a behavior suite's)."""
    return any(fit.lacks is None for fit in fits(document))


def detect(document: Document, forced: str | None = None) -> str:
    """The document's format; an InputError when it fits none (or not the forced one)."""
    if forced is not None:
        fit = _FITS[forced](document)
        if fit.lacks is not None:
            raise InputError(
                f"{document.path}: not {TITLES[forced]} (--cases-format {forced}): "
                f"it lacks {fit.lacks}"
            )
        return forced
    found = fits(document)
    fitting = next((fit for fit in found if fit.lacks is None), None)
    if fitting is not None:
        return fitting.format
    foreign = foreign_kind(document.data)
    if foreign is not None:
        raise InputError(f"{document.path}: {foreign}")
    nearest = max(found, key=lambda fit: fit.score)
    raise InputError(
        f"{document.path}: matches no cases format; the nearest is {TITLES[nearest.format]} "
        f"(--cases-format {nearest.format}), and it lacks {nearest.lacks}"
    )


def read(
    document: Document, forced: str | None = None, shared: Sequence[Document] = ()
) -> CaseFile:
    """The document's cases, in its format (detected unless `forced`); `shared` are the
    negatives files read with a JSON Lines positives file."""
    name = detect(document, forced)
    if name == PROMPTS_JSONL:
        return prompts_jsonl.read(document, shared)
    readers: Mapping[str, Callable[[Document], CaseFile]] = {
        NATIVE: native.read,
        SKILL_CREATOR: skill_creator.read,
        TRIGGER_YAML: trigger_yaml.read,
        SKILL_JSON: skill_json.read,
    }
    return readers[name](document)
