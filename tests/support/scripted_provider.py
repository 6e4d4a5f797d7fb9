"""The in-process scripted provider (trials/providers/scripted.py), registered for a test as
any provider is: this module holds its `PROVIDER`, one entry in the registry names it. For
the tests whose subject is not the HTTP path: `--model scripted:<id>` is then answered
from the test's script, with no stand-in server."""

from __future__ import annotations

import sys

import pytest

from activation.trials import providers
from activation.trials.providers.scripted import Scripted

NAME = "scripted"
PROVIDER = Scripted(NAME)


def registered(monkeypatch: pytest.MonkeyPatch) -> Scripted:
    """A fresh scripted provider in the registry, for a test's fixture: set its `script`,
    read its `asked`."""
    fresh = Scripted(NAME)
    monkeypatch.setattr(sys.modules[__name__], "PROVIDER", fresh)
    monkeypatch.setattr(
        providers, "PROVIDER_MODULES", {**providers.PROVIDER_MODULES, NAME: __name__}
    )
    return fresh
