"""What every grader type is: a frozen dataclass subclass of `Grader`, its fields its keys.

A grader type says what it checks (`check`, pure, over the workspace's files), what it
needs from outside to do so (`needs`: a model's answer, a command's result, given in by
the run), its own static problems (`problems`: a pattern that does not compile), its default
description (`summary`) and, for the docs' table, when it passes (`passes`, its docstring
under `grader_type`, which also names it and makes it a frozen record). Its fields are
read from a case file by their annotations (parse.py); a type adds no reading code of its
own unless a field needs a check beyond its annotation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, TypeVar, dataclass_transform, get_args

Level = Literal["L1", "L2", "L3", "L4", "L5"]
"""L1 presence (required symbols exist), L2 hallucination (no invented packages or APIs),
L3 security (no hard-coded secrets, no insecure storage), L4 structure (correctly wired),
L5 version (the current API, not a removed one)."""
LEVELS: tuple[Level, ...] = get_args(Level)
LEVEL_NAMES: dict[Level, str] = {
    "L1": "presence",
    "L2": "hallucination",
    "L3": "security",
    "L4": "structure",
    "L5": "version",
}

Outcome = Literal["passed", "failed", "void", "error"]
Checked = tuple[Outcome, str]
"""A grader's own outcome in a trial, before voiding, and why."""
Files = Sequence[tuple[str, str]]
"""The workspace's graded files: (relative POSIX path, text)."""


@dataclass(frozen=True)
class Ask:
    """A question a model (`--judge-model`) answers YES or NO about the workspace's files,
    given PASS/FAIL `examples`."""

    question: str
    examples: str | None = None


@dataclass(frozen=True)
class Run:
    """A shell command run in the workspace, without network, for at most `timeout` s."""

    command: str
    timeout: float


@dataclass(frozen=True)
class Trace:
    """What the agent did in the trial (its trajectory): what a trajectory grader needs."""


TRACE = Trace()


class CalledTool(Protocol):
    """One tool call as a trajectory grader reads it (`_models.ToolCall`)."""

    @property
    def name(self) -> str: ...

    @property
    def input(self) -> str:
        """The call's input, as the agent's stream's JSON."""
        ...

    @property
    def turn(self) -> int:
        """The conversation's turn it was called in, from 1."""
        ...


class Did(Protocol):
    """What the agent did in a trial as a trajectory grader reads it (`_models.Trajectory`,
    which this layer cannot import)."""

    @property
    def tool_calls(self) -> Sequence[CalledTool]: ...

    @property
    def commands(self) -> Sequence[str]: ...

    @property
    def files_read(self) -> Sequence[str]: ...

    @property
    def turns(self) -> int | None: ...

    @property
    def measured(self) -> AbstractSet[str]: ...

    def in_turn(self, turn: int) -> Did:
        """What it did after the case's `turn`-th prompt (from 1) only."""
        ...


Need = Ask | Run | Trace


@dataclass(frozen=True)
class CommandResult:
    """How a `Run` ended in the workspace. `exit_code` None and not `timed_out`: it could
    not be run at all. `output` is the end of what it printed."""

    exit_code: int | None
    timed_out: bool = False
    output: str = ""


@dataclass(frozen=True)
class Votes:
    """A judge question's answers, one per sample (`--judge-samples`): True for YES, False
    for NO, None where the model gave none. The verdict is the majority; a tie or a missing
    answer has none, so it is an error of the trial (fail closed), never a vote."""

    samples: tuple[bool | None, ...]

    @property
    def yes(self) -> int:
        return sum(sample is True for sample in self.samples)

    @property
    def no(self) -> int:
        return sum(sample is False for sample in self.samples)

    @property
    def unanswered(self) -> int:
        return len(self.samples) - self.yes - self.no

    @property
    def verdict(self) -> bool | None:
        """YES or NO by majority; None on a tie or when a sample has no answer."""
        if self.unanswered or self.yes == self.no:
            return None
        return self.yes > self.no


Answer = Votes | CommandResult | Did
"""An `Ask`'s answers (its samples), a `Run`'s result or the `Trace`."""
Answers = Mapping[Need, Answer]


@dataclass(frozen=True, kw_only=True)
class Grader:
    """One check on the files the agent left in its workspace; a type is a subclass.

    `description` is what outputs name it by (by default its `summary`); `level` L1-L5, or
    None (unlevelled, or the final holistic judge: lint advises both, never refuses);
    `follows` marks it as one that shows the agent followed the skill's body (the
    attribution chain's "followed" step, verdicts/chain.py).
    """

    type: ClassVar[str]
    """The name case files give it, and its key in the registry."""
    passes: ClassVar[str]
    """When it passes, in the words of the docs' grader table."""

    description: str = ""
    level: Level | None = None
    follows: bool = False

    def __post_init__(self) -> None:
        if not self.description:
            object.__setattr__(self, "description", self.summary())

    def summary(self) -> str:
        """The description it gets when the case gives none."""
        return self.type

    def check(self, files: Files, answers: Answers) -> Checked:
        raise NotImplementedError

    @property
    def negative(self) -> bool:
        """A check that something is absent: void in a trial where nothing positive passed
        (else an empty workspace would pass it)."""
        return False

    def parts(self) -> tuple[Grader, ...]:
        """The graders inside this one (a composite's)."""
        return ()

    def own_needs(self) -> tuple[Need, ...]:
        """What this grader itself needs answered before it can check (not its parts)."""
        return ()

    def problems(self) -> tuple[str, ...]:
        """Its own static problems (a pattern that does not compile): the loader refuses
        the first, lint reports each."""
        return ()

    def walk(self) -> Iterator[Grader]:
        """This grader and every grader inside it."""
        yield self
        for part in self.parts():
            yield from part.walk()

    @property
    def static(self) -> bool:
        """Whether it is checked from the files alone (no model, no command): what lint can
        grade against a scaffold."""
        return not any(grader.own_needs() for grader in self.walk())

    def identity(self) -> dict[str, Any]:
        """Its type and every field, nested graders included: a cache key's part."""
        fields: dict[str, Any] = {"type": self.type}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, tuple) and value and isinstance(value[0], Grader):
                value = [part.identity() for part in value]
            fields[field.name] = value
        return fields


G = TypeVar("G", bound=Grader)


@dataclass_transform(
    frozen_default=True, kw_only_default=True, field_specifiers=(dataclasses.field,)
)
def grader_type(name: str) -> Callable[[type[G]], type[G]]:
    """A grader type's header: `name` is what case files call it, its docstring says when it
    passes (the docs' grader table), and it is a frozen keyword-only record like every grader."""

    def declared(kind: type[G]) -> type[G]:
        kind.type = name
        kind.passes = " ".join((kind.__doc__ or "").split())
        return dataclass(frozen=True, kw_only=True)(kind)

    return declared


class Absent(Grader):
    """A grader that checks that something is not there (see `Grader.negative`)."""

    @property
    def negative(self) -> bool:
        return True


def needs_of(graders: Sequence[Grader]) -> tuple[Need, ...]:
    """Everything the graders (and those inside them) need answered, once each, in order."""
    found: dict[Need, None] = {}
    for top in graders:
        for grader in top.walk():
            found.update(dict.fromkeys(grader.own_needs()))
    return tuple(found)
