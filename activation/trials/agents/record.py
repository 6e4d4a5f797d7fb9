"""One agent's record: everything that is the agent's own, in one place.

An agent is one package under trials/agents/ whose `__init__` holds its `AGENT` record, read
from the package's `agent.toml` (`read_record`): its name (in specs, flags and cache keys),
how people call it, the release it is measured on, its executable, the model providers it
can run, the words for its load action, and Stage A's question in its terms (`question`).
Its heavy parts are modules of the same package, imported
when first asked for: `listing` (its skill listing, rendered as the pinned CLI renders it,
and `visibility`: its rules for what it cuts, reduces and hides) and `adapter` (how Stage B
runs it, and the reader of its event stream).
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from activation._models import Inputs
    from activation.trials.agent.adapter import Adapter
    from activation.trials.listing.model import ListedSkill, Listing, Menu
    from activation.trials.listing.visibility import Visibility


def question(skills: str, which: str, verb: str, answer: str = "names exactly as listed") -> str:
    """Stage A's question in an agent's terms: what its `skills` are and how it loads them,
    `which` skills it would load, its `verb` for a load and how an `answer` names a skill.
    Every agent asks the same question; only these words differ."""
    return (
        "You are the skill router of an AI coding agent. The agent has skills: "
        f"{skills} when a user's request matches what a skill says it is for. The user's "
        f"request follows. Decide which {which} before doing anything else for this "
        "request: only skills whose description fits the request, possibly none. Answer "
        f"with the skill {answer}, the one it would {verb} first first.\n\n"
    )


class ListingModule(Protocol):
    def listing(
        self, skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
    ) -> Listing:
        """The skills as the agent lists them for `model` (None: the CLI's default); `order`
        is the plugins' `--plugin-dir` order, for an agent that has plugins."""
        ...

    def description_limit(self, when_to_use: str | None) -> int | None:
        """The longest description the agent lists whole beside this `when_to_use`; None
        when it never cuts one."""
        ...

    def read_back(self, text: str) -> Menu | None:
        """Its listing read back from a text it was sent in (a Stage A request's system
        text): each entry's name and text; None when the text holds no listing of its."""
        ...

    def visibility(self, skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
        """How the agent shows each of `skills` in `listing` (its own rendering of them,
        perhaps with more skills): listed whole, cut, reduced to its name or not listed,
        each with the agent's rule, and whether a run can load it
        (trials/listing/visibility.py)."""
        ...


@dataclass(frozen=True)
class Agent:
    name: str
    """Its name in `--agent`, a spec's `coding_agent` and the cache key."""
    title: str
    """How people call it ("OpenCode")."""
    package: str
    """`<npm package>@<version>`: the release measured and tested."""
    command: str
    """The executable's usual name (found on the PATH unless its flag names another)."""
    providers: tuple[str, ...]
    """The model providers it can run (`--model <provider>:<id>`)."""
    load_action: str
    """How it loads a skill, in words ("a `skill` tool call")."""
    instructions: str
    """Stage A's question in its terms: the system text before its listing."""
    module: str
    """Its package, holding `listing` and `adapter`."""
    user_skills: tuple[str, ...] = ()
    """The folders below the home folder where it finds the user's own skills
    (`<name>/SKILL.md`), which `activation visibility --user-skills` lists too."""
    nested_skills: bool = False
    """Whether it lists a SKILL.md inside another skill's folder as a skill of its own (its
    discovery walks the whole tree) rather than stopping at the skill's folder."""
    mcp_tools: str = "mcp__{server}__"
    """How its stream's names of an MCP server's tools begin, `{server}` the server's name
    (Claude Code's and Codex's `mcp__<server>__`, the default)."""

    @property
    def flag(self) -> str:
        """The command-line flag naming its executable (`--opencode PATH`)."""
        return f"--{self.command}"

    @property
    def version(self) -> str:
        """The release measured (from `package`)."""
        return self.package.rpartition("@")[2]

    def mcp_prefix(self, server: str) -> str:
        """The start of its names of `server`'s tools: a trajectory names each such tool
        `<server>.<tool>`, the same on every agent (trials/agent/mcp.py)."""
        return self.mcp_tools.format(server=server)

    def label(self, version: str | None = None) -> str:
        """ "OpenCode 1.18.33": the title and the version a run found (else the pinned one)."""
        return f"{self.title} {version or self.version}"

    def listing(
        self, skills: Sequence[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
    ) -> Listing:
        return self._listing().listing(list(skills), model, inputs, order)

    def description_limit(self, when_to_use: str | None) -> int | None:
        return self._listing().description_limit(when_to_use)

    def read_back(self, text: str) -> Menu | None:
        """Its listing's entries in `text` (None: none of its listing is there): how the
        mock model reads the menu it was sent, whichever agent's it is."""
        return self._listing().read_back(text)

    def visibility(self, skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
        """The agent's own verdicts; read from the listing's entries alone
        (`entry_visibility`) while its package has no `visibility` of its own."""
        own = getattr(self._listing(), "visibility", None)
        if own is None:
            from activation.trials.listing.visibility import entry_visibility

            return entry_visibility(skills, listing)
        verdicts: tuple[Visibility, ...] = own(skills, listing)
        return verdicts

    def _listing(self) -> ListingModule:
        module: ListingModule = importlib.import_module(f"{self.module}.listing")
        return module

    def adapter(self) -> Adapter:
        adapter: Adapter = importlib.import_module(f"{self.module}.adapter").ADAPTER
        return adapter


RECORD = "agent.toml"
"""The file of an agent's package that holds its record."""


def read_record(module: str) -> Agent:
    """The record in `agent.toml` of the agent's package `module`: its fields, and its
    Stage A question's words (`[question]`, see `question`)."""
    data = tomllib.loads(files(module).joinpath(RECORD).read_text(encoding="utf-8"))
    words = data.pop("question")
    providers = tuple(data.pop("providers"))
    user_skills = tuple(data.pop("user_skills", ()))
    return Agent(**data, providers=providers, user_skills=user_skills,
                 instructions=question(**words), module=module)  # fmt: skip
