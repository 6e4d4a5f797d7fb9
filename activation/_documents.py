"""One codec for every JSON document the tool writes: msgspec turns a typed record into plain
data and back (`to_builtins`, and `convert`, which checks every field against its type),
orjson writes and reads the bytes. `report/schemas.py` writes each document's JSON Schema
from the same types, so what is written, read back and described cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import orjson

Record = TypeVar("Record")
DecodeHook = Callable[[type, Any], Any]
"""How msgspec reads a type it cannot read by itself (see `report/schemas.py`'s saved run)."""


def document_json(record: object) -> bytes:
    """A record as the tool writes it: indented, one final newline."""
    return orjson.dumps(msgspec.to_builtins(record), option=orjson.OPT_INDENT_2) + b"\n"


def document_of(data: object, kind: type[Record], hook: DecodeHook | None = None) -> Record:
    """JSON bytes, or their plain data, as the record `kind`; ValueError when it is not one."""
    try:
        plain = orjson.loads(data) if isinstance(data, bytes) else data
        return msgspec.convert(plain, kind, dec_hook=hook)
    except msgspec.ValidationError as error:
        raise ValueError(str(error)) from None
