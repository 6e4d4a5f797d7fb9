"""`activation schema [KIND]`: the JSON Schema of a JSON document the tool writes, as the
package ships it (generated from the document's types; a test keeps each file equal to
them); `--list` names every kind."""

from __future__ import annotations

import sys

from activation.commands.flags import SCHEMA
from activation.commands.session import Session
from activation.report.schemas import DOCUMENTS, shipped_schema


def main_schema(session: Session, argv: list[str]) -> int:
    args = SCHEMA.parse(argv)
    if args.list:
        for kind, document in DOCUMENTS.items():
            ids = ", ".join(document.ids)
            session.out.print(f"{kind}: {ids}; written by {document.writes}", soft_wrap=True,
                              markup=False, highlight=False)  # fmt: skip
        return 0
    sys.stdout.buffer.write(shipped_schema(args.kind or "run"))
    sys.stdout.flush()
    return 0
