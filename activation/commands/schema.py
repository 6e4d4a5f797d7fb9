"""`activation schema [run|changed]`: the JSON Schema of a report `--json` writes, as the
package ships it (generated from the report's types; tests keep each file equal to them)."""

from __future__ import annotations

import sys

from activation.commands.flags import SCHEMA
from activation.commands.session import Session
from activation.report.changed_schema import shipped_changed_schema
from activation.report.codec import shipped_schema


def main_schema(session: Session, argv: list[str]) -> int:
    args = SCHEMA.parse(argv)
    shipped = shipped_changed_schema if args.report == "changed" else shipped_schema
    sys.stdout.buffer.write(shipped())
    sys.stdout.flush()
    return 0
