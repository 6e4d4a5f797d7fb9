"""A `judge` grader's question asked of a model: its request, and how its answer is read.

The answer is structured (`JUDGE_SCHEMA`: a short reasoning, then the verdict), so a judge
that reasons before concluding is read correctly; a provider without structured output is
read from the end of its reply (`VERDICT: YES`, as the seeds' runner does). Anything else is
no answer (None, after the one re-ask every `call` makes): an error of the trial, never a
vote. With `--judge-samples k` the question is asked k times and the majority decides
(graders/base.py `Votes`), so the judge's own variance is seen apart from the agent's.
Answers are kept in the response cache, under the judge's model, the request and the
sample's index (the first sample's key is the one a single answer was always kept under).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from activation._config import BEHAVIOR_JUDGE_MAX_CHARS, BEHAVIOR_JUDGE_MAX_TOKENS
from activation._models import Usage
from activation.graders.base import Votes
from activation.trials.backend import request_digest
from activation.trials.behavior.workspace import Workspace
from activation.trials.cache import Store
from activation.trials.providers import parse_model
from activation.trials.providers.asking import (
    Kept,
    Provider,
    Unanswered,
    answer_payload,
    call,
    reply_text,
)

JUDGE_KIND = "behavior-judge"
"""Names a judge's answer in the response cache."""

JUDGE_SCHEMA: Mapping[str, object] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "verdict": {"type": "string", "enum": ["YES", "NO"]},
    },
    "required": ["reasoning", "verdict"],
    "additionalProperties": False,
}
JUDGE_SYSTEM = (
    "You review the files an AI coding agent left in a project after it was given a task. "
    "You answer one yes/no question about them. Judge only what the files show: code that "
    "is missing, or shown only in a comment, does not count. Give one to three sentences of "
    "reasoning, then the verdict: YES or NO."
)
_TEXT_VERDICT = re.compile(r"VERDICT:\s*\**\s*(YES|NO)\b\W*\Z", re.IGNORECASE)


def judge_request(
    question: str,
    examples: str | None,
    workspace: Workspace,
    max_chars: int = BEHAVIOR_JUDGE_MAX_CHARS,
) -> tuple[str, str]:
    """(system, user) of the judge's request. The files are shown whole in path order
    until `max_chars` of them; the file that crosses the limit is cut and the rest named as
    left out, so the judge knows what it did not see."""
    parts = [f"Question: {question}"]
    if examples:
        parts.append(f"Examples of how to answer:\n{examples}")
    parts.append(_files(workspace, max_chars))
    return JUDGE_SYSTEM, "\n\n".join(parts)


def _files(workspace: Workspace, max_chars: int) -> str:
    if not workspace.files:
        return "The workspace has no files."
    shown: list[str] = []
    left_out: list[str] = []
    room = max_chars
    for path, text in workspace.files:
        if room <= 0:
            left_out.append(path)
            continue
        body = (
            text
            if len(text) <= room
            else f"{text[:room]}\n[cut: {len(text) - room:,} more characters]"
        )
        room -= len(text)
        shown.append(f'<file path="{path}">\n{body}\n</file>')
    listing = "\n".join(shown)
    if left_out:
        listing += f"\n\nLeft out (over the size limit): {', '.join(left_out)}"
    return f"The workspace's files:\n\n{listing}"


def read_verdict(answer: object) -> bool | None:
    """True for YES, False for NO, None for anything else: the structured answer (a mapping
    with `verdict`), or a reply ending in `VERDICT: YES` / `VERDICT: NO`."""
    if isinstance(answer, Mapping):
        verdict = answer.get("verdict")
        return {"YES": True, "NO": False}.get(verdict) if isinstance(verdict, str) else None
    if isinstance(answer, str):
        match = _TEXT_VERDICT.search(answer.strip())
        return None if match is None else match.group(1).upper() == "YES"
    return None


def judgement(message: Mapping[str, Any]) -> bool:
    """The judge's verdict: its structured answer, else its reply's text read for
    `VERDICT: YES`; Unanswered for neither."""
    try:
        answer: object = answer_payload(message.get("content") or ())
    except Unanswered:
        answer = reply_text(message)
    verdict = read_verdict(answer)
    if verdict is None:
        raise Unanswered("no YES or NO verdict")
    return verdict


def kept_verdict(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def sample_key(request: Mapping[str, Any], model: str, sample: int) -> str:
    """The cache key of one sample of a judge's answer: the first's is the key a single
    answer was always kept under, so earlier runs' answers are served still."""
    if not sample:
        return request_digest(JUDGE_KIND, request, judge=model)
    return request_digest(JUDGE_KIND, request, judge=model, sample=str(sample))


async def ask_judge(
    judge: Provider,
    model: str,
    model_id: str,
    question: str,
    examples: str | None,
    workspace: Workspace,
    store: Store | None,
    samples: int = 1,
) -> tuple[Votes, Usage]:
    """The judge's `samples` answers to `question` about the workspace's files (None: no
    answer), each from the cache when an earlier run asked the same sample; `model` as
    `--judge-model` names it, `model_id` as its provider does."""
    system, user = judge_request(question, examples, workspace)
    request = {
        "model": model_id,
        "max_tokens": BEHAVIOR_JUDGE_MAX_TOKENS,
        "system": system,
        "messages": [{"role": "user", "content": user}],
        "output_config": {"format": {"type": "json_schema", "schema": JUDGE_SCHEMA}},
    }
    answers: list[bool | None] = []
    spent = Usage()
    for sample in range(samples):
        kept = None
        if store is not None:
            kept = Kept(store, sample_key(request, model, sample), "verdict", kept_verdict)
        answer = await call(judge, request, judgement, kept=kept)
        answers.append(answer.value)
        spent += answer.usage
    return Votes(tuple(answers)), spent


def own_model_warnings(judge: str, agent_models: Iterable[str | None]) -> list[str]:
    """A warning for each cell whose agent runs the judge's own model: a model grading its
    own work shares its blind spots, so its YES is weaker evidence. A cell on the agent's
    default model (None) cannot be compared."""
    judged = parse_model(judge)
    return [
        f"the judge {judge} is the agent's own model (--model {model}): it grades its own "
        "work; --judge-model another model judges apart from the agent"
        for model in dict.fromkeys(agent_models)
        if model is not None and parse_model(model) == judged
    ]
