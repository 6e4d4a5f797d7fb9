"""Finding a registered thing by its name: a registry maps each name to the module that
holds the thing, and the module is imported only when the name is asked for, so `--help`
and a dry run import no agent's, provider's or stage's heavy parts."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def registered(modules: Mapping[str, str], name: str, attribute: str, unknown: Exception) -> Any:
    """`attribute` of the module registered as `name`; `unknown` raised for a name the
    registry does not hold."""
    module = modules.get(name)
    if module is None:
        raise unknown
    return getattr(importlib.import_module(module), attribute)
