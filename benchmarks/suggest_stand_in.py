"""The stand-in of the Messages API that the suggest benchmark runs against, in a process of
its own as the real API would be: a model that routes by words, and a proposer that answers
from a script.

Routing: a prompt goes to the menu entry (skill set, distractors, the agent's built-ins)
that shares the most content words with it (inputs/words.py; ties: the first name in sorted
order), or to no skill when none shares one. So where each case goes follows from the
descriptions alone, as in tests/commands/test_suggest.py.

Proposing: a request whose structured output has a `descriptions` property is the
proposer's. The round is told by the description it starts from (the instructions quote it
under "Its current description:"), and `proposals` maps each such description to what the
proposer offers from it; a description it does not know gets no proposal.

Imported by benchmarks/suggest.py after it puts the repository on `sys.path`.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection

from activation.inputs.words import content_words, words
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply, Text

CURRENT = "Its current description:\n"


def routed(request: FakeRequest) -> Reply:
    """The menu entry sharing the most content words with the prompt, else none."""
    prompt = set(words(request.prompt))
    overlap = {name: len(prompt & content_words(text)) for name, text in request.menu.items()}
    best = max(overlap.values(), default=0)
    return Answer(sorted(name for name, n in overlap.items() if n == best)[:1] if best else [])


def is_proposer(request: FakeRequest) -> bool:
    return "descriptions" in ((request.schema or {}).get("properties") or {})


class Script:
    """Routes the trials, and answers the proposer from `proposals`."""

    def __init__(self, proposals: Mapping[str, Sequence[str]]) -> None:
        self.proposals = {current: list(offered) for current, offered in proposals.items()}

    def __call__(self, request: FakeRequest) -> Reply:
        if not is_proposer(request):
            return routed(request)
        _, _, rest = request.prompt.partition(CURRENT)
        current = rest.split("\n", 1)[0]
        return Text(json.dumps({"descriptions": self.proposals.get(current, [])}))


def serve(proposals: Mapping[str, Sequence[str]], latency: float, channel: Connection) -> None:
    """The stand-in's process: report the URL, then serve until told to stop."""
    with FakeMessagesAPI(Script(proposals), latency=latency) as api:
        channel.send(api.base_url)
        channel.recv()


@contextmanager
def stand_in(proposals: Mapping[str, Sequence[str]], latency: float) -> Iterator[str]:
    """The stand-in's URL, its answers delayed `latency` seconds each."""
    ours, theirs = multiprocessing.Pipe()
    context = multiprocessing.get_context("fork")
    process = context.Process(target=serve, args=(dict(proposals), latency, theirs))
    process.start()
    try:
        url: str = ours.recv()
        yield url
    finally:
        ours.send("stop")
        process.join(timeout=10)
        process.kill()
