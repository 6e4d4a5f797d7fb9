"""`activation behavior` and `activation changed` from Python: the commands' own pipelines on
a request built in Python, with no command line written and parsed.

The values are the flags' own, named as their settings are without dashes (`suite`,
`max_cost_usd`) and typed as the command line reads them (`agent=("codex",)`); what is not
given is the flag's default (no settings file or `ACTIVATION_*` variable is read: the caller
says what it wants). Bad input raises `InputError` before any agent run; the progress and
the terminal view are printed as the command prints them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from activation.commands.requests import BehaviorRequest, ChangedRequest, R, request_for
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation.commands.runner import Stages
    from activation.report.changed import ChangedReport
    from activation.report.matrix import Matrix


def chosen(name: str, kind: type[R], request: R | None, flags: dict[str, Any]) -> R:
    """The request given whole, or built from `flags` over the command's defaults."""
    if request is None:
        return request_for(name, kind, **flags)
    if flags:
        raise TypeError(f"pass a {kind.__name__} or its values, not both")
    return request


def behavior(
    request: BehaviorRequest | None = None, *, stages: Stages | None = None, **flags: Any
) -> Matrix | None:
    """Stage C's gate, as `activation behavior` runs it: its report (None for `dry_run`).
    `stages` replaces stage C by name, as `activation.commands.main.main` takes it."""
    from activation.commands.behavior import run_behavior

    asked = chosen("behavior", BehaviorRequest, request, flags)
    return run_behavior(Session("activation behavior", asked.debug), asked, stages)


def changed(
    request: ChangedRequest | None = None, *, stages: Stages | None = None, **flags: Any
) -> ChangedReport | None:
    """What a change touched, gated skill by skill, as `activation changed` runs it: the
    combined report (None for `dry_run`)."""
    from activation.commands.changed import run_changed

    asked = chosen("changed", ChangedRequest, request, flags)
    return run_changed(Session("activation changed", asked.debug), asked, stages)
