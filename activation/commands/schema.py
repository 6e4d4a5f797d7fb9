"""`activation schema`: the JSON Schema of the report `--json` writes, as the package ships it
(generated from the report's types; a test keeps the two equal)."""

from __future__ import annotations

import sys

from activation.commands.flags import SCHEMA
from activation.commands.session import Session
from activation.report.codec import shipped_schema


def main_schema(session: Session, argv: list[str]) -> int:
    SCHEMA.parse(argv)
    sys.stdout.buffer.write(shipped_schema())
    sys.stdout.flush()
    return 0
